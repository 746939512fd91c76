"""Complex-number basics: Complex, Real, Imag, Angle and ComplexAbs (the op ``tf.abs``
builds for complex inputs), and ``to_complex64``/``to_complex128``.

Their gradients are TF's (math_grad.py): the gradient of a complex result is
``dL/dRe + i dL/dIm``, so Real's gradient is ``complex(dy, 0)`` and Complex's splits it.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import COMPLEX
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, broadcast_shape, broadcasting, check_dtype, same_shape
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import (
    cast,
    div_no_nan,
    less,
    multiply,
    negative,
)
from scopeflow.ops.math.elementwise_ops import reciprocal
from scopeflow.ops.math.reduction_ops import ones_like, where, zeros_like

__all__ = ["complex", "real", "imag", "angle", "complex_abs", "to_complex64", "to_complex128"]

_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}
_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


# ── Complex ──────────────────────────────────────────────────────────────────────────
def _complex_dtype(real, imag, *, Tout):
    if real is not imag:
        raise TypeError(f"Input 1 has type {imag.name} that does not match type "
                        f"{real.name} of input 0")
    check_dtype(real, tuple(_COMPLEX_OF), "T")
    return Tout or _COMPLEX_OF[real]


def _complex_kernel(real, imag, *, Tout):
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), Tout.as_numpy_dtype)
    out.real = real
    out.imag = imag
    return out


complex_op = OpDef("Complex", shape=broadcasting(broadcast_shape), dtype=_complex_dtype,
                   kernel=_complex_kernel, attrs={"Tout": None}, input_names=("real", "imag"))


@complex_op.def_grad
def _complex_grad(op, dy):
    return [real(dy), imag(dy)]  # summed back to each input's shape (broadcasting)


def complex(real, imag, name=None) -> Tensor:  # noqa: A001 - TF's name
    """``real + 1j * imag`` elementwise (float32 -> complex64, float64 -> complex128)."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [real, imag]) as scope:
        pair = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if pair[0] is not pair[1] or pair[0] not in _COMPLEX_OF:
            raise TypeError(
                f"The `real` and `imag` components have incorrect types: {pair[0].name} "
                f"{pair[1].name}. They must be consistent, and one of "
                f"[tf.float32, tf.float64]")
        return complex_op.bind(real, imag, Tout=_COMPLEX_OF[pair[0]], name=scope)


# ── Real, Imag, Angle, ComplexAbs: complex -> real ───────────────────────────────────
def _to_real_dtype(x, *, Tout):
    check_dtype(x, COMPLEX, "T")
    return Tout or _REAL_OF[x]


def _real_kernel(x, *, Tout):
    return np.real(x).astype(Tout.as_numpy_dtype)


def _imag_kernel(x, *, Tout):
    return np.imag(x).astype(Tout.as_numpy_dtype)


def _angle_kernel(x, *, Tout):
    return np.angle(x).astype(Tout.as_numpy_dtype)


def _complex_abs_kernel(x, *, Tout):
    return np.absolute(x).astype(Tout.as_numpy_dtype, copy=False)   # already a new array


def _to_real_op(op_type, kernel, input_name="input"):
    return OpDef(op_type, shape=same_shape, dtype=_to_real_dtype, kernel=kernel,
                 attrs={"Tout": None}, input_names=(input_name,))


real_op = _to_real_op("Real", _real_kernel)
imag_op = _to_real_op("Imag", _imag_kernel)
angle_op = _to_real_op("Angle", _angle_kernel)
complex_abs_op = _to_real_op("ComplexAbs", _complex_abs_kernel, input_name="x")


@real_op.def_grad
def _real_grad(op, dy):
    return [complex(dy, constant(0, dtype=dy.dtype.base_dtype))]


@imag_op.def_grad
def _imag_grad(op, dy):
    return [complex(constant(0, dtype=dy.dtype.base_dtype), dy)]


@angle_op.def_grad
def _angle_grad(op, dy):
    """``-dy / (Im(x) + i Re(x))``, as TF (after ``dy``: its control dependency)."""
    x = op.inputs[0]
    with control_dependencies([dy]):
        z = reciprocal(complex(imag(x), real(x)))
        dyc = complex(dy, constant(0, dtype=dy.dtype.base_dtype))
        return [multiply(negative(dyc), z)]


@complex_abs_op.def_grad
def _complex_abs_grad(op, dy):
    """``dy * x / |x|`` (0 at x = 0), through complex DivNoNan as TF."""
    y = op.outputs[0]
    return [div_no_nan(multiply(complex(dy, zeros_like(dy)), op.inputs[0]),
                       complex(y, zeros_like(y)))]


def real(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The real part of a complex tensor; a real tensor is returned as it is."""
    with name_scope(name, "Real", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return real_op.bind(x, Tout=_REAL_OF[x.dtype.base_dtype], name=scope)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype "
                        f"{x.dtype!r}")


def imag(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The imaginary part of a complex tensor; zeros for a real one."""
    with name_scope(name, "Imag", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return imag_op.bind(x, Tout=_REAL_OF[x.dtype.base_dtype], name=scope)
        return zeros_like(x)


def angle(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The argument of each complex element; for a real tensor pi where negative, else 0."""
    with name_scope(name, "Angle", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return angle_op.bind(x, Tout=_REAL_OF[x.dtype.base_dtype], name=scope)
        return where(less(x, 0), np.pi * ones_like(x), zeros_like(x))


def complex_abs(x, name=None) -> Tensor:
    """``|x|`` of a complex tensor (the op ``tf.abs`` builds for complex inputs)."""
    x = convert_to_tensor(x, name="x")
    return complex_abs_op.bind(x, Tout=_REAL_OF[x.dtype.base_dtype], name=name)


def to_complex64(x, name="ToComplex64") -> Tensor:
    """``tf.cast(x, tf.complex64)`` (TF1's deprecated shorthand)."""
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128") -> Tensor:
    """``tf.cast(x, tf.complex128)`` (TF1's deprecated shorthand)."""
    return cast(x, dtypes.complex128, name=name)
