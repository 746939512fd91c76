"""TF1's queues: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``, ``tf.PaddingFIFOQueue``,
``tf.PriorityQueue``.

A queue is a per-session resource (``SessionState.resources``, keyed by the queue op's
name, or its ``shared_name``): the ``FIFOQueueV2``-style op creates it on its first run and
outputs a handle (a 0-d object array holding the ``_Queue``); ``QueueEnqueueV2``,
``QueueDequeueV2`` and the others take that handle. Blocking is real: a dequeue waits on a
condition variable until another thread's ``Session.run`` enqueues, the queue is closed
(``OutOfRangeError`` once too few elements are left), the session is closed (the wait is
cancelled: ``CancelledError``), or the run's ``RunOptions.timeout_in_ms`` passes
(``DeadlineExceededError``), with TF's messages (``FIFOQueue '_0_fifo_queue' is closed and
has insufficient elements (requested 1, current size 0)``). Orders are TF's: a
RandomShuffleQueue draws TF's Philox samples for its seeds, a PriorityQueue keeps TF's
``std::priority_queue`` heap (so equal priorities leave in TF's order).

``CountUpTo`` (``Variable.count_up_to``) is here too: it is what ``num_epochs`` of the
input producers counts with (``scopeflow.train.input``).
"""

from __future__ import annotations

import collections
import hashlib
import threading
import time

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from scopeflow.framework.kernel_context import UninitializedVariable
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, ref, scalar_shape
from scopeflow.framework.properties import read_only
from scopeflow.framework.random_seed import get_seed
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.ops.random import philox

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue",
           "SessionResource", "count_up_to", "deadline_of", "wait_once",
           "wait_until"]


# ── Session resources: naming, cancellation, deadlines ───────────────────────────────
_CREATE_LOCK = threading.Lock()


class SessionResource:
    """A per-session object of a stateful op (a queue, a reader), named as TF names
    resources without a ``shared_name``: ``_<n>_<op name>``, ``n`` counting this session's
    resources in creation order."""

    name = ""

    def cancel(self):
        """The session is closing: wake every blocked op (they raise ``CancelledError``)."""


def session_resource(ctx, shared_name, factory):
    """This session's resource of ``ctx.op`` (``shared_name`` shares it), made on first use."""
    resources = ctx.state.resources
    key = shared_name or ctx.op.name
    res = resources.get(key)
    if res is None:
        with _CREATE_LOCK:
            res = resources.get(key)
            if res is None:
                n = sum(isinstance(r, SessionResource) for r in list(resources.values()))
                res = resources[key] = factory(shared_name or f"_{n}_{ctx.op.name}")
    return res


def deadline_of(ctx):
    """The monotonic time the current run must end by (``RunOptions.timeout_in_ms``)."""
    return ctx.state.deadlines.get(threading.get_ident())


def wait_once(cond, deadline):
    """One wait on ``cond`` (held), at most until ``deadline`` (``DeadlineExceededError``
    once it has passed); wakes now and then, so that a closed session is noticed."""
    if deadline is None:
        cond.wait(0.5)
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")
    cond.wait(min(left, 0.5))


def wait_until(cond, predicate, deadline, cancelled):
    """Waits on ``cond`` (held) until ``predicate()``; raises ``DeadlineExceededError`` past
    ``deadline`` and returns False when ``cancelled()`` (the caller raises its own error)."""
    while not predicate():
        if cancelled():
            return False
        wait_once(cond, deadline)
    return True


def _handle(queue):
    h = np.empty((), dtype=object)
    h[()] = queue
    return h


