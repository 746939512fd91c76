"""``tf.data`` iterators in TF1 graph mode: one-shot, initializable, reinitializable
(``Iterator.from_structure`` + ``make_initializer``) and feedable (``from_string_handle``).

An iterator is a per-session resource named by its op (``SessionState.resources``). Its
initializer op takes every tensor the dataset's pipeline captures as inputs, so their
values are those of the run that initializes it (a placeholder fed then, as in TF), and
builds the pipeline's run-time iterator (``data.pipeline``). ``get_next`` pulls one element
and raises ``OutOfRangeError`` at the end; its position can be saved with the model
(``make_saveable_from_iterator``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopeflow.data import iterator_state, optional_ops
from scopeflow.data import pipeline as pl
from scopeflow.data import structure as st
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.random_seed import get_seed
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.ragged.ragged_tensor_spec import RaggedTensorSpec

__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "make_saveable_from_iterator", "IteratorSaveable"]


def _string_scalar(*args, **attrs):
    return TensorShape([])


def _string(*args, **attrs):
    return dtypes.string


# ── ops ──────────────────────────────────────────────────────────────────────────────
def _iterator_kernel(run, *captured, shared_name, spec, one_shot):
    # A one-shot iterator starts the first time anything uses it (its get_next, or its
    # string handle), with the values its dataset captures.
    if one_shot is not None and shared_name not in run.state.resources:
        env = _captured_env(one_shot, captured)
        _replace(run.state.resources, shared_name,
                 _Resource(one_shot, one_shot._make_iterator(run.state, env), env))
    return np.asarray(shared_name.encode(), dtype=object)


iterator_op = OpDef("IteratorV2", shape=_string_scalar, dtype=_string, stateful=True,
                    kernel=_iterator_kernel, grad=NO_GRADIENT,
                    attrs={"shared_name": "", "spec": None, "one_shot": None})


def _handle_name(handle):
    value = np.asarray(handle, dtype=object).reshape(-1)
    if value.size != 1:
        raise errors.InvalidArgumentError(None, None, "Expected a scalar iterator handle")
    h = value[0]
    return h.decode() if isinstance(h, bytes) else str(h)


def _captured_env(dataset, captured) -> pl.Env:
    """The captured values, taken now: copies, so a later write to a variable the
    pipeline captured does not reach it (TF captures by value)."""
    return pl.Env({t: np.array(v, copy=True) if isinstance(v, np.ndarray) else v
                   for t, v in zip(dataset._captures(), captured)})


def _function_contexts(dataset, seen=None) -> set:
    """The ``FuncGraph``s of the functions ``dataset``'s pipeline traced (``map``'s,
    ``filter``'s, and those of datasets inside them)."""
    seen = set() if seen is None else seen
    contexts: set = set()
    stack = [dataset]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif hasattr(x, "caller") and hasattr(x, "context"):  # a TracedFunction
            contexts.add(x.context)
            stack.append(x.output)
        elif hasattr(x, "_make_iterator"):  # a Dataset: its inputs and functions
            stack.extend(v for v in vars(x).values()
                         if isinstance(v, (list, tuple)) or hasattr(v, "_make_iterator") or
                         (hasattr(v, "caller") and hasattr(v, "context")))
    return contexts


def _note_function_ops(dataset) -> None:
    """Records on ``dataset`` the names of its functions' ops (in the graph being built),
    whose random streams each initialization of an iterator over it restarts."""
    contexts = _function_contexts(dataset)
    dataset._function_op_names = [
        op.name for op in get_default_graph().get_operations()
        if getattr(op, "_cf_context", None) in contexts] if contexts else []


def _make_iterator_kernel(run, handle, *captured, dataset):
    # As TF instantiates a pipeline's functions afresh for each initialization, their
    # stateful random ops start again from their seeds.
    for name in getattr(dataset, "_function_op_names", ()):
        run.state.rngs.pop(name, None)
    env = _captured_env(dataset, captured)
    _replace(run.state.resources, _handle_name(handle),
             _Resource(dataset, dataset._make_iterator(run.state, env), env))


def _no_outputs(*args, **attrs):
    return []


make_iterator_op = OpDef("MakeIterator", shape=_no_outputs, dtype=_no_outputs,
                         stateful=True, kernel=_make_iterator_kernel, grad=NO_GRADIENT,
                         attrs={"dataset": None})


@dataclass(eq=False, slots=True)
class _Resource:
    """One initialized iterator: its dataset, its run-time iterator, and the environment
    its initialization gave the pipeline (captured values, tables)."""

    dataset: object
    iterator: pl.PyIterator
    env: pl.Env

    def cancel(self):
        """Stops the pipeline's background threads (re-initialized, or session closed)."""
        self.env.close()


