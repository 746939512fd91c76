"""``mean`` and the metrics that are means: accuracy, the regression errors,
``mean_tensor``, ``percentage_below``, ``mean_per_class_accuracy``."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    control_dependencies,
    convert_to_tensor,
)
from scopeflow.metrics.state import (
    _add,
    _broadcast_weights,
    _div_value,
    _remove_squeezable_dimensions,
    _scope_values,
    _squeeze_labels_or_predictions,
    metric_variable,
)
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.state import state_ops, training_ops
from scopeflow.state.variable_scope import variable_scope


# ── mean and the metrics that are means ─────────────────────────────────────────────
def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """The (weighted) mean of ``values`` over all batches: ``total / count``.

    ``update_op`` adds ``sum(values * weights)`` to ``total`` and ``sum(weights)`` to
    ``count`` (weights default to 1; a weight of 0 masks a value).
    """
    with variable_scope(name, "mean", _scope_values(values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        # The value before the update: see the module docstring (TF builds it after).
        mean_t = _div_value(total, count, "value")
        _add(metrics_collections, mean_t)
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        return mean_t, _update_mean(total, count, math_ops.reduce_sum(values), values,
                                    num_values, updates_collections)


def _update_mean(total, count, added_total, values, added_count, updates_collections):
    """A mean's ``update_op``: ``total += added_total`` and, once ``values`` are computed,
    ``count += added_count``; then their ratio (added to ``updates_collections``)."""
    update_total_op = state_ops.assign_add(total, added_total)
    with control_dependencies([values]):
        update_count_op = state_ops.assign_add(count, added_count)
    update_op = _div_value(update_total_op, update_count_op, "update_op")
    _add(updates_collections, update_op)
    return update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often ``predictions`` equals ``labels``: the mean of ``cast(equal, float32)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of ``|predictions - labels|``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(absolute_errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of ``(labels - predictions) ** 2``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of ``mean_squared_error`` (its ``Sqrt`` ops sit outside the scope,
    as in TF: ``Sqrt:0`` and ``Sqrt_1:0``)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    _add(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The elementwise (weighted) mean of ``values`` over batches, of ``values``' shape
    (variables ``total_tensor`` and ``count_tensor``)."""
    with variable_scope(name, "mean", _scope_values(values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        # The value before the update: see the module docstring (TF builds it after).
        mean_t = _div_value(total, count, "value")
        _add(metrics_collections, mean_t)
        return mean_t, _update_mean(total, count, values, values, num_values,
                                    updates_collections)


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The (weighted) fraction of ``values`` less than ``threshold``."""
    is_below_threshold = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(is_below_threshold, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The mean of ``|labels - predictions| / normalizer`` (0 where ``normalizer`` is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer = _squeeze_labels_or_predictions(predictions, normalizer)
    predictions.shape.assert_is_compatible_with(normalizer.shape)
    relative_errors = math_ops.where(
        math_ops.equal(normalizer, 0.0), array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer))
    return mean(relative_errors, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """``1 - mean(sum(labels * predictions, dim))``: for unit-normalized vectors along
    ``dim``, the mean cosine distance."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = math_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None,
                                    name or "mean_cosine_distance")
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    _add(metrics_collections, mean_distance)
    _add(updates_collections, update_op)
    return mean_distance, update_op


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over classes of each class's accuracy (variables ``total`` and ``count``
    of shape ``[num_classes]``); ``update_op`` returns the per-class accuracies, as TF."""
    with variable_scope(name, "mean_accuracy", _scope_values(predictions, labels, weights)):
        predictions = convert_to_tensor(predictions)
        labels = math_ops.cast(labels, dtypes.int64)
        if labels.shape.ndims is None or labels.shape.ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if predictions.shape.ndims is None or predictions.shape.ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.shape.ndims is None or weights.shape.ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = training_ops.scatter_add(total, labels, ones)
        update_count_op = training_ops.scatter_add(count, labels, is_correct)
        per_class_accuracy = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        mean_accuracy_v = math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")
        _add(metrics_collections, mean_accuracy_v)
        update_op = math_ops.div_no_nan(update_count_op, math_ops.maximum(update_total_op, 0),
                                        name="update_op")
        _add(updates_collections, update_op)
        return mean_accuracy_v, update_op
