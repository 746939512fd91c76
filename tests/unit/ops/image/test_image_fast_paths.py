"""The vectorised paths the image bench rows take, against the loops they replaced:
blocked hard NMS against the generic per-candidate queue (ties, zero-area boxes, NaN
boxes that send it back to the queue); CropAndResize's all-boxes kernels against a per-box,
per-sample loop."""

import numpy as np
import pytest

from scopeflow.framework import dtypes, errors
from scopeflow.ops.image import box_ops, image_ops, nms_ops


@pytest.mark.parametrize("trial", range(24))
def test_blocked_hard_nms_matches_the_queue(trial):
    rng = np.random.default_rng(trial)
    n = int(rng.integers(1, 700))
    boxes = rng.uniform(0, 1, (n, 4)).astype(np.float32)
    if trial % 3 == 0:
        boxes = np.round(boxes * 4) / 4  # equal boxes and boxes of no area
    scores = rng.uniform(0, 1, n).astype(np.float32)
    if trial % 2:
        scores = np.round(scores * 5) / 5  # equal scores: the lower index first
    if trial % 4 == 1:
        boxes[rng.integers(0, n)] = np.nan
    threshold = [0.0, 0.3, 0.5, 1.0][trial % 4]
    score_threshold = -np.inf if trial % 5 else 0.2
    size = int(rng.integers(0, 400))
    iou = nms_ops._iou_matrix(boxes)
    queue = nms_ops._greedy_nms(lambda i, j: iou[i, j], scores, size, threshold,
                                score_threshold)
    blocked = nms_ops._greedy_nms(lambda i, j: iou[i, j], scores, size, threshold,
                                  score_threshold,
                                  block=lambda r, c: nms_ops._iou(boxes[r], boxes[c]))
    assert blocked[0] == queue[0]
    np.testing.assert_array_equal(np.asarray(blocked[1], np.float32),
                                  np.asarray(queue[1], np.float32))


def test_nan_overlap_requeues_as_tf():
    # Box 1's IoU with box 0 is NaN: TF's weight is 0, so its score drops to 0 and it comes
    # back after box 2 (score 0.5) — not suppressed, not kept in place.
    boxes = np.array([[0, 0, 1, 1], [np.nan, 0, 1, 1], [2, 2, 3, 3]], np.float32)
    scores = np.array([0.9, 0.8, 0.5], np.float32)
    iou = nms_ops._iou_matrix(boxes)
    picked, kept = nms_ops._greedy_nms(lambda i, j: iou[i, j], scores, 3, 0.5, -np.inf,
                                       block=lambda r, c: nms_ops._iou(boxes[r], boxes[c]))
    assert picked == [0, 2, 1] and kept[2] == 0


def test_blocked_nms_reads_asymmetric_overlaps_as_the_queue():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 300))
        overlaps = rng.uniform(0, 1, (n, n)).astype(np.float32)
        scores = rng.uniform(0, 1, n).astype(np.float32)
        queue = nms_ops._greedy_nms(lambda i, j, o=overlaps: o[i, j], scores, n, 0.9,
                                    -np.inf)
        blocked = nms_ops._greedy_nms(lambda i, j, o=overlaps: o[i, j], scores, n, 0.9,
                                      -np.inf, block=lambda r, c, o=overlaps: o[np.ix_(r, c)])
        assert blocked[0] == queue[0]


