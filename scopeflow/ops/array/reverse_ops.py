"""Reversal ops: ReverseV2 (``tf.reverse``) and ReverseSequence (``tf.reverse_sequence``).

Each is its own gradient's op: reversing on the same axes, or the same rows up to the same
lengths, undoes it. Shape rules and error messages follow TF's (``array_ops.cc`` and the
kernels ``reverse_op.cc``, ``reverse_sequence_op.cc``), typos included.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError, UnimplementedError
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.op_helpers import _dense, _deprecated_lookup, _index_arg, _static_ints

__all__ = ["reverse", "reverse_v2", "reverse_sequence"]

_MAX_REVERSE_RANK = 8  # TF's reverse kernels stop at rank 8


# ── ReverseV2 ────────────────────────────────────────────────────────────────────────
def _reverse_shape(tensor, axis):
    axis_shape = axis.shape
    if axis_shape.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {axis_shape.ndims}")
    shape = tensor.shape
    rank = shape.ndims
    if rank is not None and rank > _MAX_REVERSE_RANK:
        raise ValueError("reverse does not work on tensors with more than 8 dimensions")
    axes = _static_ints(axis)
    if axes is not None and rank is not None:
        seen = [False] * rank
        for i, a in enumerate(axes):
            canonical = a + rank if a < 0 else a
            if not 0 <= canonical < rank:
                raise ValueError(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
            if seen[canonical]:
                raise ValueError(f"axis {canonical} specified more than once.")
            seen[canonical] = True
    return shape


def _reverse_dtype(tensor, axis):
    check_dtype(axis, INDEX, "axis")
    return tensor


def _reverse_kernel(tensor, axis):
    if axis.ndim != 1:
        raise InvalidArgumentError(None, None,
                                   f"'dims' must be 1-dimension, not {axis.ndim}")
    rank = tensor.ndim
    if rank > _MAX_REVERSE_RANK:
        raise UnimplementedError(None, None,
                                 "reverse is not implemented for tensors of rank > 8.")
    seen = [False] * rank
    for i, a in enumerate(axis.tolist()):
        canonical = a + rank if a < 0 else a
        if not 0 <= canonical < rank:
            raise InvalidArgumentError(
                None, None, f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
        if seen[canonical]:
            raise InvalidArgumentError(None, None,
                                       f"axis {canonical} specified more than once.")
        seen[canonical] = True
    flipped = tuple(d for d in range(rank) if seen[d])
    return np.flip(tensor, flipped).copy()  # a fresh array, not a negative-stride view


reverse_op = OpDef("ReverseV2", shape=from_tensors(_reverse_shape), dtype=_reverse_dtype,
                   kernel=_reverse_kernel, input_names=("tensor", "axis"))


@reverse_op.def_grad
def _reverse_grad(op, dy):
    return [reverse(_dense(dy), op.inputs[1]), None]


def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along each dimension in ``axis`` (negative axes count from the
    end); TF1's ``tf.reverse`` and ``tf.reverse_v2``.

    >>> reverse([[1, 2, 3]], [-1]).shape.as_list()
    [1, 3]
    """
    return reverse_op.bind(tensor, _index_arg(axis), name=name)


reverse_v2 = reverse


# ── ReverseSequence ──────────────────────────────────────────────────────────────────
def _reverse_sequence_shape(input, seq_lengths, *, seq_dim, batch_dim):
    if seq_lengths.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {seq_lengths.ndims}")
    dims = input.as_tuple()
    if dims is None:
        return TensorShape(None)
    rank = len(dims)
    if batch_dim >= rank:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    if batch_dim < 0:
        raise ValueError(f"batch_dim must be >=0, got {batch_dim}")
    batch = dims[batch_dim]
    n = seq_lengths.as_tuple()[0] if seq_lengths.ndims == 1 else None
    if batch is not None and n is not None and batch != n:
        raise ValueError(f"Dimensions must be equal, but are {batch} and {n}")
    out = list(dims)
    out[batch_dim] = batch if batch is not None else n
    return TensorShape(out)


def _reverse_sequence_dtype(input, seq_lengths, *, seq_dim, batch_dim):
    check_dtype(seq_lengths, INDEX, "seq_lengths")
    return input


def _reverse_sequence_kernel(input, seq_lengths, *, seq_dim, batch_dim):
    if seq_lengths.ndim != 1:
        raise InvalidArgumentError(None, None,
                                   f"seq_lengths must be 1-dim, not {seq_lengths.ndim}")
    if batch_dim < 0:
        raise InvalidArgumentError(None, None, f"Invalid batch_dim {batch_dim}")
    if seq_dim < 0:
        raise InvalidArgumentError(None, None, f"Invalid seq_dim {seq_dim}")
    if batch_dim == seq_dim:
        raise InvalidArgumentError(None, None, f"batch_dim == seq_dim == {seq_dim}")
    rank = input.ndim
    if seq_dim >= rank:
        raise InvalidArgumentError(None, None,
                                   f"seq_dim must be < input rank ( {seq_dim} vs. {rank})")
    if batch_dim >= rank:
        raise InvalidArgumentError(
            None, None, f"batch_dim must be < input rank ( {batch_dim} vs. {rank})")
    batch, steps = input.shape[batch_dim], input.shape[seq_dim]
    if seq_lengths.size != batch:
        raise InvalidArgumentError(None, None, f"Length of seq_lengths != input.dims("
                                   f"{batch_dim}), ({seq_lengths.size} vs. {batch})")
    lengths = seq_lengths.astype(np.int64)
    for d, n in enumerate(lengths.tolist()):
        if n < 0:
            raise InvalidArgumentError(None, None, f"seq_lens({d}) < 0")
        if n > steps:
            raise InvalidArgumentError(None, None,
                                       f"seq_lens({d}) > input.dims({seq_dim})")
    moved = np.moveaxis(input, (batch_dim, seq_dim), (0, 1))  # [batch, steps, ...]
    t = np.arange(steps)[None, :]
    n = lengths[:, None]
    source = np.where(t < n, n - 1 - t, t)  # row b's first n steps reversed, the rest kept
    out = moved[np.arange(batch)[:, None], source]
    return np.ascontiguousarray(np.moveaxis(out, (0, 1), (batch_dim, seq_dim)))


reverse_sequence_op = OpDef("ReverseSequence", shape=_reverse_sequence_shape,
                            dtype=_reverse_sequence_dtype, kernel=_reverse_sequence_kernel,
                            attrs={"seq_dim": None, "batch_dim": 0},
                            input_names=("input", "seq_lengths"))


@reverse_sequence_op.def_grad
def _reverse_sequence_grad(op, dy):
    return [reverse_sequence_op.bind(_dense(dy), op.inputs[1],
                                     seq_dim=op.get_attr("seq_dim"),
                                     batch_dim=op.get_attr("batch_dim")), None]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,
                     seq_dim=None, batch_dim=None):
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b``
    of ``input`` along ``batch_axis`` (default 0); the rest of each row is kept.

    ``seq_dim`` and ``batch_dim`` are TF1's deprecated names of the two axes.

    >>> reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).shape.as_list()
    [2, 3]
    """
    seq_axis = _deprecated_lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _deprecated_lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    if batch_axis is None:
        batch_axis = 0
    return reverse_sequence_op.bind(input, seq_lengths, seq_dim=int(seq_axis),
                                    batch_dim=int(batch_axis), name=name)
