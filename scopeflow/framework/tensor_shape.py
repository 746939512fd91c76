"""TF1's TensorShape and Dimension: static shapes whose dimensions may be unknown (``?``)."""

from __future__ import annotations

from scopeflow.framework.properties import read_only

__all__ = ["Dimension", "TensorShape", "as_shape", "as_dimension", "unknown_shape",
           "dimension_value", "dimension_at_index", "shape_str"]


class Dimension:
    """One dimension of a static shape; ``value`` is an int or ``None`` (unknown).

    TF1 (``disable_v2_behavior``) hands these out from ``shape[i]``; they compare and
    compute like ints, with ``None`` absorbing: ``Dimension(None) + 1`` is unknown.
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if value is None or isinstance(value, int) and not isinstance(value, bool):
            self._value = value
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                self._value = int(value.__index__())
            except (AttributeError, TypeError):
                raise TypeError(
                    f"Dimension value must be integer or None or have an __index__ method, "
                    f"got value '{value!r}' with type '{type(value)}'") from None
        if self._value is not None and self._value < 0:
            raise ValueError(f"Dimension {self._value} must be >= 0")

    value = read_only("_value")

    def __repr__(self):
        return f"Dimension({self._value})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __hash__(self):
        return hash(self._value)

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other) -> Dimension:
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _binary(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def __add__(self, o):
        return self._binary(o, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, lambda a, b: a - b)

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: b - a)

    def __mul__(self, o):
        return self._binary(o, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        return self._binary(o, lambda a, b: a // b)

    def __rfloordiv__(self, o):
        return self._binary(o, lambda a, b: b // a)

    def __mod__(self, o):
        return self._binary(o, lambda a, b: a % b)

    def _cmp(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return fn(self._value, other._value)

    def __lt__(self, o):
        return self._cmp(o, lambda a, b: a < b)

    def __le__(self, o):
        return self._cmp(o, lambda a, b: a <= b)

    def __gt__(self, o):
        return self._cmp(o, lambda a, b: a > b)

    def __ge__(self, o):
        return self._cmp(o, lambda a, b: a >= b)

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_at_index(shape, index) -> Dimension:
    """``shape``'s dimension ``index`` as a ``Dimension`` (unknown for a shape of unknown
    rank), as TF1's ``tf.dimension_at_index``."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return as_dimension(shape.dims[index])


def dimension_value(dimension):
    """The int (or None) inside a Dimension, or the value itself."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A static shape: unknown rank (``dims is None``) or a list of possibly-unknown dims.

    >>> str(TensorShape([None, 3]))
    '(?, 3)'
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                it = iter(dims)
            except TypeError:
                # A single int is a rank-1 shape, as in TF.
                self._dims = (dimension_value(as_dimension(dims)),)
                return
            self._dims = tuple(dimension_value(as_dimension(d)) for d in it)

    # -- inspection ------------------------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        """The dims as a tuple of ints/None (scopeflow's fast internal view)."""
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    # -- compatibility ---------------------------------------------------------------------
    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            # TF shows `other` as given ([1, 3], not (1, 3)).
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank) -> TensorShape:
        try:
            return self.merge_with(unknown_shape(rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank) -> TensorShape:
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def most_specific_compatible_shape(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    # -- protocol --------------------------------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return Dimension(self._dims[key])

    def __bool__(self):
        return self._dims is not None

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({'?' if self._dims[0] is None else self._dims[0]},)"
        return "(" + ", ".join("?" if d is None else str(d) for d in self._dims) + ")"

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape([{', '.join(f'Dimension({d})' for d in self._dims)}])"

    def __reduce__(self):
        return TensorShape, (self._dims,)


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)


def shape_str(shape: TensorShape) -> str:
    """TF's ``[?,3]`` rendering of a shape in op error messages."""
    dims = shape.as_tuple()
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
