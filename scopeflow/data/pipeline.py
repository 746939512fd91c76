"""The run-time side of ``tf.data``: one Python iterator object per dataset node, made when an
iterator is initialized, producing elements as flat lists of arrays.

Every iterator here can report and restore its position (``get_state``/``set_state``:
nested lists, dicts, numbers and arrays), so an input pipeline can be saved with a model and
resumed on the same next element: a shuffle keeps its buffer and its random generator's
state, a repeat its epoch, a batch nothing (its input's position is enough).
"""

from __future__ import annotations

import collections
import glob as _glob
import os
import threading
import time

import numpy as np

from scopeflow.framework import errors
from scopeflow.io import tensor_bundle
from scopeflow.ops.random import philox

__all__ = ["End", "PyIterator", "PhiloxWords"]

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1


class End(Exception):
    """The iterator has no more elements (``OutOfRangeError`` at ``get_next``)."""


class PyIterator:
    """Base: ``next() -> list of arrays``; raises ``End``."""

    def next(self):
        raise NotImplementedError

    def get_state(self):
        raise errors.UnimplementedError(
            None, None, f"{type(self).__name__[1:]} does not support saving its position")

    def set_state(self, state):
        raise errors.UnimplementedError(
            None, None, f"{type(self).__name__[1:]} does not support restoring its position")

    def close(self):
        """Stops any background work (a prefetch thread)."""


class _Slices(PyIterator):
    def __init__(self, components):
        self.components = components
        self.n = len(components[0]) if components else 0
        self.i = 0

    def next(self):
        if self.i >= self.n:
            raise End
        i = self.i
        self.i += 1
        return [c[i] for c in self.components]

    def get_state(self):
        return {"i": self.i}

    def set_state(self, state):
        self.i = int(state["i"])


class _Once(PyIterator):
    def __init__(self, components):
        self.components = components
        self.done = False

    def next(self):
        if self.done:
            raise End
        self.done = True
        return list(self.components)

    def get_state(self):
        return {"done": self.done}

    def set_state(self, state):
        self.done = bool(state["done"])


class _Range(PyIterator):
    def __init__(self, start, stop, step, dtype):
        self.value, self.stop, self.step, self.dtype = start, stop, step, dtype

    def next(self):
        v = self.value
        if (self.step > 0 and v >= self.stop) or (self.step < 0 and v <= self.stop):
            raise End
        self.value = v + self.step
        return [np.asarray(v, self.dtype)]

    def get_state(self):
        return {"value": int(self.value)}

    def set_state(self, state):
        self.value = int(state["value"])


class _Map(PyIterator):
    def __init__(self, inner, call):
        self.inner, self.call = inner, call

    def next(self):
        return list(self.call(self.inner.next()))

    def get_state(self):
        return {"inner": self.inner.get_state()}

    def set_state(self, state):
        self.inner.set_state(state["inner"])


class _Filter(_Map):
    def next(self):
        while True:
            element = self.inner.next()
            (keep,) = self.call(element)
            if keep:
                return element


class _Batch(PyIterator):
    def __init__(self, inner, size, drop_remainder, pad=None):
        self.inner, self.size, self.drop = inner, size, drop_remainder
        self.pad = pad  # (padded shapes per component, padding values) for padded_batch

    def next(self):
        items = []
        try:
            while len(items) < self.size:
                items.append(self.inner.next())
        except End:
            if not items or self.drop:
                raise
        columns = list(zip(*items))
        if self.pad is None:
            return [_stack(c, k) for k, c in enumerate(columns)]
        shapes, values = self.pad
        return [_pad_stack(c, shapes[k], values[k]) for k, c in enumerate(columns)]

    def get_state(self):
        return {"inner": self.inner.get_state()}

    def set_state(self, state):
        self.inner.set_state(state["inner"])


