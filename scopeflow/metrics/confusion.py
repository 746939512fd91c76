"""Counts of true/false positives/negatives, precision and recall, at one threshold or
many, and ``auc``, ``sensitivity_at_specificity``, ``specificity_at_sensitivity``."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors, tensor_util
from scopeflow.framework.graph import (
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.metrics.state import (
    _add,
    _broadcast_weights,
    _remove_squeezable_dimensions,
    _scope_values,
    _value_and_update,
    metric_variable,
)
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.state import state_ops
from scopeflow.platform import tf_logging as logging
from scopeflow.state.variable_scope import variable_scope


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
    return _tp_ratio("precision", false_positives, labels, predictions, weights,
                     metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """``true_positives / (true_positives + false_negatives)`` (0 with no positives)."""
    return _tp_ratio("recall", false_negatives, labels, predictions, weights,
                     metrics_collections, updates_collections, name)


def _tp_ratio(metric, count_other, labels, predictions, weights, metrics_collections,
              updates_collections, name):
    """``true_positives / (true_positives + other)`` in scope ``metric``, ``other`` counted
    by ``count_other`` (``false_positives`` for precision, ``false_negatives`` for recall)."""
    with variable_scope(name, metric, _scope_values(predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
            weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        other, other_update = count_other(labels, predictions, weights)
        return _value_and_update(lambda counts, name: _ratio(*counts, name),
                                 (true_p, other), (true_p_update, other_update),
                                 metrics_collections, updates_collections)


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
    includes = _checked_includes(includes)
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
    weights_tiled = None
    if weights is not None:
        weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]),
                                       [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    cases = {"tp": ("true_positives", label_is_pos, pred_is_pos),
             "fn": ("false_negatives", label_is_pos, pred_is_neg),
             "tn": ("true_negatives", label_is_neg, pred_is_neg),
             "fp": ("false_positives", label_is_neg, pred_is_pos)}
    return _count_cases([(key, *cases[key]) for key in _ALL_INCLUDES if key in includes],
                        num_thresholds, weights_tiled)


_ALL_INCLUDES = ("tp", "fn", "tn", "fp")


def _checked_includes(includes):
    """``includes`` (all four counts when None), each one a key of ``_ALL_INCLUDES``."""
    if includes is None:
        return _ALL_INCLUDES
    for include in includes:
        if include not in _ALL_INCLUDES:
            raise ValueError(f"Invalid key: {include}")
    return includes


def _count_cases(cases, num_thresholds, weights_tiled):
    """A counting variable per ``(key, variable name, label mask, prediction mask)`` and
    its update op adding this batch's (weighted) count per threshold, each by key."""
    values, update_ops = {}, {}
    for key, var_name, label_mask, pred_mask in cases:
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
        thresholds, n = _auc_thresholds(thresholds, num_thresholds)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        auc_value = _auc_of_counts(values, "value", curve, summation_method, n)
        _add(metrics_collections, auc_value)
        update_op = _auc_of_counts(update_ops, "update_op", curve, summation_method, n)
        _add(updates_collections, update_op)
        return auc_value, update_op


def _auc_thresholds(thresholds, num_thresholds):
    """AUC's thresholds, ``-1e-7`` and ``1 + 1e-7`` around the given or evenly spread ones,
    and how many there are."""
    kepsilon = 1e-7
    if thresholds is not None:
        thresholds = sorted(thresholds)
        num_thresholds = len(thresholds) + 2
    else:
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                      for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + thresholds + [1.0 + kepsilon], num_thresholds


def _auc_of_counts(counts, name, curve, summation_method, n):
    """The area under ``curve`` from the ``n`` thresholds' ``counts`` (by key)."""
    tp, fn, tn, fp = counts["tp"], counts["fn"], counts["tn"], counts["fp"]
    epsilon = 1.0e-6
    if curve == "PR":
        if summation_method == "trapezoidal":
            logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; "
                            'please switch to "careful_interpolation" instead.')
        elif summation_method == "careful_interpolation":
            return _interpolate_pr_auc(tp, fp, fn, n)
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


def _interpolate_pr_auc(tp, fp, fn, n):
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
    return _tp_ratio_at_thresholds("precision", "fp", labels, predictions, thresholds, weights,
                                   metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fn + 1e-7)`` at each of ``thresholds``."""
    return _tp_ratio_at_thresholds("recall", "fn", labels, predictions, thresholds, weights,
                                   metrics_collections, updates_collections, name)


def _tp_ratio_at_thresholds(metric, other, labels, predictions, thresholds, weights,
                            metrics_collections, updates_collections, name):
    """``tp / (tp + <other> + 1e-7)`` at each threshold, in scope and ops named after
    ``metric``: ``precision`` (``other`` is ``fp``) or ``recall`` (``fn``)."""
    with variable_scope(name, f"{metric}_at_thresholds",
                        _scope_values(predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", other))
        epsilon = 1e-7

        def compute(counts, name):
            return math_ops.divide(counts["tp"], epsilon + counts["tp"] + counts[other],
                                   name=name)

        return _value_and_update(compute, values, update_ops, metrics_collections,
                                 updates_collections,
                                 (f"{metric}_value", f"{metric}_update_op"))


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

        def compute(counts, name):
            tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        return _value_and_update(compute, values, update_ops, metrics_collections,
                                 updates_collections)


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

        def compute(counts, name):
            tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
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

        return _value_and_update(compute, values, update_ops, metrics_collections,
                                 updates_collections)
