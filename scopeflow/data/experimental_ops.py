"""The transformations and helpers of ``tf.data.experimental`` that ``Dataset`` has no method
for in TF1: ``take_while``, ``scan``, ``unique``, ``enumerate_dataset``, ``ignore_errors``,
``choose_from_datasets``, ``Counter``, ``get_single_element``, ``cardinality``.

Each transformation is one block, its ``Dataset`` (graph side) and its run-time iterator, as
in ``transformations.py``; the public factories return ``lambda dataset: ...`` for
``Dataset.apply``, as TF's do.
"""

from __future__ import annotations

import numpy as np

from scopeflow.data import buffers, grouping, sources, transformations
from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset, _Unary, _unique, builds
from scopeflow.data.functions import TracedFunction
from scopeflow.data.iterator_ops import _captured_env
from scopeflow.data.pipeline import End, OneInput, PyIterator
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "take_while", "scan", "unique",
           "enumerate_dataset", "ignore_errors", "choose_from_datasets", "Counter",
           "get_single_element", "cardinality", "get_structure", "copy_to_device",
           "prefetch_to_device", "enable_debug_mode", "from_list", "assert_cardinality",
           "map_and_batch_with_legacy_function"]

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
_INT64_MAX = np.iinfo(np.int64).max


# ── take_while ───────────────────────────────────────────────────────────────────────
class _TakeWhile(transformations._Traced):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = TracedFunction(predicate, input_dataset._structure, "TakeWhileDataset")
        spec = self._fn.output_structure
        if not isinstance(spec, st.Spec) or spec.dtype != dtypes.bool or \
                spec.shape.ndims not in (None, 0):
            raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                             f"tensor but its return type is{spec}.")

    def _iterator(self, state, env):
        return _TakeWhileIterator(self._input._make_iterator(state, env),
                                  self._fn.caller(state, env))


class _TakeWhileIterator(OneInput):
    def __init__(self, inner, call):
        super().__init__(inner)
        self.call, self.done = call, False

    def next(self):
        if self.done:
            raise End
        element = self.inner.next()
        (keep,) = self.call(element)
        if not keep:
            self.done = True  # the first false ends the dataset for good
            raise End
        return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "done": self.done}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.done = bool(state["done"])


@builds("take_while")
def take_while(predicate):
    """The elements up to (not including) the first for which ``predicate`` is false.

    >>> ds = tf.data.Dataset.range(10).apply(tf.data.experimental.take_while(lambda x: x < 3))
    """
    return lambda dataset: _TakeWhile(dataset, predicate)


# ── scan ─────────────────────────────────────────────────────────────────────────────
class _Scan(transformations._Traced):
    """``scan_func(state, element) -> (new_state, output)`` over the elements, the state
    starting at ``initial_state``. As TF, a state whose shape changes in the first trace is
    traced again with the shapes both fit."""

    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        with name_scope("initial_state"):
            self._init = st.map_structure(convert_to_tensor, initial_state)
        self._init_flat = st.flatten(self._init)
        state_structure = st.map_structure(st.spec_of, self._init)
        for _ in range(2):
            fn = TracedFunction(scan_func, (state_structure, input_dataset._structure),
                                "ScanDataset")
            out = fn.output_structure
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(f"The scan function must return a pair comprising the new "
                                f"state and the output value. Got {fn.output}.")
            new_state, output = out
            old_flat, new_flat = st.flatten(state_structure), st.flatten(new_state)
            if len(old_flat) != len(new_flat):
                raise TypeError("The element structure for the new state must match the "
                                f"initial state. Expected {state_structure}; got {new_state}.")
            for a, b in zip(old_flat, new_flat):
                if a.dtype != b.dtype:
                    raise TypeError("The element types for the new state must match the "
                                    f"initial state. Expected {a.dtype}; got {b.dtype}.")
            relaxed = [st.Spec(a.dtype, st.unify_shapes(a.shape, b.shape))
                       for a, b in zip(old_flat, new_flat)]
            if all(r.shape.as_tuple() == a.shape.as_tuple()
                   for r, a in zip(relaxed, old_flat)):
                break
            state_structure = st.pack(state_structure, relaxed)
        self._fn = fn
        self._n_state = len(old_flat)
        self._structure = output

    def _captures(self):
        return _unique(self._init_flat + super()._captures())

    def _iterator(self, state, env):
        init = [env[t] for t in self._init_flat]
        return _ScanIterator(self._input._make_iterator(state, env),
                             self._fn.caller(state, env), init, self._n_state)


