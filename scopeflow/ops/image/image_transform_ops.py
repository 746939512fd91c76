"""``tf.image``'s basic transforms, built as TF1 builds them: dtype conversion, grayscale,
flips, transposes and rotations, crops and pads, standardisation, brightness and contrast.

All but contrast are composites of existing ops (``ReverseV2``, ``Slice``, ``Pad``,
``Cond``...), so their gradients are those ops' gradients, where TF has them. Contrast is
TF's ``AdjustContrastv2`` op, which has no gradient in TF. Random variants draw from
``random_uniform`` with scopeflow's graph/op seeds, so a seeded graph flips, crops and
adjusts exactly as TF's does.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, same_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.reverse_ops import reverse
from scopeflow.ops.control_flow import cond_ops, control_flow_ops
from scopeflow.ops.logging import check_ops, logging_ops
from scopeflow.ops.math.elementwise_ops import saturate_cast
from scopeflow.ops.math.matmul_ops import tensordot
from scopeflow.ops.random import random_ops

__all__ = ["convert_image_dtype", "rgb_to_grayscale", "grayscale_to_rgb", "flip_left_right",
           "flip_up_down", "random_flip_left_right", "random_flip_up_down",
           "transpose_image", "rot90", "per_image_standardization", "random_crop",
           "central_crop", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_image_with_crop_or_pad", "adjust_brightness", "random_brightness",
           "adjust_contrast", "random_contrast"]


# ── shared rules ─────────────────────────────────────────────────────────────────────
def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _check_at_least_3d(image: Tensor) -> list:
    """TF's ``_CheckAtLeast3DImage(require_static=False)``: static checks, and assert ops
    for the inner dims that are only known at run time."""
    shape = image.shape
    if (shape.ndims is not None and shape.ndims < 3) or shape.ndims == 0:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    dims = [None] * 3 if shape.ndims is None else shape.as_list()[-3:]
    if any(d == 0 for d in dims):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    if all(d is not None for d in dims):
        return []
    return [check_ops.assert_positive(array_ops.shape(image)[-3:],
                                      ["inner 3 dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least three-dimensional.")]


def _assert_at_least_3d(image: Tensor) -> Tensor:
    checks = _check_at_least_3d(image)
    return control_flow_ops.with_dependencies(checks, image) if checks else image


def _assert(cond, message: str) -> list:
    """TF's ``_assert``: a Python condition raises ValueError now, a tensor one asserts."""
    if _is_tensor(cond):
        return [logging_ops.Assert(cond, [message])]
    if not cond:
        raise ValueError(message)
    return []


def _image_dims(image: Tensor, rank: int) -> list:
    """Each dim: its static value where known, else the run-time ``shape(image)[i]``."""
    static = image.shape.with_rank(rank).as_list()
    if all(d is not None for d in static):
        return static
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _as_batch(image: Tensor):
    """``(4-D image, was_batch)``: a single image gets a batch dim, as TF's crop/pad do."""
    ndims = image.shape.ndims
    if ndims == 3 or ndims is None:
        batched = array_ops.expand_dims(image, 0)
        if ndims is None:
            batched.set_shape([None] * 4)
        return batched, False
    if ndims != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def _fix_flip_shape(image: Tensor, result: Tensor) -> Tensor:
    result.set_shape([None, None, None] if image.shape.ndims is None else image.shape)
    return result


def _by_rank(image: Tensor, f_rank3, f_rank4, what: str):
    ndims = image.shape.ndims
    if ndims is None:
        return cond_ops.cond(math_ops.equal(array_ops.rank(image), 3), f_rank3, f_rank4)
    if ndims == 3:
        return f_rank3()
    if ndims == 4:
        return f_rank4()
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


