"""Array ops TF1 code builds grids, masks and index arithmetic with: Roll, UnravelIndex,
EnsureShape, ParallelConcat (``parallel_stack``), Einsum, and the composites
``sequence_mask`` and ``meshgrid`` (built from existing ops exactly
as TF builds them, so their graphs and gradients are TF's).
"""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, DTypeMismatch, OpDef, check_dtype, first_dtype
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import expand_dims, reshape, shape, size
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import cast_op, less, negative, range_op
from scopeflow.ops.math.blas import gemm, split_rows
from scopeflow.ops.math.reduction_ops import broadcast_to, maximum, ones, reduce_max
from scopeflow.ops.op_helpers import _dense

__all__ = ["roll", "unravel_index", "ensure_shape", "parallel_stack", "einsum",
           "sequence_mask", "meshgrid"]


# ── Roll ─────────────────────────────────────────────────────────────────────────────
def _roll_shape(x, shift, axis):
    if shift.ndims is not None and shift.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {shift.ndims}")
    if axis.ndims is not None and axis.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axis.ndims}")
    shift.merge_with(axis)  # shift and axis pair up: TF's "Dimension 0 in both shapes..."
    return x


def _roll_dtype(x, shift, axis):
    check_dtype(shift, INDEX, "Tshift")
    check_dtype(axis, INDEX, "Taxis")
    return x


def _roll_kernel(x, shift, axis):
    shift, axis = np.reshape(shift, -1), np.reshape(axis, -1)
    if shift.size != axis.size:
        raise InvalidArgumentError(None, None, "shift and axis must have the same size")
    for a in axis:
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(None, None, f"axis {a} is out of range")
    return np.roll(x, tuple(int(s) for s in shift), tuple(int(a) for a in axis))


roll_op = OpDef("Roll", shape=_roll_shape, dtype=_roll_dtype, kernel=_roll_kernel,
                input_names=("input", "shift", "axis"))


@roll_op.def_grad
def _roll_grad(op, dy):
    return [roll(_dense(dy), negative(op.inputs[1]), op.inputs[2]), None, None]


def roll(input, shift, axis, name=None) -> Tensor:  # noqa: A002 - TF's names
    """Shifts elements cyclically by ``shift`` along ``axis`` (both scalars or vectors).

    >>> tf.Session().run(tf.roll([1, 2, 3, 4], 1, 0))
    array([4, 1, 2, 3], dtype=int32)
    """
    return roll_op.bind(input, shift, axis, name=name)


# ── UnravelIndex ─────────────────────────────────────────────────────────────────────
def _unravel_shape(indices, dims):
    dims = dims.with_rank(1)
    if indices.ndims is None:
        return TensorShape(None)
    if indices.ndims == 0:
        return TensorShape([dims[0]])
    if indices.ndims == 1:
        return TensorShape([dims[0], indices[0]])
    raise ValueError(f"Shape must be at most rank 1 but is rank {indices.ndims}")


def _unravel_dtype(indices, dims):
    check_dtype(indices, INDEX, "Tidx")
    if dims != indices:
        raise DTypeMismatch(1, dims, indices)
    return indices


def _unravel_kernel(indices, dims):
    if (dims <= 0).any():
        raise InvalidArgumentError(None, None, "Input dims must be a positive tensor")
    total = int(np.prod(dims.astype(np.int64)))
    if ((indices < 0) | (indices >= total)).any():
        raise InvalidArgumentError(None, None, "index is out of bound as with dims")
    out = np.stack(np.unravel_index(indices.astype(np.int64), tuple(int(d) for d in dims)))
    return out.astype(indices.dtype)


unravel_index_op = OpDef("UnravelIndex", shape=_unravel_shape, dtype=_unravel_dtype,
                         kernel=_unravel_kernel, grad=NO_GRADIENT, input_names=("indices", "dims"))


