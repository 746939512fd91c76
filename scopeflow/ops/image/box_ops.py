"""Box-driven image ops, as TF's CPU kernels compute them: ``CropAndResize`` with its two
gradient ops (crop_and_resize_op.cc), ``DrawBoundingBoxes``/``V2``
(draw_bounding_box_op.cc) and ``ExtractGlimpse`` (attention_ops.cc, eigen_attention.h).

CropAndResize samples each crop at ``y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1)``
(the box's centre for a one-pixel crop), in float32; samples outside the image take
``extrapolation_value``. Bilinear lerps along x, then y; nearest rounds half away from
zero. The gradients (TF's ``_CropAndResizeGrad``) flow to float images and always to the
boxes (bilinear's, also for nearest, as TF approximates it).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.op_helpers import _partial_dims

__all__ = ["crop_and_resize", "draw_bounding_boxes", "extract_glimpse"]

f32 = np.float32
_IMAGE_TYPES = (dtypes.uint8, dtypes.uint16, dtypes.int8, dtypes.int16, dtypes.int32,
                dtypes.int64) + FLOATS
_METHODS = ("bilinear", "nearest")


def _dims(shape, rank):
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape.as_list()


def _size_dims(size):
    if size.shape.ndims is not None and size.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {size.shape.ndims}")
    if not size.shape.is_compatible_with([2]):
        raise ValueError(f"Dimension must be 2 but is {size.shape.as_list()[0]}")
    dims = _partial_dims(size)
    if dims is None or len(dims) != 2:
        return [None, None]
    return [d if d is not None and d >= 0 else None for d in dims]


# ── CropAndResize: shared geometry ──────────────────────────────────────────────────
def _axis_samples(lo, hi, size, crop):
    """Every box's sample coordinates along one side, ``(num_boxes, crop)`` float32, as
    the forward kernel computes them: ``lo * (size - 1) + i * scale``, or the centre for a
    one-pixel crop (``lo``/``hi``: float32 ``(num_boxes,)``)."""
    i = np.arange(crop, dtype=f32)
    if crop > 1:
        scale = (hi - lo) * f32(size - 1) / f32(crop - 1)
        return (lo * f32(size - 1))[:, None] + i * scale[:, None]
    return np.repeat(((f32(0.5) * (lo + hi)) * f32(size - 1))[:, None], crop, axis=1)


def _inside(coords, size):
    """Which samples lie in ``[0, size - 1]`` (NaN does not), and the coordinates with
    the others set to 0 so that they index safely (their results are dropped)."""
    ok = (coords >= 0) & (coords <= f32(size - 1))
    return ok, np.where(ok, coords, f32(0))


def _corners(coords):
    """Floor and ceiling indices and the lerp weight of in-range sample coordinates."""
    lo = np.floor(coords)
    return lo.astype(np.int64), np.ceil(coords).astype(np.int64), (coords - lo).astype(f32)


def _check_crop_inputs(image, boxes, box_index, crop_size):
    if image.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input image must be 4-D{list(image.shape)}")
    batch, h, w, _ = image.shape
    if h <= 0 or w <= 0:
        raise errors.InvalidArgumentError(None, None, "image dimensions must be positive")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_index.ndim != 1 or \
            box_index.shape[0] != boxes.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"boxes must be 2-D[num_boxes, 4] and box_index 1-D[num_boxes]: "
                        f"{list(boxes.shape)} {list(box_index.shape)}")
    crop_size = np.asarray(crop_size)
    if crop_size.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"crop_size must be a 1-D tensor of length 2{list(crop_size.shape)}")
    ch, cw = int(crop_size[0]), int(crop_size[1])
    if ch <= 0 or cw <= 0:
        raise errors.InvalidArgumentError(None, None, "crop dimensions must be positive")
    if np.any((box_index < 0) | (box_index >= batch)):
        raise errors.OutOfRangeError(  # TF's CheckValidBoxIndexHelper
            None, None, "box_index has values outside [0, batch_size)")
    return ch, cw


def _crop_shape(image, boxes, box_ind, crop_size, **attrs):
    _, _, _, depth = _dims(image.shape, 4)
    num_boxes, _ = _dims(boxes.shape, 2)
    if boxes.shape.ndims == 2 and boxes.shape.as_list()[1] not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes.shape.as_list()[1]}")
    (n_ind,) = _dims(box_ind.shape, 1)
    if num_boxes is None:
        num_boxes = n_ind
    ch, cw = _size_dims(crop_size)
    return TensorShape([num_boxes, ch, cw, depth])


def _crop_dtype(image, boxes, box_ind, crop_size, *, T, method, extrapolation_value):
    check_dtype(image, _IMAGE_TYPES, "image")
    check_dtype(boxes, (dtypes.float32,), "boxes")
    check_dtype(box_ind, (dtypes.int32,), "box_ind")
    check_dtype(crop_size, (dtypes.int32,), "crop_size")
    if method not in _METHODS:
        raise ValueError(f"Attr 'method' of 'CropAndResize' Op passed string '{method}' "
                         'not in: "bilinear", "nearest".')
    return dtypes.float32


crop_and_resize_op = OpDef(
    "CropAndResize", shape=from_tensors(_crop_shape), dtype=_crop_dtype,
    attrs={"T": dtypes.float32, "method": "bilinear", "extrapolation_value": 0.0},
    input_names=("image", "boxes", "box_ind", "crop_size"))


def _gather(image, bi, rows, cols):
    """``image[bi, rows, cols]`` for every box: ``(num_boxes, ch, cw, depth)`` float32
    (one ``take`` of whole pixels by flat index: 3 index arrays cost ~3x more)."""
    batch, h, w, depth = image.shape
    flat = (bi[:, None, None] * h + rows[:, :, None]) * w + cols[:, None, :]
    out = np.take(image.reshape(batch * h * w, depth), flat.reshape(-1), axis=0)
    return out.reshape(flat.shape + (depth,)).astype(f32, copy=False)


def _samples(image, bi, ys, xs, method):
    """The bilinear (or nearest) samples of each box's image at rows ``ys`` ``(B, ch)``
    and columns ``xs`` ``(B, cw)`` (in range), float32 ``(B, ch, cw, depth)``: lerp along
    x, then y, in float32 as TF."""
    if method == "nearest":
        yi = np.floor(ys + f32(0.5)).astype(np.int64)  # roundf: the coordinates are >= 0
        xi = np.floor(xs + f32(0.5)).astype(np.int64)
        return _gather(image, bi, yi, xi)
    top, bottom, y_lerp = _corners(ys)
    left, right, x_lerp = _corners(xs)
    x_lerp = x_lerp[:, None, :, None]
    tl = _gather(image, bi, top, left)
    tr = _gather(image, bi, top, right)
    bl = _gather(image, bi, bottom, left)
    br = _gather(image, bi, bottom, right)
    t = tl + (tr - tl) * x_lerp
    b = bl + (br - bl) * x_lerp
    return t + (b - t) * y_lerp[:, :, None, None]


@crop_and_resize_op.def_kernel
def _crop_and_resize_kernel(image, boxes, box_ind, crop_size, *, T, method,
                            extrapolation_value):
    """All boxes at once (a per-box loop cost ~0.2 ms a box): samples outside the image
    are computed at a safe index and replaced by ``extrapolation_value``."""
    ch, cw = _check_crop_inputs(image, boxes, box_ind, crop_size)
    if not np.isfinite(boxes).all():
        raise errors.InvalidArgumentError(
            None, None, "Boxes contains at least one element that is not finite")
    _, h, w, depth = image.shape
    b = boxes.astype(f32)
    yok, ys = _inside(_axis_samples(b[:, 0], b[:, 2], h, ch), h)
    xok, xs = _inside(_axis_samples(b[:, 1], b[:, 3], w, cw), w)
    if boxes.shape[0] == 0:
        return np.zeros((0, ch, cw, depth), f32)
    vals = _samples(image, np.asarray(box_ind, np.int64), ys, xs, method)
    ok = (yok[:, :, None] & xok[:, None, :])[..., None]
    if ok.all():
        return vals
    return np.where(ok, vals, f32(extrapolation_value))


@crop_and_resize_op.def_grad
def _crop_and_resize_grad(op, grad):
    """TF's ``_CropAndResizeGrad``: the image's gradient for float images (its shape
    static where known), the boxes' always, none for the indices and size."""
    image = op.inputs[0]
    if image.shape.is_fully_defined():
        image_shape = image.shape.as_list()
    else:
        image_shape = array_ops.shape(image)
    grad0 = None
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad0 = crop_and_resize_grad_image_op.bind(grad, op.inputs[1], op.inputs[2],
                                                   image_shape, T=op.get_attr("T"),
                                                   method=op.get_attr("method"))
    grad1 = crop_and_resize_grad_boxes_op.bind(grad, op.inputs[0], op.inputs[1],
                                               op.inputs[2], T=op.get_attr("T"),
                                               method="bilinear")
    return [grad0, grad1, None, None]


