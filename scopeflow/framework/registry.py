"""``OP_TYPES``: every registered op type's ``OpDef``, by type name (``opdef.REGISTRY``).

Its own module so that the graph, which ``opdef`` builds on, can look op types up too.
Written only when op modules are imported.
"""

from __future__ import annotations

__all__ = ["OP_TYPES", "VARIABLE_OP_TYPES", "is_variable_op"]

OP_TYPES: dict = {}

# The op types whose output is a variable's buffer (TF1's ref variables). The runtime looks
# their buffers up where they are read, sub-plans share them instead of capturing them,
# and a Saver saves them: one definition for all of these.
VARIABLE_OP_TYPES = frozenset({"VariableV2", "Variable"})


def is_variable_op(op) -> bool:
    """Whether ``op`` (an ``Operation``) is a variable, whose output is its buffer."""
    return op.type in VARIABLE_OP_TYPES