# ── convert_image_dtype ──────────────────────────────────────────────────────────────
def convert_image_dtype(image, dtype, saturate=False, name=None) -> Tensor:
    """Converts an image's dtype, rescaling values (floats in [0, 1), integers to max).

    Integer to integer shifts by the ratio of the maxima (``(max_in + 1) // (max_out +
    1)``); integer to float multiplies by ``1 / max_in``; float to integer multiplies by
    ``max_out + 0.5`` and truncates (``saturate`` clamps first), as TF.

    >>> import scopeflow as tf
    >>> x = tf.Session().run(convert_image_dtype(tf.constant([0, 128, 255], tf.uint8),
    ...                                          tf.float32))
    >>> [round(float(v), 4) for v in x]
    [0.0, 0.502, 1.0]
    """
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with name_scope(name, "convert_image", [image]) as name:
        in_dtype = image.dtype.base_dtype
        to_dtype = saturate_cast if saturate else math_ops.cast
        if in_dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = in_dtype.max, dtype.max
            if scale_in > scale_out:
                scaled = math_ops.floordiv(image, (scale_in + 1) // (scale_out + 1))
                return to_dtype(scaled, dtype, name=name)
            cast = to_dtype(image, dtype)
            return math_ops.multiply(cast, (scale_out + 1) // (scale_in + 1), name=name)
        if in_dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if in_dtype.is_integer:
            cast = math_ops.cast(image, dtype)
            return math_ops.multiply(cast, 1.0 / in_dtype.max, name=name)
        scaled = math_ops.multiply(image, dtype.max + 0.5)
        return to_dtype(scaled, dtype, name=name)


# ── grayscale ────────────────────────────────────────────────────────────────────────
def rgb_to_grayscale(images, name=None) -> Tensor:
    """RGB [..., 3] to grayscale [..., 1] with TF's weights (0.2989, 0.587, 0.114)."""
    with name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype.base_dtype
        flt_image = convert_image_dtype(images, dtypes.float32)
        rgb_weights = [0.2989, 0.5870, 0.1140]
        gray_float = tensordot(flt_image, rgb_weights, [-1, -1])
        gray_float = array_ops.expand_dims(gray_float, -1)
        return convert_image_dtype(gray_float, orig_dtype, name=name)


def grayscale_to_rgb(images, name=None) -> Tensor:
    """Grayscale [..., 1] to RGB [..., 3], the channel repeated."""
    with name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = convert_to_tensor(images, name="images")
        shape = images.shape
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError("'image' must be at least two-dimensional.")
        if shape.ndims is not None and shape.as_list()[-1] not in (None, 1):
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        rank_1 = array_ops.expand_dims(math_ops.subtract(array_ops.rank(images), 1), 0)
        multiples = array_ops.concat([array_ops.ones(rank_1, dtype=dtypes.int32),
                                      array_ops.expand_dims(3, 0)], 0)
        rgb = array_ops.tile(images, multiples, name=name)
        if shape.ndims is not None:
            rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


# ── flips, transposes and rotations ──────────────────────────────────────────────────
def _flip(image, flip_index: int, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]):
        image = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(image,
                        lambda: _fix_flip_shape(image, reverse(image, [flip_index])),
                        lambda: reverse(image, [flip_index + 1]), scope_name)


def flip_left_right(image) -> Tensor:
    """Mirrors an image (3-D) or each image of a batch (4-D) along its width."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image) -> Tensor:
    """Flips an image (3-D) or each image of a batch (4-D) along its height."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, flip_index: int, seed, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]) as scope:
        image = _assert_at_least_3d(convert_to_tensor(image, name="image"))

        def f_rank3():
            uniform_random = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror_cond = math_ops.less(uniform_random, 0.5)
            result = cond_ops.cond(mirror_cond, lambda: reverse(image, [flip_index]),
                                   lambda: image, name=scope)
            return _fix_flip_shape(image, result)

        def f_rank4():
            batch_size = array_ops.shape(image)[0]
            uniform_random = random_ops.random_uniform([batch_size], 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(uniform_random, [batch_size, 1, 1, 1]))
            flips = math_ops.cast(flips, image.dtype)
            flipped_input = reverse(image, [flip_index + 1])
            return flips * flipped_input + (1 - flips) * image

        return _by_rank(image, f_rank3, f_rank4, scope_name)


def random_flip_left_right(image, seed=None) -> Tensor:
    """With probability 1/2 (per image of a batch), mirrors along the width."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None) -> Tensor:
    """With probability 1/2 (per image of a batch), flips along the height."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image, name=None) -> Tensor:
    """Swaps height and width of an image (3-D) or of each image of a batch (4-D)."""
    with name_scope(name, "transpose", [image]):
        image = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(image,
                        lambda: array_ops.transpose(image, [1, 0, 2], name=name),
                        lambda: array_ops.transpose(image, [0, 2, 1, 3], name=name), "transpose")


def _rot90_cases(image, k, scope, batched: bool):
    h, w = (1, 2) if batched else (0, 1)
    perm = [0, 2, 1, 3] if batched else [1, 0, 2]
    cases = [(math_ops.equal(k, 1),
              lambda: array_ops.transpose(reverse(image, [w]), perm)),
             (math_ops.equal(k, 2), lambda: reverse(image, [h, w])),
             (math_ops.equal(k, 3),
              lambda: reverse(array_ops.transpose(image, perm), [w]))]
    result = cond_ops.case(cases, default=lambda: image, exclusive=True, name=scope)
    if batched:
        shape = result.shape
        result.set_shape([shape[0], None, None, shape[3]]
                         if shape.ndims is not None else [None] * 4)
    else:
        depth = image.shape[2] if image.shape.ndims is not None else None
        result.set_shape([None, None, depth])
    return result


def rot90(image, k=1, name=None) -> Tensor:
    """Rotates an image (or each image of a batch) counter-clockwise by ``k`` quarter turns."""
    with name_scope(name, "rot90", [image, k]) as scope:
        image = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.assert_has_rank(0)
        k = math_ops.mod(k, 4)
        return _by_rank(image, lambda: _rot90_cases(image, k, scope, False),
                        lambda: _rot90_cases(image, k, scope, True), "rot90")


# ── crops and pads ───────────────────────────────────────────────────────────────────
def crop_to_bounding_box(image, offset_height, offset_width, target_height,
                         target_width) -> Tensor:
    """The ``[target_height, target_width]`` window at ``(offset_height, offset_width)``."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        assert_ops = _check_at_least_3d(image)
        batch, height, width, depth = _image_dims(image, rank=4)
        assert_ops += _assert(offset_width >= 0, "offset_width must be >= 0.")
        assert_ops += _assert(offset_height >= 0, "offset_height must be >= 0.")
        assert_ops += _assert(target_width > 0, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, "target_height must be > 0.")
        assert_ops += _assert(width >= target_width + offset_width,
                              "width must be >= target + offset.")
        assert_ops += _assert(height >= target_height + offset_height,
                              "height must be >= target + offset.")
        if assert_ops:
            image = control_flow_ops.with_dependencies(assert_ops, image)
        shape = array_ops.shape(image)
        cropped = array_ops.slice(
            image, array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([shape[0], target_height, target_width, shape[3]]))
        cropped.set_shape([None if _is_tensor(i) else i
                           for i in (batch, target_height, target_width, depth)])
        return cropped if is_batch else array_ops.squeeze(cropped, axis=[0])


def pad_to_bounding_box(image, offset_height, offset_width, target_height,
                        target_width) -> Tensor:
    """Zero-pads to ``[target_height, target_width]``, the image at the offsets."""
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        batch, height, width, depth = _image_dims(image, rank=4)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        assert_ops = _check_at_least_3d(image)
        assert_ops += _assert(offset_height >= 0, "offset_height must be >= 0")
        assert_ops += _assert(offset_width >= 0, "offset_width must be >= 0")
        assert_ops += _assert(after_width >= 0, "width must be <= target - offset")
        assert_ops += _assert(after_height >= 0, "height must be <= target - offset")
        if assert_ops:
            image = control_flow_ops.with_dependencies(assert_ops, image)
        paddings = array_ops.reshape(array_ops.stack(
            [0, 0, offset_height, after_height, offset_width, after_width, 0, 0]), [4, 2])
        padded = array_ops.pad(image, paddings)
        padded.set_shape([None if _is_tensor(i) else i
                          for i in (batch, target_height, target_width, depth)])
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


def _max(x, y):
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def resize_image_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """Centrally crops or zero-pads (each dim independently) to the target size."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        assert_ops = _check_at_least_3d(image)
        assert_ops += _assert(target_width > 0, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, "target_height must be > 0.")
        if assert_ops:
            image = control_flow_ops.with_dependencies(assert_ops, image)
        _, height, width, _ = _image_dims(image, rank=4)
        width_diff = target_width - width
        height_diff = target_height - height
        cropped = crop_to_bounding_box(
            image, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
            _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, _max(height_diff // 2, 0),
                                      _max(width_diff // 2, 0), target_height, target_width)
        return resized if is_batch else array_ops.squeeze(resized, axis=[0])


def central_crop(image, central_fraction) -> Tensor:
    """The central ``central_fraction`` (in (0, 1]) of each side of the image(s)."""
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction = constant_value(central_fraction) if _is_tensor(central_fraction) \
            else central_fraction
        if fraction is None:
            raise ValueError("central_crop: central_fraction must be known while the graph "
                             "is built in scopeflow")
        fraction = float(fraction)
        if fraction <= 0.0 or fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if fraction == 1.0:
            return image
        _check_at_least_3d(image)
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {rank}.")
        dims = _image_dims(image, rank)
        hw = dims[-3:-1]
        starts, sizes = [], []
        for d in hw:
            if _is_tensor(d):
                df = math_ops.cast(d, dtypes.float64)
                start = math_ops.cast((df - df * fraction) / 2, dtypes.int32)
            else:
                start = int((float(d) - float(d) * fraction) / 2)
            starts.append(start)
            sizes.append(d - start * 2)
        lead = [0] if rank == 4 else []
        begin = array_ops.stack(lead + starts + [0])
        size = array_ops.stack([-1] * len(lead) + sizes + [-1])
        cropped = array_ops.slice(image, begin, size)
        static = [None if _is_tensor(s) else s for s in sizes]
        cropped.set_shape(image.shape[:-3].concatenate(static).concatenate(image.shape[-1:]))
        return cropped


def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A random window of ``size`` (every dim) from ``value``, with TF's seeded offsets."""
    with name_scope(name, "random_crop", [value, size]) as name:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = logging_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape, size)),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype,
                                           maxval=size.dtype.max, seed=seed) % limit
        return array_ops.slice(value, offset, size, name=name)


# ── standardisation, brightness ──────────────────────────────────────────────────────
def per_image_standardization(image) -> Tensor:
    """``(x - mean) / max(stddev, 1 / sqrt(num_pixels))`` per image, in float32."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        image = math_ops.cast(image, dtype=dtypes.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        with name_scope(None, "reduce_std", [image]):
            centered = math_ops.subtract(image, image_mean)
            variance = math_ops.reduce_mean(math_ops.square(centered), axis=[-1, -2, -3],
                                            keepdims=True)
            stddev = math_ops.sqrt(variance)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        adjusted_stddev = math_ops.maximum(stddev, min_stddev)
        image = math_ops.subtract(image, image_mean)
        return math_ops.divide(image, adjusted_stddev, name=scope)


def _as_float(image):
    """``image`` as TF's adjust_* ops work on it: half and float as they are, any other
    type converted to float32 (scaled, as ``convert_image_dtype``)."""
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def adjust_brightness(image, delta) -> Tensor:
    """Adds ``delta`` to every pixel (in float, back to the image's dtype saturated)."""
    with name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype.base_dtype
        flt_image = _as_float(image)
        adjusted = math_ops.add(flt_image, math_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def random_brightness(image, max_delta, seed=None) -> Tensor:
    """``adjust_brightness`` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


# ── AdjustContrastv2 ─────────────────────────────────────────────────────────────────
def _adjust_contrastv2_shape(images, contrast_factor, **attrs):
    if images.ndims is not None and images.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {images.ndims} (images)")
    if contrast_factor.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {contrast_factor.ndims} "
                         "(contrast_factor)")
    return same_shape(images)


def _adjust_contrastv2_dtype(images, contrast_factor, *, T):
    check_dtype(contrast_factor, (dtypes.float32,), "contrast_factor")
    return check_dtype(images, (dtypes.float16, dtypes.float32), "T")


def _adjust_contrastv2_kernel(images, contrast_factor, *, T):
    if images.ndim < 3:
        raise errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{list(images.shape)}")
    if np.ndim(contrast_factor) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"contrast_factor must be scalar: {np.ndim(contrast_factor)}")
    flt = images.astype(np.float32)
    mean = flt.mean(axis=(-3, -2), keepdims=True, dtype=np.float64).astype(np.float32)
    factor = np.float32(contrast_factor)
    return ((flt - mean) * factor + mean).astype(images.dtype)


adjust_contrastv2_op = OpDef(
    "AdjustContrastv2", shape=_adjust_contrastv2_shape, dtype=_adjust_contrastv2_dtype,
    kernel=_adjust_contrastv2_kernel, attrs={"T": dtypes.float32}, grad=NO_GRADIENT,
    input_names=("images", "contrast_factor"))


def adjust_contrast(images, contrast_factor) -> Tensor:
    """``(x - mean) * contrast_factor + mean``, the mean per image and channel.

    >>> import scopeflow as tf
    >>> tf.Session().run(adjust_contrast([[[1.], [3.]]], 2.)).ravel().tolist()
    [0.0, 4.0]
    """
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype.base_dtype
        flt_images = _as_float(images)
        factor = convert_to_tensor(contrast_factor, dtype=dtypes.float32,
                                   name="contrast_factor")
        adjusted = adjust_contrastv2_op.bind(flt_images, factor,
                                             T=flt_images.dtype.base_dtype, name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """``adjust_contrast`` by a factor drawn uniformly from ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    contrast_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, contrast_factor)

