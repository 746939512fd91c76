"""``tf.train.Supervisor`` (TF1) and ``tf.train.basic_train_loop``.

The Supervisor is the pre-``MonitoredTrainingSession`` way many TF1 programs train: it
fills in the graph's standard ops (``ready_op``, ``init_op``, ``local_init_op``, ``saver``,
``summary_op``, ``global_step``) from their collections or TF's defaults, finalizes the
graph, and ``managed_session()`` returns a session that is restored from the newest
checkpoint in ``logdir`` (else initialized), with TF's background services:

* a checkpoint thread saving ``logdir/model.ckpt-<step>`` every ``save_model_secs``
  (the first save right at start, as TF's timer threads run their first loop at once);
* a summary thread running ``summary_op`` every ``save_summaries_secs`` and a step-counter
  thread writing ``global_step/sec``, both into the ``events`` file of ``logdir``;
* the graph's queue runners.

Leaving the ``with`` block (or ``stop()``) stops the coordinator, joins the threads and
writes a ``SessionLog.STOP`` event; like TF it does not save a final checkpoint (call
``sv.saver.save(sess, sv.save_path, global_step=sv.global_step)`` for that). An exception
raised in the block is recorded with the coordinator and re-raised by ``stop()``, unless it
is an ``OutOfRangeError`` (the end of the input), as TF.
"""

from __future__ import annotations

import contextlib
import os
import time

from scopeflow.framework import errors
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
)
from scopeflow.framework.meta_graph import export_meta_graph
from scopeflow.io import protos
from scopeflow.platform import tf_logging as logging
from scopeflow.state.variables import (
    global_variables,
    global_variables_initializer,
    report_uninitialized_variables,
)
from scopeflow.summary import merge_all
from scopeflow.summary.writer import FileWriter
from scopeflow.train import training_util
from scopeflow.train.basic_session_run_hooks import write_graph
from scopeflow.train.coordinator import Coordinator, LooperThread
from scopeflow.train.monitored_session import Scaffold
from scopeflow.train.saver import Saver
from scopeflow.train.session_manager import SessionManager

__all__ = ["Supervisor", "basic_train_loop"]


