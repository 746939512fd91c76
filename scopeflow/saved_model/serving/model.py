"""One served model: the highest version under a base directory, loaded once into one
Session, its signatures run from a thread pool, optionally with server-side batching.

TF Serving's layout: ``BASE/<version>/saved_model.pb`` with numeric version folders; the
highest version is served (its default "latest" policy). A ``BASE`` that is itself a
SavedModel is served as version 1.
"""

from __future__ import annotations

import os
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.graph import Graph
from scopeflow.runtime.session import Session
from scopeflow.saved_model import loader_impl, signature_constants, tag_constants
from scopeflow.saved_model.serving.json_tensor import RequestError

DEFAULT_SIGNATURE = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_METHOD = signature_constants.CLASSIFY_METHOD_NAME
REGRESS_METHOD = signature_constants.REGRESS_METHOD_NAME

# TF's canonical error codes, by the OpError subclass that carries them.
_CODE_NAMES = {
    errors.CancelledError: "CANCELLED", errors.UnknownError: "UNKNOWN",
    errors.InvalidArgumentError: "INVALID_ARGUMENT",
    errors.DeadlineExceededError: "DEADLINE_EXCEEDED", errors.NotFoundError: "NOT_FOUND",
    errors.AlreadyExistsError: "ALREADY_EXISTS",
    errors.PermissionDeniedError: "PERMISSION_DENIED",
    errors.ResourceExhaustedError: "RESOURCE_EXHAUSTED",
    errors.FailedPreconditionError: "FAILED_PRECONDITION", errors.AbortedError: "ABORTED",
    errors.OutOfRangeError: "OUT_OF_RANGE", errors.UnimplementedError: "UNIMPLEMENTED",
    errors.InternalError: "INTERNAL", errors.UnavailableError: "UNAVAILABLE",
    errors.DataLossError: "DATA_LOSS", errors.UnauthenticatedError: "UNAUTHENTICATED",
}


def find_versions(base_path: str) -> tuple[int, str]:
    """``(version, directory)`` of the SavedModel to serve under ``base_path``."""
    if not os.path.isdir(base_path):
        raise FileNotFoundError(f"Could not find base path {base_path} for servable")
    if loader_impl.maybe_saved_model_directory(base_path):
        return 1, base_path
    versions = [int(name) for name in os.listdir(base_path)
                if name.isdigit() and loader_impl.maybe_saved_model_directory(
                    os.path.join(base_path, name))]
    if not versions:
        raise FileNotFoundError(f"No versions of servable found under base path "
                                f"{base_path}: it holds neither saved_model.pb nor numeric "
                                "version folders with one")
    best = max(versions)
    return best, os.path.join(base_path, str(best))


