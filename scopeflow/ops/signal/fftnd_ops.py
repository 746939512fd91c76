"""N-D Fourier transforms over chosen ``axes``: FFTND, IFFTND, RFFTND, IRFFTND
(``tf.signal.fftnd`` and friends, and the raw ``tf.fftnd`` family).

TF defines them as NumPy's ``fft.fftn``/``ifftn``/``rfftn``/``irfftn`` (each axis cropped or
zero-padded to its ``fft_length``), and that is the kernel here, single precision kept
single. TF 2.21 itself registers these kernels for GPUs only: on a CPU its session fails
to run them, while scopeflow computes them. Static shapes are exact where ``fft_length``
and ``axes`` are constants (TF's shape function keeps the input's shape, which is wrong
for the real transforms and for cropping); TF registers no gradient for any of them.

The ``tf.signal`` wrappers are TF's: ``axes`` default to every axis, ``fft_length`` to the
input's shape; the input is zero-padded on its innermost ``len(fft_length)`` dims first
(as TF's wrapper does, whatever ``axes`` are), and ``norm`` ("backward", "forward",
"ortho") scales the input by the transform size, which needs a constant ``fft_length``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import COMPLEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import shape
from scopeflow.ops.signal.fft_ops import _COMPLEX_OF, _REAL_OF, _maybe_pad_for_rfft

__all__ = ["fftnd", "ifftnd", "rfftnd", "irfftnd", "raw_fftnd", "raw_ifftnd", "raw_rfftnd",
           "raw_irfftnd"]


# ── the ops ──────────────────────────────────────────────────────────────────────────
def _static_ints(t):
    value = constant_value(t)
    return None if value is None else [int(v) for v in np.reshape(value, -1)]


def _nd_shape(x, fft_length, axes, real_forward):
    """The output's static shape: the input's, with each transformed axis's length."""
    for what, t in (("fft_length", fft_length), ("axes", axes)):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims} for {what}")
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None)
    dims = list(dims)
    lengths, axis_list = _static_ints(fft_length), _static_ints(axes)
    if axis_list is None:
        return TensorShape([None] * len(dims))
    if lengths is not None and len(lengths) != len(axis_list):
        return TensorShape(dims)  # the kernel will refuse it; TF keeps the input's shape
    axis_list = [a % len(dims) if -len(dims) <= a < len(dims) else None for a in axis_list]
    for i, axis in enumerate(axis_list):
        if axis is None:
            continue
        n = lengths[i] if lengths is not None and i < len(lengths) else None
        if n is not None and real_forward and i == len(axis_list) - 1:
            n = n // 2 + 1
        dims[axis] = n
    return TensorShape(dims)


def _complex_nd_shape(x, fft_length, axes, **attrs):
    return _nd_shape(x, fft_length, axes, False)


def _rfftnd_shape(x, fft_length, axes, **attrs):
    return _nd_shape(x, fft_length, axes, True)


def _irfftnd_shape(x, fft_length, axes, **attrs):
    return _nd_shape(x, fft_length, axes, False)


def _check_index_inputs(fft_length, axes):
    check_dtype(fft_length, (dtypes.int32,), "fft_length")
    check_dtype(axes, (dtypes.int32,), "axes")


def _complex_nd_dtype(x, fft_length, axes, *, Tcomplex):
    check_dtype(x, COMPLEX, "Tcomplex")
    _check_index_inputs(fft_length, axes)
    return x


def _rfftnd_dtype(x, fft_length, axes, *, Treal, Tcomplex):
    check_dtype(x, tuple(_COMPLEX_OF), "Treal")
    _check_index_inputs(fft_length, axes)
    return Tcomplex or _COMPLEX_OF[x]


def _irfftnd_dtype(x, fft_length, axes, *, Treal, Tcomplex):
    check_dtype(x, COMPLEX, "Tcomplex")
    _check_index_inputs(fft_length, axes)
    return Treal or _REAL_OF[x]