# ── CropAndResizeGradImage ───────────────────────────────────────────────────────────
def _grad_image_shape(grads, boxes, box_ind, image_size, **attrs):
    _dims(grads.shape, 4)
    if image_size.shape.ndims is not None and image_size.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {image_size.shape.ndims}")
    dims = _partial_dims(image_size)
    if dims is None or len(dims) != 4:
        return TensorShape([None] * 4)
    return TensorShape([d if d is not None and d >= 0 else None for d in dims])


def _grad_image_dtype(grads, boxes, box_ind, image_size, *, T, method):
    check_dtype(grads, (dtypes.float32,), "grads")
    if T not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise TypeError(f"Value for attr 'T' of {T.name} is not in the list of allowed "
                        "values: half, float, double")
    return T


crop_and_resize_grad_image_op = OpDef(
    "CropAndResizeGradImage", shape=from_tensors(_grad_image_shape), dtype=_grad_image_dtype,
    attrs={"T": dtypes.float32, "method": "bilinear"},
    input_names=("grads", "boxes", "box_ind", "image_size"), grad=NO_GRADIENT)


@crop_and_resize_grad_image_op.def_kernel
def _crop_and_resize_grad_image_kernel(grads, boxes, box_ind, image_size, *, T, method):
    image_size = np.asarray(image_size)
    if image_size.shape != (4,):
        raise errors.InvalidArgumentError(
            None, None, f"image_size must be 1-D with 4 elements{list(image_size.shape)}")
    batch, h, w, depth = (int(v) for v in image_size)
    if h <= 0 or w <= 0:
        raise errors.InvalidArgumentError(None, None, "image dimensions must be positive")
    if grads.ndim != 4 or grads.shape[3] != depth:
        raise errors.InvalidArgumentError(
            None, None, "image_size and grads are incompatible")
    if np.any((box_ind < 0) | (box_ind >= batch)):
        raise errors.OutOfRangeError(  # TF's CheckValidBoxIndexHelper
            None, None, "box_index has values outside [0, batch_size)")
    return _scatter_grads(grads, boxes, np.asarray(box_ind, np.int64), (batch, h, w, depth),
                          T.as_numpy_dtype, method)


