"""``tf.train.QueueRunner``, ``add_queue_runner`` and ``start_queue_runners``.

As TF1's ``queue_runner_impl``: a queue runner holds a queue and the ops that fill it; its
threads (one per enqueue op) run their op until the input ends (``OutOfRangeError``: the last
thread to finish closes the queue, so that its consumers drain it and then get
``OutOfRangeError`` too) or the coordinator asks to stop (then one more thread closes the
queue with ``cancel_pending_enqueues``, unblocking every enqueue). Any other error is
reported to the coordinator, whose ``join`` re-raises it.
"""

from __future__ import annotations

import threading
import weakref

from scopeflow.framework import errors
from scopeflow.framework.graph import GraphKeys, add_to_collection, get_collection
from scopeflow.framework.properties import read_only
from scopeflow.platform import tf_logging as logging
from scopeflow.runtime.session import Session, get_default_session

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]


class QueueRunner:
    """Holds a list of enqueue ops for a queue, each to be run in a thread."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise NotImplementedError(
                "QueueRunner(queue_runner_def=...) is not supported by scopeflow: build the "
                "QueueRunner from its queue and enqueue ops")
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op
        self._cancel_op = cancel_op
        if queue_closed_exception_types is not None and (
                not isinstance(queue_closed_exception_types, tuple)
                or not queue_closed_exception_types
                or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                           for t in queue_closed_exception_types)):
            raise TypeError(f"queue_closed_exception_types, when provided, must be a tuple of "
                            f"tf.error types, but saw: {queue_closed_exception_types}")
        # Close when nothing more will be produced, keeping pending enqueues; on an error,
        # close and cancel them, to unblock everything.
        if self._close_op is None:
            self._close_op = self._queue.close()
        if self._cancel_op is None:
            self._cancel_op = self._queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(
            queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    queue = read_only("_queue")
    enqueue_ops = read_only("_enqueue_ops")
    close_op = read_only("_close_op")
    cancel_op = read_only("_cancel_op")
    queue_closed_exception_types = read_only("_queue_closed_exception_types")

    @property
    def exceptions_raised(self) -> list:
        """Exceptions the threads raised when run without a coordinator."""
        return self._exceptions_raised

    name = read_only("_queue.name")

    def _run(self, sess, enqueue_op, coord=None):
        """One thread: runs ``enqueue_op`` until the input ends or a stop is requested."""
        decremented = False
        try:
            enqueue_callable = sess.make_callable(enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    enqueue_callable()
                except self._queue_closed_exception_types:
                    with self._lock:  # the input ended: the last thread closes the queue
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - TF ignores these
                                logging.vlog(1, "Ignored exception: %s", str(e))
                        return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator, as TF
            if coord:
                coord.request_stop(e)
            else:
                logging.error("Exception in QueueRunner: %s", str(e))
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        """Waits for a stop request, then closes the queue, cancelling pending enqueues."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - TF ignores these
            logging.vlog(1, "Ignored exception: %s", str(e))

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list:
        """The threads that run the enqueue ops in ``sess`` (none if they already run)."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []  # already started
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds ``qr`` to the graph's queue runners (``start_queue_runners`` starts them)."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS) -> list:
    """Starts the threads of every queue runner of the graph; returns the threads."""
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, Session):
        if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    with sess.graph.as_default():
        queue_runners = get_collection(collection)
        if not queue_runners:
            logging.warning("`tf.train.start_queue_runners()` was called when no queue "
                            "runners were defined. You can safely remove the call to this "
                            "deprecated function.")
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
