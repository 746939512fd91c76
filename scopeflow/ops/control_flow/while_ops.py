"""``tf.while_loop``: one ``WhileLoop`` op whose kernel is a Python ``while`` around the
loop's condition and body, compiled for the session (``run.state.function``).

The condition and body are traced once, into one ``FuncGraph`` under the ``while/`` name
scope, on ``LoopVar`` tensors named as TF1 names the body's inputs (``while/Identity``,
``while/Identity_1``...): the function's outputs are the body's results, its ``"cond"``
entry the condition; the op's results are ``while/Exit``, ``while/Exit_1``... Loop variables
may be nested structures of tensors and ``TensorArray``s.

Gradients: the forward op keeps, per iteration, the body's values its gradient needs (its
trace output, TF1's gradient stacks); ``WhileLoopGrad`` runs the body's gradient once per
forward iteration, last to first, carrying the loop variables' gradients and summing the
gradients of the outside values the body used. The rule that builds it differentiates the
body with ``tf.gradients``' walk, so it is registered from ``autodiff/control_flow_grad.py``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import assert_same_structure, flatten, is_sequence
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import (
    IndexedSlicesSpec,
    SparseTensorSpec,
    TensorSpec,
    TypeSpec,
)
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow.cond_ops import (
    Trace,
    as_flow_structure,
    branch_value,
    check_same_composites,
    composite_spec,
    from_flow_structure,
)
from scopeflow.ops.control_flow.tensor_array_ops import add_flow_lists

__all__ = ["while_loop", "WhileLoop", "WhileGradSpec", "while_grad_op", "loop_var",
           "none_flow"]

# The loop function's entry that returns the condition (its outputs are the body's).
COND_ENTRY = "cond"


# ── LoopVar: a value the loop's kernel feeds each iteration ──────────────────────────
loop_var_op = OpDef("LoopVar", shape=lambda *, dtype, shape: shape,
                    dtype=lambda *, dtype, shape: dtype, attrs={"dtype": None, "shape": None},
                    grad=None)


def loop_var(dtype, shape, name="Identity"):
    """A value a traced function is fed on each call (a loop variable, an argument)."""
    return loop_var_op.bind(dtype=dtype, shape=shape, name=name)


# ── WhileLoop ────────────────────────────────────────────────────────────────────────
class WhileSpec:
    """A loop's function: its loop-variable tensors inside (``fn.inputs``), the condition
    (``fn.aux_outputs["cond"]``) and the body's results (``fn.outputs``)."""

    def __init__(self, fn, n_captures, has_max, back_prop):
        self.fn = fn
        self.loop_vars = fn.inputs
        self.cond_out = fn.aux_outputs[COND_ENTRY][0]
        self.body_outs = fn.outputs
        self.n_captures = n_captures
        self.has_max = has_max
        self.back_prop = back_prop


def _while_shape(*shapes, spec):
    return [t.shape for t in spec.loop_vars] + [TensorShape([])]


def _while_dtype(*dts, spec):
    return [t.dtype.base_dtype for t in spec.loop_vars] + [dtypes.variant]


def _while_kernel(run, *inputs, spec):
    state = run.state
    n = len(spec.loop_vars)
    values = list(inputs[:n])
    rest = inputs[n:]
    limit = None
    if spec.has_max:
        limit = int(rest[0])
        rest = rest[1:]
    captures = list(rest)
    fn = spec.fn
    cond, body = state.function(fn, COND_ENTRY), state.function(fn)
    recording = bool(fn.recorded)
    records = []
    i = 0
    while limit is None or i < limit:
        (go,) = cond(values + captures)
        if not go:
            break
        out = body(values + captures)
        values = list(out[:n])
        if recording:
            records.append(out[n:])
        i += 1
    return (*values, Trace(i, records))


while_op = OpDef("WhileLoop", shape=_while_shape, dtype=_while_dtype, kernel=_while_kernel,
                 aliases=True,  # a loop variable may come back as it went in
                 stateful=True, attrs={"spec": None},
                 num_outputs=lambda attrs, n: len(attrs["spec"].loop_vars) + 1)
