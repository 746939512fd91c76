"""Image resizing (NHWC), with gradients: ``ResizeBilinear``, ``ResizeNearestNeighbor``,
``ResizeBicubic`` and their gradient ops, ``ResizeArea`` (no gradient, as TF), and TF1's
``tf.image.resize_images`` family built on them.

The kernels follow TF's CPU kernels (resize_bilinear_op.cc, resize_nearest_neighbor_op.cc)
in float32 arithmetic: the scale is ``in / out`` (``(in - 1) / (out - 1)`` with
``align_corners``), a source coordinate is ``i * scale`` (``(i + 0.5) * scale - 0.5`` with
``half_pixel_centers``; nearest neighbour drops the ``- 0.5``), and bilinear lerps first
along x, then along y. Each output row and column's source indices and weights are
computed once; the pixels are gathered and combined with whole-array NumPy operations, and
the gradients scatter back with ``np.add.at`` in TF's order. Bicubic reads TF's table of
1025 cubic weights (a = -0.75, or Keys' a = -0.5 with ``half_pixel_centers``), interpolates
along y and then x; area weighs each input pixel by the length of it each output cell
covers (``[i * scale, (i + 1) * scale)``), scaled by ``1 / (scale_y * scale_x)``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.image import image_transform_ops
from scopeflow.ops.op_helpers import _partial_dims

__all__ = ["ResizeMethod", "resize_images", "resize", "resize_bilinear",
           "resize_nearest_neighbor", "resize_bicubic", "resize_area",
           "resize_image_with_pad"]

# TF's T lists of the resize ops (bfloat16 aside, which scopeflow lacks).
_RESIZE_TYPES = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32,
                 dtypes.int64) + FLOATS
_NN_GRAD_TYPES = (dtypes.uint8, dtypes.int8, dtypes.int32) + FLOATS
_RESIZE_ATTRS = {"align_corners": False, "half_pixel_centers": False}


class ResizeMethod:
    """TF1's ``tf.image.ResizeMethod`` (``ResizeMethodV1``)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# ── Resizing: shared geometry ─────────────────────────────────────────────────────────
def _rank4(shape, what):
    dims = shape.as_tuple()
    if dims is None:
        return [None] * 4
    if len(dims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(dims)} ({what})")
    return list(dims)


def _resize_shape(images, size, **attrs):
    """[batch, new_height, new_width, channels], the new size read from ``size`` where
    it is known while the graph is built."""
    n, _, _, c = _rank4(images.shape, "images")
    if size.shape.ndims is not None and size.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {size.shape.ndims} (size)")
    if not size.shape.is_compatible_with([2]):
        raise ValueError(f"Dimension must be 2 but is {size.shape.as_list()[0]} (size)")
    dims = _partial_dims(size)
    h, w = [None, None] if dims is None or len(dims) != 2 else \
        [d if d is not None and d >= 0 else None for d in dims]
    return TensorShape([n, h, w, c])


def _resize_images_op(op_type, dtype):
    """A forward resize op ``(images, size) -> resized`` with TF's resize attrs (its kernel
    and gradient declared after it)."""
    return OpDef(op_type, shape=from_tensors(_resize_shape), dtype=dtype, attrs=_RESIZE_ATTRS,
                 input_names=("images", "size"))


def _resize_attrs(op):
    """A resize op's ``align_corners`` and ``half_pixel_centers``, for its gradient op."""
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


def _scale(in_size, out_size, align_corners):
    """TF's ``CalculateResizeScale``, in float32."""
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _check_attrs(align_corners, half_pixel_centers):
    if half_pixel_centers and align_corners:
        raise errors.InvalidArgumentError(
            None, None, "If half_pixel_centers is True, align_corners must be False.")


def _new_size(images, size):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input must be 4-dimensional{list(images.shape)}")
    size = np.asarray(size)
    if size.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"shape_t must be 1-dimensional and have 2 elements{list(size.shape)}")
    h, w = (int(v) for v in size)
    if h <= 0 or w <= 0:
        raise errors.InvalidArgumentError(
            None, None, "output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"input image must be of non-zero size, got height "
                        f"{images.shape[1]}, width {images.shape[2]}")
    return h, w


