"""Non-max suppression: ``NonMaxSuppressionV3``, ``V4`` (padded), ``V5`` (with scores and
soft-NMS), ``NonMaxSuppressionWithOverlaps`` and ``CombinedNonMaxSuppression``, as TF's
CPU kernels (non_max_suppression_op.cc) select boxes.

Candidates are the boxes scoring above ``score_threshold``, taken best first (equal
scores: the lower index first). A candidate is compared with the boxes selected so far,
newest first: its IoU (corners put in order first; a box of no area overlaps nothing)
above the threshold suppresses it, and with soft-NMS (``soft_nms_sigma > 0``) its score
decays by ``exp(-0.5 iou^2 / sigma)`` and it goes back into the queue while it still
scores above the threshold. None of these ops has a gradient in TF.
"""

from __future__ import annotations

import heapq

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value

__all__ = ["non_max_suppression", "non_max_suppression_with_scores",
           "non_max_suppression_overlaps", "combined_non_max_suppression"]

_BOX_TYPES = (dtypes.float16, dtypes.float32)


def _iou(a, b):
    """The (len(a), len(b)) float32 IoU of boxes ``a`` against boxes ``b``, as TF's ``IOU``
    (corners put in order; a box of no area overlaps nothing)."""
    a, b = a.astype(np.float32), b.astype(np.float32)
    ymin_a, xmin_a = np.minimum(a[:, 0], a[:, 2]), np.minimum(a[:, 1], a[:, 3])
    ymax_a, xmax_a = np.maximum(a[:, 0], a[:, 2]), np.maximum(a[:, 1], a[:, 3])
    ymin_b, xmin_b = np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3])
    ymax_b, xmax_b = np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])
    area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a)
    area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b)
    ih = np.maximum(np.minimum(ymax_a[:, None], ymax_b[None])
                    - np.maximum(ymin_a[:, None], ymin_b[None]), np.float32(0))
    iw = np.maximum(np.minimum(xmax_a[:, None], xmax_b[None])
                    - np.maximum(xmin_a[:, None], xmin_b[None]), np.float32(0))
    inter = ih * iw
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a[:, None] + area_b[None] - inter)
    empty = (area_a[:, None] <= 0) | (area_b[None] <= 0)
    return np.where(empty, np.float32(0), iou).astype(np.float32)


def _iou_matrix(boxes):
    """The (n, n) float32 IoU of every pair of boxes, as TF's ``IOU``."""
    return _iou(boxes, boxes)


def _lazy(make):
    """``similarity(i, j)`` over the matrix ``make()`` builds on its first call (the hard
    NMS fast path never needs all n x n of it)."""
    cache = []

    def similarity(i, j):
        if not cache:
            cache.append(make())
        return cache[0][i, j]
    return similarity


_BLOCK = 256  # candidates screened together against the boxes selected so far


def _hard_nms(block, scores, max_output_size, threshold, score_threshold):
    """Hard NMS (no soft decay) by blocks of candidates: ``block(rows, cols)`` is their
    similarity matrix (candidates' rows against kept boxes' columns: TF reads a given
    overlaps matrix, which may be asymmetric, that way round). Each block is screened
    against the boxes already selected in one product; the survivors against each other
    in one more, then picked in order.

    Why: the per-candidate Python loop of ``_greedy_nms`` costs ~1 ms a candidate at
    thousands of boxes. Without soft decay a candidate's score never changes, so TF's
    queue reduces to "best first, kept unless it overlaps a kept box above ``threshold``".
    A NaN similarity (which TF treats as suppressing the score to 0 and requeueing it)
    returns None, for the generic loop to redo the whole selection."""
    f = np.float32
    scores = scores.astype(f)
    cand = np.flatnonzero(scores > f(score_threshold))
    cand = cand[np.argsort(-scores[cand], kind="stable")]  # ties: the lower index first
    threshold = f(threshold)
    selected = []
    for start in range(0, cand.size, _BLOCK):
        if len(selected) >= max_output_size:
            break
        rows = cand[start:start + _BLOCK]
        if selected:
            sim = block(rows, np.asarray(selected))
            if np.isnan(sim).any():
                return None
            rows = rows[~(sim > threshold).any(axis=1)]
        sim = block(rows, rows)
        if np.isnan(sim).any():
            return None
        over = (sim > threshold).T  # over[k]: the rows box k (once kept) suppresses
        dead = np.zeros(rows.size, bool)
        for k in range(rows.size):
            if dead[k]:
                continue
            selected.append(int(rows[k]))
            if len(selected) >= max_output_size:
                break
            dead |= over[k]
    return selected, [scores[i] for i in selected]