# ── PriorityQueue's heap ─────────────────────────────────────────────────────────────
class _PriorityHeap:
    """``std::priority_queue`` of (priority, element), smallest priority on top, as TF's
    ``PriorityQueue`` keeps it: libstdc++'s ``push_heap``/``pop_heap`` step for step, so
    elements of equal priority come out in TF's order (not first-in first-out)."""

    __slots__ = ("heap",)

    def __init__(self):
        self.heap: list = []   # [priority, element]

    def __len__(self):
        return len(self.heap)

    def append(self, element):
        """``push``: ``element[0]`` (a scalar int64) is its priority."""
        self.heap.append((int(element[0]), element))
        self._sift_up(len(self.heap) - 1, 0, self.heap[-1])

    def _sift_up(self, hole, top, value):             # std::__push_heap
        heap = self.heap
        parent = (hole - 1) // 2
        while hole > top and heap[parent][0] > value[0]:
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def popleft(self):
        """``top`` then ``pop`` (``std::pop_heap``: the last element refills the root)."""
        heap = self.heap
        top = heap[0]
        if len(heap) > 1:
            value = heap.pop()
            n = len(heap)
            hole, child = 0, 0                         # std::__adjust_heap
            while child < (n - 1) // 2:
                child = 2 * (child + 1)
                if heap[child][0] > heap[child - 1][0]:
                    child -= 1
                heap[hole] = heap[child]
                hole = child
            if n % 2 == 0 and child == (n - 2) // 2:
                child = 2 * (child + 1)
                heap[hole] = heap[child - 1]
                hole = child - 1
            self._sift_up(hole, 0, value)
        else:
            heap.pop()
        return top[1]


