"""``tf.TypeSpec`` and the specs of the framework's own value types: ``tf.TensorSpec``,
``tf.SparseTensorSpec``, ``tf.IndexedSlicesSpec``, ``tf.NoneTensorSpec``, and
``tf.type_spec_from_value``.

A spec describes a value without holding one (a tensor's dtype and static shape, a sparse
tensor's dense shape...). As in TF, each spec is defined by the tuple its ``_serialize``
returns: equality, hashing, ``repr``, pickling, compatibility and the most specific common
supertype all work on that tuple, attribute by attribute (a ``TensorShape`` by its
compatibility or subtyping rule, a ``DType`` or a nested spec by its own, anything else by
equality). ``_to_components``/``_from_components`` split a value into the tensors it is made
of and put it back together (``_component_specs`` describes those tensors).

Value types above this layer (``RaggedTensor``, ``TensorArray``, ``Dataset``, ``Optional``)
register how to build their spec with ``register_type_spec_from_value_converter`` where
they define their spec, as TF's modules do, so ``type_spec_from_value`` finds them.
"""

from __future__ import annotations

import abc

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value

__all__ = ["TypeSpec", "BatchableTypeSpec", "TensorSpec", "SparseTensorSpec",
           "IndexedSlicesSpec", "NoneTensorSpec", "NoneTensor", "type_spec_from_value",
           "register_type_spec_from_value_converter", "shape_is_subtype",
           "shape_common_supertype"]


# ── what TF's TraceType protocol says of shapes and dtypes ─────────────────────────────
def shape_is_subtype(shape: TensorShape, other: TensorShape) -> bool:
    """TF's ``TensorShape.is_subtype_of``: ``other`` can stand for ``shape`` (unknown rank
    stands for any shape; otherwise equal ranks and each dim equal or unknown in ``other``)."""
    if other.ndims is None:
        return True
    if shape.ndims != other.ndims:
        return False
    return all(o is None or s == o for s, o in zip(shape.as_tuple(), other.as_tuple()))


def shape_common_supertype(shape: TensorShape, others) -> TensorShape | None:
    """TF's ``TensorShape.most_specific_common_supertype``: dims kept where all agree,
    unknown rank where ranks differ; None when an ``other`` is not a shape."""
    others = list(others)
    if any(not isinstance(o, TensorShape) for o in others):
        return None
    if shape.ndims is None or any(o.ndims != shape.ndims for o in others):
        return TensorShape(None)
    dims = shape.as_tuple()
    return TensorShape([d if all(o.as_tuple()[i] == d for o in others) else None
                        for i, d in enumerate(dims)])


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _same_kind(a, b) -> bool:
    """Same type, namedtuples by class name and fields (TF's rule for rebuilt specs)."""
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and a._fields == b._fields
    return type(a) is type(b)


class _NoSupertype(Exception):
    """Raised inside the attribute walk when two attributes have no common supertype."""


def _attr_compatible(a, b) -> bool:
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    if not _same_kind(a, b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_attr_compatible(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_attr_compatible(a[k], b[k]) for k in a)
    if isinstance(a, (TensorShape, dtypes.DType)):
        return a.is_compatible_with(b)
    return a == b


def _attr_subtype(a, b) -> bool:
    if isinstance(a, TypeSpec):
        return a.is_subtype_of(b)
    if isinstance(a, TensorShape):
        return isinstance(b, TensorShape) and shape_is_subtype(a, b)
    if isinstance(a, (list, tuple, dict)):
        if not _same_kind(a, b) or len(a) != len(b):
            return False
        if isinstance(a, dict):
            return sorted(a) == sorted(b) and all(_attr_subtype(a[k], b[k]) for k in a)
        return all(_attr_subtype(x, y) for x, y in zip(a, b))
    return a == b


def _attr_supertype(a, others):
    """The common supertype of attribute ``a`` and ``others``' ones; ``_NoSupertype``."""
    if isinstance(a, TypeSpec):
        result = a.most_specific_common_supertype(others)
        if result is None:
            raise _NoSupertype
        return result
    if isinstance(a, TensorShape):
        result = shape_common_supertype(a, others)
        if result is None:
            raise _NoSupertype
        return result
    if isinstance(a, (list, tuple, dict)):
        if any(not _same_kind(a, o) or len(o) != len(a) for o in others):
            raise _NoSupertype
        if isinstance(a, dict):
            if any(sorted(o) != sorted(a) for o in others):
                raise _NoSupertype
            return type(a)((k, _attr_supertype(a[k], [o[k] for o in others]))
                           for k in sorted(a))
        items = [_attr_supertype(x, [o[i] for o in others]) for i, x in enumerate(a)]
        return type(a)(*items) if _is_namedtuple(a) else type(a)(items)
    if not all(a == o for o in others):
        raise _NoSupertype
    return a


def _cmp_key(value):
    """A hashable form of a ``_serialize`` tuple (lists and dicts made tuples)."""
    if isinstance(value, dict):
        return tuple((k, _cmp_key(value[k])) for k in sorted(value))
    if isinstance(value, tuple):
        return tuple(_cmp_key(v) for v in value)
    if isinstance(value, list):
        return (list, tuple(_cmp_key(v) for v in value))
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.shape, value.tobytes())
    return value


