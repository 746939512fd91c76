"""``SampleDistortedBoundingBoxV2`` (``tf.image.sample_distorted_bounding_box``): a random
crop window that covers enough of one of the given boxes, drawn as TF's CPU kernel
(sample_distorted_bounding_box_op.cc) draws it, bit for bit.

Each run reserves ``max_attempts`` Philox blocks of the op's stream
(``ReserveSamples32(4 * max_attempts)``) and reads 32-bit words from their start, one at a
time (``SimplePhilox``): per attempt a float for the aspect ratio, then, as the crop rule
needs them, ``Uniform(n) = word % n`` for the height, the top and the left offset. The
arithmetic is the kernel's: float32 areas and ratios, ``lrintf`` (round half to even) for
the sides, the double ``(width + 0.5 - 1e-7f) / ratio`` bound, integer pixel boxes
(``int(coord * size)``). When no attempt succeeds the whole image is the crop. TF
registers the op as not differentiable.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.random.random_ops import _stream

__all__ = ["sample_distorted_bounding_box"]

_SIZE_TYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_F = np.float32
_EPS = float(np.float32(1e-7))   # TF's ``const float kEps = 0.0000001``, used in double


def _rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")


def _shape(image_size, bounding_boxes, min_object_covered, **attrs):
    _rank(image_size, 1)
    if image_size.dims[0] is not None and image_size.dims[0] != 3:
        raise ValueError(f"Dimension must be 3 but is {image_size.dims[0]}")
    _rank(bounding_boxes, 3)
    if bounding_boxes.ndims == 3 and bounding_boxes.dims[2] not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {bounding_boxes.dims[2]}")
    _rank(min_object_covered, 0)
    return [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])]


def _dtype(image_size, bounding_boxes, min_object_covered, **attrs):
    check_dtype(image_size, _SIZE_TYPES, "image_size")
    return [image_size, image_size, dtypes.float32]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _fmt(values):
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def _check_attrs(aspect_ratio_range, area_range, max_attempts):
    """The kernel constructor's checks (an InvalidArgumentError at the first run)."""
    if len(aspect_ratio_range) != 2:
        raise _invalid("Aspect ratio range field must specify 2 dimensions")
    if not (aspect_ratio_range[0] > 0 and aspect_ratio_range[1] > 0):
        raise _invalid(f"Aspect ratio range must be non-negative: {_fmt(aspect_ratio_range)}")
    if len(area_range) != 2:
        raise _invalid("Area range field must specify 2 dimensions")
    if not (area_range[0] > 0 and area_range[1] > 0):
        raise _invalid(f"Area range must be non-negative: {_fmt(area_range)}")
    if not (area_range[0] <= 1 and area_range[1] <= 1):
        raise _invalid(f"Area range must be less then or equal to 1.0: {_fmt(area_range)}")
    if max_attempts <= 0:
        raise _invalid(f"Max attempts must be non-negative: {max_attempts}")


class _Words:
    """``SimplePhilox`` over the blocks from ``start``: 32-bit words in order."""

    def __init__(self, stream, start, count):
        self.words = stream.words(start, count).tolist()
        self.pos = 0

    def next(self) -> int:
        word = self.words[self.pos]
        self.pos += 1
        return word

    def rand_float(self):
        return (np.array([self.next()], np.uint32) & np.uint32(0x7FFFFF)
                | np.uint32(0x3F800000)).view(_F)[0] - _F(1)

    def uniform(self, n: int) -> int:
        return self.next() % n


def _lrint(x) -> int:
    return int(np.rint(_F(x)))


def _max_height(max_area, ratio, width):
    """The tallest height whose ``lrintf(height * ratio)`` still fits ``width``."""
    max_height = _lrint(np.sqrt(_F(max_area / ratio)))
    if _lrint(_F(max_height) * ratio) > width:
        max_height = int((width + 0.5 - _EPS) / float(ratio))
        if _lrint(_F(max_height) * ratio) > width:
            max_height -= 1
    return max_height


