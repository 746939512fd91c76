"""``tf.metrics``: TF1's streaming metrics.

Each metric returns ``(value, update_op)``. Its state lives in local variables (collections
``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``: not trainable, not saved by a default
``Saver``, initialized by ``tf.local_variables_initializer()``), created under a variable
scope named as TF names it (``accuracy/total``, ``accuracy/count``, ``auc/true_positives``).
``update_op`` adds a batch to the state and returns the metric after it; ``value`` reads
the state without changing it. The variables, the names of the value and update tensors and
the control dependencies are TF's (``tensorflow/python/ops/metrics_impl.py``), and so is
every op where scopeflow has TF's ops (``mean``, ``accuracy``, ``precision``... op for op).
Where TF uses ops scopeflow lacks, the same values come from others: ``mean_iou``'s
confusion matrix is a segment sum (TF: ``ScatterNd``) and its diagonal a gather; the top-k
metrics compare elements where TF uses set operations, and take dense labels only (TF also
takes a ``SparseTensor``); ``specificity_at_sensitivity`` and ``average_precision_at_k``
need no ``cumsum``.

Reading ``value`` and running ``update_op`` in one ``Session.run``: TF orders nothing
between them, so its answer depends on its thread pool. scopeflow runs unordered ops in
creation order (docs/plans.md). The metrics built on ``mean`` (``accuracy``, the
regression errors, ``percentage_below``...), ``mean_tensor`` and ``mean_iou`` build their
value before their update, so they give the value before the batch, TF's usual answer for
them; the others give the value after it (which TF gives too, or mixes).

Where TF checks inputs at run time with ``Assert`` ops (predictions in [0, 1] for ``auc``,
labels in range for ``mean_iou``, weights broadcastable when shapes are only known at run
time), scopeflow makes the check when the values or shapes are known while the graph is
built, and raises TF's error then, as TF itself does for constant inputs.
"""

from __future__ import annotations

import numpy as np

from scopeflow import tf_logging as logging
from scopeflow._api import missing_attribute
from scopeflow.framework import dtypes, errors, tensor_util
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collections,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.ops import (
    array_ops,
    constant_op,
    control_flow_ops,
    math_ops,
    nn_ops,
    state_ops,
    training_ops,
)
from scopeflow.variable_scope import variable_scope
from scopeflow.variables import Variable

__all__ = ["accuracy", "auc", "false_negatives", "false_negatives_at_thresholds",
           "false_positives", "false_positives_at_thresholds", "mean", "mean_absolute_error",
           "mean_cosine_distance", "mean_iou", "mean_per_class_accuracy",
           "mean_relative_error", "mean_squared_error", "mean_tensor", "percentage_below",
           "precision", "precision_at_thresholds", "recall", "recall_at_thresholds",
           "root_mean_squared_error", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "true_negatives", "true_negatives_at_thresholds",
           "true_positives", "true_positives_at_thresholds", "recall_at_k", "recall_at_top_k",
           "precision_at_k", "precision_at_top_k", "sparse_precision_at_k",
           "average_precision_at_k", "sparse_average_precision_at_k"]


# ── state and shared helpers ─────────────────────────────────────────────────────────
def metric_variable(shape, dtype, validate_shape=True, name=None) -> Variable:
    """A zero-initialized, non-trainable variable in ``LOCAL_VARIABLES`` and
    ``METRIC_VARIABLES`` (TF's ``metrics_impl.metric_variable``)."""
    return Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _scope_values(*values) -> list:
    """The arguments a metric's scope checks for one graph (tensors and variables only)."""
    return [v for v in values if v is not None and hasattr(v, "graph")]


def _add(collections, value):
    if collections:
        add_to_collections(collections, value)


def _last_dim_may_be_one(shape) -> bool:
    return dimension_value(shape.dims[-1]) in (None, 1)


