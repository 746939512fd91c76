"""Op-table rows for tf.image's colour, box, patch and quality ops (scopeflow/ops/image/
color_ops.py, box_ops.py, patch_ops.py), against per-pixel references: Python's colorsys
for the colour spaces, loops over boxes and pixels for the others. TF's own values are
checked in tests/unit/ops/image/test_image_more.py.
"""

from __future__ import annotations

import colorsys

import numpy as np

from .op_table import OpCase, rand

f32 = np.float32


def _per_pixel(x, fn):
    flat = x.reshape(-1, 3).astype(np.float64)
    return np.array([fn(*p) for p in flat]).reshape(x.shape).astype(x.dtype)


def _hue_shift(delta):
    def fn(r, g, b):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb((h + delta) % 1.0, s, v)
    return fn


def _saturate(scale):
    def fn(r, g, b):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb(h, min(1.0, max(0.0, s * scale)), v)
    return fn


_RGB = rand(2, 3, 4, 3, low=0.05, high=1.0)

ROWS = [
    OpCase("RGBToHSV", lambda tf, x: tf.image.rgb_to_hsv(x),
           lambda x: _per_pixel(x, colorsys.rgb_to_hsv), [_RGB], rtol=1e-5, atol=1e-6,
           id="RGBToHSV"),
    OpCase("RGBToHSV", lambda tf, x: tf.image.rgb_to_hsv(x),
           lambda x: _per_pixel(x, colorsys.rgb_to_hsv), [_RGB.astype(np.float64)],
           id="RGBToHSV-f64"),
    OpCase("HSVToRGB", lambda tf, x: tf.image.hsv_to_rgb(x),
           lambda x: _per_pixel(x, colorsys.hsv_to_rgb), [rand(3, 5, 3, low=0, high=1)],
           rtol=1e-5, atol=1e-6, id="HSVToRGB"),
    OpCase("AdjustHue", lambda tf, x: tf.image.adjust_hue(x, 0.3),
           lambda x: _per_pixel(x, _hue_shift(0.3)), [_RGB], rtol=1e-5, atol=1e-5,
           id="AdjustHue"),
    OpCase("AdjustHue", lambda tf, x: tf.image.adjust_hue(x, -0.85),
           lambda x: _per_pixel(x, _hue_shift(-0.85)), [_RGB], rtol=1e-5, atol=1e-5,
           id="AdjustHue-negative"),
    OpCase("AdjustSaturation", lambda tf, x: tf.image.adjust_saturation(x, 0.4),
           lambda x: _per_pixel(x, _saturate(0.4)), [_RGB], rtol=1e-5, atol=1e-5,
           id="AdjustSaturation"),
    OpCase("AdjustSaturation", lambda tf, x: tf.image.adjust_saturation(x, 2.5),
           lambda x: _per_pixel(x, _saturate(2.5)), [_RGB], rtol=1e-5, atol=1e-5,
           id="AdjustSaturation-clipped"),
]
