"""``tf.train.MonitoredTrainingSession``, ``MonitoredSession`` and what they are made of:
``Scaffold`` (the init, ready and summary ops and the saver), the session creators, and
the wrappers that run hooks, watch a ``Coordinator`` and recreate a preempted session.

A monitored session is a stack of wrappers around a ``tf.Session``, as in TF:

    _RecoverableSession  (MonitoredSession only: recreates the session on AbortedError /
     └ _CoordinatedSession      UnavailableError)  stops and joins queue-runner threads
        └ _HookedSession        calls hooks' before_run/after_run around each run
           └ tf.Session

>>> with tf.Graph().as_default():
...     step = tf.train.get_or_create_global_step()
...     inc = tf.assign_add(step, 1)
...     with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
...         while not sess.should_stop():
...             value = sess.run(inc)
>>> int(value)
3
"""

from __future__ import annotations

import abc
import inspect

from scopeflow.framework import errors
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
)
from scopeflow.framework.properties import read_only
from scopeflow.io import protos
from scopeflow.ops.control_flow.control_flow_ops import group
from scopeflow.ops.lookup.lookup_ops import tables_initializer
from scopeflow.platform import tf_logging as logging
from scopeflow.state.variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from scopeflow.summary import merge_all
from scopeflow.train import basic_session_run_hooks as hooks_lib
from scopeflow.train.coordinator import Coordinator
from scopeflow.train.queue_runner import start_queue_runners
from scopeflow.train.saver import Saver
from scopeflow.train.session_manager import SessionManager
from scopeflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator",
           "MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession",
           "default_saver"]

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
# Marks an argument of MonitoredTrainingSession the caller left out (TF's USE_DEFAULT).
USE_DEFAULT = object()


# ── Scaffold ────────────────────────────────────────────────────────────────────────
def default_saver():
    """The saver a ``Scaffold`` uses when given none: the graph's one ``SAVERS`` entry, or a
    new sharded ``Saver`` of every variable (``allow_empty``) added to that collection.

    Unlike TF's (``saver._get_saver_or_default``), the new Saver also saves the training
    state (``training_state=True``: random streams, tf.data iterators, the MNIST DataSets
    and objects added with ``tf.train.add_training_state``), so a run restarted from
    ``checkpoint_dir`` continues exactly as an uninterrupted one would.
    """
    savers = get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        return savers[0]
    # training_state: exact resume (random streams, input positions), scopeflow's default.
    saver = Saver(sharded=True, allow_empty=True, training_state=True)
    add_to_collection(GraphKeys.SAVERS, saver)
    return saver


def _default_init_op():
    return group(global_variables_initializer())


def _default_ready_op():
    return report_uninitialized_variables()


def _default_ready_for_local_init_op():
    return report_uninitialized_variables(global_variables())


def _merge_all():
    return merge_all()


