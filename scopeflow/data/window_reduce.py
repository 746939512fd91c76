"""``Dataset.window`` (elements that are datasets: windows of the input) and
``Dataset.reduce`` (the input folded into one state, a tensor structure).

A window's components are datasets (``dataset_values.DatasetSpec`` at graph-building time,
``DatasetValue`` at run time), to be read by a ``flat_map``/``interleave``/``map`` function
(``window(2).flat_map(lambda w: w.batch(2))``). ``reduce`` is one op (TF's
``ReduceDataset``) whose kernel runs the dataset's pipeline with the values its inputs
captured, calling the traced ``reduce_func`` per element.
"""

from __future__ import annotations

import numpy as np

from scopeflow.data import composite
from scopeflow.data import pipeline as pl
from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset, _node_id, _scalar_int, _Unary, _unique, builds
from scopeflow.data.dataset_values import DatasetSpec, DatasetValue, ListIterator
from scopeflow.data.functions import TracedFunction
from scopeflow.data.sources import _as_leaf, _data_leaves, _data_pack
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef

__all__: list = []


# ── window ───────────────────────────────────────────────────────────────────────────
@builds("window")
class _Window(_Unary):
    """Windows of ``size`` elements, ``stride`` apart, one starting every ``shift``
    elements; each component of the input becomes a dataset of that component."""

    def __init__(self, input_dataset, size, shift=None, stride=1, drop_remainder=False):
        super().__init__(input_dataset)
        self._size = _scalar_int(size, "size")
        self._shift = self._size if shift is None else _scalar_int(shift, "shift")
        self._stride = _scalar_int(stride, "stride")
        self._drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool,
                                       name="drop_remainder")
        self._structure = st.map_structure(DatasetSpec, input_dataset._structure)

    def _params(self):
        return [self._size, self._shift, self._stride, self._drop]

    def _captures(self):
        return _unique(self._input._captures() + self._params())

    def _iterator(self, state, env):
        size, shift, stride = (int(env[t]) for t in self._params()[:3])
        for name, value in (("Window size", size), ("Window shift", shift),
                            ("Window stride", stride)):
            if value <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"{name} must be greater than zero.")
        return _WindowIterator(self._input._make_iterator(state, env), size, shift, stride,
                               bool(env[self._drop]))


class _WindowIterator(pl.OneInput):
    """TF's ``WindowDatasetOp``: a buffer of the input from the current window's start; a
    window takes every ``stride``-th of its first ``(size - 1) * stride + 1`` elements, then
    the buffer drops ``shift`` elements (reading past the buffer's end when ``shift`` is the
    larger). After the input ends, windows still start in the buffer; partial ones are
    dropped with ``drop_remainder``."""

    def __init__(self, inner, size, shift, stride, drop):
        super().__init__(inner)
        self.size, self.shift, self.stride, self.drop = size, shift, stride, drop
        self.buffer: list = []
        self.skip = 0          # input elements still to pass over before the next window
        self.ended = False

    def _pull(self):
        """The next input element, or the error reading it (kept in the buffer: as TF's,
        an error counts only if its element is in a window, not skipped by ``stride``)."""
        try:
            return self.inner.next()
        except pl.End:
            self.ended = True
            return None
        except errors.OpError as e:
            return e

    def next(self):
        span = (self.size - 1) * self.stride + 1
        while self.skip and not self.ended:
            if self._pull() is not None:
                self.skip -= 1
        while len(self.buffer) < span and not self.ended:
            element = self._pull()
            if element is not None:
                self.buffer.append(element)
        window = self.buffer[:span:self.stride]
        if not window or (self.drop and len(window) < self.size):
            raise pl.End
        self.skip = max(0, self.shift - len(self.buffer))
        self.buffer = self.buffer[self.shift:]
        for e in window:
            if isinstance(e, errors.OpError):
                raise e
        return [DatasetValue.of_elements(e[i] for e in window) for i in range(len(window[0]))]

    def get_state(self):
        return {"inner": self.inner.get_state(), "buffer": self.buffer, "skip": self.skip,
                "ended": self.ended}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.buffer = [list(e) for e in state["buffer"]]
        self.skip, self.ended = int(state["skip"]), bool(state["ended"])


# ── from_tensors of datasets ──────────────────────────────────────────────────────────
@builds("from_tensors_with_datasets")
class _TensorsWithDatasets(Dataset):
    """``Dataset.from_tensors`` of a structure holding datasets: one element whose dataset
    components are those datasets (each read from its start by whoever reads it). As TF's
    tf.data nest, only tuples and dicts nest: a (nested) list of datasets is one component,
    datasets batched (a ``DatasetSpec`` of the list's shape)."""

    def __init__(self, tensors):
        self._id = _node_id()
        leaves = _data_leaves(tensors)
        self._leaves = [x if isinstance(x, Dataset) or _dataset_list(x) else
                        convert_to_tensor(x, name=f"component_{i}")
                        for i, x in enumerate(leaves)]
        self._structure = _data_pack(tensors, iter([_leaf_spec(x) for x in self._leaves]))

    def _datasets(self, x):
        return [x] if isinstance(x, Dataset) else st.flatten(x) if _dataset_list(x) else []

    def _captures(self):
        return _unique([t for x in self._leaves
                        for t in ([x] if isinstance(x, Tensor) else
                                  [c for d in self._datasets(x) for c in d._captures()])])

    def _iterator(self, state, env):
        def value(x):
            if isinstance(x, Dataset):
                return DatasetValue(lambda: x._make_iterator(state, env))
            if isinstance(x, list):
                out = np.empty(len(x), dtype=object)
                for i, item in enumerate(x):
                    out[i] = value(item)
                return out
            return env[x]
        return ListIterator([[value(x) for x in self._leaves]])


