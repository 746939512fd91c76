"""TensorFlow's DType: names, NumPy interop, and TF1 reference dtypes (``float32_ref``)."""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework.properties import read_only

__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64",
    "complex128", "resource", "variant", "float32_ref", "float64_ref", "int32_ref", "int64_ref",
    "bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32", "QUANTIZED_DTYPES",
]

_BFLOAT16_ENUM = 14
_QUANTIZED_ENUMS = (11, 12, 13, 15, 16)
# bfloat16's largest finite value, (2 - 2**-7) * 2**127: its limits without ml_dtypes.
_BFLOAT16_MAX = float.fromhex("0x1.fep127")
_UNSET = object()
_bfloat16_np = _UNSET


def bfloat16_numpy_dtype():
    """bfloat16's NumPy dtype (``ml_dtypes.bfloat16``, TF's own choice), or None without
    ml_dtypes. NumPy has no bfloat16; importing ml_dtypes takes most of a second, far
    longer than the rest of ``import scopeflow``, so it happens on first use only. This is
    the one place scopeflow loads it (checkpoints, constants, casts and feeds ask here)."""
    global _bfloat16_np
    if _bfloat16_np is _UNSET:
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - depends on the environment
            _bfloat16_np = None
        else:
            _bfloat16_np = np.dtype(ml_dtypes.bfloat16)
            _BY_NP[_bfloat16_np] = bfloat16
    return _bfloat16_np


def _require_bfloat16():
    npd = bfloat16_numpy_dtype()
    if npd is None:
        raise ImportError("bfloat16 tensors need the ml_dtypes package (NumPy has no "
                          "bfloat16): pip install 'scopeflow[bfloat16]'")
    return npd


def _numpy_kind(kinds: str) -> property:
    """A ``DType`` property: whether its element kind is one of NumPy's ``kinds`` ("f"...).

    The kind is fixed when the type is made, so bfloat16 is floating without ml_dtypes and
    the quantized types (kind "q") are neither integers nor unsigned, as in TF."""
    return property(lambda self: self._kind in kinds)


class DType:
    """A tensor element type, as TF's ``tf.DType``.

    ``tf.float32_ref`` is the type of a TF1 variable's output: the same element type plus
    "this is a reference to mutable state". ``base_dtype`` strips the reference.

    >>> as_dtype("float").name
    'float32'
    """

    __slots__ = ("_name", "_np", "_enum", "_is_ref", "_base", "_ref", "_kind", "_size")

    def __init__(self, name: str, np_dtype, enum: int, is_ref: bool = False, kind=None,
                 size=None):
        self._name = name
        self._np = np_dtype
        npd = np.dtype(np_dtype) if np_dtype is not None else None
        self._kind = kind or (npd.kind if npd is not None else "")
        self._size = size or (npd.itemsize if npd is not None else 1)
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

    @property
    def as_numpy_dtype(self):
        """The NumPy type: ``ml_dtypes.bfloat16`` for bfloat16 (loaded now; ImportError
        naming the extra without it), a one-field structured dtype for the quantized
        types (``np.dtype([("qint8", np.int8)])``), as TF."""
        if self._np is None and self._kind == "f":
            return _require_bfloat16().type
        return self._np

    # -- classification ------------------------------------------------------------------
    is_floating = _numpy_kind("f")
    is_integer = _numpy_kind("iu")
    is_unsigned = _numpy_kind("u")
    is_complex = _numpy_kind("c")

    @property
    def is_quantized(self) -> bool:
        return self._kind == "q"

    @property
    def is_bool(self) -> bool:
        return self._base is bool_

    @property
    def is_numpy_compatible(self) -> bool:
        return self._np is not None or self._kind == "f"

    @property
    def min(self):
        return self._limit("min", "minimum")

    @property
    def max(self):
        return self._limit("max", "maximum")

    def _limit(self, end: str, what: str):
        if self._kind == "q":
            raise TypeError(f"Cannot find {what} value of {self} with quantized type {self}.")
        if self._np is None and self._kind == "f":  # bfloat16, with or without ml_dtypes
            return _BFLOAT16_MAX if end == "max" else -_BFLOAT16_MAX
        if self.is_floating:
            return float(getattr(np.finfo(self._np), end))
        if self.is_integer:
            return int(getattr(np.iinfo(self._np), end))
        raise TypeError(f"Cannot find {what} value of {self}.")

    @property
    def size(self) -> int:
        return self._size

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


def _make(name, np_dtype, enum, kind=None, size=None):
    base = DType(name, np_dtype, enum, kind=kind, size=size)
    ref = DType(name + "_ref", np_dtype, enum + 100, is_ref=True, kind=kind, size=size)
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
# bfloat16's NumPy type comes from ml_dtypes, on first use (``as_numpy_dtype``).
bfloat16, bfloat16_ref = _make("bfloat16", None, _BFLOAT16_ENUM, kind="f", size=2)
# The quantized types: TF's NumPy form is a one-field structured dtype; their values are
# held (and fetched, as TF's session returns them) as the plain integers (``storage_dtype``).
qint8, qint8_ref = _make("qint8", np.dtype([("qint8", np.int8)]), 11, kind="q")
quint8, quint8_ref = _make("quint8", np.dtype([("quint8", np.uint8)]), 12, kind="q")
qint32, qint32_ref = _make("qint32", np.dtype([("qint32", np.int32)]), 13, kind="q")
qint16, qint16_ref = _make("qint16", np.dtype([("qint16", np.int16)]), 15, kind="q")
quint16, quint16_ref = _make("quint16", np.dtype([("quint16", np.uint16)]), 16, kind="q")
_QUANTIZED_STORAGE = {q._enum: q._np[0] for q in (qint8, quint8, qint32, qint16, quint16)}
QUANTIZED_DTYPES = frozenset(
    d for q in (qint8, quint8, qint16, quint16, qint32) for d in (q, q._ref))
globals()["bool"] = bool_

_ALL = [float16, float32, float64, int32, uint8, int16, int8, string, complex64, int64, bool_,
        complex128, uint16, uint32, uint64, resource, variant, bfloat16,
        qint8, quint8, qint16, quint16, qint32]
_BY_NAME = {}
for _d in _ALL:
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d._ref.name] = _d._ref
# TF accepts these spellings; "float" is the seeds' `tf.placeholder("float", ...)`.
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
_BY_ENUM = {d.as_datatype_enum: d for d in list(_BY_NAME.values())}
_BY_NP = {np.dtype(d._np): d for d in _ALL if d._np is not None}
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
            if npd.name == "bfloat16":  # ml_dtypes' type, loaded by the caller
                bfloat16_numpy_dtype()
                return bfloat16
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow "
                    "DType.")


def storage_dtype(dtype) -> np.dtype:
    """The NumPy dtype scopeflow holds ``dtype``'s values in (constants, feeds, kernels'
    results): ``as_numpy_dtype`` as a ``np.dtype``, except that the quantized types are held
    as their plain integers (TF's session returns ``qint8`` values as ``int8`` arrays) and
    bfloat16 raises ImportError naming ``scopeflow[bfloat16]`` without ml_dtypes."""
    base = as_dtype(dtype)._base
    if base._kind == "q":
        return _QUANTIZED_STORAGE[base._enum]
    if base._np is None and base._kind == "f":
        return _require_bfloat16()
    return np.dtype(base._np)