def _stack(column, k):
    first = np.shape(column[0])
    for x in column[1:]:
        if np.shape(x) != first:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component {k}. "
                f"First element had shape {list(first)} and element {column.index(x)} had "
                f"shape {list(np.shape(x))}.")
    return np.stack(column)


def _pad_stack(column, shape, value):
    dims = [max(np.shape(x)[d] for x in column) if s is None else s
            for d, s in enumerate(shape)]
    out = np.full([len(column)] + dims, value, dtype=np.asarray(column[0]).dtype)
    for i, x in enumerate(column):
        x = np.asarray(x)
        if any(a > b for a, b in zip(x.shape, dims)):
            raise errors.InvalidArgumentError(
                None, None, f"Attempted to pad to a smaller size than the input element. "
                f"Element shape {list(x.shape)}, padded shape {dims}")
        out[(i,) + tuple(slice(0, n) for n in x.shape)] = x
    return out


class _Unbatch(PyIterator):
    def __init__(self, inner):
        self.inner = inner
        self.batch = None
        self.i = 0

    def next(self):
        while self.batch is None or self.i >= len(self.batch[0]):
            self.batch = self.inner.next()
            self.i = 0
        i = self.i
        self.i += 1
        return [c[i] for c in self.batch]

    def get_state(self):
        return {"inner": self.inner.get_state(), "batch": self.batch, "i": self.i}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.batch, self.i = state["batch"], int(state["i"])


class _Repeat(PyIterator):
    def __init__(self, make, count):
        self.make, self.count = make, count
        self.epoch = 0
        self.inner = make() if count != 0 else None
        self.produced = False

    def next(self):
        while True:
            if self.inner is None:
                raise End
            try:
                element = self.inner.next()
                self.produced = True
                return element
            except End:
                self.epoch += 1
                if (0 <= self.count <= self.epoch) or not self.produced:
                    self.inner = None  # done, or an empty input repeated forever
                    raise
                self.inner = self.make()

    def get_state(self):
        return {"epoch": self.epoch, "produced": self.produced,
                "inner": None if self.inner is None else self.inner.get_state()}

    def set_state(self, state):
        self.epoch, self.produced = int(state["epoch"]), bool(state["produced"])
        if state["inner"] is None:
            self.inner = None
        else:
            self.inner = self.make()
            self.inner.set_state(state["inner"])


class PhiloxWords:
    """TF's ``random::SingleSampleAdapter<random::PhiloxRandom>(seed, seed2)``: uint32
    samples in order (four per Philox block). ``drawn`` counts the samples taken (TF's
    ``num_random_samples_``) and is all a saved position needs."""

    _CHUNK = 64  # blocks computed at a time: one NumPy call per 256 samples

    def __init__(self, seed: int, seed2: int, drawn: int = 0):
        self.key = seed & _M64
        self.counter = (seed2 & _M64) << 64
        self.drawn = int(drawn)
        self._first = -(1 << 62)          # first block held in _words (none yet)
        self._words: list = []

    def next(self) -> int:
        block, k = divmod(self.drawn, 4)
        if not 0 <= block - self._first < self._CHUNK:
            self._first = block
            self._words = philox.philox4x32(self.key, (self.counter + block) & _M128,
                                            self._CHUNK).reshape(-1).tolist()
        self.drawn += 1
        return self._words[4 * (block - self._first) + k]


def os_seeds() -> tuple[int, int]:
    """``RandomSeeds`` with seed == seed2 == 0: two fresh 64-bit seeds from the OS."""
    return (int.from_bytes(os.urandom(8), "little"), int.from_bytes(os.urandom(8), "little"))