WhileLoop = while_op  # noqa: N816 - the op's declaration, by its type name


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true.

    ``cond`` and ``body`` are called once, while building; ``loop_vars`` is a (nested)
    list/tuple of tensors, TensorArrays and composites (SparseTensor, IndexedSlices,
    RaggedTensor: their components are loop variables, of shapes from their specs, so a
    SparseTensor's ``indices`` and ``values`` may grow), and ``body`` returns the same
    structure with the same dtypes and shapes (or shapes within ``shape_invariants``; for a
    SparseTensor, the shape of its ``dense_shape``, as TF). ``parallel_iterations``
    and ``swap_memory`` are accepted; iterations run one after another. As TF1, a single
    loop variable comes back as itself unless ``return_same_structure=True``.

    >>> i = tf.while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)])
    >>> i.name, int(tf.Session().run(i))
    ('while/Exit:0', 12)
    """
    del parallel_iterations, swap_memory
    _check_loop_args(cond, body, loop_vars)
    single = not is_sequence(loop_vars) or (
        isinstance(loop_vars, (list, tuple)) and len(loop_vars) == 1
        and not return_same_structure)
    structure = loop_vars if is_sequence(loop_vars) else [loop_vars]
    with name_scope(name, "while", [x for x in flatten(structure) if not
                                    hasattr(x, "_with_flow") and composite_spec(x) is None]
                    ) as scope:
        init = [convert_to_tensor(x) for x in as_flow_structure(structure)]
        specs, invariants = _invariants(structure, init, shape_invariants)
        if maximum_iterations is not None:
            maximum_iterations = _maximum_iterations(maximum_iterations)
        graph = init[0].graph
        loop_fn = FuncGraph(FunctionKind.WHILE_LOOP, parent=graph._state().cf_context,
                            name=scope.rstrip("/"))
        result = _trace_loop(loop_fn, graph, cond, body, structure, init,
                             (specs, invariants), scope)
        exits = _create_loop(graph, loop_fn, init, maximum_iterations, back_prop)
    # As TF1, the results take the static shapes of what the body returned.
    packed = from_flow_structure(structure, exits,
                                 [composite_spec(x) for x in flatten(result)])
    if single:
        return packed[0]
    return packed if is_sequence(loop_vars) else packed[0]


def _check_loop_args(cond, body, loop_vars):
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if loop_vars is None or (is_sequence(loop_vars) and not flatten(loop_vars)):
        raise ValueError("'loop_vars' must be provided.")


def _maximum_iterations(maximum_iterations):
    """``maximum_iterations`` as the scalar int32 tensor the op is fed."""
    maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dtypes.int32,
                                           name="maximum_iterations")
    if maximum_iterations.shape.ndims not in (None, 0):
        raise ValueError("maximum_iterations must be a scalar, saw shape: "
                         f"{maximum_iterations.shape}")
    return maximum_iterations


def _trace_loop(loop_fn, graph, cond, body, structure, init, signature, scope):
    """Traces ``cond`` and ``body`` into ``loop_fn`` on loop variables like ``init`` (of
    ``signature``: each leaf's composite spec or None, and each tensor's invariant shape),
    checks the body's results against them and returns those results."""
    specs, invariants = signature
    with loop_fn.entered(graph):
        loop_vars_in = [loop_var(t.dtype.base_dtype, shape)
                        for t, shape in zip(init, invariants)]
        inside = from_flow_structure(structure, loop_vars_in, specs)
        c = _loop_cond(cond(*inside), scope)
        result = _body_result(body(*inside), structure)
        check_same_composites(list(inside), list(result))
        outs = [branch_value(x, loop_fn, "'body'") for x in as_flow_structure(result)]
    _check_body_results(init, outs, invariants)
    loop_fn.inputs, loop_fn.outputs = loop_vars_in, outs
    loop_fn.aux_outputs[COND_ENTRY] = [c]
    return result


def _loop_cond(c, scope):
    """The condition's result, checked to be a boolean scalar, as ``LoopCond``."""
    c = convert_to_tensor(c)
    if c.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"Input 'input' of 'LoopCond' Op has type "
                        f"{c.dtype.base_dtype.name} that does not match expected "
                        "type of bool.")
    if c.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {c.shape.ndims} for "
                         f"'{scope}LoopCond' (op: 'LoopCond') with input shapes: "
                         f"{c.shape.as_list()}.")
    return array_ops.identity(c, name="LoopCond")


def _body_result(result, structure):
    """The body's ``result`` in the structure of the loop variables (TF1's unpacking of a
    single value), or the error that it is not."""
    if not is_sequence(result) or (len(structure) == 1 and not
                                   isinstance(result, (list, tuple))):
        result = [result]
    if len(structure) == 1 and isinstance(result, tuple) and \
            not isinstance(structure, tuple) and len(result) == 1:
        result = list(result)
    try:
        assert_same_structure(list(structure), list(result))
    except ValueError as e:
        raise ValueError(str(e)) from None
    return result