def _greedy_nms(similarity, scores, max_output_size, threshold, score_threshold,
                soft_nms_sigma=0.0, block=None):
    """TF's ``DoNonMaxSuppressionOp``: the selected indices and their (decayed) scores.

    ``similarity(i, j)`` is the overlap of boxes i and j (float32); ``block(rows, cols)``,
    where given, the same as a matrix, for :func:`_hard_nms`."""
    f = np.float32
    if block is not None and not f(soft_nms_sigma) > 0 and not np.isnan(f(threshold)):
        fast = _hard_nms(block, scores, max_output_size, threshold, score_threshold)
        if fast is not None:
            return fast
    scores = scores.astype(np.float32)
    score_threshold = f(score_threshold)
    threshold = f(threshold)
    soft = f(soft_nms_sigma) > 0
    scale = f(-0.5) / f(soft_nms_sigma) if soft else f(0)
    # heapq pops the smallest: (-score, index) pops the best score, then the lower index.
    queue = [(-s, int(i), 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(queue)
    selected, selected_scores = [], []
    while len(selected) < max_output_size and queue:
        neg, index, begin = heapq.heappop(queue)
        score = original = f(-neg)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = f(similarity(index, selected[j]))
            weight = np.exp(f(scale * sim * sim)).astype(f)
            score = f(score * (weight if soft or sim <= threshold else f(0)))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        begin = len(selected)
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, begin))
    return selected, selected_scores


def _scalar(value, what):
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be 0-D, got shape {list(np.shape(value))}")
    return value.item() if hasattr(value, "item") else value


def _check_boxes(boxes, scores):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(
            None, None, f"boxes must be 2-D with 4 columns, got shape {list(boxes.shape)}")
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"scores has incompatible shape {list(scores.shape)}")


def _run_nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
             soft_nms_sigma=0.0):
    _check_boxes(boxes, scores)
    size = _scalar(max_output_size, "max_output_size")
    iou_threshold = _scalar(iou_threshold, "iou_threshold")
    if not 0 <= iou_threshold <= 1:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    if size < 0:
        raise errors.InvalidArgumentError(None, None, "max_output_size must be non-negative")
    score_threshold = _scalar(score_threshold, "score_threshold")
    return _greedy_nms(_lazy(lambda: _iou_matrix(boxes)), scores, size, iou_threshold,
                       score_threshold, soft_nms_sigma,
                       block=lambda r, c: _iou(boxes[r], boxes[c]))


def _nms_shape(boxes, scores, max_output_size, *thresholds, pad_to_max_output_size=None,
               n_outputs=1, valid=False, **attrs):
    """``[?]`` outputs, ``[max_output_size]`` when padded to a size known while the graph
    is built, then the scalar count of valid outputs."""
    b = boxes.shape
    if b.ndims is not None and b.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.ndims}")
    if b.ndims == 2 and b.as_list()[1] not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {b.as_list()[1]}")
    if scores.shape.ndims is not None and scores.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {scores.shape.ndims}")
    for t in (max_output_size, *thresholds):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}")
    size = None
    if pad_to_max_output_size:
        value = constant_value(max_output_size)
        size = None if value is None else int(value)
    out = [TensorShape([size])] * n_outputs
    return out + [TensorShape([])] if valid else out


def _nms_dtype(boxes, scores, *rest, T=None, **attrs):
    check_dtype(boxes, _BOX_TYPES, "boxes")
    check_dtype(scores, _BOX_TYPES, "scores")
    check_dtype(rest[0], (dtypes.int32,), "max_output_size")
    return dtypes.int32


# ── NonMaxSuppressionV3 ──────────────────────────────────────────────────────────────
nms_v3_op = OpDef(
    "NonMaxSuppressionV3", shape=from_tensors(_nms_shape), dtype=_nms_dtype,
    attrs={"T": dtypes.float32, "T_threshold": dtypes.float32},
    input_names=("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold"),
    grad=NO_GRADIENT)