class _Shuffle(PyIterator):
    """TF's ``ShuffleDatasetOp`` iterator, draw for draw: the buffer is filled up to
    ``buffer_size``; each element is the one at ``sample % n`` among the ``n`` buffered (in
    arrival order), and the oldest element takes its place. ``seeds`` are this iterator's
    Philox seeds (from the dataset's seed generator, one pair per pass)."""

    def __init__(self, inner, buffer_size, seeds, table=None):
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
                "table": None if self.table is None else list(self.table)}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.buffer = [list(e) for e in state["buffer"]]
        self.head = 0
        self.exhausted = bool(state["exhausted"])
        self.seeds = (int(state["seeds"][0]), int(state["seeds"][1]))
        self.rng = PhiloxWords(*self.seeds, drawn=int(state["drawn"]))
        if self.table is not None and state["table"] is not None:
            self.table[:] = [int(v) for v in state["table"]]


class _Take(PyIterator):
    def __init__(self, inner, count):
        self.inner, self.count, self.taken = inner, count, 0

    def next(self):
        if 0 <= self.count <= self.taken:
            raise End
        element = self.inner.next()
        self.taken += 1
        return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "taken": self.taken}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.taken = int(state["taken"])


class _Skip(PyIterator):
    def __init__(self, inner, count):
        self.inner, self.count, self.skipped = inner, count, 0

    def next(self):
        while self.count < 0 or self.skipped < self.count:
            self.inner.next()
            self.skipped += 1
        return self.inner.next()

    def get_state(self):
        return {"inner": self.inner.get_state(), "skipped": self.skipped}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.skipped = int(state["skipped"])


class _Zip(PyIterator):
    def __init__(self, inners):
        self.inners = inners

    def next(self):
        out = []
        for it in self.inners:
            out.extend(it.next())
        return out

    def get_state(self):
        return {"inners": [it.get_state() for it in self.inners]}

    def set_state(self, state):
        for it, s in zip(self.inners, state["inners"]):
            it.set_state(s)


class _Concat(PyIterator):
    def __init__(self, makes):
        self.makes = makes
        self.k = 0
        self.inner = makes[0]()

    def next(self):
        while True:
            try:
                return self.inner.next()
            except End:
                if self.k + 1 >= len(self.makes):
                    raise
                self.k += 1
                self.inner = self.makes[self.k]()

    def get_state(self):
        return {"k": self.k, "inner": self.inner.get_state()}

    def set_state(self, state):
        self.k = int(state["k"])
        self.inner = self.makes[self.k]()
        self.inner.set_state(state["inner"])


class _Cache(PyIterator):
    """Elements of the first complete pass, kept; later passes read them."""

    def __init__(self, make, store):
        self.make, self.store = make, store  # store: a dict shared by the passes
        self.i = 0
        self.inner = None if "elements" in store else make()
        self.filling: list = []

    def next(self):
        if self.inner is None:
            elements = self.store["elements"]
            if self.i >= len(elements):
                raise End
            self.i += 1
            return elements[self.i - 1]
        try:
            element = self.inner.next()
        except End:
            self.store["elements"] = self.filling
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


class _FileCache(PyIterator):
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


class _FlatMap(PyIterator):
    def __init__(self, inner, call):
        self.inner, self.call = inner, call
        self.current = None
        self.current_args = None

    def next(self):
        while True:
            if self.current is None:
                self.current_args = self.inner.next()
                self.current = self.call(self.current_args)
            try:
                return self.current.next()
            except End:
                self.current = None

    def get_state(self):
        return {"inner": self.inner.get_state(), "args": self.current_args,
                "current": None if self.current is None else self.current.get_state()}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.current_args = state["args"]
        if state["current"] is None:
            self.current = None
        else:
            self.current = self.call(self.current_args)
            self.current.set_state(state["current"])


