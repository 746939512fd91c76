"""Grouping and ordering: ``no_op``, ``group``, ``tuple``, ``with_dependencies``."""

from __future__ import annotations

from scopeflow.framework.graph import (
    Operation,
    Tensor,
    _graph_of,
    control_dependencies,
    convert_to_tensor,
    device,
    name_scope,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.ops import array_ops

__all__ = ["no_op", "group", "tuple", "with_dependencies"]

_builtin_tuple = tuple

# ── NoOp ─────────────────────────────────────────────────────────────────────────────
def _no_outputs(**attrs):
    return []


no_op_op = OpDef("NoOp", shape=_no_outputs, dtype=_no_outputs, grad=NO_GRADIENT)


def no_op(name=None) -> Operation:
    """An op that does nothing; useful as a target that runs its control inputs."""
    return no_op_op.bind(name=name)


def _as_op(x):
    if isinstance(x, Operation):
        return x
    if isinstance(x, Tensor):
        return x.op
    if hasattr(x, "_as_control_op"):
        return x._as_control_op()
    raise TypeError(f"'{x!r}' is not an Operation or Tensor")


def _group_on_device(dev, deps, name=None):
    with control_dependencies(deps):
        if not dev:
            return no_op(name=name)
        with device(dev):
            return no_op(name=name)


def group(*inputs, name=None) -> Operation:
    """One op that runs all of ``inputs`` (TF names it ``group_deps`` by default).

    As TF: inputs on several devices get one ``NoOp`` per device (in device order, named
    ``<name>/NoOp``, ``<name>/NoOp_1``...), and the returned op depends on those.
    """
    ops = [_as_op(x) for x in inputs if x is not None]
    graph = _graph_of(ops)
    with graph.as_default(), name_scope(name, "group_deps", ops) as scope:
        if not ops:
            return no_op(name=scope)
        on_device = {}
        for op in ops:
            on_device.setdefault(op.device, []).append(op)
        if len(on_device) == 1:
            (device, deps), = on_device.items()
            return _group_on_device(device, deps, name=scope)
        per_device = [_group_on_device(d, on_device[d]) for d in sorted(on_device)]
        with control_dependencies(per_device):
            return no_op(name=scope)


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor``, but only after ``dependencies`` have run (an ``IndexedSlices``
    keeps its indices and dense shape; its values are gated, as TF)."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        with control_dependencies(dependencies):
            if isinstance(output_tensor, Operation):
                with control_dependencies([output_tensor]):
                    return no_op(name=scope)
            if isinstance(output_tensor, IndexedSlices):
                return IndexedSlices(array_ops.identity(output_tensor.values, name=scope),
                                     output_tensor.indices, output_tensor.dense_shape)
            return array_ops.identity(output_tensor, name=scope)


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """The tensors, each gated on all of them having been computed (``tf.tuple``)."""
    with name_scope(name, "tuple", tensors) as scope:
        tensors = [t if t is None or isinstance(t, (Operation, Tensor, IndexedSlices))
                   else convert_to_tensor(t) for t in tensors]
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if not isinstance(c, (Operation, Tensor)):
                raise TypeError("'control_inputs' must only contain Operation or Tensor. "
                                f"Received: {type(c)}")
            gating.append(c.op if isinstance(c, Tensor) else c)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        # In creation order, each once: the group's control inputs are TF's.
        gate = group(*sorted(set(gating), key=lambda op: op._id))
        out = []
        for t in tensors:
            if isinstance(t, Operation):
                with control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None if t is None else with_dependencies([gate], t))
        del scope
        return out
