"""Reverse-mode autodiff that builds gradient ops into the graph (``tf.gradients``).

The walk visits the ops between ``xs`` and ``ys`` in reverse creation order (creation
order is topological), sums each output's incoming gradients, and calls the op's rule
``grad(op, *dys) -> [one gradient per input]`` inside ``gradients/<op>_grad``. The rules
never handle broadcasting: for ops declared ``shape=broadcasting(rule)`` this module
reduces each input's gradient back to the input's shape. Sparse gradients are ``IndexedSlices``.
"""

from __future__ import annotations

import collections
import enum

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX
from scopeflow.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from scopeflow.framework.opdef import _UNSET, NO_GRADIENT, REGISTRY
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.shape_ops import broadcast_gradient_args
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow import control_flow_ops, tensor_array_ops
from scopeflow.ops.math.reduction_ops import reduce_gradient_args
from scopeflow.ops.op_helpers import _shapes_fully_specified_and_equal

__all__ = ["gradients", "IndexedSlices", "IndexedSlicesValue", "AggregationMethod",
           "UnconnectedGradients", "RegisterGradient", "NotDifferentiable", "no_gradient",
           "custom_gradient", "explain_gradient", "hessians"]

_DIFFERENTIABLE = FLOAT_OR_COMPLEX


class UnconnectedGradients(enum.Enum):
    """What ``gradients`` returns for an ``x`` that ``ys`` do not depend on."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How several gradients of one tensor are summed (all give the same values here)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


# ── Gradient registry (TF's RegisterGradient, for overrides and custom gradients) ────
_GRADIENT_REGISTRY: dict[str, object] = {}


class RegisterGradient:
    """Decorator registering a gradient function under a name (for ``gradient_override_map``).

    >>> @RegisterGradient("ClipToOne")
    ... def _clip(op, dy):
    ...     return [dy]
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _GRADIENT_REGISTRY:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        _GRADIENT_REGISTRY[self._op_type] = fn
        return fn


def NotDifferentiable(op_type: str):  # noqa: N802 - TF's name
    """Declares an op type as not differentiable (its inputs get no gradient)."""
    REGISTRY[op_type].grad = None


no_gradient = NotDifferentiable


def _grad_fn(op: Operation):
    """The gradient rule for ``op``: an override, the OpDef's rule, or None."""
    override = op._grad_override
    if override is not None:
        try:
            return _GRADIENT_REGISTRY[override]
        except KeyError:
            raise LookupError(f"No gradient registered under {override!r} (used by "
                              f"gradient_override_map for op '{op.name}')") from None
    rule = op._op_def.grad
    if rule is _UNSET or rule is NO_GRADIENT:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type}). "
                          f"Created at {op.creation_site}.")
    return rule


# ── The walk ─────────────────────────────────────────────────────────────────────────
def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _as_x(x):
    """A variable differentiates through its ref output (what ``v/read`` reads)."""
    if isinstance(x, Tensor):
        return x
    ref = getattr(x, "_ref", None)
    if ref is not None:
        return ref()
    return convert_to_tensor(x)


def _between_ops(ys, xs, stop_ops):
    """Ops on a data path from some x to some y, in creation order."""
    forward = set()
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op in forward:
            continue
        forward.add(op)
        if op in stop_ops:
            continue
        for t in op._outputs:
            if _differentiable(t):  # as TF: integer edges carry no gradient, don't follow
                stack.extend(t._consumers)
    between = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in between or op not in forward:
            continue
        between.add(op)
        stack.extend(t.op for t in op._inputs)
    return sorted(between, key=lambda o: o._id)


def _backprop_order(ys, between):
    """The ops of ``between`` in TF's backprop order: a queue started at the ys' ops, to
    which an op is added once every op it feeds has been visited (so the gradient ops are
    created, and named, in TF's order)."""
    members = set(between)
    pending = dict.fromkeys(between, 0)
    for op in between:
        for t in op._inputs:
            if t._op in members:
                pending[t._op] += 1
    queue = collections.deque()
    for y in ys:
        op = y._op
        if op in members and pending[op] == 0 and op not in queue:
            queue.append(op)
    while queue:
        op = queue.popleft()
        yield op
        for t in op._inputs:
            source = t._op
            if source in members:
                pending[source] -= 1
                if pending[source] == 0:
                    queue.append(source)


