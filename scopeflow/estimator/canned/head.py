"""TF 1.x's premade-estimator heads: the loss, predictions, eval metrics and export outputs
over a model's logits (multi-class softmax, binary sigmoid, mean-squared-error regression),
with TF's names (``head/``, ``metrics/``) and keys (``average_loss``, ``accuracy``, ...)."""

from __future__ import annotations

from scopeflow import metrics
from scopeflow.estimator import export_output
from scopeflow.estimator.model_fn import EstimatorSpec, ModeKeys
from scopeflow.framework import dtypes
from scopeflow.framework.graph import GraphKeys, get_collection, name_scope
from scopeflow.losses import losses_impl
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.control_flow_ops import group, with_dependencies
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


def _all_classes(logits, n_classes):
    batch = array_ops.shape(logits)[0]
    return array_ops.tile(array_ops.expand_dims(as_string(math_ops.range(n_classes)), 0),
                          [batch, 1])


def _mean_of(values, name):
    with name_scope(name) as scope:
        values = math_ops.cast(values, dtypes.float32, name="predictions")
        return metrics.mean(values, name=scope)


def _train_spec(loss, unreduced_loss, optimizer, predictions, train_op_fn=None):
    if train_op_fn is not None:
        train_op = train_op_fn(loss)
    else:
        train_op = optimizer.minimize(loss, global_step=get_global_step())
    update_ops = get_collection(GraphKeys.UPDATE_OPS)
    if update_ops:
        train_op = with_dependencies([group(*update_ops)], train_op)
    example_weight_sum = math_ops.reduce_sum(array_ops.ones_like(unreduced_loss))
    with name_scope(""):
        summary_scalar("loss", loss)
        summary_scalar("average_loss", loss / example_weight_sum)
    return EstimatorSpec(ModeKeys.TRAIN, predictions=predictions, loss=loss,
                         train_op=train_op)


class _Head:
    """One head: ``create_estimator_spec(features, mode, logits, labels, optimizer)``."""

    def __init__(self, logits_dimension, loss_reduction=SUM):
        self._logits_dimension = logits_dimension
        self._loss_reduction = loss_reduction

    logits_dimension = property(lambda self: self._logits_dimension)

    def _loss(self, unreduced):
        return losses_impl.compute_weighted_loss(unreduced, reduction=self._loss_reduction)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None):
        with name_scope("head"):
            predictions, outputs = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(ModeKeys.PREDICT, predictions=predictions,
                                     export_outputs=outputs)
            unreduced, processed = self._unreduced_loss(logits, labels)
            loss = self._loss(unreduced)
            if mode == ModeKeys.EVAL:
                with name_scope("metrics"):
                    ops = self._metrics(processed, predictions, unreduced)
                return EstimatorSpec(ModeKeys.EVAL, predictions=predictions, loss=loss,
                                     eval_metric_ops=ops)
            return _train_spec(loss, unreduced, optimizer, predictions, train_op_fn)


class MultiClassHead(_Head):
    """Softmax cross-entropy over ``n_classes`` logits; integer labels."""

    def __init__(self, n_classes, loss_reduction=SUM):
        super().__init__(n_classes, loss_reduction)
        self._n_classes = n_classes

    def _predictions(self, logits):
        with name_scope("predictions"):
            class_ids = array_ops.expand_dims(math_ops.argmax(logits, axis=-1,
                                                              name="class_ids"), -1)
            probabilities = softmax(logits, name="probabilities")
            predictions = {
                "logits": logits, "probabilities": probabilities, "class_ids": class_ids,
                "classes": as_string(class_ids, name="str_classes"),
                "all_class_ids": _all_class_ids(logits, self._n_classes),
                "all_classes": _all_classes(logits, self._n_classes)}
        out = export_output.ClassificationOutput(scores=probabilities,
                                                 classes=_all_classes(probabilities,
                                                                      self._n_classes))
        return predictions, {_DEFAULT_SERVING_KEY: out, _CLASSIFY_SERVING_KEY: out,
                             _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _unreduced_loss(self, logits, labels):
        labels = _labels_as_column(labels, 1)
        if not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        unreduced = losses_impl.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, reduction=losses_impl.Reduction.NONE)
        return array_ops.expand_dims(unreduced, -1), labels

    def _metrics(self, labels, predictions, unreduced):
        return {"average_loss": metrics.mean(unreduced, name="average_loss"),
                "accuracy": metrics.accuracy(labels, predictions["class_ids"],
                                             name="accuracy")}


class BinaryClassHead(_Head):
    """Sigmoid cross-entropy over one logit; labels 0 or 1."""

    def __init__(self, loss_reduction=SUM):
        super().__init__(1, loss_reduction)

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
                "class_ids": class_ids, "classes": as_string(class_ids, name="str_classes"),
                "all_class_ids": _all_class_ids(logits, 2),
                "all_classes": _all_classes(logits, 2)}
        out = export_output.ClassificationOutput(scores=probabilities,
                                                 classes=_all_classes(probabilities, 2))
        return predictions, {_DEFAULT_SERVING_KEY: out, _CLASSIFY_SERVING_KEY: out,
                             _REGRESS_SERVING_KEY: export_output.RegressionOutput(logistic),
                             _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _unreduced_loss(self, logits, labels):
        labels = math_ops.cast(_labels_as_column(labels, 1), dtypes.float32)
        return sigmoid_cross_entropy_with_logits(labels=labels, logits=logits), labels

    def _metrics(self, labels, predictions, unreduced):
        logistic = predictions["logistic"]
        class_ids = predictions["class_ids"]
        label_mean = _mean_of(labels, "label/mean")
        value, update = label_mean
        with name_scope("accuracy_baseline"):
            baseline = (math_ops.maximum(value, 1.0 - value, name="value"),
                        math_ops.maximum(update, 1.0 - update, name="update_op"))
        with name_scope("auc") as scope:
            auc = metrics.auc(labels, math_ops.cast(logistic, dtypes.float32), name=scope)
        with name_scope("auc_precision_recall") as scope:
            auc_pr = metrics.auc(labels, math_ops.cast(logistic, dtypes.float32),
                                 curve="PR", name=scope)
        return {"average_loss": metrics.mean(unreduced, name="average_loss"),
                "accuracy": metrics.accuracy(labels, class_ids, name="accuracy"),
                "precision": metrics.precision(labels, class_ids, name="precision"),
                "recall": metrics.recall(labels, class_ids, name="recall"),
                "prediction/mean": _mean_of(logistic, "prediction/mean"),
                "label/mean": label_mean, "accuracy_baseline": baseline,
                "auc": auc, "auc_precision_recall": auc_pr}


class RegressionHead(_Head):
    """Mean squared error over ``label_dimension`` logits."""

    def __init__(self, label_dimension=1, loss_reduction=SUM):
        super().__init__(label_dimension, loss_reduction)

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

    def _metrics(self, labels, predictions, unreduced):
        return {"average_loss": metrics.mean(unreduced),
                "prediction/mean": _mean_of(predictions["predictions"], "prediction/mean"),
                "label/mean": metrics.mean(labels)}


def binary_or_multi_class_head(n_classes, loss_reduction=SUM):
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}")
    return BinaryClassHead(loss_reduction) if n_classes == 2 else \
        MultiClassHead(n_classes, loss_reduction)
