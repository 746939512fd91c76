"""TF 1.x's premade-estimator heads: the loss, predictions, eval metrics and export outputs
over a model's logits (multi-class softmax, binary sigmoid, mean-squared-error regression),
with TF's names (``head/``, ``metrics/``) and keys (``average_loss``, ``accuracy``, ...)."""

from __future__ import annotations

from scopeflow import metrics
from scopeflow.estimator import export_output
from scopeflow.estimator.model_fn import EstimatorSpec, ModeKeys
from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from scopeflow.losses import losses_impl
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.control_flow_ops import group, with_dependencies
from scopeflow.ops.logging.check_ops import assert_less_equal, assert_non_negative
from scopeflow.ops.lookup.lookup_ops import KeyValueTensorInitializer, StaticHashTable
from scopeflow.ops.nn.nn_activation_ops import softmax
from scopeflow.ops.nn.nn_composites import sigmoid_cross_entropy_with_logits
from scopeflow.ops.strings.string_ops import as_string
from scopeflow.summary import scalar as summary_scalar
from scopeflow.train.training_util import get_global_step

_DEFAULT_SERVING_KEY = "serving_default"
_CLASSIFY_SERVING_KEY = "classification"
_REGRESS_SERVING_KEY = "regression"
_PREDICT_SERVING_KEY = "predict"
SUM = losses_impl.Reduction.SUM


def validate_loss_reduction(loss_reduction):
    """TF's check: one of ``tf.losses.Reduction`` other than ``NONE``."""
    if loss_reduction not in losses_impl.Reduction.all() or \
            loss_reduction == losses_impl.Reduction.NONE:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
    return loss_reduction


def _assert_range(labels, n_classes):
    """TF's ``_assert_range``: label ids in ``[0, n_classes - 1]`` (checked when run)."""
    with name_scope(None, "assert_range", (labels,)):
        assert_less = assert_less_equal(
            labels, convert_to_tensor(n_classes - 1, dtype=labels.dtype),
            message="Labels must <= n_classes - 1")
        assert_greater = assert_non_negative(labels, message="Labels must >= 0")
        with control_dependencies((assert_less, assert_greater)):
            return array_ops.identity(labels)


def _index_table_lookup(vocabulary, labels):
    """TF's ``index_table_from_tensor(vocabulary).lookup(labels)``: each string label's
    position in ``vocabulary`` (int64), -1 for one not in it. The table is filled by the
    scaffold's local init op (``tables_initializer``)."""
    with name_scope(None, "class_id_lookup"):
        keys = convert_to_tensor(list(vocabulary), dtypes.string, name="keys")
        init = KeyValueTensorInitializer(keys, math_ops.range(len(vocabulary),
                                                               dtype=dtypes.int64))
        table = StaticHashTable(init, default_value=-1)
    return table.lookup(labels)


def _index_to_string(vocabulary, class_ids):
    """TF's ``index_to_string_table_from_tensor(vocabulary).lookup(class_ids)``: the
    vocabulary string of each id (``'UNK'`` for one out of range)."""
    with name_scope(None, "class_string_lookup"):
        values = convert_to_tensor(list(vocabulary), dtypes.string, name="values")
        init = KeyValueTensorInitializer(math_ops.range(len(vocabulary), dtype=dtypes.int64),
                                         values)
        table = StaticHashTable(init, default_value="UNK")
    return table.lookup(math_ops.cast(class_ids, dtypes.int64))


def _string_label_ids(labels, vocabulary, n_classes):
    """TF's ``_label_ids``: integer labels as they are, or string labels looked up in the
    vocabulary; then checked to be in range."""
    if vocabulary is None:
        if not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        return _assert_range(labels, n_classes)
    if labels.dtype != dtypes.string:
        raise ValueError("Labels dtype should be string if there is a vocabulary. Instead "
                         f"got {labels.dtype}")
    return _assert_range(_index_table_lookup(vocabulary, labels), n_classes)


def _labels_as_column(labels, logits_dim):
    labels = array_ops.convert_to_tensor(labels) if not hasattr(labels, "dtype") else labels
    if labels.get_shape().ndims == 1:
        labels = array_ops.expand_dims(labels, -1)
    if labels.get_shape().ndims is not None and labels.get_shape()[-1] is not None \
            and labels.get_shape().as_list()[-1] != logits_dim:
        raise ValueError(f"Mismatched label shape. Expected labels dimension={logits_dim}.  "
                         f"Received {labels.get_shape().as_list()[-1]}")
    return labels


def _all_class_ids(logits, n_classes):
    batch = array_ops.shape(logits)[0]
    return array_ops.tile(array_ops.expand_dims(math_ops.range(n_classes), 0), [batch, 1])


def _all_classes(logits, n_classes, label_vocabulary=None):
    batch = array_ops.shape(logits)[0]
    classes = convert_to_tensor(list(label_vocabulary), dtypes.string) \
        if label_vocabulary else as_string(math_ops.range(n_classes))
    return array_ops.tile(array_ops.expand_dims(classes, 0), [batch, 1])


