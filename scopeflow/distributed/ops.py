"""The collective op types: ``MpiAllreduce``, ``MpiAllgather``, ``MpiBroadcast``.

They are scopeflow's own op types (``graph_def.SCOPEFLOW_ONLY_OPS``), named after
Horovod's ``HorovodAllreduce``/``HorovodAllgather``/``HorovodBroadcast``. Their kernels are
``stateful``: a plan never folds, merges or skips one, so every rank runs the same
collectives in the same (creation) order, which is what MPI needs to match them up.
"""

from __future__ import annotations

import numpy as np

from scopeflow.distributed import _world
from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX, NUMERIC
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import shape as _shape
from scopeflow.ops.array.slicing_ops import concat, slice
from scopeflow.ops.math.reduction_ops import reduce_sum, zeros_like

__all__ = ["allreduce", "allgather", "broadcast", "grouped_allreduce"]

_BROADCASTABLE = NUMERIC + (dtypes.bool,)


def _site(ctx, kind):
    return f"{kind} '{ctx.op.name}'"


# ── MpiAllreduce (fused: N tensors in, N out) ────────────────────────────────────────
def _allreduce_shape(*shapes, average, fusion_threshold):
    return list(shapes)


def _allreduce_dtype(*dts, average, fusion_threshold):
    allowed = FLOAT_OR_COMPLEX if average else NUMERIC  # a mean of integers is not one
    for d in dts:
        if d not in allowed:
            what = "averaged (average=True)" if average else "summed"
            raise TypeError(f"MpiAllreduce: a {d.name} tensor cannot be {what}; accepted: "
                            f"{', '.join(a.name for a in allowed)}")
    return list(dts)


def _allreduce_kernel(ctx, *xs, average, fusion_threshold):
    world = _world.get_world(_site(ctx, "MpiAllreduce"))
    out = world.allreduce(xs, average, fusion_threshold, _site(ctx, "MpiAllreduce"))
    return out[0] if len(out) == 1 else tuple(out)  # one output: the array itself


allreduce_op = OpDef("MpiAllreduce", shape=_allreduce_shape, dtype=_allreduce_dtype,
                     kernel=_allreduce_kernel, stateful=True,
                     attrs={"average": True, "fusion_threshold": _world.FUSION_THRESHOLD},
                     num_outputs=lambda attrs, n: n)


@allreduce_op.def_grad
def _allreduce_grad(op, *dys):
    # Horovod's: the gradient of a sum (mean) over workers is the sum (mean) of the
    # gradients, one fused collective for all of them.
    dys = [zeros_like(x) if dy is None else dy for dy, x in zip(dys, op.inputs)]
    return grouped_allreduce(dys, average=op.get_attr("average"),
                             fusion_threshold=op.get_attr("fusion_threshold"))


def grouped_allreduce(tensors, average=True, fusion_threshold=_world.FUSION_THRESHOLD,
                      name=None) -> list:
    """Sums (or averages) each tensor over the workers with one fused op (Horovod's
    tensor fusion): returns the reduced tensors, in order.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> a, b = sfd.grouped_allreduce([tf.constant([1., 2.]), tf.constant(3.)])
    >>> [v.tolist() for v in tf.Session().run([a, b])] if sfd.size() == 1 else None
    [[1.0, 2.0], 3.0]
    """
    tensors = [convert_to_tensor(t) for t in tensors]
    if not tensors:
        return []
    if fusion_threshold < 0:
        raise ValueError(f"fusion_threshold must be >= 0 bytes, got {fusion_threshold}")
    out = allreduce_op.bind(*tensors, average=bool(average),
                            fusion_threshold=int(fusion_threshold), name=name or "MpiAllreduce")
    return list(out) if isinstance(out, tuple) else [out]


def allreduce(tensor, average=True, name=None):
    """The sum (``average=False``) or mean of ``tensor`` over all workers.

    An ``IndexedSlices`` (a sparse gradient) is gathered instead, as Horovod does: the
    workers' values and indices are concatenated (values divided by ``size()`` when
    averaging), which sums to the same dense tensor.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> tf.Session().run(sfd.allreduce(tf.constant([1., 2.]))).tolist()
    [1.0, 2.0]
    """
    if isinstance(tensor, IndexedSlices):
        with name_scope(name, "MpiAllreduce"):
            values = allgather(tensor.values)
            indices = allgather(tensor.indices)
            if average:
                n = _world.get_world().size
                values = values / np.asarray(n, values.dtype.as_numpy_dtype)
            return IndexedSlices(values, indices, dense_shape=tensor.dense_shape)
    return grouped_allreduce([tensor], average=average, name=name)[0]


