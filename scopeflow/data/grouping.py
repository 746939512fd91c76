"""``tf.data.experimental``'s grouping transformations: ``group_by_window`` (windows of
elements by key, each reduced to a dataset), ``group_by_reducer`` (a running reduction per
key, with its ``Reducer``) and ``bucket_by_sequence_length`` (group_by_window with padded
batches per length bucket).

A window is passed to ``reduce_func`` as a dataset: a ``_Window`` source traced once with the
function, whose run-time iterator reads the window's elements from the environment of the
call (``Env.for_element``), as a ``flat_map`` function's dataset reads its values.
"""

from __future__ import annotations

import bisect

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset, _flatten_up_to, _Unary, _unique, builds
from scopeflow.data.functions import TracedFunction
from scopeflow.data.pipeline import End, PyIterator
from scopeflow.data.transformations import _pad_stack, _stack, _static_value
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape

__all__ = ["group_by_window", "group_by_reducer", "Reducer", "bucket_by_sequence_length"]


def _check_key(fn, what):
    spec = fn.output_structure
    if not isinstance(spec, st.Spec) or spec.dtype != dtypes.int64 or \
            spec.shape.ndims not in (None, 0):
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar "
                         f"tensor but its return type is {spec}.")


def _int64_result(fn):
    """``fn`` with its result converted to int64, as TF converts a key (so an int32 tensor
    is a ``ValueError`` at the conversion, with TF's words)."""
    def converted(*args):
        return convert_to_tensor(fn(*args), dtype=dtypes.int64)
    return converted


class _Window(Dataset):
    """The window a ``group_by_window`` reduce function gets: its elements are those the
    call's environment holds under this dataset."""

    def __init__(self, structure):
        self._structure = structure

    def _iterator(self, state, env):
        return _ListIterator(env[self])


class _ListIterator(PyIterator):
    def __init__(self, elements):
        self.elements, self.i = elements, 0

    def next(self):
        if self.i >= len(self.elements):
            raise End
        self.i += 1
        return self.elements[self.i - 1]

    def get_state(self):  # the elements are the window's, which the caller saves
        return {"i": self.i}

    def set_state(self, state):
        self.i = int(state["i"])


# ── group_by_window ──────────────────────────────────────────────────────────────────
class _GroupByWindow(_Unary):
    def __init__(self, input_dataset, key_func, reduce_func, window_size_func):
        super().__init__(input_dataset)
        self._key = TracedFunction(_int64_result(key_func), input_dataset._structure,
                                   "GroupByWindowDataset")
        _check_key(self._key, "key_func")
        self._size = TracedFunction(window_size_func, st.Spec(dtypes.int64, []),
                                    "GroupByWindowDataset")
        _check_key(self._size, "window_size_func")
        self._window = _Window(input_dataset._structure)
        self._reduce = TracedFunction(lambda key: reduce_func(key, self._window),
                                      st.Spec(dtypes.int64, []), "GroupByWindowDataset",
                                      allow_dataset=True)
        if not isinstance(self._reduce.output, Dataset):
            raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single "
                            f"`tf.data.Dataset` object but its return type is "
                            f"{type(self._reduce.output).__name__}.")
        self._structure = self._reduce.output._structure

    def _captures(self):
        nested = [t for t in self._reduce.output._captures()
                  if t._op._cf_context is not self._reduce.context]
        return _unique(self._input._captures() + self._key.captures + self._size.captures +
                       self._reduce.captures + nested)

    def _iterator(self, state, env):
        reduce = self._reduce

        def reduce_window(key, elements):
            return reduce.dataset_caller(state, env.for_element({self._window: elements}))(
                [np.int64(key)])

        return _GroupByWindowIterator(self._input._make_iterator(state, env),
                                      self._key.caller(state, env),
                                      self._size.caller(state, env), reduce_window)