def _squeeze_labels_or_predictions(labels, predictions):
    """TF's ``confusion_matrix.remove_squeezable_dimensions``: drops a last dimension of
    size 1 from whichever of the two has rank one more than the other.

    TF decides at run time (``tf.cond``) when a rank is unknown while building; scopeflow
    needs the ranks, and leaves the tensors as they are without them.
    """
    with name_scope(None, "remove_squeezable_dimensions", _scope_values(labels, predictions)):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        pr, lr = predictions.shape.ndims, labels.shape.ndims
        if pr is not None and lr is not None:
            if pr - lr == 1 and _last_dim_may_be_one(predictions.shape):
                predictions = array_ops.squeeze(predictions, [-1])
            elif pr - lr == -1 and _last_dim_may_be_one(labels.shape):
                labels = array_ops.squeeze(labels, [-1])
        return labels, predictions


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's ``metrics_impl._remove_squeezable_dimensions``: squeezes ``labels`` or
    ``predictions`` to one rank, then squeezes or expands ``weights`` to that rank (a scalar
    weight stays a scalar)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = _squeeze_labels_or_predictions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    wr, pr = weights.shape.ndims, predictions.shape.ndims
    if wr == 0:
        return predictions, labels, weights
    if pr is not None and wr is not None:
        if wr - pr == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif pr - wr == 1:
            weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


_BROADCAST_ERROR = "weights can not be broadcast to values."


def _assert_broadcastable(weights, values):
    """TF's ``weights_broadcast_ops.assert_broadcastable`` where the ranks are known while
    building: a ``NoOp`` when the check passes, TF's ``ValueError`` when it fails, ``None``
    when only run time can tell (TF's ``Assert``; the multiply that broadcasts the weights
    still fails on incompatible dimensions)."""
    with name_scope(None, "assert_broadcastable", [weights, values]):
        with name_scope(None, "weights", [weights]) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        with name_scope(None, "values", [values]) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        wr, vr = weights.shape.ndims, values.shape.ndims
        if wr is None or vr is None:
            return None
        if wr == 0:
            return control_flow_ops.no_op(name="static_scalar_check_success")
        if wr != vr:
            raise ValueError(
                f"{_BROADCAST_ERROR} values.rank={vr}. weights.rank={wr}. "
                f"values.shape={values.shape}. weights.shape={weights.shape}. "
                f"Received weights={weights}, values={values}")
        ws = tensor_util.constant_value(weights_shape)
        vs = tensor_util.constant_value(values_shape)
        if ws is None or vs is None:
            if not (weights.shape.is_fully_defined() and values.shape.is_fully_defined()):
                return None
            ws = np.array(weights.shape.as_list(), np.int32)
            vs = np.array(values.shape.as_list(), np.int32)
        for i in range(vr):
            if ws[i] not in (1, vs[i]):
                raise ValueError(
                    f"{_BROADCAST_ERROR} Mismatch at dim {i}. values.shape={vs}, "
                    f"weights.shape={ws}. Received weights={weights}, values={values}")
        del values_rank, weights_rank  # built as TF builds them; the static ranks decided
        return control_flow_ops.no_op(name="static_dims_check_success")


def _broadcast_weights(weights, values):
    """TF's ``broadcast_weights``: ``weights`` (float) times ``ones_like(values)``, or
    ``weights`` itself when the two static shapes already agree."""
    with name_scope(None, "broadcast_weights", [weights, values]) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        ws, vs = weights.shape, values.shape
        if ws.is_fully_defined() and vs.is_fully_defined() and ws.is_compatible_with(vs):
            return weights
        check = _assert_broadcastable(weights, values)
        with control_dependencies([check] if check is not None else []):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _div_value(total, count, name):
    """``total / max(count, 0)``, 0 where ``count`` is 0 (TF's mean value and update)."""
    return math_ops.div_no_nan(total, math_ops.maximum(count, 0), name=name)


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
        update_total_op = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        update_op = _div_value(update_total_op, update_count_op, "update_op")
        _add(updates_collections, update_op)
        return mean_t, update_op


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
        update_total_op = state_ops.assign_add(total, values)
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        update_op = _div_value(update_total_op, update_count_op, "update_op")
        _add(updates_collections, update_op)
        return mean_t, update_op


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


