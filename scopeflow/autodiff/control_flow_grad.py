"""The gradients of ``tf.cond`` and ``tf.while_loop`` (TF1's ``control_flow_grad.py``).

Each rule differentiates the construct's traced functions with ``tf.gradients``' own walk
(``gradients_in_context``), building the gradient's functions (``FuncGraph``s of kind
``COND_GRAD`` / ``WHILE_GRAD``, whose ``forward`` is the function they differentiate) and the
op that runs them: an ``If`` reading the forward op's trace, or a ``WhileLoopGrad``. Because
they call the walk, these rules live in the autodiff layer, above the ops they differentiate
(``ops/control_flow/cond_ops.py``, ``while_ops.py``), and are registered when
``scopeflow.autodiff`` is imported, which any use of ``tf.gradients`` does.
"""

from __future__ import annotations

from scopeflow.autodiff import cond_regrad
from scopeflow.autodiff.gradients import densify, differentiable, gradients_in_context
from scopeflow.framework import dtypes
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow import cond_ops, while_ops
from scopeflow.ops.state.resource_variable_ops import zeros_like_variable

__all__: list[str] = []


# ── If ───────────────────────────────────────────────────────────────────────────────
def _zeros_like(t):
    """A zero gradient for ``t``; for a resource variable's handle, zeros of the variable."""
    if t.dtype.base_dtype is dtypes.resource:
        return zeros_like_variable(t)
    return array_ops.zeros_like(t)


@cond_ops.if_op.def_grad
def _if_grad(op, *dys):
    spec = op.get_attr("spec")
    if op.get_attr("reads_trace"):
        return cond_regrad.if_grad_of_grad(op, dys)
    dys = list(dys[:spec.n_out])
    captured = list(op.inputs[1:])
    graph = op.graph
    parent = graph._state().cf_context
    grads_per_branch = []
    grad_branches = []
    for branch in spec.branches:
        forward = branch.fn
        fn = FuncGraph(FunctionKind.COND_GRAD, parent=parent, forward=forward,
                       name=op.name + "_grad")
        with fn.entered(graph):
            ys, gys = [], []
            for out, dy in zip(forward.outputs, dys):
                if dy is not None and differentiable(out):
                    ys.append(out)
                    gys.append(dy)
            xs = [t for t in captured if t in forward.captures and differentiable(t)]
            grads = gradients_in_context(ys, xs, gys) if ys and xs else [None] * len(xs)
        grads_per_branch.append(dict(zip(xs, grads)))
        grad_branches.append(fn)
    need = [t for t in captured
            if any(g.get(t) is not None for g in grads_per_branch)]
    if not need:
        return [None] * len(op.inputs)
    for fn, grads in zip(grad_branches, grads_per_branch):
        with fn.entered(graph):
            outs = []
            for t in need:
                g = grads.get(t)
                if g is None:  # a TensorArray flow's zero gradient is an empty list
                    g = while_ops.none_flow() if t.dtype.base_dtype is dtypes.variant else \
                        _zeros_like(t)
                else:
                    g = densify(g)
                outs.append(cond_ops.branch_value(g, fn, "the gradient of a branch"))
        fn.outputs = outs
    outs = cond_ops.create_if(graph, op.inputs[0], grad_branches, len(need), forward=op)
    by_tensor = dict(zip(need, outs))
    return [None] + [by_tensor.get(t) for t in captured]


# ── WhileLoop ────────────────────────────────────────────────────────────────────────
@while_ops.while_op.def_grad
def _while_grad(op, *dys):
    spec = op.get_attr("spec")
    n = len(spec.loop_vars)
    n_in = len(op.inputs)
    if not spec.back_prop:
        return [None] * n_in
    captures = list(op.inputs[n + spec.has_max:])
    dys = list(dys[:n])
    graph = op.graph
    fn = FuncGraph(FunctionKind.WHILE_GRAD, parent=graph._state().cf_context,
                   forward=spec.fn, name=op.name + "_grad")
    var_index = [k for k in range(n) if differentiable(spec.loop_vars[k])]
    cap_list = [t for t in captures if differentiable(t)]
    with fn.entered(graph):
        fn.inputs = [while_ops.loop_var(spec.loop_vars[k].dtype.base_dtype,
                                        spec.loop_vars[k].shape) for k in var_index]
        ys = [spec.body_outs[k] for k in var_index]
        xs = [spec.loop_vars[k] for k in var_index] + cap_list
        grads = gradients_in_context(ys, xs, fn.inputs) if ys else [None] * len(xs)
        var_grads = []
        for k, g in zip(var_index, grads[:len(var_index)]):
            x = spec.loop_vars[k]
            if g is None:
                g = while_ops.none_flow() if x.dtype.base_dtype is dtypes.variant else \
                    _zeros_like(x)
            var_grads.append(cond_ops.branch_value(densify(g), fn,
                                                   "the gradient of the loop body"))
        cap_pairs = [(t, cond_ops.branch_value(densify(g), fn, "the gradient of the loop body"))
                     for t, g in zip(cap_list, grads[len(var_index):]) if g is not None]
    given = [dys[k] is not None for k in var_index]
    grad_spec = while_ops.WhileGradSpec(spec, fn, given, var_grads, [g for _, g in cap_pairs])
    inputs = [dys[k] for k in var_index if dys[k] is not None] + list(fn.captures) + \
        [t for t, _ in cap_pairs] + [op.outputs[-1]]
    gop = while_ops.while_grad_op.create(inputs, {"spec": grad_spec}, name="WhileLoopGrad")
    outs = gop.outputs
    result = [None] * n_in
    for j, k in enumerate(var_index):
        result[k] = outs[j]
    by_capture = {t: outs[len(var_index) + j] for j, (t, _) in enumerate(cap_pairs)}
    for j, t in enumerate(captures):
        result[n + spec.has_max + j] = by_capture.get(t)
    return result


@while_ops.while_grad_op.def_grad
def _while_grad_grad(op, *dys):
    raise TypeError("Second-order gradient for while loops not supported.")  # TF's refusal