def _aggregate(grads, method=None):
    """Sums the gradients flowing into one tensor (IndexedSlices stay sparse if all are)."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, IndexedSlices) for g in grads):
        return IndexedSlices(array_ops.concat([g.values for g in grads], 0),
                             array_ops.concat([g.indices for g in grads], 0),
                             grads[0].dense_shape)
    dense = [convert_to_tensor(g) for g in grads]
    if dense[0].dtype.base_dtype is dtypes.variant:  # TensorArray flows: lists of grads
        return tensor_array_ops.add_flow_grads(dense)
    return math_ops.add_n(dense)


def _static_reduction_axes(grad, x, others):
    """The axes of ``grad`` to sum to undo broadcasting ``x``, or None if only known at run time.

    ``others`` are the op's other inputs: an unknown dim of ``x`` needs no reduction when no
    other input is wider there, so the common ``[?, n] + [n]`` needs no run-time shapes.
    """
    gd, xd = grad.shape.as_tuple(), x.shape.as_tuple()
    if gd is None or xd is None or any(o.shape.ndims is None for o in others):
        return None
    n, lead = len(gd), len(gd) - len(xd)
    if lead < 0:
        return None
    axes = list(range(lead))
    for i in range(lead, n):
        x_dim, g_dim = xd[i - lead], gd[i]
        other_dims = [o.shape.as_tuple()[i - n + o.shape.ndims] for o in others
                      if i - n + o.shape.ndims >= 0]
        others_narrow = all(d == 1 for d in other_dims)
        if x_dim == 1:
            if g_dim is not None:
                if g_dim != 1:
                    axes.append(i)
            elif not others_narrow:
                return None
        elif x_dim is None and not others_narrow:
            return None
    return axes


def _passes_sparse(grad, x: Tensor, op: Operation) -> bool:
    """Whether a sparse gradient reaches a broadcasting op's input as it is: when the
    input has the op's (fully known) output shape. Otherwise it is summed to the input's
    shape, densely, as TF's rules do (``_SubGrad`` of a scalar and a gathered matrix)."""
    return (isinstance(grad, IndexedSlices) and x.shape.is_fully_defined()
            and x.shape.as_tuple() == op._outputs[0].shape.as_tuple())


def _sum_to_shape_of(grad, x: Tensor, op: Operation):
    """Undoes broadcasting: sums ``grad`` over the axes along which ``x`` was broadcast."""
    axes = _static_reduction_axes(grad, x, [t for t in op._inputs if t is not x])
    if axes is not None:
        if not axes:
            return grad
        summed = math_ops.reduce_sum(grad, axes)
        if len(axes) == grad.shape.ndims - x.shape.ndims:
            return summed  # only leading axes were summed: the shape is already x's
        shape = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
        return array_ops.reshape(summed, shape)
    rx, _ = broadcast_gradient_args(array_ops.shape(x), array_ops.shape(grad))
    return array_ops.reshape(math_ops.reduce_sum(grad, rx), array_ops.shape(x))


# TF's rules that return the incoming gradient untouched when x, y and it have one fully
# known shape (Mul only for float32/int32, as TF), before any Shape op is made.
_SAME_SHAPE_SHORTCUT = {"Add": None, "AddV2": None, "Sub": None, "MulNoNan": None,
                        "SquaredDifference": None,
                        "Mul": (dtypes.float32, dtypes.int32)}


def _unbroadcast(op, in_grads):
    """Each input's gradient summed back to the input's shape. Two-input ops follow TF's
    ``_ReduceGradientArgs`` (``reduction_ops.reduce_gradient_args``: ``Shape`` of both
    inputs, the axes found statically where the static shapes tell, else by
    ``BroadcastGradientArgs``, and a keepdims ``Sum`` reshaped to the input's ``Shape``
    only for an input that was broadcast)."""
    if len(op._inputs) != 2:
        return [g if g is None or _passes_sparse(g, t, op) else _sum_to_shape_of(g, t, op)
                for t, g in zip(op._inputs, in_grads)]
    if all(g is None for g in in_grads):
        return in_grads
    x, y = op._inputs
    shortcut = _SAME_SHAPE_SHORTCUT.get(op.type, False)
    grad = next(g for g in in_grads if g is not None)
    if (shortcut is not False and all(isinstance(g, Tensor) for g in in_grads if g is not None)
            and _shapes_fully_specified_and_equal(x, y, grad)
            and (shortcut is None or grad.dtype.base_dtype in shortcut)):
        return in_grads
    return list(reduce_gradient_args(x, y, *in_grads))


def _default_grad_y(y, i):
    """TF's default ``grad_ys``: ones shaped like y (``gradients/Shape``, ``grad_ys_0``)."""
    shape = array_ops.shape(y)
    with name_scope(f"grad_ys_{i}") as scope:
        ones = constant(1, dtype=y.dtype.base_dtype, name="Const")
        return array_ops.fill(shape, ones, name=scope)


