"""TF's ``object_identity.Reference``: a hashable handle that compares by the identity of
what it wraps, so tensors and variables (which hash by identity but build ops for ``==``
in TF2-style code) can be dictionary keys and set members (``Tensor.ref()``)."""

from __future__ import annotations

__all__ = ["Reference"]


class Reference:
    """``t.ref()``: equal to another Reference exactly when both wrap the same object.

    >>> class T: pass
    >>> t = T()
    >>> Reference(t) == Reference(t), Reference(t) == Reference(T())
    (True, False)
    """

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        """The object this Reference wraps."""
        return self._wrapped

    def __eq__(self, other):
        if isinstance(other, Reference):
            return self._wrapped is other._wrapped
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<{type(self).__name__} wrapping {self._wrapped!r}>"
