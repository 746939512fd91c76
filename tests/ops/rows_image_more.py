"""Op-table rows for tf.image's colour, box, patch and quality ops (scopeflow/ops/image/
color_ops.py, box_ops.py, patch_ops.py), against per-pixel references: Python's colorsys
for the colour spaces, loops over boxes and pixels for the others. TF's own values are
checked in tests/unit/ops/image/test_image_more.py.
"""

from __future__ import annotations

import colorsys
import importlib.util
import io

import numpy as np

from scopeflow.ops.image import nms_ops
from scopeflow.ops.image.box_ops import crop_and_resize_grad_boxes_op, crop_and_resize_grad_image_op

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


# ── CropAndResize and its gradients: per-sample loops ────────────────────────────────
def _crop_coords(lo, hi, size, crop):
    if crop > 1:
        return [lo * (size - 1) + i * (hi - lo) * (size - 1) / (crop - 1) for i in range(crop)]
    return [0.5 * (lo + hi) * (size - 1)]


def _crop_samples(image, boxes, box_ind, crop):
    """Yields (box, i, j, image index, y, x) for every in-image sample."""
    _, h, w, _ = image.shape
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        for i, y in enumerate(_crop_coords(y1, y2, h, crop[0])):
            for j, x in enumerate(_crop_coords(x1, x2, w, crop[1])):
                if 0 <= y <= h - 1 and 0 <= x <= w - 1:
                    yield b, i, j, box_ind[b], y, x


