"""``tf.estimator.train_and_evaluate`` on one machine, with ``TrainSpec``, ``EvalSpec`` and
the exporters an ``EvalSpec`` runs after each evaluation."""

from __future__ import annotations

import collections
import glob
import os
import shutil
import time

from scopeflow.estimator.estimator import Estimator, _fn_args
from scopeflow.platform import tf_logging as logging
from scopeflow.summary.reader import summary_iterator
from scopeflow.train.basic_session_run_hooks import CheckpointSaverListener, SecondOrStepTimer
from scopeflow.train.session_run_hook import SessionRunHook

__all__ = ["BestExporter", "EvalSpec", "Exporter", "FinalExporter", "LatestExporter",
           "TrainSpec", "train_and_evaluate"]


def _check_hooks(hooks):
    hooks = tuple(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h}")
    return hooks


class TrainSpec(collections.namedtuple("TrainSpec",
                                       ["input_fn", "max_steps", "hooks", "saving_listeners"])):
    """What ``train_and_evaluate`` trains on and for how long."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, _check_hooks(hooks),
                               tuple(saving_listeners or []))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """What ``train_and_evaluate`` evaluates on, how often, and what it exports."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if exporters is None:
            exporters = ()
        elif isinstance(exporters, Exporter):
            exporters = (exporters,)
        else:
            exporters = tuple(exporters)
            for e in exporters:
                if not isinstance(e, Exporter):
                    raise TypeError(f"`exporters` must be an Exporter, an iterable of "
                                    f"Exporter, or `None`, found {exporters}.")
            names = [e.name for e in exporters]
            if len(set(names)) != len(names):
                raise ValueError("`exporters` must have unique names.")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn, steps, name, _check_hooks(hooks), exporters,
                               start_delay_secs, throttle_secs)


class Exporter:
    """Writes an export of the estimator after an evaluation."""

    name = property(lambda self: self._name)

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        raise NotImplementedError(f"{type(self).__name__}.export")


class FinalExporter(Exporter):
    """Exports once, after the final evaluation."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._name = name
        self._fn = serving_input_receiver_fn
        self._assets_extra, self._as_text = assets_extra, as_text

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return estimator.export_saved_model(export_path, self._fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)


def _garbage_collect_exports(export_dir_base, exports_to_keep):
    """TF's: keeps the ``exports_to_keep`` newest exports (10-digit timestamp folders)."""
    if exports_to_keep is None or not os.path.isdir(export_dir_base):
        return
    stamps = sorted(int(d) for d in os.listdir(export_dir_base)
                    if len(d) == 10 and d.isdigit())
    for stamp in stamps[:-exports_to_keep]:
        path = os.path.join(export_dir_base, str(stamp))
        logging.info("Removing %s", path)
        shutil.rmtree(path, ignore_errors=True)


def _check_exports_to_keep(exports_to_keep):
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError("`exports_to_keep`, if provided, must be a positive number. "
                         f"Got {exports_to_keep}")
    return exports_to_keep


class LatestExporter(FinalExporter):
    """Exports after every evaluation, keeping the newest ``exports_to_keep``."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._exports_to_keep = _check_exports_to_keep(exports_to_keep)

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        path = estimator.export_saved_model(export_path, self._fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)
        _garbage_collect_exports(export_path, self._exports_to_keep)
        return path


def _loss_smaller(best_eval_result, current_eval_result):
    """TF's default ``compare_fn``: True when the current ``loss`` is smaller."""
    if not best_eval_result or "loss" not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or "loss" not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _verify_compare_fn_args(compare_fn):
    args = set(_fn_args(compare_fn))
    for needed in ("best_eval_result", "current_eval_result"):
        if needed not in args:
            raise ValueError(f"compare_fn ({compare_fn}) must include {needed} argument.")
    extra = list(args - {"best_eval_result", "current_eval_result"})
    if extra:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: "
                         f"{extra}")


