"""``tf.estimator.ModeKeys`` and ``tf.estimator.EstimatorSpec``: what a ``model_fn`` returns."""

from __future__ import annotations

import collections

from scopeflow.estimator import export_output as export_output_lib
from scopeflow.framework.graph import Operation, Tensor
from scopeflow.ops import array_ops
from scopeflow.saved_model import signature_constants
from scopeflow.train.monitored_session import Scaffold
from scopeflow.train.session_run_hook import SessionRunHook

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


class ModeKeys:
    """The three modes a ``model_fn`` is called in (TF's strings)."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_SPEC_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
                "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
                "prediction_hooks"]


def _check_tensor(x, name):
    if not isinstance(x, (Tensor, Operation)) and not hasattr(x, "op"):
        raise TypeError(f"{name} must be Tensor, given: {x}")
    return x


def _check_hooks(hooks, name):
    hooks = tuple(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h}")
    del name
    return hooks


def _check_metric(key, value):
    if hasattr(value, "result") and hasattr(value, "update_state"):
        raise NotImplementedError(
            f"eval_metric_ops[{key!r}]: Keras Metric objects in EstimatorSpec are not "
            "implemented in scopeflow; use a tf.metrics (value, update_op) pair")
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"Values of eval_metric_ops must be (metric_value, update_op) "
                        f"tuples, given: {value} for key: {key}")
    _check_tensor(value[0], f"eval_metric_ops[{key}]")
    _check_tensor(value[1], f"eval_metric_ops[{key}]")


def get_export_outputs(export_outputs, predictions):
    """The spec's ``export_outputs`` with its ``serving_default``: a ``PredictOutput`` of
    ``predictions`` when none is given, the only one when one is given."""
    if export_outputs is None:
        export_outputs = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                          export_output_lib.PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for v in export_outputs.values():
        if not isinstance(v, export_output_lib.ExportOutput):
            raise TypeError(f"Values in export_outputs must be ExportOutput objects. Given: "
                            f"{export_outputs}")
    export_outputs = dict(export_outputs)
    default = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if len(export_outputs) == 1:
        ((key, value),) = export_outputs.items()
        if key != default:
            export_outputs[default] = value
    elif default not in export_outputs:
        raise ValueError("Multiple export_outputs were provided, but none of them is specified "
                         "as the default.  Do this by naming one of them with "
                         "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """Ops and objects a ``model_fn`` returns for one mode; checked as TF checks them."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"mode={mode} unrecognized.")
        if train_op is None and mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        if train_op is not None:
            _check_tensor(train_op, "train_op")
        if loss is None:
            if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
                raise ValueError("Missing loss.")
        else:
            _check_tensor(loss, "loss")
            shape = loss.get_shape()
            if shape.ndims not in (None, 0) and not (
                    shape.ndims == 1 and shape.as_list() == [1]):
                raise ValueError(f"Loss must be scalar, given: {loss}")
            if shape.ndims == 1:
                loss = array_ops.reshape(loss, [])
        if predictions is None:
            if mode == ModeKeys.PREDICT:
                raise ValueError("Missing predictions.")
            predictions = {}
        elif isinstance(predictions, dict):
            for k, v in predictions.items():
                _check_tensor(v, f"predictions[{k}]")
        else:
            _check_tensor(predictions, "predictions")
        eval_metric_ops = dict(eval_metric_ops or {})
        for k, v in eval_metric_ops.items():
            _check_metric(k, v)
        if mode == ModeKeys.PREDICT:
            export_outputs = get_export_outputs(export_outputs, predictions)
        scaffold = scaffold or Scaffold()
        if not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
            training_chief_hooks=_check_hooks(training_chief_hooks, "training_chief_hooks"),
            training_hooks=_check_hooks(training_hooks, "training_hooks"), scaffold=scaffold,
            evaluation_hooks=_check_hooks(evaluation_hooks, "evaluation_hooks"),
            prediction_hooks=_check_hooks(prediction_hooks, "prediction_hooks"))

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**{**self._asdict(), **kwds})
