"""Fast Fourier transforms: FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D (complex to complex
over the innermost 1-3 dims), RFFT/IRFFT in 1-3 dims (real to Hermitian half-spectrum and
back, with ``fft_length``), and ``fftshift``; the N-D ops over chosen ``axes`` are in
fftnd_ops.py.

Kernels are ``numpy.fft`` (single precision stays single: complex64 in, complex64 out).
The ``rfft*``/``irfft*``/``*fftnd`` builders are TF's wrappers: ``fft_length`` is inferred
from the static shape (else from ``Shape`` at run time) and the input is zero-padded up to
it before the op. Gradients are TF's (signal/fft_ops.py): an FFT's is the inverse FFT of
``dy`` times the transform size; the real transforms add the Hermitian terms; RFFT3D,
IRFFT3D have none registered.
"""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import COMPLEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.grid_ops import roll
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.layout_ops import stack, unstack
from scopeflow.ops.array.shape_ops import rank, reshape, shape
from scopeflow.ops.array.slicing_ops import concat, pad
from scopeflow.ops.math.arithmetic_ops import cast, conj, floormod, less, range
from scopeflow.ops.math.blas import PARALLEL_ELEMENTWISE_FLOPS, split_rows
from scopeflow.ops.math.elementwise_ops import exp, reciprocal
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import maximum, ones, reduce_prod, tile, where, zeros
from scopeflow.ops.signal.complex_ops import real

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d",
           "fftshift", "ifftshift"]

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def _axes(rank_):
    return tuple(builtins.range(-rank_, 0))


def _check_rank(shape_, rank_):
    if shape_.ndims is not None and shape_.ndims < rank_:
        raise ValueError(f"Shape must be at least rank {rank_} but is rank {shape_.ndims}")


# ── FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D ──────────────────────────────────────────
def _complex_fft_op(op_type, rank_, kernel):
    def shape_rule(x, **attrs):
        _check_rank(x, rank_)
        return x

    return OpDef(op_type, shape=shape_rule, dtype=_complex_fft_dtype, kernel=kernel,
                 input_names=("input",))


def _complex_fft_dtype(x, **attrs):
    return check_dtype(x, COMPLEX, "Tcomplex")


