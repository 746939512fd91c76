"""Block rearrangement ops: SpaceToDepth/DepthToSpace and SpaceToBatchND/BatchToSpaceND
(with TF1's ``space_to_batch``/``batch_to_space``, which build the ND ops).

Each pair are each other's inverse and each other's gradient (TF's ``array_grad.py``), so
they are declared together. The kernels are one reshape-transpose-reshape each.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import OpDef, check_dtype, first_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.op_helpers import _dense, _static_ints

__all__ = ["space_to_depth", "depth_to_space", "space_to_batch_nd", "batch_to_space_nd",
           "space_to_batch", "batch_to_space"]

_FORMATS = ("NHWC", "NCHW")


def _check_format(data_format):
    if data_format not in _FORMATS:
        raise ValueError(f"Invalid data_format: {data_format}; only NHWC and NCHW are "
                         f"supported")


def _to_nhwc(dims, data_format):
    return dims if data_format == "NHWC" else [dims[0], dims[2], dims[3], dims[1]]


def _from_nhwc(dims, data_format):
    return dims if data_format == "NHWC" else [dims[0], dims[3], dims[1], dims[2]]


# ── SpaceToDepth ─────────────────────────────────────────────────────────────────────
def _space_to_depth_shape(x, *, block_size, data_format):
    _check_format(data_format)
    if block_size < 2:
        raise ValueError(f"Value for attr 'block_size' of {block_size} must be at least "
                         f"minimum 2")
    if x.ndims is None:
        return TensorShape([None] * 4)
    n, h, w, c = _to_nhwc(x.with_rank(4).as_list(), data_format)
    for d in (h, w):
        if d is not None and d % block_size:
            raise ValueError(f"Dimension size must be evenly divisible by {block_size} but "
                             f"is {d}")
    out = [n, None if h is None else h // block_size, None if w is None else w // block_size,
           None if c is None else c * block_size * block_size]
    return TensorShape(_from_nhwc(out, data_format))


def _space_to_depth_kernel(x, *, block_size, data_format):
    b = block_size
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    if h % b or w % b:
        raise InvalidArgumentError(None, None, f"Image width {w} and height {h} should be "
                                   f"divisible by block_size: {b}")
    out = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    out = out.reshape(n, h // b, w // b, b * b * c)
    return out.transpose(0, 3, 1, 2) if data_format == "NCHW" else out


_BLOCK_ATTRS = {"block_size": None, "data_format": "NHWC"}
space_to_depth_op = OpDef("SpaceToDepth", shape=_space_to_depth_shape, dtype=first_dtype,
                          kernel=_space_to_depth_kernel, attrs=_BLOCK_ATTRS,
                          input_names=("input",))


@space_to_depth_op.def_grad
def _space_to_depth_grad(op, dy):
    return [depth_to_space(_dense(dy), op.attrs["block_size"],
                           data_format=op.attrs["data_format"])]


def space_to_depth(input, block_size, name=None, data_format="NHWC") -> Tensor:  # noqa: A002
    """Moves each ``block_size`` x ``block_size`` spatial block into the channels.

    >>> tf.space_to_depth(tf.zeros([1, 4, 4, 3]), 2).shape.as_list()
    [1, 2, 2, 12]
    """
    return space_to_depth_op.bind(input, block_size=int(block_size), data_format=data_format,
                                  name=name)


# ── DepthToSpace ─────────────────────────────────────────────────────────────────────
def _depth_to_space_shape(x, *, block_size, data_format):
    _check_format(data_format)
    if block_size < 2:
        raise ValueError(f"Value for attr 'block_size' of {block_size} must be at least "
                         f"minimum 2")
    if x.ndims is None:
        return TensorShape([None] * 4)
    n, h, w, c = _to_nhwc(x.with_rank(4).as_list(), data_format)
    bb = block_size * block_size
    if c is not None and c % bb:
        raise ValueError(f"Dimension size must be evenly divisible by {bb} but is {c}")
    out = [n, None if h is None else h * block_size, None if w is None else w * block_size,
           None if c is None else c // bb]
    return TensorShape(_from_nhwc(out, data_format))


def _depth_to_space_kernel(x, *, block_size, data_format):
    b = block_size
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    if c % (b * b):
        raise InvalidArgumentError(None, None, f"Input depth dimension {c} should be "
                                   f"divisible by: {b * b}")
    out = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    out = out.reshape(n, h * b, w * b, c // (b * b))
    return out.transpose(0, 3, 1, 2) if data_format == "NCHW" else out


depth_to_space_op = OpDef("DepthToSpace", shape=_depth_to_space_shape, dtype=first_dtype,
                          kernel=_depth_to_space_kernel, attrs=_BLOCK_ATTRS,
                          input_names=("input",))


@depth_to_space_op.def_grad
def _depth_to_space_grad(op, dy):
    return [space_to_depth(_dense(dy), op.attrs["block_size"],
                           data_format=op.attrs["data_format"])]


def depth_to_space(input, block_size, name=None, data_format="NHWC") -> Tensor:  # noqa: A002
    """Moves channels out into ``block_size`` x ``block_size`` spatial blocks (the inverse of
    ``space_to_depth``)."""
    return depth_to_space_op.bind(input, block_size=int(block_size), data_format=data_format,
                                  name=name)


# ── SpaceToBatchND ───────────────────────────────────────────────────────────────────
def _block_args(block_shape, pads, what):
    """Static ``block_shape`` and ``paddings``/``crops`` (None where not constant)."""
    block = _static_ints(block_shape)
    flat = _static_ints(pads)
    pairs = None if flat is None else [flat[i:i + 2] for i in range(0, len(flat), 2)]
    if block is not None and any(b < 1 for b in block):
        raise ValueError(f"block_shape must be positive, got {block}")
    if pairs is not None and any(p < 0 for pair in pairs for p in pair):
        raise ValueError(f"{what} must be non-negative")
    return block, pairs


def _space_to_batch_shape(x, block_shape, paddings):
    block, pads = _block_args(block_shape, paddings, "paddings")
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    m = block_shape.shape.as_list()[0] if block_shape.shape.ndims == 1 else None
    if dims is None or m is None:
        return TensorShape(None)
    if len(dims) < m + 1:
        raise ValueError(f"input rank should be >= {m + 1} instead of {len(dims)}")
    out = list(dims)
    out[0] = None if block is None or dims[0] is None else dims[0] * int(np.prod(block))
    for i in range(m):
        d = dims[i + 1]
        if block is None or pads is None or d is None:
            out[i + 1] = None
            continue
        padded = d + pads[i][0] + pads[i][1]
        if padded % block[i]:
            raise ValueError(f"Dimension size must be evenly divisible by {block[i]} but is "
                             f"{padded}")
        out[i + 1] = padded // block[i]
    return TensorShape(out)


def _block_dtype(x, block_shape, pads):
    check_dtype(block_shape, INDEX, "Tblock_shape")
    check_dtype(pads, INDEX, "Tpaddings")
    return x


def _space_to_batch_kernel(x, block_shape, paddings):
    block = [int(b) for b in block_shape]
    m = len(block)
    pads = np.asarray(paddings, np.int64).reshape(m, 2)
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - m - 1))
    batch, rest = x.shape[0], x.shape[m + 1:]
    for i in range(m):
        if x.shape[i + 1] % block[i]:
            raise InvalidArgumentError(None, None, f"padded_shape[{i}]={x.shape[i + 1]} is not "
                                       f"divisible by block_shape[{i}]={block[i]}")
    grid = [x.shape[i + 1] // block[i] for i in range(m)]
    split = [batch] + [v for i in range(m) for v in (grid[i], block[i])] + list(rest)
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
            + list(range(1 + 2 * m, 1 + 2 * m + len(rest))))
    out = x.reshape(split).transpose(perm)
    return out.reshape([batch * int(np.prod(block))] + grid + list(rest))


space_to_batch_nd_op = OpDef("SpaceToBatchND", shape=from_tensors(_space_to_batch_shape),
                             dtype=_block_dtype, kernel=_space_to_batch_kernel,
                             input_names=("input", "block_shape", "paddings"))


@space_to_batch_nd_op.def_grad
def _space_to_batch_grad(op, dy):
    return [batch_to_space_nd(_dense(dy), op.inputs[1], op.inputs[2]), None, None]


def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:  # noqa: A002
    """Pads the spatial dims, then moves each ``block_shape`` block into the batch dim.

    >>> tf.space_to_batch_nd(tf.zeros([1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]).shape.as_list()
    [4, 2, 2, 1]
    """
    return space_to_batch_nd_op.bind(input, block_shape, paddings, name=name)


# ── BatchToSpaceND ───────────────────────────────────────────────────────────────────
def _batch_to_space_shape(x, block_shape, crops):
    block, cuts = _block_args(block_shape, crops, "crops")
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    m = block_shape.shape.as_list()[0] if block_shape.shape.ndims == 1 else None
    if dims is None or m is None:
        return TensorShape(None)
    if len(dims) < m + 1:
        raise ValueError(f"input rank should be >= {m + 1} instead of {len(dims)}")
    out = list(dims)
    if block is None or dims[0] is None:
        out[0] = None
    else:
        prod = int(np.prod(block))
        if dims[0] % prod:
            raise ValueError(f"Dimension size must be evenly divisible by {prod} but is "
                             f"{dims[0]}")
        out[0] = dims[0] // prod
    for i in range(m):
        d = dims[i + 1]
        if block is None or cuts is None or d is None:
            out[i + 1] = None
            continue
        out[i + 1] = d * block[i] - cuts[i][0] - cuts[i][1]
        if out[i + 1] < 0:
            raise ValueError(f"Negative dimension size caused by subtracting "
                             f"{cuts[i][0] + cuts[i][1]} from {d * block[i]}")
    return TensorShape(out)


def _batch_to_space_kernel(x, block_shape, crops):
    block = [int(b) for b in block_shape]
    m = len(block)
    cuts = np.asarray(crops, np.int64).reshape(m, 2)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise InvalidArgumentError(None, None, f"Input batch dimension ({x.shape[0]}) is not "
                                   f"divisible by product of block sizes ({prod})")
    batch, grid, rest = x.shape[0] // prod, list(x.shape[1:m + 1]), list(x.shape[m + 1:])
    out = x.reshape(block + [batch] + grid + rest)
    perm = ([m] + [v for i in range(m) for v in (m + 1 + i, i)]
            + list(range(2 * m + 1, 2 * m + 1 + len(rest))))
    out = out.transpose(perm).reshape([batch] + [grid[i] * block[i] for i in range(m)] + rest)
    index = [slice(None)] + [slice(int(c0), out.shape[i + 1] - int(c1))
                             for i, (c0, c1) in enumerate(cuts)]
    return out[tuple(index)]


batch_to_space_nd_op = OpDef("BatchToSpaceND", shape=from_tensors(_batch_to_space_shape),
                             dtype=_block_dtype, kernel=_batch_to_space_kernel,
                             input_names=("input", "block_shape", "crops"))


@batch_to_space_nd_op.def_grad
def _batch_to_space_grad(op, dy):
    return [space_to_batch_nd(_dense(dy), op.inputs[1], op.inputs[2]), None, None]


def batch_to_space_nd(input, block_shape, crops, name=None) -> Tensor:  # noqa: A002
    """Moves batch blocks back into the spatial dims, then crops (the inverse of
    ``space_to_batch_nd``)."""
    return batch_to_space_nd_op.bind(input, block_shape, crops, name=name)


def _square_block(block_size, block_shape):
    if block_shape is not None:
        if block_size is not None:
            raise ValueError("Cannot specify both 'block_shape' and 'block_size'.")
        block_size = block_shape
    return np.array([block_size, block_size], np.int64)


def space_to_batch(input, paddings, block_size=None, name=None,  # noqa: A002
                   block_shape=None) -> Tensor:
    """TF1's 4-D ``space_to_batch``: SpaceToBatchND with a square int64 block."""
    out = space_to_batch_nd(input, _square_block(block_size, block_shape), paddings,
                            name=name)
    out.set_shape(out.shape.with_rank(4))
    return out


def batch_to_space(input, crops, block_size, name=None, block_shape=None) -> Tensor:  # noqa: A002
    """TF1's 4-D ``batch_to_space``: BatchToSpaceND with a square int64 block."""
    out = batch_to_space_nd(input, _square_block(block_size, block_shape), crops, name=name)
    out.set_shape(out.shape.with_rank(4))
    return out

