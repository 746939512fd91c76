"""Slicing and joining ops: Slice, Pad, PadV2, MirrorPad (and MirrorPadGrad), ConcatV2
(and ConcatOffset), Split, SplitV.

Slice's gradient pads and concatenates, Pad's slices, ConcatV2's slices at the offsets
ConcatOffset gives, and the splits' gradients concatenate: one family, declared together.
"""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import Dimension, TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.shape_ops import identity, rank, reshape, shape
from scopeflow.ops.op_helpers import (
    _convert_list,
    _dense,
    _dims_str,
    _fold,
    _index_arg,
    _op_scope,
    _outputs_list,
    _partial_dims,
    _same_dtypes,
    _static_scalar,
)

__all__ = ["slice", "pad", "mirror_pad_grad", "concat", "concat_offset", "split"]


# ── Slice ────────────────────────────────────────────────────────────────────────────
def _slice_shape(x, begin, size):
    dims = x.shape.as_tuple()
    b = _partial_dims(begin)
    s = _partial_dims(size)
    rank = len(dims) if dims is not None else len(b) if b is not None else \
        len(s) if s is not None else None
    if rank is None:
        return TensorShape(None)
    for what, v in (("begin", b), ("size", s)):
        if v is not None and len(v) != rank:
            raise ValueError(f"Length of {what} must be equal to rank: {len(v)} vs {rank}")
    b = b or [None] * rank
    s = s or [None] * rank
    dims = dims or (None,) * rank
    out = []
    for d, bi, si in zip(dims, b, s):
        if si is None or si == -1:
            out.append(None if si is None or d is None or bi is None else max(d - bi, 0))
        else:
            out.append(si if si >= 0 else None)
    return TensorShape(out)


def _slice_dtype(x, begin, size):
    check_dtype(begin, INDEX, "Index")
    if size is not begin:
        raise TypeError(f"Input 'size' of 'Slice' Op has type {size.name} that does not match "
                        f"type {begin.name} of argument 'begin'.")
    return x


def _slice_index(x, begin, size):
    """The index tuple of ``x[begin:begin + size]``, checked as TF's Slice."""
    index = []
    shapes = (list(np.shape(begin)), list(np.shape(size)))
    if begin.ndim == 1 and size.ndim == 1:
        begin, size = begin.tolist(), size.tolist()  # Python ints: cheaper than int() each
    for i, (d, b, s) in enumerate(zip(x.shape, begin, size)):
        b, s = int(b), int(s)
        if not 0 <= b <= d:
            raise InvalidArgumentError(None, None, f"Expected begin[{i}] in [0, {d}], but got {b}")
        s = d - b if s == -1 else s
        if not 0 <= s <= d - b:
            raise InvalidArgumentError(None, None, f"Expected size[{i}] in [0, {d - b}], but got "
                                       f"{s}")
        index.append(builtins.slice(b, b + s))
    if len(index) != x.ndim or len(size) != x.ndim:
        raise InvalidArgumentError(None, None, f"Expected begin and size arguments to be 1-D "
                                   f"tensors of size {x.ndim}, but got shapes "
                                   f"{shapes[0]} and {shapes[1]} instead.")
    return tuple(index) + (Ellipsis,)


def _slice_kernel(x, begin, size):
    return x[_slice_index(x, begin, size)]


slice_op = OpDef("Slice", shape=from_tensors(_slice_shape), dtype=_slice_dtype,
                 kernel=_slice_kernel, aliases=(0,), input_names=("input", "begin", "size"))
slice_op.def_static_value(_fold)


@slice_op.def_grad
def _slice_grad(op, dy):
    """``dy`` padded back to the input's shape with ``[begin, shape - size - begin]``."""
    x, begin = op.inputs[:2]
    index_dtype = begin.dtype.base_dtype
    rows = stack([rank(x), 1])
    before = reshape(begin, rows)
    after = reshape(shape(x, out_type=index_dtype) - shape(op.outputs[0], out_type=index_dtype)
                    - begin, rows)
    dx = pad(_dense(dy), concat([before, after], 1))
    dx.set_shape(x.shape)
    return [dx, None, None]


def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001 - TF's name
    """The ``size``-shaped block of ``input_`` that starts at ``begin`` (-1: to the end).

    >>> slice(tf.constant([[1, 2, 3]]), [0, 1], [-1, 2]).shape.as_list()
    [1, 2]
    """
    return slice_op.bind(input_, _index_arg(begin), _index_arg(size), name=name)


