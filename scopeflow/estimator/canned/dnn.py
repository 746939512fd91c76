"""``DNNClassifier`` and ``DNNRegressor`` (TF 1.x's ``tf.compat.v1.estimator`` versions) with
TF's variable names: ``dnn/hiddenlayer_<i>/{kernel,bias}``, ``dnn/logits/{kernel,bias}`` and,
with ``batch_norm=True``, ``dnn/hiddenlayer_<i>/batchnorm_<i>/{gamma,beta,moving_mean,
moving_variance}``."""

from __future__ import annotations

from scopeflow import train as train_lib
from scopeflow.estimator.canned import head as head_lib
from scopeflow.estimator.estimator import Estimator
from scopeflow.feature_column.feature_column import input_layer
from scopeflow.layers import core as layers_core
from scopeflow.layers import normalization as layers_normalization
from scopeflow.ops.math.count_ops import zero_fraction
from scopeflow.ops.nn.nn_activation_ops import relu
from scopeflow.ops.state import init_ops
from scopeflow.state.partitioned_variables import min_max_variable_partitioner
from scopeflow.state.variable_scope import get_variable_scope, variable_scope
from scopeflow.summary import histogram, scalar

_LEARNING_RATE = 0.05
_OPTIMIZERS = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer", "Ftrl": "FtrlOptimizer",
               "RMSProp": "RMSPropOptimizer", "SGD": "GradientDescentOptimizer"}


def get_optimizer_instance(opt, learning_rate=None):
    """An optimizer from TF's names (``'Adagrad'``, ...), an instance, or a callable."""
    if isinstance(opt, str):
        if opt not in _OPTIMIZERS:
            raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                             f"{tuple(sorted(_OPTIMIZERS))}")
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return getattr(train_lib, _OPTIMIZERS[opt])(learning_rate=learning_rate)
    if callable(opt) and not hasattr(opt, "minimize"):
        opt = opt()
    if not hasattr(opt, "minimize"):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt


class _BatchNormalization(layers_normalization.BatchNormalization):
    """TF's legacy ``BatchNormalization``, whose ``moving_mean``/``moving_variance`` are made
    with the variable scope's partitioner switched off (``gamma``/``beta`` keep it), as TF's
    ``build`` does; the estimators' ``dnn`` scope has a partitioner."""

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None):
        scope = get_variable_scope()
        partitioner = scope.partitioner
        if trainable or partitioner is None:
            return super().add_weight(name, shape, dtype, initializer, regularizer,
                                      trainable, constraint)
        scope.set_partitioner(None)
        try:
            return super().add_weight(name, shape, dtype, initializer, regularizer,
                                      trainable, constraint)
        finally:
            scope.set_partitioner(partitioner)


def _hidden_summary(value, tag):
    scalar(f"{tag}/fraction_of_zero_values", zero_fraction(value))
    histogram(f"{tag}/activation", value)


def dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn=relu,
               dropout=None, input_layer_partitioner=None, batch_norm=False):
    """TF's DNN logit function, in the current variable scope (``dnn``):
    ``input_from_feature_columns``, ``hiddenlayer_<i>``, ``logits``.

    As TF 2.15's ``_DNNModel``: each hidden layer is ``activation(x @ kernel + bias)``, then
    dropout (training only), then with ``batch_norm`` a ``BatchNormalization(momentum=0.999)``
    named ``batchnorm_<i>`` inside ``hiddenlayer_<i>``: batch statistics and the moving-average
    updates (``UPDATE_OPS``, run with the train op by the head) in training, the moving
    statistics in eval and predict."""
    with variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
        net = input_layer(features, feature_columns)
    for layer_id, num in enumerate(hidden_units):
        with variable_scope(f"hiddenlayer_{layer_id}") as scope:
            net = layers_core.dense(
                net, num, activation=activation_fn,
                kernel_initializer=init_ops.glorot_uniform_initializer(), name=scope)
            if dropout is not None and mode == "train":
                net = layers_core.dropout(net, rate=dropout, training=True)
            if batch_norm:
                bn = _BatchNormalization(momentum=0.999, name=f"batchnorm_{layer_id}",
                                         _scope=f"batchnorm_{layer_id}")
                net = bn(net, training=mode == "train")
        _hidden_summary(net, scope.name)
    with variable_scope("logits") as scope:
        logits = layers_core.dense(
            net, units, activation=None,
            kernel_initializer=init_ops.glorot_uniform_initializer(), name=scope)
    _hidden_summary(logits, scope.name)
    return logits


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                  optimizer="Adagrad", activation_fn=relu, dropout=None, batch_norm=False,
                  input_layer_partitioner=None):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    # TF's partitioners (one part on one machine) and the head built inside the ``dnn``
    # scope: its slots are saved as TF 2.15 names them, ``<var>/t_0/Adagrad``.
    partitioner = min_max_variable_partitioner(max_partitions=0)
    with variable_scope("dnn", values=tuple(features.values()), partitioner=partitioner):
        input_layer_partitioner = input_layer_partitioner or min_max_variable_partitioner(
            max_partitions=0, min_slice_size=64 << 20)
        logits = dnn_logits(features, mode, head.logits_dimension, hidden_units,
                            feature_columns, activation_fn, dropout, input_layer_partitioner,
                            batch_norm)
        return head.create_estimator_spec(features, mode, logits, labels, optimizer)


class _DNNBase(Estimator):
    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer,
                 activation_fn, dropout, config, warm_start_from, batch_norm,
                 input_layer_partitioner):
        feature_columns = tuple(feature_columns or [])
        hidden_units = list(hidden_units)

        def _model_fn(features, labels, mode, config):
            del config
            return _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                                 optimizer, activation_fn, dropout, batch_norm,
                                 input_layer_partitioner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(_DNNBase):
    """TF 1.x's ``DNNClassifier``: Adagrad(0.05), loss summed over the batch (defaults)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=head_lib.SUM,
                 batch_norm=False):
        super().__init__(head_lib.binary_or_multi_class_head(n_classes, loss_reduction,
                                                             weight_column, label_vocabulary),
                         hidden_units,
                         feature_columns, model_dir, optimizer, activation_fn, dropout,
                         config, warm_start_from, batch_norm, input_layer_partitioner)


class DNNRegressor(_DNNBase):
    """TF 1.x's ``DNNRegressor``: mean squared error summed over the batch."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=head_lib.SUM, batch_norm=False):
        super().__init__(head_lib.RegressionHead(label_dimension, loss_reduction,
                                                 weight_column),
                         hidden_units,
                         feature_columns, model_dir, optimizer, activation_fn, dropout,
                         config, warm_start_from, batch_norm, input_layer_partitioner)
