"""``tf.function`` and ``tf.wrap_function`` (``tf.compat.v1``) in TF1 graph mode.

TF builds each traced function into the graph's function library and calls it with one
``PartitionedCall`` op; scopeflow has no function library, so:

- ``tf.function(f)(*args)`` builds ``f``'s ops where it is called (inline): the same values
  and gradients (``tf.gradients`` differentiates the ops themselves), but the graph holds
  ``f``'s ops (``Sin``, ``mul``) where TF's holds ``PartitionedCall``. Arguments are checked
  against ``input_signature`` when one is given, as TF checks them.
- ``tf.wrap_function(fn, signature)`` traces ``fn`` once into a graph of its own (its
  ``inputs`` are placeholders made from ``signature``, as TF's ``WrappedFunction``); each
  call copies the ops its outputs need into the caller's graph, under a ``PartitionedCall``
  name scope, with the inputs replaced by the arguments. ``prune(feeds, fetches)`` gives the
  function from other tensors of that graph to others. A wrapped function that creates
  variables or uses control flow (``tf.cond``, ``tf.while_loop``) is refused: TF lifts its
  variables out and calls its branches as library functions, which scopeflow cannot.
"""

from __future__ import annotations

import inspect
from contextlib import nullcontext

from scopeflow.framework import dtypes, random_seed
from scopeflow.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.nest import flatten, is_sequence, map_structure, pack_sequence_as
from scopeflow.framework.registry import VARIABLE_OP_TYPES
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.type_spec import TensorSpec
from scopeflow.ops.array.shape_ops import placeholder

__all__ = ["function", "Function", "wrap_function", "WrappedFunction"]


def _spec_dtype_shape(spec):
    """``(dtype, shape, name)`` of a ``tf.TensorSpec``-like or ``(dtype, shape)`` spec."""
    if hasattr(spec, "dtype") and hasattr(spec, "shape"):
        return dtypes.as_dtype(spec.dtype), TensorShape(spec.shape), getattr(spec, "name", None)
    raise TypeError(f"Expected a tf.TensorSpec in the signature, got {spec!r}")


# ── tf.function ──────────────────────────────────────────────────────────────────────────
class Function:
    """A ``tf.function``-decorated Python function; calling it builds its ops inline (see
    the module docstring)."""

    def __init__(self, python_function, input_signature=None, jit_compile=None,
                 reduce_retracing=False):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self.__name__ = getattr(python_function, "__name__", "function")
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__wrapped__ = python_function

    python_function = property(lambda self: self._python_function)
    input_signature = property(lambda self: self._input_signature)

    def __call__(self, *args, **kwargs):
        return self._call(None, args, kwargs)

    def __get__(self, instance, owner):
        """A decorated method: ``self`` is bound, and not part of ``input_signature``."""
        if instance is None:
            return self
        return lambda *args, **kwargs: self._call(instance, args, kwargs)

    def _call(self, instance, args, kwargs=None):
        if self._input_signature is not None:
            args = self._conform(args, kwargs)
            kwargs = {}
        if instance is not None:
            args = (instance, *args)
        # TF traces the function into a FuncGraph of its own, with its own seed counter
        with random_seed.function_seed_counter():
            return self._python_function(*args, **kwargs)

    def _conform(self, args, kwargs):
        """The arguments as tensors of the signature's dtypes, checked against its shapes."""
        if kwargs or len(args) != len(flatten(list(self._input_signature))) and \
                len(args) != len(self._input_signature):
            raise TypeError(f"{self.__name__}() takes {len(self._input_signature)} positional "
                            f"arguments matching its input_signature, got {len(args)} "
                            f"positional and {len(kwargs)} keyword arguments")
        out = []
        for arg, spec in zip(args, self._input_signature):
            flat_specs = flatten(spec)
            flat_args = flatten(arg) if is_sequence(spec) else [arg]
            tensors = []
            for a, s in zip(flat_args, flat_specs):
                dtype, shape, _ = _spec_dtype_shape(s)
                t = convert_to_tensor(a, dtype=dtype)
                if not shape.is_compatible_with(t.shape):
                    raise TypeError(self._binding_error(args, t, s))
                tensors.append(t)
            out.append(pack_sequence_as(spec, tensors))
        return out

    def _binding_error(self, args, tensor, spec):
        """TF's words for an argument its ``input_signature`` does not accept."""
        given = TensorSpec(tensor.shape, tensor.dtype.base_dtype)
        try:
            params = list(inspect.signature(self._python_function).parameters)
        except (TypeError, ValueError):
            params = []
        sig = ", ".join(f"{p}: {sp}" for p, sp in zip(params, self._input_signature))
        received = "(" + ", ".join(repr(a) for a in args) + ("," if len(args) == 1 else "") + ")"
        return (f"Binding inputs to tf.function failed due to `Can not cast {given} to "
                f"{spec}`. Received args: {received} and kwargs: {{}} for signature: ({sig}).")

    def get_concrete_function(self, *args):
        """The function traced on tensors like ``args`` (or the ``input_signature``), as a
        ``WrappedFunction``."""
        specs = self._input_signature if self._input_signature is not None else tuple(
            map_structure(lambda a: _SpecOf(convert_to_tensor(a)), list(args)))
        return wrap_function(self._python_function, list(specs), name=self.__name__)