# ── Pad / PadV2 ──────────────────────────────────────────────────────────────────────
def _pad_shape(x, paddings, *rest, **attrs):
    dims = x.shape.as_tuple()
    p = constant_value(paddings)
    pshape = paddings.shape.as_tuple()
    if pshape is not None and len(pshape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(pshape)}")
    if p is None:
        n = pshape[0] if pshape else None
        rank = len(dims) if dims is not None else n
        return TensorShape(None if rank is None else [None] * rank)
    p = np.asarray(p).reshape(-1, 2) if p.size else np.zeros((0, 2), np.int64)
    if dims is None:
        return TensorShape([None] * len(p))
    if len(p) != len(dims):
        raise ValueError(f"Shape must be rank {len(p)} but is rank {len(dims)}")
    if (p < 0).any():
        raise ValueError(f"Paddings must be non-negative: {p.tolist()}")
    return TensorShape([None if d is None else d + int(a) + int(b) for d, (a, b) in zip(dims, p)])


def _pad_dtype(x, paddings, *rest, **attrs):
    check_dtype(paddings, INDEX, "Tpaddings")
    if rest and rest[0] is not x:
        raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type {rest[0].name} that "
                        f"does not match type {x.name} of argument 'input'.")
    return x


def _check_paddings(x, paddings):
    """The ``[before, after]`` pairs as Python ints (small: checked in Python, not NumPy)."""
    shape = np.shape(paddings)
    if len(shape) != 2 or shape[1] != 2:
        raise InvalidArgumentError(None, None, f"paddings must be a matrix with 2 columns: "
                                   f"[{','.join(map(str, shape))}]")
    p = np.asarray(paddings).tolist()
    if len(p) != x.ndim:
        raise InvalidArgumentError(None, None, f"The first dimension of paddings must be the rank "
                                   f"of inputs{list(np.shape(paddings))} {list(x.shape)}")
    if any(a < 0 or b < 0 for a, b in p):
        raise InvalidArgumentError(None, None, f"Paddings must be non-negative: {p}")
    return p


def _pad_layout(x, paddings):
    """The padded shape and the input's place in it, checked as TF's Pad."""
    p = _check_paddings(x, paddings)
    return ([d + a + b for d, (a, b) in zip(x.shape, p)],
            tuple([builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, p)]))


def _pad_into(x, layout, constant_values=None):
    # NOTE: a fill plus one slice assignment; np.pad costs ~30 us of Python per call. Filling
    # the whole output (memset for zeros) and then the input is cheaper than filling only
    # the padding slabs, which costs a slice assignment per padded side.
    shape, inner = layout
    if x.size == math.prod(shape):
        return x.reshape(shape)  # nothing to pad: TF forwards the input's buffer
    if constant_values is None and x.dtype != object:
        out = np.zeros(shape, x.dtype)
    else:
        if constant_values is None:
            fill = b""
        else:
            fill = constant_values.reshape(())
            fill = fill.item() if x.dtype == object else fill
        out = np.full(shape, fill, x.dtype)
    out[inner] = x
    return out


def _pad_kernel(x, paddings, constant_values=None):
    return _pad_into(x, _pad_layout(x, paddings), constant_values)


pad_op = OpDef("Pad", shape=from_tensors(_pad_shape), dtype=_pad_dtype, kernel=_pad_kernel,
               input_names=("input", "paddings"), aliases=(0,))
pad_v2_op = OpDef("PadV2", shape=from_tensors(_pad_shape), dtype=_pad_dtype, kernel=_pad_kernel,
                  input_names=("input", "paddings", "constant_values"),
                  aliases=(0,))
pad_op.def_static_value(_fold)
pad_v2_op.def_static_value(_fold)


def _pad_grad(op, dy):
    """The un-padded block of ``dy`` (``constant_values`` gets no gradient, as in TF)."""
    x, paddings = op.inputs[:2]
    before = slice(paddings, [0, 0], stack([rank(x), 1]))
    begin = reshape(before, [-1])
    dx = slice(_dense(dy), begin, shape(x, out_type=begin.dtype.base_dtype))
    return [dx] + [None] * (len(op.inputs) - 1)


pad_op.def_grad(_pad_grad)
pad_v2_op.def_grad(_pad_grad)


