"""``tf.summary.FileWriter``: TensorBoard event files, flushed reliably.

An event file is ``events.out.tfevents.<secs:%010d>.<hostname><suffix>`` holding
TFRecord-framed ``Event`` protos: first ``file_version: "brain.Event:2"``, then (when a
graph is given) the ``GraphDef`` and a ``MetaGraphDef``, then one event per
``add_summary`` (FORMATS §2). Events are queued in memory and reach the file when
``max_queue`` are pending, every ``flush_secs`` (a background thread), on ``flush()``,
``close()`` and at interpreter exit, so short runs are never left empty. An existing
file is never overwritten: a name already taken moves the timestamp on by a second.
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import time
import warnings
import weakref

import numpy as np

from scopeflow.framework.graph import Graph, get_default_graph
from scopeflow.framework.meta_graph import export_meta_graph
from scopeflow.framework.properties import read_only
from scopeflow.io import protos
from scopeflow.io.tfrecord import encode_record

__all__ = ["FileWriter", "FileWriterCache", "EventFileWriter", "DuplicateTagWarning"]

_FILE_VERSION = "brain.Event:2"
_LIVE_WRITERS: weakref.WeakSet = weakref.WeakSet()


def _flush_all_at_exit():
    for writer in list(_LIVE_WRITERS):
        try:
            writer.flush()
        except Exception:  # noqa: BLE001,S110 - best effort while the interpreter exits
            pass


atexit.register(_flush_all_at_exit)


class DuplicateTagWarning(UserWarning):
    """A summary tag received two values at the same step."""


class EventFileWriter:
    """Writes ``Event`` protos to one event file in ``logdir`` (TF's ``EventFileWriter``).

    ``max_queue`` events are buffered (``max_queue <= 1`` writes each event through to
    the OS at once); a daemon thread flushes every ``flush_secs``.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.RLock()
        self._closed = True
        self._open()

    def _open(self):
        if os.path.exists(self._logdir) and not os.path.isdir(self._logdir):
            raise NotADirectoryError(f"FileWriter: logdir {self._logdir!r} exists and is not a "
                                     "directory")
        os.makedirs(self._logdir, exist_ok=True)
        secs = int(time.time())
        host = socket.gethostname()
        while True:
            path = os.path.join(self._logdir,
                                f"events.out.tfevents.{secs:010d}.{host}{self._suffix}")
            try:
                self._file = open(path, "xb")  # noqa: SIM115 - closed by close()
                break
            except FileExistsError:
                secs += 1  # never clobber an earlier file (a restart in the same second)
        self._path = path
        self._queue: list[bytes] = []
        self._closed = False
        first = protos.Event(wall_time=float(secs), file_version=_FILE_VERSION)
        first.source_metadata.writer = "scopeflow.summary"
        # Written at once, as TF's EventsWriter does: even a killed run leaves a valid file.
        self._file.write(encode_record(first.SerializeToString()))
        self._file.flush()
        self._stop = threading.Event()
        if self._flush_secs and self._flush_secs > 0:
            threading.Thread(target=self._flush_loop, args=(self._stop,),
                             name="EventFileWriter", daemon=True).start()
        _LIVE_WRITERS.add(self)

    def _flush_loop(self, stop):
        while not stop.wait(self._flush_secs):
            self.flush()

    def get_logdir(self) -> str:
        return self._logdir

    path = read_only("_path", "The event file's path.")

    def add_event(self, event):
        """Queues one ``Event`` (a protobuf message or its serialized bytes)."""
        data = event if isinstance(event, bytes) else event.SerializeToString()
        record = encode_record(data)
        with self._lock:
            if self._closed:
                raise RuntimeError(f"Cannot add an event: the writer of {self._path} is closed"
                                   " (call reopen() first).")
            self._queue.append(record)
            if len(self._queue) >= max(self._max_queue, 1):
                self._write_queue()

    def _write_queue(self):
        if self._queue:
            self._file.write(b"".join(self._queue))
            self._queue.clear()
            self._file.flush()

    def flush(self):
        """Writes every queued event to the file (and to the OS)."""
        with self._lock:
            if not self._closed:
                self._write_queue()

    def close(self):
        """Flushes and closes the file; ``reopen()`` starts a new one."""
        with self._lock:
            if self._closed:
                return
            self._write_queue()
            self._file.close()
            self._closed = True
            self._stop.set()
        _LIVE_WRITERS.discard(self)

    def reopen(self):
        """After ``close()``: opens a new event file in the same directory."""
        with self._lock:
            if self._closed:
                self._open()


class FileWriter:
    """Writes ``Summary`` protos and graphs to event files in ``logdir`` (TF1's FileWriter).

    Args:
      logdir: directory of the run (created if missing).
      graph: a ``Graph`` (or ``GraphDef``) written at once, so TensorBoard shows it.
      max_queue: events buffered before they are written.
      flush_secs: how often the background thread writes buffered events.
      graph_def: deprecated spelling of ``graph`` (a ``GraphDef``).
      filename_suffix: appended to the event file's name.
      session: accepted for TF1 compatibility; the events go to ``logdir`` either way.
      purge_step: scopeflow: when resuming a run (e.g. from a checkpoint) at this step,
        write ``SessionLog(START)`` at it, so TensorBoard drops the points a previous
        attempt wrote for steps ``>= purge_step`` (no zig-zag curves).

    >>> import tempfile
    >>> with tf.summary.FileWriter(tempfile.mkdtemp()) as w:
    ...     w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 3)
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None, purge_step=None):
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._session = session
        self._seen_summary_tags: set = set()
        self._added_graph = False
        self._added_meta_graph = False
        self._tags_step, self._tags_at_step, self._warned_tags = None, set(), set()
        if purge_step is not None:
            self.add_session_log(protos.SessionLog(status=protos.SessionLog.START),
                                 global_step=purge_step)
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)

    # -- events --------------------------------------------------------------------------
    def add_event(self, event, step=None, walltime=None):
        """Writes an ``Event``; ``wall_time`` defaults to now, ``step`` to the event's own."""
        event = _copy_event(event)
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a ``Summary`` (the message, or the bytes a summary op returned)."""
        if isinstance(summary, (bytes, bytearray)):
            summary = protos.Summary.FromString(bytes(summary))
        elif isinstance(summary, np.ndarray) and summary.dtype.kind == "O":
            summary = protos.Summary.FromString(summary.item())  # a 0-d string array
        elif not isinstance(summary, protos.Summary):
            summary = protos.Summary.FromString(summary.SerializeToString())
        else:
            summary = _copy(summary)
        self._check_duplicate_tags(summary, global_step)
        # As TF: plugin metadata is kept only on the first value of each tag (saves space).
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self.add_event(protos.Event(summary=summary), global_step)

    def _check_duplicate_tags(self, summary, step):
        """Warns (once per tag) when a tag gets two values at one step: TensorBoard would
        keep both points, which usually means a summary was evaluated twice."""
        if step != self._tags_step:
            self._tags_step, self._tags_at_step = step, set()
        for value in summary.value:
            tag = value.tag
            if tag in self._tags_at_step and tag not in self._warned_tags:
                self._warned_tags.add(tag)
                warnings.warn(f"FileWriter: tag {tag!r} was written twice at step {step} in "
                              f"{self.get_logdir()}", DuplicateTagWarning, stacklevel=3)
            self._tags_at_step.add(tag)

    def add_session_log(self, session_log, global_step=None):
        """Writes a ``SessionLog``; ``START`` at step S makes TensorBoard purge steps >= S."""
        if session_log.status == protos.SessionLog.START:
            self._tags_step = None  # a restart: the purged steps may be written again
        self.add_event(protos.Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes the graph (as ``GraphDef`` with ``_output_shapes``) and its meta graph."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        graph = graph if graph is not None else graph_def
        if isinstance(graph, Graph):
            true_graph_def = graph.as_graph_def(add_shapes=True)
            self._write_graph_def(true_graph_def, global_step)
            try:
                meta_graph_def = _meta_graph_def(graph, true_graph_def)
            except Exception as e:  # noqa: BLE001 - the graph view needs only the GraphDef
                warnings.warn(f"FileWriter: the graph was written, but not its MetaGraphDef "
                              f"({type(e).__name__}: {e})", stacklevel=3)
            else:
                self.add_meta_graph(meta_graph_def)
        elif hasattr(graph, "node") and hasattr(graph, "SerializeToString"):
            self._write_graph_def(graph, global_step)
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                            "`GraphDef`")

    def _write_graph_def(self, graph_def, global_step):
        if self._added_graph:
            import logging
            logging.getLogger("scopeflow").warning(
                "Adding more than one graph event per run: TensorBoard shows the last one.")
        self._added_graph = True
        self.add_event(protos.Event(graph_def=graph_def.SerializeToString()), global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a ``MetaGraphDef``."""
        if not hasattr(meta_graph_def, "graph_def"):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: "
                            f"{type(meta_graph_def)}")
        self._added_meta_graph = True
        self.add_event(protos.Event(meta_graph_def=meta_graph_def.SerializeToString()),
                       global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a ``TaggedRunMetadata`` event holding ``run_metadata``'s bytes.

        scopeflow's ``Session.run`` collects no step statistics, so this only stores what
        it is given (bytes or a message); ``None`` writes nothing.
        """
        if run_metadata is None:
            return
        data = run_metadata if isinstance(run_metadata, bytes) else \
            run_metadata.SerializeToString()
        event = protos.Event()
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = data
        self.add_event(event, global_step)

    # -- file control --------------------------------------------------------------------
    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _copy(message):
    out = type(message)()
    out.CopyFrom(message)
    return out


def _copy_event(event):
    if isinstance(event, protos.Event):
        return _copy(event)
    return protos.Event.FromString(event.SerializeToString())


def _meta_graph_def(graph, graph_def):
    """The ``MetaGraphDef`` TF's FileWriter writes beside the graph (collections, no saver)."""
    return export_meta_graph(graph=graph, graph_def=graph_def)


class FileWriterCache:
    """One ``FileWriter`` per logdir, shared (``tf.summary.FileWriterCache``)."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        """The cached ``FileWriter`` for ``logdir`` (made with the default graph)."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache.clear()