def _scatter_grads(grads, boxes, bi, image_shape, out_dtype, method):
    """Each in-range sample's gradient added to its pixels (bilinear: its four corners,
    TF's order), all boxes in one unbuffered ``np.add.at`` on the flat image: the same
    float additions, in the same order, as TF's loop over boxes, rows, columns."""
    batch, h, w, depth = image_shape
    _, ch, cw, _ = grads.shape
    b = boxes.astype(f32)
    yok, ys = _inside(_axis_samples(b[:, 0], b[:, 2], h, ch), h)
    xok, xs = _inside(_axis_samples(b[:, 1], b[:, 3], w, cw), w)
    ok = yok[:, :, None] & xok[:, None, :]  # (B, ch, cw)
    g = grads.astype(f32, copy=False)
    base = bi[:, None, None] * (h * w)
    if method == "nearest":
        yi = np.floor(ys + f32(0.5)).astype(np.int64)
        xi = np.floor(xs + f32(0.5)).astype(np.int64)
        flat = base + yi[:, :, None] * w + xi[:, None, :]  # (B, ch, cw)
        parts = g
    else:
        top, bottom, y_lerp = _corners(ys)
        left, right, x_lerp = _corners(xs)
        one = f32(1)
        y_lerp, x_lerp = y_lerp[:, :, None, None], x_lerp[:, None, :, None]
        dtop = (one - y_lerp) * g
        dbottom = y_lerp * g
        parts = np.stack([(one - x_lerp) * dtop, x_lerp * dtop, (one - x_lerp) * dbottom,
                          x_lerp * dbottom], axis=3)  # (B, ch, cw, 4, depth), TF's order
        rows = (base + top[:, :, None] * w, base + bottom[:, :, None] * w)
        flat = np.stack([rows[0] + left[:, None, :], rows[0] + right[:, None, :],
                         rows[1] + left[:, None, :], rows[1] + right[:, None, :]], axis=3)
    if not ok.all():  # out-of-range samples add nothing (their values may be NaN)
        flat, parts = flat[ok], parts[ok]
    # One channel at a time: the pixel index is shared, no (K * depth) index is built.
    flat = flat.reshape(-1)
    parts = parts.reshape(flat.size, depth)
    acc = np.zeros((batch * h * w, depth), out_dtype)
    plane = np.empty(batch * h * w, out_dtype)
    for d in range(depth):
        plane[:] = 0
        np.add.at(plane, flat, parts[:, d].astype(out_dtype))
        acc[:, d] = plane
    return acc.reshape(batch, h, w, depth)


