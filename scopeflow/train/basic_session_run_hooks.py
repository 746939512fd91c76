"""The hooks TF1 ships for ``MonitoredSession``: stop at a step, save checkpoints and
summaries, count steps, log tensors, catch NaN losses, run final ops, feed, profile.

They follow TF1's ``basic_session_run_hooks`` step for step, so checkpoints, summaries and
log lines come out at the same steps as TF's for the same arguments. A hook that needs the
global step reads it in ``after_run`` only when its timer may fire (the value it fetched
in the run is the one from before the run's update).

>>> timer = tf.train.SecondOrStepTimer(every_steps=10)
>>> timer.should_trigger_for_step(0), timer.update_last_triggered_step(0)
(True, (None, None))
>>> timer.should_trigger_for_step(9), timer.should_trigger_for_step(10)
(False, True)
"""

from __future__ import annotations

import os
import time

import numpy as np
from google.protobuf import text_format

from scopeflow.client.timeline import Timeline
from scopeflow.framework import errors
from scopeflow.framework.graph import GraphKeys, get_collection, get_default_graph
from scopeflow.framework.meta_graph import export_meta_graph
from scopeflow.framework.properties import read_only
from scopeflow.io import protos
from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.platform import tf_logging as logging
from scopeflow.summary.writer import FileWriterCache
from scopeflow.train import training_util
from scopeflow.train.checkpoint_cleanup import tidy_checkpoint_dir
from scopeflow.train.checkpoint_management import get_checkpoint_state
from scopeflow.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["SecondOrStepTimer", "LoggingTensorHook", "StopAtStepHook",
           "CheckpointSaverListener", "CheckpointSaverHook", "StepCounterHook",
           "NanLossDuringTrainingError", "NanTensorHook", "SummarySaverHook",
           "GlobalStepWaiterHook", "FinalOpsHook", "FeedFnHook", "ProfilerHook", "write_graph"]


# ── timers ──────────────────────────────────────────────────────────────────────────
class SecondOrStepTimer:
    """Fires every ``every_secs`` seconds or every ``every_steps`` steps (exactly one), and
    always the first time it is asked."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step) -> bool:
        """Whether ``step`` is due (never twice for the same step)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and \
                time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and \
            step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Records a firing at ``step``; returns (seconds, steps) since the previous one, or
        ``(None, None)`` the first time."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self):
        return self._last_triggered_step


class _NeverTriggerTimer:
    """The timer of a hook that acts only at the end."""

    def reset(self):
        pass

    def should_trigger_for_step(self, step) -> bool:
        return False

    def update_last_triggered_step(self, step):
        return (None, None)

    def last_triggered_step(self):
        return None


def _global_step_or_raise(hook_name):
    # NOTE: TF reads a cached `global_step` read tensor; fetching the variable itself gives
    # the same value here (fetched values never alias session state) and adds no ops.
    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return step


def _step_after_run(fetched_step):
    """The global step after a run, from its value fetched in that run.

    NOTE: TF's hooks fetch a copy of the step that its executor usually makes before the
    run's increment, and add 1 ("stale + 1"). A scopeflow run returns a fetched variable as
    it is when the run ends, which is already that value; using it keeps every hook firing
    at TF's steps.
    """
    return fetched_step


def _as_graph_element(obj):
    """``obj`` (a tensor, or a tensor/op name) as an element of the default graph."""
    graph = get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to "
                             f"current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2).")


# ── LoggingTensorHook ───────────────────────────────────────────────────────────────
class LoggingTensorHook(SessionRunHook):
    """Logs tensors (INFO, logger ``tensorflow``) every N runs or seconds and/or at the end.

    ``tensors``: a dict ``{tag: tensor or name}`` (logged sorted by tag) or a list (logged
    in its order, tagged by the names given). ``formatter(values_by_tag) -> str`` replaces
    the default ``tag = value, ...`` line.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._tag_order = sorted(tensors)
        else:
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        self._tensors = tensors
        self._formatter = formatter
        self._timer = _NeverTriggerTimer() if only_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                logging.info(self._formatter(values))
                return
            # str(), not format(): NumPy scalars format as Python floats (1.399999976158142)
            stats = ", ".join(f"{tag} = {values[tag]!s}" for tag in self._tag_order)
            if elapsed_secs is not None:
                logging.info("%s (%.3f sec)", stats, elapsed_secs)
            else:
                logging.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


# ── StopAtStepHook ──────────────────────────────────────────────────────────────────
class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` past
    its value when the session was created)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_or_raise("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # Re-read only when the fetched step may have reached the end.
        if _step_after_run(run_values.results) >= self._last_step:
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


# ── CheckpointSaverHook ─────────────────────────────────────────────────────────────
class CheckpointSaverListener:
    """Called around each save of a :class:`CheckpointSaverHook`; ``after_save`` returning
    True asks the session to stop."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every ``save_secs`` seconds or
    ``save_steps`` steps, and at the end; writes the graph (``graph.pbtxt`` and to the
    events file) once."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1000000
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_or_raise("CheckpointSaverHook")
        self._tidy()
        for listener in self._listeners:
            listener.begin()

    def _tidy(self):
        """scopeflow: a restart first clears what a killed run left in its directory, as
        the main job does: temporaries of an interrupted save (``*.meta.tmp...``), and
        checkpoints ``<basename>-<step>`` the state file does not list (a save killed
        before its commit). This hook is the only writer there (the chief's)."""
        directory, basename = os.path.split(self._save_path)
        state = get_checkpoint_state(directory or os.curdir)
        listed = [] if state is None else \
            [*state.all_model_checkpoint_paths, state.model_checkpoint_path]
        temporaries, stale = tidy_checkpoint_dir(directory or os.curdir, basename, listed)
        if temporaries:
            logging.info("Removed %d temporary file(s) of an interrupted save in %s",
                         len(temporaries), directory)
        for prefix in stale:
            logging.info("Removed %s: the checkpoint state file does not list it (a save "
                         "or a deletion was interrupted)", prefix)

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        graph = get_default_graph()
        graph_def = graph.as_graph_def(add_shapes=True)
        if self._save_graph_def:
            write_graph(graph_def, self._checkpoint_dir, "graph.pbtxt")
        saver = self._get_saver()
        # The graph again, as TF writes it here (its own event, not FileWriter.add_graph,
        # which also writes a MetaGraphDef and warns about a second graph).
        self._summary_writer.add_event(protos.Event(graph_def=graph_def.SerializeToString()))
        self._summary_writer.add_meta_graph(export_meta_graph(
            graph_def=graph_def, saver_def=saver.saver_def if saver else None))
        # The checkpoint saved here is the state at step `global_step`.
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = _step_after_run(run_values.results) - 1
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step) -> bool:
        """Saves; True when a listener asks to stop."""
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            protos.SessionLog(status=protos.SessionLog.CHECKPOINT,
                              checkpoint_path=self._save_path), step)
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver "
                               "to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


