"""``tf.image``'s colour spaces and colour adjustments, as TF1 builds them.

Ops: ``RGBToHSV`` (with TF's piecewise gradient, image_grad.py), ``HSVToRGB`` (not
differentiable, as TF), ``AdjustHue`` and ``AdjustSaturation`` (no gradient registered in
TF). Their kernels follow TF's CPU kernels in float32: colorspace_op.h for the conversion
ops (``norm = (1 / range) * (1 / 6)``, hue wrapped into [0, 1)), adjust_hue_op.cc's
hue-category arithmetic (``h`` in [0, 6), ``delta * 6`` added and wrapped) and
adjust_saturation_op.cc's own HSV round trip (its ``2 / 6`` and ``4 / 6`` offsets added in
double, as C++ promotes them). YIQ and YUV are ``tensordot`` composites with TF's
matrices; ``adjust_gamma`` is ``gain * image ** gamma``.
"""

from __future__ import annotations

import collections
import functools

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.image.image_transform_ops import convert_image_dtype
from scopeflow.ops.logging import logging_ops
from scopeflow.ops.math.matmul_ops import tensordot
from scopeflow.ops.random import random_ops

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv",
           "yuv_to_rgb", "adjust_hue", "adjust_saturation", "adjust_gamma", "random_hue",
           "random_saturation"]

_F = (dtypes.float16, dtypes.float32, dtypes.float64)
f32 = np.float32


def _rgb_shape(images, *rest, **attrs):
    """At least rank 1 with a last dimension of 3 (TF's shape functions of these ops)."""
    if images.ndims is not None:
        if images.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {images.ndims}")
        last = images.as_list()[-1]
        if last is not None and last != 3:
            raise ValueError(f"Dimension must be 3 but is {last}")
        return TensorShape(images.as_list()[:-1] + [3])
    return TensorShape(None)


def _check_rgb(images):
    if images.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, f"input must be at least 1D{list(images.shape)}")
    if images.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"input must have 3 channels but input only has {images.shape[-1]} "
                        "channels.")


# ── RGBToHSV ─────────────────────────────────────────────────────────────────────────
def _rgb_to_hsv_kernel(images, *, T):
    _check_rgb(images)
    dt = images.dtype
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    # TF's channel max/min reductions (Eigen's reducers) skip a NaN channel.
    v = np.fmax(np.fmax(r, g), b)
    rng = (v - np.fmin(np.fmin(r, g), b)).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, dt.type(0))
        norm = (dt.type(1) / rng) * (dt.type(1) / dt.type(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + dt.type(2) / dt.type(6),
                              norm * (r - g) + dt.type(4) / dt.type(6)))
    h = np.where(rng > 0, h, dt.type(0))
    h = np.where(h < 0, h + dt.type(1), h)
    return np.stack([h, s, v], axis=-1).astype(dt)


def _color_dtype(images, *, T):
    return check_dtype(images, _F, "images")


rgb_to_hsv_op = OpDef("RGBToHSV", shape=_rgb_shape, dtype=_color_dtype,
                      kernel=_rgb_to_hsv_kernel, attrs={"T": dtypes.float32},
                      input_names=("images",))


def _reciprocal(x):
    """TF's ``_CustomReciprocal``: ``1 / x`` with 0 where ``x`` is 0."""
    return math_ops.div_no_nan(math_ops.cast(1.0, x.dtype), x)


_ChannelExtremes = collections.namedtuple(
    "_ChannelExtremes", ["red_biggest", "green_biggest", "blue_biggest", "red_smallest",
                         "green_smallest", "blue_smallest"])


def _channel_extremes(reds, greens, blues, c):
    """0/1 masks of the channel that is each pixel's maximum and minimum, ties broken
    R > G > B as TF's ``_RGBToHSVGrad`` breaks them."""
    land = math_ops.logical_and
    return _ChannelExtremes(
        red_biggest=c(land(reds >= blues, reds >= greens)),
        green_biggest=c(land(greens > reds, greens >= blues)),
        blue_biggest=c(land(blues > reds, blues > greens)),
        red_smallest=c(land(reds < blues, reds < greens)),
        green_smallest=c(land(greens <= reds, greens < blues)),
        blue_smallest=c(land(blues <= reds, blues <= greens)))