def unravel_index(indices, dims, name=None) -> Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (one row per dim).

    >>> tf.Session().run(tf.unravel_index([3, 4], [2, 3]))
    array([[1, 1],
           [0, 1]], dtype=int32)
    """
    if isinstance(indices, Tensor) and not isinstance(dims, Tensor):
        # One Tidx for both (TF's op-def conversion): Python dims take the indices' type,
        # converted inside the op's scope as TF's (UnravelIndex/dims).
        with name_scope(name, "UnravelIndex", [indices]) as scope:
            dims = convert_to_tensor(dims, dtype=indices.dtype.base_dtype, name="dims")
            return unravel_index_op.bind(indices, dims, name=scope)
    return unravel_index_op.bind(indices, dims, name=name)


# ── EnsureShape ──────────────────────────────────────────────────────────────────────
def _ensure_shape_shape(x, *, shape):  # noqa: A002 - TF's attr name
    want = as_shape(shape)
    if want.ndims is not None and x.ndims is not None:
        text = lambda s: "[" + ",".join("?" if d is None else str(d) for d in s.as_list()) + "]"  # noqa: E731
        if want.ndims != x.ndims:
            raise ValueError(f"Shapes must be equal rank, but are {want.ndims} and {x.ndims}")
        for i, (a, b) in enumerate(zip(want.as_list(), x.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {a} and "
                                 f"{b}. Shapes are {text(want)} and {text(x)}.")
    return want.merge_with(x)


def _ensure_shape_kernel(x, *, shape):  # noqa: A002 - TF's attr name
    want = as_shape(shape)
    if not TensorShape(x.shape).is_compatible_with(want):
        got = "[" + ",".join(map(str, x.shape)) + "]"
        dims = "?" if want.ndims is None else \
            "[" + ",".join("?" if d is None else str(d) for d in want.as_list()) + "]"
        raise InvalidArgumentError(None, None, f"Shape of tensor input {got} is not "
                                   f"compatible with expected shape {dims}.")
    return x


ensure_shape_op = OpDef("EnsureShape", shape=_ensure_shape_shape, dtype=first_dtype,
                        kernel=_ensure_shape_kernel, attrs={"shape": None}, aliases=True,
                        input_names=("input",))


@ensure_shape_op.def_grad
def _ensure_shape_grad(op, dy):
    return [dy]


def ensure_shape(x, shape, name=None) -> Tensor:  # noqa: A002 - TF's names
    """``x`` unchanged, after checking (while building and when run) that its shape is
    compatible with ``shape``; the static shape becomes the merge of the two."""
    if not isinstance(shape, TensorShape):
        shape = TensorShape(shape)
    return ensure_shape_op.bind(x, shape=shape, name=name)


# ── ParallelConcat ───────────────────────────────────────────────────────────────────
def _parallel_concat_shape(*values, shape, N):  # noqa: A002, N803 - TF's attr names
    out = as_shape(shape)
    if not out.is_fully_defined():
        raise ValueError("shape attr must be fully defined.")
    for v in values:
        if out.ndims is not None and v.ndims is not None:
            v.with_rank(out.ndims)
    return out


def _parallel_concat_dtype(*values, shape, N):  # noqa: A002, N803 - TF's attr names
    for v in values[1:]:
        if v != values[0]:
            raise TypeError(f"Tensors in list passed to 'values' of 'ParallelConcat' Op have "
                            f"types [{', '.join(t.name for t in values)}] that don't all "
                            f"match.")
    return values[0]


def _parallel_concat_kernel(*values, shape, N):  # noqa: A002, N803 - TF's attr names
    return np.concatenate(values, axis=0)


parallel_concat_op = OpDef("ParallelConcat", shape=_parallel_concat_shape,
                           dtype=_parallel_concat_dtype, kernel=_parallel_concat_kernel,
                           attrs={"shape": None, "N": None}, grad=NO_GRADIENT,
                           input_names=("values",))


def parallel_stack(values, name="parallel_stack") -> Tensor:
    """``tf.stack`` along a new first axis as one ParallelConcat (the inputs' shapes must
    be known while the graph is built)."""
    with name_scope(name):
        value_t = convert_to_tensor(values[0])
        out_shape = TensorShape([len(values)]).concatenate(value_t.shape)
        parts = [expand_dims(v, 0) for v in values]
        return parallel_concat_op.bind(*parts, shape=out_shape, N=len(parts))


# ── Einsum ───────────────────────────────────────────────────────────────────────────
def _einsum_parse(equation, n):
    """``(input subscripts, output subscripts)`` with ``...`` kept; TF's implicit output
    (the labels seen once, sorted) when the equation has no ``->``."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        labels = lhs.replace("...", "").replace(",", "")
        out = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(labels) if labels.count(c) == 1))
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError(f"Expecting {len(ins)} inputs but got {n}")
    return ins, out