# ── MpiAllgather ─────────────────────────────────────────────────────────────────────
def _allgather_shape(x):
    if x.ndims is None:
        return TensorShape(None)
    if x.ndims == 0:
        raise ValueError("MpiAllgather needs a tensor of rank >= 1 (it joins axis 0), got a "
                         "scalar")
    return TensorShape([None]).concatenate(x[1:])


def _allgather_dtype(x):
    if x not in _BROADCASTABLE:
        raise TypeError(f"MpiAllgather: {x.name} tensors cannot be gathered; accepted: "
                        f"{', '.join(d.name for d in _BROADCASTABLE)}")
    return x


def _allgather_kernel(ctx, x):
    world = _world.get_world(_site(ctx, "MpiAllgather"))
    return world.allgather(x, _site(ctx, "MpiAllgather"))


allgather_op = OpDef("MpiAllgather", shape=_allgather_shape, dtype=_allgather_dtype,
                     kernel=_allgather_kernel, stateful=True, input_names=("tensor",))


@allgather_op.def_grad
def _allgather_grad(op, dy):
    # Horovod's: every worker's output depends on this worker's rows, so the gradient is
    # the sum over workers of dy, cut to the rows this worker contributed.
    x = op.inputs[0]
    if x.shape.ndims is None:
        raise ValueError(f"the gradient of MpiAllgather '{op.name}' needs its input's rank")
    summed = allreduce(dy, average=False)
    rows = _shape(x, out_type=dtypes.int64)[:1]
    all_rows = allgather(rows)
    offset = reduce_sum(all_rows[:_world.get_world().rank], keepdims=True)
    rest = x.shape.ndims - 1
    begin = concat([offset, np.zeros(rest, np.int64)], 0)
    size = concat([rows, -np.ones(rest, np.int64)], 0)
    return [slice(summed, begin, size)]


def allgather(tensor, name=None) -> Tensor:
    """Every worker's ``tensor`` joined along axis 0, in rank order (first dims may
    differ between workers).

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> tf.Session().run(sfd.allgather(tf.constant([[1, 2]]))).tolist()
    [[1, 2]]
    """
    return allgather_op.bind(tensor, name=name or "MpiAllgather")


# ── MpiBroadcast ─────────────────────────────────────────────────────────────────────
def _broadcast_dtype(x, root_rank):
    if x not in _BROADCASTABLE:
        raise TypeError(f"MpiBroadcast: {x.name} tensors cannot be broadcast; accepted: "
                        f"{', '.join(d.name for d in _BROADCASTABLE)}")
    return x


def _broadcast_kernel(ctx, x, root_rank):
    world = _world.get_world(_site(ctx, "MpiBroadcast"))
    return world.broadcast(x, root_rank, _site(ctx, "MpiBroadcast"))


broadcast_op = OpDef("MpiBroadcast", shape=lambda x, root_rank: x, dtype=_broadcast_dtype,
                     kernel=_broadcast_kernel, stateful=True, attrs={"root_rank": 0},
                     input_names=("tensor",))


@broadcast_op.def_grad
def _broadcast_grad(op, dy):
    # Horovod's: only the root's input reaches the outputs, on every worker.
    summed = allreduce(dy, average=False)
    if _world.get_world().rank != op.get_attr("root_rank"):
        # NOTE: `* 0`, not zeros_like: zeros of a known shape would not read `summed`, so
        # this rank's plan would drop the allreduce the root waits for (Horovod does this).
        return [summed * np.asarray(0, summed.dtype.as_numpy_dtype)]
    return [summed]


def broadcast(tensor, root_rank, name=None) -> Tensor:
    """``tensor``'s value on worker ``root_rank``, on every worker.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> tf.Session().run(sfd.broadcast(tf.constant([3, 4]), 0)).tolist()
    [3, 4]
    """
    size = _world.get_world("broadcast").size
    if not 0 <= int(root_rank) < size:
        raise ValueError(f"root_rank must be in [0, {size}), got {root_rank}")
    return broadcast_op.bind(tensor, root_rank=int(root_rank), name=name or "MpiBroadcast")