def _classes_of(class_ids, label_vocabulary):
    if label_vocabulary:
        return _index_to_string(label_vocabulary, class_ids)
    return as_string(class_ids, name="str_classes")


def _mean_of(values, name, weights=None):
    with name_scope(name) as scope:
        values = math_ops.cast(values, dtypes.float32, name="predictions")
        return metrics.mean(values, weights=weights, name=scope)


def _example_weights(features, weight_column, logits):
    """TF's ``_get_weights_and_check_match_logits``: the weight feature (a key or a
    ``numeric_column``, its ``normalizer_fn`` applied) as float32 ``[batch, 1]``; ``None``
    without a weight column."""
    if weight_column is None:
        return None
    with name_scope("weights"):
        key = weight_column if isinstance(weight_column, str) else weight_column.key
        if not isinstance(features, dict) or key not in features:
            raise ValueError(f"weight_column {key!r} is not in features "
                             f"({sorted(features) if isinstance(features, dict) else features})")
        weights = features[key]
        normalizer = getattr(weight_column, "normalizer_fn", None)
        if normalizer is not None:
            weights = normalizer(weights)
        if not weights.dtype.is_floating and not weights.dtype.is_integer:
            raise ValueError(f"Weight column should be castable to float. Given dtype: "
                             f"{weights.dtype}")
        weights = math_ops.cast(weights, dtypes.float32, name="weights")
        if weights.get_shape().ndims == 1:
            weights = array_ops.expand_dims(weights, -1)
        return weights


def _train_spec(loss, unreduced_loss, optimizer, predictions, train_op_fn=None,
                weights=None, loss_reduction=SUM):
    if train_op_fn is not None:
        train_op = train_op_fn(loss)
    else:
        train_op = optimizer.minimize(loss, global_step=get_global_step())
    update_ops = get_collection(GraphKeys.UPDATE_OPS)
    if update_ops:
        train_op = with_dependencies([group(*update_ops)], train_op)
    with name_scope(""):
        summary_scalar("loss", loss)
        if loss_reduction == SUM:  # as TF: the mean loss only for SUM
            ones = array_ops.ones_like(unreduced_loss)
            example_weight_sum = math_ops.reduce_sum(ones if weights is None
                                                     else weights * ones)
            summary_scalar("average_loss", loss / example_weight_sum)
    return EstimatorSpec(ModeKeys.TRAIN, predictions=predictions, loss=loss,
                         train_op=train_op)


class _Head:
    """One head: ``create_estimator_spec(features, mode, logits, labels, optimizer)``."""

    def __init__(self, logits_dimension, loss_reduction=SUM, weight_column=None):
        self._logits_dimension = logits_dimension
        self._loss_reduction = validate_loss_reduction(loss_reduction)
        self._weight_column = weight_column

    logits_dimension = property(lambda self: self._logits_dimension)

    def _loss(self, unreduced, weights=None):
        return losses_impl.compute_weighted_loss(
            unreduced, weights=1.0 if weights is None else weights,
            reduction=self._loss_reduction)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None):
        with name_scope("head"):
            predictions, outputs = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(ModeKeys.PREDICT, predictions=predictions,
                                     export_outputs=outputs)
            unreduced, processed = self._unreduced_loss(logits, labels)
            weights = _example_weights(features, self._weight_column, logits)
            loss = self._loss(unreduced, weights)
            if mode == ModeKeys.EVAL:
                with name_scope("metrics"):
                    ops = self._metrics(processed, predictions, unreduced, weights)
                return EstimatorSpec(ModeKeys.EVAL, predictions=predictions, loss=loss,
                                     eval_metric_ops=ops)
            return _train_spec(loss, unreduced, optimizer, predictions, train_op_fn, weights,
                               self._loss_reduction)


class MultiClassHead(_Head):
    """Softmax cross-entropy over ``n_classes`` logits; integer labels."""

    def __init__(self, n_classes, loss_reduction=SUM, weight_column=None,
                 label_vocabulary=None):
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise ValueError("label_vocabulary should be a list or a tuple. Given type: "
                             f"{type(label_vocabulary)}")
        super().__init__(n_classes, loss_reduction, weight_column)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    def _predictions(self, logits):
        with name_scope("predictions"):
            class_ids = array_ops.expand_dims(math_ops.argmax(logits, axis=-1,
                                                              name="class_ids"), -1)
            probabilities = softmax(logits, name="probabilities")
            predictions = {
                "logits": logits, "probabilities": probabilities, "class_ids": class_ids,
                "classes": _classes_of(class_ids, self._label_vocabulary),
                "all_class_ids": _all_class_ids(logits, self._n_classes),
                "all_classes": _all_classes(logits, self._n_classes, self._label_vocabulary)}
        out = export_output.ClassificationOutput(
            scores=probabilities,
            classes=_all_classes(probabilities, self._n_classes, self._label_vocabulary))
        return predictions, {_DEFAULT_SERVING_KEY: out, _CLASSIFY_SERVING_KEY: out,
                             _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _unreduced_loss(self, logits, labels):
        labels = _string_label_ids(_labels_as_column(labels, 1), self._label_vocabulary,
                                   self._n_classes)
        unreduced = losses_impl.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, reduction=losses_impl.Reduction.NONE)
        return array_ops.expand_dims(unreduced, -1), labels

    def _metrics(self, labels, predictions, unreduced, weights=None):
        return {"average_loss": metrics.mean(unreduced, weights=weights, name="average_loss"),
                "accuracy": metrics.accuracy(labels, predictions["class_ids"],
                                             weights=weights, name="accuracy")}


