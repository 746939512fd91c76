"""``tf.estimator.Estimator``: a ``model_fn`` trained, evaluated, run and exported on
``MonitoredTrainingSession``, with TF's ``model_dir`` layout (``checkpoint``,
``model.ckpt-N.*``, ``graph.pbtxt``, ``events.out.tfevents.*``, ``eval/``) and log lines."""

from __future__ import annotations

import collections
import inspect
import os
import tempfile
import time

import numpy as np

from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.iterator_ops import make_initializable_iterator
from scopeflow.estimator import export as export_lib
from scopeflow.estimator.model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from scopeflow.estimator.run_config import RunConfig
from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    Graph,
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
)
from scopeflow.framework.random_seed import set_random_seed
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_tensor_proto
from scopeflow.metrics import mean as metrics_mean
from scopeflow.ops.control_flow.control_flow_ops import group
from scopeflow.ops.state import init_ops, state_ops
from scopeflow.platform import tf_logging as logging
from scopeflow.runtime.session import Session
from scopeflow.saved_model import builder as saved_model_builder
from scopeflow.saved_model import tag_constants
from scopeflow.state.variable_scope import get_variable
from scopeflow.summary import scalar as summary_scalar
from scopeflow.summary.writer import FileWriterCache
from scopeflow.train import basic_session_run_hooks as hooks_lib
from scopeflow.train import checkpoint_management, checkpoint_utils, training_util
from scopeflow.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
)
from scopeflow.train.saver import Saver
from scopeflow.train.session_run_hook import SessionRunArgs, SessionRunHook
from scopeflow.train.vocab_remap import VocabInfo
from scopeflow.train.warm_start import warm_start

__all__ = ["Estimator", "VocabInfo", "WarmStartSettings", "add_metrics"]


def _fn_args(fn):
    """The argument names ``fn`` takes (a ``functools.partial``'s remaining ones)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    return tuple(name for name, p in params.items()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


class WarmStartSettings(collections.namedtuple(
        "WarmStartSettings", ["ckpt_to_initialize_from", "vars_to_warm_start",
                              "var_name_to_vocab_info", "var_name_to_prev_var_name"])):
    """What ``tf.train.warm_start`` loads before training starts (no checkpoint yet)."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


def _get_default_warm_start_settings(warm_start_from):
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fsdecode(warm_start_from)
        variables_dir = os.path.join(path, "variables")
        if os.path.exists(os.path.join(variables_dir, "variables.index")):
            logging.info("Warm-starting from a SavedModel")
            return WarmStartSettings(ckpt_to_initialize_from=os.path.join(variables_dir,
                                                                          "variables"))
        return WarmStartSettings(ckpt_to_initialize_from=path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got "
                     f"{type(warm_start_from)}")


def _check_hooks_type(hooks):
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {h}")
    return hooks


def _check_listeners_type(saving_listeners):
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, hooks_lib.CheckpointSaverListener):
            raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener}")
    return listeners


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    try:
        return int(checkpoint_utils.load_variable(checkpoint_dir, GraphKeys.GLOBAL_STEP))
    except Exception:  # noqa: BLE001 - TF's: no checkpoint (or no step) means step 0
        return 0