class _GroupByWindowIterator(PyIterator):
    """TF's ``GroupByWindowDatasetOp``: elements gather by key; a window that reaches its
    size is reduced at once; when the input ends, the partial windows are reduced in
    ascending key order."""

    def __init__(self, inner, key, size, reduce):
        self.inner, self.key, self.size, self.reduce = inner, key, size, reduce
        self.groups: dict = {}
        self.sizes: dict = {}
        self.current = None
        self.window = None  # (key, elements) of the window ``current`` reads
        self.ended = False

    def _reduce(self, k, elements):
        self.window = (k, elements)
        self.current = self.reduce(k, elements)

    def get_state(self):
        current = None if self.current is None else \
            [self.window[0], self.window[1], self.current.get_state()]
        return {"inner": self.inner.get_state(), "ended": self.ended,
                "groups": [[k, g] for k, g in self.groups.items()],
                "sizes": [[k, n] for k, n in self.sizes.items()], "current": current}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.ended = bool(state["ended"])
        self.groups = {int(k): [list(e) for e in g] for k, g in state["groups"]}
        self.sizes = {int(k): int(n) for k, n in state["sizes"]}
        self.current = self.window = None
        if state["current"] is not None:
            k, elements, inner = state["current"]
            self._reduce(int(k), [list(e) for e in elements])
            self.current.set_state(inner)

    def next(self):
        while True:
            if self.current is not None:
                try:
                    return self.current.next()
                except End:
                    self.current = None
            if self.ended:
                if not self.groups:
                    raise End
                k = min(self.groups)
                self._reduce(k, self.groups.pop(k))
                continue
            try:
                element = self.inner.next()
            except End:
                self.ended = True
                continue
            (k,) = self.key(element)
            k = int(k)
            if k not in self.sizes:
                (n,) = self.size([np.int64(k)])
                if int(n) <= 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Window size must be greater than zero, but got {int(n)}.")
                self.sizes[k] = int(n)
            group = self.groups.setdefault(k, [])
            group.append(element)
            if len(group) == self.sizes[k]:
                self._reduce(k, self.groups.pop(k))


@builds("group_by_window")
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """Groups elements by ``key_func(element)`` (an int64 scalar) into windows of
    ``window_size`` (or ``window_size_func(key)``) elements, each turned into a dataset by
    ``reduce_func(key, window_dataset)``; the results' elements follow one another."""
    def apply(dataset):
        size_func = window_size_func
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            def size_func(key):  # TF's constant window function
                return convert_to_tensor(window_size, dtype=dtypes.int64)
        return _GroupByWindow(dataset, key_func, reduce_func, size_func)
    return apply


# ── group_by_reducer ─────────────────────────────────────────────────────────────────
class Reducer:
    """What ``group_by_reducer`` does per key: ``init_func(key)`` makes the state,
    ``reduce_func(state, element)`` updates it, ``finalize_func(state)`` gives the output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


class _GroupByReducer(_Unary):
    def __init__(self, input_dataset, key_func, reducer):
        super().__init__(input_dataset)
        name = "GroupByReducerDataset"
        self._key = TracedFunction(_int64_result(key_func), input_dataset._structure, name)
        _check_key(self._key, "key_func")
        self._init = TracedFunction(reducer.init_func, st.Spec(dtypes.int64, []), name)
        state = self._init.output_structure
        for _ in range(2):
            fn = TracedFunction(reducer.reduce_func, (state, input_dataset._structure), name)
            new = fn.output_structure
            old_flat, new_flat = st.flatten(state), st.flatten(new)
            if len(old_flat) != len(new_flat) or any(
                    a.dtype != b.dtype for a, b in zip(old_flat, new_flat)):
                raise TypeError("The element types for the new state must match the initial "
                                f"state. Expected {st.output_types(state)}; got "
                                f"{st.output_types(new)}.")
            relaxed = [st.Spec(a.dtype, st.unify_shapes(a.shape, b.shape))
                       for a, b in zip(old_flat, new_flat)]
            if all(r.shape.as_tuple() == a.shape.as_tuple()
                   for r, a in zip(relaxed, old_flat)):
                break
            state = st.pack(state, relaxed)
        self._reduce = fn
        self._finalize = TracedFunction(reducer.finalize_func, state, name)
        self._structure = self._finalize.output_structure

    def _captures(self):
        return _unique(self._input._captures() + self._key.captures + self._init.captures +
                       self._reduce.captures + self._finalize.captures)

    def _iterator(self, state, env):
        return _GroupByReducerIterator(
            self._input._make_iterator(state, env),
            *(f.caller(state, env) for f in (self._key, self._init, self._reduce,
                                              self._finalize)))


class _GroupByReducerIterator(PyIterator):
    """Reads the whole input, keeping one state per key; then gives each key's finalized
    state, in ascending key order (TF's ``GroupByReducerDatasetOp`` keeps them in an ordered
    map)."""

    def __init__(self, inner, key, init, reduce, finalize):
        self.inner, self.key, self.init = inner, key, init
        self.reduce, self.finalize = reduce, finalize
        self.keys = None
        self.states: dict = {}

    def next(self):
        if self.keys is None:
            order = []
            while True:
                try:
                    element = self.inner.next()
                except End:
                    break
                (k,) = self.key(element)
                k = int(k)
                if k not in self.states:
                    order.append(k)
                    self.states[k] = list(self.init([np.int64(k)]))
                self.states[k] = list(self.reduce(self.states[k] + list(element)))
            self.keys = sorted(order)
        if not self.keys:
            raise End
        # TF keeps its groups in a map ordered by key: the outputs come in ascending key
        return list(self.finalize(self.states.pop(self.keys.pop(0))))


def group_by_reducer(key_func, reducer):
    """One output per key: ``reducer``'s finalized state over the elements with that key."""
    return lambda dataset: _GroupByReducer(dataset, key_func, reducer)