@nms_v3_op.def_kernel
def _nms_v3_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, *, T,
                   T_threshold):
    selected, _ = _run_nms(boxes, scores, max_output_size, iou_threshold, score_threshold)
    return np.asarray(selected, np.int32)


# ── NonMaxSuppressionV4: padded to max_output_size, with the count of valid outputs ─
def _nms_v4_shape(*tensors, pad_to_max_output_size, **attrs):
    return _nms_shape(*tensors, pad_to_max_output_size=pad_to_max_output_size, valid=True)


def _nms_v4_dtype(*in_dtypes, **attrs):
    _nms_dtype(*in_dtypes)
    return [dtypes.int32, dtypes.int32]


nms_v4_op = OpDef(
    "NonMaxSuppressionV4", shape=from_tensors(_nms_v4_shape), dtype=_nms_v4_dtype,
    attrs={"T": dtypes.float32, "T_threshold": dtypes.float32,
           "pad_to_max_output_size": False}, num_outputs=2,
    input_names=("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold"),
    grad=NO_GRADIENT)


def _padded(values, size, dtype, pad):
    out = np.asarray(values, dtype)
    if pad and out.shape[0] < size:
        out = np.concatenate([out, np.zeros(size - out.shape[0], dtype)])
    return out


@nms_v4_op.def_kernel
def _nms_v4_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, *, T,
                   T_threshold, pad_to_max_output_size):
    selected, _ = _run_nms(boxes, scores, max_output_size, iou_threshold, score_threshold)
    return [_padded(selected, int(max_output_size), np.int32, pad_to_max_output_size),
            np.int32(len(selected))]


# ── NonMaxSuppressionV5: the selected scores too, and soft-NMS ────────────────────────
def _nms_v5_shape(*tensors, pad_to_max_output_size, **attrs):
    return _nms_shape(*tensors, pad_to_max_output_size=pad_to_max_output_size, n_outputs=2,
                      valid=True)


def _nms_v5_dtype(boxes, scores, *rest, **attrs):
    _nms_dtype(boxes, scores, *rest)
    return [dtypes.int32, boxes, dtypes.int32]


nms_v5_op = OpDef(
    "NonMaxSuppressionV5", shape=from_tensors(_nms_v5_shape), dtype=_nms_v5_dtype,
    attrs={"T": dtypes.float32, "pad_to_max_output_size": False}, num_outputs=3,
    input_names=("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold",
                 "soft_nms_sigma"),
    grad=NO_GRADIENT)


@nms_v5_op.def_kernel
def _nms_v5_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold,
                   soft_nms_sigma, *, T, pad_to_max_output_size):
    sigma = _scalar(soft_nms_sigma, "soft_nms_sigma")
    if sigma < 0:
        raise errors.InvalidArgumentError(None, None, "soft_nms_sigma must be non-negative")
    selected, kept = _run_nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                              sigma)
    size = int(max_output_size)
    return [_padded(selected, size, np.int32, pad_to_max_output_size),
            _padded(kept, size, boxes.dtype, pad_to_max_output_size),
            np.int32(len(selected))]


# ── NonMaxSuppressionWithOverlaps ────────────────────────────────────────────────────
def _overlaps_shape(overlaps, scores, *rest, **attrs):
    o = overlaps.shape
    if o.ndims is not None and o.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {o.ndims}")
    return TensorShape([None])


def _overlaps_dtype(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    check_dtype(overlaps, (dtypes.float32,), "overlaps")
    check_dtype(scores, (dtypes.float32,), "scores")
    check_dtype(max_output_size, (dtypes.int32,), "max_output_size")
    return dtypes.int32


nms_overlaps_op = OpDef(
    "NonMaxSuppressionWithOverlaps", shape=from_tensors(_overlaps_shape),
    dtype=_overlaps_dtype,
    input_names=("overlaps", "scores", "max_output_size", "overlap_threshold",
                 "score_threshold"),
    grad=None)  # TF: NotDifferentiable


@nms_overlaps_op.def_kernel
def _nms_overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold,
                         score_threshold):
    if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
        raise errors.InvalidArgumentError(
            None, None, f"overlaps must be square, got shape {list(overlaps.shape)}")
    if scores.ndim != 1 or scores.shape[0] != overlaps.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"scores has incompatible shape {list(scores.shape)}")
    size = _scalar(max_output_size, "max_output_size")
    overlaps = overlaps.astype(np.float32)
    selected, _ = _greedy_nms(lambda i, j: overlaps[i, j], scores, size,
                              _scalar(overlap_threshold, "overlap_threshold"),
                              _scalar(score_threshold, "score_threshold"),
                              block=lambda r, c: overlaps[np.ix_(r, c)])
    return np.asarray(selected, np.int32)