def _transform_args(x, fft_length, axes):
    """``(s, axes)`` for NumPy, checked as TF's kernels check them."""
    lengths, axis_list = [int(v) for v in fft_length], [int(a) for a in axes]
    if len(lengths) != len(axis_list):
        raise InvalidArgumentError(
            None, None, f"fft_length and axes must have the same size: {len(lengths)} vs "
                        f"{len(axis_list)}")
    if any(n < 0 for n in lengths):
        raise InvalidArgumentError(None, None, "fft_length must be non-negative")
    for a in axis_list:
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(
                None, None, f"axes {a} is out of range for an input of rank {x.ndim}")
    return lengths, [a % x.ndim for a in axis_list]


def _run(transform, x, fft_length, axes, out_dtype, real_forward=False):
    s, axis_list = _transform_args(x, fft_length, axes)
    if 0 in s or x.size == 0:
        out = list(x.shape)
        for i, (n, a) in enumerate(zip(s, axis_list)):
            out[a] = n // 2 + 1 if real_forward and i == len(s) - 1 and n else n
        return np.zeros(out, out_dtype)
    return transform(x, s=s, axes=axis_list).astype(out_dtype, copy=False)


def _fftnd_kernel(x, fft_length, axes, *, Tcomplex):
    return _run(np.fft.fftn, x, fft_length, axes, x.dtype)


def _ifftnd_kernel(x, fft_length, axes, *, Tcomplex):
    return _run(np.fft.ifftn, x, fft_length, axes, x.dtype)


def _rfftnd_kernel(x, fft_length, axes, *, Treal, Tcomplex):
    return _run(np.fft.rfftn, x, fft_length, axes, np.dtype(Tcomplex.as_numpy_dtype), True)


def _irfftnd_kernel(x, fft_length, axes, *, Treal, Tcomplex):
    return _run(np.fft.irfftn, x, fft_length, axes, np.dtype(Treal.as_numpy_dtype))


_INPUTS = ("input", "fft_length", "axes")
fftnd_op = OpDef("FFTND", shape=from_tensors(_complex_nd_shape), dtype=_complex_nd_dtype,
                 kernel=_fftnd_kernel, attrs={"Tcomplex": None}, grad=NO_GRADIENT,
                 input_names=_INPUTS)
ifftnd_op = OpDef("IFFTND", shape=from_tensors(_complex_nd_shape), dtype=_complex_nd_dtype,
                  kernel=_ifftnd_kernel, attrs={"Tcomplex": None}, grad=NO_GRADIENT,
                  input_names=_INPUTS)
rfftnd_op = OpDef("RFFTND", shape=from_tensors(_rfftnd_shape), dtype=_rfftnd_dtype,
                  kernel=_rfftnd_kernel, attrs={"Treal": None, "Tcomplex": None},
                  grad=NO_GRADIENT, input_names=_INPUTS)
irfftnd_op = OpDef("IRFFTND", shape=from_tensors(_irfftnd_shape), dtype=_irfftnd_dtype,
                   kernel=_irfftnd_kernel, attrs={"Treal": None, "Tcomplex": None},
                   grad=NO_GRADIENT, input_names=_INPUTS)