# ── TypeSpec ───────────────────────────────────────────────────────────────────────────
class TypeSpec(abc.ABC):
    """``tf.TypeSpec``: the type of a value (``tf.data.experimental.Structure`` too).

    Subclasses define ``value_type``, ``_serialize`` (the constructor's arguments, which
    define the spec), ``_component_specs``, ``_to_components`` and ``_from_components``.
    """

    __slots__ = ("__weakref__",)

    @property
    @abc.abstractmethod
    def value_type(self):
        """The Python type of the values this spec describes."""

    @abc.abstractmethod
    def _serialize(self):
        """The constructor's arguments as a tuple: ``type(self)(*self._serialize())``."""

    @property
    @abc.abstractmethod
    def _component_specs(self):
        """The specs of the tensors ``_to_components`` returns (a nest)."""

    @abc.abstractmethod
    def _to_components(self, value):
        """The tensors (or arrays) ``value`` is made of."""

    @abc.abstractmethod
    def _from_components(self, components):
        """The value made of ``components`` (arrays make TF1's ``*Value`` forms)."""

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    # -- compatibility and subtyping --------------------------------------------------------
    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (a spec, or a value: its ``type_spec_from_value``) fits
        this spec: same spec class, shapes and dtypes compatible, other attributes equal."""
        if not isinstance(spec_or_value, TypeSpec):
            spec_or_value = type_spec_from_value(spec_or_value)
        if type(self) is not type(spec_or_value):
            return False
        return _attr_compatible(self._serialize(), spec_or_value._serialize())

    def is_subtype_of(self, other) -> bool:
        """Whether ``other`` stands for every value ``self`` does (shapes covariant)."""
        if type(self) is not type(other):
            return False
        return _attr_subtype(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others):
        """The most specific spec every one of ``self`` and ``others`` is a subtype of, or
        None."""
        others = list(others)
        if any(type(self) is not type(o) for o in others):
            return None
        try:
            serialized = _attr_supertype(self._serialize(), [o._serialize() for o in others])
        except _NoSupertype:
            return None
        return self._deserialize(serialized)

    def most_specific_compatible_type(self, other):
        """``most_specific_common_supertype([other])``; TF's ``ValueError`` when none."""
        result = self.most_specific_common_supertype([other])
        if result is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return result

    # -- tf.data's legacy view --------------------------------------------------------------
    def _to_legacy_output_types(self):
        raise NotImplementedError(f"{type(self).__name__}._to_legacy_output_types()")

    def _to_legacy_output_shapes(self):
        raise NotImplementedError(f"{type(self).__name__}._to_legacy_output_shapes()")

    def _to_legacy_output_classes(self):
        return self.value_type

    # -- operators ------------------------------------------------------------------------
    def _key(self):
        return (type(self), _cmp_key(self._serialize()))

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self):
        return type(self), self._serialize()

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()!r}"


class BatchableTypeSpec(TypeSpec):
    """A spec whose values can be stacked along a new outer dimension (``_batch``)."""

    __slots__ = ()

    @abc.abstractmethod
    def _batch(self, batch_size):
        """The spec of ``batch_size`` values of this spec stacked."""

    @abc.abstractmethod
    def _unbatch(self):
        """The spec of one item of a value of this spec."""