def _replace(resources, name, resource):
    old = resources.get(name)
    resources[name] = resource
    if old is not None:
        old.cancel()


def _get_next_shape(handle, *, spec):
    return [s.shape for s in st.component_specs(spec)]


def _get_next_dtype(handle, *, spec):
    return [s.dtype for s in st.component_specs(spec)]


def _next_arrays(run, handle, specs, leaves=None):
    """The iterator's next element as arrays of ``specs``' dtypes, or None at the end."""
    resource = run.state.resources.get(_handle_name(handle))
    if resource is None:
        raise errors.FailedPreconditionError(
            None, None, "GetNext() failed because the iterator has not been initialized. "
            "Ensure that you have run the initializer operation for this iterator before "
            "getting the next element.")
    try:
        values = resource.iterator.next()
    except pl.End:
        return None
    if leaves is not None:
        # sparse and ragged leaves leave as their components (indices, values, ...)
        values = st.to_components(leaves, values)
    out = []
    for v, s in zip(values, specs):
        if s.dtype == dtypes.variant:  # a dataset-valued component leaves as it is
            if isinstance(v, np.ndarray):  # datasets batched: an object array already
                out.append(v)
                continue
            arr = np.empty((), dtype=object)
            arr[()] = v
            out.append(arr)
            continue
        arr = np.asarray(v) if s.dtype != dtypes.string else np.asarray(v, dtype=object)
        if arr.dtype != s.dtype.as_numpy_dtype and s.dtype != dtypes.string:
            arr = arr.astype(s.dtype.as_numpy_dtype)
        if not s.shape.is_compatible_with(TensorShape(arr.shape)):
            raise errors.InvalidArgumentError(
                None, None, f"An element of the dataset has shape {list(arr.shape)}, but the "
                f"iterator's output shape is {s.shape}")
        out.append(arr)
    return out


def _get_next_kernel(run, handle, *, spec):
    out = _next_arrays(run, handle, st.component_specs(spec), st.specs(spec))
    if out is None:
        raise errors.OutOfRangeError(None, None, "End of sequence")
    return out[0] if len(out) == 1 else tuple(out)

get_next_op = OpDef("IteratorGetNext", shape=_get_next_shape, dtype=_get_next_dtype,
                    stateful=True, kernel=_get_next_kernel, grad=NO_GRADIENT,
                    attrs={"spec": None},
                    num_outputs=lambda attrs, n: len(st.component_specs(attrs["spec"])))


# ── IteratorGetNextAsOptional ──────────────────────────────────────────────────────────
def _as_optional_shape(handle, *, output_types, output_shapes):
    return TensorShape([])


def _as_optional_dtype(handle, *, output_types, output_shapes):
    return dtypes.variant


def _as_optional_kernel(run, handle, *, output_types, output_shapes):
    specs = [st.Spec(t, s) for t, s in zip(output_types, output_shapes)]
    out = _next_arrays(run, handle, specs)
    return optional_ops.OptionalValue(None if out is None else tuple(out))


get_next_as_optional_op = OpDef(
    "IteratorGetNextAsOptional", shape=_as_optional_shape, dtype=_as_optional_dtype,
    stateful=True, kernel=_as_optional_kernel, grad=NO_GRADIENT,
    attrs={"output_types": None, "output_shapes": None}, input_names=("iterator",))


def _to_handle_kernel(handle):
    return handle


to_string_handle_op = OpDef("IteratorToStringHandle", shape=_string_scalar, dtype=_string,
                            kernel=_to_handle_kernel, grad=NO_GRADIENT)


# ── saving an iterator's position ────────────────────────────────────────────────────
def _serialize_kernel(run, handle, *, datasets):
    name = _handle_name(handle)
    resource = run.state.resources.get(name)
    if resource is None:
        raise errors.FailedPreconditionError(
            None, None, f"Cannot save the position of iterator {name}: it has not been "
            "initialized (run its initializer, or one get_next of a one-shot iterator, first)")
    position = iterator_state.Position(
        dataset=datasets.index(resource.dataset) if resource.dataset in datasets else -1,
        captured=[resource.env[t] for t in resource.dataset._captures()],
        tables=resource.env.saved_tables(), iterator=resource.iterator.get_state())
    return np.asarray(position.dumps(), dtype=object)


serialize_op = OpDef("SerializeIterator", shape=_string_scalar, dtype=_string, stateful=True,
                     kernel=_serialize_kernel, grad=NO_GRADIENT, attrs={"datasets": ()})