def _einsum_shape(*inputs, equation, N, T):  # noqa: N803 - TF's attr names
    ins, out = _einsum_parse(equation, len(inputs))
    sizes, batch = {}, None
    for subs, s in zip(ins, inputs):
        if s.ndims is None:
            return TensorShape(None)
        dims = s.as_list()
        head, _, tail = subs.partition("...")
        ell = len(dims) - len(head) - len(tail) if "..." in subs else 0
        if ell < 0 or ("..." not in subs and len(dims) != len(subs)):
            raise ValueError(f"Input has rank {len(dims)} but the subscripts '{subs}' need "
                             f"{len(head) + len(tail)}")
        labels = list(head) + ["."] * ell + list(tail)
        for lab, d in zip(labels, dims):
            if lab == ".":
                continue
            if d is not None and sizes.get(lab) not in (None, d) and 1 not in (d, sizes[lab]):
                raise ValueError(f"Expected dimension {sizes[lab]} at axis for label {lab}, "
                                 f"got {d}")
            if d is not None and (sizes.get(lab) in (None, 1)):
                sizes[lab] = d
            sizes.setdefault(lab, d)
        if ell:
            part = dims[len(head):len(head) + ell]
            batch = part if batch is None else _bcast(batch, part)
    head, _, tail = out.partition("...")
    mid = (batch or []) if "..." in out else []
    return TensorShape([sizes.get(c) for c in head] + mid + [sizes.get(c) for c in tail])


def _bcast(a, b):
    """Broadcasts two partial dim lists (right-aligned, None unknown)."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    return [y if x == 1 else x if y == 1 else (x if x is not None else y) for x, y in zip(a, b)]


def _einsum_dtype(*inputs, equation, N, T):  # noqa: N803 - TF's attr names
    for d in inputs[1:]:
        if d != inputs[0]:
            raise TypeError("Input 'inputs' of 'Einsum' Op has types that don't all match.")
    return inputs[0]


_MATMUL_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _matmul_batches(a, b):
    """``a @ b`` for ``(B, M, K)`` and ``(B, K, N)``: one BLAS thread per call, the batch
    split over two threads (``blas.split_rows``; OpenBLAS's own threads spin)."""
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]), np.result_type(a, b))
    if a.shape[0] == 1:
        gemm(a[0], b[0], out=out[0])
        return out

    def task(lo, hi):
        np.matmul(a[lo:hi], b[lo:hi], out=out[lo:hi])

    split_rows(task, a.shape[0], flops=2.0 * a.size * b.shape[2])
    return out


