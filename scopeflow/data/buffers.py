"""The ``tf.data`` transformations that hold elements, each one block (its ``Dataset``, then
its run-time iterator): ``shuffle`` (TF's ``ShuffleDatasetOp``, draw for draw), ``cache``
(in memory, or TF's cache file) and ``prefetch`` (a producer thread)."""

from __future__ import annotations

import collections
import os
import threading
import time

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import AUTOTUNE, _static_int, _Unary, _unique, builds
from scopeflow.data.pipeline import CacheStore, End, PhiloxWords, PyIterator, SeedTable, os_seeds
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.random_seed import DEFAULT_GRAPH_SEED, get_seed
from scopeflow.framework.tensor_util import constant_value
from scopeflow.io import tensor_bundle

__all__: list = []


# ── shuffle ──────────────────────────────────────────────────────────────────────────
# ``buffer_size=tf.data.UNKNOWN_CARDINALITY`` (-2): TF buffers the whole input (each pass)
_UNKNOWN_CARDINALITY = -2
_SHUFFLE_ALL = 2**62
_MAXINT32 = 2**31 - 1


def _dataset_seeds(seed):
    """TF's ``data.util.random_seed.get_seed``: the (seed, seed2) pair a dataset op gets;
    (0, 0), when neither a graph nor an op seed is set, means "seed from the OS"."""
    if isinstance(seed, Tensor):
        seed = _static_int(seed, "shuffle seed")
    graph_seed, op_seed = get_seed(seed)
    if graph_seed is None:
        return 0, 0
    return int(graph_seed), int(op_seed)


def _shuffle_seeds(seed):
    """``_dataset_seeds``, or a ``_RuntimeSeed`` for a seed tensor known only at run time."""
    if isinstance(seed, Tensor) and constant_value(seed) is None:
        return _RuntimeSeed(seed)
    return _dataset_seeds(seed)


class _RuntimeSeed:
    """An op seed fed at run time (a placeholder): TF's graph computes ``seed % (2**31 - 1)``
    beside the graph seed (``DEFAULT_GRAPH_SEED`` when none) and, where both are 0, uses
    ``2**31 - 1`` as seed2 (``data.util.random_seed``'s ``where``)."""

    def __init__(self, tensor):
        self.tensor = convert_to_tensor(tensor, dtype=dtypes.int64)
        graph_seed = get_default_graph().seed
        self.graph_seed = DEFAULT_GRAPH_SEED if graph_seed is None else \
            int(graph_seed) % _MAXINT32

    def pair(self, env) -> tuple[int, int]:
        seed2 = int(env[self.tensor]) % _MAXINT32
        if (self.graph_seed, seed2) == (0, 0):
            return 0, _MAXINT32
        return self.graph_seed, seed2


def _check_buffer_size(value: int) -> int:
    """TF's ShuffleDataset check, made when the iterator starts (as TF's kernel does)."""
    if value == _UNKNOWN_CARDINALITY:
        return _SHUFFLE_ALL
    if value <= 0:
        raise errors.InvalidArgumentError(
            None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
    return value


@builds("shuffle")
class _Shuffle(_Unary):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration,
                 buffer_all=False):
        super().__init__(input_dataset)
        # buffer_all: list_files's buffer, as large as the list it shuffles; a buffer_size
        # known only at run time (a placeholder) is read when the iterator starts
        self._buffer_tensor = None
        if buffer_all:
            self._buffer = _SHUFFLE_ALL
        else:
            value = constant_value(buffer_size) if isinstance(buffer_size, Tensor) \
                else buffer_size
            if value is None:
                self._buffer_tensor = convert_to_tensor(buffer_size, dtype=dtypes.int64)
            self._buffer = None if value is None else int(value)
        self._seeds = _shuffle_seeds(seed)
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)

    def _captures(self):
        extra = [t for t in (self._buffer_tensor, getattr(self._seeds, "tensor", None))
                 if t is not None]
        return _unique(self._input._captures() + extra)

    def _iterator(self, state, env):
        buffer = _check_buffer_size(
            self._buffer if self._buffer_tensor is None else int(env[self._buffer_tensor]))
        seeds = self._seeds.pair(env) if isinstance(self._seeds, _RuntimeSeed) else self._seeds
        # TF's seed generator lives as long as the dataset an initialization makes: every
        # pass over it (a repeat) takes the next pair of its Philox samples when
        # reshuffle_each_iteration (RandomSeedGenerator), the seeds themselves otherwise
        # (FixedSeedGenerator). Re-initializing starts it again: the same orders.
        table = env.table(self._id, SeedTable, lambda: SeedTable(
            *(seeds if seeds != (0, 0) else os_seeds())))
        if self._reshuffle:
            gen = PhiloxWords(table.seed, table.seed2, drawn=table.drawn)
            pair = (gen.next(), gen.next())
            table.drawn = gen.drawn
        else:
            pair = (table.seed, table.seed2)
        return _ShuffleIterator(self._input._make_iterator(state, env), buffer, pair, table)