def ref_crop(image, boxes, box_ind, crop, method="bilinear", extrapolation=0.0):
    out = np.full((len(boxes), *crop, image.shape[3]), extrapolation, np.float64)
    img = image.astype(np.float64)
    for b, i, j, n, y, x in _crop_samples(image, boxes, box_ind, crop):
        if method == "nearest":
            out[b, i, j] = img[n, int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
            continue
        y0, x0 = int(np.floor(y)), int(np.floor(x))
        y1, x1 = int(np.ceil(y)), int(np.ceil(x))
        dy, dx = y - y0, x - x0
        top = img[n, y0, x0] * (1 - dx) + img[n, y0, x1] * dx
        bottom = img[n, y1, x0] * (1 - dx) + img[n, y1, x1] * dx
        out[b, i, j] = top * (1 - dy) + bottom * dy
    return out.astype(f32)


def ref_crop_grad_image(grads, boxes, box_ind, image_shape):
    out = np.zeros(image_shape, np.float64)
    crop = grads.shape[1:3]
    for b, i, j, n, y, x in _crop_samples(np.zeros(image_shape), boxes, box_ind, crop):
        y0, x0 = int(np.floor(y)), int(np.floor(x))
        y1, x1 = int(np.ceil(y)), int(np.ceil(x))
        dy, dx = y - y0, x - x0
        g = grads[b, i, j].astype(np.float64)
        out[n, y0, x0] += (1 - dy) * (1 - dx) * g
        out[n, y0, x1] += (1 - dy) * dx * g
        out[n, y1, x0] += dy * (1 - dx) * g
        out[n, y1, x1] += dy * dx * g
    return out.astype(f32)


def ref_crop_grad_boxes(grads, image, boxes, box_ind):
    """The chain rule through the bilinear sample: d(sample)/dy times dy/dy1 etc."""
    _, h, w, _ = image.shape
    crop = grads.shape[1:3]
    out = np.zeros((len(boxes), 4), np.float64)
    img = image.astype(np.float64)
    for b, i, j, n, y, x in _crop_samples(image, boxes, box_ind, crop):
        y0, x0 = int(np.floor(y)), int(np.floor(x))
        y1, x1 = int(np.ceil(y)), int(np.ceil(x))
        dy, dx = y - y0, x - x0
        tl, tr, bl, br = img[n, y0, x0], img[n, y0, x1], img[n, y1, x0], img[n, y1, x1]
        gy = np.sum(((1 - dx) * (bl - tl) + dx * (br - tr)) * grads[b, i, j])
        gx = np.sum(((1 - dy) * (tr - tl) + dy * (br - bl)) * grads[b, i, j])
        ry = i / (crop[0] - 1) if crop[0] > 1 else 0.5
        rx = j / (crop[1] - 1) if crop[1] > 1 else 0.5
        wy0 = (h - 1) * (1 - ry) if crop[0] > 1 else 0.5 * (h - 1)
        wx1 = (w - 1) * (1 - rx) if crop[1] > 1 else 0.5 * (w - 1)
        out[b] += [gy * wy0, gx * wx1, gy * ry * (h - 1) if crop[0] > 1 else gy * wy0,
                   gx * rx * (w - 1) if crop[1] > 1 else gx * wx1]
    return out.astype(f32)


_CROP_IMG = rand(2, 6, 7, 2, seed=11)
_CROP_BOXES = np.array([[0.1, 0.15, 0.62, 0.7], [0.05, 0.33, 0.93, 0.81],
                        [0.52, -0.21, 1.17, 0.46]], np.float32)
_CROP_IND = np.array([0, 1, 0], np.int32)
_CROP_GRADS = rand(3, 4, 5, 2, seed=12)

ROWS += [
    OpCase("CropAndResize",
           lambda tf, im, b, i: tf.image.crop_and_resize(im, b, i, [4, 5]),
           lambda im, b, i: ref_crop(im, b, i, (4, 5)), [_CROP_IMG, _CROP_BOXES, _CROP_IND],
           rtol=1e-5, atol=1e-5, id="CropAndResize-bilinear"),
    OpCase("CropAndResize",
           lambda tf, im, b, i: tf.image.crop_and_resize(im, b, i, [3, 1], method="nearest",
                                                         extrapolation_value=-2.0),
           lambda im, b, i: ref_crop(im, b, i, (3, 1), "nearest", -2.0),
           [_CROP_IMG, _CROP_BOXES, _CROP_IND], check_grad=False, id="CropAndResize-nearest"),
    OpCase("CropAndResizeGradImage",
           lambda tf, g, b, i: crop_and_resize_grad_image_op.bind(g, b, i, [2, 6, 7, 2]),
           lambda g, b, i: ref_crop_grad_image(g, b, i, (2, 6, 7, 2)),
           [_CROP_GRADS, _CROP_BOXES, _CROP_IND], rtol=1e-5, atol=1e-5,
           id="CropAndResizeGradImage"),
    OpCase("CropAndResizeGradBoxes",
           lambda tf, g, im, b, i: crop_and_resize_grad_boxes_op.bind(g, im, b, i),
           ref_crop_grad_boxes, [_CROP_GRADS, _CROP_IMG, _CROP_BOXES, _CROP_IND],
           rtol=1e-4, atol=1e-4, id="CropAndResizeGradBoxes"),
]


# ── DrawBoundingBoxes, ExtractGlimpse ────────────────────────────────────────────────
def ref_draw(images, boxes, colors):
    out = images.copy()
    _, h, w, d = images.shape
    for n in range(len(images)):
        for k, (y0, x0, y1, x1) in enumerate(boxes[n]):
            c = colors[k % len(colors)][:d]
            r0, r1 = int(y0 * (h - 1)), int(y1 * (h - 1))
            c0, c1 = int(x0 * (w - 1)), int(x1 * (w - 1))
            for r in range(h):
                for col in range(w):
                    inside = r0 <= r <= r1 and c0 <= col <= c1
                    if inside and (r in (r0, r1) or col in (c0, c1)):
                        out[n, r, col] = c
    return out


_DRAW_IMG = rand(2, 8, 9, 3, low=0, high=1, seed=13)
_DRAW_BOXES = np.array([[[0.1, 0.2, 0.5, 0.9], [0.3, 0.0, 1.0, 0.5]],
                        [[0.0, 0.0, 1.0, 1.0], [0.45, 0.45, 0.6, 0.6]]], np.float32)
_TABLE = [[1, 1, 0], [0, 0, 1]]

ROWS += [
    OpCase("DrawBoundingBoxes", lambda tf, im, b: tf.image.draw_bounding_boxes(im, b),
           lambda im, b: ref_draw(im, b, _TABLE), [_DRAW_IMG, _DRAW_BOXES],
           id="DrawBoundingBoxes"),
    OpCase("DrawBoundingBoxesV2",
           lambda tf, im, b: tf.image.draw_bounding_boxes(im, b, colors=[[0.2, 0.4, 0.6]]),
           lambda im, b: ref_draw(im, b, [[0.2, 0.4, 0.6]]), [_DRAW_IMG, _DRAW_BOXES],
           id="DrawBoundingBoxesV2"),
    OpCase("ExtractGlimpse",
           lambda tf, im: tf.image.extract_glimpse(im, [3, 4], [[2.0, 4.0], [5.0, 2.0]],
                                                   centered=False, normalized=False),
           lambda im: np.stack([im[0, 0:3, 2:6], im[1, 3:6, 0:4]]), [rand(2, 8, 9, 2)],
           id="ExtractGlimpse-pixels"),
]


# ── ExtractImagePatches, ExtractVolumePatches: loops over windows ────────────────────
def ref_patches(x, ksizes, strides, rates, padding):
    """Each output position's window, zero outside the input, in (k..., channel) order."""
    spatial = x.shape[1:-1]
    windows = [k + (k - 1) * (r - 1) for k, r in zip(ksizes, rates)]
    if padding == "VALID":
        outs = [(d - w) // s + 1 for d, w, s in zip(spatial, windows, strides)]
        before = [0] * len(spatial)
    else:
        outs = [-(-d // s) for d, s in zip(spatial, strides)]
        before = [max((o - 1) * s + w - d, 0) // 2
                  for o, s, w, d in zip(outs, strides, windows, spatial)]
    out = np.zeros((x.shape[0], *outs, int(np.prod(ksizes)) * x.shape[-1]), x.dtype)
    for pos in np.ndindex(*outs):
        parts = []
        for kpos in np.ndindex(*ksizes):
            src = [p * s - b + k * r for p, s, b, k, r in zip(pos, strides, before, kpos, rates)]
            inside = all(0 <= c < d for c, d in zip(src, spatial))
            parts.append(x[(slice(None), *src)] if inside else np.zeros((x.shape[0], x.shape[-1]),
                                                                        x.dtype))
        out[(slice(None), *pos)] = np.concatenate(parts, axis=-1)
    return out


ROWS += [
    OpCase("ExtractImagePatches",
           lambda tf, x: tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1],
                                                  "SAME"),
           lambda x: ref_patches(x, (2, 3), (2, 1), (1, 2), "SAME"), [rand(2, 5, 6, 2)],
           id="ExtractImagePatches-SAME"),
    OpCase("ExtractImagePatches",
           lambda tf, x: tf.image.extract_patches(x, [1, 3, 2, 1], [1, 1, 2, 1], [1, 2, 1, 1],
                                                  "VALID"),
           lambda x: ref_patches(x, (3, 2), (1, 2), (2, 1), "VALID"), [rand(1, 7, 6, 3)],
           id="ExtractImagePatches-VALID"),
    OpCase("ExtractVolumePatches",
           lambda tf, x: tf.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1],
                                                   "SAME"),
           lambda x: ref_patches(x, (2, 2, 3), (1, 2, 2), (1, 1, 1), "SAME"),
           [rand(2, 3, 4, 5, 2)], id="ExtractVolumePatches-SAME"),
    OpCase("ExtractVolumePatches",
           lambda tf, x: tf.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1],
                                                   "VALID"),
           lambda x: ref_patches(x, (2, 3, 2), (2, 2, 1), (1, 1, 1), "VALID"),
           [rand(1, 4, 5, 3, 2)], id="ExtractVolumePatches-VALID"),
]


