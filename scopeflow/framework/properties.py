"""``read_only``: TF1's many read-only attributes (``Tensor.op``, ``QueueRunner.queue``...),
each one line instead of a three-line ``@property`` that returns a private field.

No scopeflow imports: every layer may use it.
"""

from __future__ import annotations

import operator

__all__ = ["read_only"]


def read_only(path: str, doc: str = "") -> property:
    """A property that returns ``self.<path>``; ``path`` may be dotted (``"_op.graph"``).

    ``attrgetter`` runs in C, so reading the attribute is no slower than the ``def`` it
    replaces. ``doc`` is passed even when empty: left out, ``property`` would take the
    ``attrgetter`` class's own docstring.

    >>> class Box:
    ...     def __init__(self, value):
    ...         self._value = value
    ...     value = read_only("_value", "What the box holds.")
    >>> Box(3).value
    3
    """
    return property(operator.attrgetter(path), doc=doc)
