"""``tf.contrib.seq2seq.tile_batch`` (TF 1.15): repeats each batch entry ``multiplier``
times in place, as beam search needs its encoder outputs and states."""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.math import reduction_ops

__all__ = ["tile_batch"]


def _tile_batch(t, multiplier):
    """``[b, ...]`` -> ``[b * multiplier, ...]`` with rows ``b0, b0, ..., b1, b1, ...``."""
    t = convert_to_tensor(t, name="t")
    shape_t = array_ops.shape(t)
    if t.shape.ndims is None or t.shape.ndims < 1:
        raise ValueError("t must have statically known rank")
    tiling = [1] * (t.shape.ndims + 1)
    tiling[1] = multiplier
    batch = t.shape[0].value
    tiled = reduction_ops.tile(array_ops.expand_dims(t, 1), tiling)
    tiled = array_ops.reshape(
        tiled, array_ops.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    tiled.set_shape(TensorShape([None if batch is None else batch * multiplier])
                    .concatenate(t.shape[1:]))
    return tiled


def tile_batch(t, multiplier, name=None):
    """Tiles the batch dimension of ``t`` (a tensor or a nested structure of tensors)
    ``multiplier`` times, each entry's copies next to each other (``tile_batch([a, b],
    2) == [a, a, b, b]``)."""
    with name_scope(name or "tile_batch"):
        return map_structure(lambda t_: _tile_batch(t_, multiplier), t)