class Scaffold:
    """The pieces a monitored session needs to create, initialize and save a model; each
    one left out is taken from its graph collection (``tf.GraphKeys.INIT_OP``, ...) or made
    by default when the scaffold is finalized."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            other = copy_from_scaffold

            def pick(mine, theirs):
                return mine if mine is not None else theirs
            init_op = pick(init_op, other.init_op)
            init_feed_dict = pick(init_feed_dict, other.init_feed_dict)
            init_fn = pick(init_fn, other._user_init_fn)
            ready_op = pick(ready_op, other.ready_op)
            ready_for_local_init_op = pick(ready_for_local_init_op,
                                           other.ready_for_local_init_op)
            local_init_op = pick(local_init_op, other.local_init_op)
            local_init_feed_dict = pick(local_init_feed_dict, other.local_init_feed_dict)
            summary_op = pick(summary_op, other.summary_op)
            saver = pick(saver, other.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Fills in the missing pieces, builds the saver and finalizes the default graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP,
                                                    _default_init_op)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default("ready_op", GraphKeys.READY_OP,
                                                     _default_ready_op)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                _default_ready_for_local_init_op)
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                                       _merge_all)
        if self._saver is None:
            self._saver = default_saver()
        self._saver.build()
        get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    init_fn = read_only("_init_fn")
    init_op = read_only("_init_op")
    ready_op = read_only("_ready_op")
    ready_for_local_init_op = read_only("_ready_for_local_init_op")
    local_init_op = read_only("_local_init_op")
    local_init_feed_dict = read_only("_local_init_feed_dict")
    summary_op = read_only("_summary_op")
    saver = read_only("_saver")
    init_feed_dict = read_only("_init_feed_dict")

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one element of ``collection_key``, or ``default_constructor()`` (added to the
        collection)."""
        elements = get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please '
                    "indicate which one to use by passing it to the tf.Scaffold constructor "
                    f"as:  tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables and the lookup tables (TF's
        ``group(local_variables_initializer(), tables_initializer(), ...)``)."""
        return group(local_variables_initializer(), tables_initializer())


# ── session creators ────────────────────────────────────────────────────────────────
class SessionCreator(metaclass=abc.ABCMeta):
    """Makes the ``tf.Session`` a monitored session wraps."""

    @abc.abstractmethod
    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldSessionCreator(SessionCreator):
    """A session creator of a ``Scaffold``, through one ``SessionManager`` made lazily."""

    def __init__(self, scaffold, master, config):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = _session_manager(self._scaffold)
        return self._session_manager


class ChiefSessionCreator(_ScaffoldSessionCreator):
    """Restores the latest checkpoint of ``checkpoint_dir`` (or the given file), or runs the
    scaffold's init op and ``init_fn``."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        super().__init__(scaffold, master, config)
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldSessionCreator):
    """Waits (up to ``max_wait_secs``) until the model is ready (a chief initialized or
    restored it), then runs the local init op. In one process the session's variables
    start uninitialized, so alone it times out with ``DeadlineExceededError``, as TF's."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        super().__init__(scaffold, master, config)
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)


def _session_manager(scaffold):
    return SessionManager(local_init_op=scaffold.local_init_op,
                          local_init_feed_dict=scaffold.local_init_feed_dict,
                          ready_op=scaffold.ready_op,
                          ready_for_local_init_op=scaffold.ready_for_local_init_op,
                          graph=get_default_graph())


# ── the monitored sessions ──────────────────────────────────────────────────────────
class _StepContext:
    """What ``run_step_fn``'s function gets: the raw session, a run with hooks, a stop."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    session = read_only("_session")

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        """Ends the step and the session's loop (the ``with`` block exits cleanly)."""
        raise StopIteration("step_fn has requested the iterations to stop.")


