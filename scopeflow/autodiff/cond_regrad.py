"""The gradient of a ``tf.cond``'s gradient (second and higher derivatives through a cond).

A cond's gradient ``If`` reads values its forward ``If`` recorded while running (the
branch's intermediates). Differentiating it again needs those values as functions of the
cond's inputs, so this rule builds each branch anew from the forward and gradient
functions' ops — recomputing the intermediates from the captured inputs — and
differentiates that with ``tf.gradients``' walk. The result is an ordinary ``If`` (it
reads no trace), so a third derivative takes the first-order rule again. TF1 gets the same
derivatives from its ``Switch``/``Merge`` graph, where intermediates are plain tensors.

Recomputing is exact only for ops that give the same value twice in one run, so branches
holding stateful ops (random draws, assignments) or nested control flow are refused with a
``LookupError`` naming the op.
"""

from __future__ import annotations

from scopeflow.autodiff.gradients import densify, differentiable, gradients_in_context
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import name_scope
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow import cond_ops

__all__ = ["if_grad_of_grad"]


def if_grad_of_grad(op, dys):
    """The gradient of ``op``, a cond's gradient ``If``, for its inputs (``None`` for the
    predicate and the forward op's trace)."""
    spec = op.get_attr("spec")
    forward = op.inputs[-1].op.get_attr("spec")
    dys = list(dys[:spec.n_out])
    captured = list(op.inputs[1:-1])
    graph = op.graph
    parent = graph._state().cf_context
    branches, grads_per_branch = [], []
    for grad_branch, forward_branch in zip(spec.branches, forward.branches):
        fn = FuncGraph(FunctionKind.COND_BRANCH, parent=parent, name=op.name + "_grad")
        with fn.entered(graph), name_scope("recompute"):
            outputs = _copy_ops([forward_branch.fn, grad_branch.fn], grad_branch.fn.outputs)
            pairs = [(y, dy) for y, dy in zip(outputs, dys)
                     if dy is not None and differentiable(y)]
            xs = [t for t in captured if differentiable(t)]
            grads = gradients_in_context([y for y, _ in pairs], xs, [dy for _, dy in pairs]) \
                if pairs and xs else [None] * len(xs)
        grads_per_branch.append(dict(zip(xs, grads)))
        branches.append(fn)
    need = [t for t in captured if any(g.get(t) is not None for g in grads_per_branch)]
    if not need:
        return [None] * len(op.inputs)
    for fn, grads in zip(branches, grads_per_branch):
        with fn.entered(graph):
            fn.outputs = [cond_ops.branch_value(
                array_ops.zeros_like(t) if grads.get(t) is None else densify(grads[t]), fn,
                "the gradient of a branch") for t in need]
    by_tensor = dict(zip(need, cond_ops.create_if(graph, op.inputs[0], branches, len(need))))
    return [None] + [by_tensor.get(t) for t in captured] + [None]


def _copy_ops(functions, outputs):
    """Copies the ops of ``functions`` (in creation order) into the current function, inputs
    made outside them kept as they are; returns the copies of ``outputs``."""
    ops = sorted({o for fn in functions for o in fn.ops}, key=lambda o: o._id)
    tensors, copies = {}, {}
    for o in ops:
        if o._op_def.stateful or "spec" in o._attrs:
            raise LookupError(
                f"No gradient defined for operation '{o.name}' (op type: {o.type}) inside the "
                "gradient of a tf.cond: scopeflow differentiates a cond's gradient again by "
                "recomputing its branch, which it cannot do for stateful ops or nested "
                "control flow")
        inputs = [tensors.get(t, t) for t in o._inputs]
        controls = [copies.get(c, c) for c in o._control_inputs]
        with o.graph.control_dependencies(controls):
            new = o._op_def.create(inputs, dict(o._attrs), name=o.name.rsplit("/", 1)[-1],
                                   graph=o.graph)
        copies[o] = new
        tensors.update(zip(o._outputs, new._outputs))
    return [tensors.get(t, t) for t in outputs]
