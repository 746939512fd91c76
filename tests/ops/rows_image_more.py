"""Op-table rows for tf.image's colour, box, patch and quality ops (scopeflow/ops/image/
color_ops.py, box_ops.py, patch_ops.py), against per-pixel references: Python's colorsys
for the colour spaces, loops over boxes and pixels for the others. TF's own values are
checked in tests/unit/ops/image/test_image_more.py.
"""

from __future__ import annotations

import colorsys

import numpy as np

from scopeflow.ops.image import nms_ops

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


# ── non-max suppression: a plain greedy loop over sorted boxes ───────────────────────
def _iou(a, b):
    ay0, ay1 = sorted([a[0], a[2]])
    ax0, ax1 = sorted([a[1], a[3]])
    by0, by1 = sorted([b[0], b[2]])
    bx0, bx1 = sorted([b[1], b[3]])
    area_a, area_b = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ay1, by1) - max(ay0, by0), 0) * max(min(ax1, bx1) - max(ax0, bx0), 0)
    return inter / (area_a + area_b - inter)


def ref_nms(boxes, scores, size, iou_threshold, score_threshold=-np.inf, sigma=0.0):
    """Greedy NMS; with ``sigma`` Gaussian soft-NMS (each candidate's score decayed by
    every box selected since it was last looked at, then requeued)."""
    cands = [[float(s), i, 0] for i, s in enumerate(scores) if s > score_threshold]
    selected, kept = [], []
    while cands and len(selected) < size:
        cands.sort(key=lambda c: (-c[0], c[1]))
        score, i, begin = cands.pop(0)
        original, hard = score, False
        for j in reversed(range(begin, len(selected))):
            o = _iou(boxes[i], boxes[selected[j]])
            if sigma > 0:
                score *= np.exp(-0.5 * o * o / sigma)
            elif o > iou_threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            kept.append(score)
        elif score > score_threshold:
            cands.append([score, i, len(selected)])
    return selected, kept


_NMS_BOXES = np.concatenate([rand(12, 2, low=0, high=4, seed=4),
                             rand(12, 2, low=0, high=4, seed=5) + 1.5], axis=1)
_NMS_SCORES = rand(12, low=0, high=1, seed=6)

ROWS += [
    OpCase("NonMaxSuppressionV3",
           lambda tf, b, s: tf.image.non_max_suppression(b, s, 8, 0.3),
           lambda b, s: np.array(ref_nms(b, s, 8, 0.3)[0], np.int32),
           [_NMS_BOXES, _NMS_SCORES], id="NonMaxSuppressionV3"),
    OpCase("NonMaxSuppressionV3",
           lambda tf, b, s: tf.image.non_max_suppression(b, s, 3, 0.6, 0.2),
           lambda b, s: np.array(ref_nms(b, s, 3, 0.6, 0.2)[0], np.int32),
           [_NMS_BOXES, _NMS_SCORES], id="NonMaxSuppressionV3-score-threshold"),
    OpCase("NonMaxSuppressionV4",
           lambda tf, b, s: list(nms_ops.non_max_suppression_padded_v4(
               b, s, 20, 0.4, pad_to_max_output_size=True)),
           lambda b, s: [np.pad(np.array(ref_nms(b, s, 20, 0.4)[0], np.int32),
                                (0, 20 - len(ref_nms(b, s, 20, 0.4)[0]))),
                         np.int32(len(ref_nms(b, s, 20, 0.4)[0]))],
           [_NMS_BOXES, _NMS_SCORES], id="NonMaxSuppressionV4-padded"),
    OpCase("NonMaxSuppressionV5",
           lambda tf, b, s: list(tf.image.non_max_suppression_with_scores(
               b, s, 10, 0.5, 0.1, soft_nms_sigma=0.4)),
           lambda b, s: [np.array(r, d) for r, d in
                         zip(ref_nms(b, s, 10, 0.5, 0.1, 0.4), (np.int32, f32))],
           [_NMS_BOXES, _NMS_SCORES], rtol=1e-5, id="NonMaxSuppressionV5-soft"),
    OpCase("NonMaxSuppressionWithOverlaps",
           lambda tf, o, s: tf.image.non_max_suppression_overlaps(o, s, 5, 0.4),
           lambda o, s: np.array(_ref_overlaps(o, s, 5, 0.4), np.int32),
           [rand(6, 6, low=0, high=1, seed=8), _NMS_SCORES[:6]], id="NMSWithOverlaps"),
    OpCase("CombinedNonMaxSuppression",
           lambda tf, b, s: list(tf.image.combined_non_max_suppression(b, s, 3, 5, 0.3)),
           lambda b, s: _ref_combined(b, s, 3, 5, 0.3),
           [rand(2, 9, 1, 4, low=-0.2, high=1.2, seed=9), rand(2, 9, 3, low=0, high=1)],
           id="CombinedNonMaxSuppression"),
]


def _ref_overlaps(overlaps, scores, size, threshold):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    selected = []
    for i in order:
        if len(selected) < size and all(overlaps[i, j] <= threshold for j in selected):
            selected.append(i)
    return selected


def _ref_combined(boxes, scores, per_class, total, iou_threshold):
    batch, _, _, _ = boxes.shape
    out = [np.zeros((batch, total, 4), f32), np.zeros((batch, total), f32),
           np.zeros((batch, total), f32), np.zeros(batch, np.int32)]
    for n in range(batch):
        found = []
        for c in range(scores.shape[2]):
            picked, kept = ref_nms(boxes[n, :, 0], scores[n, :, c], per_class, iou_threshold)
            found += [(s, c, i) for i, s in zip(picked, kept)]
        found.sort(key=lambda r: -r[0])
        found = found[:total]
        out[3][n] = len(found)
        for k, (s, c, i) in enumerate(found):
            out[0][n, k] = np.clip(boxes[n, i, 0], 0, 1)
            out[1][n, k], out[2][n, k] = s, c
    return out