def _deserialize_kernel(run, handle, serialized, *, datasets):
    name = _handle_name(handle)
    value = np.asarray(serialized, dtype=object).reshape(-1)[0]
    state = iterator_state.loads(value, name)
    try:
        position = iterator_state.Position.of(state)
        k = position.dataset
        resource = run.state.resources.get(name)
        dataset = datasets[k] if 0 <= k < len(datasets) else \
            (resource.dataset if resource is not None else None)
        if dataset is None:
            raise errors.FailedPreconditionError(
                None, None, f"Cannot restore the position of iterator {name}: it was "
                "initialized with a dataset this graph does not know; run that initializer "
                "before restoring")
        captures = dataset._captures()
        if len(position.captured) != len(captures):
            raise ValueError("the saved pipeline captured other values than this one")
        env = pl.Env(zip(captures, position.captured))
        iterator = dataset._make_iterator(run.state, env)
        iterator.set_state(position.iterator)
        # Making the pipeline (and its parts, again, in set_state) moved its tables (a
        # shuffle's pass count): put the saved ones back.
        env.restore_tables(position.tables)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise errors.DataLossError(
            None, None, f"Could not restore the position of iterator {name}: its saved state "
            f"does not fit this pipeline ({e})") from None
    _replace(run.state.resources, name, _Resource(dataset, iterator, env))


deserialize_op = OpDef("DeserializeIterator", shape=_no_outputs, dtype=_no_outputs,
                       stateful=True, kernel=_deserialize_kernel, grad=NO_GRADIENT,
                       attrs={"datasets": ()})


class StringEntrySaveable:
    """A ``tf.train.Saver`` entry that is one string scalar ``self.tensor`` (an iterator's
    position, the training state); subclasses set ``name`` and ``tensor`` and restore."""

    slice_spec = ""
    variable = None

    @property
    def op(self):
        return self.tensor.op

    @property
    def dtype(self):
        return dtypes.string

    @property
    def shape(self):
        return TensorShape([])

    @property
    def device(self):
        return self.tensor.device