# ── CropAndResizeGradBoxes ───────────────────────────────────────────────────────────
def _grad_boxes_shape(grads, image, boxes, box_ind, **attrs):
    _dims(grads.shape, 4)
    _dims(image.shape, 4)
    return TensorShape(_dims(boxes.shape, 2))


def _grad_boxes_dtype(grads, image, boxes, box_ind, *, T, method):
    check_dtype(grads, (dtypes.float32,), "grads")
    check_dtype(image, _IMAGE_TYPES, "image")
    return dtypes.float32


crop_and_resize_grad_boxes_op = OpDef(
    "CropAndResizeGradBoxes", shape=from_tensors(_grad_boxes_shape), dtype=_grad_boxes_dtype,
    attrs={"T": dtypes.float32, "method": "bilinear"},
    input_names=("grads", "image", "boxes", "box_ind"), grad=NO_GRADIENT)


@crop_and_resize_grad_boxes_op.def_kernel
def _crop_and_resize_grad_boxes_kernel(grads, image, boxes, box_ind, *, T, method):
    _, ch, cw, _ = grads.shape
    _check_crop_inputs(image, boxes, box_ind, np.array([ch, cw]))
    _, h, w, _ = image.shape
    h_ratio = f32(f32(h - 1) / f32(ch - 1)) if ch > 1 else f32(0)
    w_ratio = f32(f32(w - 1) / f32(cw - 1)) if cw > 1 else f32(0)
    b = boxes.astype(f32)
    yok, ys = _inside(_grad_axis_samples(b[:, 0], b[:, 2], h, ch, h_ratio), h)
    xok, xs = _inside(_grad_axis_samples(b[:, 1], b[:, 3], w, cw, w_ratio), w)
    if boxes.shape[0] == 0:
        return np.zeros((0, 4), f32)
    bi = np.asarray(box_ind, np.int64)
    top, bottom, y_lerp = _corners(ys)
    left, right, x_lerp = _corners(xs)
    one = f32(1)
    y_lerp, x_lerp = y_lerp[:, :, None, None], x_lerp[:, None, :, None]
    tl = _gather(image, bi, top, left)
    tr = _gather(image, bi, top, right)
    bl = _gather(image, bi, bottom, left)
    br = _gather(image, bi, bottom, right)
    g = grads.astype(f32, copy=False)
    gy = ((one - x_lerp) * (bl - tl) + x_lerp * (br - tr)) * g
    gx = ((one - y_lerp) * (tr - tl) + y_lerp * (br - bl)) * g
    ok = (yok[:, :, None] & xok[:, None, :])[..., None]
    if not ok.all():  # out-of-range samples are skipped, as TF's loop: zeros, not 0 * NaN
        gy, gx = np.where(ok, gy, f32(0)), np.where(ok, gx, f32(0))
    # Per row (y) and column (x) sums first, in float64, then their weights.
    sy = gy.astype(np.float64).sum(axis=(2, 3))  # (B, ch)
    sx = gx.astype(np.float64).sum(axis=(1, 3))  # (B, cw)
    iy, ix = np.arange(ch, dtype=f32), np.arange(cw, dtype=f32)
    if ch > 1:
        wy0 = (f32(h - 1) - iy * h_ratio).astype(np.float64)
        wy2 = (iy * h_ratio).astype(np.float64)
    else:
        wy0 = wy2 = np.full(ch, np.float64(f32(0.5) * f32(h - 1)))
    if cw > 1:
        wx1 = (f32(w - 1) - ix * w_ratio).astype(np.float64)
        wx3 = (ix * w_ratio).astype(np.float64)
    else:
        wx1 = wx3 = np.full(cw, np.float64(f32(0.5) * f32(w - 1)))
    return np.stack([sy @ wy0, sx @ wx1, sy @ wy2, sx @ wx3], axis=1).astype(f32)