def _resize_sources(weights, images, size, align_corners, half_pixel_centers):
    """A resize kernel's sizes, checked, as the sources of its output rows and columns:
    ``weights(in_size, out_size, align_corners, half_pixel_centers)`` along y, then x."""
    _check_attrs(align_corners, half_pixel_centers)
    oh, ow = _new_size(images, size)
    _, h, w, _ = images.shape
    return (weights(h, oh, align_corners, half_pixel_centers),
            weights(w, ow, align_corners, half_pixel_centers))


def _grad_sources(weights, grads, original_image, align_corners, half_pixel_centers):
    """A resize gradient kernel's sizes, checked: the image's ``(n, h, w, c)``, then the
    sources of the rows and columns of ``grads`` (as ``_resize_sources``)."""
    _check_attrs(align_corners, half_pixel_centers)
    if grads.ndim != 4 or original_image.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "input_grad must be 4-dimensional"
                                          f"{list(grads.shape)}")
    n, h, w, c = original_image.shape
    _, oh, ow, _ = grads.shape
    return ((n, h, w, c), weights(h, oh, align_corners, half_pixel_centers),
            weights(w, ow, align_corners, half_pixel_centers))


def _scatter_to_pixels(parts, flat, n, h, w, c, dtype):
    """The gradient kernels' sums: the rows of ``parts`` (``(k, n * c)``, the images'
    contributions in TF's order) added in ``dtype`` to the source pixels ``flat`` (``k``
    indices into ``h * w``), as ``(n, h, w, c)`` (not contiguous).

    Each pixel's contributions are added in their order, from zero, as TF's loop (so the
    bits are TF's): by rank, the r-th contribution of every pixel in one fancy ``+=``
    (no pixel twice in one), which is ~10x faster than ``np.add.at`` over wide rows while
    a pixel takes few contributions (downscaling, moderate upscaling)."""
    acc = np.zeros((h * w, n * c), dtype)
    parts = parts.astype(dtype, copy=False)
    order = np.argsort(flat, kind="stable")
    fs = flat[order]
    first = np.ones(fs.size, bool)
    first[1:] = fs[1:] != fs[:-1]
    position = np.arange(fs.size)
    rank = position - np.maximum.accumulate(np.where(first, position, 0))
    if fs.size and rank.max() < 64:
        by_rank = np.argsort(rank, kind="stable")
        bounds = np.searchsorted(rank[by_rank], np.arange(rank.max() + 2))
        for r in range(rank.max() + 1):
            sel = order[by_rank[bounds[r]:bounds[r + 1]]]
            acc[flat[sel]] += parts[sel]
    else:
        np.add.at(acc, flat, parts)
    return np.moveaxis(acc.reshape(h, w, n, c), 2, 0)


def _linear_weights(in_size, out_size, align_corners, half_pixel_centers):
    """Each output coordinate's (lower, upper, lerp) source indices and weight (float32),
    as TF's ``compute_interpolation_weights``."""
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    if half_pixel_centers:
        src = (i + np.float32(0.5)) * scale - np.float32(0.5)
    else:
        src = i * scale
    src = src.astype(np.float32)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(np.float32)


def _nearest_index(in_size, out_size, align_corners, half_pixel_centers):
    """Each output coordinate's source index, as TF's nearest-neighbour kernels:
    ``roundf`` (halves away from zero) with ``align_corners``, else ``floorf``."""
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    src = ((i + np.float32(0.5)) * scale if half_pixel_centers else i * scale)
    src = src.astype(np.float32)
    floor = np.floor(src)
    if align_corners:
        floor = floor + (src - floor >= np.float32(0.5))
    index = np.minimum(floor.astype(np.int64), in_size - 1)
    if half_pixel_centers:
        index = np.maximum(index, 0)
    return index


# ── ResizeBilinear ───────────────────────────────────────────────────────────────────
def _resize_bilinear_dtype(images, size, **attrs):
    check_dtype(images, _RESIZE_TYPES, "images")
    check_dtype(size, (dtypes.int32,), "size")
    return dtypes.float32


resize_bilinear_op = _resize_images_op("ResizeBilinear", _resize_bilinear_dtype)


@resize_bilinear_op.def_kernel
def _resize_bilinear_kernel(images, size, *, align_corners, half_pixel_centers):
    (y0, y1, yl), (x0, x1, xl) = _resize_sources(_linear_weights, images, size,
                                                 align_corners, half_pixel_centers)
    x = images.astype(np.float32, copy=False)
    # TF lerps along x for each output row; those rows' values are the input rows' lerps
    # (computed once each here), so the values are TF's bit for bit.
    left = np.take(x, x0, axis=2)
    rows = left + (np.take(x, x1, axis=2) - left) * xl[:, None]
    top = np.take(rows, y0, axis=1)
    out = np.take(rows, y1, axis=1)
    out -= top
    out *= yl[:, None, None]
    out += top
    return out


