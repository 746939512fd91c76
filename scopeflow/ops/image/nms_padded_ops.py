"""``tf.image.non_max_suppression_padded``: TF 2.21's tiled, batched non-max suppression,
built from graph ops as TF builds it (``non_max_suppression_padded_v2``).

Boxes are sorted by score (unless ``sorted_input``), corners put in order from the first
box's orientation (unless ``canonicalized_coordinates``), boxes not above
``score_threshold`` zeroed, and the list padded to whole tiles of ``tile_size``. Each tile
is first suppressed by the kept boxes of the earlier tiles (IoU at or above
``iou_threshold``), then by itself until nothing changes; a suppressed box becomes all
zeros. The kept boxes are those with a positive coordinate, so, as in TF, a kept box
lying wholly at or below zero is not reported. TF wraps the body in a ``tf.function``
(a ``PartitionedCall`` op); scopeflow inlines it, as its ``tf.function`` does, so the op
types inside differ while the values are TF's. No gradient, as TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.sort_ops import argsort
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.nn.nn_top_k_ops import top_k

__all__ = ["non_max_suppression_padded"]

_f32, _i32 = dtypes.float32, dtypes.int32


def _overlap(boxes_a, boxes_b):
    """``[batch, N, M]`` IoU of two box lists (``+ 1e-8`` in the union, as TF)."""
    with name_scope("bbox_overlap"):
        ay0, ax0, ay1, ax1 = array_ops.split(boxes_a, 4, axis=2)
        by0, bx0, by1, bx1 = array_ops.split(boxes_b, 4, axis=2)

        def t(x):
            return array_ops.transpose(x, [0, 2, 1])
        iw = math_ops.maximum(math_ops.minimum(ax1, t(bx1)) - math_ops.maximum(ax0, t(bx0)), 0)
        ih = math_ops.maximum(math_ops.minimum(ay1, t(by1)) - math_ops.maximum(ay0, t(by0)), 0)
        inter = iw * ih
        area_a = (ay1 - ay0) * (ax1 - ax0)
        area_b = (by1 - by0) * (bx1 - bx0)
        return inter / (area_a + t(area_b) - inter + 1e-8)


def _self_suppression(iou, _, iou_sum, threshold):
    """One round inside a tile: boxes nothing suppresses knock out the boxes they
    overlap; stops when the summed IoU no longer drops by more than the threshold."""
    batch = array_ops.shape(iou)[0]
    free = math_ops.cast(array_ops.reshape(math_ops.reduce_max(iou, 1) < threshold,
                                           [batch, -1, 1]), iou.dtype)
    kept = array_ops.reshape(math_ops.cast(math_ops.reduce_max(free * iou, 1) < threshold,
                                           iou.dtype), [batch, -1, 1]) * iou
    new_sum = math_ops.reduce_sum(kept, [1, 2])
    return [kept, math_ops.reduce_any(iou_sum - new_sum > threshold), new_sum, threshold]


def _tile_body(boxes, threshold, output_size, idx, tile_size):
    """Tile ``idx``: suppressed by the earlier tiles, then by itself."""
    with name_scope("suppression_loop_body"):
        num_tiles = array_ops.shape(boxes)[1] // tile_size
        batch = array_ops.shape(boxes)[0]

        def cross(all_boxes, tile, thr, inner):
            earlier = array_ops.slice(all_boxes, [0, inner * tile_size, 0], [batch, tile_size, 4])
            iou = _overlap(earlier, tile)
            keep = math_ops.cast(math_ops.reduce_all(iou < thr, [1]), tile.dtype)
            return all_boxes, array_ops.expand_dims(keep, 2) * tile, thr, inner + 1

        tile = array_ops.slice(boxes, [0, idx * tile_size, 0], [batch, tile_size, 4])
        _, tile, _, _ = while_loop(lambda _b, _t, _thr, inner: inner < idx, cross,
                                   [boxes, tile, threshold, convert_to_tensor(0)])
        iou = _overlap(tile, tile)
        upper = array_ops.expand_dims(
            array_ops.reshape(math_ops.range(tile_size), [1, -1]) >
            array_ops.reshape(math_ops.range(tile_size), [-1, 1]), 0)
        iou *= math_ops.cast(math_ops.logical_and(upper, iou >= threshold), iou.dtype)
        suppressed, _, _, _ = while_loop(
            lambda _iou, go, _s, _t: go, _self_suppression,
            [iou, convert_to_tensor(True), math_ops.reduce_sum(iou, [1, 2]), threshold])
        gone = math_ops.reduce_sum(suppressed, 1) > 0
        tile *= array_ops.expand_dims(1.0 - math_ops.cast(gone, tile.dtype), 2)
        mask = array_ops.reshape(math_ops.cast(math_ops.equal(math_ops.range(num_tiles), idx),
                                               boxes.dtype), [1, -1, 1, 1])
        boxes = array_ops.tile(array_ops.expand_dims(tile, 1), [1, num_tiles, 1, 1]) * mask + \
            array_ops.reshape(boxes, [batch, num_tiles, tile_size, 4]) * (1 - mask)
        boxes = array_ops.reshape(boxes, [batch, -1, 4])
        output_size += math_ops.reduce_sum(
            math_ops.cast(math_ops.reduce_any(tile > 0, [2]), _i32), [1])
    return boxes, threshold, output_size, idx + 1


def _canonical(boxes):
    """Corners as ``[y_min, x_min, y_max, x_max]``, judged from the first box."""
    with name_scope("canonicalize_coordinates"):
        y1, x1, y2, x2 = array_ops.split(boxes, 4, axis=2)
        y_first = math_ops.reduce_all(math_ops.less_equal(y1[0, 0, 0], y2[0, 0, 0]))
        y_min, y_max = cond(y_first, lambda: (y1, y2), lambda: (y2, y1))
        x_first = math_ops.reduce_all(math_ops.less_equal(x1[0, 0, 0], x2[0, 0, 0]))
        x_min, x_max = cond(x_first, lambda: (x1, x2), lambda: (x2, x1))
        return array_ops.concat([y_min, x_min, y_max, x_max], axis=2)


def _prepare(boxes, scores, score_threshold, sorted_input, canonicalized_coordinates):
    num_boxes = array_ops.shape(boxes)[-2]
    boxes = array_ops.reshape(boxes, [-1, num_boxes, 4])
    scores = array_ops.reshape(scores, [-1, num_boxes])
    if score_threshold != float("-inf"):
        with name_scope("filter_by_score"):
            mask = math_ops.cast(scores > score_threshold, scores.dtype)
            scores *= mask
            boxes *= array_ops.expand_dims(math_ops.cast(mask, boxes.dtype), 2)
    if not canonicalized_coordinates:
        boxes = _canonical(boxes)
    if sorted_input:
        return boxes, scores, array_ops.zeros_like(scores, dtype=_i32), num_boxes
    with name_scope("sort_scores_and_boxes"):
        order = argsort(scores, axis=1, direction="DESCENDING")
        scores = array_ops.gather(scores, order, axis=1, batch_dims=1)
        boxes = array_ops.gather(boxes, order, axis=1, batch_dims=1)
    return boxes, scores, order, num_boxes


def _padded_v2(boxes, scores, max_output_size, iou_threshold, score_threshold,
               sorted_input, canonicalized_coordinates, tile_size):
    """``(indices [batch, max_output_size], num_valid batch_dims)``."""
    batch_dims = array_ops.shape(boxes)[:-2]
    boxes, scores, order, num_boxes = _prepare(boxes, scores, score_threshold, sorted_input,
                                               canonicalized_coordinates)
    batch = array_ops.shape(boxes)[0]
    pad = math_ops.cast(math_ops.ceil(
        math_ops.cast(math_ops.maximum(num_boxes, max_output_size), _f32) /
        math_ops.cast(tile_size, _f32)), _i32) * tile_size - num_boxes
    boxes = array_ops.pad(math_ops.cast(boxes, _f32), [[0, 0], [0, pad], [0, 0]])
    padded = num_boxes + pad
    iterations = padded // tile_size
    selected, _, output_size, _ = while_loop(
        lambda _b, _t, size, i: math_ops.logical_and(
            math_ops.reduce_min(size) < max_output_size, i < iterations),
        lambda b, t, size, i: _tile_body(b, t, size, i, tile_size),
        [boxes, iou_threshold, array_ops.zeros([batch], _i32), convert_to_tensor(0)],
        shape_invariants=[TensorShape([None, None, 4]), TensorShape([]), TensorShape([None]),
                          TensorShape([])])
    num_valid = math_ops.minimum(output_size, max_output_size)
    kept = math_ops.cast(math_ops.reduce_any(selected > 0, [2]), _i32)
    ranks = array_ops.expand_dims(math_ops.range(padded, 0, -1), 0)
    idx = padded - math_ops.cast(top_k(kept * ranks, max_output_size)[0], _i32)
    idx = math_ops.minimum(idx, num_boxes - 1)
    if not sorted_input:
        offsets = array_ops.expand_dims(math_ops.range(batch) * num_boxes, 1)
        idx = array_ops.reshape(array_ops.gather(array_ops.reshape(order, [-1]),
                                                 array_ops.reshape(idx + offsets, [-1])),
                                [batch, -1])
    position = array_ops.expand_dims(math_ops.range(max_output_size), 0)
    idx = where_v2(position < array_ops.expand_dims(num_valid, 1), idx,
                   array_ops.zeros([batch, max_output_size], _i32))
    return idx, array_ops.reshape(num_valid, batch_dims)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """``(selected_indices, valid_outputs)`` of greedy NMS over ``[..., N, 4]`` boxes; the
    indices padded with zeros to ``max_output_size`` when ``pad_to_max_output_size``
    (required for batched boxes)."""
    with name_scope(name, "non_max_suppression_padded"):
        boxes = convert_to_tensor(boxes, name="boxes")
        scores = convert_to_tensor(scores, name="scores")
        if not pad_to_max_output_size and boxes.shape.ndims is not None \
                and boxes.shape.ndims > 2:
            raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) "
                             "must be True for batched input")
        max_output_size = convert_to_tensor(max_output_size, dtype=_i32)
        iou_threshold = convert_to_tensor(np.float32(iou_threshold))
        idx, num_valid = _padded_v2(boxes, scores, max_output_size, iou_threshold,
                                    score_threshold, sorted_input, canonicalized_coordinates,
                                    tile_size)
        if not pad_to_max_output_size:
            return idx[0, :num_valid], num_valid
        shape = array_ops.concat([array_ops.shape(boxes)[:-2],
                                  array_ops.expand_dims(max_output_size, 0)], 0)
        return array_ops.reshape(idx, shape), num_valid
