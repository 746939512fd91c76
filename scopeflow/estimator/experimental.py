"""``tf.estimator.experimental``: early stopping on the metrics ``evaluate`` wrote (TF's
``early_stopping.py``, one machine)."""

from __future__ import annotations

import collections
import glob
import operator
import os

from scopeflow.estimator.estimator import Estimator
from scopeflow.framework import dtypes
from scopeflow.framework.api_fallback import APINotImplementedError, missing_attribute
from scopeflow.framework.errors import DataLossError
from scopeflow.framework.graph import GraphKeys
from scopeflow.ops.state import init_ops
from scopeflow.ops.state.state_ops import assign
from scopeflow.platform import tf_logging as logging
from scopeflow.state.variable_scope import AUTO_REUSE, get_variable, variable_scope
from scopeflow.summary.reader import summary_iterator
from scopeflow.train.basic_session_run_hooks import SecondOrStepTimer
from scopeflow.train.session_run_hook import SessionRunArgs, SessionRunHook
from scopeflow.train.training_util import get_global_step

# read_eval_metrics is TF's early_stopping module function, not exported by TF here.
__all__ = ["make_early_stopping_hook", "stop_if_higher_hook",
           "stop_if_lower_hook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook"]

_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook that stops training when ``should_stop_fn()`` is true, checked every
    ``run_every_secs`` seconds or ``run_every_steps`` steps."""
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops once ``metric_name`` in ``eval_dir`` is higher than ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, True, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops once ``metric_name`` in ``eval_dir`` is lower than ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, False, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when ``metric_name`` has not increased for ``max_steps_without_increase``."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase, True,
                                eval_dir, min_steps, run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when ``metric_name`` has not decreased for ``max_steps_without_decrease``."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease, False,
                                eval_dir, min_steps, run_every_secs, run_every_steps)


def _summaries(eval_dir):
    if os.path.isdir(eval_dir):
        for event_file in sorted(glob.glob(os.path.join(eval_dir, _EVENT_FILE_GLOB_PATTERN))):
            try:
                yield from summary_iterator(event_file)
            except DataLossError as e:
                logging.warning("Skipping rest of the file due to encountering data "
                                "corruption error; file path: %s; original error raised by "
                                "`tf.train.summary_iterator`: %s", event_file, e)


def read_eval_metrics(eval_dir):
    """``{step: {metric: value}}`` (steps in order) of the scalars in ``eval_dir``."""
    by_step = collections.defaultdict(dict)
    for event in _summaries(eval_dir):
        if not event.HasField("summary"):
            continue
        metrics = {v.tag: v.simple_value for v in event.summary.value
                   if v.HasField("simple_value")}
        if metrics:
            by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(by_step.items(), key=lambda t: t[0]))


def _threshold_hook(estimator, metric_name, threshold, higher_is_better, eval_dir,
                    min_steps, run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    greater_or_lesser = "greater than" if higher_is_better else "less than"

    def stop_if_threshold_crossed_fn():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if is_lhs_better(val, threshold):
                logging.info('At step %s, metric "%s" has value %s which is %s the configured '
                             "threshold (%s) for early stopping.", step, metric_name, val,
                             greater_or_lesser, threshold)
                return True
        return False

    return make_early_stopping_hook(estimator, stop_if_threshold_crossed_fn, run_every_secs,
                                    run_every_steps)


def _no_improvement_hook(estimator, metric_name, max_steps_without_improvement,
                         higher_is_better, eval_dir, min_steps, run_every_secs,
                         run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    increase_or_decrease = "increase" if higher_is_better else "decrease"

    def stop_if_no_metric_improvement_fn():
        best_val = best_val_step = None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if best_val is None or is_lhs_better(val, best_val):
                best_val, best_val_step = val, step
            if step - best_val_step >= max_steps_without_improvement:
                logging.info('No %s in metric "%s" for %s steps, which is greater than or '
                             "equal to max steps (%s) configured for early stopping.",
                             increase_or_decrease, metric_name, step - best_val_step,
                             max_steps_without_improvement)
                return True
        return False

    return make_early_stopping_hook(estimator, stop_if_no_metric_improvement_fn,
                                    run_every_secs, run_every_steps)


def _get_or_create_stop_var():
    with variable_scope("signal_early_stopping", values=[], reuse=AUTO_REUSE):
        return get_variable("STOP", shape=[], dtype=dtypes.bool,
                            initializer=init_ops.constant_initializer(False),
                            collections=[GraphKeys.GLOBAL_VARIABLES], trainable=False)


class _StopOnPredicateHook(SessionRunHook):
    """Runs ``should_stop_fn`` on the timer; when true, sets ``signal_early_stopping/STOP``
    and requests stop."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs,
                                        every_steps=run_every_steps)

    def begin(self):
        self._global_step_tensor = get_global_step()
        self._stop_var = _get_or_create_stop_var()
        self._stop_op = assign(self._stop_var, True)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results
        if self._timer.should_trigger_for_step(global_step):
            self._timer.update_last_triggered_step(global_step)
            if self._should_stop_fn():
                logging.info("Requesting early stopping at global step %d", global_step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(SessionRunHook):
    """A non-chief's half: stops when the chief set ``signal_early_stopping/STOP``."""

    def begin(self):
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        return SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        if run_values.results:
            logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()


_NOT_YET = {
    "InMemoryEvaluatorHook": "evaluation inside training",
    "LinearSDCA": "the SDCA optimizer of linear estimators",
    "make_stop_at_checkpoint_step_hook": "waiting for a checkpoint step",
    "RNNClassifier": "premade RNN estimators", "RNNEstimator": "premade RNN estimators",
    "dnn_logit_fn_builder": "the DNN logit_fn builder",
    "linear_logit_fn_builder": "the linear logit_fn builder",
    "call_logit_fn": "calling a logit_fn",
    "build_raw_supervised_input_receiver_fn": "supervised input receivers",
}


def __getattr__(name):
    why = _NOT_YET.get(name)
    if why is not None:
        raise APINotImplementedError(
            f"tf.estimator.experimental.{name} is part of TensorFlow 1's API but scopeflow "
            f"does not implement it yet: {why} (see docs/estimator.md)")
    raise missing_attribute(__name__, name)