def _grad_axis_samples(lo, hi, size, crop, ratio):
    """The boxes gradient's sample coordinates, ``(num_boxes, crop)``: TF's
    CropAndResizeBackpropBoxes rounds ``lo * (size - 1) + i * ((hi - lo) * ratio)``, not
    the forward's ``i * scale``."""
    if crop > 1:
        i = np.arange(crop, dtype=f32)
        return (lo * f32(size - 1))[:, None] + i * ((hi - lo) * ratio)[:, None]
    return np.repeat(((f32(0.5) * (lo + hi)) * f32(size - 1))[:, None], crop, axis=1)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None) -> Tensor:
    """Crops ``boxes`` (normalised ``[y1, x1, y2, x2]``) out of the images ``box_ind``
    picks, each resized to ``crop_size`` (``CropAndResize``; float32 out)."""
    if box_indices is not None:
        if box_ind is not None:
            raise ValueError("Cannot specify both 'box_indices' and 'box_ind'.")
        box_ind = box_indices
    image = convert_to_tensor(image, name="image") if not isinstance(image, Tensor) else image
    return crop_and_resize_op.bind(image, boxes, box_ind, crop_size, name=name,
                                   T=image.dtype.base_dtype, method=method,
                                   extrapolation_value=float(extrapolation_value))