class _ScanIterator(OneInput):
    def __init__(self, inner, call, init, n_state):
        super().__init__(inner)
        self.call, self.state, self.n_state = call, list(init), n_state

    def next(self):
        out = list(self.call(self.state + self.inner.next()))
        self.state = out[:self.n_state]
        return out[self.n_state:]

    def get_state(self):
        return {"inner": self.inner.get_state(), "state": [np.asarray(v) for v in self.state]}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.state = list(state["state"])


@builds("scan")
def scan(initial_state, scan_func):
    """A running ``scan_func(state, element) -> (new_state, output)`` over a dataset."""
    return lambda dataset: _Scan(dataset, initial_state, scan_func)


# ── unique ───────────────────────────────────────────────────────────────────────────
_UNIQUE_TYPES = (dtypes.int32, dtypes.int64, dtypes.string)


class _Unique(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        for spec in st.specs(input_dataset._structure):
            if spec.dtype not in _UNIQUE_TYPES:
                raise TypeError(f"`tf.data.Dataset.unique` does not support type {spec.dtype} "
                                "-- only `tf.int32`, `tf.int64`, and `tf.string` are "
                                "supported.")

    def _iterator(self, state, env):
        if len(st.specs(self._structure)) != 1:  # TF checks this when the iterator starts
            raise errors.InvalidArgumentError(
                None, None, "UniqueDataset only supports inputs with a single component.")
        return _UniqueIterator(self._input._make_iterator(state, env))


def _key(value):
    arr = np.asarray(value)
    return (arr.shape, tuple(arr.reshape(-1).tolist()))


class _UniqueIterator(OneInput):
    def __init__(self, inner):
        super().__init__(inner)
        self.seen: list = []
        self._keys: set = set()

    def next(self):
        while True:
            element = self.inner.next()
            key = _key(element[0])
            if key not in self._keys:
                self._keys.add(key)
                self.seen.append(np.asarray(element[0]))
                return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "seen": list(self.seen)}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.seen = [np.asarray(v) for v in state["seen"]]
        self._keys = {_key(v) for v in self.seen}


@builds("unique")
def unique():
    """Each distinct element once, in the order first seen (int32, int64 or string
    elements)."""
    return lambda dataset: _Unique(dataset)


# ── enumerate_dataset ────────────────────────────────────────────────────────────────
@builds("enumerate")
def enumerate_dataset(start=0):
    """``(index, element)`` pairs, counting from ``start`` (TF's zip with a range)."""
    def apply(dataset):
        return Dataset.zip((Dataset.range(start, _INT64_MAX), dataset))
    return apply


# ── ignore_errors ────────────────────────────────────────────────────────────────────
class _IgnoreErrors(_Unary):
    def __init__(self, input_dataset, log_warning):
        super().__init__(input_dataset)
        self._log_warning = log_warning

    def _iterator(self, state, env):
        return _IgnoreErrorsIterator(self._input._make_iterator(state, env))


class _IgnoreErrorsIterator(OneInput):
    def next(self):
        while True:
            try:
                return self.inner.next()
            except errors.OpError:
                continue  # TF drops an element whose computation failed


@builds("ignore_errors")
def ignore_errors(log_warning=False):
    """The elements whose computation does not fail (the failing ones dropped)."""
    return lambda dataset: _IgnoreErrors(dataset, log_warning)


