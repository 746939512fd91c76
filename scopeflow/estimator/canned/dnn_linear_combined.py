"""``DNNLinearCombinedClassifier`` and ``DNNLinearCombinedRegressor`` (TF 1.x's wide-and-deep
estimators): the sum of a DNN's logits (``dnn/...``, Adagrad(0.001) by default) and a linear
model's (``linear/linear_model/...``, Ftrl(min(0.005, 1/sqrt(#columns))) by default), each
optimizer training its own scope's variables, then ``global_step`` incremented."""

from __future__ import annotations

import math

from scopeflow.estimator.canned import head as head_lib
from scopeflow.estimator.canned.dnn import _hidden_summary, dnn_logits, get_optimizer_instance
from scopeflow.estimator.canned.linear import check_unsupported, linear_logits
from scopeflow.estimator.estimator import Estimator
from scopeflow.framework.graph import GraphKeys, control_dependencies, get_collection
from scopeflow.ops.control_flow.control_flow_ops import group
from scopeflow.ops.nn.nn_activation_ops import relu
from scopeflow.ops.state.state_ops import assign_add
from scopeflow.state.variable_scope import variable_scope
from scopeflow.train.training_util import get_global_step

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _linear_learning_rate(num_linear_feature_columns):
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def _dnn_linear_combined_model_fn(features, labels, mode, head, linear_feature_columns,
                                  linear_optimizer, dnn_feature_columns, dnn_optimizer,
                                  dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                  batch_norm, linear_sparse_combiner):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                         "defined.")
    dnn_out = linear_out = None
    if dnn_feature_columns:
        dnn_optimizer = get_optimizer_instance(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        if not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        with variable_scope("dnn", values=tuple(features.values())) as scope:
            dnn_scope = scope.name
            dnn_out = dnn_logits(features, mode, head.logits_dimension, dnn_hidden_units,
                                 dnn_feature_columns, dnn_activation_fn, dnn_dropout,
                                 batch_norm=batch_norm)
    if linear_feature_columns:
        linear_optimizer = get_optimizer_instance(
            linear_optimizer,
            learning_rate=_linear_learning_rate(len(linear_feature_columns)))
        with variable_scope("linear", values=tuple(features.values())) as scope:
            linear_scope = scope.name
            linear_out = linear_logits(features, head.logits_dimension,
                                       linear_feature_columns, linear_sparse_combiner)
            _hidden_summary(linear_out, scope.name)
    if dnn_out is not None and linear_out is not None:
        logits = dnn_out + linear_out
    else:
        logits = dnn_out if dnn_out is not None else linear_out

    def _train_op_fn(loss):
        train_ops = []
        if dnn_out is not None:
            train_ops.append(dnn_optimizer.minimize(loss, var_list=get_collection(
                GraphKeys.TRAINABLE_VARIABLES, scope=dnn_scope)))
        if linear_out is not None:
            train_ops.append(linear_optimizer.minimize(loss, var_list=get_collection(
                GraphKeys.TRAINABLE_VARIABLES, scope=linear_scope)))
        train_op = group(*train_ops)
        with control_dependencies([train_op]):
            return assign_add(get_global_step(), 1).op

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn=_train_op_fn)


class _DNNLinearCombinedBase(Estimator):
    def __init__(self, head, model_dir, linear_feature_columns, linear_optimizer,
                 dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                 dnn_dropout, config, warm_start_from, batch_norm, linear_sparse_combiner):
        linear_feature_columns = list(linear_feature_columns or [])
        dnn_feature_columns = list(dnn_feature_columns or [])
        if not linear_feature_columns and not dnn_feature_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                             "defined.")
        self._feature_columns = linear_feature_columns + dnn_feature_columns

        def _model_fn(features, labels, mode, config):
            del config
            return _dnn_linear_combined_model_fn(
                features, labels, mode, head, linear_feature_columns, linear_optimizer,
                dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                dnn_activation_fn or relu, dnn_dropout, batch_norm, linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNLinearCombinedClassifier(_DNNLinearCombinedBase):
    """TF 1.x's wide-and-deep classifier (loss summed over the batch by default)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=head_lib.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        check_unsupported("DNNLinearCombinedClassifier", input_layer_partitioner,
                          linear_sparse_combiner)
        super().__init__(head_lib.binary_or_multi_class_head(n_classes, loss_reduction,
                                                             weight_column, label_vocabulary),
                         model_dir,
                         linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                         config, warm_start_from, batch_norm, linear_sparse_combiner)


class DNNLinearCombinedRegressor(_DNNLinearCombinedBase):
    """TF 1.x's wide-and-deep regressor (mean squared error, summed by default)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=head_lib.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        check_unsupported("DNNLinearCombinedRegressor", input_layer_partitioner,
                          linear_sparse_combiner)
        super().__init__(head_lib.RegressionHead(label_dimension, loss_reduction,
                                                 weight_column),
                         model_dir,
                         linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                         config, warm_start_from, batch_norm, linear_sparse_combiner)
