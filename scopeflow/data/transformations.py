"""``tf.data`` transformations, each one block: its ``Dataset`` (graph side: element
structure, captures), then its run-time iterator (elements, position). ``map``, ``filter``,
``flat_map``, ``interleave``, ``batch``/``padded_batch``, ``unbatch``, ``repeat``, ``take``,
``skip``, ``shard`` and ``concatenate``; ``shuffle``, ``cache`` and ``prefetch`` are in
``buffers.py``."""

from __future__ import annotations

import numpy as np

from scopeflow.data import composite
from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import (
    AUTOTUNE,
    Dataset,
    _flatten_up_to,
    _static_int,
    _structure_like,
    _Unary,
    _unique,
    builds,
)
from scopeflow.data.dataset_values import DatasetSpec
from scopeflow.data.functions import TracedFunction
from scopeflow.data.pipeline import Counting, End, OneInput, PyIterator
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value

__all__: list = []


class _Traced(_Unary):
    """A transformation that calls a traced function ``self._fn`` per element."""

    def _captures(self):
        return _unique(self._input._captures() + self._fn.captures)


# ── map ──────────────────────────────────────────────────────────────────────────────
@builds("map")
class _Map(_Traced):
    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = TracedFunction(fn, input_dataset._structure, "MapDataset")
        self._structure = self._fn.output_structure
        if not st.component_specs(self._structure):  # only None: TF's op has no outputs
            raise ValueError("Attr 'output_types' of 'MapDataset' Op passed list of length 0 "
                             "less than minimum 1.")

    def _iterator(self, state, env):
        return _MapIterator(self._input._make_iterator(state, env),
                            self._fn.caller(state, env))


class _MapIterator(OneInput):
    def __init__(self, inner, call):
        self.inner, self.call = inner, call

    def next(self):
        return list(self.call(self.inner.next()))


# ── filter ───────────────────────────────────────────────────────────────────────────
@builds("filter")
class _Filter(_Traced):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = TracedFunction(predicate, input_dataset._structure, "FilterDataset")
        spec = self._fn.output_structure
        if not isinstance(spec, st.Spec) or spec.dtype != dtypes.bool or \
                spec.shape.ndims not in (None, 0):
            raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                             f"tensor, but its return type is {spec}.")

    def _iterator(self, state, env):
        return _FilterIterator(self._input._make_iterator(state, env),
                               self._fn.caller(state, env))


class _FilterIterator(_MapIterator):
    def next(self):
        while True:
            element = self.inner.next()
            (keep,) = self.call(element)
            if keep:
                return element


# ── flat_map ─────────────────────────────────────────────────────────────────────────
@builds("flat_map")
class _FlatMap(_Traced):
    _label = "FlatMapDataset"

    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = TracedFunction(fn, input_dataset._structure, self._label,
                                  allow_dataset=True)
        if not isinstance(self._fn.output, Dataset):
            raise TypeError("`map_func` must return a `Dataset` object. Got "
                            f"{type(self._fn.output).__name__}.")
        self._structure = self._fn.output._structure

    def _captures(self):
        nested = [t for t in self._fn.output._captures()
                  if t._op._cf_context is not self._fn.context]
        return _unique(super()._captures() + nested)

    def _iterator(self, state, env):
        return _FlatMapIterator(self._input._make_iterator(state, env),
                                self._fn.dataset_caller(state, env))


class _FlatMapIterator(_MapIterator):
    """A map whose results are iterators, read one after another."""

    def __init__(self, inner, call):
        super().__init__(inner, call)
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


# ── interleave ───────────────────────────────────────────────────────────────────────
@builds("interleave")
class _Interleave(_FlatMap):
    _label = "InterleaveDataset"

    def __init__(self, input_dataset, fn, cycle_length, block_length):
        super().__init__(input_dataset, fn)
        self._cycle = int(cycle_length) if cycle_length not in (None, AUTOTUNE) else 1
        self._block = int(block_length) if block_length is not None else 1

    def _iterator(self, state, env):
        return _InterleaveIterator(self._input._make_iterator(state, env),
                                   self._fn.dataset_caller(state, env), self._cycle,
                                   self._block)


class _InterleaveIterator(PyIterator):
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


