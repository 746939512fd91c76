"""Pooling (NHWC; TF's CPU kernels refuse NCHW at run time), with gradients.

``MaxPool``/``MaxPoolGrad`` and ``AvgPool``/``AvgPoolGrad`` share the window geometry and
padding arithmetic of the convolutions (:mod:`scopeflow.ops.nn.conv_geometry`). Max pooling
follows TF's CPU kernels bit for bit, NaN and -inf included: the forward starts from the
dtype's lowest value and skips NaN; the gradient goes to each window's first maximum in
scan order. SAME average pooling averages over each window's real (unpadded) elements
only, as TF.
Non-overlapping 2x2 windows (the seeds' CNN) take a fast path split over two threads.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.dtype_groups import FLOATS, REAL
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.native import backends
from scopeflow.ops import array_ops
from scopeflow.ops.array_ops import _partial_dims
from scopeflow.ops.math.blas import PARALLEL_ELEMENTWISE_FLOPS
from scopeflow.ops.math.blas import split_rows as _split_rows
from scopeflow.ops.nn.conv_geometry import (
    channel_index,
    check_cpu_format,
    get_sequence,
    nhwc_dims,
    one_of,
    padded_nhwc,
    shape_in_format,
    spatial,
    static_dims,
    tap_view,
    window_geometry,
)

__all__ = ["max_pool", "max_pool2d", "avg_pool", "avg_pool2d"]

_POOL_ATTRS = {"ksize": None, "strides": None, "padding": None, "data_format": "NHWC"}


# ── Pooling: shared geometry ─────────────────────────────────────────────────────────
def _pool_shape(x, *, ksize, strides, padding, data_format):
    n, h, w, c = nhwc_dims(static_dims(x, 4, "input"), data_format)
    kh, kw = spatial(ksize, data_format)
    (oh, _, _), (ow, _, _) = window_geometry(h, w, kh, kw, strides=strides, padding=padding,
                                              data_format=data_format)
    return shape_in_format(n, oh, ow, c, data_format)


def _max_pool_shape(x, *, ksize, strides, padding, data_format):
    """``_pool_shape``, and TF's MaxPool shape function also slides the depth window (so 0
    channels under VALID is a ValueError there; AvgPool's does not)."""
    out = _pool_shape(x, ksize=ksize, strides=strides, padding=padding, data_format=data_format)
    c = nhwc_dims(static_dims(x, 4, "input"), data_format)[3]
    kc = ksize[1 if data_format.startswith("NC") else -1] if len(ksize) == 4 else 1
    if padding == "VALID" and c is not None and c < kc:
        raise ValueError(f"Negative dimension size caused by subtracting {kc} from {c}")
    return out


def _pool_setup(op_type, kind, in_shape, attrs):
    data_format = attrs["data_format"]
    check_cpu_format(op_type, data_format, kind)
    ksize, strides = attrs["ksize"], attrs["strides"]
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the batch dimension.")
    if ksize[3] != 1 or strides[3] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Depthwise pooling is not supported by this kernel.")
    kh, kw = ksize[1:3]
    sh, sw = strides[1:3]
    (oh, *ph), (ow, *pw) = window_geometry(in_shape[1], in_shape[2], kh, kw, strides=strides,
                                            padding=attrs["padding"], data_format="NHWC")
    return kh, kw, (oh, tuple(ph), sh), (ow, tuple(pw), sw)


def _bind_pool(op_def, value, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """The public pooling functions' op: ``value`` (or TF2's ``input``) pooled by
    ``op_def`` with checked attrs."""
    value = one_of(value, input, "value", "input")
    data_format = data_format or "NHWC"
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_def.type}' Op passed string '{padding}' not "
                         'in: "SAME", "VALID".')
    ci = channel_index(data_format)
    return op_def.bind(value, name=name, ksize=get_sequence(ksize, 2, ci, "ksize"),
                       strides=get_sequence(strides, 2, ci, "strides"), padding=padding,
                       data_format=data_format)


def _lowest(dtype):
    """Where TF's max pooling starts (Eigen's ``NumTraits::lowest``): -inf and NaN inputs
    never beat it, so a window of them pools to this (TF 2.21, checked live)."""
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _pool_max_into(out, taps):
    """``out`` (filled with ``_lowest``) raised to each tap in turn where the tap is
    strictly greater, as TF's kernel: NaN inputs are skipped and ties keep the earlier
    tap's bits (-0.0 or +0.0); only comparisons, so no CPU's SIMD choices enter."""
    greater = np.empty(out.shape, bool)
    for tap in taps:
        np.greater(tap, out, out=greater)
        np.copyto(out, tap, where=greater)
    return out