def _seed_grads(ys, grad_ys):
    """tensor -> its gradients so far, started with each y's ``grad_ys`` (ones by default)."""
    grads: dict[Tensor, list] = {}
    for i, (y, gy) in enumerate(zip(ys, grad_ys)):
        if gy is None:
            if y.dtype.base_dtype.is_complex:  # an integer y seeds ones, and gets None back
                raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys "
                                f"(y.dtype = {y.dtype.base_dtype.name})")
            gy = _default_grad_y(y, i)
        else:
            gy = convert_to_tensor(gy, dtype=y.dtype.base_dtype) \
                if not isinstance(gy, IndexedSlices) else gy
        grads.setdefault(y, []).append(gy)
    return grads


def _backprop_through(op, rule, out_grads, grads, gate_gradients=False):
    """Apply ``op``'s gradient ``rule`` to its outputs' summed gradients and add what it
    gives each differentiable input to ``grads``, summed back to the input's shape where the
    op broadcasts. ``gate_gradients`` (the optimizers' ``GATE_OP``) passes two or more input
    gradients through ``tf.tuple`` so none is used before all are computed, as TF."""
    out_grads = [g if g is not None or not _differentiable(t)
                 or t.dtype.base_dtype is dtypes.variant
                 else array_ops.zeros_like(t, optimize=False)  # TF's ZerosLikeOutsideLoop
                 for g, t in zip(out_grads, op._outputs)]
    with name_scope(op.name + "_grad") as op_grad_scope:
        in_grads = rule(op, *out_grads)
    in_grads = _as_list(in_grads) if in_grads is not None else [None] * len(op._inputs)
    if len(in_grads) != len(op._inputs):
        raise ValueError(f"Num gradients {len(in_grads)} generated for op "
                         f"{op.node_def.name} do not match num inputs "
                         f"{len(op._inputs)}")
    in_grads = [g if g is not None and _differentiable(t) else None
                for t, g in zip(op._inputs, in_grads)]
    if op._op_def.broadcasting and not op._op_def.grad_unbroadcasts:
        with name_scope(op_grad_scope):
            in_grads = _unbroadcast(op, in_grads)
    if gate_gradients and sum(g is not None for g in in_grads) > 1:
        with name_scope(op_grad_scope):
            in_grads = control_flow_ops.tuple(in_grads)
    for t, g in zip(op._inputs, in_grads):
        if g is not None:
            grads.setdefault(t, []).append(g)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE, _within=False):
    """Symbolic ``d(sum(ys))/d(x)`` for each x in ``xs``, as new ops under ``gradients/``.

    Returns one entry per x: a Tensor, an ``IndexedSlices`` (through gather), or ``None``
    when x does not reach ys through differentiable ops (``"zero"`` gives zeros instead).

    >>> x = tf.constant(3.0); tf.gradients(x * x, x)[0].op.type
    'AddN'
    """
    ys = [convert_to_tensor(y) if not isinstance(y, Tensor) else y for y in _as_list(ys)]
    xs = [_as_x(x) for x in _as_list(xs)]
    unconnected_gradients = UnconnectedGradients(getattr(unconnected_gradients, "value",
                                                         unconnected_gradients))
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stop_ops = {_as_x(t).op for t in _as_list(stop_gradients or [])}
    graph = ys[0].graph if ys else get_default_graph()
    with graph.as_default(), name_scope(name, "gradients", ys + xs) as grad_scope:
        grads = _seed_grads(ys, grad_ys)
        x_set = set(xs)
        between = _between_ops(ys, xs, stop_ops)
        reached = set(between)
        if _within is not False:  # a branch's or body's gradient: only its own ops
            between = [op for op in between if op._cf_context is _within]
        for op in _backprop_order(ys, between):
            out_grads = []
            for t in op._outputs:
                g = _aggregate(grads.pop(t, []), aggregation_method)
                if t in x_set:
                    grads[t] = [g]  # summed once: the result below reuses this sum
                out_grads.append(g)
            if (op in stop_ops or all(g is None for g in out_grads)
                    or not any(t._op in reached for t in op._inputs)):
                continue  # TF's _StopOps: no gradient goes on from here, no rule is needed
            rule = _grad_fn(op)
            if rule is not None:
                _backprop_through(op, rule, out_grads, grads, gate_gradients)
        result = []
        for x in xs:
            g = _aggregate(grads.get(x, []), aggregation_method)
            if g is None and unconnected_gradients is UnconnectedGradients.ZERO:
                with name_scope(None):
                    g = _zeros_like(x)
            result.append(g)
        del grad_scope
    return result