def _dataset_list(x) -> bool:
    """Whether ``x`` is a (nested) list of datasets, one component of an element."""
    return isinstance(x, list) and bool(x) and all(
        isinstance(d, Dataset) for d in st.flatten(x))


def _leaf_spec(x):
    if isinstance(x, Dataset):
        return DatasetSpec(x._structure)
    if isinstance(x, list):
        first = st.flatten(x)[0]
        return DatasetSpec(first._structure, np.shape(np.array(x, dtype=object)))
    return st.spec_of(x)


# ── reduce ───────────────────────────────────────────────────────────────────────────
def _reduce_shape(*inputs, fn, dataset, n_state):
    return [s.shape for s in st.component_specs(fn.output_structure)]


def _reduce_dtype(*inputs, fn, dataset, n_state):
    return [s.dtype for s in st.component_specs(fn.output_structure)]


def _reduce_kernel(run, *inputs, fn, dataset, n_state):
    # the state leaves as values (a sparse or ragged one as one value), from their components
    state_specs, out_specs = st.specs(fn.input_structure[0]), st.specs(fn.output_structure)
    state = st.from_components(state_specs, list(inputs[:n_state]))
    captured = inputs[n_state:]
    captures = _unique(dataset._captures() + fn.captures)
    env = pl.Env(dict(zip(captures, captured)))
    try:
        iterator = dataset._make_iterator(run.state, env)
        call = fn.caller(run.state, env)
        while True:
            try:
                element = iterator.next()
            except pl.End:
                break
            state = list(call(state + list(element)))
    finally:
        env.close()
    out = [np.asarray(v, dtype=s.dtype.as_numpy_dtype) for v, s in zip(
        st.to_components(out_specs, state), st.component_specs(fn.output_structure))]
    return out[0] if len(out) == 1 else tuple(out)


reduce_op = OpDef("ReduceDataset", shape=_reduce_shape, dtype=_reduce_dtype, stateful=True,
                  kernel=_reduce_kernel, grad=None,  # TF: NotDifferentiable
                  attrs={"fn": None, "dataset": None, "n_state": 0},
                  num_outputs=lambda attrs, n: len(
                      st.component_specs(attrs["fn"].output_structure)))


def _trace_reducer(reduce_func, state_structure, element_structure):
    """``reduce_func`` traced on ``(state, element)``, its state's shapes relaxed (as TF
    does) until the new state fits the state it is given."""
    while True:
        fn = TracedFunction(reduce_func, (state_structure, element_structure), "reduce_func")
        new = fn.output_structure
        try:
            st.flatten(st.map_structure(lambda a, b: None, state_structure, new))
        except (TypeError, ValueError):
            raise TypeError(f"The structure of the new state must match the initial state. "
                            f"Expected {state_structure} but got {new}.") from None
        old_specs, new_specs = st.specs(state_structure), st.specs(new)
        for a, b in zip(old_specs, new_specs):
            if type(a) is not type(b):
                raise TypeError(f"The structure of the new state must match the initial "
                                f"state. Expected {state_structure} but got {new}.")
            if a.dtype != b.dtype:
                raise TypeError("The element types for the new state must match the initial "
                                f"state. Expected {a.dtype} but got {b.dtype}.")
        relaxed = [composite.relaxed(a, b) for a, b in zip(old_specs, new_specs)]
        if all(r.shape.as_tuple() == a.shape.as_tuple() for r, a in zip(relaxed, old_specs)):
            return fn
        state_structure = st.pack(state_structure, relaxed)


@builds("reduce")
def _reduce(dataset, initial_state, reduce_func):
    """``Dataset.reduce``: the final state (tensors, SparseTensors, RaggedTensors), nested
    as ``initial_state``."""
    with name_scope("initial_state"):
        leaves = [_as_leaf(v, f"component_{i}")
                  for i, v in enumerate(_data_leaves(initial_state))]
    state_structure = _data_pack(initial_state, iter([st.spec_of(x) for x in leaves]))
    flat = [t for x in leaves for t in st.components_of(x)]
    fn = _trace_reducer(reduce_func, state_structure, dataset._structure)
    captures = _unique(dataset._captures() + fn.captures)
    op = reduce_op.create(flat + captures, {"fn": fn, "dataset": dataset, "n_state": len(flat)},
                          name="ReduceDataset")
    return st.pack_tensors(fn.output_structure, list(op.outputs))