# ── choose_from_datasets ─────────────────────────────────────────────────────────────
class _Choose(Dataset):
    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a "
                            f"`tf.data.Dataset` but is {type(choice_dataset)}.")
        spec = choice_dataset._structure
        if not isinstance(spec, st.Spec) or spec.dtype != dtypes.int64 or \
                spec.shape.ndims not in (None, 0):
            raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            f"scalar `tf.int64` tensors but are {spec}.")
        first = datasets[0]._structure
        flat = [st.flatten(d._structure) for d in datasets]
        for d in datasets[1:]:
            if st.output_types(d._structure) != st.output_types(first):
                raise TypeError("Invalid `datasets`. `datasets` must have compatible element "
                                f"specs.\n Dataset 0 element_spec={first}.\nDataset element "
                                f"spec={d._structure}")
        shapes = [s.shape for s in flat[0]]
        for f in flat[1:]:
            shapes = [st.unify_shapes(a, b.shape) for a, b in zip(shapes, f)]
        self._datasets, self._choice = datasets, choice_dataset
        self._stop = bool(stop_on_empty_dataset)
        self._structure = st.pack(first, [st.Spec(s.dtype, sh)
                                          for s, sh in zip(flat[0], shapes)])

    def _captures(self):
        return _unique([t for d in [self._choice, *self._datasets] for t in d._captures()])

    def _iterator(self, state, env):
        return _ChooseIterator(self._choice._make_iterator(state, env),
                               [d._make_iterator(state, env) for d in self._datasets],
                               self._stop)


class _ChooseIterator(PyIterator):
    def __init__(self, choice, inners, stop):
        self.choice, self.inners, self.stop = choice, inners, stop
        self.empty = [False] * len(inners)

    def next(self):
        while True:
            (i,) = self.choice.next()
            i = int(i)
            if not 0 <= i < len(self.inners):
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {i} >= {len(self.inners)}")
            if self.empty[i]:
                continue
            try:
                return self.inners[i].next()
            except End:
                self.empty[i] = True
                if self.stop or all(self.empty):
                    raise

    def get_state(self):
        return {"choice": self.choice.get_state(), "empty": list(self.empty),
                "inners": [None if e else it.get_state()
                           for e, it in zip(self.empty, self.inners)]}

    def set_state(self, state):
        self.choice.set_state(state["choice"])
        self.empty = [bool(e) for e in state["empty"]]
        for it, s in zip(self.inners, state["inners"]):
            if s is not None:
                it.set_state(s)