class _Interleave(PyIterator):
    """TF's deterministic interleave (``InterleaveDatasetOp``): ``cycle_length`` slots read
    in turn, ``block_length`` elements at a time; a slot whose input ends is left empty and
    refilled with the next input when the cycle comes back to it."""

    def __init__(self, inner, call, cycle_length, block_length):
        self.inner, self.call = inner, call
        self.cycle, self.block = cycle_length, block_length
        self.slots: list = [None] * cycle_length   # [args, iterator] or None
        self.k = 0
        self.in_block = 0
        self.inner_done = False
        self.open = 0

    def _advance(self):
        self.in_block = 0
        self.k = (self.k + 1) % self.cycle

    def next(self):
        while not self.inner_done or self.open > 0:
            slot = self.slots[self.k]
            if slot is not None:
                try:
                    element = slot[1].next()
                except End:
                    self.slots[self.k] = None
                    self.open -= 1
                    self._advance()
                    continue
                self.in_block += 1
                if self.in_block == self.block:
                    self._advance()
                return element
            if not self.inner_done:
                try:
                    args = self.inner.next()
                except End:
                    self.inner_done = True
                    continue
                self.slots[self.k] = [args, self.call(args)]
                self.open += 1
            else:
                self._advance()
        raise End

    def get_state(self):
        return {"inner": self.inner.get_state(), "k": self.k, "in_block": self.in_block,
                "inner_done": self.inner_done,
                "slots": [None if sl is None else [sl[0], sl[1].get_state()]
                          for sl in self.slots]}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.k, self.in_block = int(state["k"]), int(state["in_block"])
        self.inner_done = bool(state["inner_done"])
        self.slots, self.open = [], 0
        for sl in state["slots"]:
            if sl is None:
                self.slots.append(None)
                continue
            it = self.call(sl[0])
            it.set_state(sl[1])
            self.slots.append([sl[0], it])
            self.open += 1


class _Generator(PyIterator):
    def __init__(self, generator, specs, structure_check):
        self.it = iter(generator())
        self.specs = specs
        self.check = structure_check

    def next(self):
        try:
            value = next(self.it)
        except StopIteration:
            raise End from None
        return self.check(value)


class _Prefetch(PyIterator):
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


class _Lines(PyIterator):
    """Lines of text files, one file after another, without their line endings."""

    def __init__(self, filenames, read_bytes):
        self.filenames = filenames
        self.read_bytes = read_bytes
        self.f = 0
        self.lines = None
        self.i = 0

    def next(self):
        while True:
            if self.lines is None:
                if self.f >= len(self.filenames):
                    raise End
                self.lines = self._split(self.read_bytes(self.filenames[self.f]))
                self.i = 0
            if self.i < len(self.lines):
                self.i += 1
                return [np.asarray(self.lines[self.i - 1], dtype=object)]
            self.lines = None
            self.f += 1

    @staticmethod
    def _split(data):
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]

    def get_state(self):
        return {"f": self.f, "i": self.i, "open": self.lines is not None}

    def set_state(self, state):
        self.f, self.i = int(state["f"]), int(state["i"])
        self.lines = None
        if state["open"]:
            self.lines = self._split(self.read_bytes(self.filenames[self.f]))


class _Records(PyIterator):
    """Records of files (TFRecord or fixed-length), one file after another. ``read_records``
    gives a file's records as an iterable, read as they are used (a damaged record fails
    after the ones before it)."""

    def __init__(self, filenames, read_records):
        self.filenames = filenames
        self.read_records = read_records
        self.f = 0
        self.records = None
        self.i = 0

    def next(self):
        while True:
            if self.records is None:
                if self.f >= len(self.filenames):
                    raise End
                self.records = iter(self.read_records(self.filenames[self.f]))
                self.i = 0
            for record in self.records:
                self.i += 1
                return [np.asarray(record, dtype=object)]
            self.records = None
            self.f += 1

    def get_state(self):
        return {"f": self.f, "i": self.i, "open": self.records is not None}

    def set_state(self, state):
        self.f, self.i = int(state["f"]), int(state["i"])
        self.records = None
        if state["open"]:
            self.records = iter(self.read_records(self.filenames[self.f]))
            for _ in range(self.i):
                next(self.records)


def glob_files(patterns) -> list:
    out = []
    for p in patterns:
        out.extend(sorted(_glob.glob(p)))
    return out