# ── batch, padded_batch ──────────────────────────────────────────────────────────────
@builds("batch")
class _Batch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder, padded=None):
        super().__init__(input_dataset)
        self._size = _static_int(batch_size, "batch_size")
        self._drop = bool(drop_remainder)
        lead = self._size if self._drop else None
        self._pad = None
        self._shape_tensors: dict = {}
        if padded is not None:
            shapes, values = padded
            specs = st.specs(input_dataset._structure)
            for s in specs:
                if isinstance(s, DatasetSpec):
                    raise TypeError("`padded_batch` is not supported for datasets of datasets")
            for s in specs:
                if composite.is_composite(s):
                    raise TypeError(
                        "`padded_batch` is only supported for datasets that produce tensor "
                        "elements but type spec of elements in the input dataset is not a "
                        f"subclass of TensorSpec: `{s!r}`.")
            if shapes is None:
                for k, s in enumerate(specs):
                    if s.shape.ndims is None:
                        raise ValueError("You must provide `padded_shapes` argument because "
                                         f"component {k} has unknown rank.")
                shapes = [s.shape for s in specs]
            else:
                given = _flatten_up_to(input_dataset._structure, shapes)
                shapes = [_padded_shape(p, s) for p, s in zip(given, specs)]
                # shapes only known at run time: read when the iterator is made
                self._shape_tensors = {k: p for k, p in enumerate(given)
                                       if isinstance(p, Tensor) and _runtime_shape(p)}
            if values is None:
                values = [None] * len(specs)
            elif st.is_sequence(values) or not st.is_sequence(input_dataset._structure):
                values = _flatten_padding(input_dataset._structure, values)
            else:  # one padding value for every component
                values = [values] * len(specs)
            values = [(b"" if s.dtype == dtypes.string else 0) if v is None
                      else _static_value(v) for v, s in zip(values, specs)]
            values = [v.encode() if isinstance(v, str) else v for v in values]
            self._pad = ([s.as_list() if s.ndims is not None else None for s in shapes],
                         values)
            leaves = [st.Spec(s.dtype, TensorShape([lead]).concatenate(shape))
                      for s, shape in zip(specs, shapes)]
        else:
            leaves = [composite.batched_spec(s, lead) for s in st.specs(input_dataset._structure)]
        self._leaves = st.specs(input_dataset._structure)
        self._structure = _structure_like(input_dataset._structure, leaves)

    def _iterator(self, state, env):
        if self._size <= 0:  # TF's kernel checks it when the iterator is made
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                               "zero.")
        pad = self._pad
        if self._shape_tensors:
            shapes = list(pad[0])
            for k, t in self._shape_tensors.items():
                dims = [int(d) for d in np.asarray(env[t]).reshape(-1)]
                for d in dims:
                    if d < -1:
                        raise errors.InvalidArgumentError(
                            None, None, f"Dimension {d} must be >= -1")
                shapes[k] = [None if d == -1 else d for d in dims]
            pad = (shapes, pad[1])
        return _BatchIterator(self._input._make_iterator(state, env), self._size, self._drop,
                              pad, self._leaves)

    def _captures(self):
        return _unique(self._input._captures() + list(self._shape_tensors.values()))


def _flatten_padding(structure, values):
    """``padding_values`` per component, where ``None`` (for a component or a whole
    substructure) means the default padding."""
    if values is None:
        return [None] * len(st.specs(structure))
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _flatten_padding(structure[k],
                                                                      values[k])]
    if isinstance(structure, (tuple, list)):
        if not isinstance(values, (tuple, list)) or len(values) != len(structure):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{structure} and {values}")
        return [x for s, v in zip(structure, values) for x in _flatten_padding(s, v)]
    return [values]


def _padded_shape(value, spec):
    """``padded_shapes``' entry for one component (a shape, a list with ``None``/-1 for
    "pad to the longest", or an int64 vector tensor) as a ``TensorShape``; TF's errors for
    a shape that is no vector of ints or does not fit the component's shape."""
    if isinstance(value, Tensor):
        if value.dtype != dtypes.int64:
            raise TypeError(f"Padded shape {value} must be a `tf.int64` vector tensor, but "
                            f"its element type was {value.dtype.name}.")
        if value.shape.ndims != 1:
            raise ValueError(f"Padded shape {value} must be a `tf.int64` vector tensor, but "
                             f"its shape was {value.shape}.")
        known = None if _runtime_shape(value) else constant_value(value)
        shape = (TensorShape([None] * value.shape[0].value) if known is None
                 else TensorShape([None if d == -1 else int(d) for d in known]))
    elif isinstance(value, TensorShape):
        shape = value
    else:
        a = np.asarray([-1 if d is None else d for d in value] if isinstance(value, (
            list, tuple)) and all(np.ndim(d) == 0 for d in value) else value, dtype=object)
        if a.ndim != 1:
            raise ValueError(f"Padded shape {value} must be a `tf.int64` vector tensor, but "
                             f"its shape was {a.shape}.")
        shape = TensorShape([None if d is None or int(d) == -1 else int(d) for d in a])
    if not shape.is_compatible_with(spec.shape):
        raise ValueError(f"The padded shape {shape} is not compatible with the shape "
                         f"{spec.shape} of the corresponding input component.")
    return shape