class _DatasetInitializerHook(SessionRunHook):
    """Runs a Dataset iterator's initializer when the session is created."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def parse_input_fn_result(result):
    """``(features, labels, input_hooks)`` from what an ``input_fn`` returned: a Dataset (of
    ``(features, labels)`` or features), a ``(features, labels)`` pair or features."""
    input_hooks = []
    if isinstance(result, Dataset):
        iterator = make_initializable_iterator(result)
        input_hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(f"input_fn should return (features, labels) as a len 2 tuple, "
                             f"got {len(result)}")
        return result[0], result[1], input_hooks
    return result, None, input_hooks


class _StopAfterNEvalsHook(SessionRunHook):
    """Stops the evaluation after ``num_evals`` batches and logs ``Evaluation [n/N]``."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_frequency = (1 if num_evals is None or num_evals < 20
                               else int(num_evals // 10))

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = int(run_values.results["evals_completed"])
        if self._log_progress:
            if self._num_evals is None:
                logging.info("Evaluation [%d]", evals_completed)
            elif (evals_completed % self._log_frequency == 0
                  or self._num_evals == evals_completed):
                logging.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


def _get_or_create_eval_step():
    """The graph's local int64 ``eval_step`` counter (``GraphKeys.EVAL_STEP``)."""
    steps = get_collection(GraphKeys.EVAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return get_variable(GraphKeys.EVAL_STEP, shape=[], dtype=dtypes.int64,
                        initializer=init_ops.zeros_initializer(), trainable=False,
                        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


def _evaluate_once(checkpoint_path, scaffold, eval_ops, final_ops, hooks, config):
    """Restores ``checkpoint_path`` (or initializes), runs ``eval_ops`` until the input ends
    or a hook stops, and returns ``final_ops``' values (TF's ``evaluation._evaluate_once``)."""
    eval_step = _get_or_create_eval_step()
    hooks = list(hooks)
    if eval_ops is not None:
        update_eval_step = state_ops.assign_add(eval_step, 1, use_locking=True)
        eval_ops = [eval_ops, update_eval_step]
        for h in hooks:
            if isinstance(h, _StopAfterNEvalsHook):
                h._set_evals_completed_tensor(update_eval_step)  # noqa: SLF001
    logging.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%S",
                                                           time.localtime()))
    start = time.time()
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                  config=config)
    final_ops_hook = hooks_lib.FinalOpsHook(final_ops)
    hooks.append(final_ops_hook)
    with MonitoredSession(session_creator=creator, hooks=hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops)
    logging.info(f"Inference Time : {time.time() - start:0.5f}s")
    logging.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S",
                                                           time.localtime()))
    return final_ops_hook.final_ops_values


def _dict_to_str(dictionary):
    return ", ".join("%s = %s" % (k, v) for k, v in sorted(dictionary.items())  # noqa: UP031
                     if not isinstance(v, bytes))


def _write_dict_to_summary(output_dir, dictionary, current_global_step):
    """The metrics as scalar summaries in ``output_dir``'s events file, at the step."""
    logging.info("Saving dict for global step %d: %s", current_global_step,
                 _dict_to_str(dictionary))
    writer = FileWriterCache.get(output_dir)
    summary = protos.Summary()
    for key, value in dictionary.items():
        if value is None or key == "global_step":
            continue
        if isinstance(value, (float, np.floating, int, np.integer)) and \
                not isinstance(value, bool):
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, bytes):
            try:
                parsed = protos.Summary.FromString(value)
            except Exception:  # noqa: BLE001 - TF's DecodeError: skipped with a warning
                logging.warning("Skipping summary for %s, cannot parse string to Summary.", key)
                continue
            for i, v in enumerate(parsed.value):
                v.tag = f"{key}/{i}"
            summary.value.extend(parsed.value)
        elif isinstance(value, np.ndarray):
            v = summary.value.add()
            v.tag = key
            v.node_name = key
            v.tensor.CopyFrom(make_tensor_proto(value))
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or np.ndarray or a serialized string of Summary.",
                            key)
    writer.add_summary(summary, current_global_step)
    writer.flush()


def _write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    logging.info("Saving '%s' summary for global step %d: %s", "checkpoint_path",
                 current_global_step, checkpoint_path)
    summary = protos.Summary()
    summary.value.add(tag="checkpoint_path",
                      tensor=make_tensor_proto(checkpoint_path, dtype=dtypes.string))
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, current_global_step)
    writer.flush()


def _extract_metric_update_ops(eval_dict):
    update_ops, value_ops = [], {}
    for name, (value, update) in sorted(eval_dict.items()):
        value_ops[name] = value
        update_ops.append(update)
    return (group(*update_ops) if update_ops else None), value_ops


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    if isinstance(predict_keys, str):
        predict_keys = [predict_keys]
    existing = predictions
    predictions = {k: v for k, v in predictions.items() if k in predict_keys}
    if not predictions:
        raise ValueError(f"Expected to run at least one output from {existing}, provided "
                         f"{predict_keys}.")
    return predictions