# ── MirrorPad ────────────────────────────────────────────────────────────────────────
def _mirror_pad_kernel(x, paddings, *, mode):
    p = _check_paddings(x, paddings)
    offset = 0 if mode == "REFLECT" else 1
    for i, (a, b) in enumerate(p):
        if max(a, b) > x.shape[i] - 1 + offset:
            rel = "less than" if offset == 0 else "no greater than"
            raise InvalidArgumentError(None, None, f"paddings must be {rel} the dimension size: "
                                       f"{a}, {b} not {rel} {x.shape[i]}")
    return np.pad(x, p, mode="reflect" if mode == "REFLECT" else "symmetric")


mirror_pad_op = OpDef("MirrorPad", shape=from_tensors(_pad_shape), dtype=_pad_dtype,
                      kernel=_mirror_pad_kernel, attrs={"mode": "REFLECT"},
                      input_names=("input", "paddings"))
mirror_pad_op.def_static_value(_fold)


@mirror_pad_op.def_grad
def _mirror_pad_grad(op, dy):
    return [mirror_pad_grad(_dense(dy), op.inputs[1], mode=op.get_attr("mode")), None]


# ── MirrorPadGrad (MirrorPad's gradient: the reflections folded back and summed) ──────
def _mirror_pad_grad_shape(x, paddings, *, mode):
    dims = x.shape.as_tuple()
    p = constant_value(paddings)
    if p is None or dims is None:
        return _pad_shape(x, paddings)
    p = np.asarray(p).reshape(-1, 2) if p.size else np.zeros((0, 2), np.int64)
    if len(p) != len(dims):
        raise ValueError(f"Shape must be rank {len(p)} but is rank {len(dims)}")
    out = [None if d is None else d - int(a) - int(b) for d, (a, b) in zip(dims, p)]
    if any(d is not None and d < 0 for d in out) or (p < 0).any():
        raise ValueError(f"Paddings {p.tolist()} exceed the input shape {_dims_str(dims)}")
    return TensorShape(out)


def _mirror_pad_grad_kernel(dy, paddings, *, mode):
    """Folds each padded axis: the interior plus the reversed edge slices on the rows they
    mirror. Each source row gets at most one left and one right reflection (the paddings
    are at most the size), so ``((0 + left) + interior) + right`` per element is the
    order a sequential scatter-add into zeros gives, computed as three slice adds; the
    ``0 +`` turns -0.0 into 0.0 on every axis, padded or not, so an all-zero padding
    still returns ``dy + 0`` (a scalar, a copy). It was ``np.add.at`` over the whole
    tensor per axis, 10x slower; the values are the same bits (a NaN's sign may differ)."""
    out = dy
    reflect = int(mode == "REFLECT")
    for axis, (a, b) in enumerate(_check_paddings(dy, paddings)):
        n = out.shape[axis] - a - b
        if max(a, b) > n - reflect:
            raise InvalidArgumentError(None, None, f"paddings {a}, {b} too large for a "
                                       f"{mode} pad of a dimension of size {n}")
        if a == 0 and b == 0:
            continue
        out = _fold_axis(out, axis, a, b, n, reflect)
    if out is not dy:
        return out
    return dy + 0 if dy.ndim else dy.copy()  # a scalar has no axis to fold


def _fold_axis(x, axis, a, b, n, reflect):
    """One axis of MirrorPadGrad: ``x``'s interior with its mirrored edges added back."""
    def at(lo, hi, step=1):
        return (builtins.slice(None),) * axis + (builtins.slice(lo, hi, step),)
    interior = x[at(a, a + n)]
    folded = interior + 0  # 0 + interior (no left reflection on that row)
    if a:  # left edge: padded position p mirrors row a - p (REFLECT) or a - 1 - p
        rows = at(reflect, reflect + a)
        # (0 + left) + interior in that order: with two NaNs the first one's payload wins
        np.add(x[at(a - 1, None, -1)] + 0, interior[rows], out=folded[rows])
    if b:  # right edge: padded position a + n + q mirrors row n - 1 - reflect - q
        right = x[at(a + n + b - 1, a + n - 1, -1)]
        folded[at(n - reflect - b, n - reflect)] += right
    return folded


mirror_pad_grad_op = OpDef("MirrorPadGrad", shape=from_tensors(_mirror_pad_grad_shape),
                           dtype=_pad_dtype, kernel=_mirror_pad_grad_kernel,
                           attrs={"mode": "REFLECT"}, input_names=("input", "paddings"))


@mirror_pad_grad_op.def_grad
def _mirror_pad_grad_grad(op, dy):
    return [mirror_pad_op.bind(_dense(dy), op.inputs[1], mode=op.get_attr("mode")), None]