# ── TensorSpec ─────────────────────────────────────────────────────────────────────────
class TensorSpec(BatchableTypeSpec):
    """``tf.TensorSpec(shape, dtype=tf.float32, name=None)``: a dense tensor's type.

    >>> tf.TensorSpec([None, 3])
    TensorSpec(shape=(?, 3), dtype=tf.float32, name=None)
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape, doc="The tensor's (static) ``TensorShape``.")
    dtype = property(lambda self: self._dtype, doc="The tensor's ``DType``.")
    name = property(lambda self: self._name, doc="The tensor's name, or None.")
    value_type = property(lambda self: Tensor)
    _component_specs = property(lambda self: self)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A TensorSpec with ``spec``'s shape and dtype (and its name, unless ``name``)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor`` named ``name`` or its op's name."""
        if isinstance(tensor, Tensor):
            return cls(tensor.shape, tensor.dtype, name or tensor.op.name)
        raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")

    def is_compatible_with(self, spec_or_value) -> bool:
        """Only a dense spec or a Tensor (not an array, not a variable) can be, as in TF."""
        return (isinstance(spec_or_value, (TensorSpec, Tensor))
                and self._dtype.is_compatible_with(spec_or_value.dtype)
                and self._shape.is_compatible_with(spec_or_value.shape))

    def is_subtype_of(self, other) -> bool:
        """TF's rule: a spec without a name is a subtype of a named one (not conversely)."""
        return (isinstance(other, TensorSpec)
                and (not self._name or self._name == other._name)
                and shape_is_subtype(self._shape, other._shape)
                and self._dtype == other._dtype)

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def _batch(self, batch_size):
        return TensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        if self._shape.ndims == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec(self._shape[1:], self._dtype)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        return self._shape

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype))

    def __eq__(self, other) -> bool:
        return (type(self) is type(other) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(shape={self._shape}, dtype={self._dtype!r}, "
                f"name={self._name!r})")


# ── SparseTensorSpec ───────────────────────────────────────────────────────────────────
class SparseTensorSpec(BatchableTypeSpec):
    """``tf.SparseTensorSpec(shape=None, dtype=tf.float32)``: a SparseTensor's dense shape
    and value dtype; its components are ``indices``, ``values`` and ``dense_shape``."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape, doc="The dense ``TensorShape``.")
    dtype = property(lambda self: self._dtype, doc="The values' ``DType``.")
    value_type = property(lambda self: SparseTensor)

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        rank = self._shape.ndims
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value):
        if isinstance(value, SparseTensorValue):
            value = SparseTensor.from_value(value)
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        if all(isinstance(t, np.ndarray) for t in components):
            return SparseTensorValue(*components)
        result = SparseTensor(*components)
        result._set_static_shape(result.shape.merge_with(self._shape))
        return result

    def _batch(self, batch_size):
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape),
                                self._dtype)

    def _unbatch(self):
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        return self._shape

    def _to_legacy_output_classes(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor or SparseTensorValue (a value whose ``values`` is not
        an array becomes a SparseTensor first, as in TF)."""
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        if isinstance(value, SparseTensorValue):
            if isinstance(value.values, np.ndarray):
                return cls(value.dense_shape, value.values.dtype)
            return cls.from_value(SparseTensor.from_value(value))
        raise TypeError("Expected SparseTensor or SparseTensorValue. Received: "
                        f"{value} of type {type(value).__name__}.")


# ── IndexedSlicesSpec ──────────────────────────────────────────────────────────────────
class IndexedSlicesSpec(TypeSpec):
    """``tf.IndexedSlicesSpec``: an IndexedSlices' dense shape, dtypes and how many slices
    (``indices_shape``); ``dense_shape_dtype=None`` for one without a ``dense_shape``."""

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype",
                 "_indices_shape")

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (None if dense_shape_dtype is None
                                   else dtypes.as_dtype(dense_shape_dtype))
        self._indices_shape = as_shape(indices_shape).with_rank(1)

    value_type = property(lambda self: IndexedSlices)

    def _serialize(self):
        return (self._shape, self._values_dtype, self._indices_dtype,
                self._dense_shape_dtype, self._indices_shape)

    @property
    def _component_specs(self):
        specs = [TensorSpec(self._indices_shape.concatenate(self._shape[1:]),
                            self._values_dtype),
                 TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.ndims], self._dense_shape_dtype))
        return tuple(specs)

    def _to_components(self, value):
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, value.dense_shape)

    def _from_components(self, components):
        parts = list(components) + [None] * (3 - len(components))
        if all(isinstance(t, np.ndarray) for t in components):
            return IndexedSlicesValue(*parts)
        return IndexedSlices(*parts)

    @classmethod
    def from_value(cls, value):
        """The spec of an IndexedSlices: rows of its values' shape, merged with what is
        known of ``dense_shape``; its dtypes; as many slices as indices (TF's rule)."""
        indices_shape = value.indices.shape.merge_with(value.values.shape[:1])
        shape = TensorShape([None]).concatenate(value.values.shape[1:])
        dense = value.dense_shape
        if dense is not None:
            shape = shape.merge_with(_known_shape_of(dense))
        return cls(shape, value.dtype, value.indices.dtype,
                   None if dense is None else dense.dtype, indices_shape)


