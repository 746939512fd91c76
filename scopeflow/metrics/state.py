"""Metric state (local variables) and the helpers every metric shares: squeezing labels,
broadcasting weights, dividing totals, as TF's ``metrics_impl``."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import tensor_util
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collections,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.logging import logging_ops
from scopeflow.state.variables import Variable


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


def _value_and_update(compute, counts, count_updates, metrics_collections,
                      updates_collections, names=("value", "update_op")):
    """A metric's ``(value, update_op)``: ``compute(counts, name)`` of its variables' counts
    and of their updates, each added to its collections."""
    value = compute(counts, names[0])
    _add(metrics_collections, value)
    update_op = compute(count_updates, names[1])
    _add(updates_collections, update_op)
    return value, update_op


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
    return predictions, labels, _match_weights_rank_at_run_time(weights, predictions)


def _match_weights_rank_at_run_time(weights, predictions):
    """TF's run-time form of the squeeze-or-expand above, for ranks unknown while building:
    a scalar stays, one extra dimension is squeezed, one missing dimension is added."""
    rank_diff = array_ops.rank(weights) - array_ops.rank(predictions)
    last = weights.shape.ndims and dimension_value(weights.shape[-1])

    def squeeze():
        return weights if last not in (None, 1) else array_ops.squeeze(weights, [-1])

    def expand_or_keep():
        return cond(math_ops.equal(-1, rank_diff),
                    lambda: array_ops.expand_dims(weights, [-1]), lambda: weights)

    return cond(math_ops.equal(0, array_ops.rank(weights)), lambda: weights,
                lambda: cond(math_ops.equal(1, rank_diff), squeeze, expand_or_keep))


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
            return _assert_broadcastable_at_run_time(weights, weights_shape, weights_rank,
                                                     values, values_shape, values_rank)
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


def _assert_broadcastable_at_run_time(weights, weights_shape, weights_rank, values,
                                      values_shape, values_rank):
    """TF's ``Assert`` for ranks unknown while building: a scalar, or the values' rank with
    each weight dimension 1 or the values' (fails the run with TF's message)."""
    is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")

    def same_dims():
        return math_ops.reduce_all(math_ops.logical_or(
            math_ops.equal(weights_shape, 1), math_ops.equal(weights_shape, values_shape)))

    def valid_nonscalar():
        return cond(math_ops.equal(weights_rank, values_rank), same_dims,
                    lambda: constant_op.constant(False))

    is_valid = cond(is_scalar, lambda: is_scalar, valid_nonscalar, name="is_valid_shape")
    return logging_ops.Assert(
        is_valid, [_BROADCAST_ERROR, "weights.shape=", weights.name, weights_shape,
                   "values.shape=", values.name, values_shape, "is_scalar=", is_scalar])


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