# ── CombinedNonMaxSuppression ─────────────────────────────────────────────────────────
def _per_batch_size(per_class, total, num_classes, pad_per_class):
    if not pad_per_class:
        return total
    if None in (per_class, num_classes, total):
        return None
    return min(per_class * num_classes, total)


def _combined_shape(boxes, scores, max_output_size_per_class, max_total_size,
                    iou_threshold, score_threshold, *, pad_per_class, clip_boxes):
    b, s = boxes.shape, scores.shape
    if b.ndims is not None and b.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {b.ndims}")
    if s.ndims is not None and s.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {s.ndims}")
    batch = None
    if b.ndims is not None:
        batch = b.as_list()[0]
    if batch is None and s.ndims is not None:
        batch = s.as_list()[0]
    num_classes = s.as_list()[2] if s.ndims is not None else None
    per_class = constant_value(max_output_size_per_class)
    total = constant_value(max_total_size)
    per_class = None if per_class is None else int(per_class)
    total = None if total is None else int(total)
    if total is not None and total <= 0:
        raise ValueError("max_total_size should be > 0")
    if per_class is not None and per_class <= 0:
        raise ValueError("max_output_size_per_class should be > 0")
    size = _per_batch_size(per_class, total, num_classes, pad_per_class)
    return [TensorShape([batch, size, 4]), TensorShape([batch, size]),
            TensorShape([batch, size]), TensorShape([batch])]


def _combined_dtype(boxes, scores, per_class, total, iou, score, **attrs):
    check_dtype(boxes, (dtypes.float32,), "boxes")
    check_dtype(scores, (dtypes.float32,), "scores")
    return [dtypes.float32, dtypes.float32, dtypes.float32, dtypes.int32]


combined_nms_op = OpDef(
    "CombinedNonMaxSuppression", shape=from_tensors(_combined_shape), dtype=_combined_dtype,
    attrs={"pad_per_class": False, "clip_boxes": True}, num_outputs=4,
    input_names=("boxes", "scores", "max_output_size_per_class", "max_total_size",
                 "iou_threshold", "score_threshold"),
    grad=NO_GRADIENT)


@combined_nms_op.def_kernel
def _combined_nms_kernel(boxes, scores, max_output_size_per_class, max_total_size,
                         iou_threshold, score_threshold, *, pad_per_class, clip_boxes):
    if boxes.ndim != 4 or boxes.shape[3] != 4:
        raise errors.InvalidArgumentError(
            None, None, f"boxes must be 4-D with 4 coordinates{list(boxes.shape)}")
    if scores.ndim != 3:
        raise errors.InvalidArgumentError(
            None, None, f"scores must be 3-D{list(scores.shape)}")
    batch, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    if q != 1 and q != num_classes:
        raise errors.InvalidArgumentError(
            None, None, "third dimension of boxes must be either 1 or num classes")
    per_class = int(_scalar(max_output_size_per_class, "max_output_size_per_class"))
    total = int(_scalar(max_total_size, "max_total_size"))
    iou_threshold = np.float32(_scalar(iou_threshold, "iou_threshold"))
    if not 0 <= iou_threshold <= 1:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    if total <= 0:
        raise errors.InvalidArgumentError(None, None, "max_total_size must be > 0")
    if per_class <= 0:
        raise errors.InvalidArgumentError(None, None, "max_output_size_per_class must be > 0")
    size = min(per_class * num_classes, total) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for n in range(batch):
        found = []  # (score, class, box index), each class's picks in score order
        for c in range(num_classes):
            class_boxes = boxes[n, :, c if q > 1 else 0]
            picked, picked_scores = _greedy_nms(
                _lazy(lambda b=class_boxes: _iou_matrix(b)), scores[n, :, c], per_class,
                iou_threshold, _scalar(score_threshold, "score_threshold"),
                block=lambda r, k, b=class_boxes: _iou(b[r], b[k]))
            found += [(s, c, i) for i, s in zip(picked, picked_scores)]
        found.sort(key=lambda r: -r[0])  # stable: ties keep class order, as TF's in practice
        keep = found[:min(len(found), size)]
        valid[n] = len(keep)
        for k, (s, c, i) in enumerate(keep):
            coords = boxes[n, i, c if q > 1 else 0].astype(np.float32)
            out_boxes[n, k] = np.clip(coords, 0, 1) if clip_boxes else coords
            out_scores[n, k] = s
            out_classes[n, k] = c
    return [out_boxes, out_scores, out_classes, valid]