def _batched(transform, x, rank_, inner_out, dtype, **kw):
    """``transform(x, axes=<inner rank_ dims>, **kw)`` as ``dtype``, the outer (batch)
    transforms split over two threads (:func:`~scopeflow.ops.math.blas.split_rows`):
    pocketfft releases the GIL and computes each transform alone, so the halves give the
    same bits as one call, in about half the time on two cores, as TF's two threads do."""
    batch = x.shape[:x.ndim - rank_]
    flat = x.reshape((-1,) + x.shape[x.ndim - rank_:])
    out = np.empty((flat.shape[0],) + tuple(inner_out), dtype)
    axes = _axes(rank_)

    def rows(lo, hi):
        out[lo:hi] = transform(flat[lo:hi], axes=axes, **kw)

    points = max(2, flat[0].size)
    split_rows(rows, len(flat), flops=5.0 * x.size * np.log2(points),
               min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return out.reshape(batch + tuple(inner_out))


def _complex_fft(x, rank_, transform):
    """``transform`` over the inner ``rank_`` dims, keeping ``x``'s precision (NumPy's
    pocketfft computes complex64 in single precision)."""
    if x.size == 0:
        return np.zeros(x.shape, x.dtype)
    return _batched(transform, x, rank_, x.shape[x.ndim - rank_:], x.dtype)


def _fft_kernel(x, **attrs):
    return _complex_fft(x, 1, np.fft.fftn)


def _ifft_kernel(x, **attrs):
    return _complex_fft(x, 1, np.fft.ifftn)


def _fft2d_kernel(x, **attrs):
    return _complex_fft(x, 2, np.fft.fftn)


def _ifft2d_kernel(x, **attrs):
    return _complex_fft(x, 2, np.fft.ifftn)


def _fft3d_kernel(x, **attrs):
    return _complex_fft(x, 3, np.fft.fftn)


def _ifft3d_kernel(x, **attrs):
    return _complex_fft(x, 3, np.fft.ifftn)


fft_op = _complex_fft_op("FFT", 1, _fft_kernel)
ifft_op = _complex_fft_op("IFFT", 1, _ifft_kernel)
fft2d_op = _complex_fft_op("FFT2D", 2, _fft2d_kernel)
ifft2d_op = _complex_fft_op("IFFT2D", 2, _ifft2d_kernel)
fft3d_op = _complex_fft_op("FFT3D", 3, _fft3d_kernel)
ifft3d_op = _complex_fft_op("IFFT3D", 3, _ifft3d_kernel)


def fft(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 1-D discrete Fourier transform over the innermost dimension."""
    return fft_op.bind(input, name=name)


def ifft(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 1-D inverse discrete Fourier transform over the innermost dimension."""
    return ifft_op.bind(input, name=name)


def fft2d(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 2-D discrete Fourier transform over the innermost 2 dimensions."""
    return fft2d_op.bind(input, name=name)


def ifft2d(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 2-D inverse discrete Fourier transform over the innermost 2 dimensions."""
    return ifft2d_op.bind(input, name=name)


def fft3d(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 3-D discrete Fourier transform over the innermost 3 dimensions."""
    return fft3d_op.bind(input, name=name)


def ifft3d(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The 3-D inverse discrete Fourier transform over the innermost 3 dimensions."""
    return ifft3d_op.bind(input, name=name)


def _fft_size_for_grad(t, rank_):
    return reduce_prod(shape(t)[-rank_:])


def _forward_grad(dy, inverse, rank_):
    size = cast(_fft_size_for_grad(dy, rank_), dy.dtype.base_dtype)
    return [inverse(dy) * size]


def _inverse_grad(dy, forward, rank_):
    real_dtype = _REAL_OF[dy.dtype.base_dtype]
    rsize = cast(1. / cast(_fft_size_for_grad(dy, rank_), real_dtype), dy.dtype.base_dtype)
    return [forward(dy) * rsize]


@fft_op.def_grad
def _fft_grad(op, dy):
    return _forward_grad(dy, ifft, 1)


@ifft_op.def_grad
def _ifft_grad(op, dy):
    return _inverse_grad(dy, fft, 1)


@fft2d_op.def_grad
def _fft2d_grad(op, dy):
    return _forward_grad(dy, ifft2d, 2)


@ifft2d_op.def_grad
def _ifft2d_grad(op, dy):
    return _inverse_grad(dy, fft2d, 2)


@fft3d_op.def_grad
def _fft3d_grad(op, dy):
    return _forward_grad(dy, ifft3d, 3)


@ifft3d_op.def_grad
def _ifft3d_grad(op, dy):
    return _inverse_grad(dy, fft3d, 3)


# ── RFFT, IRFFT (1-3 D) ──────────────────────────────────────────────────────────────
def _static_lengths(t):
    v = constant_value(t)
    return None if v is None else [int(a) for a in np.reshape(v, -1)]


def _real_fft_shape(rank_, forward):
    def rule(x, fft_length, **attrs):
        _check_rank(x.shape, rank_)
        if fft_length.shape.ndims is not None and fft_length.shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {fft_length.shape.ndims}")
        n = fft_length.shape.as_tuple()
        if n is not None and n[0] is not None and n[0] != rank_:
            raise ValueError(f"Dimension must be {rank_} but is {n[0]}")
        dims = x.shape.as_tuple()
        if dims is None:
            return TensorShape(None)
        dims = list(dims)
        lengths = _static_lengths(fft_length)
        for i in builtins.range(rank_):
            d = None
            if lengths is not None:
                d = lengths[i]
                if forward and i == rank_ - 1 and d != 0:
                    d = d // 2 + 1
            dims[len(dims) - rank_ + i] = d
        return TensorShape(dims)
    return from_tensors(rule)


def _rfft_dtype(x, fft_length, *, Treal, Tcomplex):
    check_dtype(x, tuple(_COMPLEX_OF), "Treal")
    check_dtype(fft_length, (dtypes.int32,), "fft_length")
    return Tcomplex or _COMPLEX_OF[x]


def _irfft_dtype(x, fft_length, *, Treal, Tcomplex):
    check_dtype(x, COMPLEX, "Tcomplex")
    check_dtype(fft_length, (dtypes.int32,), "fft_length")
    return Treal or _REAL_OF[x]


def _check_lengths(lengths):
    if np.any(lengths < 0):
        raise InvalidArgumentError(None, None, "fft_length must be non-negative")


def _rfft(x, fft_length, Tcomplex, rank_):
    _check_lengths(fft_length)
    s = [int(a) for a in fft_length]
    out_dtype = np.dtype(Tcomplex.as_numpy_dtype)
    if 0 in s or x.size == 0:
        out = list(x.shape[:x.ndim - rank_]) + s
        out[-1] = s[-1] // 2 + 1 if s[-1] else 0
        return np.zeros(out, out_dtype)
    inner = s[:-1] + [s[-1] // 2 + 1]
    return _batched(np.fft.rfftn, x, rank_, inner, out_dtype, s=s)


def _irfft(x, fft_length, Treal, rank_):
    _check_lengths(fft_length)
    s = [int(a) for a in fft_length]
    out_dtype = np.dtype(Treal.as_numpy_dtype)
    if 0 in s or x.size == 0:
        return np.zeros(list(x.shape[:x.ndim - rank_]) + s, out_dtype)
    return _batched(np.fft.irfftn, x, rank_, s, out_dtype, s=s)


def _rfft_kernel(x, fft_length, *, Treal, Tcomplex):
    return _rfft(x, fft_length, Tcomplex, 1)


def _irfft_kernel(x, fft_length, *, Treal, Tcomplex):
    return _irfft(x, fft_length, Treal, 1)


def _rfft2d_kernel(x, fft_length, *, Treal, Tcomplex):
    return _rfft(x, fft_length, Tcomplex, 2)


def _irfft2d_kernel(x, fft_length, *, Treal, Tcomplex):
    return _irfft(x, fft_length, Treal, 2)


def _rfft3d_kernel(x, fft_length, *, Treal, Tcomplex):
    return _rfft(x, fft_length, Tcomplex, 3)


def _irfft3d_kernel(x, fft_length, *, Treal, Tcomplex):
    return _irfft(x, fft_length, Treal, 3)


def _real_fft_op(op_type, rank_, forward, kernel, **extra):
    return OpDef(op_type, shape=_real_fft_shape(rank_, forward),
                 dtype=_rfft_dtype if forward else _irfft_dtype, kernel=kernel,
                 attrs={"Treal": None, "Tcomplex": None}, input_names=("input", "fft_length"),
                 **extra)


rfft_op = _real_fft_op("RFFT", 1, True, _rfft_kernel)
irfft_op = _real_fft_op("IRFFT", 1, False, _irfft_kernel)
rfft2d_op = _real_fft_op("RFFT2D", 2, True, _rfft2d_kernel)
irfft2d_op = _real_fft_op("IRFFT2D", 2, False, _irfft2d_kernel)
# TF registers no gradient for the 3-D real transforms.
rfft3d_op = _real_fft_op("RFFT3D", 3, True, _rfft3d_kernel, grad=NO_GRADIENT)
irfft3d_op = _real_fft_op("IRFFT3D", 3, False, _irfft3d_kernel, grad=NO_GRADIENT)


def _infer_fft_length_for_rfft(x, rank_):
    dims = x.shape[-rank_:]
    if not dims.is_fully_defined():
        return shape(x)[-rank_:]
    return convert_to_tensor(dims.as_list(), dtypes.int32)


def _infer_fft_length_for_irfft(x, rank_):
    dims = x.shape[-rank_:]
    if not dims.is_fully_defined():
        lengths = unstack(shape(x)[-rank_:])
        lengths[-1] = maximum(0, 2 * (lengths[-1] - 1))
        return stack(lengths)
    lengths = dims.as_list()
    if lengths:
        lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    return convert_to_tensor(lengths, dtypes.int32)


def _maybe_pad_for_rfft(x, rank_, fft_length, is_reverse=False):
    """``x`` zero-padded (never cropped: the kernel crops) to ``fft_length`` on its inner
    ``rank_`` dims (to ``fft_length[-1] // 2 + 1`` last when ``is_reverse``), as TF."""
    dims = x.shape.as_tuple()
    if dims is not None and 0 in dims:
        return x
    lengths = _static_lengths(fft_length)
    if lengths is not None and dims is not None:
        inner = x.shape[-len(lengths):]
        if inner.is_fully_defined():
            if is_reverse:
                lengths = lengths[:-1] + [lengths[-1] // 2 + 1]
            paddings = [[0, max(n - d, 0)] for n, d in zip(lengths, inner.as_list())]
            if any(p > 0 for _, p in paddings):
                outer = [[0, 0]] * max(len(dims) - len(lengths), 0)
                return pad(x, outer + paddings)
            return x
    input_rank = rank(x)
    input_fft_shape = shape(x)[-rank_:]
    outer_dims = maximum(0, input_rank - rank_)
    outer_paddings = zeros([outer_dims], fft_length.dtype)
    if is_reverse:
        fft_length = concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    fft_paddings = maximum(0, fft_length - input_fft_shape)
    paddings = concat([outer_paddings, fft_paddings], 0)
    paddings = stack([paddings * 0, paddings], axis=1)
    return pad(x, paddings)


def _rfft_wrapper(op_def, rank_, default_name):
    def rfft_fn(input_tensor, fft_length=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32)
            if x.dtype.base_dtype not in _COMPLEX_OF:
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
            complex_dtype = _COMPLEX_OF[x.dtype.base_dtype]
            x.shape.with_rank_at_least(rank_)
            if fft_length is None:
                fft_length = _infer_fft_length_for_rfft(x, rank_)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad_for_rfft(x, rank_, fft_length)
            static = constant_value(fft_length)
            if static is not None:
                fft_length = static
            return op_def.bind(x, fft_length, Treal=x.dtype.base_dtype, Tcomplex=complex_dtype,
                               name=scope)
    rfft_fn.__name__ = default_name
    rfft_fn.__doc__ = (f"The {rank_}-D FFT of a real signal over its innermost {rank_} dims "
                       "(zero-padded or cropped to ``fft_length``): the non-negative "
                       "frequencies only.")
    return rfft_fn


def _irfft_wrapper(op_def, rank_, default_name):
    def irfft_fn(input_tensor, fft_length=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
            x.shape.with_rank_at_least(rank_)
            if x.dtype.base_dtype not in _REAL_OF:
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, "
                                 f"got: {x}")
            if fft_length is None:
                fft_length = _infer_fft_length_for_irfft(x, rank_)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad_for_rfft(x, rank_, fft_length, is_reverse=True)
            static = constant_value(fft_length)
            if static is not None:
                fft_length = static
            return op_def.bind(x, fft_length, Treal=_REAL_OF[x.dtype.base_dtype],
                               Tcomplex=x.dtype.base_dtype, name=scope)
    irfft_fn.__name__ = default_name
    irfft_fn.__doc__ = (f"The inverse of ``rfft{'' if rank_ == 1 else f'{rank_}d'}``: a real "
                        f"signal of ``fft_length`` from its {rank_}-D half-spectrum.")
    return irfft_fn


rfft = _rfft_wrapper(rfft_op, 1, "rfft")
irfft = _irfft_wrapper(irfft_op, 1, "irfft")
rfft2d = _rfft_wrapper(rfft2d_op, 2, "rfft2d")
irfft2d = _irfft_wrapper(irfft2d_op, 2, "irfft2d")
rfft3d = _rfft_wrapper(rfft3d_op, 3, "rfft3d")
irfft3d = _irfft_wrapper(irfft3d_op, 3, "irfft3d")


def _rfft_gradient(op, dy, rank_, irfft_fn):
    """RFFT's gradient: ``(irfft(dy) * n + Re(extra)) / 2``, where ``extra`` restores the
    DC and Nyquist terms the half-spectrum's Hermitian symmetry counts once (TF's)."""
    fft_length = op.inputs[1]
    complex_dtype = dy.dtype.base_dtype
    real_dtype = _REAL_OF[complex_dtype]
    input_shape = shape(op.inputs[0])
    is_even = cast(1 - floormod(fft_length[-1], 2), complex_dtype)

    def tile_for_broadcasting(matrix, t):
        expanded = reshape(matrix, concat([ones([rank(t) - 2], dtypes.int32),
                                           shape(matrix)], 0))
        return tile(expanded, concat([shape(t)[:-2], [1, 1]], 0))

    def mask_matrix(length):
        a = tile(reshape(range(length), [1, -1]), (length, 1))
        b = a * 0 + reshape(range(length), [-1, 1])
        return exp(-2j * np.pi * cast(a * b, complex_dtype) / cast(length, complex_dtype))

    def ymask(length):
        return cast(1 - 2 * floormod(range(length), 2), complex_dtype)

    y0 = dy[..., 0:1]
    if rank_ == 1:
        ym = dy[..., -1:]
        extra = y0 + is_even * ym * ymask(input_shape[-1])
    else:
        tiled = tile_for_broadcasting(mask_matrix(input_shape[-2]), y0)
        extra = matmul(tiled, conj(y0))
        ym_term = matmul(tiled, conj(dy[..., -1:]))
        inner = input_shape[-1]
        ym_term = tile(ym_term, concat([ones([rank(dy) - 1], dtypes.int32), [inner]], 0)) \
            * ymask(inner)
        extra += is_even * ym_term
    input_size = cast(_fft_size_for_grad(op.inputs[0], rank_), real_dtype)
    return [0.5 * (irfft_fn(dy, fft_length) * input_size + real(extra)), None]


def _irfft_gradient(op, dy, rank_, rfft_fn):
    """IRFFT's gradient: the RFFT of ``dy`` over n, doubled on the bins the half-spectrum
    stands for twice (all but DC and, for even lengths, Nyquist), as TF."""
    fft_length = op.inputs[1]
    static = constant_value(fft_length)
    if static is not None:
        fft_length = static
    real_dtype = dy.dtype.base_dtype
    complex_dtype = _COMPLEX_OF[real_dtype]
    is_odd = floormod(fft_length[-1], 2)
    last = shape(op.inputs[0])[-1]
    mask = concat([[1.0], 2.0 * ones([last - 2 + is_odd], real_dtype),
                   ones([1 - is_odd], real_dtype)], 0)
    rsize = reciprocal(cast(_fft_size_for_grad(dy, rank_), real_dtype))
    return [rfft_fn(dy, fft_length) * cast(rsize * mask, complex_dtype), None]


@rfft_op.def_grad
def _rfft_grad(op, dy):
    return _rfft_gradient(op, dy, 1, irfft)


@irfft_op.def_grad
def _irfft_grad(op, dy):
    return _irfft_gradient(op, dy, 1, rfft)


@rfft2d_op.def_grad
def _rfft2d_grad(op, dy):
    return _rfft_gradient(op, dy, 2, irfft2d)


@irfft2d_op.def_grad
def _irfft2d_grad(op, dy):
    return _irfft_gradient(op, dy, 2, rfft2d)


# ── fftshift, ifftshift ──────────────────────────────────────────────────────────────
def _shift(x, axes, name, default_name, sign):
    with name_scope(name, default_name) as scope:
        x = convert_to_tensor(x)
        if axes is None:
            axes = tuple(builtins.range(x.shape.ndims))
            shift = shape(x) // 2
        elif isinstance(axes, int):
            shift = shape(x)[axes] // 2
        else:
            r = rank(x)
            axes = where(less(axes, 0), axes + r, axes)
            shift = gather(shape(x), axes) // 2
        if sign < 0:
            shift = -shift
        return roll(x, shift, axes, scope)


def fftshift(x, axes=None, name=None) -> Tensor:
    """Rolls the zero frequency to the centre of ``axes`` (all by default): NumPy's
    ``fft.fftshift``."""
    return _shift(x, axes, name, "fftshift", 1)


def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of ``fftshift`` (they differ by one sample on odd lengths)."""
    return _shift(x, axes, name, "ifftshift", -1)