@builds("choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """Elements of ``datasets[i]`` for each ``i`` of ``choice_dataset`` in turn."""
    return _Choose(datasets, choice_dataset, stop_on_empty_dataset)


# ── Counter ──────────────────────────────────────────────────────────────────────────
@builds("counter")
def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 (TF's name)
    """``start, start + step, ...`` forever, of ``dtype`` (TF's scan over a repeated
    zero)."""
    with name_scope(None, "counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        return Dataset.from_tensors(0).repeat(None).apply(
            scan(start, lambda state, _: (state + step, state)))


# ── get_single_element ───────────────────────────────────────────────────────────────
class _Single(_Unary):
    def _iterator(self, state, env):
        return _SingleIterator(self._input._make_iterator(state, env))


class _SingleIterator(OneInput):
    def next(self):
        try:
            element = self.inner.next()
        except End:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.") from None
        try:
            self.inner.next()
        except End:
            return element
        raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")


@builds("get_single_element")
def get_single_element(dataset):
    """The one element of ``dataset``, as tensors (``InvalidArgumentError`` at run time when
    it has none or more than one)."""
    if not isinstance(dataset, Dataset):
        raise TypeError("Invalid `dataset`. Expected a `tf.data.Dataset` object but got "
                        f"{type(dataset)}.")
    return _Single(dataset).make_one_shot_iterator().get_next()


# ── small helpers ────────────────────────────────────────────────────────────────────
def get_structure(dataset_or_iterator):
    """The element structure (``element_spec``) of a dataset or iterator."""
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError("Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        "`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.") from None


def copy_to_device(target_device, source_device="/cpu:0"):
    """The dataset unchanged: scopeflow runs on the CPU, where TF's copy is a no-op too."""
    return lambda dataset: dataset


def prefetch_to_device(device, buffer_size=None):
    """``dataset.prefetch(buffer_size)``: on a CPU-only runtime, TF's prefetch to a device is
    a prefetch."""
    return lambda dataset: dataset.prefetch(1 if buffer_size is None else buffer_size)


def enable_debug_mode():
    """TF's debug mode runs tf.data functions eagerly; graph mode has none."""
    raise ValueError("`enable_debug_mode() is only supported in eager mode.")


# ── from_list ────────────────────────────────────────────────────────────────────────
class _List(Dataset):
    """TF's ``ListDataset``: the given elements in order; its element spec is the most
    specific one all of them fit."""

    def __init__(self, elements):
        if not isinstance(elements, list):
            raise ValueError(f"Invalid `elements`. `elements` should be of type list, but got "
                             f"{type(elements)}.")
        if not elements:
            raise ValueError("Invalid `elements`. `elements` should not be empty. If you want "
                             "an empty dataset, use `tf.data.Dataset.range(0)`.")
        made = [sources._as_tensors(e, "from_list") for e in elements]
        self._rows = [flat for _, flat in made]
        first = [st.spec_of(t) for t in self._rows[0]]
        for packed, flat in made[1:]:
            if len(flat) != len(first) or any(
                    t.dtype.base_dtype != s.dtype for t, s in zip(flat, first)):
                raise ValueError("Invalid `elements`. All elements should have the same "
                                 f"structure and types; {elements[0]} and {packed} differ.")
            first = [st.Spec(s.dtype, st.unify_shapes(s.shape, t.shape))
                     for s, t in zip(first, flat)]
        self._structure = st.pack(made[0][0], first) if st.is_sequence(made[0][0]) \
            else first[0]

    def _captures(self):
        return _unique([t for row in self._rows for t in row])

    def _iterator(self, state, env):
        return _RowsIterator([[env[t] for t in row] for row in self._rows])


class _RowsIterator(PyIterator):
    def __init__(self, rows):
        self.rows, self.i = rows, 0

    def next(self):
        if self.i >= len(self.rows):
            raise End
        self.i += 1
        return list(self.rows[self.i - 1])

    def get_state(self):
        return {"i": self.i}

    def set_state(self, state):
        self.i = int(state["i"])


def from_list(elements, name=None):
    """A dataset of the elements of the list ``elements`` (each a nested structure of
    tensors; unlike ``from_tensor_slices`` they need not have the same shapes)."""
    return _List(elements)


# ── assert_cardinality ───────────────────────────────────────────────────────────────
class _AssertCardinality(_Unary):
    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._expected = transformations._Counted(input_dataset, expected)

    def _captures(self):
        extra = [self._expected._count_tensor] if self._expected._count_tensor is not None \
            else []
        return _unique(self._input._captures() + extra)

    def _iterator(self, state, env):
        return _AssertCardinalityIterator(self._input._make_iterator(state, env),
                                          self._expected._count_in(env))


def _elements(n):
    return "element" if n == 1 else "elements"


class _AssertCardinalityIterator(OneInput):
    def __init__(self, inner, expected):
        super().__init__(inner)
        self.expected, self.n = expected, 0

    def next(self):
        try:
            element = self.inner.next()
        except End:
            if self.expected != INFINITE_CARDINALITY and self.n != self.expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {self.expected} "
                    f"{_elements(self.expected)} but contained only {self.n} "
                    f"{_elements(self.n)}.") from None
            raise
        self.n += 1
        if self.expected != INFINITE_CARDINALITY and self.n > self.expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {self.expected} "
                f"{_elements(self.expected)} but contained at least {self.n} "
                f"{_elements(self.n)}.")
        return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "n": self.n}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.n = int(state["n"])


def assert_cardinality(expected_cardinality):
    """The dataset, checked at run time to have ``expected_cardinality`` elements; its
    ``cardinality`` is that number."""
    return lambda dataset: _AssertCardinality(dataset, expected_cardinality)


def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None,
                                       drop_remainder=False, num_parallel_calls=None):
    """``map_and_batch``: scopeflow traces every function the same way, so TF's legacy
    function tracing is the ordinary one."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


# ── cardinality ──────────────────────────────────────────────────────────────────────
def _count(d, env):
    """A take/skip/repeat count: static, or its tensor's value at run time."""
    return d._count_in(env)