class BestExporter(FinalExporter):
    """Exports whenever an evaluation is better (``compare_fn``, by default a smaller
    ``loss``) than the best so far, which it first reads from the eval events files
    (``event_file_pattern`` under ``model_dir``), so a restarted job keeps its best;
    keeps the newest ``exports_to_keep``."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _verify_compare_fn_args(compare_fn)
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._compare_fn = compare_fn
        self._event_file_pattern = event_file_pattern
        self._model_dir = None
        self._best_eval_result = None
        self._has_exported = False
        self._exports_to_keep = _check_exports_to_keep(exports_to_keep)

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            logging.info("Loading best metric from event files.")
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(os.fsdecode(self._model_dir), self._event_file_pattern))
        if self._best_eval_result is not None and self._has_exported and \
                not self._compare_fn(best_eval_result=self._best_eval_result,
                                     current_eval_result=eval_result):
            return None
        logging.info("Performing best model export.")
        self._best_eval_result = eval_result
        path = estimator.export_saved_model(export_path, self._fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)
        _garbage_collect_exports(export_path, self._exports_to_keep)
        self._has_exported = True
        return path

    def _get_best_eval_result(self, event_files):
        """The best of the eval results (each event's simple values) in the files."""
        best = None
        for event_file in sorted(glob.glob(event_files)):
            for event in summary_iterator(event_file):
                if not event.HasField("summary"):
                    continue
                result = {v.tag: v.simple_value for v in event.summary.value
                          if v.HasField("simple_value")}
                if result and (best is None or self._compare_fn(best, result)):
                    best = result
        return best


class _Evaluator:
    """Evaluates the newest checkpoint (once each) and runs the exporters."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_ckpt_path = None
        self._last_warning_time = 0

    def evaluate_and_export(self):
        latest = self._estimator.latest_checkpoint()
        if not latest:
            logging.warning("Estimator is not trained yet. Will start an evaluation when a "
                            "checkpoint is ready.")
            return None, []
        if latest == self._previous_ckpt_path:
            logging.warning("No new checkpoint ready for evaluation. Skip the current "
                            "evaluation pass as evaluation results are expected to be same "
                            "for the same checkpoint.")
            return None, []
        metrics = self._estimator.evaluate(input_fn=self._eval_spec.input_fn,
                                           steps=self._eval_spec.steps,
                                           name=self._eval_spec.name, checkpoint_path=latest,
                                           hooks=self._eval_spec.hooks)
        step = metrics["global_step"]
        is_final = bool(self._max_training_steps and step >= self._max_training_steps)
        export_results = []
        export_base = os.path.join(os.fsdecode(self._estimator.model_dir), "export")
        for exporter in self._eval_spec.exporters:
            export_results.append(exporter.export(
                self._estimator, os.path.join(export_base, exporter.name), latest, metrics,
                is_final))
        self._previous_ckpt_path = latest
        return metrics, export_results


class _NewCheckpointListenerForEvaluate(CheckpointSaverListener):
    """Evaluates after a checkpoint is saved, at most once per ``throttle_secs``, and at the
    end of training."""

    def __init__(self, evaluator, eval_throttle_secs):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self.eval_result = None
        self.export_results = None

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        del session
        if self._is_first_run:
            self._is_first_run = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info(f"Skip the current checkpoint eval due to throttle secs "
                         f"({self._eval_throttle_secs} secs).")
        return False

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        metrics, exports = self._evaluator.evaluate_and_export()
        if metrics is not None:
            self.eval_result, self.export_results = metrics, exports
        self._timer.update_last_triggered_step(global_step_value)


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains ``estimator`` to ``train_spec.max_steps``, evaluating after checkpoints (at most
    every ``throttle_secs``) and at the end; returns ``(metrics, export_results)`` of the
    last evaluation. One machine: a cluster ``TF_CONFIG`` raises NotImplementedError."""
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`, given "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
                        f"{type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                        f"{type(eval_spec)}")
    config = estimator.config
    logging.info("Running training and evaluation locally (non-distributed).")
    logging.info("Start train and evaluate loop. The evaluate will happen after every "
                 "checkpoint. Checkpoint frequency is determined based on RunConfig "
                 f"arguments: save_checkpoints_steps {config.save_checkpoints_steps} or "
                 f"save_checkpoints_secs {config.save_checkpoints_secs}.")
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _NewCheckpointListenerForEvaluate(evaluator, eval_spec.throttle_secs)
    start = time.time()
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks),
                    saving_listeners=[listener] + list(train_spec.saving_listeners))
    logging.debug("train_and_evaluate took %.3fs", time.time() - start)
    return listener.eval_result, listener.export_results