# ── counts: true/false positives/negatives, precision, recall ───────────────────────
def _count_condition(values, weights=None, metrics_collections=None,
                     updates_collections=None):
    """A ``count`` variable that ``update_op`` increases by ``sum(values * weights)``;
    the value is ``Identity(count)``."""
    # TF's check_ops.assert_type and assert_rank_in, decided while building (their NoOps
    # and constants as TF builds them).
    if values.dtype.base_dtype != dtypes.bool_:
        raise TypeError(f"{values.name} must be of type tf.bool; got {values.dtype.name}")
    with name_scope(None, "assert_type", [values]):
        control_flow_ops.no_op(name="statically_determined_correct_type")
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        with control_dependencies([_assert_rank_in(weights, values)]):
            weights = math_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = array_ops.identity(count)
    _add(metrics_collections, value_tensor)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    _add(updates_collections, update_op)
    return value_tensor, update_op


def _assert_rank_in(weights, values):
    """TF's ``assert_rank_in(weights, (0, rank(values)))`` with both ranks known while
    building: its ``NoOp``, or TF's ``ValueError``."""
    weights = convert_to_tensor(weights)
    values_rank = array_ops.rank(values)
    with name_scope(None, "assert_rank_in", [weights, values_rank]):
        array_ops.rank(weights, name="rank")
        array_ops.shape(weights)
        for _ in range(2):
            with name_scope(None, "assert_type"):
                control_flow_ops.no_op(name="statically_determined_correct_type")
        wr, vr = weights.shape.ndims, values.shape.ndims
        if wr is not None and vr is not None and wr not in (0, vr):
            raise ValueError(f"Tensor {weights.name} must have rank in {(0, vr)}.  "
                             f"Received rank {wr}, shape {weights.shape}")
        return control_flow_ops.no_op(name="static_checks_determined_all_ok")


def _count_metric(default_name, label_is, prediction_is):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name,
                            _scope_values(predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
                weights)
            is_counted = math_ops.logical_and(math_ops.equal(labels, label_is),
                                              math_ops.equal(predictions, prediction_is))
            return _count_condition(is_counted, weights, metrics_collections,
                                    updates_collections)

    metric.__name__ = metric.__qualname__ = default_name
    kind = {(True, True): "true positives", (False, True): "false positives",
            (True, False): "false negatives", (False, False): "true negatives"}
    metric.__doc__ = (f"The (weighted) number of {kind[label_is, prediction_is]}: labels "
                      f"{label_is} where predictions are {prediction_is} (both cast to bool).")
    return metric


true_positives = _count_metric("true_positives", True, True)
false_positives = _count_metric("false_positives", False, True)
false_negatives = _count_metric("false_negatives", True, False)
true_negatives = _count_metric("true_negatives", False, False)


