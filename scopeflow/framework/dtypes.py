"""TensorFlow's DType: names, NumPy interop, and TF1 reference dtypes (``float32_ref``)."""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework.properties import read_only

__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64",
    "complex128", "resource", "variant", "float32_ref", "float64_ref", "int32_ref", "int64_ref",
]


def _numpy_kind(kind) -> property:
    """A ``DType`` property: whether its NumPy type is a ``kind`` (``np.floating``...)."""
    return property(lambda self: self._np is not None and np.issubdtype(self._np, kind))


class DType:
    """A tensor element type, as TF's ``tf.DType``.

    ``tf.float32_ref`` is the type of a TF1 variable's output: the same element type plus
    "this is a reference to mutable state". ``base_dtype`` strips the reference.

    >>> as_dtype("float").name
    'float32'
    """

    __slots__ = ("_name", "_np", "_enum", "_is_ref", "_base", "_ref")

    def __init__(self, name: str, np_dtype, enum: int, is_ref: bool = False):
        self._name = name
        self._np = np_dtype
        self._enum = enum
        self._is_ref = is_ref
        self._base = self
        self._ref = self

    # -- identity ------------------------------------------------------------------------
    name = read_only("_name")
    as_datatype_enum = read_only("_enum")
    base_dtype = read_only("_base")

    @property
    def real_dtype(self) -> DType:
        """The real part's type for complex types; otherwise the type itself (refs stay refs)."""
        return {complex64: float32, complex128: float64}.get(self._base, self)

    _is_ref_dtype = read_only("_is_ref")
    _as_ref = read_only("_ref")
    as_numpy_dtype = read_only("_np")

    # -- classification ------------------------------------------------------------------
    is_floating = _numpy_kind(np.floating)
    is_integer = _numpy_kind(np.integer)
    is_unsigned = _numpy_kind(np.unsignedinteger)
    is_complex = _numpy_kind(np.complexfloating)

    @property
    def is_bool(self) -> bool:
        return self._base is bool_

    @property
    def is_numpy_compatible(self) -> bool:
        return self._np is not None

    @property
    def min(self):
        return self._limit("min", "minimum")

    @property
    def max(self):
        return self._limit("max", "maximum")

    def _limit(self, end: str, what: str):
        if self.is_floating:
            return float(getattr(np.finfo(self._np), end))
        if self.is_integer:
            return int(getattr(np.iinfo(self._np), end))
        raise TypeError(f"Cannot find {what} value of {self}.")

    @property
    def size(self) -> int:
        return np.dtype(self._np).itemsize if self._np is not None else 1

    def is_compatible_with(self, other) -> bool:
        other = as_dtype(other)
        return self is other or self is other._base

    # -- protocol ------------------------------------------------------------------------
    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


def _make(name, np_dtype, enum):
    base = DType(name, np_dtype, enum)
    ref = DType(name + "_ref", np_dtype, enum + 100, is_ref=True)
    ref._base = base
    base._ref = ref
    ref._ref = ref
    return base, ref


float16, float16_ref = _make("float16", np.float16, 19)
half = float16
float32, float32_ref = _make("float32", np.float32, 1)
float64, float64_ref = _make("float64", np.float64, 2)
double = float64
int32, int32_ref = _make("int32", np.int32, 3)
uint8, uint8_ref = _make("uint8", np.uint8, 4)
int16, int16_ref = _make("int16", np.int16, 5)
int8, int8_ref = _make("int8", np.int8, 6)
string, string_ref = _make("string", np.object_, 7)
complex64, complex64_ref = _make("complex64", np.complex64, 8)
int64, int64_ref = _make("int64", np.int64, 9)
bool_, bool_ref = _make("bool", np.bool_, 10)
complex128, complex128_ref = _make("complex128", np.complex128, 18)
uint16, uint16_ref = _make("uint16", np.uint16, 17)
uint32, uint32_ref = _make("uint32", np.uint32, 22)
uint64, uint64_ref = _make("uint64", np.uint64, 23)
resource, resource_ref = _make("resource", None, 20)
variant, variant_ref = _make("variant", None, 21)
globals()["bool"] = bool_

_ALL = [float16, float32, float64, int32, uint8, int16, int8, string, complex64, int64, bool_,
        complex128, uint16, uint32, uint64, resource, variant]
_BY_NAME = {}
for _d in _ALL:
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d._ref.name] = _d._ref
# TF accepts these spellings; "float" is the seeds' `tf.placeholder("float", ...)`.
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
_BY_ENUM = {d.as_datatype_enum: d for d in list(_BY_NAME.values())}
_BY_NP = {np.dtype(d.as_numpy_dtype): d for d in _ALL if d.as_numpy_dtype is not None}
# NOTE: `bool` is rebound to the DType above (TF's `tf.bool`); use the builtin explicitly.
_BY_PY = {float: float32, builtins.bool: bool_, object: string}
# As TF: the Python types int, str, bytes and complex are ambiguous and refused.
_REFUSED_PY = (int, str, bytes, complex)


# TF's DataTypeString, where it differs from the Python name (``float32`` is ``float``).
_TYPE_STRINGS = {"float32": "float", "float64": "double", "float16": "half"}


def type_string(dtype) -> str:
    """TF's C++ name of ``dtype`` (``float``, ``double``, ``half``, ``int32``...), as its
    run-time error messages spell it; a ref type's is its base type's."""
    name = as_dtype(dtype).base_dtype.name
    return _TYPE_STRINGS.get(name, name)


def as_dtype(type_value) -> DType:
    """Converts a DType, name, NumPy dtype, enum or Python type to a ``DType``.

    As TF, the Python type ``int`` is refused (its width is ambiguous): say tf.int32 or
    tf.int64.

    >>> as_dtype(np.float32) is float32
    True
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
    elif isinstance(type_value, int):  # an enum (TF accepts True as 1, too)
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
    elif isinstance(type_value, type) and type_value in _BY_PY:
        return _BY_PY[type_value]
    elif not any(type_value is t for t in _REFUSED_PY):  # np.dtype('int64') == int
        try:
            npd = np.dtype(type_value)
        except (TypeError, ValueError):
            npd = None
        if npd is not None:
            if npd.kind in "SUO":
                return string
            if npd in _BY_NP:
                return _BY_NP[npd]
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow "
                    "DType.")