def _known_shape_of(shape_tensor) -> TensorShape:
    """The shape a 1-D shape tensor holds, as far as it is known while building."""
    known = constant_value(shape_tensor)
    if known is not None:
        return TensorShape([int(d) for d in np.reshape(known, [-1])])
    if shape_tensor.shape.is_fully_defined():
        return TensorShape([None] * shape_tensor.shape.as_tuple()[0])
    return TensorShape(None)


# ── NoneTensorSpec ─────────────────────────────────────────────────────────────────────
class NoneTensor:
    """TF's composite form of ``None`` (the ``value_type`` of ``NoneTensorSpec``)."""

    _type_spec = property(lambda self: NoneTensorSpec())


class NoneTensorSpec(BatchableTypeSpec):
    """``tf.NoneTensorSpec()``: the type of ``None`` (no components)."""

    __slots__ = ()

    value_type = property(lambda self: NoneTensor)
    _component_specs = property(lambda self: [])

    def _serialize(self):
        return ()

    def _to_components(self, value):
        return []

    def _from_components(self, components):
        return None

    def _batch(self, batch_size):
        return NoneTensorSpec()

    def _unbatch(self):
        return NoneTensorSpec()

    def _to_legacy_output_types(self):
        return self

    def _to_legacy_output_shapes(self):
        return self

    @staticmethod
    def from_value(value):
        return NoneTensorSpec()


# ── type_spec_from_value ───────────────────────────────────────────────────────────────
_CONVERTERS: list = []  # (type, converter, allow_subclass), in registration order


def register_type_spec_from_value_converter(type_object, converter_fn, allow_subclass=False):
    """Makes ``type_spec_from_value`` call ``converter_fn(value)`` for values of
    ``type_object`` (written at import time by the module that defines the spec)."""
    _CONVERTERS.append((type_object, converter_fn, allow_subclass))


def _array_spec(array):
    return TensorSpec(array.shape, array.dtype)


def _tensor_spec(tensor):
    return TensorSpec(tensor.shape, tensor.dtype.base_dtype)


def _list_spec(values):
    """A non-empty list of values of one batchable spec: that spec batched (so a list of
    ragged tensors keeps its raggedness), or None."""
    specs = [_spec_or_none(v) for v in values]
    if not isinstance(specs[0], BatchableTypeSpec):
        return None
    merged = specs[0].most_specific_common_supertype(specs[1:])
    return None if merged is None else merged._batch(len(specs))


def _spec_or_none(value):
    if isinstance(value, list) and value:
        spec = _list_spec(value)
        if spec is not None:
            return spec
    for type_object, converter, allow_subclass in reversed(_CONVERTERS):
        if type(value) is type_object or (allow_subclass and isinstance(value, type_object)):
            return converter(value)
    return None


def type_spec_from_value(value) -> TypeSpec:
    """The spec of ``value``: a tensor, a composite (SparseTensor, RaggedTensor,
    IndexedSlices, TensorArray, Dataset, Optional, None), an array, or anything
    ``convert_to_tensor`` takes (converted in the default graph, a ``Const`` op, as TF
    does).

    >>> tf.type_spec_from_value(np.zeros((2, 3), np.float32))
    TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)
    """
    spec = _spec_or_none(value)
    if spec is not None:
        return spec
    try:
        spec = _spec_or_none(convert_to_tensor(value))
    except (ValueError, TypeError):
        spec = None
    if spec is not None:
        return spec
    raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type "
                    f"{type(value)}.")


register_type_spec_from_value_converter(Tensor, _tensor_spec)
register_type_spec_from_value_converter(np.ndarray, _array_spec)
register_type_spec_from_value_converter(SparseTensor, SparseTensorSpec.from_value)
register_type_spec_from_value_converter(SparseTensorValue, SparseTensorSpec.from_value)
register_type_spec_from_value_converter(IndexedSlices, IndexedSlicesSpec.from_value)
register_type_spec_from_value_converter(type(None), NoneTensorSpec.from_value)