def _extract_batch_length(preds_evaluated):
    batch_length = None
    for key, value in preds_evaluated.items():
        length = len(value) if np.ndim(value) else None
        if length is None:
            raise ValueError(f"Prediction {key!r} has no batch dimension: a scalar cannot be "
                             "split into single examples (use yield_single_examples=False)")
        batch_length = batch_length or length
        if length != batch_length:
            raise ValueError(f"Batch length of predictions should be same. {key} has "
                             "different batch length than others.")
    return batch_length


class Estimator:
    """Trains, evaluates, predicts with and exports the model a ``model_fn`` builds."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        if config is None:
            config = RunConfig()
            logging.info("Using default config.")
        if not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided "
                             f"{config}.")
        model_dir = os.fspath(model_dir) if model_dir is not None else None
        if model_dir and config.model_dir and model_dir != config.model_dir:
            raise ValueError(f"`model_dir` are set both in constructor and `RunConfig`, but "
                             f"with different values. In constructor: '{model_dir}', in "
                             f"`RunConfig`: '{config.model_dir}' ")
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            logging.warning("Using temporary folder as model directory: %s", model_dir)
        if config.model_dir != model_dir:
            config = config.replace(model_dir=model_dir)
        self._config = config
        logging.info("Using config: %s", str(vars(self._config)))
        self._model_dir = model_dir
        self._session_config = config.session_config or protos.ConfigProto(
            allow_soft_placement=True)
        self._device_fn = config.device_fn
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = dict(params or {})
        self._warm_start_settings = _get_default_warm_start_settings(warm_start_from)

    model_dir = property(lambda self: self._model_dir)

    @property
    def model_fn(self):
        """The ``model_fn`` as TF exposes it: ``(features, labels, mode, config)``, with
        this estimator's params."""

        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    @property
    def config(self):
        return self._config

    @property
    def params(self):
        return dict(self._params)

    # ── checkpoint access ─────────────────────────────────────────────────────────────
    def latest_checkpoint(self):
        """The newest checkpoint prefix in ``model_dir``, or None."""
        return checkpoint_management.latest_checkpoint(self.model_dir)

    def _require_checkpoint(self):
        path = self.latest_checkpoint()
        if not path:
            raise ValueError(f"Could not find trained model in model_dir: {self.model_dir}.")
        return path

    def get_variable_names(self):
        """The names of the variables in the newest checkpoint."""
        return [name for name, _ in checkpoint_utils.list_variables(self._require_checkpoint())]

    def get_variable_value(self, name):
        """The value of variable ``name`` in the newest checkpoint."""
        return checkpoint_utils.load_variable(self._require_checkpoint(), name)

    def eval_dir(self, name=None):
        """``model_dir/eval`` or ``model_dir/eval_<name>``."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # ── calling the user's functions ─────────────────────────────────────────────────
    def _call_input_fn(self, input_fn, mode):
        args = _fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        return input_fn(**kwargs)

    def _get_features_and_labels_from_input_fn(self, input_fn, mode):
        return parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _call_model_fn(self, features, labels, mode, config):
        args = _fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec

    def _create_and_assert_global_step(self, graph):
        step = training_util.create_global_step(graph)
        assert step.dtype.is_integer
        return step

    # ── train ─────────────────────────────────────────────────────────────────────────
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains until ``input_fn`` ends, ``steps`` more steps, or ``max_steps`` in all."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start_step = _load_global_step_from_checkpoint_dir(self._model_dir)
            if max_steps <= start_step:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        hooks = _check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(hooks_lib.StopAtStepHook(steps, max_steps))
        saving_listeners = _check_listeners_type(saving_listeners)
        loss = self._train_model(input_fn, hooks, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        worker_hooks = []
        with Graph().as_default() as g:
            set_random_seed(self._config.tf_random_seed)
            global_step_tensor = self._create_and_assert_global_step(g)
            features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
                input_fn, ModeKeys.TRAIN)
            worker_hooks.extend(input_hooks)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            global_step_tensor = training_util.get_global_step(g)
            return self._train_with_estimator_spec(spec, worker_hooks, hooks,
                                                   global_step_tensor, saving_listeners)

    def _train_with_estimator_spec(self, spec, worker_hooks, hooks, global_step_tensor,
                                   saving_listeners):
        if self._warm_start_settings and not checkpoint_management.latest_checkpoint(
                self._model_dir):
            logging.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
            warm_start(*self._warm_start_settings)
        if not any(s.op.name == "loss" for s in get_collection(GraphKeys.SUMMARIES)):
            summary_scalar("loss", spec.loss)
        add_to_collection(GraphKeys.LOSSES, spec.loss)
        worker_hooks.extend(hooks)
        worker_hooks.append(hooks_lib.NanTensorHook(spec.loss))
        if self._config.log_step_count_steps is not None:
            worker_hooks.append(hooks_lib.LoggingTensorHook(
                {"loss": spec.loss, "step": global_step_tensor},
                every_n_iter=self._config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if not (spec.scaffold.saver or get_collection(GraphKeys.SAVERS)):
            add_to_collection(GraphKeys.SAVERS, Saver(
                sharded=True, max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                defer_build=True, save_relative_paths=True))
        chief_hooks = self._chief_saver_hooks(spec, worker_hooks, saving_listeners)
        return self._run_training_loop(spec, worker_hooks, chief_hooks)

    def _chief_saver_hooks(self, spec, worker_hooks, saving_listeners):
        """TF's CheckpointSaverHook (unless the hooks bring one), the listeners attached to
        the first saver hook; the chief-only hooks."""
        chief_hooks = []
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks = [h for h in all_hooks if isinstance(h, hooks_lib.CheckpointSaverHook)]
        if self._config.save_checkpoints_secs or self._config.save_checkpoints_steps:
            if not saver_hooks:
                chief_hooks = [hooks_lib.CheckpointSaverHook(
                    self._model_dir, save_secs=self._config.save_checkpoints_secs,
                    save_steps=self._config.save_checkpoints_steps, scaffold=spec.scaffold,
                    save_graph_def=self._config.checkpoint_save_graph_def)]
                saver_hooks = [chief_hooks[0]]
        if saving_listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use "
                                 "saving_listeners. Please set one of the "
                                 "RunConfig.save_checkpoints_steps or "
                                 "RunConfig.save_checkpoints_secs.")
            for listener in saving_listeners:
                if listener not in saver_hooks[0]._listeners:  # noqa: SLF001 - as TF
                    saver_hooks[0]._listeners.append(listener)  # noqa: SLF001
        return chief_hooks

    def _run_training_loop(self, spec, worker_hooks, chief_hooks):
        with MonitoredTrainingSession(
                master=self._config.master, is_chief=self._config.is_chief,
                checkpoint_dir=self._model_dir, scaffold=spec.scaffold, hooks=worker_hooks,
                chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=self._config.save_summary_steps,
                config=self._session_config,
                max_wait_secs=self._config.session_creation_timeout_secs,
                log_step_count_steps=self._config.log_step_count_steps,
                save_graph_def=self._config.checkpoint_save_graph_def) as mon_sess:
            loss = None
            current_step = 0
            while not mon_sess.should_stop():
                current_step += 1
                _, loss = mon_sess.run([spec.train_op, spec.loss])
            if current_step == 0:
                logging.warning("Training with estimator made no steps. Perhaps input is "
                                "empty or misspecified.")
        return loss

    # ── evaluate ──────────────────────────────────────────────────────────────────────
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates on ``steps`` batches (or until ``input_fn`` ends); the metrics (with
        ``loss`` and ``global_step``) are returned and written under ``eval_dir(name)``."""
        hooks = _check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError(f"Must specify steps > 0, given: {steps}")
            hooks.append(_StopAfterNEvalsHook(num_evals=steps))
        if not checkpoint_path:
            latest = self.latest_checkpoint()
            if not latest:
                logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                             "running initialization to evaluate.")
            checkpoint_path = latest
        with Graph().as_default():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
                input_fn, hooks, checkpoint_path)
            results = _evaluate_once(checkpoint_path, scaffold, update_op, eval_dict,
                                     all_hooks, self._session_config)
        current_global_step = results[GraphKeys.GLOBAL_STEP]
        output_dir = self.eval_dir(name)
        _write_dict_to_summary(output_dir, results, current_global_step)
        if checkpoint_path:
            _write_checkpoint_path_to_summary(output_dir, checkpoint_path,
                                              current_global_step)
        return results

    def _evaluate_build_graph(self, input_fn, hooks, checkpoint_path):
        set_random_seed(self._config.tf_random_seed)
        self._create_and_assert_global_step(get_default_graph())
        features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
            input_fn, ModeKeys.EVAL)
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        eval_metric_ops = dict(spec.eval_metric_ops)
        if LOSS_METRIC_KEY in eval_metric_ops:
            raise ValueError('Metric with name "loss" is not allowed, because Estimator '
                             "already defines a default metric with the same name.")
        eval_metric_ops[LOSS_METRIC_KEY] = metrics_mean(spec.loss)
        update_op, eval_dict = _extract_metric_update_ops(eval_metric_ops)
        global_step_tensor = training_util.get_global_step(get_default_graph())
        if not checkpoint_path and self._warm_start_settings:
            logging.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
            warm_start(*self._warm_start_settings)
        if GraphKeys.GLOBAL_STEP in eval_dict:
            raise ValueError("Metric with name `global_step` is not allowed, because Estimator "
                             "already defines a default metric with the same name.")
        eval_dict[GraphKeys.GLOBAL_STEP] = global_step_tensor
        all_hooks = list(input_hooks) + list(hooks) + list(spec.evaluation_hooks or [])
        scaffold = spec.scaffold
        if scaffold and scaffold.local_init_op:
            _get_or_create_eval_step()
            scaffold = Scaffold(local_init_op=group(scaffold.local_init_op,
                                                    Scaffold.default_local_init_op()),
                                copy_from_scaffold=scaffold)
        return scaffold, update_op, eval_dict, all_hooks

    # ── predict ───────────────────────────────────────────────────────────────────────
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields the model's predictions for ``input_fn``'s features, one example at a time
        (or one batch with ``yield_single_examples=False``)."""
        hooks = _check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                             "running initialization to predict.")
        with Graph().as_default() as g:
            set_random_seed(self._config.tf_random_seed)
            self._create_and_assert_global_step(g)
            features, _, input_hooks = self._get_features_and_labels_from_input_fn(
                input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            if self._warm_start_settings and not checkpoint_path:
                logging.info("Warm-starting with WarmStartSettings: %s",
                             self._warm_start_settings)
                warm_start(*self._warm_start_settings)
            predictions = _extract_keys(spec.predictions, predict_keys)
            all_hooks = list(input_hooks) + list(hooks) + list(spec.prediction_hooks or [])
            creator = ChiefSessionCreator(checkpoint_filename_with_path=checkpoint_path,
                                          scaffold=spec.scaffold, config=self._session_config)
            with MonitoredSession(session_creator=creator, hooks=all_hooks) as mon_sess:
                while not mon_sess.should_stop():
                    preds = mon_sess.run(predictions)
                    if not yield_single_examples:
                        yield preds
                    elif not isinstance(predictions, dict):
                        yield from preds
                    else:
                        for i in range(_extract_batch_length(preds)):
                            yield {key: value[i] for key, value in preds.items()}

    # ── export ────────────────────────────────────────────────────────────────────────
    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Writes a SavedModel (tag ``serve``) of the PREDICT graph with the newest (or the
        given) checkpoint's variables to ``export_dir_base/<timestamp>``; returns that path
        as bytes."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        if experimental_mode != ModeKeys.PREDICT:
            raise NotImplementedError(
                f"Estimator.export_saved_model(experimental_mode={experimental_mode!r}): only "
                "the PREDICT graph is exported by scopeflow")
        return self._export_saved_model(export_dir_base, serving_input_receiver_fn,
                                        assets_extra, as_text, checkpoint_path,
                                        strip_default_attrs=True)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                          as_text=False, checkpoint_path=None, strip_default_attrs=False):
        """TF's deprecated name of ``export_saved_model``."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_saved_model(export_dir_base, serving_input_receiver_fn,
                                        assets_extra, as_text, checkpoint_path,
                                        strip_default_attrs)

    def _export_saved_model(self, export_dir_base, receiver_fn, assets_extra, as_text,
                            checkpoint_path, strip_default_attrs):
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            raise ValueError(f"Couldn't find trained model at {self._model_dir}.")
        export_dir = export_lib.get_timestamped_export_dir(export_dir_base)
        temp_export_dir = export_lib.get_temp_export_dir(export_dir)
        builder = saved_model_builder.SavedModelBuilder(os.fsdecode(temp_export_dir))
        with Graph().as_default() as g:
            set_random_seed(self._config.tf_random_seed)
            receiver = receiver_fn()
            self._create_and_assert_global_step(g)
            spec = self._call_model_fn(receiver.features, None, ModeKeys.PREDICT, self.config)
            signature_def_map = export_lib.build_all_signature_defs(
                receiver.receiver_tensors, spec.export_outputs,
                getattr(receiver, "receiver_tensors_alternatives", None), serving_only=True)
            with Session(config=self._session_config) as session:
                local_init_op = spec.scaffold.local_init_op or \
                    Scaffold.default_local_init_op()
                saver = spec.scaffold.saver or Saver(sharded=True)
                saver.restore(session, checkpoint_path)
                builder.add_meta_graph_and_variables(
                    session, [tag_constants.SERVING], signature_def_map=signature_def_map,
                    assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
                    main_op=local_init_op, saver=saver,
                    strip_default_attrs=strip_default_attrs)
        builder.save(as_text)
        if assets_extra:
            extra_dir = os.path.join(os.fsdecode(temp_export_dir), "assets.extra")
            for dest_relative, source in assets_extra.items():
                dest = os.path.join(extra_dir, dest_relative)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(source, "rb") as src, open(dest, "wb") as dst:
                    dst.write(src.read())
        os.rename(temp_export_dir, export_dir)
        return export_dir

    def experimental_export_all_saved_models(self, *args, **kwargs):
        raise NotImplementedError(
            "Estimator.experimental_export_all_saved_models (TRAIN/EVAL graphs in one "
            "SavedModel) is not implemented in scopeflow; use export_saved_model")