def _is_2x2_tiling(x, kh, kw, oh, ow, ph, pw, sh, sw):
    return (kh, kw, sh, sw) == (2, 2, 2, 2) and ph == (0, 0) and pw == (0, 0) \
        and x.shape[1] >= 2 * oh and x.shape[2] >= 2 * ow


# ── MaxPool ──────────────────────────────────────────────────────────────────────────
def _max_pool_dtype(x, *rest, **attrs):
    return check_dtype(x, REAL, "input")


max_pool_op = OpDef("MaxPool", shape=_max_pool_shape, dtype=_max_pool_dtype,
                    attrs=_POOL_ATTRS, input_names=("input",))


@max_pool_op.def_kernel
def _max_pool_kernel(x, **attrs):
    kh, kw, (oh, ph, sh), (ow, pw, sw) = _pool_setup("MaxPool", "MaxPoolingOp", x.shape, attrs)
    native = backends.native("MaxPool", x)
    if native is not None and min(ph + pw) >= 0:
        out = native.max_pool2d(x, (kh, kw), (sh, sw), (ph, pw), (oh, ow))
        if out is not None:
            return out
    if _is_2x2_tiling(x, kh, kw, oh, ow, ph, pw, sh, sw):
        return _max_pool_2x2(x, oh, ow)
    out = np.full((x.shape[0], oh, ow, x.shape[3]), _lowest(x.dtype), x.dtype)
    xp = padded_nhwc(x, ph, pw, _lowest(x.dtype))  # padding never beats the start value
    return _pool_max_into(out, (tap_view(xp, k // kw, k % kw, oh, ow, sh, sw, 1, 1)
                                for k in range(kh * kw)))


_TAPS_2X2 = ((0, 0), (0, 1), (1, 0), (1, 1))


def _max_pool_2x2(x, oh, ow):
    """Non-overlapping 2x2 windows, ``_pool_max_into``'s bits in fewer passes: ``fmax``
    skips NaN, as TF; its value is exact, and only which zero (-0.0 or +0.0) it returns
    for a tie of zeros is unspecified, so windows whose max is zero are given their first
    zero's sign afterwards. The batch is split over two threads."""
    floats = x.dtype.kind == "f"
    out = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)

    def images(lo, hi):
        taps = [x[lo:hi, i:2 * oh:2, j:2 * ow:2] for i, j in _TAPS_2X2]
        o = out[lo:hi]
        pick = np.fmax if floats else np.maximum
        pick(taps[0], taps[1], out=o)
        pick(o, taps[2], out=o)
        pick(o, taps[3], out=o)
        if floats:
            np.fmax(o, _lowest(x.dtype), out=o)  # NaN and -inf windows: TF's start value
            if np.count_nonzero(o == 0) and _has_negative_zero(x[lo:hi]):
                _first_zero_signs(o, taps)

    _split_rows(images, x.shape[0], flops=10.0 * x.size, min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return out


def _has_negative_zero(x) -> bool:
    bits = np.dtype(f"u{x.itemsize}")
    return bool(np.count_nonzero(x.view(bits) == bits.type(1 << (8 * x.itemsize - 1))))


def _first_zero_signs(out, taps):
    """Where ``out`` (C-contiguous, the max of ``taps``) is zero: the first zero tap's
    sign."""
    at = np.unravel_index(np.flatnonzero(out == 0), out.shape)
    first = taps[-1][at]
    for tap in reversed(taps[:-1]):
        t = tap[at]
        np.copyto(first, t, where=t == 0)
    out[at] = first


@max_pool_op.def_grad
def _max_pool_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    return [max_pool_grad_op.bind(x, y, dy, **{k: op.get_attr(k) for k in _POOL_ATTRS})]


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
             name=None, input=None) -> Tensor:  # noqa: A002
    """Max pooling over ``ksize`` windows (a ``MaxPool``).

    >>> tf.nn.max_pool(tf.ones([1, 4, 4, 1]), 2, 2, "VALID").shape.as_list()
    [1, 2, 2, 1]
    """
    return _bind_pool(max_pool_op, value, input, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """``max_pool`` with TF2's argument names."""
    return max_pool(input, ksize, strides, padding, data_format, name)


# ── MaxPoolGrad: dy goes to the first max of each window (scan order), as TF's CPU ───
# The 2x2 fast path compares with ``orig_output`` (the pooled max TF passes in).
def _max_pool_grad_shape(x, y, dy, **attrs):
    return x


def _max_pool_grad_dtype(x, y, dy, **attrs):
    return check_dtype(same_dtype(x, y, dy), REAL, "T")


max_pool_grad_op = OpDef("MaxPoolGrad", shape=_max_pool_grad_shape, dtype=_max_pool_grad_dtype,
                         attrs=_POOL_ATTRS, input_names=("orig_input", "orig_output", "grad"),
                         # TF has MaxPoolGradGrad; without it, raise rather than give 0
                         grad=NO_GRADIENT)


@max_pool_grad_op.def_kernel
def _max_pool_grad_kernel(x, y, dy, **attrs):
    kh, kw, (oh, ph, sh), (ow, pw, sw) = _pool_setup("MaxPoolGrad", "MaxPoolingOp", x.shape,
                                                     attrs)
    if _is_2x2_tiling(x, kh, kw, oh, ow, ph, pw, sh, sw) and x.shape[1:3] == (2 * oh, 2 * ow) \
            and dy.shape == (x.shape[0], oh, ow, x.shape[3]):
        return _max_pool_grad_2x2(x, dy, oh, ow)
    return _max_pool_grad_windows(x, dy, kh, kw, (oh, ph, sh), (ow, pw, sw))


def _max_pool_grad_windows(x, dy, kh, kw, rows_geometry, cols_geometry):
    """MaxPoolGrad for any windows: ``dy`` added into zeros at each window's argmax."""
    (oh, ph, sh), (ow, pw, sw) = rows_geometry, cols_geometry
    n, h, w, _ = x.shape
    xp = padded_nhwc(x, ph, pw, _lowest(x.dtype))
    # Tap k of a window is real (not padding) where these hold, per output position.
    rows = np.arange(oh) * sh - ph[0]
    cols = np.arange(ow) * sw - pw[0]
    best = tap_view(xp, 0, 0, oh, ow, sh, sw, 1, 1).copy()
    seen = ((rows >= 0)[:, None] & (cols >= 0)[None, :])[None, :, :, None]
    arg = np.zeros(best.shape, np.int32)
    for k in range(1, kh * kw):
        i, j = divmod(k, kw)
        real = (((rows + i >= 0) & (rows + i < h))[:, None]
                & ((cols + j >= 0) & (cols + j < w))[None, :])[None, :, :, None]
        tap = tap_view(xp, i, j, oh, ow, sh, sw, 1, 1)
        # TF's argmax: a window's first real input, then any strictly greater one (NaN
        # never is; a NaN first input keeps the place).
        better = ((tap > best) | ~seen) & real
        np.copyto(best, tap, where=better)
        arg[better] = k
        seen = seen | real
    dxp = np.zeros(xp.shape, dy.dtype)
    # Last tap first: an input shared by overlapping windows then takes its windows' dy in
    # the order of the outputs, as TF's kernel adds them (the roundings match).
    for k in reversed(range(kh * kw)):
        tap_view(dxp, k // kw, k % kw, oh, ow, sh, sw, 1, 1)[...] += np.where(arg == k, dy, 0)
    return np.ascontiguousarray(dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w])


def _max_pool_grad_2x2(x, dy, oh, ow):
    """Non-overlapping 2x2 windows tiling ``x``, as TF's CPU kernel (which finds each
    window's argmax in ``x`` and ignores ``orig_output``): the first tap (scan order) that
    equals the window's largest non-NaN value, or tap 0 when it is NaN. The batch is split
    over two threads.

    TF adds ``dy`` into zeros there: the other places are +0.0 even where ``dy`` is NaN
    or infinite, and a -0.0 in ``dy`` arrives as +0.0. So ``dy + 0``'s bits are masked in
    (``dy * hit`` would spread NaN over the window and give -0.0).
    """
    n, _, _, c = x.shape
    dx = np.empty(x.shape, dy.dtype)
    bits = np.dtype(f"u{dy.dtype.itemsize}")
    ones = bits.type(np.iinfo(bits).max)
    pick = np.fmax if x.dtype.kind == "f" else np.maximum

    def images(lo, hi):
        x6 = x[lo:hi].reshape(hi - lo, oh, 2, ow, 2, c)
        dx6 = dx[lo:hi].view(bits).reshape(hi - lo, oh, 2, ow, 2, c)
        taps = [x6[:, :, i, :, j] for i, j in _TAPS_2X2]
        dyb = (dy[lo:hi] + dy.dtype.type(0)).view(bits)
        best = pick(taps[0], taps[1])
        pick(best, taps[2], out=best)
        pick(best, taps[3], out=best)
        later = np.less(taps[0], best)   # False for a NaN tap 0, and where tap 0 is best
        hit = np.empty_like(later)
        mask = np.empty(best.shape, bits)
        for k, (i, j) in enumerate(_TAPS_2X2):
            if k == 0:
                np.logical_not(later, out=hit)
            elif k < 3:
                np.equal(taps[k], best, out=hit)
                hit &= later
                np.greater(later, hit, out=later)  # (bools: later and not hit)
            else:
                hit = later
            np.multiply(hit, ones, out=mask)
            np.bitwise_and(dyb, mask, out=dx6[:, :, i, :, j])

    _split_rows(images, n, flops=10.0 * x.size, min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return dx


# ── AvgPool (SAME windows average over their valid elements only, as TF) ─────────────
def _avg_counts(h, w, kh, kw, oh, ph, sh, ow, pw, sw, dtype):
    """How many real (unpadded) elements each output window covers, as (1, oh, ow, 1)."""
    def counts(size, k, out, pad, s):
        start = np.arange(out) * s - pad[0]
        return np.minimum(start + k, size) - np.maximum(start, 0)
    return (counts(h, kh, oh, ph, sh)[:, None] * counts(w, kw, ow, pw, sw)[None, :]) \
        .astype(dtype)[None, :, :, None]


def _avg_pool_dtype(x, *rest, **attrs):
    return check_dtype(x, FLOATS, "value")


avg_pool_op = OpDef("AvgPool", shape=_pool_shape, dtype=_avg_pool_dtype,
                    attrs=_POOL_ATTRS, input_names=("value",))


@avg_pool_op.def_kernel
def _avg_pool_kernel(x, **attrs):
    kh, kw, (oh, ph, sh), (ow, pw, sw) = _pool_setup("AvgPool", "AvgPoolingOp", x.shape, attrs)
    xp = padded_nhwc(x, ph, pw, 0)
    out = tap_view(xp, 0, 0, oh, ow, sh, sw, 1, 1).copy()
    for k in range(1, kh * kw):
        out += tap_view(xp, k // kw, k % kw, oh, ow, sh, sw, 1, 1)
    out /= _avg_counts(x.shape[1], x.shape[2], kh, kw, oh, ph, sh, ow, pw, sw, x.dtype)
    return out


@avg_pool_op.def_grad
def _avg_pool_grad(op, dy):
    return [avg_pool_grad_op.bind(array_ops.shape(op.inputs[0]), dy,
                                  **{k: op.get_attr(k) for k in _POOL_ATTRS})]


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
             name=None, input=None) -> Tensor:  # noqa: A002
    """Average pooling (a ``AvgPool``); ``SAME`` edge windows average their valid elements.

    >>> tf.nn.avg_pool(tf.ones([1, 3, 3, 1]), 2, 2, "SAME").shape.as_list()
    [1, 2, 2, 1]
    """
    return _bind_pool(avg_pool_op, value, input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """``avg_pool`` with TF2's argument names."""
    return avg_pool(input, ksize, strides, padding, data_format, name)


# ── AvgPoolGrad ──────────────────────────────────────────────────────────────────────
def _avg_pool_grad_shape(sizes, dy, **attrs):
    dims = _partial_dims(sizes)
    return TensorShape(None if dims is None else [d if d is None or d >= 0 else None
                                                  for d in dims])


def _avg_pool_grad_dtype(sizes, dy, **attrs):
    return check_dtype(dy, FLOATS, "T")


avg_pool_grad_op = OpDef("AvgPoolGrad", shape=from_tensors(_avg_pool_grad_shape),
                         dtype=_avg_pool_grad_dtype, attrs=_POOL_ATTRS,
                         input_names=("orig_input_shape", "grad"))


@avg_pool_grad_op.def_kernel
def _avg_pool_grad_kernel(sizes, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    kh, kw, (oh, ph, sh), (ow, pw, sw) = _pool_setup("AvgPoolGrad", "AvgPoolingOp", in_shape,
                                                     attrs)
    n, h, w, c = in_shape
    g = dy / _avg_counts(h, w, kh, kw, oh, ph, sh, ow, pw, sw, dy.dtype)
    dxp = np.zeros((n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), dy.dtype)
    for k in range(kh * kw):
        tap_view(dxp, k // kw, k % kw, oh, ow, sh, sw, 1, 1)[...] += g
    return np.ascontiguousarray(dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w])


@avg_pool_grad_op.def_grad
def _avg_pool_grad_grad(op, dy):
    return [None, avg_pool_op.bind(dy, **{k: op.get_attr(k) for k in _POOL_ATTRS})]