def _saturation_partials(reds, greens, blues, extremes, c):
    """``(dS/dR, dS/dG, dS/dB)``: ``S = (max - min) / max`` differentiated where a channel
    is the maximum and where it is the minimum."""
    red_biggest, green_biggest, blue_biggest, red_smallest, green_smallest, \
        blue_smallest = extremes
    sq = math_ops.square
    ds_dr = c(reds > 0) * math_ops.add(
        red_biggest * math_ops.add(green_smallest * greens, blue_smallest * blues)
        * _reciprocal(sq(reds)),
        red_smallest * -1 * _reciprocal((green_biggest * greens) + (blue_biggest * blues)))
    ds_dg = c(greens > 0) * math_ops.add(
        green_biggest * math_ops.add(red_smallest * reds, blue_smallest * blues)
        * _reciprocal(sq(greens)),
        green_smallest * -1 * _reciprocal((red_biggest * reds) + (blue_biggest * blues)))
    ds_db = c(blues > 0) * math_ops.add(
        blue_biggest * math_ops.add(green_smallest * greens, red_smallest * reds)
        * _reciprocal(sq(blues)),
        blue_smallest * -1 * _reciprocal((green_biggest * greens) + (red_biggest * reds)))
    return ds_dr, ds_dg, ds_db


def _hue_partials(reds, greens, blues, saturation, value, extremes, c):
    """``(dH/dR, dH/dG, dH/dB)``: TF's five terms per channel (in degrees, hence the 60s,
    scaled back to [0, 1] by 360), each one maximum/minimum case."""
    red_biggest, green_biggest, blue_biggest, red_smallest, green_smallest, \
        blue_smallest = extremes
    sq = math_ops.square
    dh_dr_1 = 60 * (c(reds > 0) * red_biggest * -1 * (greens - blues)
                    * _reciprocal(sq(saturation)) * _reciprocal(sq(value)))
    dh_dr_2 = 60 * (c(greens > 0) * green_biggest * red_smallest * (blues - greens)
                    * _reciprocal(sq(reds - greens)))
    dh_dr_3 = 60 * (c(greens > 0) * green_biggest * blue_smallest * -1
                    * _reciprocal(greens - blues))
    dh_dr_4 = 60 * (c(blues > 0) * blue_biggest * red_smallest * (blues - greens)
                    * _reciprocal(sq(blues - reds)))
    dh_dr_5 = 60 * (c(blues > 0) * blue_biggest * green_smallest
                    * _reciprocal(blues - greens))
    dh_dr = (dh_dr_1 + dh_dr_2 + dh_dr_3 + dh_dr_4 + dh_dr_5) / 360
    dh_dg_1 = 60 * (c(greens > 0) * green_biggest * -1 * (blues - reds)
                    * _reciprocal(sq(saturation)) * _reciprocal(sq(value)))
    dh_dg_2 = 60 * (c(reds > 0) * red_biggest * green_smallest * (reds - blues)
                    * _reciprocal(sq(reds - greens)))
    dh_dg_3 = 60 * (c(reds > 0) * red_biggest * blue_smallest
                    * _reciprocal(reds - blues))
    dh_dg_4 = 60 * (c(blues > 0) * blue_biggest * green_smallest * (reds - blues)
                    * _reciprocal(sq(blues - greens)))
    dh_dg_5 = 60 * (c(blues > 0) * blue_biggest * red_smallest * -1
                    * _reciprocal(blues - reds))
    dh_dg = (dh_dg_1 + dh_dg_2 + dh_dg_3 + dh_dg_4 + dh_dg_5) / 360
    dh_db_1 = 60 * (c(blues > 0) * blue_biggest * -1 * (reds - greens)
                    * _reciprocal(sq(saturation)) * _reciprocal(sq(value)))
    dh_db_2 = 60 * (c(reds > 0) * red_biggest * blue_smallest * (greens - reds)
                    * _reciprocal(sq(reds - blues)))
    dh_db_3 = 60 * (c(reds > 0) * red_biggest * green_smallest * -1
                    * _reciprocal(reds - greens))
    dh_db_4 = 60 * (c(greens > 0) * green_biggest * blue_smallest * (greens - reds)
                    * _reciprocal(sq(greens - blues)))
    dh_db_5 = 60 * (c(greens > 0) * green_biggest * red_smallest
                    * _reciprocal(greens - reds))
    dh_db = (dh_db_1 + dh_db_2 + dh_db_3 + dh_db_4 + dh_db_5) / 360
    return dh_dr, dh_dg, dh_db


