"""``OP_TYPES``: every registered op type's ``OpDef``, by type name (``opdef.REGISTRY``).

Its own module so that the graph, which ``opdef`` builds on, can look op types up too.
Written only when op modules are imported.
"""

from __future__ import annotations

__all__ = ["OP_TYPES"]

OP_TYPES: dict = {}