# ── DrawBoundingBoxes, DrawBoundingBoxesV2 ───────────────────────────────────────────
# TF's default colour table (RGBA): yellow, blue, red, lime, purple, olive, maroon, navy,
# aqua, fuchsia.
_COLOR_TABLE = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                         [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                         [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_shape(images, boxes, *colors, **attrs):
    n, h, w, d = _dims(images, 4)
    return TensorShape([n, h, w, d])


def _draw_dtype(images, boxes, *colors, T):
    check_dtype(boxes, (dtypes.float32,), "boxes")
    if colors:
        check_dtype(colors[0], (dtypes.float32,), "colors")
    return check_dtype(images, (dtypes.float32, dtypes.float16), "images")


_INT64_MIN = -(2 ** 63)


def _to_int64(v):
    """C++'s ``static_cast<int64>`` of a float on x86: truncation toward zero, and the
    "integer indefinite" ``INT64_MIN`` for NaN, Inf or an out-of-range value."""
    v = np.float32(v)
    if not np.isfinite(v) or abs(float(v)) >= 2.0 ** 63:
        return _INT64_MIN
    return int(v)


def _draw(images, boxes, colors=None):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"The rank of the images should be 4{list(images.shape)}")
    if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != images.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"The bounding boxes should be 3-D [batch, num_bounding_boxes, 4]"
                        f"{list(boxes.shape)}")
    batch, h, w, depth = images.shape
    if depth not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            None, None, f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA): "
                        f"{depth}")
    if colors is None or colors.size == 0:
        table = _COLOR_TABLE.copy()
        if depth == 1:
            table[:, 0] = 1
    else:
        table = np.asarray(colors, np.float32)
        if table.ndim != 2 or table.shape[1] < depth:
            raise errors.InvalidArgumentError(
                None, None, f"Color dimension must be >= the channel depth of the images: "
                            f"{list(table.shape)}")
    canvas = images.copy()
    for b in range(batch):
        for k in range(boxes.shape[1]):
            color = table[k % len(table), :depth].astype(images.dtype)
            y0, x0, y1, x1 = boxes[b, k].astype(np.float32)
            r0 = _to_int64(y0 * np.float32(h - 1))
            r1 = _to_int64(y1 * np.float32(h - 1))
            c0 = _to_int64(x0 * np.float32(w - 1))
            c1 = _to_int64(x1 * np.float32(w - 1))
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue
            r0c, r1c, c0c, c1c = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                canvas[b, r0, c0c:c1c + 1] = color
            if r1 < h:
                canvas[b, r1, c0c:c1c + 1] = color
            if c0 >= 0:
                canvas[b, r0c:r1c + 1, c0] = color
            if c1 < w:
                canvas[b, r0c:r1c + 1, c1] = color
    return canvas


def _draw_bounding_boxes_kernel(images, boxes, *, T):
    return _draw(images, boxes)


def _draw_bounding_boxes_v2_kernel(images, boxes, colors, *, T):
    return _draw(images, boxes, colors)


draw_bounding_boxes_op = OpDef(
    "DrawBoundingBoxes", shape=_draw_shape, dtype=_draw_dtype,
    kernel=_draw_bounding_boxes_kernel,
    attrs={"T": dtypes.float32}, input_names=("images", "boxes"),
    grad=None)  # TF: NotDifferentiable
draw_bounding_boxes_v2_op = OpDef(
    "DrawBoundingBoxesV2", shape=_draw_shape, dtype=_draw_dtype,
    kernel=_draw_bounding_boxes_v2_kernel,
    attrs={"T": dtypes.float32}, input_names=("images", "boxes", "colors"),
    grad=NO_GRADIENT)  # TF registers none


def draw_bounding_boxes(images, boxes, name=None, colors=None) -> Tensor:
    """Draws each box's outline (normalised ``[y_min, x_min, y_max, x_max]``) on a copy of
    the images, cycling through ``colors`` (or TF's table of ten)."""
    images = convert_to_tensor(images, name="images")
    attrs = {"T": images.dtype.base_dtype}
    if colors is None:
        return draw_bounding_boxes_op.bind(images, boxes, name=name, **attrs)
    return draw_bounding_boxes_v2_op.bind(images, boxes, colors, name=name, **attrs)