@resize_bilinear_op.def_grad
def _resize_bilinear_grad(op, dy):
    return [resize_bilinear_grad_op.bind(dy, op.inputs[0], **_resize_attrs(op)), None]


# ── ResizeBilinearGrad: each output pixel's gradient back to its four sources ────────
def _resize_bilinear_grad_shape(grads, original_image, **attrs):
    _rank4(grads.shape, "grads")
    return TensorShape(_rank4(original_image.shape, "original_image"))


def _resize_bilinear_grad_dtype(grads, original_image, **attrs):
    check_dtype(grads, (dtypes.float32,), "grads")
    return check_dtype(original_image, FLOATS, "original_image")


resize_bilinear_grad_op = OpDef(
    "ResizeBilinearGrad", shape=from_tensors(_resize_bilinear_grad_shape),
    dtype=_resize_bilinear_grad_dtype, attrs=_RESIZE_ATTRS, input_names=("grads", "original_image"),
    grad=None)  # TF: NotDifferentiable


@resize_bilinear_grad_op.def_kernel
def _resize_bilinear_grad_kernel(grads, original_image, *, align_corners, half_pixel_centers):
    (n, h, w, c), (y0, y1, yl), (x0, x1, xl) = _grad_sources(
        _linear_weights, grads, original_image, align_corners, half_pixel_centers)
    g = grads.astype(np.float32, copy=False)
    one = np.float32(1)
    wy = [(one - yl)[:, None, None], (one - yl)[:, None, None], yl[:, None, None],
          yl[:, None, None]]
    wx = [(one - xl)[:, None], xl[:, None], (one - xl)[:, None], xl[:, None]]
    # TF adds g * wy * wx (float32) to the four sources in (y, x, corner) order: so does
    # np.add.at over the flattened (y, x, corner) contributions, bit for bit.
    parts = np.stack([(g * a) * b for a, b in zip(wy, wx)], axis=3)  # (n, oh, ow, 4, c)
    rows = np.stack([y0, y0, y1, y1], axis=1)[:, None, :]  # (oh, 1, 4)
    cols = np.stack([x0, x1, x0, x1], axis=1)[None, :, :]  # (1, ow, 4)
    flat = (rows * w + cols).reshape(-1)
    out_dtype = original_image.dtype if original_image.dtype == np.float64 else np.float32
    parts = np.moveaxis(parts.reshape(n, -1, c), 1, 0).reshape(flat.size, n * c)
    dx = _scatter_to_pixels(parts, flat, n, h, w, c, out_dtype)
    return np.ascontiguousarray(dx, dtype=original_image.dtype)


# ── ResizeNearestNeighbor ────────────────────────────────────────────────────────────
def _resize_nearest_dtype(images, size, **attrs):
    check_dtype(size, (dtypes.int32,), "size")
    return check_dtype(images, _RESIZE_TYPES, "images")


resize_nearest_neighbor_op = _resize_images_op("ResizeNearestNeighbor", _resize_nearest_dtype)


@resize_nearest_neighbor_op.def_kernel
def _resize_nearest_neighbor_kernel(images, size, *, align_corners, half_pixel_centers):
    ys, xs = _resize_sources(_nearest_index, images, size, align_corners, half_pixel_centers)
    return images[:, ys][:, :, xs]


@resize_nearest_neighbor_op.def_grad
def _resize_nearest_neighbor_grad(op, dy):
    image = op.inputs[0]
    hw = image.shape[1:3] if image.shape.ndims is not None else None
    if hw is not None and hw.is_fully_defined():
        size = hw.as_list()
    else:
        size = array_ops.shape(image)[1:3]
    return [resize_nearest_neighbor_grad_op.bind(dy, size, **_resize_attrs(op)), None]


# ── ResizeNearestNeighborGrad: each source pixel sums the outputs that copied it ─────
def _resize_nearest_grad_dtype(grads, size, **attrs):
    check_dtype(size, (dtypes.int32,), "size")
    return check_dtype(grads, _NN_GRAD_TYPES, "grads")


