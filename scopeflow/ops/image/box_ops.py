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
    """One box side's sample coordinates (float32), as the forward kernel computes
    them: ``lo * (size - 1) + i * scale``, or the centre for a one-pixel crop."""
    i = np.arange(crop, dtype=f32)
    if crop > 1:
        scale = f32(f32(f32(hi - lo) * f32(size - 1)) / f32(crop - 1))
        return (f32(lo * f32(size - 1)) + i * scale).astype(f32)
    return np.full(crop, f32(f32(0.5) * f32(lo + hi)) * f32(size - 1), f32)


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
        raise errors.InvalidArgumentError(
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


def _sample_rows(image, b_in, ys, xs, method):
    """The bilinear (or nearest) samples of ``image[b_in]`` at rows ``ys`` and columns
    ``xs`` (all inside the image), float32 ``(len(ys), len(xs), depth)``."""
    img = image[b_in]
    if method == "nearest":
        yi = np.floor(ys + f32(0.5)).astype(np.int64)  # roundf: the coordinates are >= 0
        xi = np.floor(xs + f32(0.5)).astype(np.int64)
        return img[yi][:, xi].astype(f32)
    top, bottom = np.floor(ys).astype(np.int64), np.ceil(ys).astype(np.int64)
    left, right = np.floor(xs).astype(np.int64), np.ceil(xs).astype(np.int64)
    y_lerp = (ys - np.floor(ys)).astype(f32)[:, None, None]
    x_lerp = (xs - np.floor(xs)).astype(f32)[None, :, None]
    tl = img[top][:, left].astype(f32)
    tr = img[top][:, right].astype(f32)
    bl = img[bottom][:, left].astype(f32)
    br = img[bottom][:, right].astype(f32)
    t = tl + (tr - tl) * x_lerp
    b = bl + (br - bl) * x_lerp
    return (t + (b - t) * y_lerp).astype(f32)


@crop_and_resize_op.def_kernel
def _crop_and_resize_kernel(image, boxes, box_ind, crop_size, *, T, method,
                            extrapolation_value):
    ch, cw = _check_crop_inputs(image, boxes, box_ind, crop_size)
    if not np.isfinite(boxes).all():
        raise errors.InvalidArgumentError(
            None, None, "Boxes contains at least one element that is not finite")
    _, h, w, depth = image.shape
    out = np.full((boxes.shape[0], ch, cw, depth), f32(extrapolation_value), f32)
    for b in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[b].astype(f32)
        ys = _axis_samples(y1, y2, h, ch)
        xs = _axis_samples(x1, x2, w, cw)
        yok = (ys >= 0) & (ys <= f32(h - 1))
        xok = (xs >= 0) & (xs <= f32(w - 1))
        if yok.any() and xok.any():
            vals = _sample_rows(image, box_ind[b], ys[yok], xs[xok], method)
            out[b][np.ix_(yok, xok)] = vals
    return out


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
        raise errors.InvalidArgumentError(
            None, None, "box_index has values outside [0, batch_size)")
    out_dtype = T.as_numpy_dtype
    acc = np.zeros((batch, h * w, depth), out_dtype)
    _, ch, cw, _ = grads.shape
    one = f32(1)
    for b in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[b].astype(f32)
        ys = _axis_samples(y1, y2, h, ch)
        xs = _axis_samples(x1, x2, w, cw)
        yok = (ys >= 0) & (ys <= f32(h - 1))
        xok = (xs >= 0) & (xs <= f32(w - 1))
        if not (yok.any() and xok.any()):
            continue
        g = grads[b][np.ix_(yok, xok)].astype(f32)  # (ny, nx, depth)
        ys, xs = ys[yok], xs[xok]
        if method == "nearest":
            yi = np.floor(ys + f32(0.5)).astype(np.int64)
            xi = np.floor(xs + f32(0.5)).astype(np.int64)
            flat = (yi[:, None] * w + xi[None, :]).reshape(-1)
            np.add.at(acc[box_ind[b]], flat, g.reshape(-1, depth).astype(out_dtype))
            continue
        top, bottom = np.floor(ys).astype(np.int64), np.ceil(ys).astype(np.int64)
        left, right = np.floor(xs).astype(np.int64), np.ceil(xs).astype(np.int64)
        y_lerp = (ys - np.floor(ys)).astype(f32)[:, None, None]
        x_lerp = (xs - np.floor(xs)).astype(f32)[None, :, None]
        dtop = (one - y_lerp) * g
        dbottom = y_lerp * g
        parts = np.stack([(one - x_lerp) * dtop, x_lerp * dtop, (one - x_lerp) * dbottom,
                          x_lerp * dbottom], axis=2)  # (ny, nx, 4, depth), TF's order
        rows = np.stack([top, top, bottom, bottom], axis=1)[:, None, :]
        cols = np.stack([left, right, left, right], axis=1)[None, :, :]
        flat = (rows * w + cols).reshape(-1)
        np.add.at(acc[box_ind[b]], flat, parts.reshape(-1, depth).astype(out_dtype))
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
    out = np.zeros((boxes.shape[0], 4), f32)
    one = f32(1)
    h_ratio = f32(f32(h - 1) / f32(ch - 1)) if ch > 1 else f32(0)
    w_ratio = f32(f32(w - 1) / f32(cw - 1)) if cw > 1 else f32(0)
    for b in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[b].astype(f32)
        iy = np.arange(ch, dtype=f32)
        ix = np.arange(cw, dtype=f32)
        if ch > 1:
            ys = (f32(y1 * f32(h - 1)) + iy * f32((y2 - y1) * h_ratio)).astype(f32)
        else:
            ys = np.full(ch, f32(f32(0.5) * f32(y1 + y2)) * f32(h - 1), f32)
        if cw > 1:
            xs = (f32(x1 * f32(w - 1)) + ix * f32((x2 - x1) * w_ratio)).astype(f32)
        else:
            xs = np.full(cw, f32(f32(0.5) * f32(x1 + x2)) * f32(w - 1), f32)
        yok = (ys >= 0) & (ys <= f32(h - 1))
        xok = (xs >= 0) & (xs <= f32(w - 1))
        if not (yok.any() and xok.any()):
            continue
        g = grads[b][np.ix_(yok, xok)].astype(f32)
        iy, ix, ys, xs = iy[yok], ix[xok], ys[yok], xs[xok]
        img = image[box_ind[b]]
        top, bottom = np.floor(ys).astype(np.int64), np.ceil(ys).astype(np.int64)
        left, right = np.floor(xs).astype(np.int64), np.ceil(xs).astype(np.int64)
        y_lerp = (ys - np.floor(ys)).astype(f32)[:, None, None]
        x_lerp = (xs - np.floor(xs)).astype(f32)[None, :, None]
        tl = img[top][:, left].astype(f32)
        tr = img[top][:, right].astype(f32)
        bl = img[bottom][:, left].astype(f32)
        br = img[bottom][:, right].astype(f32)
        grad_y = ((one - x_lerp) * (bl - tl) + x_lerp * (br - tr)) * g
        grad_x = ((one - y_lerp) * (tr - tl) + y_lerp * (br - bl)) * g
        gy = grad_y.astype(np.float64)
        gx = grad_x.astype(np.float64)
        if ch > 1:
            wy0 = (f32(h - 1) - iy * h_ratio).astype(np.float64)[:, None, None]
            wy2 = (iy * h_ratio).astype(np.float64)[:, None, None]
        else:
            wy0 = wy2 = np.float64(f32(0.5) * f32(h - 1))
        if cw > 1:
            wx1 = (f32(w - 1) - ix * w_ratio).astype(np.float64)[None, :, None]
            wx3 = (ix * w_ratio).astype(np.float64)[None, :, None]
        else:
            wx1 = wx3 = np.float64(f32(0.5) * f32(w - 1))
        out[b] = [np.sum(gy * wy0), np.sum(gx * wx1), np.sum(gy * wy2), np.sum(gx * wx3)]
    return out


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