# ── The queue itself ─────────────────────────────────────────────────────────────────
class _Queue(SessionResource):
    """One session's queue: its elements (tuples of arrays) and blocked ops' condition."""

    def __init__(self, name, kind, component_types, shapes, capacity, min_after_dequeue=0,
                 seed=0, seed2=0):
        self.name = name
        self.kind = kind  # "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue"
        self.dtypes = list(component_types)
        self.shapes = [as_shape(s) for s in shapes] if shapes else None
        self.capacity = capacity
        self.min_after_dequeue = min_after_dequeue
        self.items = _PriorityHeap() if kind == "PriorityQueue" else \
            [] if kind == "RandomShuffleQueue" else collections.deque()
        self.closed = False
        self.cancel_enqueues = False
        self.cancelled = False
        self.cond = threading.Condition()
        # RandomShuffleQueue: TF's SingleSampleAdapter<PhiloxRandom>(seed, seed2) (fresh
        # OS seeds when both are 0), one uint32 sample per element dequeued
        self.rng = philox.PhiloxStream(seed, seed2)
        self.drawn = 0
        self._block = (-1, None)

    def cancel(self):
        with self.cond:
            self.cancelled = True
            self.cond.notify_all()

    # -- checks ------------------------------------------------------------------------
    def _check_element(self, op, values):
        if len(values) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Wrong number of components in tuple. Expected {len(self.dtypes)}, "
                f"got {len(values)}")
        out = []
        for i, (v, dt) in enumerate(zip(values, self.dtypes)):
            arr = np.array(v, dtype=dt.as_numpy_dtype, copy=True)
            if self.shapes is not None and not self.shapes[i].is_compatible_with(
                    TensorShape(arr.shape)):
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch in tuple component {i}. Expected "
                    f"{_dims(self.shapes[i])}, got {list(arr.shape)}")
            out.append(arr)
        return tuple(out)

    def _full(self):
        return 0 <= self.capacity <= len(self.items)

    def _enqueue_cancelled(self):
        return self.cancelled or self.cancel_enqueues

    # -- enqueue -----------------------------------------------------------------------
    def enqueue(self, ctx, elements):
        """Adds each element in turn, waiting for room. A closed queue takes no new
        enqueue; one already waiting still completes unless the close cancelled it."""
        deadline = deadline_of(ctx)
        with self.cond:
            if self.closed:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            for element in elements:
                if not wait_until(self.cond, lambda: not self._full(), deadline,
                                  self._enqueue_cancelled):
                    raise errors.CancelledError(None, None, "Enqueue operation was cancelled")
                self.items.append(element)
                self.cond.notify_all()

    # -- dequeue -----------------------------------------------------------------------
    def _take(self, n):
        if self.kind != "RandomShuffleQueue":
            return [self.items.popleft() for _ in range(n)]
        # TF's DequeueLocked: the element at sample % size leaves, the last one takes its place
        items, taken = self.items, []
        for _ in range(n):
            j = self._sample() % len(items)
            taken.append(items[j])
            items[j] = items[-1]
            items.pop()
        return taken

    def _sample(self) -> int:
        block, k = divmod(self.drawn, 4)
        if self._block[0] != block:
            self._block = (block, self.rng.blocks(self.rng.counter + block, 1)[0].tolist())
        self.drawn += 1
        return self._block[1][k]

    def _restore(self, taken):
        """Puts back what a dequeue the closed queue cannot fill had taken: at the front in
        order (FIFO), or by priority; a RandomShuffleQueue puts them back at the end, last
        taken first (the order later draws see)."""
        if self.kind == "RandomShuffleQueue":
            self.items.extend(reversed(taken))
        elif self.kind == "PriorityQueue":
            for element in taken:
                self.items.append(element)
        else:
            self.items.extendleft(reversed(taken))
        taken.clear()

    def dequeue(self, ctx, n, up_to=False):
        """``n`` elements (None: one, not batched); fewer only for ``up_to`` once closed.

        As TF's queues: a waiting dequeue takes elements as they come (leaving
        ``min_after_dequeue`` in a shuffling queue until it is closed). If the queue is
        closed before it has all, it puts them back and raises ``OutOfRangeError`` naming
        how many it still needed and how many the queue held; ``up_to`` instead returns
        all that is left, if anything is. A dequeue that times out
        (``DeadlineExceededError``) or is cancelled loses what it had taken, as TF's
        cancelled attempt does; a PriorityQueue takes a batch only whole, so it loses
        nothing."""
        requested = 1 if n is None else n
        deadline = deadline_of(ctx)
        taken: list = []
        keep = self.min_after_dequeue if self.kind == "RandomShuffleQueue" else 0
        with self.cond:
            try:
                while requested > 0:
                    if self.cancelled:
                        raise errors.CancelledError(None, None,
                                                    "Dequeue operation was cancelled")
                    size = len(self.items)
                    if self.closed and size < requested:
                        taken = self._dequeue_closed(taken, requested, size, up_to)
                        break
                    k = min(size if self.closed else size - keep, requested)
                    if self.kind == "PriorityQueue" and k < requested:
                        k = 0  # TF's PriorityQueue takes a batch whole or not at all
                    if k > 0:
                        taken += self._take(k)
                        requested -= k
                        self.cond.notify_all()
                        continue
                    wait_once(self.cond, deadline)
            except (errors.DeadlineExceededError, errors.CancelledError):
                # TF cancels a timed-out or cancelled attempt: what it had taken is lost
                # (only a close puts elements back).
                raise
            except BaseException:
                self._restore(taken)
                self.cond.notify_all()
                raise
        if n is None:
            out = taken[0]
        else:
            out = tuple(self._batch([e[i] for e in taken], i) for i in range(len(self.dtypes)))
        return out[0] if len(out) == 1 else out  # a kernel of one output returns it alone

    def _dequeue_closed(self, taken, requested, size, up_to):
        """The end of a dequeue the closed queue cannot fill: all that is left for
        ``up_to``, else TF's ``OutOfRangeError`` (``taken`` is put back first)."""
        if up_to and self.kind == "PriorityQueue":
            # TF's PriorityQueue has no small final batch: its DequeueUpTo
            # takes what is left and fails for the rest (the taken are lost).
            self._take(size)
            taken.clear()
            raise errors.OutOfRangeError(
                None, None, f"{self.kind} '{self.name}' is closed and has "
                f"insufficient elements (requested {requested - size}, current "
                "size 0)")
        self._restore(taken)
        if up_to and self.items:
            return self._take(len(self.items))
        raise errors.OutOfRangeError(
            None, None, f"{self.kind} '{self.name}' is closed and has "
            f"insufficient elements (requested {requested}, current size "
            f"{size})")

    def _batch(self, parts, i):
        if self.kind != "PaddingFIFOQueue":
            return np.stack(parts) if parts else \
                np.zeros((0,) + tuple(self.shapes[i].as_list()), self.dtypes[i].as_numpy_dtype)
        rank = len(self.shapes[i].as_list())
        dims = [max((p.shape[d] for p in parts), default=0) for d in range(rank)]
        fill = b"" if self.dtypes[i] is _dtypes.string else 0
        out = np.full([len(parts)] + dims, fill, dtype=self.dtypes[i].as_numpy_dtype)
        for j, p in enumerate(parts):
            out[(j,) + tuple(slice(0, s) for s in p.shape)] = p
        return out

    def check_batchable(self, op):
        if self.shapes is None or (self.kind != "PaddingFIFOQueue" and
                                   not all(s.is_fully_defined() for s in self.shapes)):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the components "
                "to have specified shapes.")


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _queue_of(handle) -> _Queue:
    return handle[()] if isinstance(handle, np.ndarray) else handle


# ── FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 ──────────────────────────────
def _queue_dtype(**attrs):
    return _dtypes.resource


_QUEUE_ATTRS = {"component_types": None, "shapes": None, "capacity": -1, "container": "",
                "shared_name": ""}


def _fifo_queue_kernel(ctx, *, component_types, shapes, capacity, container, shared_name):
    return _handle(session_resource(ctx, shared_name, lambda name: _Queue(
        name, "FIFOQueue", component_types, shapes, capacity)))


fifo_queue_op = OpDef("FIFOQueueV2", shape=scalar_shape, dtype=_queue_dtype,
                      kernel=_fifo_queue_kernel, attrs=_QUEUE_ATTRS, stateful=True,
                      grad=NO_GRADIENT)


def _padding_fifo_queue_kernel(ctx, *, component_types, shapes, capacity, container,
                               shared_name):
    return _handle(session_resource(ctx, shared_name, lambda name: _Queue(
        name, "PaddingFIFOQueue", component_types, shapes, capacity)))


padding_fifo_queue_op = OpDef("PaddingFIFOQueueV2", shape=scalar_shape, dtype=_queue_dtype,
                              kernel=_padding_fifo_queue_kernel, attrs=_QUEUE_ATTRS,
                              stateful=True, grad=NO_GRADIENT)


def _random_shuffle_queue_kernel(ctx, *, component_types, shapes, capacity, min_after_dequeue,
                                 seed, seed2, container, shared_name):
    return _handle(session_resource(ctx, shared_name, lambda name: _Queue(
        name, "RandomShuffleQueue", component_types, shapes, capacity, min_after_dequeue,
        seed, seed2)))


random_shuffle_queue_op = OpDef(
    "RandomShuffleQueueV2", shape=scalar_shape, dtype=_queue_dtype,
    kernel=_random_shuffle_queue_kernel,
    attrs={**_QUEUE_ATTRS, "min_after_dequeue": 0, "seed": 0, "seed2": 0}, stateful=True,
    grad=NO_GRADIENT)


def _priority_queue_kernel(ctx, *, component_types, shapes, capacity, container, shared_name):
    # The op's types and shapes leave out the priority: an int64 scalar, first (TF's
    # PriorityQueueOp inserts it).
    shapes = [TensorShape([])] + list(shapes) if shapes else []
    return _handle(session_resource(ctx, shared_name, lambda name: _Queue(
        name, "PriorityQueue", [_dtypes.int64] + list(component_types), shapes, capacity)))


priority_queue_op = OpDef("PriorityQueueV2", shape=scalar_shape, dtype=_queue_dtype,
                          kernel=_priority_queue_kernel, attrs=_QUEUE_ATTRS, stateful=True,
                          grad=NO_GRADIENT)


# ── QueueEnqueueV2, QueueEnqueueManyV2 ───────────────────────────────────────────────
def _no_outputs(*args, **attrs):
    return []


def _queue_enqueue_kernel(ctx, handle, *components, Tcomponents, timeout_ms):
    queue = _queue_of(handle)
    queue.enqueue(ctx, [queue._check_element(ctx.op, components)])


queue_enqueue_op = OpDef("QueueEnqueueV2", shape=_no_outputs, dtype=_no_outputs,
                         kernel=_queue_enqueue_kernel,
                         attrs={"Tcomponents": None, "timeout_ms": -1}, num_outputs=0,
                         stateful=True, grad=NO_GRADIENT)


def _queue_enqueue_many_kernel(ctx, handle, *components, Tcomponents, timeout_ms):
    queue = _queue_of(handle)
    n = {np.shape(c)[0] if np.ndim(c) else None for c in components}
    if None in n or len(n) != 1:
        raise errors.InvalidArgumentError(
            None, None, "Expected all components to have the same size in the 0th "
            f"dimension, got {[np.shape(c)[:1] for c in components]}")
    elements = [queue._check_element(ctx.op, [c[j] for c in components])
                for j in range(n.pop())]
    queue.enqueue(ctx, elements)


queue_enqueue_many_op = OpDef("QueueEnqueueManyV2", shape=_no_outputs, dtype=_no_outputs,
                              kernel=_queue_enqueue_many_kernel,
                              attrs={"Tcomponents": None, "timeout_ms": -1}, num_outputs=0,
                              stateful=True, grad=NO_GRADIENT)