def _einsum_as_matmul(ins, out, x, y):
    """A two-operand einsum as one batched matrix product, as TF's Einsum kernel: labels
    in both operands and the output are the batch, in both but not the output are
    contracted, and labels of one operand only are summed first (or kept as its free
    rows/columns). ``None`` outside that case (``...``, a label repeated within an
    operand, mismatched sizes, dtypes BLAS lacks): np.einsum then, whose two-operand
    loop is not BLAS (13 ms instead of 2 for 32 products of 128x128 matrices)."""
    sx, sy = ins
    if "." in sx + sy + out or x.dtype != y.dtype or x.dtype not in _MATMUL_DTYPES:
        return None
    if any(len(set(s)) != len(s) for s in (sx, sy, out)) or (x.ndim, y.ndim) != (len(sx),
                                                                                   len(sy)):
        return None
    size = {}
    for subs, arr in ((sx, x), (sy, y)):
        for c, d in zip(subs, arr.shape):
            if size.setdefault(c, d) != d:
                return None
    if any(c not in size for c in out):
        return None
    x, sx = _sum_lone_labels(x, sx, sy, out)
    y, sy = _sum_lone_labels(y, sy, sx, out)
    batch = [c for c in sx if c in sy and c in out]
    contract = [c for c in sx if c in sy and c not in out]
    free_x = [c for c in sx if c not in sy]
    free_y = [c for c in sy if c not in sx]
    if free_x and free_y and out.index(free_y[0]) < out.index(free_x[0]):
        # (x y)^T = y^T x^T: the product in the output's order needs no transposing copy
        x, sx, y, sy, free_x, free_y = y, sy, x, sx, free_y, free_x
    dims = lambda labels: int(np.prod([size[c] for c in labels], dtype=np.int64))  # noqa: E731
    xt = x.transpose([sx.index(c) for c in batch + free_x + contract]).reshape(
        dims(batch), dims(free_x), dims(contract))
    yt = y.transpose([sy.index(c) for c in batch + contract + free_y]).reshape(
        dims(batch), dims(contract), dims(free_y))
    labels = batch + free_x + free_y
    z = _matmul_batches(xt, yt).reshape([size[c] for c in labels])
    z = z.transpose([labels.index(c) for c in out])
    return z if z.flags.c_contiguous else z.copy()


def _sum_lone_labels(x, subs, other, out):
    """``x`` summed over the labels neither ``other`` nor ``out`` has, and its remaining
    subscripts."""
    lone = [i for i, c in enumerate(subs) if c not in other and c not in out]
    if not lone:
        return x, subs
    with np.errstate(all="ignore"):  # inf - inf is NaN without a warning, as TF's kernel
        total = np.add.reduce(x, axis=tuple(lone))
    return total, "".join(c for c in subs if c in other or c in out)


def _einsum_kernel(*inputs, equation, N, T):  # noqa: N803 - TF's attr names
    ins, out = _einsum_parse(equation, len(inputs))
    if len(inputs) == 2:
        fast = _einsum_as_matmul(ins, out, *inputs)
        if fast is not None:
            return fast
    try:
        return np.asarray(np.einsum(",".join(ins) + "->" + out, *inputs, optimize=len(inputs) > 2))
    except ValueError as e:
        raise InvalidArgumentError(None, None, str(e)) from None


einsum_op = OpDef("Einsum", shape=_einsum_shape, dtype=_einsum_dtype, kernel=_einsum_kernel,
                  attrs={"equation": None, "N": None, "T": None}, input_names=("inputs",))


def _einsum_operand_grad(dy, out_subs, x, x_subs, other, other_subs):
    """The gradient of one operand: ``dy`` contracted with the other operand onto the
    labels of ``x`` that survive elsewhere, then broadcast over the labels only ``x`` has
    (they were summed away, so each of their positions gets the same gradient)."""
    seen = out_subs + (other_subs or "")
    kept = "".join(c for c in x_subs if c in seen)
    eq = out_subs + ("," + other_subs if other is not None else "") + "->" + kept
    g = einsum(eq, dy, other) if other is not None else einsum(eq, dy)
    if kept == x_subs:
        return g
    x_shape = shape(x)
    g = reshape(g, [x_shape[i] if c in seen else 1 for i, c in enumerate(x_subs)])
    return broadcast_to(g, x_shape)