resize_nearest_neighbor_grad_op = OpDef(
    "ResizeNearestNeighborGrad", shape=from_tensors(_resize_shape),
    dtype=_resize_nearest_grad_dtype, attrs=_RESIZE_ATTRS, input_names=("grads", "size"),
    grad=NO_GRADIENT)  # TF registers none


@resize_nearest_neighbor_grad_op.def_kernel
def _resize_nearest_neighbor_grad_kernel(grads, size, *, align_corners, half_pixel_centers):
    _check_attrs(align_corners, half_pixel_centers)
    h, w = _new_size(grads, size)
    n, oh, ow, c = grads.shape
    ys = _nearest_index(h, oh, align_corners, half_pixel_centers)
    xs = _nearest_index(w, ow, align_corners, half_pixel_centers)
    flat = (ys[:, None] * w + xs[None, :]).reshape(-1)
    parts = np.moveaxis(grads, 0, 2).reshape(flat.size, n * c)
    return np.ascontiguousarray(_scatter_to_pixels(parts, flat, n, h, w, c, grads.dtype))


# ── ResizeBicubic: shared weights ────────────────────────────────────────────────────
_CUBIC_TABLE_SIZE = 1024


def _cubic_table(a):
    """TF's ``InitCoeffsTable``: for each of 1025 offsets t in [0, 1], the weight of the
    near tap ``(a + 2) t^3 - (a + 3) t^2 + 1`` and of the far tap at ``t + 1``
    (``a t^3 - 5a t^2 + 8a t - 4a``), computed in double and stored as float32."""
    t = np.arange(_CUBIC_TABLE_SIZE + 1, dtype=np.float64) / _CUBIC_TABLE_SIZE
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    t = t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.stack([near, far], axis=1).astype(np.float32)


_CUBIC_LEGACY = _cubic_table(-0.75)  # TF's default kernel
_CUBIC_KEYS = _cubic_table(-0.5)  # Keys' cubic, with half_pixel_centers


def _cubic_weights(in_size, out_size, align_corners, half_pixel_centers):
    """Each output coordinate's four source indices and float32 weights, (out, 4) each, as
    TF's ``GetWeightsAndIndices``: the offset into the table is ``lrintf(delta * 1024)``;
    with ``half_pixel_centers`` (Keys' cubic) taps outside the image weigh 0 and the rest
    are renormalised, else the edge pixel repeats."""
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    if half_pixel_centers:
        src = ((i + np.float32(0.5)) * scale - np.float32(0.5)).astype(np.float32)
    else:
        src = (i * scale).astype(np.float32)
    loc = np.floor(src)
    offset = np.rint((src - loc) * np.float32(_CUBIC_TABLE_SIZE)).astype(np.int64)
    table = _CUBIC_KEYS if half_pixel_centers else _CUBIC_LEGACY
    weights = np.stack([table[offset, 1], table[offset, 0],
                        table[_CUBIC_TABLE_SIZE - offset, 0],
                        table[_CUBIC_TABLE_SIZE - offset, 1]], axis=1)
    taps = loc.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :]
    index = np.clip(taps, 0, in_size - 1)
    if half_pixel_centers:
        weights = np.where(index == taps, weights, np.float32(0))
        total = ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]
        ok = np.abs(total) >= np.float32(1000) * np.finfo(np.float32).tiny
        inverse = np.float32(1) / np.where(ok, total, np.float32(1))
        weights = np.where(ok[:, None], weights * inverse[:, None], weights)
    return index, weights.astype(np.float32)


def _cubic_sum(values, index, weights, axis):
    """``w0 v0 + w1 v1 + w2 v2 + w3 v3`` along ``axis`` (float32, TF's order)."""
    shape = [1] * values.ndim
    shape[axis] = -1
    out = None
    for k in range(4):
        term = np.take(values, index[:, k], axis=axis) * weights[:, k].reshape(shape)
        out = term if out is None else out + term
    return out


# ── ResizeBicubic ────────────────────────────────────────────────────────────────────
def _resize_bicubic_dtype(images, size, **attrs):
    """TF's ResizeBicubic: the resize types in, float32 out (as ResizeBilinear)."""
    return _resize_bilinear_dtype(images, size)


resize_bicubic_op = _resize_images_op("ResizeBicubic", _resize_bicubic_dtype)