# ── tf.image builders ────────────────────────────────────────────────────────────────
def _threshold(value, name, dtype=None):
    return convert_to_tensor(value, dtype=dtype, name=name)


def _types(boxes, threshold):
    return {"T": boxes.dtype.base_dtype, "T_threshold": threshold.dtype.base_dtype}


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None) -> Tensor:
    """The indices of the boxes greedy non-max suppression keeps, best score first
    (``NonMaxSuppressionV3``)."""
    with name_scope(name, "non_max_suppression"):
        iou_threshold = _threshold(iou_threshold, "iou_threshold")
        score_threshold = _threshold(score_threshold, "score_threshold")
        boxes = convert_to_tensor(boxes, name="boxes")
        return nms_v3_op.bind(boxes, scores, max_output_size, iou_threshold, score_threshold,
                              **_types(boxes, iou_threshold))


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """``(selected_indices, selected_scores)`` of ``NonMaxSuppressionV5``: with
    ``soft_nms_sigma > 0``, overlapping boxes' scores decay instead of being dropped."""
    with name_scope(name, "non_max_suppression_with_scores"):
        iou_threshold = _threshold(iou_threshold, "iou_threshold")
        score_threshold = _threshold(score_threshold, "score_threshold")
        soft_nms_sigma = _threshold(soft_nms_sigma, "soft_nms_sigma")
        boxes = convert_to_tensor(boxes, name="boxes")
        indices, kept, _ = nms_v5_op.bind(boxes, scores, max_output_size, iou_threshold,
                                          score_threshold, soft_nms_sigma,
                                          T=boxes.dtype.base_dtype,
                                          pad_to_max_output_size=False)
        return indices, kept


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None) -> Tensor:
    """Greedy non-max suppression on a given ``[n, n]`` overlap matrix
    (``NonMaxSuppressionWithOverlaps``)."""
    with name_scope(name, "non_max_suppression_overlaps"):
        overlap_threshold = _threshold(overlap_threshold, "overlap_threshold")
        return nms_overlaps_op.bind(overlaps, scores, max_output_size, overlap_threshold,
                                    np.float32(score_threshold))


def non_max_suppression_padded_v4(boxes, scores, max_output_size, iou_threshold=0.5,
                                  score_threshold=float("-inf"), pad_to_max_output_size=False,
                                  name=None):
    """TF's ``non_max_suppression_padded_v1``: ``NonMaxSuppressionV4``'s indices (zero-
    padded to ``max_output_size`` when asked) and the number of valid ones."""
    with name_scope(name, "non_max_suppression_padded"):
        iou_threshold = _threshold(iou_threshold, "iou_threshold")
        score_threshold = _threshold(score_threshold, "score_threshold")
        boxes = convert_to_tensor(boxes, name="boxes")
        return nms_v4_op.bind(boxes, scores, max_output_size, iou_threshold, score_threshold,
                              pad_to_max_output_size=bool(pad_to_max_output_size),
                              **_types(boxes, iou_threshold))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, the survivors of all classes merged best first:
    ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``."""
    with name_scope(name, "combined_non_max_suppression"):
        iou_threshold = _threshold(iou_threshold, "iou_threshold", dtypes.float32)
        score_threshold = _threshold(score_threshold, "score_threshold", dtypes.float32)
        max_total_size = convert_to_tensor(max_total_size)
        return combined_nms_op.bind(boxes, scores, max_output_size_per_class, max_total_size,
                                    iou_threshold, score_threshold,
                                    pad_per_class=bool(pad_per_class),
                                    clip_boxes=bool(clip_boxes))