# ── QueueDequeueV2, QueueDequeueManyV2, QueueDequeueUpToV2 ────────────────────────────
def _dequeue_num_outputs(attrs, n_inputs):
    return len(attrs["component_types"])


def _dequeue_shape(*inputs, component_types, timeout_ms):
    return [TensorShape(None)] * len(component_types)


def _dequeue_dtype(*inputs, component_types, timeout_ms):
    return list(component_types)


def _queue_dequeue_kernel(ctx, handle, *, component_types, timeout_ms):
    return _queue_of(handle).dequeue(ctx, None)


queue_dequeue_op = OpDef("QueueDequeueV2", shape=_dequeue_shape, dtype=_dequeue_dtype,
                         kernel=_queue_dequeue_kernel,
                         attrs={"component_types": None, "timeout_ms": -1},
                         num_outputs=_dequeue_num_outputs, stateful=True, grad=NO_GRADIENT)


def _batch_of(ctx, handle, n, kernel):
    """DequeueMany's and DequeueUpTo's queue and ``n``: every component of a known shape
    (to batch them), ``n >= 0``."""
    queue = _queue_of(handle)
    queue.check_batchable(ctx.op)
    if int(n) < 0:
        raise errors.InvalidArgumentError(
            None, None, f"{kernel} requested {int(n)} < 0 elements")
    return queue, int(n)


def _queue_dequeue_many_kernel(ctx, handle, n, *, component_types, timeout_ms):
    queue, n = _batch_of(ctx, handle, n, "DequeueManyOp")
    return queue.dequeue(ctx, n)


queue_dequeue_many_op = OpDef("QueueDequeueManyV2", shape=_dequeue_shape, dtype=_dequeue_dtype,
                              kernel=_queue_dequeue_many_kernel,
                              attrs={"component_types": None, "timeout_ms": -1},
                              num_outputs=_dequeue_num_outputs, stateful=True,
                              grad=NO_GRADIENT)


def _queue_dequeue_up_to_kernel(ctx, handle, n, *, component_types, timeout_ms):
    queue, n = _batch_of(ctx, handle, n, "DequeueUpToOp")
    return queue.dequeue(ctx, n, up_to=True)


queue_dequeue_up_to_op = OpDef("QueueDequeueUpToV2", shape=_dequeue_shape,
                               dtype=_dequeue_dtype, kernel=_queue_dequeue_up_to_kernel,
                               attrs={"component_types": None, "timeout_ms": -1},
                               num_outputs=_dequeue_num_outputs, stateful=True,
                               grad=NO_GRADIENT)


# ── QueueCloseV2, QueueSizeV2, QueueIsClosedV2 ────────────────────────────────────────
def _queue_close_kernel(ctx, handle, *, cancel_pending_enqueues):
    queue = _queue_of(handle)
    with queue.cond:
        if queue.closed and not cancel_pending_enqueues:
            # TF's QueueBase::Close: a plain close of a closed queue fails (one that
            # cancels pending enqueues does not).
            raise errors.CancelledError(None, None, f"Queue '{queue.name}' is already closed.")
        queue.closed = True
        queue.cancel_enqueues = queue.cancel_enqueues or cancel_pending_enqueues
        queue.cond.notify_all()


queue_close_op = OpDef("QueueCloseV2", shape=_no_outputs, dtype=_no_outputs,
                       kernel=_queue_close_kernel, attrs={"cancel_pending_enqueues": False},
                       num_outputs=0, stateful=True, grad=NO_GRADIENT)


def _queue_size_kernel(ctx, handle):
    return np.array(len(_queue_of(handle).items), dtype=np.int32)


queue_size_op = OpDef("QueueSizeV2", shape=scalar_shape, dtype=lambda h: _dtypes.int32,
                      kernel=_queue_size_kernel, stateful=True, grad=NO_GRADIENT)


def _queue_is_closed_kernel(ctx, handle):
    return np.array(_queue_of(handle).closed)


queue_is_closed_op = OpDef("QueueIsClosedV2", shape=scalar_shape,
                           dtype=lambda h: _dtypes.bool_, kernel=_queue_is_closed_kernel,
                           stateful=True, grad=NO_GRADIENT)


