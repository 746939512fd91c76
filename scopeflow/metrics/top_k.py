"""Precision, recall and average precision at k, from predictions' top k or given indices."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.metrics.state import (
    _add,
    _assert_broadcastable,
    _broadcast_weights,
    _scope_values,
    _value_and_update,
    metric_variable,
)
from scopeflow.ops import array_ops, constant_op, math_ops, nn_ops
from scopeflow.ops.state import state_ops


# ── top-k metrics: precision, recall and average precision at k ─────────────────────
# TF computes them with its set ops (a row's labels and top-k predictions as sets); here
# the set sizes come from comparing every element of one set with every element of the
# other, counting each distinct value once. Labels must be a dense tensor.
def _at_k_name(name, k=None, class_id=None) -> str:
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _maybe_expand_labels(labels, predictions):
    """``labels`` with the rank of ``predictions`` (a last dimension of 1 added)."""
    with name_scope(None, "expand_labels", _scope_values(labels, predictions)) as scope:
        if isinstance(labels, (SparseTensor, SparseTensorValue)):
            raise NotImplementedError(
                "tf.metrics' top-k metrics take dense labels in scopeflow; densify a "
                "SparseTensor of labels first")
        labels = convert_to_tensor(labels)
        labels_rank, predictions_rank = labels.shape.ndims, predictions.shape.ndims
        if labels_rank is None or predictions_rank is None:
            raise ValueError("scopeflow needs the ranks of labels and predictions while "
                             "building (TF decides at run time)")
        if predictions_rank == labels_rank:
            return labels
        if predictions_rank == labels_rank + 1:
            return array_ops.expand_dims(labels, -1, name=scope)
        raise ValueError(
            f"Unexpected labels shape {labels.shape} for predictions shape "
            f"{predictions.shape}. Predictions rank should be the same rank as labels rank "
            "or labels rank plus one .")


def _in(a, b):
    """For each element of ``a``'s last dimension, whether ``b``'s last dimension has it."""
    return math_ops.reduce_any(
        math_ops.equal(array_ops.expand_dims(a, -1), array_ops.expand_dims(b, -2)), -1)


def _first_occurrences(a):
    """For each element of ``a``'s last dimension, whether no earlier element equals it."""
    n = dimension_value(a.shape.dims[-1]) if a.shape.ndims else None
    if n is None:
        raise ValueError("scopeflow needs the last dimension of labels and predictions_idx "
                         "while building")
    earlier = constant_op.constant(np.tril(np.ones((n, n), bool), -1))
    equal = math_ops.equal(array_ops.expand_dims(a, -1), array_ops.expand_dims(a, -2))
    return math_ops.logical_not(math_ops.reduce_any(math_ops.logical_and(equal, earlier), -1))


def _set_count(a, b, a_minus_b, class_id):
    """Per row, ``|set(a) - set(b)|`` or ``|set(a) & set(b)|`` (int32, as TF's set_size),
    both sets cut down to ``{class_id}`` when it is given."""
    if class_id is not None:
        a_has = math_ops.reduce_any(math_ops.equal(a, class_id), -1)
        b_has = math_ops.reduce_any(math_ops.equal(b, class_id), -1)
        counted = math_ops.logical_and(
            a_has, math_ops.logical_not(b_has) if a_minus_b else b_has)
    else:
        in_b = _in(a, b)
        counted = math_ops.logical_and(_first_occurrences(a),
                                       math_ops.logical_not(in_b) if a_minus_b else in_b)
        counted = math_ops.cast(counted, dtypes.int32)
        return math_ops.reduce_sum(counted, -1)
    return math_ops.cast(counted, dtypes.int32)


_SET_COUNTS = {  # kind -> (name scope, which set is a, a_minus_b)
    "true_positive": ("true_positives", "predictions", False),
    "false_positive": ("false_positives", "predictions", True),
    "false_negative": ("false_negatives", "labels", True),
}