class _ShuffleIterator(PyIterator):
    """TF's ``ShuffleDatasetOp`` iterator, draw for draw: the buffer is filled up to
    ``buffer_size``; each element is the one at ``sample % n`` among the ``n`` buffered (in
    arrival order), and the oldest element takes its place. ``seeds`` are this iterator's
    Philox seeds (from the dataset's seed generator, one pair per pass)."""

    def __init__(self, inner, buffer_size, seeds, table: SeedTable):
        self.inner, self.size = inner, buffer_size
        self.seeds = (int(seeds[0]), int(seeds[1]))
        self.rng = PhiloxWords(*self.seeds)
        self.table = table                  # the dataset's seed generator position, shared
        self.buffer: list = []              # live elements: buffer[head:]
        self.head = 0
        self.exhausted = False

    def next(self):
        buf = self.buffer
        while not self.exhausted and len(buf) - self.head < self.size:
            try:
                buf.append(self.inner.next())
            except End:
                self.exhausted = True
        n = len(buf) - self.head
        if n == 0:
            raise End
        j = self.head + self.rng.next() % n
        element = buf[j]
        buf[j] = buf[self.head]
        buf[self.head] = None
        self.head += 1
        if self.head > 1024 and self.head * 2 > len(buf):   # amortised O(1) compaction
            del buf[:self.head]
            self.head = 0
        return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "buffer": self.buffer[self.head:],
                "exhausted": self.exhausted, "seeds": list(self.seeds),
                "drawn": self.rng.drawn,
                "table": self.table.saved()}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.buffer = [list(e) for e in state["buffer"]]
        self.head = 0
        self.exhausted = bool(state["exhausted"])
        self.seeds = (int(state["seeds"][0]), int(state["seeds"][1]))
        self.rng = PhiloxWords(*self.seeds, drawn=int(state["drawn"]))
        if state["table"] is not None:
            self.table.restore([int(v) for v in state["table"]])


# ── cache ──────────────────────────────────────────────────────────────────────────────
@builds("cache")
class _Cache(_Unary):
    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")

    def _captures(self):
        return _unique(self._input._captures() + [self._filename])

    def _iterator(self, state, env):
        inner = self._input
        filename = np.asarray(env[self._filename], dtype=object).reshape(-1)[0]
        filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        if filename:
            it = _FileCacheIterator(lambda: inner._make_iterator(state, env), filename,
                                    len(st.specs(self._structure)))
            if it.reader is None:   # a writer: its lock goes when re-initialized or closed
                env.cache_writers.append(it)
            return it
        store = env.table(self._id, CacheStore, CacheStore)
        return _CacheIterator(lambda: inner._make_iterator(state, env), store)