class _CoordinatedSessionCreator(SessionCreator):
    """Creates the session, starts queue runners and calls hooks' after_create_session."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs):
        self._session_creator = session_creator
        self._hooks = hooks
        self.coord = None
        self.tf_sess = None
        self._stop_grace_period_secs = stop_grace_period_secs

    def create_session(self):
        self.tf_sess = self._session_creator.create_session()
        self.coord = Coordinator(clean_stop_exception_types=[])
        if get_collection(GraphKeys.QUEUE_RUNNERS):
            start_queue_runners(sess=self.tf_sess, coord=self.coord)
        for hook in self._hooks:
            hook.after_create_session(self.tf_sess, self.coord)
        return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                   self._stop_grace_period_secs)


class _MonitoredSession:
    """What MonitoredSession and SingularMonitoredSession share."""

    StepContext = _StepContext

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = hooks or []
        for hook in self._hooks:
            hook.begin()
        self._coordinated_creator = _CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        sess = self._tf_sess()
        return None if sess is None else sess.graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs ``fetches`` like ``Session.run``, with the hooks' fetches, feeds and
        options added."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Calls ``step_fn(step_context)``: it may run the raw session
        (``step_context.session``), run with hooks (``run_with_hooks``) and
        ``request_stop()``. Returns what ``step_fn`` returns."""
        args = tuple(inspect.getfullargspec(step_fn).args)
        if args != ("step_context",) and args != ("self", "step_context"):
            raise ValueError("`step_fn` may either have one `step_context` argument, or "
                             "`self` and `step_context` arguments if it's an instance method. "
                             f"Got {args} instead.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    def should_stop(self) -> bool:
        return self._sess is None or self._sess.should_stop()

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        # The end of the input (OutOfRangeError) or a request_stop in run_step_fn ends the
        # block normally, as in TF.
        if exception_type is not None and issubclass(
                exception_type, (errors.OutOfRangeError, StopIteration)):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _is_closed(self) -> bool:
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session that initializes or restores the model, calls hooks around each ``run``,
    stops queue-runner threads on close, and recreates itself after a preemption
    (``AbortedError``/``UnavailableError``)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A monitored session on a ``ChiefSessionCreator`` that does not recover from errors,
    with access to the raw session (``raw_session()``)."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


# ── the session wrappers ────────────────────────────────────────────────────────────
class _WrappedSession:
    """Forwards to the wrapped session; ``should_stop`` asks every layer."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    graph = read_only("_sess.graph")
    sess_str = read_only("_sess.sess_str")

    def should_stop(self) -> bool:
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self) -> bool:
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                logging.error("An error occurred when attempting to close the session. This "
                              "may be due to a preemption in a connected worker or parameter "
                              "server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        return step_fn(_StepContext(raw_session, run_with_hooks or self.run))


_RECREATE = ("An error was raised%s. This may be due to a preemption in a connected worker "
             "or parameter server. A new session will be created. Error: %s")


class _RecoverableSession(_WrappedSession):
    """Recreates the session (from its creator) when a run hits a preemption error."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                logging.info(_RECREATE, " while a session was being created", e)

    def _check_stop(self) -> bool:
        try:
            return self._sess._check_stop() if self._sess else True
        except _PREEMPTION_ERRORS as e:
            logging.info(_RECREATE, " while considering whether the session is complete", e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - TF: any other error means "stop"
            return True

    def _retry(self, call):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return call()
            except _PREEMPTION_ERRORS as e:
                logging.info(_RECREATE, "", e)
                self.close()
                self._sess = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return self._retry(lambda: self._sess.run(fetches, feed_dict=feed_dict,
                                                  options=options, run_metadata=run_metadata))

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        return self._retry(lambda: self._sess.run_step_fn(step_fn, raw_session,
                                                          self._sess.run))


class _CoordinatedSession(_WrappedSession):
    """Stops when the coordinator does; on close, stops and joins its threads."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self) -> bool:
        self._coord.raise_requested_exception()  # a queue runner's error surfaces here
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # noqa: BLE001, S110 - TF ignores errors closing here
                pass

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original:
            # A thread's error (e.g. a queue runner's) is the cause: raise that instead.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:  # noqa: BLE001
                raise original from None
            raise


class _HookedSession(_WrappedSession):
    """Calls each hook's before_run/after_run around every run, merging their fetches,
    feeds and options into the one ``Session.run`` call."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self) -> bool:
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict),
                                        session=self._sess)
        options = options or protos.RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict,
                                               options)
        run_metadata = run_metadata or protos.RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict,
                                      options=options, run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(
                results=outputs[hook] if hook in outputs else None, options=options,
                run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds: dict = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(hook_feeds, request.feed_dict,
                                          "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds,
                                  "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    both = set(feeds1) & set(feeds2)
    if both:
        raise RuntimeError(f"{message} Conflict(s): {list(both)}")


def _merge_run_options(options, incoming):
    """Merges a hook's RunOptions into the run's (the larger trace level, timeout...)."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs,
                                          incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(
        incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (
        options.debug_options.reset_disk_byte_usage
        or incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom
        or incoming.report_tensor_allocations_upon_oom)


# ── MonitoredTrainingSession ────────────────────────────────────────────────────────
def _resolve_defaults(steps, secs, default_steps, default_secs):
    """TF's rule for a (steps, secs) pair: both left out gives the defaults; one given
    turns the other off."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default_steps, default_secs
    return (None if steps is USE_DEFAULT else steps), (None if secs is USE_DEFAULT else secs)


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None,  # noqa: N802
                             hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None, save_graph_def=True):
    """A ``MonitoredSession`` for training, with TF1's standard hooks.

    The chief restores the latest checkpoint of ``checkpoint_dir`` or initializes the
    model, and adds: a ``StepCounterHook`` (``global_step/sec`` every
    ``log_step_count_steps``), a ``SummarySaverHook`` (every ``save_summaries_steps``
    steps, default 100, or ``save_summaries_secs``) writing to ``summary_dir`` (default
    ``checkpoint_dir``), and a ``CheckpointSaverHook`` (every ``save_checkpoint_secs``,
    default 600, or ``save_checkpoint_steps``), then ``chief_only_hooks`` first and
    ``hooks`` last. A non-chief waits up to ``max_wait_secs`` for a ready model and runs
    only ``hooks``.
    """
    save_summaries_steps, save_summaries_secs = _resolve_defaults(
        save_summaries_steps, save_summaries_secs, 100, None)
    save_checkpoint_steps, save_checkpoint_secs = _resolve_defaults(
        save_checkpoint_steps, save_checkpoint_secs, None, 600)
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                       max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                  master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir,
                                                       every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or \
                (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0)
                           or (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(hooks_lib.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs,
            scaffold=scaffold, save_graph_def=save_graph_def))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