def mirror_pad_grad(input, paddings, mode, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The gradient of ``pad(x, paddings, mode)`` w.r.t. ``x``, given ``input`` (the padded
    tensor's gradient): each mirrored element is added back onto its source."""
    return mirror_pad_grad_op.bind(input, paddings, mode=mode.upper(), name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0) -> Tensor:
    """Pads ``tensor`` with ``paddings[i] = [before, after]`` entries along each dimension.

    ``mode`` is ``"CONSTANT"`` (``Pad``, or ``PadV2`` for a non-zero ``constant_values``),
    ``"REFLECT"`` or ``"SYMMETRIC"`` (``MirrorPad``), case-insensitive.

    >>> pad([[1, 2]], [[1, 1], [0, 2]]).shape.as_list()
    [3, 4]
    """
    mode = mode.upper()
    if isinstance(paddings, (list, tuple)) and not paddings:
        paddings = np.zeros([0, 2], np.int32)
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            return pad_op.bind(tensor, paddings, name=name)
        with _op_scope(name, "PadV2", [tensor, paddings, constant_values]) as scope:
            tensor = convert_to_tensor(tensor, name="input")
            paddings = convert_to_tensor(paddings, name="paddings")
            constant_values = convert_to_tensor(constant_values, dtype=tensor.dtype.base_dtype,
                                                name="constant_values")
            return pad_v2_op.bind(tensor, paddings, constant_values, name=scope)
    if mode in ("REFLECT", "SYMMETRIC"):
        return mirror_pad_op.bind(tensor, paddings, mode=mode, name=name)
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                     f'"SYMMETRIC". Received `mode` = {mode}')


# ── ConcatV2 ─────────────────────────────────────────────────────────────────────────
def _concat_shape(*args, N):
    values, axis = args[:N], args[N]
    shapes = [v.shape.as_tuple() for v in values]
    known = [s for s in shapes if s is not None]
    if not known:
        return TensorShape(None)
    rank = len(known[0])
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    for s in known[1:]:
        if len(s) != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {len(s)}")
    a = _static_scalar(axis)
    if a is None:
        return TensorShape([None] * rank)
    if not -rank <= a < rank:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                         f"[{-rank}, {rank}), but got {a}")
    a %= rank
    rest = list(known[0][:a] + known[0][a + 1:])
    total = 0
    for s in shapes:
        if s is None:
            total = None
            continue
        other = s[:a] + s[a + 1:]
        for i, (x, y) in enumerate(zip(rest, other)):
            if x is not None and y is not None and x != y:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and "
                                 f"{y}. Shapes are {_dims_str(rest)} and {_dims_str(other)}.")
            rest[i] = x if x is not None else y
        total = None if total is None or s[a] is None else total + s[a]
    return TensorShape(rest[:a] + [total] + rest[a:])


def _concat_dtype(*dts, N):
    check_dtype(dts[N], INDEX, "Tidx")
    return _same_dtypes(dts[:N], "ConcatV2", "values")


def _concat_kernel(*args, N):
    values, axis = args[:N], int(args[N])
    rank = values[0].ndim
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"ConcatOp : Expected concatenating dimensions in "
                                   f"the range [{-rank}, {rank}), but got {axis}")
    try:
        return np.concatenate(values, axis=axis)
    except ValueError as e:
        raise InvalidArgumentError(None, None, f"ConcatOp : Dimensions of inputs should match: "
                                   f"{e}") from None


concat_op = OpDef("ConcatV2", shape=from_tensors(_concat_shape), dtype=_concat_dtype,
                  kernel=_concat_kernel, attrs={"N": 2}, input_names=("values", "axis"))
concat_op.def_static_value(_fold)


@concat_op.def_grad
def _concat_grad(op, dy):
    """TF's ``_ConcatGradHelper``: ``dy`` sliced at each input's ``ConcatOffset``."""
    n = op.get_attr("N")
    values, axis = op.inputs[:n], op.inputs[n]
    dy = _dense(dy)
    if n == 1:
        return [dy, None]
    a, r = _static_scalar(axis), values[0].shape.ndims
    axis = a % r if a is not None and r is not None else axis % rank(values[0])
    sizes = [shape(v) for v in values]
    offsets = concat_offset(axis, sizes)
    return [slice(dy, b, s) for b, s in zip(offsets, sizes)] + [None]