def _range_cardinality(d, env):
    start, stop, step = (int(env[t]) for t in d._args)
    return max(0, -(-(stop - start) // step)) if step > 0 else \
        max(0, -(-(start - stop) // -step))


def _zip_cardinality(d, env):
    cards = [_cardinality(x, env) for x in st.flatten(d._datasets)]
    finite = [c for c in cards if c >= 0]
    if finite:
        return min(finite)
    return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else INFINITE_CARDINALITY


def _repeat_cardinality(d, env):
    n, c = _count(d, env), _cardinality(d._input, env)
    if n == 0 or c == 0:
        return 0
    if n < 0 or c == INFINITE_CARDINALITY:
        return INFINITE_CARDINALITY
    return UNKNOWN_CARDINALITY if c == UNKNOWN_CARDINALITY else c * n


def _take_cardinality(d, env):
    n, c = _count(d, env), _cardinality(d._input, env)
    if n < 0:
        return c
    if c == INFINITE_CARDINALITY:
        return n
    return UNKNOWN_CARDINALITY if c == UNKNOWN_CARDINALITY else min(n, c)


def _skip_cardinality(d, env):
    n, c = _count(d, env), _cardinality(d._input, env)
    if c < 0:
        return c
    return 0 if n < 0 else max(0, c - n)


def _batch_cardinality(d, env):
    c = _cardinality(d._input, env)
    if c < 0:
        return c
    return c // d._size if d._drop else -(-c // d._size)


def _shard_cardinality(d, env):
    c = _cardinality(d._input, env)
    if c < 0:
        return c
    n, i = (a._count_in(env) for a in d._args)
    return c // n + (1 if i < c % n else 0)


def _concatenate_cardinality(d, env):
    a, b = _cardinality(d._input, env), _cardinality(d._other, env)
    if INFINITE_CARDINALITY in (a, b):
        return INFINITE_CARDINALITY
    return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in (a, b) else a + b


# Each dataset kind's cardinality rule, tried in order (``isinstance``); a kind not listed
# (``map``, ``filter`` and the like) has an unknown cardinality.
_CARDINALITY_RULES = (
    (sources._Tensors, lambda d, env: 1),
    (sources._TensorSlices, lambda d, env: len(np.asarray(env[d._flat[0]]))),
    (sources._Range, _range_cardinality),
    (sources._Zip, _zip_cardinality),
    (transformations._Repeat, _repeat_cardinality),
    (transformations._Take, _take_cardinality),
    (transformations._Skip, _skip_cardinality),
    (transformations._Batch, _batch_cardinality),
    (transformations._Shard, _shard_cardinality),
    (transformations._Concatenate, _concatenate_cardinality),
    (_AssertCardinality, lambda d, env: d._expected._count_in(env)),
    (_List, lambda d, env: len(d._rows)),
    ((buffers._Shuffle, buffers._Cache, buffers._Prefetch, _Scan),
     lambda d, env: _cardinality(d._input, env)),
    # TF's GroupByWindowDataset: endless if its input is, unknown otherwise
    (grouping._GroupByWindow, lambda d, env: INFINITE_CARDINALITY if _cardinality(
        d._input, env) == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY),
)


def _cardinality(d, env) -> int:
    """TF1's cardinality of dataset ``d`` (``-1`` infinite, ``-2`` unknown). TF1's ``map``
    does not keep its input's cardinality (its datasets map with ``preserve_cardinality``
    off), and ``filter``-like transformations cannot know theirs."""
    for kinds, rule in _CARDINALITY_RULES:
        if isinstance(d, kinds):
            return rule(d, env)
    return UNKNOWN_CARDINALITY


def _cardinality_shape(*args, **attrs):
    return TensorShape([])


def _cardinality_dtype(*args, **attrs):
    return dtypes.int64


def _cardinality_kernel(*captured, dataset):
    return np.int64(_cardinality(dataset, _captured_env(dataset, captured)))


cardinality_op = OpDef("DatasetCardinality", shape=_cardinality_shape, dtype=_cardinality_dtype,
                       kernel=_cardinality_kernel, grad=NO_GRADIENT, attrs={"dataset": None})


@builds("cardinality")
def cardinality(dataset):
    """The number of elements of ``dataset`` as an int64 scalar tensor:
    ``INFINITE_CARDINALITY`` (-1) when it repeats forever, ``UNKNOWN_CARDINALITY`` (-2) when
    it cannot be known without reading it (after ``filter``, or TF1's ``map``)."""
    return cardinality_op.create(dataset._captures(), {"dataset": dataset},
                                 name="DatasetCardinality").outputs[0]