def gradients_in_context(ys, xs, grad_ys):
    """The gradients of a cond branch's or loop body's results ``ys`` with respect to
    outside values ``xs`` it uses, built in the current (gradient) context: only the
    branch's own ops are differentiated (``xs`` are where the walk stops)."""
    within = ys[0]._op._cf_context
    return gradients(ys, xs, grad_ys=grad_ys, _within=within)


def densify(g):
    """A gradient as one dense tensor (an ``IndexedSlices`` is scattered into zeros)."""
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def differentiable(t: Tensor) -> bool:
    """Whether gradients flow along ``t`` (floating, complex, or a TensorArray flow)."""
    return _differentiable(t)


def _differentiable(t: Tensor) -> bool:
    return t.dtype.base_dtype in _DIFFERENTIABLE or t.dtype.base_dtype in (
        dtypes.resource, dtypes.variant)


def _zeros_like(t):
    return array_ops.zeros_like(t)


def hessians(ys, xs, name="hessians", **kwargs):
    """Second derivatives: for each x, d/dx of the gradient (x flattened, as TF)."""
    xs = _as_list(xs)
    out = []
    with name_scope(name):
        for x, g in zip(xs, gradients(ys, xs, **kwargs)):
            g = array_ops.reshape(convert_to_tensor(g), [-1])
            n = g.shape.as_list()[0]
            rows = [gradients(g[i], x)[0] for i in range(n)]
            out.append(array_ops.reshape(array_ops.stack(rows), x.shape.as_list() * 2))
    return out


# ── custom_gradient ──────────────────────────────────────────────────────────────────
_custom_gradient_count = [0]


def custom_gradient(f):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(dy)`` gives the dx's.

    In the graph, ``y`` passes through an ``IdentityN`` op whose gradient is overridden
    with ``grad_fn`` (as TF does in graph mode).
    """
    def decorated(*args):
        args = [convert_to_tensor(a) for a in args]
        result, grad_fn = f(*args)
        flat = _as_list(result)
        n = len(flat)
        _custom_gradient_count[0] += 1
        name = f"CustomGradient-{_custom_gradient_count[0]}"

        @RegisterGradient(name)
        def _internal_grad(op, *result_grads):
            input_grads = _as_list(grad_fn(*result_grads[:n]))
            if len(input_grads) != len(args):
                raise ValueError(f"custom_gradient function returned {len(input_grads)} "
                                 f"gradients but {len(args)} inputs were given")
            return [None] * n + input_grads

        with get_default_graph().gradient_override_map({"IdentityN": name}):
            outs = array_ops.identity_n(flat + args)
        outs = list(outs[:n])
        return outs if isinstance(result, (list, tuple)) else outs[0]
    decorated.__name__ = getattr(f, "__name__", "custom_gradient")
    decorated.__doc__ = f.__doc__
    return decorated


# ── Diagnostics (beyond TF1): why is a gradient None? ────────────────────────────────
def explain_gradient(ys, x) -> str:
    """Explains, in words, whether and where the gradient path from ``ys`` to ``x`` breaks.

    Reports the first blocking op on each path: an op without a gradient, an integer
    edge (a cast to int), or a ``stop_gradient``. Returns "connected" when a gradient
    flows.
    """
    ys = [y if isinstance(y, Tensor) else convert_to_tensor(y) for y in _as_list(ys)]
    x = _as_x(x)
    # All ops from which x is reachable backwards from ys, ignoring differentiability.
    upstream = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in upstream:
            continue
        upstream.add(op)
        stack.extend(t.op for t in op._inputs)
    if x.op not in upstream:
        return (f"{x.name} is not an input of {', '.join(y.name for y in ys)} at all: no path "
                "exists in the graph.")
    reasons = []
    for op in sorted(upstream, key=lambda o: o._id):
        for t in op._inputs:
            if not _reaches(x, t):
                continue
            if not _differentiable(t):
                reasons.append(f"'{op.name}' ({op.type}) takes {t.name} of dtype "
                               f"{t.dtype.base_dtype.name}, which carries no gradient "
                               f"(created at {op.creation_site})")
            elif op._op_def.grad is None and op._grad_override is None:
                reasons.append(f"'{op.name}' ({op.type}) has no gradient"
                               + (" (tf.stop_gradient)" if op.type == "StopGradient" else "")
                               + f" (created at {op.creation_site})")
    if not reasons:
        return "connected"
    return "The gradient path breaks at:\n" + "\n".join(f"  {r}" for r in reasons)


def _reaches(x: Tensor, t: Tensor) -> bool:
    """Whether ``t`` depends on ``x`` through data edges."""
    seen = set()
    stack = [t]
    while stack:
        cur = stack.pop()
        if cur is x:
            return True
        if cur.op in seen:
            continue
        seen.add(cur.op)
        stack.extend(cur.op._inputs)
    return False