class ServedModel:
    """A SavedModel's ``serve`` graph in one Session, run by ``run`` from any thread."""

    def __init__(self, base_path: str, name: str = "default",
                 tags=(tag_constants.SERVING,), num_threads: int | None = None,
                 batching: BatchingOptions | None = None):
        self.name = name
        self.version, self.path = find_versions(base_path)
        self.graph = Graph()
        self.session = Session(graph=self.graph)
        self.meta_graph = loader_impl.load(self.session, list(tags), self.path)
        self.signatures = dict(self.meta_graph.signature_def)
        self.executor = ThreadPoolExecutor(max_workers=num_threads or min(8, os.cpu_count()
                                                                          or 1),
                                           thread_name_prefix="scopeflow-serve")
        self.batcher = Batcher(self, batching) if batching is not None else None

    def close(self):
        if self.batcher is not None:
            self.batcher.close()
        self.executor.shutdown(wait=True)
        self.session.close()

    # ── looking things up ──
    def check_version(self, version: int | None):
        """NOT_FOUND unless ``version`` (None: the latest) is the one served."""
        if version is not None and version != self.version:
            raise RequestError(f"Servable not found for request: Specific({self.name}, "
                               f"{version})", "NOT_FOUND")

    def signature(self, name: str):
        key = name or DEFAULT_SIGNATURE
        if key not in self.signatures:
            raise RequestError(f'Serving signature name: "{key}" not found in signature def')
        return self.signatures[key]

    def typed_signature(self, name: str, method: str, kind: str):
        """The classify/regress signature (TF Serving's classifier.cc/regressor.cc)."""
        key = name or DEFAULT_SIGNATURE
        if key not in self.signatures:
            raise RequestError(f"No signature was found with the name: {key}")
        sig = self.signatures[key]
        if sig.method_name != method:
            raise RequestError(f"Expected {kind} signature method_name to be {method}. "
                               f"Was: {sig.method_name}")
        return sig

    # ── running ──
    def run_signature(self, sig, feeds: dict, output_keys=None) -> dict:
        """Output key -> array for input key -> array, on the calling thread."""
        missing = sorted(set(sig.inputs) - set(feeds))
        extra = sorted(set(feeds) - set(sig.inputs))
        if missing or extra:
            raise RequestError(
                f"input size does not match signature: {len(feeds)}!={len(sig.inputs)} "
                f"len({{{','.join(sorted(feeds))}}}) != len({{{','.join(sorted(sig.inputs))}}})."
                f" Sent extra: {{{','.join(extra)}}}. Missing but required: "
                f"{{{','.join(missing)}}}.")
        keys = sorted(output_keys if output_keys is not None else sig.outputs)
        feed_dict = {sig.inputs[k].name: v for k, v in feeds.items()}
        try:
            values = self.session.run([sig.outputs[k].name for k in keys], feed_dict)
        except errors.OpError as e:
            raise RequestError(e.message, _CODE_NAMES.get(type(e), "UNKNOWN")) from None
        except (ValueError, TypeError) as e:  # a feed of the wrong shape or type
            raise RequestError(str(e)) from None
        return dict(zip(keys, values))

    def submit(self, sig, feeds: dict, output_keys=None) -> Future:
        """Runs the signature in the pool (or the batcher, when batching is on)."""
        if self.batcher is not None and self.batcher.batchable(sig, feeds):
            return self.batcher.submit(sig, feeds, output_keys)
        return self.executor.submit(self.run_signature, sig, feeds, output_keys)


class BatchingOptions:
    """TF Serving's ``BatchingParameters`` that apply here: a merged run holds at most
    ``max_batch_size`` rows and waits at most ``batch_timeout_micros`` after its first
    request for more; ``num_batch_threads`` runs merged batches in parallel."""

    def __init__(self, max_batch_size: int = 32, batch_timeout_micros: int = 1000,
                 num_batch_threads: int = 1, max_enqueued_batches: int = 1000):
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be positive; was {max_batch_size}")
        if batch_timeout_micros < 0:
            raise ValueError("batch_timeout_micros must be non-negative; was "
                             f"{batch_timeout_micros}")
        self.max_batch_size = max_batch_size
        self.batch_timeout_micros = batch_timeout_micros
        self.num_batch_threads = max(1, num_batch_threads)
        self.max_enqueued_batches = max_enqueued_batches

    @classmethod
    def from_file(cls, path: str) -> BatchingOptions:
        """Reads a ``--batching_parameters_file`` (text ``BatchingParameters``, e.g.
        ``max_batch_size { value: 32 }``)."""
        with open(path) as f:
            text = f.read()
        known = ("max_batch_size", "batch_timeout_micros", "num_batch_threads",
                 "max_enqueued_batches")
        values = {}
        for field, value in re.findall(r"(\w+)\s*\{\s*value\s*:\s*(-?\d+)\s*\}", text):
            if field in known:
                values[field] = int(value)
        return cls(**values)


class _Task:
    __slots__ = ("sig_key", "feeds", "rows", "future", "output_keys")

    def __init__(self, sig_key, feeds, rows, output_keys):
        self.sig_key, self.feeds, self.rows = sig_key, feeds, rows
        self.output_keys = output_keys
        self.future: Future = Future()