# ── CountUpTo ────────────────────────────────────────────────────────────────────────
_COUNT_LOCK = threading.Lock()


def _count_up_to_kernel(ctx, ref, *, limit):
    try:
        var = ctx.state.vars[ref]
    except KeyError:
        raise UninitializedVariable(ctx.op.graph._ops_by_name[ref]) from None
    with _COUNT_LOCK:
        before = var.copy()
        if before >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        var += 1
    return before


count_up_to_op = OpDef("CountUpTo", shape=lambda ref, *, limit: ref,
                       dtype=lambda ref, *, limit: ref.base_dtype, kernel=_count_up_to_kernel,
                       attrs={"limit": 0}, stateful=True, grad=NO_GRADIENT,
                       input_names=(ref("ref"),))


def count_up_to(ref, limit, name=None):
    """Increments the int variable ``ref`` until it reaches ``limit`` (then
    ``OutOfRangeError``); returns its value before the increment."""
    ref = getattr(ref, "_variable", ref)
    return count_up_to_op.bind(ref, limit=int(limit), name=name or "CountUpTo")


# ── The Python classes ───────────────────────────────────────────────────────────────
def _as_type_list(dtypes):
    if isinstance(dtypes, (list, tuple)):
        return [_dtypes.as_dtype(d) for d in dtypes]
    return [_dtypes.as_dtype(dtypes)]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False):
    """TF's ``data_flow_ops._as_shape_list``: one shape or a list of them."""
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes or any(
            s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.ndims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


class QueueBase:
    """The methods every TF1 queue shares (TF's ``data_flow_ops.QueueBase``)."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [as_shape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes,"
                                 f"received len(names)={len(names)},len {len(dtypes)}")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    queue_ref = read_only("_queue_ref")
    name = read_only("_queue_ref.op.name")
    dtypes = read_only("_dtypes")
    shapes = read_only("_shapes")
    names = read_only("_names")

    # -- enqueue -----------------------------------------------------------------------
    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue. "
                                 f"Dictionary: {sorted(vals.keys())}, Queue: "
                                 f"{sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        tensors = []
        for i, (val, dtype) in enumerate(zip(vals, self._dtypes)):
            tensors.append(convert_to_tensor(val, dtype=dtype, name=f"component_{i}"))
        return tensors

    def enqueue(self, vals, name=None):
        """An op that adds one element (a tuple of tensors, or a dict with ``names``)."""
        with name_scope(name, f"{self._name}_enqueue") as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                if not val.shape.is_compatible_with(shape):
                    raise ValueError(f"Shapes {val.shape} and {shape} are incompatible")
            return queue_enqueue_op.create(
                [self._queue_ref, *vals],
                {"Tcomponents": [v.dtype.base_dtype for v in vals]}, scope)

    def enqueue_many(self, vals, name=None):
        """An op that adds the slices of ``vals`` along their first dimension."""
        with name_scope(name, f"{self._name}_EnqueueMany") as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch = TensorShape([None])
            for val, shape in zip(vals, self._shapes):
                if val.shape.ndims == 0:
                    raise ValueError(f"Shape must be at least rank 1 but is rank 0 for "
                                     f"'{scope.rstrip('/')}'")
                if val.shape.ndims is not None:
                    batch = batch.merge_with(TensorShape(val.shape.as_list()[:1]))
                    rest = TensorShape(val.shape.as_list()[1:])
                    if not rest.is_compatible_with(shape):
                        raise ValueError(f"Shapes {rest} and {shape} are incompatible")
            return queue_enqueue_many_op.create(
                [self._queue_ref, *vals],
                {"Tcomponents": [v.dtype.base_dtype for v in vals]}, scope)

    # -- dequeue -----------------------------------------------------------------------
    def _dequeue_return_value(self, tensors):
        if self._names:
            return dict(zip(self._names, tensors))
        if len(tensors) == 1:
            return tensors[0]
        return list(tensors)

    def _outputs(self, op):
        return list(op.outputs)

    def dequeue(self, name=None):
        """Removes one element; blocks until there is one (or the queue is closed)."""
        if name is None:
            name = f"{self._name}_Dequeue"
        op = queue_dequeue_op.create([self._queue_ref], {"component_types": self._dtypes},
                                     name)
        outs = self._outputs(op)
        for t, shape in zip(outs, self._shapes):
            t.set_shape(shape)
        return self._dequeue_return_value(outs)

    def dequeue_many(self, n, name=None):
        """Removes ``n`` elements, concatenated along a new first dimension."""
        if name is None:
            name = f"{self._name}_DequeueMany"
        return self._dequeue_batch(queue_dequeue_many_op, n, name, static_n=True)

    def dequeue_up_to(self, n, name=None):
        """As ``dequeue_many``, but once the queue is closed returns what is left (> 0)."""
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        return self._dequeue_batch(queue_dequeue_up_to_op, n, name, static_n=False)

    def _dequeue_batch(self, op_def, n, name, static_n):
        graph = self._queue_ref.graph
        with graph.as_default(), graph.name_scope(name) as scope:
            n_t = n if isinstance(n, Tensor) else convert_to_tensor(n, dtype=_dtypes.int32,
                                                                     name="n")
            op = op_def.create([self._queue_ref, n_t], {"component_types": self._dtypes},
                               scope)
        from_n = None
        if static_n and not isinstance(n, Tensor):
            from_n = int(n)
        outs = self._outputs(op)
        for t, shape in zip(outs, self._shapes):
            if shape.ndims is not None:
                t.set_shape(TensorShape([from_n]).concatenate(shape))
        return self._dequeue_return_value(outs)

    # -- state -------------------------------------------------------------------------
    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: enqueues fail; dequeues drain it, then raise OutOfRangeError."""
        if name is None:
            name = f"{self._name}_Close"
        return queue_close_op.create([self._queue_ref],
                                     {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                                     name)

    def is_closed(self, name=None):
        if name is None:
            name = f"{self._name}_Is_Closed"
        return queue_is_closed_op.create([self._queue_ref], {}, name).outputs[0]

    def size(self, name=None):
        """The number of elements in the queue (an int32 scalar)."""
        if name is None:
            name = f"{self._name}_Size"
        return queue_size_op.create([self._queue_ref], {}, name).outputs[0]


def _make_queue(op_def, attrs, name, default_name):
    return op_def.create([], attrs, name or default_name, graph=get_default_graph()).outputs[0]


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in the order they were enqueued (``tf.FIFOQueue``)."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = _make_queue(fifo_queue_op, {
            "component_types": dtypes, "shapes": shapes or [], "capacity": int(capacity),
            "shared_name": shared_name or ""}, name, "fifo_queue")
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads each component to the batch's largest
    shape (``shapes`` may have ``None`` dims)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received "
                             f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = _make_queue(padding_fifo_queue_op, {
            "component_types": dtypes, "shapes": shapes, "capacity": int(capacity),
            "shared_name": shared_name or ""}, name, "padding_fifo_queue")
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order, keeping at least
    ``min_after_dequeue`` elements until it is closed."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # TF's: queues sharing a name get one seed2 in every process
            digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        ref = _make_queue(random_shuffle_queue_op, {
            "component_types": dtypes, "shapes": shapes or [], "capacity": int(capacity),
            "min_after_dequeue": int(min_after_dequeue), "seed": int(seed1 or 0),
            "seed2": int(seed2 or 0), "shared_name": shared_name or ""},
            name, "random_shuffle_queue")
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues its elements smallest priority first (``tf.PriorityQueue``).

    Each element starts with its priority, an int64 scalar (a vector in ``enqueue_many``);
    ``dequeue`` returns it first too. Elements of equal priority leave in TF's heap order.

    >>> q = PriorityQueue(10, [tf.string], shapes=[[]])
    >>> sess = tf.Session()
    >>> sess.run(q.enqueue_many(([3, 1, 2], ["c", "a", "b"])))
    >>> [v.decode() for v in sess.run(q.dequeue_many(3))[1].tolist()]
    ['a', 'b', 'c']
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        if shapes is None:  # TF's op requires the list (its message)
            raise TypeError("Expected list for 'shapes' argument to 'priority_queue_v2' Op, "
                            "not None.")
        ref = _make_queue(priority_queue_op, {
            "component_types": types, "shapes": shapes, "capacity": int(capacity),
            "shared_name": shared_name or ""}, name, "priority_queue")
        super().__init__([_dtypes.int64] + types,
                         [TensorShape([])] + shapes if shapes else None, names, ref)


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)
