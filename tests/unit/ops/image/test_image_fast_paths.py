"""The vectorised paths the image bench rows take, against the loops they replaced:
blocked hard NMS against the generic per-candidate queue (ties, zero-area boxes, NaN
boxes that send it back to the queue)."""

import numpy as np
import pytest

from scopeflow.ops.image import nms_ops


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