def _runtime_shape(tensor) -> bool:
    """Whether a padded shape given as ``tensor`` is read at run time: its value is not
    known while the graph is built (or is not a valid shape, TF's error then)."""
    known = constant_value(tensor)
    return known is None or bool((np.asarray(known) < -1).any())


def _static_value(value):
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise NotImplementedError("tf.data: padding values computed at run time")
        return v
    return value


class _BatchIterator(OneInput):
    def __init__(self, inner, size, drop_remainder, pad=None, leaves=()):
        self.inner, self.size, self.drop = inner, size, drop_remainder
        self.pad = pad  # (padded shapes per component, padding values) for padded_batch
        self.leaves = leaves  # the input's leaf specs (sparse and ragged ones batch apart)

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
            return [composite.stack(c, self.leaves[k], k) if composite.is_composite(
                self.leaves[k]) else _stack(c, k) for k, c in enumerate(columns)]
        shapes, values = self.pad
        return [_pad_stack(c, shapes[k], values[k]) for k, c in enumerate(columns)]


def _stack(column, k):
    first = np.shape(column[0])
    for i, x in enumerate(column):
        if np.shape(x) != first:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component {k}. "
                f"First element had shape {list(first)} and element {i} had "
                f"shape {list(np.shape(x))}.")
    if isinstance(column[0], bytes) or np.asarray(column[0]).dtype == object:
        # strings stay objects: NumPy's bytes type would drop trailing NUL bytes (a
        # serialized proto's last float 0.0)
        return np.stack([np.asarray(x, dtype=object) for x in column])
    return np.stack(column)


def _pad_stack(column, shape, value):
    dims = [max(np.shape(x)[d] for x in column) if s is None else s
            for d, s in enumerate(shape)]
    dtype = np.asarray(column[0]).dtype
    if dtype.kind in "SUO":  # strings stay bytes objects (NumPy's str types would not)
        dtype = object
    out = np.full([len(column)] + dims, value, dtype=dtype)
    for i, x in enumerate(column):
        x = np.asarray(x)
        if x.dtype.kind in "UO" and x.size:
            x = np.vectorize(lambda v: v.encode() if isinstance(v, str) else v,
                             otypes=[object])(x)
        if any(a > b for a, b in zip(x.shape, dims)):
            raise errors.DataLossError(
                None, None, f"Attempted to pad to a smaller size than the input element. "
                f"Element shape {list(x.shape)}, padded shape {dims}")
        out[(i,) + tuple(slice(0, n) for n in x.shape)] = x
    return out


# ── unbatch ──────────────────────────────────────────────────────────────────────────
@builds("unbatch")
class _Unbatch(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        specs = st.specs(input_dataset._structure)
        leading = {s.shape[0].value for s in specs
                   if s.shape.ndims and s.shape[0].value is not None}
        if len(leading) > 1:
            a, b = sorted(leading)[:2]
            raise ValueError("`unbatch()` is only supported for datasets of elements whose "
                             "components have a matching leading dimension. Encountered "
                             f"both {a} and {b}.")
        self._structure = _structure_like(input_dataset._structure, [
            composite.unbatched_spec(s) for s in specs])

    def _iterator(self, state, env):
        return _UnbatchIterator(self._input._make_iterator(state, env))


class _UnbatchIterator(PyIterator):
    def __init__(self, inner):
        self.inner = inner
        self.batch = None
        self.i = self.n = 0

    def next(self):
        while self.batch is None or self.i >= self.n:
            self.batch = self.inner.next()
            self.i = 0
            self.n = _check_batch_sizes(self.batch)
        i = self.i
        self.i += 1
        return [composite.row(c, i) for c in self.batch]

    def get_state(self):
        return {"inner": self.inner.get_state(), "batch": self.batch, "i": self.i}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.batch, self.i = state["batch"], int(state["i"])
        self.n = 0 if self.batch is None else _check_batch_sizes(self.batch)


def _check_batch_sizes(components):
    """TF's run-time checks of an element to unbatch: no scalars, one batch size (the
    number of rows it returns; ``None`` components have none)."""
    sizes = []
    for c in components:
        if c is None:
            continue
        if not isinstance(c, composite.SparseTensorValue) and np.ndim(c) == 0 and not \
                isinstance(c, composite.RaggedTensorValue):
            raise errors.InvalidArgumentError(
                None, None, "Input element must have a non-scalar value in each component.")
        sizes.append(composite.nrows(c))
    for k, n in enumerate(sizes):
        if n != sizes[0]:
            raise errors.InvalidArgumentError(
                None, None, "Input element must have the same batch size in each component. "
                f"Component 0 had size {sizes[0]} but component {k} had size, {n}.")
    return sizes[0] if sizes else 0


# ── repeat, take, skip, shard: transformations with counts ───────────────────────────
class _Counted(_Unary):
    """A transformation with a count (repeat, take, skip): static, or a tensor whose value
    is taken when the iterator starts."""

    _counting: type[Counting]  # take's and skip's iterator, given their input and count

    def __init__(self, input_dataset, count, default=None):
        super().__init__(input_dataset)
        self._count_tensor = None
        if count is None:
            self._count = default
            return
        value = constant_value(count) if isinstance(count, Tensor) else count
        if value is None:
            self._count_tensor = count
            self._count = None
        else:
            self._count = int(value)

    def _captures(self):
        extra = [self._count_tensor] if self._count_tensor is not None else []
        return _unique(self._input._captures() + extra)

    def _count_in(self, env):
        return int(env[self._count_tensor]) if self._count_tensor is not None else self._count

    def _iterator(self, state, env):
        return self._counting(self._input._make_iterator(state, env), self._count_in(env))


@builds("repeat")
class _Repeat(_Counted):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset, count, default=-1)

    def _iterator(self, state, env):
        inner = self._input
        return _RepeatIterator(lambda: inner._make_iterator(state, env), self._count_in(env))