class _SpecOf:
    """The dtype and shape of a tensor (a ``TensorSpec`` for tracing)."""

    def __init__(self, tensor):
        self.dtype, self.shape, self.name = tensor.dtype.base_dtype, tensor.shape, None


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None):
    """``tf.compat.v1.function``: ``func`` (or a decorator, without it) as a ``Function``.

    >>> f = tf.function(lambda x: x * 2.0)
    >>> print(tf.Session().run(f(tf.constant(3.0))))
    6.0
    """
    del autograph, experimental_implements, experimental_autograph_options
    del experimental_attributes, experimental_follow_type_hints  # Python control flow runs
    jit_compile = jit_compile if jit_compile is not None else experimental_compile
    reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(f):
        return Function(f, input_signature, jit_compile, reduce_retracing)
    return decorate if func is None else decorate(func)


# ── tf.wrap_function ─────────────────────────────────────────────────────────────────────
class WrappedFunction:
    """A function traced once into its own graph: ``inputs``, ``outputs``, ``graph``;
    calling it copies the needed ops into the caller's graph (see the module docstring)."""

    def __init__(self, graph, inputs, outputs, structured_outputs, name):
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.structured_outputs = structured_outputs
        self.name = name

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError(f"{self.name}() takes {len(self.inputs)} positional arguments but "
                            f"{len(args)} were given")
        mapping = {t: convert_to_tensor(a, dtype=t.dtype.base_dtype)
                   for t, a in zip(self.inputs, args)}
        with name_scope("PartitionedCall"):
            flat = _copy_ops(self.outputs, mapping)
        return pack_sequence_as(self.structured_outputs, flat)

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """The function of this graph from ``feeds`` to ``fetches`` (tensors or names)."""
        del input_signature
        feeds = [self.graph.as_graph_element(f) if isinstance(f, str) else f
                 for f in flatten(feeds)]
        fetch_list = [self.graph.as_graph_element(f) if isinstance(f, str) else f
                      for f in flatten(fetches)]
        return WrappedFunction(self.graph, feeds, fetch_list,
                               pack_sequence_as(fetches, fetch_list),
                               name or f"{self.name}_pruned")


def wrap_function(fn, signature, name=None):
    """``fn`` traced on placeholders made from ``signature`` (``tf.TensorSpec``s), as a
    callable ``WrappedFunction``."""
    graph = Graph()
    # as TF's FuncGraph: the caller's graph seed, and a seed counter of its own
    graph.seed = get_default_graph().seed
    with graph.as_default():
        inputs = []
        args = []
        for spec in signature or []:
            flat = []
            for s in flatten(spec):
                dtype, shape, spec_name = _spec_dtype_shape(s)
                flat.append(placeholder(dtype, shape=shape, name=spec_name))
            inputs.extend(flat)
            args.append(pack_sequence_as(spec, flat))
        result = fn(*args)
    outputs = [x for x in flatten(result) if isinstance(x, (Tensor, Operation))]
    _check_copyable(graph)
    return WrappedFunction(graph, inputs, outputs, result, name or "wrapped_function")


def _check_copyable(graph):
    for op in graph.get_operations():
        if op.type in VARIABLE_OP_TYPES or op._cf_context is not None:
            what = "creates variables" if op.type in VARIABLE_OP_TYPES else \
                "uses control flow"
            raise ValueError(f"tf.wrap_function: the function {what} ('{op.name}'); scopeflow "
                             "calls a wrapped function by copying its ops, and TF's lifted "
                             "variables and library functions for branches have no copy here")


def _copy_ops(outputs, mapping):
    """Copies the ops ``outputs`` need (stopping at the tensors in ``mapping``) into the
    default graph, in creation order; returns the copies of ``outputs``."""
    needed, stack = set(), [o if isinstance(o, Operation) else o.op for o in outputs]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(t.op for t in op._inputs if t not in mapping)
        stack.extend(op._control_inputs)
    copies = {}
    for op in sorted(needed, key=lambda o: o._id):
        if all(t in mapping for t in op._outputs) and op._outputs:
            continue
        inputs = [mapping[t] for t in op._inputs]
        controls = [copies[c] for c in op._control_inputs if c in copies]
        graph = inputs[0].graph if inputs else None
        with _controls(graph, controls):
            new = op._op_def.create(inputs, dict(op._attrs), name=op.name, graph=graph)
        copies[op] = new
        mapping.update(zip(op._outputs, new._outputs))
    return [copies[o] if isinstance(o, Operation) else mapping[o] for o in outputs]


def _controls(graph, controls):
    if not controls:
        return nullcontext()
    return controls[0].graph.control_dependencies(controls)