@rgb_to_hsv_op.def_grad
def _rgb_to_hsv_grad(op, grad):
    """TF's ``_RGBToHSVGrad``: the partial derivatives of H, S and V, one case per channel
    that is the maximum or the minimum (ties broken R > G > B), summed."""
    x, y = op.inputs[0], op.outputs[0]
    reds, greens, blues = x[..., 0], x[..., 1], x[..., 2]
    saturation, value = y[..., 1], y[..., 2]
    # Every comparison is cast to x's dtype afresh, as TF's gradient builds it.
    c = functools.partial(math_ops.cast, dtype=x.dtype)
    extremes = _channel_extremes(reds, greens, blues, c)
    dv_dr, dv_dg, dv_db = extremes.red_biggest, extremes.green_biggest, extremes.blue_biggest
    ds_dr, ds_dg, ds_db = _saturation_partials(reds, greens, blues, extremes, c)
    dh_dr, dh_dg, dh_db = _hue_partials(reds, greens, blues, saturation, value, extremes, c)
    dv_drgb = array_ops.stack([grad[..., 2] * dv_dr, grad[..., 2] * dv_dg,
                               grad[..., 2] * dv_db], axis=-1)
    ds_drgb = array_ops.stack([grad[..., 1] * ds_dr, grad[..., 1] * ds_dg,
                               grad[..., 1] * ds_db], axis=-1)
    dh_drgb = array_ops.stack([grad[..., 0] * dh_dr, grad[..., 0] * dh_dg,
                               grad[..., 0] * dh_db], axis=-1)
    return [math_ops.add(math_ops.add(dv_drgb, ds_drgb), dh_drgb)]


# ── HSVToRGB ─────────────────────────────────────────────────────────────────────────
def _hsv_to_rgb_kernel(images, *, T):
    _check_rgb(images)
    dt = images.dtype
    one, two = dt.type(1), dt.type(2)
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * dt.type(6)
    dr = np.clip(np.abs(dh - dt.type(3)) - one, 0, 1)
    dg = np.clip(-np.abs(dh - two) + two, 0, 1)
    db = np.clip(-np.abs(dh - dt.type(4)) + two, 0, 1)
    one_s = -s + one
    out = [(one_s + s * d) * v for d in (dr, dg, db)]
    return np.stack(out, axis=-1).astype(dt)


hsv_to_rgb_op = OpDef("HSVToRGB", shape=_rgb_shape, dtype=_color_dtype,
                      kernel=_hsv_to_rgb_kernel, attrs={"T": dtypes.float32},
                      input_names=("images",), grad=None)  # TF: NotDifferentiable


def rgb_to_hsv(images, name=None) -> Tensor:
    """RGB to HSV (``RGBToHSV``), every channel in [0, 1] for inputs in [0, 1].

    >>> import scopeflow as tf
    >>> tf.Session().run(rgb_to_hsv([[1., 0., 0.]])).tolist()
    [[0.0, 1.0, 1.0]]
    """
    images = convert_to_tensor(images, name="images")
    return rgb_to_hsv_op.bind(images, name=name, T=images.dtype.base_dtype)


def hsv_to_rgb(images, name=None) -> Tensor:
    """HSV to RGB (``HSVToRGB``), the inverse of ``rgb_to_hsv``; no gradient (as TF)."""
    images = convert_to_tensor(images, name="images")
    return hsv_to_rgb_op.bind(images, name=name, T=images.dtype.base_dtype)