class _RepeatIterator(PyIterator):
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


class _TakeIterator(Counting):
    COUNT = "taken"

    def next(self):
        if 0 <= self.count <= self.n:
            raise End
        element = self.inner.next()
        self.n += 1
        return element


@builds("take")
class _Take(_Counted):
    _counting = _TakeIterator


class _SkipIterator(Counting):
    COUNT = "skipped"

    def next(self):
        while self.count < 0 or self.n < self.count:
            self.inner.next()
            self.n += 1
        return self.inner.next()


@builds("skip")
class _Skip(_Counted):
    _counting = _SkipIterator


@builds("shard")
class _Shard(_Unary):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        # static values, or tensors whose values are taken when the iterator starts
        self._args = [_Counted(input_dataset, num_shards), _Counted(input_dataset, index)]

    def _captures(self):
        extra = [a._count_tensor for a in self._args if a._count_tensor is not None]
        return _unique(self._input._captures() + extra)

    def _iterator(self, state, env):
        n, i = (a._count_in(env) for a in self._args)
        # TF checks these when the iterator is made (ShardDatasetOp), with these words
        if n <= 0:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater "
                                              f"than zero (currently num_shards = {n}).")
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(None, None, f"Index must be between 0 and "
                                              f"{n - 1} (currently index = {i}).")
        return _ShardIterator(self._input._make_iterator(state, env), n, i)


class _ShardIterator(Counting):
    COUNT = "position"

    def __init__(self, inner, num_shards, index):
        super().__init__(inner)
        self.num_shards, self.index = num_shards, index

    def next(self):
        while True:
            element = self.inner.next()  # End passes through: the input ran out
            position = self.n
            self.n += 1
            if position % self.num_shards == self.index:
                return element


# ── concatenate ──────────────────────────────────────────────────────────────────────
def _skeleton(structure):
    """``structure``'s nesting (dict keys, sequence lengths) with its leaves left out."""
    if isinstance(structure, dict):
        return {k: _skeleton(v) for k, v in structure.items()}
    if st.is_sequence(structure):
        return tuple(_skeleton(v) for v in structure)
    return None


@builds("concatenate")
class _Concatenate(_Unary):
    def __init__(self, input_dataset, other):
        super().__init__(input_dataset)
        if not isinstance(other, Dataset):
            raise TypeError(f"Expected a Dataset, got {type(other).__name__}")
        a, b = st.specs(input_dataset._structure), st.specs(other._structure)
        if _skeleton(input_dataset._structure) != _skeleton(other._structure) or any(
                x.dtype != y.dtype or type(x) is not type(y) for x, y in zip(a, b)):
            raise TypeError(f"Incompatible dataset elements:\n  {input_dataset.output_types}"
                            f" vs.   {other.output_types}")
        self._other = other
        self._structure = _structure_like(input_dataset._structure, [
            composite.relaxed(x, y) for x, y in zip(a, b)])

    def _captures(self):
        return _unique(self._input._captures() + self._other._captures())

    def _iterator(self, state, env):
        first, second = self._input, self._other
        return _ConcatIterator([lambda: first._make_iterator(state, env),
                                lambda: second._make_iterator(state, env)])


class _ConcatIterator(PyIterator):
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