class _CacheIterator(PyIterator):
    """Elements of the first complete pass, kept; later passes read them."""

    def __init__(self, make, store):
        self.make, self.store = make, store  # the node's, shared by its passes
        self.i = 0
        self.inner = None if store.elements is not None else make()
        self.filling: list = []

    def next(self):
        if self.inner is None:
            elements = self.store.elements
            if self.i >= len(elements):
                raise End
            self.i += 1
            return elements[self.i - 1]
        try:
            element = self.inner.next()
        except End:
            self.store.elements = self.filling
            self.inner = None
            raise
        self.filling.append(element)
        return element

    def get_state(self):
        if self.inner is None:
            return {"cached": True, "i": self.i}
        return {"cached": False, "inner": self.inner.get_state(), "filling": self.filling}

    def set_state(self, state):
        if state["cached"]:
            self.inner, self.i = None, int(state["i"])
        else:
            self.inner = self.make()
            self.inner.set_state(state["inner"])
            self.filling = [list(e) for e in state["filling"]]


class _FileCacheIterator(PyIterator):
    """``Dataset.cache(filename)``, as TF's file cache: an iterator made while
    ``<filename>.index`` exists reads the elements from that tensor bundle (keys
    ``"%7d_%d" % (element, component)``, TF's); otherwise it runs its input and, when the
    pass completes, writes the bundle (atomically, the index last). While it writes it holds
    ``<filename>_0.lockfile``: a second writer fails as TF's does, and an unfinished pass
    (re-initialized, session closed) removes the lock and leaves no cache behind."""

    MAX_ITEMS = 10_000_000   # TF's limit (its keys' 7 digits)

    def __init__(self, make, prefix, num_components):
        self.make, self.prefix, self.n = make, prefix, num_components
        self.lockfile = f"{prefix}_0.lockfile"
        self.i = 0
        self.filling: list = []
        self.locked = self.done = False
        self.failed = None
        self.reader = self.inner = None
        if os.path.exists(tensor_bundle.index_filename(prefix)):
            self.reader = tensor_bundle.BundleReader(prefix)
        else:
            self.inner = make()

    @staticmethod
    def key(i, k):
        return f"{i:7d}_{k}"

    def _lock(self):
        if self.failed is not None:   # as TF's: a writer that found a lock stays failed
            raise errors.AlreadyExistsError(None, None, self.failed)
        if os.path.exists(self.lockfile):
            with open(self.lockfile, "rb") as f:
                contents = f.read(150).decode(errors="replace")
            self.failed = (
                "There appears to be a concurrent caching iterator running - cache "
                f"lockfile already exists ('{self.lockfile}'). If you are sure no other "
                "running TF computations are using this cache prefix, delete the lockfile and "
                f"re-initialize the iterator. Lockfile contents: {contents}")
            raise errors.AlreadyExistsError(None, None, self.failed)
        try:
            with open(self.lockfile, "w") as f:
                f.write(f"Created at: {int(time.time())}")
        except FileNotFoundError:   # as TF: the cache's directory must exist
            raise errors.NotFoundError(
                None, None, f"{self.lockfile}; No such file or directory") from None
        self.locked = True

    def next(self):
        if self.reader is not None:
            if self.key(self.i, 0) not in self.reader:
                raise End
            element = [self.reader.read(self.key(self.i, k)) for k in range(self.n)]
            self.i += 1
            return element
        if self.done:
            raise End
        if not self.locked:
            self._lock()
        try:
            element = self.inner.next()
        except End:
            self._finish()
            raise
        if len(self.filling) >= self.MAX_ITEMS:
            raise errors.OutOfRangeError(
                None, None, f"Upstream iterator is producing more than {self.MAX_ITEMS} "
                "items, which is more than the cache limit.")
        self.filling.append(element)
        return element

    def _finish(self):
        names = [self.key(i, k) for i in range(len(self.filling)) for k in range(self.n)]
        arrays = [np.asarray(c) for e in self.filling for c in e]
        tensor_bundle.write_bundle(self.prefix, names, arrays)
        self.done, self.filling = True, []
        self.close()

    def get_state(self):
        if self.reader is not None:
            return {"read": True, "i": self.i}
        return {"read": False, "done": self.done,
                "inner": None if self.done else self.inner.get_state(),
                "filling": self.filling}

    def set_state(self, state):
        if state["read"]:
            if self.reader is None:
                raise errors.NotFoundError(
                    None, None, f"The cache {self.prefix}.index a saved position reads from "
                    "does not exist")
            self.i = int(state["i"])
            return
        self.reader, self.done = None, bool(state["done"])
        if self.inner is None:
            self.inner = self.make()
        if not self.done:
            self.inner.set_state(state["inner"])
        self.filling = [list(e) for e in state["filling"]]

    def close(self):
        """An unfinished pass leaves nothing: its lock goes, its elements are dropped."""
        if self.locked:
            self.locked = False
            try:
                os.remove(self.lockfile)
            except FileNotFoundError:
                pass