@resize_bicubic_op.def_kernel
def _resize_bicubic_kernel(images, size, *, align_corners, half_pixel_centers):
    (yi, yw), (xi, xw) = _resize_sources(_cubic_weights, images, size, align_corners,
                                         half_pixel_centers)
    # TF interpolates along y at the four source columns, then along x.
    rows = _cubic_sum(images.astype(np.float32, copy=False), yi, yw, axis=1)
    return _cubic_sum(rows, xi, xw, axis=2)


@resize_bicubic_op.def_grad
def _resize_bicubic_grad(op, dy):
    image = op.inputs[0]
    if image.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]  # as TF: no gradient for integer or half images
    return [resize_bicubic_grad_op.bind(dy, image, **_resize_attrs(op)), None]


# ── ResizeBicubicGrad: each output pixel's gradient back to its 16 sources ───────────
def _resize_bicubic_grad_dtype(grads, original_image, **attrs):
    check_dtype(grads, (dtypes.float32,), "grads")
    return check_dtype(original_image, (dtypes.float32, dtypes.float64), "original_image")


resize_bicubic_grad_op = OpDef(
    "ResizeBicubicGrad", shape=from_tensors(_resize_bilinear_grad_shape),
    dtype=_resize_bicubic_grad_dtype, attrs=_RESIZE_ATTRS, input_names=("grads", "original_image"),
    grad=NO_GRADIENT)  # TF registers none


@resize_bicubic_grad_op.def_kernel
def _resize_bicubic_grad_kernel(grads, original_image, *, align_corners, half_pixel_centers):
    (n, h, w, c), (yi, yw), (xi, xw) = _grad_sources(
        _cubic_weights, grads, original_image, align_corners, half_pixel_centers)
    g = grads.astype(np.float32, copy=False)
    # TF adds T(g * wy * wx) to the 16 sources in (y, x, y tap, x tap) order: so does
    # np.add.at over the flattened contributions.
    parts = ((g[:, :, :, None, None, :] * yw[None, :, None, :, None, None])
             * xw[None, None, :, None, :, None])  # (n, oh, ow, 4, 4, c)
    flat = (yi[:, None, :, None] * w + xi[None, :, None, :]).reshape(-1)
    parts = np.moveaxis(parts.reshape(n, -1, c), 1, 0).reshape(flat.size, n * c)
    return np.ascontiguousarray(_scatter_to_pixels(parts, flat, n, h, w, c,
                                                   original_image.dtype))


# ── ResizeArea: each output pixel averages the input area it covers ──────────────────
def _area_matrix(in_size, out_size, align_corners):
    """The (out, in) float32 matrix of TF's per-cell area weights (``resize_area_op.cc``):
    output cell ``i`` covers ``[i * scale, (i + 1) * scale)`` of the input, each input
    pixel weighing the length it overlaps (indices beyond the edge read the edge)."""
    scale = _scale(in_size, out_size, align_corners)
    m = np.zeros((out_size, in_size), np.float32)
    one = np.float32(1)
    for i in range(out_size):
        lo, hi = np.float32(np.float32(i) * scale), np.float32(np.float32(i + 1) * scale)
        for j in range(int(np.floor(lo)), int(np.ceil(hi))):
            fj = np.float32(j)
            part = min(fj + one - lo, hi - lo) if fj < lo else min(hi - fj, one)
            m[i, min(max(j, 0), in_size - 1)] += part
    return m, scale


def _resize_area_dtype(images, size, **attrs):
    return _resize_bilinear_dtype(images, size)


resize_area_op = OpDef("ResizeArea", shape=from_tensors(_resize_shape), dtype=_resize_area_dtype,
                       attrs={"align_corners": False}, input_names=("images", "size"),
                       grad=NO_GRADIENT)  # TF registers none


@resize_area_op.def_kernel
def _resize_area_kernel(images, size, *, align_corners):
    oh, ow = _new_size(images, size)
    _, h, w, _ = images.shape
    my, sy = _area_matrix(h, oh, align_corners)
    mx, sx = _area_matrix(w, ow, align_corners)
    scale = np.float32(1.0 / (sy * sx))
    x = images.astype(np.float64, copy=False)
    finite = np.isfinite(x)
    if not finite.all():
        return _resize_area_nonfinite(x, finite, my, mx, scale)
    out = np.einsum("yi,nijc,xj->nyxc", my.astype(np.float64), x, mx.astype(np.float64),
                    optimize=True)
    return (out.astype(np.float32) * scale).astype(np.float32)