def _create_loop(graph, loop_fn, init, maximum_iterations, back_prop):
    """The ``WhileLoop`` op running ``loop_fn`` from ``init``; returns its ``Exit``s."""
    has_max = maximum_iterations is not None
    spec = WhileSpec(loop_fn, len(loop_fn.captures), has_max, back_prop)
    inputs = init + ([maximum_iterations] if has_max else []) + list(loop_fn.captures)
    with graph.control_dependencies(loop_fn.external_controls):
        op = while_op.create(inputs, {"spec": spec}, name="Loop")
    return [array_ops.identity(t, name="Exit") for t in op.outputs[:-1]]


def _invariants(structure, init, shape_invariants):
    """Each leaf's composite spec (None for a tensor or TensorArray) and each tensor's
    invariant shape; a composite's come from its spec's components (TF1's
    ``_shape_invariant_to_type_spec``: a SparseTensor's ``indices`` and ``values`` may
    change length)."""
    leaves = flatten(structure)
    if shape_invariants is None:
        given = [None] * len(leaves)
    else:
        given = flatten(shape_invariants if is_sequence(structure) and
                        is_sequence(shape_invariants) else [shape_invariants])
    if len(given) != len(leaves):
        raise ValueError("The two structures don't have the same nested structure: "
                         f"loop_vars has {len(leaves)} elements and shape_invariants "
                         f"{len(given)}")
    tensors = iter(init)
    specs, shapes = [], []
    for leaf, inv in zip(leaves, given):
        spec = composite_spec(leaf)
        if spec is None:
            specs.append(None)
            shapes.append(_tensor_invariant(next(tensors), inv))
            continue
        spec = _composite_invariant(leaf, spec, inv)
        specs.append(spec)
        shapes += [_tensor_invariant(next(tensors), c.shape)
                   for c in flatten(spec._component_specs)]
    return specs, shapes


def _tensor_invariant(t, s):
    """The invariant shape ``s`` of loop variable ``t``, checked against its shape."""
    if s is None:
        return t.shape
    if isinstance(s, TypeSpec):
        # TF's _shape_invariant_to_type_spec: a spec must describe the tensor (a
        # TensorSpec of its dtype), then its shape is the invariant
        if not (isinstance(s, TensorSpec) and s.is_compatible_with(t)):
            raise TypeError(f"TypeSpec {s!r} is not compatible with {t!r}")
        s = s.shape
    s = as_shape(s)
    if t.dtype.base_dtype is dtypes.variant:
        return t.shape
    if not s.is_compatible_with(t.shape):
        raise ValueError(f"The shape invariant specified for {t.name} is not compatible "
                         f"with the initial shape of the loop variable. It enters the "
                         f"loop with shape {t.shape}, but the specified shape invariant "
                         f"is {s}.")
    return s


def _composite_invariant(value, spec, invariant):
    """The spec a composite loop variable keeps across iterations (TF's rules): its own
    spec by default, a given ``TypeSpec``, or one built from a ``TensorShape`` (for a
    SparseTensor, the shape of its ``dense_shape``; for IndexedSlices, of its values)."""
    if invariant is None:
        return spec
    if isinstance(invariant, TypeSpec):
        if not invariant.is_compatible_with(value):
            raise TypeError(f"TypeSpec {invariant!r} is not compatible with {value!r}")
        return invariant
    shape = as_shape(invariant)
    if isinstance(spec, SparseTensorSpec):
        if shape.ndims is not None and shape.ndims != 1:
            raise ValueError(f"Expected a shape with 1 dimension. Obtained: {shape} "
                             f"which has {shape.ndims} dimensions.")
        rank = None if shape.ndims is None else shape.as_tuple()[0]
        return SparseTensorSpec(TensorShape(None if rank is None else [None] * rank),
                                spec.dtype)
    if isinstance(spec, IndexedSlicesSpec):
        serial = spec._serialize()
        return IndexedSlicesSpec(TensorShape([None]).concatenate(shape[1:]), *serial[1:4],
                                 shape[:1])
    return type(spec)(shape, *spec._serialize()[1:])