def _verify_model_fn_args(model_fn, params):
    args = set(_fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but params "
                         f"({params}) are passed to Estimator.")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    non_valid = args - {"features", "labels", "mode", "params", "config", "self"}
    if non_valid:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: "
                         f"{sorted(non_valid)}")


_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """An Estimator like ``estimator`` (same model_dir, config, warm start) whose evaluation
    adds ``metric_fn``'s metrics; ``metric_fn`` takes ``predictions`` and any of
    ``features``, ``labels``, ``config`` and returns a dict of ``tf.metrics`` pairs."""
    args = set(_fn_args(metric_fn))
    invalid = list(args - _VALID_METRIC_FN_ARGS)
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {invalid}")
    if "predictions" not in args:
        raise ValueError(f"metric_fn ({metric_fn}) must include predictions argument.")
    inner = estimator.model_fn

    def new_model_fn(features, labels, mode, config):
        spec = inner(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        kwargs = {"predictions": spec.predictions}
        if "features" in args:
            kwargs["features"] = features
        if "labels" in args:
            kwargs["labels"] = labels
        if "config" in args:
            kwargs["config"] = config
        all_metrics = dict(spec.eval_metric_ops or {})
        all_metrics.update(metric_fn(**kwargs))
        return spec._replace(eval_metric_ops=all_metrics)

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)  # noqa: SLF001 - as TF