class BinaryClassHead(_Head):
    """Sigmoid cross-entropy over one logit; labels 0 or 1."""

    def __init__(self, loss_reduction=SUM, weight_column=None, label_vocabulary=None):
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise TypeError("label_vocabulary should be a list or tuple. Given type: "
                            f"{type(label_vocabulary)}")
        super().__init__(1, loss_reduction, weight_column)
        self._label_vocabulary = label_vocabulary

    def _predictions(self, logits):
        with name_scope("predictions"):
            logistic = math_ops.sigmoid(logits, name="logistic")
            two = array_ops.concat([array_ops.zeros_like(logits), logits], axis=-1,
                                   name="two_class_logits")
            probabilities = softmax(two, name="probabilities")
            class_ids = array_ops.expand_dims(math_ops.argmax(two, axis=-1,
                                                              name="class_ids"), -1)
            predictions = {
                "logits": logits, "logistic": logistic, "probabilities": probabilities,
                "class_ids": class_ids,
                "classes": _classes_of(class_ids, self._label_vocabulary),
                "all_class_ids": _all_class_ids(logits, 2),
                "all_classes": _all_classes(logits, 2, self._label_vocabulary)}
        out = export_output.ClassificationOutput(
            scores=probabilities, classes=_all_classes(probabilities, 2,
                                                       self._label_vocabulary))
        return predictions, {_DEFAULT_SERVING_KEY: out, _CLASSIFY_SERVING_KEY: out,
                             _REGRESS_SERVING_KEY: export_output.RegressionOutput(logistic),
                             _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _unreduced_loss(self, logits, labels):
        labels = _labels_as_column(labels, 1)
        if self._label_vocabulary is not None:
            labels = _index_table_lookup(self._label_vocabulary, labels)
        labels = _assert_range(math_ops.cast(labels, dtypes.float32), 2)
        return sigmoid_cross_entropy_with_logits(labels=labels, logits=logits), labels

    def _metrics(self, labels, predictions, unreduced, weights=None):
        logistic = predictions["logistic"]
        class_ids = predictions["class_ids"]
        label_mean = _mean_of(labels, "label/mean", weights)
        value, update = label_mean
        with name_scope("accuracy_baseline"):
            baseline = (math_ops.maximum(value, 1.0 - value, name="value"),
                        math_ops.maximum(update, 1.0 - update, name="update_op"))
        with name_scope("auc") as scope:
            auc = metrics.auc(labels, math_ops.cast(logistic, dtypes.float32),
                              weights=weights, name=scope)
        with name_scope("auc_precision_recall") as scope:
            auc_pr = metrics.auc(labels, math_ops.cast(logistic, dtypes.float32),
                                 weights=weights, curve="PR", name=scope)
        return {"average_loss": metrics.mean(unreduced, weights=weights, name="average_loss"),
                "accuracy": metrics.accuracy(labels, class_ids, weights=weights,
                                             name="accuracy"),
                "precision": metrics.precision(labels, class_ids, weights=weights,
                                               name="precision"),
                "recall": metrics.recall(labels, class_ids, weights=weights, name="recall"),
                "prediction/mean": _mean_of(logistic, "prediction/mean", weights),
                "label/mean": label_mean, "accuracy_baseline": baseline,
                "auc": auc, "auc_precision_recall": auc_pr}


class RegressionHead(_Head):
    """Mean squared error over ``label_dimension`` logits."""

    def __init__(self, label_dimension=1, loss_reduction=SUM, weight_column=None):
        super().__init__(label_dimension, loss_reduction, weight_column)

    def _predictions(self, logits):
        predictions = {"predictions": logits}
        out = export_output.RegressionOutput(value=logits)
        return predictions, {_DEFAULT_SERVING_KEY: out, _REGRESS_SERVING_KEY: out,
                             _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _unreduced_loss(self, logits, labels):
        labels = math_ops.cast(_labels_as_column(labels, self._logits_dimension),
                               dtypes.float32)
        return losses_impl.mean_squared_error(labels=labels, predictions=logits,
                                              reduction=losses_impl.Reduction.NONE), labels

    def _metrics(self, labels, predictions, unreduced, weights=None):
        return {"average_loss": metrics.mean(unreduced, weights=weights),
                "prediction/mean": _mean_of(predictions["predictions"], "prediction/mean",
                                            weights),
                "label/mean": metrics.mean(labels, weights=weights)}


def binary_or_multi_class_head(n_classes, loss_reduction=SUM, weight_column=None,
                               label_vocabulary=None):
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}")
    if n_classes == 2:
        return BinaryClassHead(loss_reduction, weight_column, label_vocabulary)
    return MultiClassHead(n_classes, loss_reduction, weight_column, label_vocabulary)
