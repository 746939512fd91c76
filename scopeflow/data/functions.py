"""User functions of ``tf.data`` transformations (``map``, ``filter``, ``flat_map``...),
traced once into the graph, as TF traces them into functions, and called per element.

A function is traced into its own ``FuncGraph`` (kind ``DATA_FUNCTION``) on ``LoopVar``
placeholders (one per component of the input element): its ops are graph ops (under the
transformation's name scope) that only its sub-plan runs. Outside tensors it uses are
captures: their values are taken when the iterator is initialized (as TF captures them) and
fed to every call. Calling it is one call of the function compiled for the session
(``state.function``): no ``Session.run`` per element.
"""

from __future__ import annotations

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.dataset_values import DatasetSpec, DatasetValue
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import convert_to_tensor, get_default_graph, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow.while_ops import loop_var
from scopeflow.ragged.ragged_tensor import RaggedTensor

__all__ = ["TracedFunction"]

# The entry of a function returning a Dataset that computes the values that dataset needs.
_DATASET = "dataset"


class TracedFunction:
    """``fn`` traced on arguments of ``input_structure`` (nested ``Spec``s).

    Attributes:
      output: the nested result as built (tensors, or a Dataset for ``flat_map``).
      output_structure: nested ``Spec``s of the result (tensor results).
    """

    def __init__(self, fn, input_structure, name, allow_dataset=False, unpack_args=True):
        graph = get_default_graph()
        self.input_structure = input_structure
        self.leaf_specs = None
        # Nested in the function being traced, if any (flat_map's dataset maps again).
        self.context = ctx = FuncGraph(FunctionKind.DATA_FUNCTION,
                                       parent=graph._state().cf_context, name=name)
        with name_scope(name), ctx.entered(graph):
            self.args = ctx.inputs = [
                loop_var(s.dtype, s.shape, name=f"args_{i}")
                for i, s in enumerate(st.component_specs(input_structure))]
            # a dataset-valued component is seen as a dataset (its variant is fed per call);
            # a sparse or ragged one as a SparseTensor/RaggedTensor of its components
            leaf_specs = st.specs(input_structure)
            packed = st.pack(input_structure, [
st.leaf_from_tensors(spec, a)
                for spec, a in zip(leaf_specs, st.group_components(leaf_specs, self.args))])
            if unpack_args and isinstance(packed, tuple) and not hasattr(packed, "_fields"):
                result = fn(*packed)
            else:
                result = fn(packed)
            self.output = result
            if allow_dataset and hasattr(result, "_structure"):
                self.results = []
                self.output_structure = None
                # What the returned dataset needs of this function (its values computed
                # here, fetched per call; outside values come from the caller's env).
                ctx.aux_outputs[_DATASET] = self._inside(result)
            else:
                self._trace_results(result, ctx)
        # plus what datasets it returns need from outside it (their iterators read them)
        outputs = [self.output] if allow_dataset and hasattr(self.output, "_structure") \
            else list(getattr(self, "datasets", {}).values())
        self.captures = list(ctx.captures) + [
            t for d in outputs for t in d._captures()
            if t._op._cf_context is not ctx and t not in set(ctx.captures)]

    def _trace_results(self, result, ctx):
        """Makes the traced tensor (or composite) results ``ctx``'s outputs, with their
        specs; dataset-valued results are made per call instead."""
        if isinstance(result, list):
            result = tuple(result)  # as TF: a list result is a tuple of components
        result = _sparse_values_as_tensors(result)
        leaves = st.flatten(result)
        # datasets among the results (a map making dataset-valued elements): not
        # outputs of the plan; each call makes their values (``caller``)
        self.datasets = {i: x for i, x in enumerate(leaves) if isinstance(x, Dataset)}
        for i, x in self.datasets.items():
            ctx.aux_outputs[f"{_DATASET}{i}"] = self._inside(x)
        # SparseTensors and RaggedTensors stay composite: their components are
        # the function's outputs
        leaves = [x if i in self.datasets or x is None or isinstance(
            x, (SparseTensor, RaggedTensor)) or hasattr(x, "_data_spec")
            else convert_to_tensor(x) for i, x in enumerate(leaves)]
        flat = [t for i, x in enumerate(leaves) if i not in self.datasets
                for t in st.components_of(x)]
        flat = [t if t._op._cf_context is ctx else array_ops.identity(t)
                for t in flat]
        self.results = ctx.outputs = flat
        out_specs = [DatasetSpec(x._structure) if i in self.datasets
                     else st.spec_of(x) for i, x in enumerate(leaves)]
        self.leaf_specs = out_specs
        self.output_structure = st.pack(result, out_specs) \
            if st.is_sequence(result) else out_specs[0]

    def _inside(self, dataset):
        """The tensors ``dataset`` needs that this function computes (not its arguments:
        their values are the call's)."""
        args = set(self.args)
        return [t for t in dataset._captures()
                if t._op._cf_context is self.context and t not in args]

    def caller(self, state, env):
        """A function ``call(flat_args) -> flat_results`` bound to a session and the
        captured values ``env`` (one value per leaf of the element in and out: a sparse or
        ragged leaf is one SparseTensorValue/RaggedTensorValue)."""
        call = self._component_caller(state, env)
        ins, outs = st.specs(self.input_structure), self.leaf_specs or []
        if not any(isinstance(s, (st.SparseSpec, st.RaggedSpec, st.NoneSpec))
                   for s in ins + outs):
            return call

        def call_composite(flat_args):
            return st.from_components(outs, call(st.to_components(ins, flat_args)))
        return call_composite

    def _component_caller(self, state, env):
        fn = state.function(self.context)
        captured = [env[t] for t in self.context.captures]
        if not getattr(self, "datasets", None):
            def call(flat_args):
                return fn(_as_arrays(flat_args) + captured)
            return call
        makers = {i: self._value_maker(state, env, i, d) for i, d in self.datasets.items()}
        # where each dataset result goes among the results' components
        at, n = {}, 0
        for i, spec in enumerate(self.leaf_specs):
            if i in makers:
                at[n] = makers[i]
            n += len(st.component_specs(spec))

        def call_with_datasets(flat_args):
            tensors = iter(fn(_as_arrays(flat_args) + captured))
            return [at[j](flat_args) if j in at else next(tensors) for j in range(n)]
        return call_with_datasets

    def _value_maker(self, state, env, i, dataset):
        """``make(flat_args) -> DatasetValue``: the ``i``-th result, a dataset, for a call."""
        key = f"{_DATASET}{i}"
        inside = self.context.aux_outputs[key]
        inner = state.function(self.context, key) if inside else None
        captured = [env[t] for t in self.context.captures]
        args = self.args

        def make(flat_args):
            values = dict(zip(args, flat_args))
            if inside:
                values.update(zip(inside, inner(list(flat_args) + captured)))
            child = env.for_element(values)
            return DatasetValue(lambda: dataset._make_iterator(state, child))
        return make

    def dataset_caller(self, state, env):
        """For a function returning a Dataset (``flat_map``, ``interleave``): a function
        ``call(flat_args) -> python iterator`` over that dataset for those arguments."""
        dataset = self.output
        inside = self.context.aux_outputs[_DATASET]
        inner = state.function(self.context, _DATASET) if inside else None
        captured = [env[t] for t in self.context.captures]
        args = self.args

        ins = st.specs(self.input_structure)

        def call(flat_args):
            flat_args = st.to_components(ins, flat_args)
            # Each call makes its dataset anew (TF runs the function's dataset ops per
            # element), so shuffles inside start their seed generators afresh.
            values = dict(zip(args, flat_args))
            if inside:
                values.update(zip(inside, inner(list(flat_args) + captured)))
            return dataset._make_iterator(state, env.for_element(values))
        return call


def _sparse_values_as_tensors(result, top=True):
    """``result`` with each SparseTensorValue (a namedtuple, but one sparse leaf, as TF
    takes it) a SparseTensor, and each list inside a tuple or dict one tensor (TF's tf.data
    nest: only tuples and dicts nest; a list result itself was made a tuple)."""
    if isinstance(result, SparseTensorValue):
        return SparseTensor.from_value(result)
    if isinstance(result, dict):
        return type(result)((k, _sparse_values_as_tensors(v, False))
                            for k, v in result.items())
    if isinstance(result, tuple):
        items = [_sparse_values_as_tensors(v, False) for v in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if isinstance(result, list) and not top:
        return convert_to_tensor(result)
    return result


def _as_arrays(flat_args):
    """An element's leaves as the kernels take them: a scalar string (a Python ``bytes``
    where a source yields one) as a 0-d object array, as a fed or computed one is."""
    return [np.asarray(a, dtype=object) if isinstance(a, (bytes, str)) else a
            for a in flat_args]