class IteratorSaveable(StringEntrySaveable):
    """An iterator's position as one checkpoint entry (a string tensor), for ``tf.train.Saver``
    (``tf.data.experimental.make_saveable_from_iterator``)."""

    def __init__(self, iterator, name=None):
        self.iterator = iterator
        self.name = name or iterator._handle.op.name
        datasets = tuple(iterator._datasets)
        self.tensor = serialize_op.bind(iterator._handle, datasets=datasets,
                                        name="SerializeIterator")
        self._datasets = datasets

    def restore(self, restored, shape=None):
        return deserialize_op.create([self.iterator._handle, restored],
                                     {"datasets": self._datasets},
                                     name="DeserializeIterator")


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A saveable of ``iterator``'s position: add it to the
    ``tf.GraphKeys.SAVEABLE_OBJECTS`` collection (or a Saver's ``var_list``) and the
    checkpoint carries the position, so a restored run continues with the same next
    element (shuffle buffers and random streams included)."""
    del external_state_policy
    return IteratorSaveable(iterator)


# ── Iterator ─────────────────────────────────────────────────────────────────────────
_COUNTER = [0]


def _unique_shared_name(graph):
    _COUNTER[0] += 1
    return f"iterator_{id(graph):x}_{_COUNTER[0]}"


class Iterator(st.ElementDescription):
    """TF1's ``tf.data.Iterator``."""

    def __init__(self, handle, structure, initializer=None):
        self._handle = handle
        self._structure = structure
        self._initializer = initializer
        self._datasets: list = []  # the datasets its initializers start it on

    # -- construction ---------------------------------------------------------------------
    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An iterator for any dataset with this element structure; ``make_initializer``
        points it at one (TF1's reinitializable iterator)."""
        structure = _structure(output_types, output_shapes, output_classes)
        with name_scope("Iterator"):
            handle = _iterator_handle(shared_name, structure)
        return Iterator(handle, structure)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that reads from whichever iterator ``string_handle`` names when it
        runs (TF1's feedable iterator)."""
        structure = _structure(output_types, output_shapes, output_classes)
        handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        return Iterator(handle, structure)

    # -- TF1's API ------------------------------------------------------------------------
    @property
    def initializer(self) -> Operation:
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None) -> Operation:
        """An op that (re)starts this iterator on ``dataset``, which must have this
        iterator's element types and compatible shapes."""
        ours, theirs = st.specs(self._structure), st.specs(dataset._structure)
        if _nesting(self._structure) != _nesting(dataset._structure):
            raise ValueError("The two structures don't have the same nested structure.\n\n"
                             f"First structure: {self.output_types}\n\nSecond structure: "
                             f"{dataset.output_types}")
        if len(ours) != len(theirs) or any(a.dtype != b.dtype for a, b in zip(ours, theirs)):
            raise TypeError("Expected output types "
                            f"{self.output_types} but got dataset with output types "
                            f"{dataset.output_types}.")
        composite = (st.SparseSpec, st.RaggedSpec)
        if any(type(a) is not type(b) and (isinstance(a, composite) or
                                           isinstance(b, composite))
               for a, b in zip(ours, theirs)):
            raise TypeError("Expected output classes "
                            f"{self.output_classes} but got dataset with output classes "
                            f"{dataset.output_classes}.")
        for a, b in zip(ours, theirs):
            if not a.shape.is_compatible_with(b.shape):
                raise TypeError(f"Expected output shapes compatible with {self.output_shapes} "
                                f"but got dataset with output shapes {dataset.output_shapes}.")
        self._datasets.append(dataset)
        with name_scope(name, "make_initializer"):
            _note_function_ops(dataset)
            return make_iterator_op.create([self._handle] + dataset._captures(),
                                           {"dataset": dataset}, name="MakeIterator")

    def get_next(self, name=None):
        """The next element (a structure of tensors); ``OutOfRangeError`` at the end."""
        op = get_next_op.create([self._handle], {"spec": self._structure},
                                name=name or "IteratorGetNext")
        return st.pack_tensors(self._structure, list(op.outputs))

    def get_next_as_optional(self):
        """The next element as an Optional (``IteratorGetNextAsOptional``): empty at the
        end of the data instead of raising ``OutOfRangeError``."""
        specs = st.specs(self._structure)
        variant = get_next_as_optional_op.bind(
            self._handle, output_types=[s.dtype for s in specs],
            output_shapes=[s.shape for s in specs], name="IteratorGetNextAsOptional")
        return optional_ops.optional_from_components(variant, self.element_spec)

    def string_handle(self, name=None) -> Tensor:
        if name is not None:
            return to_string_handle_op.bind(self._handle, name=name)
        # TF makes the unnamed handle once per iterator and returns that same tensor
        if getattr(self, "_string_handle", None) is None:
            self._string_handle = to_string_handle_op.bind(self._handle,
                                                           name="IteratorToStringHandle")
        return self._string_handle

    def _as_saveable_name(self):
        return self._handle.op.name


def _nesting(structure):
    """``structure``'s nesting (dict keys, sequence lengths) with its leaves left out."""
    if isinstance(structure, dict):
        return {k: _nesting(v) for k, v in structure.items()}
    if st.is_sequence(structure):
        return tuple(_nesting(v) for v in structure)
    return None


def _structure(output_types, output_shapes, output_classes=None):
    if output_shapes is None:
        output_shapes = st.map_structure(lambda _: TensorShape(None), output_types)
    if st.is_sequence(output_types) and isinstance(output_shapes, list) and all(
            d is None or isinstance(d, int) for d in output_shapes):
        # a list of dimensions is one shape, not a structure of shapes
        raise TypeError("If shallow structure is a sequence, input must also be a sequence. "
                        "Input has type: 'list'.")
    if output_classes is None:
        output_classes = st.map_structure(lambda _: Tensor, output_types)
    if st.is_sequence(output_types):
        return st.map_structure(_leaf_spec, output_types, output_shapes, output_classes)
    return _leaf_spec(output_types, output_shapes, output_classes)


def _leaf_spec(dtype, shape, cls):
    """TF1's (type, shape, class) triple as a leaf spec: a SparseTensor class makes a
    sparse leaf, a RaggedTensorSpec (TF1's class for ragged leaves) a ragged one."""
    if cls is SparseTensor:
        return st.SparseSpec(dtype, as_shape(shape))
    if isinstance(cls, RaggedTensorSpec):
        return st.RaggedSpec(cls.dtype, cls.shape, cls.ragged_rank)
    return st.Spec(dtype, as_shape(shape))


def _iterator_handle(shared_name, structure, one_shot=None):
    captured = one_shot._captures() if one_shot is not None else []
    op = iterator_op.create(captured, {"shared_name": shared_name or _unique_shared_name(None),
                                       "spec": structure, "one_shot": one_shot},
                            name="Iterator")
    return op.outputs[0]


def make_one_shot_iterator(dataset):
    """An iterator that initializes itself at its first ``get_next``
    (``tf.data.make_one_shot_iterator``).

    It takes one op seed from the graph, as TF's does (``core_random_seed.get_seed(None)``
    for the dataset factory's own graph seed), so random ops made after it get TF's seeds."""
    get_seed(None)
    with name_scope("OneShotIterator"):
        handle = _iterator_handle(None, dataset._structure, one_shot=dataset)
    it = Iterator(handle, dataset._structure)
    it._datasets.append(dataset)
    return it


def make_initializable_iterator(dataset, shared_name=None):
    """An iterator with an ``initializer`` that (re)starts it on ``dataset``
    (``tf.data.make_initializable_iterator``)."""
    with name_scope("Iterator"):
        handle = _iterator_handle(shared_name, dataset._structure)
    it = Iterator(handle, dataset._structure)
    it._initializer = it.make_initializer(dataset)
    return it