def _resize_area_nonfinite(x, finite, my, mx, scale):
    """TF's kernel sums only the pixels a cell overlaps, so a NaN/Inf reaches just those
    cells (a weight-matrix product would spread ``0 * Inf``): the finite pixels are summed
    as usual, then each cell overlapping a NaN, or both infinities, is NaN, one overlapping
    a single-signed Inf that Inf."""
    def reach(mask):
        return np.einsum("yi,nijc,xj->nyxc", (my > 0).astype(np.float64), mask.astype(np.float64),
                         (mx > 0).astype(np.float64), optimize=True) > 0
    out = np.einsum("yi,nijc,xj->nyxc", my.astype(np.float64), np.where(finite, x, 0.0),
                    mx.astype(np.float64), optimize=True)
    out = (out.astype(np.float32) * scale).astype(np.float32)
    pos, neg = reach(np.isposinf(x)), reach(np.isneginf(x))
    out[pos] = np.inf
    out[neg] = -np.inf
    out[reach(np.isnan(x)) | (pos & neg)] = np.nan
    return out


# ── tf.image builders ────────────────────────────────────────────────────────────────
def resize_bilinear(images, size, align_corners=False, name=None,
                    half_pixel_centers=False) -> Tensor:
    """A ``ResizeBilinear`` of 4-D ``images`` to ``size`` ([new_height, new_width]); the
    result is float32.

    >>> tf.image.resize_bilinear(tf.ones([1, 2, 2, 1]), [4, 3]).shape.as_list()
    [1, 4, 3, 1]
    """
    return resize_bilinear_op.bind(images, size, name=name,
                                   align_corners=bool(align_corners),
                                   half_pixel_centers=bool(half_pixel_centers))


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False) -> Tensor:
    """A ``ResizeNearestNeighbor`` of 4-D ``images`` to ``size``; keeps the dtype."""
    return resize_nearest_neighbor_op.bind(images, size, name=name,
                                           align_corners=bool(align_corners),
                                           half_pixel_centers=bool(half_pixel_centers))


def resize_bicubic(images, size, align_corners=False, name=None,
                   half_pixel_centers=False) -> Tensor:
    """A ``ResizeBicubic`` of 4-D ``images`` to ``size``; the result is float32 (Keys'
    cubic with ``half_pixel_centers``, else TF's legacy a = -0.75 kernel).

    >>> tf.image.resize_bicubic(tf.ones([1, 2, 2, 1]), [4, 3]).shape.as_list()
    [1, 4, 3, 1]
    """
    return resize_bicubic_op.bind(images, size, name=name, align_corners=bool(align_corners),
                                  half_pixel_centers=bool(half_pixel_centers))


def resize_area(images, size, align_corners=False, name=None) -> Tensor:
    """A ``ResizeArea`` of 4-D ``images`` to ``size``: each output pixel is the mean of the
    input area it covers; float32, with no gradient (as TF).

    >>> tf.image.resize_area(tf.ones([1, 4, 4, 1]), [2, 2]).shape.as_list()
    [1, 2, 2, 1]
    """
    return resize_area_op.bind(images, size, name=name, align_corners=bool(align_corners))


def _size_tensor(size):
    return convert_to_tensor(size, dtypes.int32, name="size")


_METHODS = {ResizeMethod.BILINEAR: "bilinear", ResizeMethod.NEAREST_NEIGHBOR: "nearest",
            ResizeMethod.BICUBIC: "bicubic", ResizeMethod.AREA: "area"}


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None) -> Tensor:
    """TF1's ``tf.image.resize_images`` (also ``tf.image.resize``): 4-D
    ``[batch, height, width, channels]`` or 3-D ``[height, width, channels]`` images
    resized to ``size``. Bilinear, bicubic and area results are float32; nearest
    neighbour keeps the dtype;
    when the size is statically unchanged the images are returned as they are.

    >>> tf.image.resize_images(tf.ones([4, 6, 3]), [8, 12]).shape.as_list()
    [8, 12, 3]
    """
    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = images.shape.ndims == 4
        if images.shape.ndims == 3:
            images = array_ops.expand_dims(images, 0)
        elif not is_batch:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = _size_tensor(size)
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: "
                             "new_height, new_width")
        static_hw = None
        if preserve_aspect_ratio:
            size, static_hw = _aspect_preserving_size(images, size)
        dims = _partial_dims(size)
        new_h, new_w = dims if dims is not None and len(dims) == 2 else (None, None)
        if None not in (height, width, new_h, new_w) and (height, width) == (new_h, new_w):
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        op_def = _resize_op(method)
        attrs = {"align_corners": bool(align_corners)}
        if op_def is not resize_area_op:
            attrs["half_pixel_centers"] = False
        out = op_def.bind(images, size, **attrs)
        if static_hw is not None:  # TF's C++ shape inference folds the size's subgraph
            out.set_shape([None, *static_hw, None])
        return out if is_batch else array_ops.squeeze(out, axis=[0])