def concat(values, axis, name="concat") -> Tensor:
    """Joins ``values`` along the existing dimension ``axis``.

    >>> concat([[1, 2], [3]], 0).shape.as_list()
    [3]
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:  # TF: a single value is passed through an Identity
        with _op_scope(name, None, values) as scope:
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).shape \
                .assert_has_rank(0)
            return identity(values[0], name=name)
    with _op_scope(name, "ConcatV2", list(values) + [axis]) as scope:
        vals = _convert_list(values, "values")
        axis = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, name="axis")
        return concat_op.bind(*vals, axis, N=len(vals), name=scope)


# ── ConcatOffset (where each ConcatV2 input starts, for its gradient) ────────────────
def _concat_offset_shape(concat_dim, *shapes, N):
    if concat_dim.shape.ndims not in (0, None):
        raise ValueError(f"Shape must be rank 0 but is rank {concat_dim.shape.ndims}")
    return [TensorShape([None]) if s.shape.ndims is None else s.shape for s in shapes]


def _concat_offset_dtype(concat_dim, *shapes, N):
    check_dtype(concat_dim, (dtypes.int32,), "concat_dim")
    check_dtype(shapes[0], INDEX, "shape_type")
    return [_same_dtypes(list(shapes), "ConcatOffset", "shape")] * N


def _concat_offset_kernel(concat_dim, *shapes, N):
    first, r = shapes[0], shapes[0].size
    d = int(concat_dim)
    if not -r <= d < r:
        raise InvalidArgumentError(None, None, f"Concat dim is out of range: {d} vs. {r}")
    d %= r
    outs, offset = [], 0
    for i, s in enumerate(shapes):
        if s.size != r:
            raise InvalidArgumentError(None, None, f"input {i} should contain {r} elements, "
                                       f"but got {s.size}")
        if any(s[j] != first[j] for j in builtins.range(r) if j != d):
            raise InvalidArgumentError(None, None, f"All dimensions except {d} must match. "
                                       f"Input {i} has shape {s.tolist()} and doesn't match "
                                       f"input 0 with shape {first.tolist()}.")
        out = np.zeros(r, s.dtype)
        out[d] = offset
        offset += int(s[d])
        outs.append(out)
    return outs[0] if N == 1 else tuple(outs)


concat_offset_op = OpDef("ConcatOffset", shape=from_tensors(_concat_offset_shape),
                         dtype=_concat_offset_dtype, kernel=_concat_offset_kernel, attrs={"N": 2},
                         grad=None, num_outputs=lambda attrs, n: attrs["N"],
                         input_names=("concat_dim", "shape"))
concat_offset_op.def_static_value(_fold)


def concat_offset(concat_dim, shape, name=None) -> list:  # noqa: A002 - TF's name
    """The offset of each of ``shape`` (input shapes) in their concatenation along
    ``concat_dim``: zeros except the running total at ``concat_dim``."""
    with _op_scope(name, "ConcatOffset", [concat_dim] + list(shape)) as scope:
        tensors = _convert_list(shape, "shape")
        dim = convert_to_tensor(concat_dim, dtype=dtypes.int32, name="concat_dim")
        return _outputs_list(concat_offset_op.bind(dim, *tensors, N=len(tensors), name=scope))


# ── Split ────────────────────────────────────────────────────────────────────────────
def _split_axis(dims, axis):
    a = _static_scalar(axis)
    if a is None or dims is None:
        return None
    r = len(dims)
    if not -r <= a < r:
        raise ValueError(f"Dimension {a} must be in range [{-r}, {r}), where {r} is the number "
                         "of dimensions in the input.")
    return a % r


def _split_dims(value, axis, num_split):
    """Split's and SplitV's ``(dims, axis, None)``; ``(.., .., pieces' shapes)`` instead
    when the rank or the axis is unknown."""
    dims = value.shape.as_tuple()
    a = _split_axis(dims, axis)
    if dims is None:
        return dims, a, [TensorShape(None)] * num_split
    if a is None:
        return dims, a, [TensorShape([None] * len(dims))] * num_split
    return dims, a, None


def _split_shape(axis, value, *, num_split):
    dims, a, unknown = _split_dims(value, axis, num_split)
    if unknown is not None:
        return unknown
    d = dims[a]
    if d is not None and d % num_split:
        raise ValueError(f"Dimension size must be evenly divisible by {num_split} but is {d}")
    out = list(dims)
    out[a] = None if d is None else d // num_split
    return [TensorShape(out)] * num_split


def _split_dtype(axis, value, *, num_split):
    check_dtype(axis, (dtypes.int32,), "split_dim")
    return [value] * num_split


def _split_kernel(axis, value, *, num_split):
    a = int(axis)
    if value.shape[a] % num_split:
        raise InvalidArgumentError(None, None, f"Number of ways to split should evenly divide the "
                                   f"split dimension, but got split_dim {a} (size = "
                                   f"{value.shape[a]}) and num_split {num_split}")
    outs = tuple(np.split(value, num_split, axis=a))
    if a % value.ndim and num_split > 1:
        # Pieces across an inner axis are strided views: copy them, as TF's Split does, so
        # their readers (an LSTM's gates) run on contiguous memory.
        outs = tuple(np.ascontiguousarray(o) for o in outs)
    return outs[0] if num_split == 1 else outs


split_op = OpDef("Split", shape=from_tensors(_split_shape), dtype=_split_dtype,
                 kernel=_split_kernel, attrs={"num_split": 1},
                 num_outputs=lambda attrs, n: attrs["num_split"], aliases=(1,),
                 input_names=("split_dim", "value"))
split_op.def_static_value(_fold)


@split_op.def_grad
def _split_grad(op, *dys):
    return [None, concat([_dense(d) for d in dys], op.inputs[0])]


# ── SplitV ───────────────────────────────────────────────────────────────────────────
def _resolve_sizes(sizes, total):
    """``size_splits`` with its single ``-1`` replaced (``None`` when unknowable)."""
    if sizes.count(-1) > 1:
        raise ValueError("Only one dimensions can have a value of -1. Second one found at "
                         f"dimension {[i for i, s in enumerate(sizes) if s == -1][1]}")
    if -1 not in sizes:
        return sizes
    if total is None or None in sizes:
        return [None if s == -1 else s for s in sizes]
    rest = sum(s for s in sizes if s != -1)
    return [total - rest if s == -1 else s for s in sizes]


def _split_v_shape(value, size_splits, axis, *, num_split):
    dims, a, unknown = _split_dims(value, axis, num_split)
    if unknown is not None:
        return unknown
    sizes = _partial_dims(size_splits) or [None] * num_split
    sizes = _resolve_sizes(list(sizes), dims[a])
    if dims[a] is not None and None not in sizes and sum(sizes) != dims[a]:
        raise ValueError("Determined shape must either match input shape along split_dim "
                         "exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified.  Got: {sum(sizes)}")
    return [TensorShape(dims[:a] + (s,) + dims[a + 1:]) for s in sizes]


def _split_v_dtype(value, size_splits, axis, *, num_split):
    check_dtype(size_splits, INDEX, "Tlen")
    return [value] * num_split


def _split_v_kernel(value, size_splits, axis, *, num_split):
    a = int(axis)
    sizes = _resolve_sizes([int(s) for s in size_splits], value.shape[a])
    if sum(sizes) != value.shape[a] or any(s < 0 for s in sizes):
        raise InvalidArgumentError(None, None, "Determined shape must either match input shape "
                                   "along split_dim exactly if fully specified, or be less than "
                                   "the size of the input along split_dim if not fully "
                                   f"specified.  Got: {sum(sizes)}")
    outs = tuple(np.split(value, np.cumsum(sizes)[:-1], axis=a))
    return outs[0] if num_split == 1 else outs


split_v_op = OpDef("SplitV", shape=from_tensors(_split_v_shape), dtype=_split_v_dtype,
                   kernel=_split_v_kernel, attrs={"num_split": 1},
                   num_outputs=lambda attrs, n: attrs["num_split"], aliases=(0,),
                   input_names=("value", "size_splits", "split_dim"))
split_v_op.def_static_value(_fold)


@split_v_op.def_grad
def _split_v_grad(op, *dys):
    return [concat([_dense(d) for d in dys], op.inputs[2]), None, None]


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """Splits ``value`` along ``axis`` into equal parts (an int) or parts of given sizes.

    >>> [t.shape.as_list() for t in split(tf.constant([[1, 2, 3]]), [1, 2], axis=1)]
    [[1, 1], [1, 2]]
    """
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and \
            not isinstance(num_or_size_splits, bool):
        n = int(num_or_size_splits)
        return _outputs_list(split_op.bind(axis, value, num_split=n, name=name))
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        dims = size_splits.shape.as_tuple()
        num = dims[0] if dims else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return _outputs_list(split_v_op.bind(value, size_splits, axis, num_split=num, name=name))
