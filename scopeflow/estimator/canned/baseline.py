"""``BaselineClassifier`` and ``BaselineRegressor`` (TF 1.x's): a model of one bias per
output, ``baseline/bias``, trained with Ftrl(0.3) by default; it predicts the labels' prior
(the class frequencies, or the mean)."""

from __future__ import annotations

from scopeflow.estimator.canned import head as head_lib
from scopeflow.estimator.canned.dnn import get_optimizer_instance
from scopeflow.estimator.estimator import Estimator
from scopeflow.framework import dtypes
from scopeflow.framework.graph import control_dependencies
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.logging.check_ops import assert_equal
from scopeflow.ops.state import init_ops
from scopeflow.state.variable_scope import get_variable, variable_scope

_LEARNING_RATE = 0.3


def _batch_size_and_checks(features, weight_column):
    """TF's: the first feature's batch size, and checks that the others (the weight column
    left out) have the same."""
    checks, batch_size = [], None
    weight_key = getattr(weight_column, "key", weight_column)
    for key, feature in features.items():
        if key == weight_key:
            continue
        if isinstance(feature, SparseTensor):  # TF's shape of one: its int32 dense_shape
            first_dim = math_ops.cast(feature.dense_shape, dtypes.int32)[0]
        else:
            first_dim = array_ops.shape(feature)[0]
        if batch_size is None:
            batch_size = first_dim
        else:
            checks.append(assert_equal(batch_size, first_dim))
    return checks, batch_size


def _baseline_logits(features, num_outputs, weight_column=None):
    if not isinstance(features, dict):
        features = {"": features}
    checks, batch_size = _batch_size_and_checks(features, weight_column)
    with control_dependencies(checks), variable_scope("baseline"):
        bias = get_variable("bias", shape=[num_outputs],
                            initializer=init_ops.zeros_initializer())
        return math_ops.multiply(bias, array_ops.ones([batch_size, num_outputs],
                                                      dtype=dtypes.float32))


class _BaselineBase(Estimator):
    def __init__(self, head, model_dir, optimizer, config, weight_column):
        def _model_fn(features, labels, mode, config):
            del config
            logits = _baseline_logits(features, head.logits_dimension, weight_column)
            opt = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE) \
                if mode == "train" else None
            return head.create_estimator_spec(features, mode, logits, labels, opt)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(_BaselineBase):
    """Predicts the class frequencies seen in training (TF 1.x's; loss summed by default)."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, loss_reduction=head_lib.SUM):
        super().__init__(head_lib.binary_or_multi_class_head(
            n_classes, loss_reduction, weight_column, label_vocabulary), model_dir,
            optimizer, config, weight_column)


class BaselineRegressor(_BaselineBase):
    """Predicts the mean label seen in training (TF 1.x's; loss summed by default)."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, loss_reduction=head_lib.SUM):
        super().__init__(head_lib.RegressionHead(label_dimension, loss_reduction,
                                                 weight_column), model_dir, optimizer,
                         config, weight_column)