def _streaming_count_at_k(kind, labels, predictions_idx, k, class_id, weights):
    """A float64 variable ``<kind>_at_<k>`` adding up the (weighted) per-row set counts."""
    with name_scope(None, _at_k_name(kind, k, class_id),
                    _scope_values(predictions_idx, labels, weights)) as scope:
        scope_name, first, a_minus_b = _SET_COUNTS[kind]
        with name_scope(None, scope_name, _scope_values(predictions_idx, labels, weights)):
            a, b = ((predictions_idx, labels) if first == "predictions"
                    else (labels, predictions_idx))
            count = math_ops.cast(_set_count(a, b, a_minus_b, class_id), dtypes.float64)
            if weights is not None:
                check = _assert_broadcastable(weights, count)
                with control_dependencies([check] if check is not None else []):
                    weights = math_ops.cast(weights, dtypes.float64)
                    count = math_ops.multiply(count, weights)
        batch_total = math_ops.cast(math_ops.reduce_sum(count), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _ratio_at_top_k(kind, labels, predictions_idx, k, class_id, weights,
                    metrics_collections, updates_collections, name):
    other = "false_positive" if kind == "precision" else "false_negative"
    with name_scope(name, _at_k_name(kind, k, class_id),
                    _scope_values(predictions_idx, labels, weights)) as scope:
        predictions_idx = convert_to_tensor(predictions_idx)
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        tp, tp_update = _streaming_count_at_k("true_positive", labels, top_k_idx, k,
                                              class_id, weights)
        rest, rest_update = _streaming_count_at_k(other, labels, top_k_idx, k, class_id,
                                                  weights)
        return _value_and_update(
            lambda counts, name: math_ops.divide(counts[0], math_ops.add(*counts), name=name),
            (tp, rest), (tp_update, rest_update), metrics_collections, updates_collections,
            (scope, "update"))


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """Recall of the top-k predicted classes ``predictions_idx`` against the label sets
    (the last dimension of ``labels``), over all rows; ``class_id`` counts one class only.
    float64; NaN before any positive."""
    return _ratio_at_top_k("recall", labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """Precision of the top-k predicted classes ``predictions_idx`` against the label sets
    (the last dimension of ``labels``), over all rows; ``class_id`` counts one class only.
    float64; NaN before any prediction counts."""
    return _ratio_at_top_k("precision", labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """``recall_at_top_k`` of the ``k`` largest ``predictions`` (logits or scores over the
    classes, the last dimension)."""
    with name_scope(name, _at_k_name("recall", k, class_id),
                    _scope_values(predictions, labels, weights)) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return recall_at_top_k(labels, top_k_idx, k=k, class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=scope)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """``precision_at_top_k`` of the ``k`` largest ``predictions`` (logits or scores over
    the classes, the last dimension)."""
    with name_scope(name, _at_k_name("precision", k, class_id),
                    _scope_values(predictions, labels, weights)) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return precision_at_top_k(labels, top_k_idx, k=k, class_id=class_id,
                                  weights=weights, metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=scope)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None,
                          metrics_collections=None, updates_collections=None, name=None):
    """TF's deprecated name for ``precision_at_k``."""
    return precision_at_k(labels, predictions, k, class_id=class_id, weights=weights,
                          metrics_collections=metrics_collections,
                          updates_collections=updates_collections, name=name)


def _num_relevant(labels, k):
    """Per row, ``min(number of labels >= 0, k)``."""
    if k < 1:
        raise ValueError(f"Invalid k={k}")
    with name_scope(None, "num_relevant", [labels]) as scope:
        num_labels = math_ops.reduce_sum(
            math_ops.where_v2(math_ops.greater_equal(labels, 0), array_ops.ones_like(labels),
                              array_ops.zeros_like(labels)), axis=-1)
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels, predictions_idx):
    """Per row, the average of the precisions at each rank of ``predictions_idx`` where the
    prediction is a label, over ``min(number of labels, k)``."""
    with name_scope(None, "average_precision", [predictions_idx, labels]) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = dimension_value(predictions_idx.shape.dims[-1])
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set. Currently, "
                             "it is None.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        relevant_per_k = math_ops.cast(_in(predictions_idx, labels), dtypes.float64,
                                       name="relevant_per_k")
        # TF: cumsum along the last axis; here a product with an upper triangle of ones.
        shape = array_ops.shape(relevant_per_k)
        tp_per_k = array_ops.reshape(
            math_ops.matmul(array_ops.reshape(relevant_per_k, [-1, k]),
                            constant_op.constant(np.triu(np.ones((k, k))), dtypes.float64)),
            shape, name="tp_per_k")
        retrieved_per_k = constant_op.constant(np.arange(1.0, k + 1), dtypes.float64,
                                               name="retrieved_per_k")
        precision_per_k = math_ops.divide(tp_per_k, retrieved_per_k, name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(precision_per_k, relevant_per_k,
                                                     name="relevant_precision_per_k")
        precision_sum = math_ops.reduce_sum(relevant_precision_per_k, axis=(-1,),
                                            name="precision_sum")
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, num_relevant_items, name=scope)


def _clean_out_of_range_indices(labels, num_classes):
    """Labels ``>= num_classes`` replaced by -1 (TF: under a ``tf.cond`` on the largest
    label; here a ``Select`` on it)."""
    labels = convert_to_tensor(labels)
    max_labels = math_ops.reduce_max(labels)
    cleaned = math_ops.where_v2(math_ops.greater_equal(labels, num_classes),
                                -1 * array_ops.ones_like(labels), labels)
    return math_ops.where(math_ops.greater_equal(max_labels, num_classes), cleaned, labels)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over rows of the average precision at ``k`` of the ``k`` largest
    ``predictions`` against the label sets (labels outside ``[0, num_classes)`` are
    ignored). float64."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with name_scope(name, _at_k_name("average_precision", k),
                    _scope_values(predictions, labels, weights)) as scope:
        predictions = convert_to_tensor(predictions)
        _, predictions_idx = nn_ops.top_k(predictions, k)
        labels = _clean_out_of_range_indices(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        with name_scope(scope):
            average_precision = _sparse_average_precision_at_top_k(labels, predictions_idx)
            if weights is not None:
                weights = _broadcast_weights(math_ops.cast(weights, dtypes.float64),
                                             average_precision)
                average_precision = math_ops.multiply(average_precision, weights)
            with name_scope(None, "max", [average_precision]) as max_scope:
                max_var = metric_variable([], dtypes.float64, name=max_scope)
                if weights is None:
                    batch_max = math_ops.cast(
                        array_ops.size(average_precision, name="batch_max"), dtypes.float64)
                else:
                    batch_max = math_ops.reduce_sum(weights, name="batch_max")
                max_update = state_ops.assign_add(max_var, batch_max, name="update")
            with name_scope(None, "total", [average_precision]) as total_scope:
                total_var = metric_variable([], dtypes.float64, name=total_scope)
                batch_total = math_ops.reduce_sum(average_precision, name="batch_total")
                total_update = state_ops.assign_add(total_var, batch_total, name="update")
            mean_average_precision = math_ops.div_no_nan(total_var, max_var, name="mean")
            _add(metrics_collections, mean_average_precision)
            update = math_ops.div_no_nan(total_update, max_update, name=scope)
            _add(updates_collections, update)
            return mean_average_precision, update


def sparse_average_precision_at_k(labels, predictions, k, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    """TF's deprecated name for ``average_precision_at_k``."""
    return average_precision_at_k(labels, predictions, k, weights=weights,
                                  metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=name)