def _check_body_results(init, outs, invariants):
    for t, out, shape in zip(init, outs, invariants):
        if out.dtype.base_dtype != t.dtype.base_dtype:
            raise ValueError(f"Input tensor '{t.name}' enters the loop with dtype "
                             f"{t.dtype.base_dtype.name}, but the body returns dtype "
                             f"{out.dtype.base_dtype.name} for it.")
        if t.dtype.base_dtype is dtypes.variant:
            continue
        if not _is_within(out.shape, shape):
            raise ValueError(
                f"Input tensor '{t.name}' enters the loop with shape {_tf_shape(t.shape)}, but "
                f"has shape {_tf_shape(out.shape)} after one iteration. To allow the shape to "
                "vary across iterations, use the `shape_invariants` argument of "
                "tf.while_loop to specify a less-specific shape.")


def _is_within(shape, invariant) -> bool:
    """Whether ``shape`` is at least as specific as ``invariant`` (TF's check)."""
    inv = invariant.as_tuple()
    if inv is None:
        return True
    got = shape.as_tuple()
    if got is None or len(got) != len(inv):
        return False
    return all(i is None or g == i for g, i in zip(got, inv))


def _tf_shape(shape) -> str:
    dims = shape.as_tuple()
    if dims is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") + ")"


# ── the gradient ─────────────────────────────────────────────────────────────────────
class WhileGradSpec:
    """A ``WhileLoopGrad`` op's function, ``fn``: fed the loop variables' gradients
    (``fn.inputs``), it returns their values one iteration earlier (``var_grads``) and the
    gradients of the captures in that iteration (``cap_grads``)."""

    def __init__(self, forward, fn, given, var_grads, cap_grads):
        self.forward = forward            # the forward WhileSpec
        self.fn = fn
        self.given = given                # which loop variables' gradients the op receives
        self.var_grads = var_grads
        self.cap_grads = cap_grads
        fn.outputs = var_grads + cap_grads


def _while_grad_shape(*shapes, spec):
    return [t.shape for t in spec.var_grads] + [t.shape for t in spec.cap_grads]


def _while_grad_dtype(*dts, spec):
    return [t.dtype.base_dtype for t in spec.var_grads] + \
        [t.dtype.base_dtype for t in spec.cap_grads]


def _accumulate(total, g):
    if g is None:
        return total
    if total is None:
        return g
    if isinstance(g, list):
        return add_flow_lists(total, g)
    return np.add(total, g)


def _while_grad_kernel(run, *inputs, spec):
    trace = inputs[-1]
    n_given = sum(spec.given)
    given = iter(inputs[:n_given])
    dvals = [next(given) if g else None for g in spec.given]
    fn = spec.fn
    captures = list(inputs[n_given:n_given + len(fn.captures)])
    like = inputs[n_given + len(fn.captures):-1]
    forward = spec.forward.fn
    rec_index = [forward.recorded_index(t) for t in fn.recorded_from_forward]
    body_grad = run.state.function(fn)
    nv = len(spec.var_grads)
    totals = [None] * len(spec.cap_grads)
    for i in range(trace.branch - 1, -1, -1):
        # a forward loop whose body records nothing keeps no per-iteration values
        rec = trace.values[i] if rec_index else ()
        out = body_grad(dvals + captures + [rec[k] for k in rec_index])
        dvals = list(out[:nv])
        for k, g in enumerate(out[nv:]):
            totals[k] = _accumulate(totals[k], g)
    totals = [np.zeros_like(x) if t is None else t for t, x in zip(totals, like)]
    out = dvals + totals
    return out[0] if len(out) == 1 else tuple(out)


while_grad_op = OpDef("WhileLoopGrad", shape=_while_grad_shape, dtype=_while_grad_dtype,
                      kernel=_while_grad_kernel, stateful=True, attrs={"spec": None},
                      grad=NO_GRADIENT,
                      num_outputs=lambda attrs, n: len(attrs["spec"].var_grads)
                      + len(attrs["spec"].cap_grads))


def _scalar_shape():
    return TensorShape([])


def _variant():
    return dtypes.variant


def _no_grad_kernel():
    return None  # a TensorArray gradient that is zero everywhere


none_flow_op = OpDef("TensorArrayNoGrad", shape=_scalar_shape, dtype=_variant,
                     kernel=_no_grad_kernel, grad=None)


def none_flow():
    """The gradient of a TensorArray flow that is zero everywhere."""
    return none_flow_op.bind()

