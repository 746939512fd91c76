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

from scopeflow.data import structure as st
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import convert_to_tensor, get_default_graph, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow.while_ops import loop_var

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
        # Nested in the function being traced, if any (flat_map's dataset maps again).
        self.context = ctx = FuncGraph(FunctionKind.DATA_FUNCTION,
                                       parent=graph._state().cf_context, name=name)
        with name_scope(name), ctx.entered(graph):
            self.args = ctx.inputs = [loop_var(s.dtype, s.shape, name=f"args_{i}")
                                      for i, s in enumerate(st.specs(input_structure))]
            packed = st.pack(input_structure, self.args)
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
                ctx.aux_outputs[_DATASET] = [t for t in result._captures()
                                             if t._op._cf_context is ctx]
            else:
                if isinstance(result, list):
                    result = tuple(result)  # as TF: a list result is a tuple of components
                if isinstance(result, SparseTensor):
                    raise NotImplementedError(
                        f"tf.data: {name} returned a SparseTensor; scopeflow's datasets carry "
                        "dense tensors only")
                flat = [convert_to_tensor(x) for x in st.flatten(result)]
                flat = [t if t._op._cf_context is ctx else array_ops.identity(t)
                        for t in flat]
                self.results = ctx.outputs = flat
                self.output_structure = st.pack(result, [st.spec_of(t) for t in flat]) \
                    if st.is_sequence(result) else st.spec_of(flat[0])
        self.captures = list(ctx.captures)

    def caller(self, state, env):
        """A function ``call(flat_args) -> flat_results`` bound to a session and the
        captured values ``env``."""
        fn = state.function(self.context)
        captured = [env[t] for t in self.captures]

        def call(flat_args):
            return fn(list(flat_args) + captured)
        return call

    def dataset_caller(self, state, env):
        """For a function returning a Dataset (``flat_map``, ``interleave``): a function
        ``call(flat_args) -> python iterator`` over that dataset for those arguments."""
        dataset = self.output
        inside = self.context.aux_outputs[_DATASET]
        inner = state.function(self.context, _DATASET)
        captured = [env[t] for t in self.captures]

        def call(flat_args):
            # Each call makes its dataset anew (TF runs the function's dataset ops per
            # element), so shuffles inside start their seed generators afresh.
            values = dict(zip(inside, inner(list(flat_args) + captured))) if inside else {}
            return dataset._make_iterator(state, env.for_element(values))
        return call