# ── bucket_by_sequence_length ────────────────────────────────────────────────────────
class _Bucket(_Unary):
    """TF's ``bucket_by_sequence_length``: ``group_by_window`` keyed by the length bucket,
    each window a (padded) batch of its bucket's size. Done in one iterator: the bucket of
    an element is ``bisect_right(bucket_boundaries, length)``."""

    def __init__(self, input_dataset, element_length_func, boundaries, batch_sizes,
                 padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                 drop_remainder):
        super().__init__(input_dataset)
        self._len = TracedFunction(element_length_func, input_dataset._structure,
                                   "GroupByWindowDataset")
        spec = self._len.output_structure
        if isinstance(spec, st.Spec) and spec.dtype != dtypes.int32:
            # TF compares the length with its int32 lower bounds (``lower <= length``)
            raise TypeError(f"Input 'y' of 'LessEqual' Op has type {spec.dtype.name} that "
                            "does not match type int32 of argument 'x'.")
        self._boundaries = [int(b) for b in boundaries]
        self._sizes = [int(b) for b in batch_sizes]
        self._drop = bool(drop_remainder)
        self._no_padding = bool(no_padding)
        self._to_boundary = bool(pad_to_bucket_boundary)
        specs = st.specs(input_dataset._structure)
        shapes = [s.shape for s in specs] if padded_shapes is None else [
            as_shape(s) for s in _flatten_up_to(input_dataset._structure, padded_shapes)]
        if padding_values is None:
            values = [b"" if s.dtype == dtypes.string else 0 for s in specs]
        else:
            values = [_static_value(v) for v in
                      _flatten_up_to(input_dataset._structure, padding_values)]
        if self._no_padding:
            leaves = [st.Spec(s.dtype, TensorShape([None]).concatenate(s.shape))
                      for s in specs]
        else:
            # unknown dimensions are padded to the batch's longest, or to the bucket's
            # boundary less one (a value computed per bucket, so unknown statically)
            leaves = [st.Spec(s.dtype, TensorShape([None]).concatenate(shape))
                      for s, shape in zip(specs, shapes)]
        self._pad = ([s.as_list() if s.ndims is not None else None for s in shapes], values)
        self._structure = st.pack(input_dataset._structure, leaves) \
            if st.is_sequence(input_dataset._structure) else leaves[0]

    def _captures(self):
        return _unique(self._input._captures() + self._len.captures)

    def _iterator(self, state, env):
        return _BucketIterator(self, self._input._make_iterator(state, env),
                               self._len.caller(state, env))


class _BucketIterator(PyIterator):
    def __init__(self, spec, inner, length):
        self.spec, self.inner, self.length = spec, inner, length
        self.buckets: dict = {}
        self.ended = False

    def _batch(self, b, items):
        spec = self.spec
        columns = list(zip(*items))
        if spec._no_padding:
            return [_stack(c, k) for k, c in enumerate(columns)]
        shapes, values = spec._pad
        if spec._to_boundary:
            if b >= len(spec._boundaries):
                raise errors.InvalidArgumentError(
                    None, None, "When pad_to_bucket_boundary=True, elements must have length "
                    "< max(bucket_boundaries).")
            fill = spec._boundaries[b] - 1
            shapes = [None if s is None else [fill if d is None else d for d in s]
                      for s in shapes]
        return [_pad_stack(c, shapes[k], values[k]) for k, c in enumerate(columns)]

    def next(self):
        spec = self.spec
        while not self.ended:
            try:
                element = self.inner.next()
            except End:
                self.ended = True
                break
            (n,) = self.length(element)
            b = bisect.bisect_right(spec._boundaries, int(n))
            group = self.buckets.setdefault(b, [])
            group.append(element)
            if len(group) == spec._sizes[b]:
                return self._batch(b, self.buckets.pop(b))
        while self.buckets:
            b = min(self.buckets)
            items = self.buckets.pop(b)
            if not spec._drop:
                return self._batch(b, items)
        raise End


@builds("bucket_by_sequence_length")
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches of elements of similar length: an element of length ``n`` goes to bucket
    ``i`` with ``bucket_boundaries[i-1] <= n < bucket_boundaries[i]``, batched by
    ``bucket_batch_sizes[i]`` and padded (to the batch's longest, or with
    ``pad_to_bucket_boundary`` to the bucket's boundary less one)."""
    def apply(dataset):
        if len(bucket_batch_sizes) != (len(bucket_boundaries) + 1):
            raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + "
                             f"1` but `len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                             f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
        return _Bucket(dataset, element_length_func, bucket_boundaries, bucket_batch_sizes,
                       padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                       drop_remainder)
    return apply
