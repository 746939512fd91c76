"""``mean_iou``: a confusion matrix accumulated over batches."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors, tensor_util
from scopeflow.framework.graph import (
    convert_to_tensor,
    name_scope,
)
from scopeflow.metrics.state import (
    _add,
    _scope_values,
    metric_variable,
)
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.state import state_ops
from scopeflow.state.variable_scope import variable_scope


# ── mean IoU ─────────────────────────────────────────────────────────────────────────
def _check_class_ids(ids, num_classes, what):
    """TF's ``assert_non_negative`` and ``assert_less(ids, num_classes)`` on the class
    ids, made where the ids are known while building (as TF raises then too)."""
    value = tensor_util.constant_value(ids)
    if value is None:
        return
    if np.any(value < 0):
        raise errors.InvalidArgumentError(
            None, None, f"`{what}` contains negative values.  \nCondition x >= 0 did not hold "
            f"element-wise:\nx ({ids.name}) = \n{value}")
    if np.any(value >= num_classes):
        raise errors.InvalidArgumentError(
            None, None, f"`{what}` out of bound\nCondition x < y did not hold "
            f"element-wise:\nx ({ids.name}) = \n{value}\ny = \n{num_classes}")


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The mean over classes of intersection over union, ``tp / (tp + fp + fn)``, from a
    streaming ``[num_classes, num_classes]`` float64 confusion matrix (rows: labels,
    columns: predictions); classes that never occur are left out of the mean.
    ``update_op`` returns the updated confusion matrix, as in TF."""
    with variable_scope(name, "mean_iou", _scope_values(predictions, labels, weights)):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm = metric_variable([num_classes, num_classes], dtypes.float64,
                                   name="total_confusion_matrix")
        # The value before the update: see the module docstring (TF builds it after).
        mean_iou_v = _mean_iou_of(total_cm, num_classes)
        _add(metrics_collections, mean_iou_v)
        current_cm = _batch_confusion_matrix(labels, predictions, num_classes, weights)
        update_op = state_ops.assign_add(total_cm, current_cm)
        _add(updates_collections, update_op)
        return mean_iou_v, update_op


def _mean_iou_of(total_cm, num_classes):
    """The mean IoU of the classes that occur in the confusion matrix ``total_cm``."""
    sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
    sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
    diagonal = array_ops.gather(array_ops.reshape(total_cm, [-1]),
                                list(range(0, num_classes * num_classes, num_classes + 1)))
    cm_diag = math_ops.cast(diagonal, dtypes.float32)
    denominator = sum_over_row + sum_over_col - cm_diag
    num_valid_entries = math_ops.reduce_sum(
        math_ops.cast(math_ops.not_equal(denominator, 0), dtype=dtypes.float32))
    denominator = math_ops.where(math_ops.greater(denominator, 0), denominator,
                                  array_ops.ones_like(denominator))
    iou = math_ops.divide(cm_diag, denominator)
    return math_ops.where(
        math_ops.greater(num_valid_entries, 0),
        math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries, 0)


def _batch_confusion_matrix(labels, predictions, num_classes, weights):
    """TF's ``_streaming_confusion_matrix`` for one batch: a segment sum of the (weighted)
    counts over ``label * num_classes + prediction`` (TF: confusion_matrix's ScatterNd)."""
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    if predictions.shape.ndims is None or predictions.shape.ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels.shape.ndims is None or labels.shape.ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    _check_class_ids(labels, num_classes, "labels")
    _check_class_ids(predictions, num_classes, "predictions")
    if weights is not None:
        weights = convert_to_tensor(weights)
        if weights.shape.ndims is None or weights.shape.ndims > 1:
            weights = array_ops.reshape(weights, [-1])
        predictions.shape.assert_is_compatible_with(weights.shape)
        counts = math_ops.cast(weights, dtypes.float64)
    else:
        counts = array_ops.ones_like(predictions, dtypes.float64)
    with name_scope(None, "confusion_matrix", [labels, predictions, counts]):
        cells = labels * num_classes + predictions
        return array_ops.reshape(
            math_ops.unsorted_segment_sum(counts, cells, num_classes * num_classes),
            [num_classes, num_classes])