# ── YIQ and YUV: matrix composites ───────────────────────────────────────────────────
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images, matrix):
    """``tensordot(images, kernel, [[ndims - 1], [0]])``, TF's kernel constant named
    ``kernel`` in the images' dtype."""
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    ndims = images.shape.ndims
    if ndims is None:
        raise ValueError("Cannot convert a partially known TensorShape "
                         "<unknown> to a Tensor: the images' rank must be known")
    return tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images) -> Tensor:
    """RGB to YIQ (TF's 3x3 matrix); inputs are expected in [0, 1]."""
    return _color_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images) -> Tensor:
    """YIQ to RGB (the inverse matrix)."""
    return _color_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images) -> Tensor:
    """RGB to YUV (TF's 3x3 matrix); inputs are expected in [0, 1]."""
    return _color_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images) -> Tensor:
    """YUV to RGB (the inverse matrix)."""
    return _color_matrix(images, _YUV_TO_RGB)


# ── AdjustHue ────────────────────────────────────────────────────────────────────────
def _adjust_shape(images, delta, **attrs):
    if images.ndims is not None and images.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {images.ndims}")
    if delta.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {delta.ndims}")
    return images


def _adjust_dtype(images, delta, *, T):
    check_dtype(delta, (dtypes.float32,), "delta")
    return check_dtype(images, (dtypes.float16, dtypes.float32), "images")


def _check_adjust(images, factor, what):
    if images.ndim < 3:
        raise errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{list(images.shape)}")
    if np.ndim(factor) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be scalar: {list(np.shape(factor))}")
    if images.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"input must have 3 channels but instead has {images.shape[-1]} "
                        "channels.")


def _adjust_hue_kernel(images, delta, *, T):
    _check_adjust(images, delta, "delta")
    x = images.astype(f32)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # adjust_hue_op.cc's six hue categories, its (max, mid, min) for each.
    r_lt_g = r < g
    cat = np.where(r_lt_g, np.where(b < r, 1, np.where(b > g, 3, 2)),
                   np.where(b < g, 0, np.where(b > r, 4, 5)))
    v_max = np.choose(cat, [r, g, g, b, b, r])
    v_mid = np.choose(cat, [g, r, b, g, r, b])
    v_min = np.choose(cat, [b, b, r, r, g, g])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (v_mid - v_min) / (v_max - v_min)
    increase = (cat & 1) == 0
    h = np.where(increase, cat + ratio, cat + (f32(1) - ratio)).astype(f32)
    h = np.where(v_max == v_min, f32(0), h)
    h = (h + f32(np.float32(delta) * f32(6.0))).astype(f32)
    six = f32(6)
    # The kernel's while loops: add or subtract 6 until h is in [0, 6) (an infinite h,
    # on which TF's loops never end, is left as it is).
    finite = np.isfinite(h)
    while np.any((h < 0) & finite):
        h = np.where((h < 0) & finite, h + six, h)
    while np.any((h >= six) & finite):
        h = np.where((h >= six) & finite, h - six, h)
    with np.errstate(invalid="ignore"):
        hc = np.where(finite, h, f32(5)).astype(np.int64)
        ratio = h - hc.astype(f32)
        ratio = np.where((hc & 1) == 0, ratio, f32(1) - ratio)
        mid = v_min + ratio * (v_max - v_min)
    # A NaN hue falls to the kernel's switch default (category 5), its mid NaN.
    hc = np.minimum(hc, 5)
    out = np.stack([np.choose(hc, [v_max, mid, v_min, v_min, mid, v_max]),
                    np.choose(hc, [mid, v_max, v_max, mid, v_min, v_min]),
                    np.choose(hc, [v_min, v_min, mid, v_max, v_max, mid])], axis=-1)
    return out.astype(images.dtype)


adjust_hue_op = OpDef("AdjustHue", shape=_adjust_shape, dtype=_adjust_dtype,
                      kernel=_adjust_hue_kernel, attrs={"T": dtypes.float32},
                      input_names=("images", "delta"), grad=NO_GRADIENT)  # none in TF