# ── ExtractGlimpse ───────────────────────────────────────────────────────────────────
def _glimpse_shape(input, size, offsets, **attrs):  # noqa: A002 - TF's name
    n, _, _, c = _dims(input.shape, 4)
    (n_off, _) = _dims(offsets.shape, 2)
    h, w = _size_dims(size)
    return TensorShape([n if n is not None else n_off, h, w, c])


def _glimpse_dtype(input, size, offsets, **attrs):  # noqa: A002
    check_dtype(size, (dtypes.int32,), "size")
    check_dtype(offsets, (dtypes.float32,), "offsets")
    return check_dtype(input, (dtypes.float32,), "input")


extract_glimpse_op = OpDef(
    "ExtractGlimpse", shape=from_tensors(_glimpse_shape), dtype=_glimpse_dtype,
    attrs={"centered": True, "normalized": True, "uniform_noise": True, "noise": "uniform"},
    input_names=("input", "size", "offsets"), grad=None)  # TF: NotDifferentiable


@extract_glimpse_op.def_kernel
def _extract_glimpse_kernel(input, size, offsets, *, centered, normalized,  # noqa: A002
                            uniform_noise, noise):
    if input.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input must be 4-dimensional{list(input.shape)}")
    size = np.asarray(size)
    if size.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"input must be a vector of size 2 (height, width){list(size.shape)}")
    if offsets.ndim != 2 or offsets.shape != (input.shape[0], 2):
        raise errors.InvalidArgumentError(
            None, None, f"offsets must be [batch_size, 2]{list(offsets.shape)}")
    if uniform_noise and noise not in ("", "uniform"):
        raise errors.InvalidArgumentError(
            None, None, "The uniform_noise and noise should not be specified at the same time")
    kind = ("uniform" if uniform_noise else "gaussian") if noise == "" else noise
    batch, ih, iw, depth = input.shape
    gh, gw = int(size[0]), int(size[1])
    out = np.empty((batch, gh, gw, depth), np.float32)
    rng = np.random.default_rng()
    for i in range(batch):
        y, x = f32(offsets[i, 0]), f32(offsets[i, 1])
        if normalized:
            x, y = f32(x * f32(iw)), f32(y * f32(ih))
        if centered:  # TF halves centred offsets, normalised or not
            x = f32(f32(x / f32(2)) + f32(iw / 2.0))
            y = f32(f32(y / f32(2)) + f32(ih / 2.0))
        x, y = f32(x - f32(gw / 2.0)), f32(y - f32(gh / 2.0))
        ox, oy = int(x), int(y)  # C++'s truncation toward zero
        img = input[i]
        if kind == "zero":
            out[i] = 0
        elif kind == "gaussian":
            out[i] = rng.standard_normal((gh, gw, depth)).astype(np.float32) * \
                img.std() + img.mean()
        else:  # uniform in the image's range, as Eigen's glimpse noise
            lo, hi = np.float32(img.min()), np.float32(img.max())
            out[i] = lo + rng.uniform(0, 1, (gh, gw, depth)).astype(np.float32) * (hi - lo)
        r0, r1 = max(0, oy), min(oy + gh, ih)
        c0, c1 = max(0, ox), min(ox + gw, iw)
        if r0 < r1 and c0 < c1:
            out[i, r0 - oy:r1 - oy, c0 - ox:c1 - ox] = img[r0:r1, c0:c1]
    return out


def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    uniform_noise=True, name=None) -> Tensor:
    """The ``size`` windows of each image at ``offsets`` (``[y, x]``; normalised ones are
    scaled by the image size, centred ones halved and moved to the image centre, as TF's
    kernel does), truncated to whole pixels; pixels beyond the image are uniform noise
    in the image's range (``ExtractGlimpse``)."""
    return extract_glimpse_op.bind(input, size, offsets, name=name, centered=bool(centered),
                                   normalized=bool(normalized),
                                   uniform_noise=bool(uniform_noise))