# ── prefetch ───────────────────────────────────────────────────────────────────────────
@builds("prefetch")
class _Prefetch(_Unary):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        size = _static_int(buffer_size, "buffer_size")
        self._size = 2 if size == AUTOTUNE else size

    def _iterator(self, state, env):
        if self._size < 0:  # TF's kernel checks it when the iterator is made
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for "
                "auto-tuning")
        if self._size == 0:
            return self._input._make_iterator(state, env)
        it = _PrefetchIterator(self._input._make_iterator(state, env), self._size)
        env.prefetchers.append(it)
        return it


class _PrefetchIterator(PyIterator):
    """``prefetch(n)``: a background thread makes up to ``n`` elements ahead of ``next``, so
    the pipeline's work overlaps the step that consumes it (NumPy releases the GIL in its
    kernels). One producer thread keeps the order; an error reaches ``next`` at its element.
    ``get_state`` pauses the producer between elements: the position is the elements made
    but not yet taken, and the input's position after them."""

    def __init__(self, inner, buffer_size):
        self.inner = inner
        self.size = max(1, buffer_size)
        self.cv = threading.Condition()
        self.buffer: collections.deque = collections.deque()  # ("ok", e) | ("end",) | ("error", e)
        self.busy = self.paused = self.stopped = False
        self.thread = None
        # How often ``next`` found nothing made yet and had to wait (and for how long): the
        # measure of whether the input side keeps up with the step (bench_pipeline.py).
        self.taken = self.starved = 0
        self.starved_s = 0.0
        self._start()

    def _start(self):
        self.stopped = False
        self.thread = threading.Thread(target=self._produce, name="scopeflow-prefetch",
                                       daemon=True)
        self.thread.start()

    def _produce(self):
        while True:
            with self.cv:
                while (len(self.buffer) >= self.size or self.paused) and not self.stopped:
                    self.cv.wait()
                if self.stopped:
                    return
                self.busy = True
            try:
                item = ("ok", self.inner.next())
            except End:
                item = ("end",)
            except BaseException as e:  # noqa: BLE001 - delivered to next() in order
                item = ("error", e)
            with self.cv:
                self.busy = False
                self.buffer.append(item)
                self.cv.notify_all()
                if item[0] != "ok":
                    return

    def next(self):
        with self.cv:
            self.taken += 1
            if not self.buffer:
                self.starved += 1
                start = time.perf_counter()
                while not self.buffer:
                    self.cv.wait()
                self.starved_s += time.perf_counter() - start
            item = self.buffer[0]
            if item[0] == "ok":
                self.buffer.popleft()
                self.cv.notify_all()
                return item[1]
        if item[0] == "end":
            raise End
        raise item[1]

    def _paused_state(self, fn):
        with self.cv:
            self.paused = True
            while self.busy:
                self.cv.wait()
        try:
            return fn()
        finally:
            with self.cv:
                self.paused = False
                self.cv.notify_all()

    def get_state(self):
        def state():
            if any(item[0] == "error" for item in self.buffer):
                raise next(item[1] for item in self.buffer if item[0] == "error")
            return {"buffered": [item[1] for item in self.buffer if item[0] == "ok"],
                    "ended": any(item[0] == "end" for item in self.buffer),
                    "inner": self.inner.get_state()}
        return self._paused_state(state)

    def set_state(self, state):
        self.close()
        self.inner.set_state(state["inner"])
        self.buffer = collections.deque(("ok", list(e)) for e in state["buffered"])
        if state["ended"]:
            self.buffer.append(("end",))
        else:
            self._start()

    def close(self):
        with self.cv:
            self.stopped = True
            self.cv.notify_all()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join()