# ── raw builders (tf.fftnd, tf.ifftnd, tf.rfftnd, tf.irfftnd) ───────────────────────────
def raw_fftnd(input, fft_length, axes, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The raw ``FFTND`` op: ``numpy.fft.fftn(input, s=fft_length, axes=axes)``."""
    x = convert_to_tensor(input)
    return fftnd_op.bind(x, fft_length, axes, Tcomplex=x.dtype.base_dtype,
                         name=name or "FFTND")


def raw_ifftnd(input, fft_length, axes, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The raw ``IFFTND`` op: ``numpy.fft.ifftn(input, s=fft_length, axes=axes)``."""
    x = convert_to_tensor(input)
    return ifftnd_op.bind(x, fft_length, axes, Tcomplex=x.dtype.base_dtype,
                          name=name or "IFFTND")


def raw_rfftnd(input, fft_length, axes, Tcomplex=dtypes.complex64,  # noqa: A002,N803
               name=None) -> Tensor:
    """The raw ``RFFTND`` op: ``numpy.fft.rfftn(input, s=fft_length, axes=axes)``."""
    x = convert_to_tensor(input)
    return rfftnd_op.bind(x, fft_length, axes, Treal=x.dtype.base_dtype,
                          Tcomplex=dtypes.as_dtype(Tcomplex), name=name or "RFFTND")


def raw_irfftnd(input, fft_length, axes, Treal=dtypes.float32,  # noqa: A002,N803
                name=None) -> Tensor:
    """The raw ``IRFFTND`` op: ``numpy.fft.irfftn(input, s=fft_length, axes=axes)``."""
    x = convert_to_tensor(input)
    return irfftnd_op.bind(x, fft_length, axes, Treal=dtypes.as_dtype(Treal),
                           Tcomplex=x.dtype.base_dtype, name=name or "IRFFTND")


# ── tf.signal wrappers ───────────────────────────────────────────────────────────────
def _axes_tensor(x, axes):
    if axes is None:
        if x.shape.ndims is None:
            raise ValueError("fftnd needs the input's rank to infer its axes")
        return convert_to_tensor(np.arange(x.shape.ndims), dtypes.int32)
    return convert_to_tensor(axes, dtypes.int32)


def _default_lengths(x, inverse_real):
    if not inverse_real:
        return shape(x)[-x.shape.ndims:]
    lengths = x.shape.as_list()
    lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    return convert_to_tensor(lengths, dtypes.int32)


def _scaled(x, fft_length, norm, forward):
    """``x`` scaled for ``norm``: the forward transforms divide by n ("forward") or √n
    ("ortho"), the inverse ones multiply (their kernels divide by n already)."""
    if norm is None or norm == "backward":
        return x
    if isinstance(fft_length, Tensor):
        # TF's wrapper iterates the tensor, which graph mode refuses with this TypeError.
        raise TypeError("Iterating over a symbolic `tf.Tensor` is not allowed: fftnd's norm "
                        "needs a constant fft_length")
    n = 1
    for length in fft_length:
        n *= int(length)
    factor = {"forward": n, "ortho": np.sqrt(n)}.get(norm)
    if factor is None:
        return x
    return x / factor if forward else x * factor


def _nd_wrapper(op_def, default_name, *, real_in=False, inverse_real=False, forward=True):
    def transform(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length, axes]) as scope:
            x = convert_to_tensor(
                input_tensor, preferred_dtype=dtypes.float32 if real_in else dtypes.complex64)
            axes_t = _axes_tensor(x, axes)
            allowed = _COMPLEX_OF if real_in else (_REAL_OF if inverse_real else None)
            if allowed is not None and x.dtype.base_dtype not in allowed:
                kind = "RFFT requires tf.float32 or tf.float64" if real_in else \
                    "IRFFT requires tf.complex64 or tf.complex128"
                raise ValueError(f"{kind} inputs, got: {x}")
            rank_ = axes_t.shape.as_list()[0]
            x.shape.with_rank_at_least(rank_)
            inferred = fft_length is None
            if inferred:
                fft_length = _default_lengths(x, inverse_real)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad_for_rfft(x, rank_, fft_length, is_reverse=inverse_real)
            # TF's constant_value does not see through the inferred Shape slice: that
            # fft_length stays a tensor (and a norm then fails, as in TF).
            static = None if inferred and not inverse_real else constant_value(fft_length)
            if static is not None:
                fft_length = static
            x = _scaled(x, fft_length, norm, forward)
            attrs = _wrapper_attrs(op_def, x.dtype.base_dtype)
            return op_def.bind(x, fft_length, axes_t, name=scope, **attrs)
    transform.__name__ = default_name
    transform.__doc__ = (f"``{default_name}`` over ``axes`` (all by default), each cropped or "
                         "zero-padded to ``fft_length``; NumPy's "
                         f"``fft.{default_name[:-1]}``.")
    return transform


def _wrapper_attrs(op_def, dtype):
    if op_def is rfftnd_op:
        return {"Treal": dtype, "Tcomplex": _COMPLEX_OF[dtype]}
    if op_def is irfftnd_op:
        return {"Treal": _REAL_OF[dtype], "Tcomplex": dtype}
    return {"Tcomplex": dtype}


fftnd = _nd_wrapper(fftnd_op, "fftnd")
ifftnd = _nd_wrapper(ifftnd_op, "ifftnd", forward=False)
rfftnd = _nd_wrapper(rfftnd_op, "rfftnd", real_in=True)
irfftnd = _nd_wrapper(irfftnd_op, "irfftnd", inverse_real=True, forward=False)