def _random_crop(width, height, area_range, ratio, rng):
    """TF's ``GenerateRandomCrop``: ``(x, y, w, h)`` or None."""
    lo, hi = area_range
    if hi <= 0 or ratio <= 0 or width <= 0 or height <= 0 or lo > hi:
        return None
    min_area = _F(_F(lo * _F(width)) * _F(height))
    max_area = _F(_F(hi * _F(width)) * _F(height))
    h = _lrint(np.sqrt(_F(min_area / ratio)))
    max_h = min(_max_height(max_area, ratio, width), height)
    h = min(h, max_h)
    if h < max_h:
        h += rng.uniform(max_h - h + 1)
    w = _lrint(_F(h) * ratio)
    area = _F(w * h)
    if area < min_area:
        h += 1
        w = _lrint(_F(h) * ratio)
        area = _F(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(_F(h) * ratio)
        area = _F(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = rng.uniform(height - h) if h < height else 0
    x = rng.uniform(width - w) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered):
    """TF's ``SatisfiesOverlapConstraints`` on integer ``(x0, y0, x1, y1)`` rectangles."""
    x0, y0, x1, y1 = crop
    if (x1 - x0) * (y1 - y0) < 1:
        return False
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    ix0, iy0 = np.maximum(boxes[:, 0], x0), np.maximum(boxes[:, 1], y0)
    ix1, iy1 = np.minimum(boxes[:, 2], x1), np.minimum(boxes[:, 3], y1)
    inter = np.where((ix0 > ix1) | (iy0 > iy1), 0, (ix1 - ix0) * (iy1 - iy0))
    with np.errstate(divide="ignore", invalid="ignore"):
        covered = inter.astype(_F) / area.astype(_F)
    return bool(np.any((area >= 1) & (covered >= _F(min_covered))))


def _pixel_boxes(bounding_boxes, width, height):
    flat = np.asarray(bounding_boxes, _F).reshape(-1, 4)
    bad = (flat < 0) | (flat > 1) | np.isnan(flat)
    if bad.any():
        raise _invalid(f"All bounding box coordinates must be in [0.0, 1.0]: "
                       f"{float(flat.reshape(-1)[np.argmax(bad.reshape(-1))]):g}")
    xs = (flat[:, 1::2] * _F(width)).astype(np.int32)
    ys = (flat[:, 0::2] * _F(height)).astype(np.int32)
    return np.stack([xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], axis=1).astype(np.int64)


def _check_inputs(image_size, bounding_boxes, min_object_covered):
    if image_size.ndim != 1:
        raise _invalid(f"image_size must be 1-dimensional{list(image_size.shape)}")
    if image_size.shape[0] != 3:
        raise _invalid(f"image_size must contain 3 values{list(image_size.shape)}")
    if bounding_boxes.ndim != 3:
        raise _invalid(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                       f"{list(bounding_boxes.shape)}")
    if bounding_boxes.shape[-1] != 4:
        raise _invalid(f"bounding boxes must have shape [4] or [*, 4], got "
                       f"{list(bounding_boxes.shape)}")
    if np.ndim(min_object_covered) != 0:
        raise _invalid(f"min_object_covered must be 0-D, got shape "
                       f"{list(np.shape(min_object_covered))}")
    if not _F(min_object_covered) >= 0:
        raise _invalid(f"Min object covered must be non-negative: {float(min_object_covered):g}")


def _kernel(ctx, image_size, bounding_boxes, min_object_covered, *, T, seed, seed2,
            aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    _check_attrs(aspect_ratio_range, area_range, max_attempts)
    _check_inputs(image_size, bounding_boxes, min_object_covered)
    height, width = int(image_size[0]), int(image_size[1])
    boxes = _pixel_boxes(bounding_boxes, width, height)
    if boxes.shape[0] == 0:
        if not use_image_if_no_bounding_boxes:
            raise _invalid("No bounding boxes provided as input. One must enable "
                           "use_image_if_no_bounding_boxes if you wish to not provide any "
                           "bounding boxes.")
        boxes = np.array([[0, 0, width, height]], np.int64)
    stream = _stream(ctx, seed, seed2)
    rng = _Words(stream, stream.reserve32(4 * max_attempts), 4 * max_attempts)
    ratio_lo, ratio_hi = _F(aspect_ratio_range[0]), _F(aspect_ratio_range[1])
    areas = (_F(area_range[0]), _F(area_range[1]))
    crop = (0, 0, width, height)
    for _ in range(max_attempts):
        ratio = _F(rng.rand_float() * (ratio_hi - ratio_lo)) + ratio_lo
        found = _random_crop(width, height, areas, ratio, rng)
        if found is not None:
            x, y, w, h = found
            if _covers((x, y, x + w, y + h), boxes, min_object_covered):
                crop = (x, y, x + w, y + h)
                break
    dtype = T.as_numpy_dtype
    x0, y0, x1, y1 = crop
    begin = np.array([y0, x0, 0], np.int64).astype(dtype)
    size = np.array([y1 - y0, x1 - x0, -1], np.int64).astype(dtype)
    fh, fw = _F(height), _F(width)
    bbox = np.array([[[_F(y0) / fh, _F(x0) / fw, _F(y1) / fh, _F(x1) / fw]]], _F)
    return [begin, size, bbox]


sample_distorted_bounding_box_v2_op = OpDef(
    "SampleDistortedBoundingBoxV2", shape=_shape, dtype=_dtype, kernel=_kernel,
    attrs={"T": dtypes.int32, "seed": 0, "seed2": 0, "aspect_ratio_range": [0.75, 1.33],
           "area_range": [0.05, 1.0], "max_attempts": 100,
           "use_image_if_no_bounding_boxes": False},
    num_outputs=3, stateful=True, grad=None,
    input_names=("image_size", "bounding_boxes", "min_object_covered"))


def _float_list(values, default):
    if values is None:
        return list(default)
    return [float(np.float32(v)) for v in values]


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop ``(begin, size, bboxes)`` of an image covering at least
    ``min_object_covered`` of one of ``bounding_boxes`` (TF1's signature: the op's own
    ``seed``/``seed2`` attrs, the graph seed plays no part, as in TF)."""
    with name_scope(name, "sample_distorted_bounding_box"):
        if not isinstance(bounding_boxes, Tensor):
            bounding_boxes = np.asarray(bounding_boxes, np.float32)
        if not isinstance(min_object_covered, Tensor):
            min_object_covered = np.float32(min_object_covered)
        return sample_distorted_bounding_box_v2_op.bind(
            image_size, bounding_boxes, min_object_covered, name=name,
            T=_size_dtype(image_size), seed=int(seed or 0), seed2=int(seed2 or 0),
            aspect_ratio_range=_float_list(aspect_ratio_range, (0.75, 1.33)),
            area_range=_float_list(area_range, (0.05, 1.0)),
            max_attempts=100 if max_attempts is None else int(max_attempts),
            use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes))


def _size_dtype(image_size):
    """``T``: a tensor's type, a NumPy integer array's, else int32 (TF's conversion of a
    Python list); a non-integer ``image_size`` then fails the op's type check."""
    if isinstance(image_size, Tensor):
        return image_size.dtype.base_dtype
    if isinstance(image_size, np.ndarray):
        return dtypes.as_dtype(image_size.dtype)
    return dtypes.int32