# ── AdjustSaturation ─────────────────────────────────────────────────────────────────
def _adjust_saturation_kernel(images, scale, *, T):
    _check_adjust(images, scale, "scale")
    x = images.astype(f32)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    vv = np.maximum(r, np.maximum(g, b))
    rng = (vv - np.minimum(r, np.minimum(g, b))).astype(f32)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(vv > 0, rng / vv, f32(0)).astype(f32)
        norm = (f32(1.0) / (f32(6.0) * rng)).astype(f32)
        hh = np.where(r == vv, norm * (g - b),
                      np.where(g == vv, (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
                               (norm * (r - g)).astype(np.float64) + 4.0 / 6.0)).astype(f32)
    hh = np.where(rng <= 0, f32(0), hh)
    hh = np.where(hh < 0, hh + f32(1), hh).astype(f32)
    s = np.minimum(f32(1.0), np.maximum(f32(0.0), s * f32(scale))).astype(f32)
    # adjust_saturation_op.cc's hsv_to_rgb: chroma c, offset m, the category of h * 6.
    c = s * vv
    m = vv - c
    dh = (hh * f32(6)).astype(f32)
    cat = dh.astype(np.int64)
    fmodu = np.where(dh <= 0, dh + f32(2), dh)
    fmodu = np.fmod(fmodu, f32(2)).astype(f32)
    xx = c * (f32(1) - np.abs(fmodu - f32(1)))
    zero = np.zeros_like(c)
    cat = np.where((cat >= 0) & (cat <= 5), cat, 6)
    rr = np.choose(cat, [c, xx, zero, zero, xx, c, zero])
    gg = np.choose(cat, [xx, c, c, xx, zero, zero, zero])
    bb = np.choose(cat, [zero, zero, xx, c, c, xx, zero])
    return np.stack([rr + m, gg + m, bb + m], axis=-1).astype(images.dtype)


def _adjust_saturation_dtype(images, scale, *, T):
    check_dtype(scale, (dtypes.float32,), "scale")
    return check_dtype(images, (dtypes.float16, dtypes.float32), "images")


adjust_saturation_op = OpDef("AdjustSaturation", shape=_adjust_shape,
                             dtype=_adjust_saturation_dtype,
                             kernel=_adjust_saturation_kernel, attrs={"T": dtypes.float32},
                             input_names=("images", "scale"), grad=NO_GRADIENT)


def _as_float(image):
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def adjust_hue(image, delta, name=None) -> Tensor:
    """Rotates the hue of RGB images by ``delta`` (a fraction of the colour circle), via
    TF's ``AdjustHue`` op in float; other dtypes are converted there and back."""
    with name_scope(name, "adjust_hue", [image]) as name:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype.base_dtype
        flt_image = _as_float(image)
        rgb_altered = adjust_hue_op.bind(flt_image, _float_arg(delta),
                                         T=flt_image.dtype.base_dtype)
        return convert_image_dtype(rgb_altered, orig_dtype)


def _float_arg(value):
    """A float32 scalar input converted inside the op's scope (TF's ``AdjustHue/delta``)."""
    return value if isinstance(value, Tensor) else np.float32(value)


def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """Multiplies the saturation of RGB images by ``saturation_factor`` (clipped to
    [0, 1]), via TF's ``AdjustSaturation`` op."""
    with name_scope(name, "adjust_saturation", [image]) as name:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype.base_dtype
        flt_image = _as_float(image)
        adjusted = adjust_saturation_op.bind(flt_image,
                                             _float_arg(saturation_factor),
                                             T=flt_image.dtype.base_dtype)
        return convert_image_dtype(adjusted, orig_dtype)


def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """``gain * image ** gamma`` in float, converted back to the image's dtype saturated;
    a negative Python ``gamma`` raises ValueError, a tensor one is asserted at run time."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype.base_dtype
        flt_image = _as_float(image)
        if isinstance(gamma, Tensor):
            from_check = logging_ops.Assert(
                gamma >= 0, ["Gamma should be a non-negative real number."])
            gamma = control_flow_ops.with_dependencies([from_check], gamma)
        elif gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
        adjusted_img = gain * flt_image ** gamma
        return convert_image_dtype(adjusted_img, orig_dtype, saturate=True)


def random_hue(image, max_delta, seed=None) -> Tensor:
    """``adjust_hue`` by a delta drawn uniformly from ``[-max_delta, max_delta)``
    (``max_delta`` in [0, 0.5]), seeded as TF's ``random_uniform``."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """``adjust_saturation`` by a factor drawn uniformly from ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    saturation_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, saturation_factor)