def _ratio(numerator, other, name):
    """``numerator / (numerator + other)``, 0 when the sum is 0."""
    return math_ops.where(math_ops.greater(numerator + other, 0),
                           math_ops.divide(numerator, numerator + other), 0, name)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """``true_positives / (true_positives + false_positives)`` (0 with none predicted)."""
    with variable_scope(name, "precision", _scope_values(predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
            weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        false_p, false_p_update = false_positives(labels, predictions, weights)
        p = _ratio(true_p, false_p, "value")
        _add(metrics_collections, p)
        update_op = _ratio(true_p_update, false_p_update, "update_op")
        _add(updates_collections, update_op)
        return p, update_op


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """``true_positives / (true_positives + false_negatives)`` (0 with no positives)."""
    with variable_scope(name, "recall", _scope_values(predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
            weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        false_n, false_n_update = false_negatives(labels, predictions, weights)
        rec = _ratio(true_p, false_n, "value")
        _add(metrics_collections, rec)
        update_op = _ratio(true_p_update, false_n_update, "update_op")
        _add(updates_collections, update_op)
        return rec, update_op


# ── AUC ──────────────────────────────────────────────────────────────────────────────
def _check_in_unit_interval(predictions):
    """TF's ``assert_greater_equal(predictions, 0)`` and ``assert_less_equal(predictions,
    1)`` (with their bounds, ``Cast/x`` and ``Cast_1/x``), checked while building when
    ``predictions`` is known then, where TF raises too; at run time scopeflow does not
    check (TF's ``Assert``)."""
    zero = math_ops.cast(0.0, dtype=predictions.dtype)
    one = math_ops.cast(1.0, dtype=predictions.dtype)
    value = tensor_util.constant_value(predictions)
    if value is None:
        return
    for ok, sign, bound in ((np.all(value >= 0), ">=", zero), (np.all(value <= 1), "<=", one)):
        if not ok:
            raise errors.InvalidArgumentError(
                None, None, f"predictions must be in [0, 1]\nCondition x {sign} y did not "
                f"hold element-wise:\nx ({predictions.name}) = \n{value}\n"
                f"y ({bound.name}) = \n{tensor_util.constant_value(bound)}")


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None,
                                    includes=None):
    """Per threshold, the (weighted) counts of ``tp``, ``fn``, ``tn`` and ``fp``, a
    prediction counting as positive when it is greater than the threshold: the variables
    and their update ops, by key."""
    all_includes = ("tp", "fn", "tn", "fp")
    if includes is None:
        includes = all_includes
    else:
        for include in includes:
            if include not in all_includes:
                raise ValueError(f"Invalid key: {include}")
    predictions = convert_to_tensor(predictions)
    _check_in_unit_interval(predictions)
    predictions, labels, weights = _remove_squeezable_dimensions(
        math_ops.cast(predictions, dtypes.float32), math_ops.cast(labels, dtypes.bool_),
        weights)
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtypes.bool_), [1, -1])
    num_predictions = dimension_value(predictions_2d.shape.dims[0])
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(constant_op.constant(thresholds, dtypes.float32), [1]),
        array_ops.stack([1, num_predictions]))
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled)
    pred_is_neg = (math_ops.logical_not(pred_is_pos)
                   if "fn" in includes or "tn" in includes else None)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    label_is_neg = (math_ops.logical_not(label_is_pos)
                    if "fp" in includes or "tn" in includes else None)
    if weights is not None:
        weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]),
                                       [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    else:
        weights_tiled = None
    cases = {"tp": ("true_positives", label_is_pos, pred_is_pos),
             "fn": ("false_negatives", label_is_pos, pred_is_neg),
             "tn": ("true_negatives", label_is_neg, pred_is_neg),
             "fp": ("false_positives", label_is_neg, pred_is_pos)}
    values, update_ops = {}, {}
    for key in all_includes:
        if key not in includes:
            continue
        var_name, label_mask, pred_mask = cases[key]
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        is_counted = math_ops.cast(math_ops.logical_and(label_mask, pred_mask), dtypes.float32)
        if weights_tiled is not None:
            is_counted *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, math_ops.reduce_sum(is_counted, 1))
        values[key] = var
    return values, update_ops