# ── StepCounterHook ─────────────────────────────────────────────────────────────────
class StepCounterHook(SessionRunHook):
    """Writes ``global_step/sec`` (steps per second) summaries and logs it."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1
        self._warned = 0

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_raise("StepCounterHook")
        self._summary_tag = self._global_step_tensor.op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time if elapsed_time > 0 else float("inf")
        if self._summary_writer is not None:
            summary = protos.Summary(value=[protos.Summary.Value(
                tag=self._summary_tag, simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = _step_after_run(run_values.results) - 1
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step and self._warned < 5:
            self._warned += 1
            logging.warning(
                "It seems that global step (tf.train.get_global_step) has not been "
                "increased. Current value (could be stable): %s vs previous value: %s. You "
                "could increase the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.", stale_global_step,
                self._last_global_step)
        self._last_global_step = stale_global_step


# ── NanTensorHook ───────────────────────────────────────────────────────────────────
class NanLossDuringTrainingError(RuntimeError):
    """Raised by :class:`NanTensorHook` when the loss is NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (or, with ``fail_on_nan_loss=False``, stops) when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(message)
                raise NanLossDuringTrainingError
            logging.warning(message)
            run_context.request_stop()


# ── SummarySaverHook ────────────────────────────────────────────────────────────────
class SummarySaverHook(SessionRunHook):
    """Runs the summary op every ``save_steps`` steps or ``save_secs`` seconds (and on the
    first run) and writes the results, after a ``SessionLog.START``."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_or_raise("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or \
            self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = _step_after_run(run_values.results["global_step"])
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(
                protos.SessionLog(status=protos.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        op = self._summary_op
        if op is None:
            op = self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]


# ── GlobalStepWaiterHook, FinalOpsHook, FeedFnHook ──────────────────────────────────
class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first run until the global step reaches ``wait_until_step`` (for workers
    that should start after the chief has trained a while)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_or_raise("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        logging.info("Waiting for global step %d before starting training.",
                     self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                logging.info("Waiting for global step %d before starting training. Current "
                             "step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    final_ops_values = read_only("_final_ops_values")

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration):
            logging.warning(
                "An OutOfRangeError or StopIteration exception is raised by the code in "
                "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have a "
                "dependency back to some input source, which should not happen: final ops "
                "should only read variables, not another batch from the input.")
            raise


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feeds to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


# ── ProfilerHook ────────────────────────────────────────────────────────────────────
class ProfilerHook(SessionRunHook):
    """Traces a run every ``save_steps`` steps or ``save_secs`` seconds (not the first) and
    writes it as Chrome trace ``<output_dir>/timeline-<step>.json`` (open it in
    chrome://tracing or Perfetto), and as run metadata to the events file."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        # The timer first: bad arguments raise ValueError before a writer is made.
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_or_raise("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and \
            self._timer.should_trigger_for_step(self._next_step)
        options = protos.RunOptions(trace_level=protos.RunOptions.FULL_TRACE) \
            if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        global_step = _step_after_run(run_values.results["global_step"])
        if self._next_step is None:
            self._timer.update_last_triggered_step(global_step - 1)
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step),
                       run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        logging.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = Timeline(step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory)
        with open(save_path, "w") as f:
            f.write(trace)


# ── write_graph ─────────────────────────────────────────────────────────────────────
def write_graph(graph_or_graph_def, logdir, name, as_text=True) -> str:
    """Writes a graph's ``GraphDef`` to ``logdir/name`` (text format by default), atomically
    (``tf.train.write_graph``); returns the path."""
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = text_format.MessageToString(graph_def).encode() if as_text \
        else graph_def.SerializeToString()
    atomic_write_bytes(path, data)
    return path