def _crop_per_box(image, boxes, box_ind, ch, cw, method, extrapolation):
    """CropAndResize one box at a time, straight from TF's loop (the reference)."""
    f32 = np.float32
    _, h, w, depth = image.shape
    out = np.full((len(boxes), ch, cw, depth), f32(extrapolation), f32)
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(f32)):
        for i in range(ch):
            y = (y1 * f32(h - 1) + i * ((y2 - y1) * f32(h - 1) / f32(ch - 1)) if ch > 1
                 else f32(0.5) * (y1 + y2) * f32(h - 1))
            for j in range(cw):
                x = (x1 * f32(w - 1) + j * ((x2 - x1) * f32(w - 1) / f32(cw - 1)) if cw > 1
                     else f32(0.5) * (x1 + x2) * f32(w - 1))
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    continue
                img = image[box_ind[b]].astype(f32)
                if method == "nearest":
                    out[b, i, j] = img[int(np.floor(y + f32(0.5))), int(np.floor(x + f32(0.5)))]
                    continue
                t, btm, lf, rt = int(np.floor(y)), int(np.ceil(y)), int(np.floor(x)), \
                    int(np.ceil(x))
                yl, xl = f32(y - np.floor(y)), f32(x - np.floor(x))
                top = img[t, lf] + (img[t, rt] - img[t, lf]) * xl
                bot = img[btm, lf] + (img[btm, rt] - img[btm, lf]) * xl
                out[b, i, j] = top + (bot - top) * yl
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_all_boxes_at_once_matches_per_box(method):
    rng = np.random.default_rng(3)
    image = rng.standard_normal((2, 7, 9, 2)).astype(np.float32)
    image[1, 3, 4, 0] = np.nan  # read only by the boxes that sample it
    boxes = rng.uniform(-0.4, 1.4, (12, 4)).astype(np.float32)
    box_ind = rng.integers(0, 2, 12).astype(np.int32)
    for ch, cw in [(4, 5), (1, 3), (3, 1)]:
        got = box_ops._crop_and_resize_kernel(
            image, boxes, box_ind, np.array([ch, cw], np.int32), T=None, method=method,
            extrapolation_value=-1.0)
        want = _crop_per_box(image, boxes, box_ind, ch, cw, method, -1.0)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_crop_and_resize_gradients_skip_samples_outside():
    # A NaN gradient at an extrapolated sample and a NaN pixel no sample reads must not
    # reach either gradient (TF's loops skip those samples).
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    image[0, 3, 3, 0] = np.nan
    boxes = np.array([[0.0, 0.0, 0.5, 2.0]], np.float32)  # x runs past the image
    grads = np.ones((1, 2, 3, 1), np.float32)
    grads[0, :, 2] = np.nan  # the samples at x = 6 (outside)
    gimg = box_ops._crop_and_resize_grad_image_kernel(
        grads, boxes, np.array([0], np.int32), np.array([1, 4, 4, 1]), T=dtypes.float32,
        method="bilinear")
    gbox = box_ops._crop_and_resize_grad_boxes_kernel(
        grads, image, boxes, np.array([0], np.int32), T=None, method="bilinear")
    assert np.isfinite(gimg).all() and gimg.sum() == 4  # 4 in-range samples of weight 1
    assert np.isfinite(gbox).all()
    with pytest.raises(errors.OutOfRangeError):
        box_ops._crop_and_resize_grad_image_kernel(
            grads, boxes, np.array([1], np.int32), np.array([1, 4, 4, 1]), T=dtypes.float32,
            method="bilinear")


@pytest.mark.parametrize("pixels", [3, 300, 3000, 20000])
def test_resize_gradient_sums_are_add_at_bit_for_bit(pixels):
    # By-rank fancy adds (few contributions a pixel) and np.add.at (many) must both add
    # each pixel's contributions in order from zero: the same bits, -0.0 included.
    rng = np.random.default_rng(pixels)
    flat = rng.integers(0, pixels, 20000)
    parts = (rng.standard_normal((20000, 6)) * 10.0 ** rng.uniform(-5, 5, (20000, 1))
             ).astype(np.float32)
    parts[:7] = -0.0
    want = np.zeros((pixels, 6), np.float32)
    np.add.at(want, flat, parts)
    got = image_ops._scatter_to_pixels(parts, flat, 2, pixels, 1, 3, np.float32)
    want = np.moveaxis(want.reshape(pixels, 1, 2, 3), 2, 0)
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()
