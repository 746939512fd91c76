"""``LinearClassifier`` and ``LinearRegressor`` (TF 1.x's ``tf.compat.v1.estimator``
versions) with TF's variable names: ``linear/linear_model/<column>/weights``,
``linear/linear_model/bias_weights``; Ftrl(0.2), loss summed over the batch (defaults)."""

from __future__ import annotations

from scopeflow.estimator.canned import head as head_lib
from scopeflow.estimator.canned.dnn import get_optimizer_instance
from scopeflow.estimator.estimator import Estimator
from scopeflow.feature_column.feature_column import linear_model
from scopeflow.framework import dtypes
from scopeflow.framework.graph import name_scope
from scopeflow.ops import math_ops
from scopeflow.ops.array import shape_ops
from scopeflow.ops.math import arithmetic_ops
from scopeflow.ops.math.count_ops import zero_fraction
from scopeflow.state.partitioned_variables import min_max_variable_partitioner
from scopeflow.state.partitioning import PartitionedVariable
from scopeflow.state.variable_scope import variable_scope
from scopeflow.summary import histogram, scalar

_LEARNING_RATE = 0.2
_COMBINERS = ("sum", "mean", "sqrtn")


def _fraction_of_zero(variables):
    """TF's ``zero_fraction`` over all the model's weights (bias excluded)."""
    with name_scope("zero_fraction"):
        sizes = [math_ops.cast(shape_ops.size(v), dtypes.float32) for v in variables]
        with name_scope("total_zero"):
            zeros = arithmetic_ops.add_n([zero_fraction(v) * s
                                          for v, s in zip(variables, sizes)])
        return math_ops.divide(zeros, arithmetic_ops.add_n(sizes),
                               name="zero_fraction_or_nan")


def _expanded(variables):
    """TF's ``_get_expanded_variable_list``: partitioned variables as their parts."""
    out = []
    for v in variables:
        out.extend(list(v) if isinstance(v, PartitionedVariable) else [v])
    return out


def linear_logits(features, units, feature_columns, sparse_combiner="sum"):
    """TF's linear logit function in the current variable scope (``linear``): a
    ``linear_model`` with its ``bias`` and ``fraction_of_zero_weights`` summaries."""
    cols_to_vars = {}
    logits = linear_model(features, feature_columns, units=units,
                          sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars)
    bias = _expanded(cols_to_vars.pop("bias"))
    variables = _expanded([v for vs in cols_to_vars.values() for v in vs])
    if units > 1:
        histogram("bias", bias[0])
    else:
        scalar("bias", bias[0][0])
    if variables:
        scalar("fraction_of_zero_weights", _fraction_of_zero(variables))
    return logits


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer,
                     sparse_combiner):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")
    # TF's default partitioner (one part on one machine): the checkpoint keeps the full
    # names, the Ftrl slots are ``<weights>/part_0/Ftrl``.
    partitioner = min_max_variable_partitioner(max_partitions=0, min_slice_size=64 << 20)
    with variable_scope("linear", values=tuple(features.values()), partitioner=partitioner):
        logits = linear_logits(features, head.logits_dimension, feature_columns,
                               sparse_combiner)
        optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE) \
            if mode == "train" else None
        return head.create_estimator_spec(features, mode, logits, labels, optimizer)


def check_unsupported(kind, partitioner=None, sparse_combiner="sum"):
    if partitioner is not None:
        raise NotImplementedError(f"{kind}'s partitioner is not implemented in scopeflow yet")
    if sparse_combiner not in _COMBINERS:
        raise ValueError(f"Combiner must be one of {list(_COMBINERS)}, got: "
                         f"{sparse_combiner}")


class _LinearBase(Estimator):
    def __init__(self, head, feature_columns, model_dir, optimizer, config, warm_start_from,
                 sparse_combiner):
        if hasattr(optimizer, "_symmetric_l2_regularization"):  # LinearSDCA
            raise NotImplementedError("Linear estimators with a LinearSDCA optimizer are not "
                                      "implemented in scopeflow yet")
        feature_columns = tuple(feature_columns or [])

        def _model_fn(features, labels, mode, config):
            del config
            return _linear_model_fn(features, labels, mode, head, feature_columns,
                                    optimizer, sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(_LinearBase):
    """TF 1.x's ``LinearClassifier``: Ftrl(0.2), loss summed over the batch (defaults)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=head_lib.SUM, sparse_combiner="sum"):
        check_unsupported("LinearClassifier", partitioner, sparse_combiner)
        super().__init__(head_lib.binary_or_multi_class_head(n_classes, loss_reduction,
                                                             weight_column, label_vocabulary),
                         feature_columns,
                         model_dir, optimizer, config, warm_start_from, sparse_combiner)


class LinearRegressor(_LinearBase):
    """TF 1.x's ``LinearRegressor``: mean squared error (summed over the batch by default)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=head_lib.SUM, sparse_combiner="sum"):
        check_unsupported("LinearRegressor", partitioner, sparse_combiner)
        super().__init__(head_lib.RegressionHead(label_dimension, loss_reduction,
                                                 weight_column),
                         feature_columns,
                         model_dir, optimizer, config, warm_start_from, sparse_combiner)