@einsum_op.def_grad
def _einsum_grad(op, dy):
    """TF's ``_EinsumGrad`` for one or two operands whose subscripts have no ellipsis and
    no label repeated within one operand."""
    equation = op.attrs["equation"]
    ins, out = _einsum_parse(equation, len(op.inputs))
    if "..." in equation or any(len(set(s)) != len(s) for s in ins):
        raise NotImplementedError("The gradient of an einsum with '...' or a label repeated "
                                  "within one operand is not supported yet")
    dy = _dense(dy)
    if len(ins) == 1:
        return [_einsum_operand_grad(dy, out, op.inputs[0], ins[0], None, None)]
    x, y = op.inputs
    return [_einsum_operand_grad(dy, out, x, ins[0], y, ins[1]),
            _einsum_operand_grad(dy, out, y, ins[1], x, ins[0])]


def einsum(equation, *inputs, **kwargs) -> Tensor:
    """Tensor contraction in Einstein notation, as one Einsum op (``name=`` scopes it).

    >>> tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4])).shape.as_list()
    [2, 4]
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: "
                        f"{', '.join(sorted(kwargs))}. Expected: name.")
    with name_scope(name, "einsum", inputs):
        inputs = [convert_to_tensor(x) for x in inputs]
        ins, out = _einsum_parse(equation, len(inputs))  # TF stores the explicit form
        return einsum_op.bind(*inputs, equation=",".join(ins) + "->" + out, N=len(inputs),
                              T=inputs[0].dtype.base_dtype if inputs else None)


# ── sequence_mask / meshgrid (composites) ───────────────── ─────────────────────────
def _always_cast(x, dtype):
# ── sequence_mask / meshgrid (composites) ─────────────────────────────────────────────
    dtype = dtypes.as_dtype(dtype).base_dtype
    return cast_op.bind(x, SrcT=x.dtype.base_dtype, DstT=dtype, Truncate=False, name="Cast")


def sequence_mask(lengths, maxlen=None, dtype=None, name=None) -> Tensor:
    """``mask[..., j] = j < lengths[...]``: a row of ``maxlen`` (default: the largest
    length) booleans per length, cast to ``dtype`` when given.

    >>> tf.Session().run(tf.sequence_mask([1, 3], 4))
    array([[ True, False, False, False],
           [ True,  True,  True, False]])
    """
    from_dtype = dtype
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        known_max = None
        if maxlen is None:
            static = constant_value(lengths)
            if static is not None and static.size:
                known_max = max(int(static.max()), 0)
            maxlen = reduce_max(lengths, list(builtins.range(lengths.shape.ndims))
                                if lengths.shape.ndims is not None else None)
            maxlen = maximum(constant(0, maxlen.dtype), maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims not in (None, 0):
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
        row = range_op.bind(constant(0, maxlen.dtype), maxlen, constant(1, maxlen.dtype))
        matrix = _always_cast(expand_dims(lengths, -1), maxlen.dtype)
        result = less(row, matrix)
        if known_max is not None:  # TF's shape inference folds Max(lengths) into the width
            result.set_shape(result.shape[:-1].concatenate([known_max]))
        if from_dtype is None or result.dtype.is_compatible_with(from_dtype):
            return result
        return _always_cast(result, from_dtype)


def meshgrid(*args, **kwargs) -> list:
    """N-d coordinate grids from 1-D ``args`` (``indexing="xy"``: the first two axes
    swapped, as NumPy's default).

    >>> x, y = tf.meshgrid([1, 2, 3], [4, 5])
    >>> x.shape.as_list()
    [2, 3]
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = list(kwargs)[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    with name_scope(name, "meshgrid", args):
        ndim = len(args)
        if not ndim:
            return []
        s0 = (1,) * ndim
        output = [reshape(convert_to_tensor(x), s0[:i] + (-1,) + s0[i + 1:])
                  for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        out_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult = ones(shapes, out_dtype)
        return [x * mult for x in output]