class Batcher:
    """Merges concurrent requests of one signature, whose inputs agree in everything but
    the first dimension, into one ``Session.run`` along axis 0, then splits the outputs
    back (TF Serving's ``BasicBatchScheduler`` with its ``batch_timeout_micros``)."""

    def __init__(self, model: ServedModel, options: BatchingOptions):
        self.model, self.options = model, options
        self._cond = threading.Condition()
        self._queues: dict = {}  # batch key -> [tasks], in arrival order
        self._closed = False
        self.runs = 0  # merged Session.runs tried (tests and logs read it)
        self._threads = [threading.Thread(target=self._loop, daemon=True,
                                          name=f"scopeflow-batch-{i}")
                         for i in range(options.num_batch_threads)]
        for t in self._threads:
            t.start()

    def batchable(self, sig, feeds) -> bool:
        """Every input has a first dimension, the same for all, within the limit."""
        sizes = {v.shape[0] if getattr(v, "ndim", 0) else None for v in feeds.values()}
        return (len(sizes) == 1 and None not in sizes and set(feeds) == set(sig.inputs)
                and 0 < next(iter(sizes)) <= self.options.max_batch_size)

    def submit(self, sig, feeds, output_keys) -> Future:
        sig_key = id(sig)
        key = (sig_key, tuple(sorted(output_keys or ())),
               tuple((k, v.dtype.str, v.shape[1:]) for k, v in sorted(feeds.items())))
        task = _Task(sig, feeds, next(iter(feeds.values())).shape[0], output_keys)
        with self._cond:
            if self._closed:
                raise RequestError("The batch scheduler is closed", "UNAVAILABLE")
            queue = self._queues.setdefault(key, [])
            if len(queue) >= self.options.max_enqueued_batches * self.options.max_batch_size:
                raise RequestError("The batch scheduling queue to which this task was "
                                   "submitted is full", "UNAVAILABLE")
            queue.append((time.monotonic(), task))
            self._cond.notify()
        return task.future

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for t in self._threads:
            t.join()

    def _take(self):
        """The next batch to run (a list of tasks), or None once closed and drained."""
        timeout = self.options.batch_timeout_micros / 1e6
        with self._cond:
            while True:
                now = time.monotonic()
                wait = None
                for key, queue in list(self._queues.items()):
                    if not queue:
                        del self._queues[key]
                        continue
                    rows = sum(t.rows for _, t in queue)
                    due = queue[0][0] + timeout
                    if rows >= self.options.max_batch_size or now >= due or self._closed:
                        batch, total = [], 0
                        while queue and total + queue[0][1].rows <= \
                                self.options.max_batch_size:
                            total += queue[0][1].rows
                            batch.append(queue.pop(0)[1])
                        if not queue:
                            del self._queues[key]
                        return batch
                    wait = due - now if wait is None else min(wait, due - now)
                if self._closed:
                    return None
                self._cond.wait(wait)

    def _loop(self):
        while True:
            batch = self._take()
            if batch is None:
                return
            self._run(batch)

    def _run(self, batch):
        sig = batch[0].sig_key
        try:
            if len(batch) == 1:
                batch[0].future.set_result(self.model.run_signature(
                    sig, batch[0].feeds, batch[0].output_keys))
                return
            merged = {k: np.concatenate([t.feeds[k] for t in batch])
                      for k in batch[0].feeds}
            try:
                outputs = self.model.run_signature(sig, merged, batch[0].output_keys)
            except RequestError:
                outputs = None  # one request's bad values must not fail the others
            self.runs += 1
            total = sum(t.rows for t in batch)
            if outputs is None or any(getattr(v, "ndim", 0) == 0 or v.shape[0] != total
                                      for v in outputs.values()):
                # An error, or an output that is not per row (a sum over the batch): each
                # request runs alone and gets its own answer.
                for t in batch:
                    try:
                        t.future.set_result(self.model.run_signature(sig, t.feeds,
                                                                     t.output_keys))
                    except RequestError as e:
                        t.future.set_exception(e)
                return
            start = 0
            for t in batch:
                t.future.set_result({k: v[start:start + t.rows] for k, v in outputs.items()})
                start += t.rows
        except BaseException as e:  # noqa: BLE001 - every waiting request gets the error
            for t in batch:
                if not t.future.done():
                    t.future.set_exception(e)