_SUMMATION_METHODS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC or the precision-recall curve, from counts at
    ``num_thresholds`` thresholds spread evenly over [0, 1] (or at ``thresholds``, with
    -1e-7 and 1 + 1e-7 added), summed by ``summation_method`` (TF's default: trapezoids).
    ``predictions`` must be in [0, 1]."""
    with variable_scope(name, "auc", _scope_values(labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + thresholds + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        n = num_thresholds
        epsilon = 1.0e-6

        def interpolate_pr_auc(tp, fp, fn):
            # Davis & Goadrich 2006: precision interpolated between thresholds.
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(p[:n - 1] - p[1:], 0),
                                             name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = math_ops.where(
                math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0),
                                    name="recall_relative_ratio"),
                array_ops.ones_like(p[1:]))
            return math_ops.reduce_sum(
                math_ops.div_no_nan(
                    prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                    math_ops.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR":
                if summation_method == "trapezoidal":
                    logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; "
                                    'please switch to "careful_interpolation" instead.')
                elif summation_method == "careful_interpolation":
                    return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.divide(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
            if summation_method not in _SUMMATION_METHODS:
                raise ValueError(f"Invalid summation_method: {summation_method} "
                                 "summation_method should be 'trapezoidal', "
                                 "'careful_interpolation', 'minoring', or 'majoring'.")
            widths = x[:n - 1] - x[1:]
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[:n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            else:
                heights = math_ops.maximum(y[:n - 1], y[1:])
            return math_ops.reduce_sum(math_ops.multiply(widths, heights), name=name)

        auc_value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"],
                                "value")
        _add(metrics_collections, auc_value)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"],
                                update_ops["fp"], "update_op")
        _add(updates_collections, update_op)
        return auc_value, update_op


def _count_at_thresholds(key, default_name):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, _scope_values(predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,))
            value = array_ops.identity(values[key])
            _add(metrics_collections, value)
            _add(updates_collections, update_ops[key])
            return value, update_ops[key]

    metric.__name__ = metric.__qualname__ = default_name + "_at_thresholds"
    metric.__doc__ = (f"The (weighted) {default_name.replace('_', ' ')} at each of "
                      "``thresholds`` (a prediction above a threshold counts as positive).")
    return metric


true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives")
false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives")
false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives")
true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives")


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fp + 1e-7)`` at each of ``thresholds``."""
    with variable_scope(name, "precision_at_thresholds",
                        _scope_values(predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", "fp"))
        epsilon = 1e-7
        prec = math_ops.divide(values["tp"], epsilon + values["tp"] + values["fp"],
                               name="precision_value")
        _add(metrics_collections, prec)
        update_op = math_ops.divide(update_ops["tp"],
                                    epsilon + update_ops["tp"] + update_ops["fp"],
                                    name="precision_update_op")
        _add(updates_collections, update_op)
        return prec, update_op


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fn + 1e-7)`` at each of ``thresholds``."""
    with variable_scope(name, "recall_at_thresholds",
                        _scope_values(predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", "fn"))
        epsilon = 1e-7
        rec = math_ops.divide(values["tp"], epsilon + values["tp"] + values["fn"],
                              name="recall_value")
        _add(metrics_collections, rec)
        update_op = math_ops.divide(update_ops["tp"],
                                    epsilon + update_ops["tp"] + update_ops["fn"],
                                    name="recall_update_op")
        _add(updates_collections, update_op)
        return rec, update_op


def _even_thresholds(num_thresholds, top):
    kepsilon = 1e-7
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + inner + [top]


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The recall at the threshold whose specificity is closest to ``specificity``."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1]. Currently, "
                         f"`specificity` got {specificity}.")
    with variable_scope(name, "sensitivity_at_specificity",
                        _scope_values(predictions, labels, weights)):
        kepsilon = 1e-7
        thresholds = _even_thresholds(num_thresholds, 1.0 + kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)

        def compute(tp, tn, fp, fn, name):
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        sensitivity = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add(metrics_collections, sensitivity)
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"],
                            update_ops["fn"], "update_op")
        _add(updates_collections, update_op)
        return sensitivity, update_op


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity at the (last) threshold whose recall is closest to ``sensitivity``
    (TF's last threshold here is ``1 - 1e-7``)."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1]. Currently, "
                         f"`sensitivity` is {sensitivity}.")
    with variable_scope(name, "specificity_at_sensitivity",
                        _scope_values(predictions, labels, weights)):
        kepsilon = 1e-7
        thresholds = _even_thresholds(num_thresholds, 1.0 - kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)

        def compute(tp, tn, fp, fn, name):
            sensitivities = math_ops.divide(tp, tp + fn + kepsilon)
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity),
                                               min_val)
            # TF: argmax(cumsum(indices_at_minval)), the last index at the minimum; here
            # argmax of (index + 1) where at the minimum, 0 elsewhere: the same index.
            positions = math_ops.range(1, len(thresholds) + 1, dtype=dtypes.int64)
            tf_index = math_ops.argmax(
                math_ops.cast(indices_at_minval, dtypes.int64) * positions, 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

        specificity = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add(metrics_collections, specificity)
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"],
                            update_ops["fn"], "update_op")
        _add(updates_collections, update_op)
        return specificity, update_op


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
        mean_iou_v = math_ops.where(
            math_ops.greater(num_valid_entries, 0),
            math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries, 0)
        _add(metrics_collections, mean_iou_v)

        # TF's _streaming_confusion_matrix; the batch's matrix is a segment sum over
        # label * num_classes + prediction (TF: confusion_matrix's ScatterNd).
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
            current_cm = array_ops.reshape(
                math_ops.unsorted_segment_sum(counts, cells, num_classes * num_classes),
                [num_classes, num_classes])
        update_op = state_ops.assign_add(total_cm, current_cm)
        _add(updates_collections, update_op)
        return mean_iou_v, update_op


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
        metric = math_ops.divide(tp, math_ops.add(tp, rest), name=scope)
        _add(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, rest_update),
                                 name="update")
        _add(updates_collections, update)
        return metric, update


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



def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    raise missing_attribute(__name__, name)
