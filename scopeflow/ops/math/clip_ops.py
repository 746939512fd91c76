"""Gradient clipping: ``clip_by_norm``, ``global_norm``, ``clip_by_global_norm`` (TF's math)."""

from __future__ import annotations

from collections.abc import Sequence

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.ops import array_ops, constant_op, math_ops

__all__ = ["clip_by_norm", "global_norm", "clip_by_global_norm", "clip_by_average_norm"]


def _values(t, name):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescales when the norm is larger.

    >>> import scopeflow as tf
    >>> [round(float(x), 3) for x in tf.Session().run(clip_by_norm([3.0, 4.0], 1.0))]
    [0.6, 0.8]
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t, "t")
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Two-tap where: no NaN gradient at a zero norm.
        l2sum_safe = math_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = math_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm),
                                     name=scope)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


def _check_list(t_list):
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``, skipping None entries."""
    t_list = _check_list(t_list)
    with name_scope(name, "global_norm", [t for t in t_list if t is not None]) as scope:
        squares = []
        for i, t in enumerate(t_list):
            if t is not None:
                v = _values(t, f"t_{i}")
                squares.append(math_ops.reduce_sum(v * v))
        total = math_ops.reduce_sum(array_ops.stack(squares))
        del scope
        return math_ops.sqrt(total, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped list, global_norm)``; an inf/NaN norm makes every entry NaN (TF).
    """
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm",
                    [t for t in t_list if t is not None] + [clip_norm]) as scope:
        one = constant_op.constant(1.0, dtype=use_norm.dtype.base_dtype)
        scale = clip_norm * math_ops.minimum(1.0 / use_norm, one / clip_norm)
        scale = scale + (use_norm - use_norm)
        out = []
        for i, t in enumerate(t_list):
            if t is None:
                out.append(None)
                continue
            v = _values(t, f"t_{i}")
            c = array_ops.identity(v * math_ops.cast(scale, v.dtype.base_dtype),
                                   name=f"{scope}_{i}")
            out.append(IndexedSlices(c, t.indices, t.dense_shape)
                       if isinstance(t, IndexedSlices) else c)
        return out, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """TF1's deprecated ``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``, built as
    TF builds it (``rsqrt`` of the sum of squares times the element count)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(
            math_ops.reduce_sum(t * t, math_ops.range(array_ops.rank(t))))
        return array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element,
                                             constant_op.constant(1.0) / clip_norm),
            name=scope)