# ── JPEG helpers (Pillow writes the bytes; exempt without it, as rows_image_codecs) ──
def _jpeg_bytes(image):
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, "JPEG", quality=95)
    return np.array(out.getvalue(), dtype=object)


def _check_crop(want, atol):
    def check(got):
        got = np.asarray(got)
        assert got.dtype == np.uint8 and got.shape == want.shape, (got.shape, want.shape)
        np.testing.assert_allclose(got.astype(float), want.astype(float), atol=atol)
    return check


_FLAT = np.full((12, 10, 3), [200, 100, 50], np.uint8)
EXEMPT = {}
if importlib.util.find_spec("PIL") is not None:
    ROWS += [
        OpCase("ExtractJpegShape", lambda tf, s: tf.image.extract_jpeg_shape(s),
               lambda s: np.array([12, 10, 3], np.int32), [_jpeg_bytes(_FLAT)],
               id="ExtractJpegShape"),
        OpCase("ExtractJpegShape", lambda tf, s: tf.io.extract_jpeg_shape(s, tf.int64),
               lambda s: np.array([12, 10, 1], np.int64), [_jpeg_bytes(_FLAT[..., 0])],
               id="ExtractJpegShape-gray-int64"),
        OpCase("DecodeAndCropJpeg",
               lambda tf, s: tf.image.decode_and_crop_jpeg(s, [2, 3, 7, 4]),
               _check_crop(_FLAT[2:9, 3:7], 3), [_jpeg_bytes(_FLAT)], check_values=False,
               id="DecodeAndCropJpeg"),
    ]
else:  # pragma: no cover - depends on the environment
    EXEMPT.update({op: "needs Pillow (pip install scopeflow[image]) to write JPEG bytes"
                   for op in ("ExtractJpegShape", "DecodeAndCropJpeg")})