class Supervisor:
    """Session creation, recovery, checkpointing and summaries for a TF1 training loop.

    An argument left at ``Supervisor.USE_DEFAULT`` (0) is taken from the graph collection
    (``READY_OP``, ``READY_FOR_LOCAL_INIT_OP``, ``INIT_OP``, ``LOCAL_INIT_OP``, ``SAVERS``,
    ``SUMMARY_OP``, ``GLOBAL_STEP``) or, except ``ready_for_local_init_op``, built as TF
    does (``report_uninitialized_variables()``, ``global_variables_initializer()``,
    local-variables and tables initializers, ``Saver()`` when there are variables,
    ``summary.merge_all()``, the tensor ``global_step:0``) and
    added to that collection; ``None`` disables the piece.
    """

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        if graph is None:
            graph = get_default_graph()
        with graph.as_default():
            self._resolve_graph_ops(graph, ready_op, ready_for_local_init_op, init_op,
                                    local_init_op, saver, summary_op, global_step)
        self._init_feed_dict = init_feed_dict
        self._graph = graph
        self._meta_graph_def = export_meta_graph(
            graph=graph, saver_def=self._saver.saver_def if self._saver else None)
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        self._logdir = logdir
        self._save_summaries_secs = save_summaries_secs
        self._save_model_secs = save_model_secs
        self._save_path = None
        self._summary_writer = None
        self._graph_added_to_summary = False
        if self._is_chief and self._logdir:
            self._init_chief_outputs(checkpoint_basename, summary_writer)
        if session_manager is None:
            session_manager = SessionManager(
                local_init_op=self._local_init_op, ready_op=self._ready_op,
                ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
                recovery_wait_secs=self._recovery_wait_secs,
                local_init_run_options=self._local_init_run_options)
        self._session_manager = session_manager
        graph.finalize()  # as TF: the graph may not change any more

    def _resolve_graph_ops(self, graph, ready_op, ready_for_local_init_op, init_op,
                           local_init_op, saver, summary_op, global_step):
        """The ops the supervisor runs: each given one, or for ``USE_DEFAULT`` the graph's
        collection's or a default built (under ``graph.as_default()``)."""
        self._ready_op = self._default(ready_op, GraphKeys.READY_OP,
                                       report_uninitialized_variables)
        # TF takes this one from its collection only (no default is built).
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first(GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op
        self._init_op = self._default(init_op, GraphKeys.INIT_OP,
                                      global_variables_initializer)
        self._local_init_op = self._default(local_init_op, GraphKeys.LOCAL_INIT_OP,
                                            Scaffold.default_local_init_op)
        self._saver = self._default(
            saver, GraphKeys.SAVERS, lambda: Saver() if global_variables() else None)
        self._summary_op = self._default(summary_op, GraphKeys.SUMMARY_OP, merge_all)
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                try:
                    global_step = graph.get_tensor_by_name("global_step:0")
                except KeyError:
                    global_step = None
        self._global_step = global_step

    def _init_chief_outputs(self, checkpoint_basename, summary_writer):
        """The chief's checkpoint path in ``logdir`` and its summary writer."""
        self._save_path = os.path.join(self._logdir, checkpoint_basename)
        if summary_writer is Supervisor.USE_DEFAULT:
            self._summary_writer = FileWriter(self._logdir)
        else:
            self._summary_writer = summary_writer

    @staticmethod
    def _first(key):
        found = get_collection(key)
        return found[0] if found else None

    def _default(self, value, key, make):
        """The argument, else the collection's first item, else ``make()`` (recorded)."""
        if value is not Supervisor.USE_DEFAULT:
            return value
        value = self._first(key)
        if value is None:
            value = make()
            if value is not None:
                add_to_collection(key, value)
        return value

    # -- properties ----------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions and services -----------------------------------------------------------
    def _write_graph(self):
        """``graph.pbtxt`` and the graph/meta-graph events, once, by the chief."""
        if self._graph_added_to_summary or not self._is_chief:
            return
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir,
                        "graph.pbtxt")
        if self._summary_writer:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess):
        """Starts the checkpoint, summary and step-counter threads (chief only)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because "
                               "only chief supervisors can write events.")
        if not self._logdir:
            logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        if self._global_step is not None and self._summary_writer:
            step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(
                protos.SessionLog(status=protos.SessionLog.START), step)
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The chief restores from ``logdir``'s newest checkpoint or initializes; other
        tasks wait until the model is ready. Starts the services and queue runners."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver,
                checkpoint_dir=self._logdir, wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            logging.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Threads for the graph's (or the given) queue runners, on this coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True,
                                             start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """A started ``LooperThread`` calling ``target`` every ``timer_interval_secs``."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args=args,
                                 kwargs=kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services, joins them (re-raising an exception they or the training
        loop reported) and closes the summary writer with a ``SessionLog.STOP``."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(
                    protos.SessionLog(status=protos.SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a serialized ``Summary`` computed by the caller at the current step."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """``with sv.managed_session() as sess:`` a prepared session; on exit the services
        stop and the session closes. An exception in the block stops the coordinator and
        is re-raised (an ``OutOfRangeError`` ends training quietly)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - handed to the coordinator, re-raised by stop
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()

    # TF1's CamelCase aliases.
    Loop = loop  # noqa: N815
    PrepareSession = prepare_or_wait_for_session  # noqa: N815
    RequestStop = request_stop  # noqa: N815
    ShouldStop = should_stop  # noqa: N815
    StartQueueRunners = start_queue_runners  # noqa: N815
    StartStandardServices = start_standard_services  # noqa: N815
    Stop = stop  # noqa: N815
    StopOnException = stop_on_exception  # noqa: N815
    WaitForStop = wait_for_stop  # noqa: N815


class _SummaryThread(LooperThread):
    """Runs ``summary_op`` (with the step) every ``save_summaries_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        sv = self._sv
        if sv.global_step is not None:
            summary, step = self._sess.run([sv.summary_op, sv.global_step])
        else:
            summary, step = self._sess.run(sv.summary_op), None
        if sv.summary_writer:
            logging.info("Recording summary at step %s.", step)
            sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    """Writes ``<global_step name>/sec``, the training speed, every
    ``save_summaries_secs``."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self):
        step = training_util.global_step(self._sess, self._step_counter)
        added = step - self._last_step
        self._last_step = step
        now = time.time()
        elapsed = now - self._last_time
        self._last_time = now
        rate = added / elapsed if elapsed > 0 else float("inf")
        summary = protos.Summary(value=[protos.Summary.Value(tag=self._summary_tag,
                                                             simple_value=rate)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, step)
        logging.log_first_n(logging.INFO, "%s: %g", 10, self._summary_tag, rate)


class _CheckpointThread(LooperThread):
    """Saves ``save_path-<step>`` every ``save_model_secs`` (and records the save)."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        sv = self._sv
        logging.info("Saving checkpoint to path %s", sv.save_path)
        sv.saver.save(self._sess, sv.save_path, global_step=sv.global_step)
        if sv.summary_writer and sv.global_step is not None:
            step = training_util.global_step(self._sess, sv.global_step)
            sv.summary_writer.add_session_log(
                protos.SessionLog(status=protos.SessionLog.CHECKPOINT,
                                  checkpoint_path=sv.save_path), step)


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls ``train_step_fn(sess, *args, **kwargs)`` in a managed session until the
    supervisor should stop; an ``AbortedError`` (a restarted server) starts over."""
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