def _resize_op(method):
    """The op of a ``ResizeMethod`` (or TF2's method name); checked only when an image
    is really resized, as TF."""
    kind = _METHODS.get(method, method) if isinstance(method, (int, str)) else method
    if kind == "bilinear":
        return resize_bilinear_op
    if kind == "nearest":
        return resize_nearest_neighbor_op
    if kind == "bicubic":
        return resize_bicubic_op
    if kind == "area":
        return resize_area_op
    raise ValueError(f"Resize method is not implemented: {method}")


def _image_dimensions(images):
    """TF's ``_ImageDimensions``: the static dims, each unknown one read at run time."""
    static = images.shape.as_list()
    if None not in static:
        return static
    dynamic = array_ops.unstack(array_ops.shape(images), 4)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _aspect_preserving_size(images, size):
    """The largest size within ``size`` with the images' aspect ratio, built as TF builds
    it (float32 scale factors, rounded half to even), and its value when it is known while
    the graph is built (else None)."""
    _, height, width, _ = _image_dimensions(images)
    f32 = dtypes.float32
    scale = math_ops.minimum(
        math_ops.cast(size[0], f32) / math_ops.cast(height, f32),
        math_ops.cast(size[1], f32) / math_ops.cast(width, f32))
    new_h = math_ops.cast(math_ops.round(scale * math_ops.cast(height, f32)), dtypes.int32)
    new_w = math_ops.cast(math_ops.round(scale * math_ops.cast(width, f32)), dtypes.int32)
    new_size = convert_to_tensor([new_h, new_w], dtypes.int32, name="size")
    wanted = constant_value(size)
    if wanted is None or not all(isinstance(d, int) for d in (height, width)):
        return new_size, None
    h, w = np.float32(height), np.float32(width)
    factor = min(np.float32(wanted[0]) / h, np.float32(wanted[1]) / w)
    return new_size, [int(np.round(np.float32(factor * h))),
                      int(np.round(np.float32(factor * w)))]


resize = resize_images


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                          align_corners=False) -> Tensor:
    """TF1's ``resize_image_with_pad``: resizes keeping the aspect ratio so the image fits
    ``[target_height, target_width]`` (sizes floored), then zero-pads it centred (the
    padding before floored) to exactly that size; built op for op as TF builds it."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        ndims = image.shape.ndims
        is_batch = True
        if ndims == 3 or ndims is None:
            is_batch = False
            image = array_ops.expand_dims(image, 0)
            if ndims is None:
                image.set_shape([None] * 4)
        elif ndims != 4:
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 "
                             "dimensions.")
        assert_ops = image_transform_ops._check_at_least_3d(image)
        assert_ops += image_transform_ops._assert(target_width > 0,
                                                  "target_width must be > 0.")
        assert_ops += image_transform_ops._assert(target_height > 0,
                                                  "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(assert_ops, image)
        _, height, width, _ = image_transform_ops._image_dims(image, rank=4)
        f32 = dtypes.float32
        f_height = math_ops.cast(height, dtype=f32)
        f_width = math_ops.cast(width, dtype=f32)
        f_target_height = math_ops.cast(target_height, dtype=f32)
        f_target_width = math_ops.cast(target_width, dtype=f32)
        ratio = math_ops.maximum(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtype=dtypes.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtype=dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        f_padding_height = math_ops.floor(padding_height)
        f_padding_width = math_ops.floor(padding_width)
        p_height = math_ops.maximum(0, math_ops.cast(f_padding_height, dtype=dtypes.int32))
        p_width = math_ops.maximum(0, math_ops.cast(f_padding_width, dtype=dtypes.int32))
        resized = resize_images(image, [resized_height, resized_width], method,
                                align_corners=align_corners)
        padded = image_transform_ops.pad_to_bounding_box(resized, p_height, p_width,
                                                         target_height, target_width)
        if padded.shape.ndims is None:
            raise ValueError("padded contains no shape.")
        image_transform_ops._image_dims(padded, rank=4)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])
