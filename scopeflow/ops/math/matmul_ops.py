"""Matrix products: MatMul, BatchMatMulV2 (``matmul``) and ``tensordot``."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import COMPLEX, FLOATS, INDEX, UNSIGNED_INTS
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import REGISTRY, OpDef, broadcast_shape, broadcasting, shape_str
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.layout_ops import stack, transpose
from scopeflow.ops.array.shape_ops import rank as rank_op
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.math.arithmetic_ops import conj
from scopeflow.ops.math.arithmetic_ops import range as arange
from scopeflow.ops.math.blas import gemm, split_rows
from scopeflow.ops.math.reduction_ops import reduce_prod, where
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["matmul", "tensordot"]


# ── MatMul ───────────────────────────────────────────────────────────────────────────
_MATMUL_TYPES = FLOATS + INDEX + UNSIGNED_INTS + COMPLEX  # TF's order


def _matmul_shape(a, b, *, transpose_a, transpose_b):
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    da = a.as_tuple() or (None, None)
    db = b.as_tuple() or (None, None)
    (m, ka), (kb, n) = da[::-1] if transpose_a else da, db[::-1] if transpose_b else db
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Dimensions must be equal, but are {ka} and {kb}")
    return TensorShape([m, n])


def _matmul_kernel(a, b, *, transpose_a, transpose_b):
    if a.dtype.kind == "u":  # TF's OpDef takes unsigned types; its CPU kernels do not
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op 'MatMul' with these "
            f"attrs: [T=DT_{dtypes.as_dtype(a.dtype).name.upper()}]")
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {shape_str(TensorShape(a.shape))}, "
            f"In[1]: {shape_str(TensorShape(b.shape))}")
    if a.dtype.kind == "f" and a.dtype == b.dtype and a.ndim == 2 and b.ndim == 2:
        if a.shape[1] == 1:
            # An outer product (the gradient of nce_loss's row sums): one product per
            # element, as BLAS computes it; BLAS adds it to a zero accumulator, so -0.0
            # comes out +0.0, which ``+= 0`` reproduces. 3x cheaper than the GEMM call.
            out = np.multiply(a, b)
            out += 0
            return out
        return gemm(a, b)
    return np.matmul(a, b)


matmul_op = OpDef("MatMul", shape=_matmul_shape, dtype=_same_dtype_in(_MATMUL_TYPES, "a"),
                  kernel=_matmul_kernel, attrs={"transpose_a": False, "transpose_b": False},
                  input_names=("a", "b"))


@matmul_op.def_grad
def _matmul_grad(op, dy):
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    mm = lambda x, y, ta, tb: matmul_op.bind(  # noqa: E731
        x, y, transpose_a=ta, transpose_b=tb, name="MatMul")
    return _product_grads(mm, a, b, dy, op.get_attr("transpose_a"), op.get_attr("transpose_b"))


def _product_grads(mm, a, b, dy, t_a, t_b):
    """The gradients of the product ``mm(a, b, t_a, t_b)`` with respect to ``a`` and ``b``,
    as TF builds them: ``mm(x, y, tx, ty)`` multiplies, transposing (or taking the adjoint
    of) ``x`` when ``tx`` and ``y`` when ``ty``."""
    if not t_a and not t_b:
        return [mm(dy, b, False, True), mm(a, dy, True, False)]
    if not t_a:
        return [mm(dy, b, False, False), mm(dy, a, True, False)]
    if not t_b:
        return [mm(b, dy, False, True), mm(a, dy, False, False)]
    return [mm(b, dy, True, True), mm(dy, a, True, True)]


# ── BatchMatMulV2 ────────────────────────────────────────────────────────────────────
def _batch_matmul_shape(x, y, *, adj_x, adj_y):
    if x.ndims is None or y.ndims is None:
        return TensorShape(None)
    for s in (x, y):
        if s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    dx, dy = x.as_tuple(), y.as_tuple()
    m, kx = dx[-2:][::-1] if adj_x else dx[-2:]
    ky, n = dy[-2:][::-1] if adj_y else dy[-2:]
    if kx is not None and ky is not None and kx != ky:
        raise ValueError(f"Dimensions must be equal, but are {kx} and {ky}")
    batch = broadcast_shape(TensorShape(dx[:-2]), TensorShape(dy[:-2]))
    return TensorShape(batch.as_tuple() + (m, n))


def _adjoint(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if np.iscomplexobj(x) else x


def _batch_matmul_kernel(x, y, *, adj_x, adj_y):
    x = _adjoint(x) if adj_x else x
    y = _adjoint(y) if adj_y else y
    try:
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-2]:
            raise ValueError
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible or batch dims not broadcastable: "
            f"In[0]: {shape_str(TensorShape(np.shape(x)))}, "
            f"In[1]: {shape_str(TensorShape(np.shape(y)))}") from None
    m, k = x.shape[-2:]
    n = y.shape[-1]
    if m * n * k <= _OPENBLAS_SINGLE_THREAD_MNK:
        return np.matmul(x, y)  # OpenBLAS runs each of these on one thread by itself
    return _split_batch_matmul(x, y, batch, m, n, k)


# OpenBLAS's own cut-off (blas.py's): per-matrix products this small never use its threads.
_OPENBLAS_SINGLE_THREAD_MNK = 65536 * 4


def _split_batch_matmul(x, y, batch, m, n, k):
    """``np.matmul(x, y)`` on one OpenBLAS thread, a large batch split over two Python
    threads along its first axis (``blas.split_rows``, as MatMul's ``gemm``).

    NOTE: OpenBLAS's own threads spin while they wait for each other; on a busy 2-core
    machine eight 256x256 products took 10x longer with them. Splitting the batch leaves
    each matrix's product (and its BLAS/non-BLAS choice) as before, so the bits are the
    same. A 2-D product is not split by rows: a one-row half would be a GEMV, not a GEMM.
    """
    out = np.empty(batch + (m, n), np.result_type(x, y))
    if not batch:
        split_rows(lambda lo, hi: np.matmul(x, y, out=out), 1, flops=0.0)
        return out

    def part(a, lo, hi):  # ``a``'s share of the output's first batch axis
        if a.ndim - 2 < len(batch) or a.shape[0] == 1:
            return a  # broadcast along that axis
        return a[lo:hi]

    def task(lo, hi):
        np.matmul(part(x, lo, hi), part(y, lo, hi), out=out[lo:hi])

    split_rows(task, batch[0], flops=2.0 * np.prod(batch, dtype=np.float64) * m * n * k,
               min_flops=_PARALLEL_FLOPS)
    return out


# Below this many flops a second thread's hand-off costs more than it saves.
_PARALLEL_FLOPS = 2e7


batch_matmul_op = OpDef("BatchMatMulV2", shape=broadcasting(_batch_matmul_shape),
                        dtype=_same_dtype_in(_MATMUL_TYPES), kernel=_batch_matmul_kernel,
                        attrs={"adj_x": False, "adj_y": False}, input_names=("x", "y"))


@batch_matmul_op.def_grad
def _batch_matmul_grad(op, dy):
    """As MatMul's, with adjoints; the walk sums broadcast batch dims back to each input."""
    x, y = op.inputs
    mm = lambda a, b, aa, ab: batch_matmul_op.bind(  # noqa: E731
        a, b, adj_x=aa, adj_y=ab, name="MatMul")
    return _product_grads(mm, x, y, dy, op.get_attr("adj_x"), op.get_attr("adj_y"))


# ── BatchMatMul (TF 1.x's, in the GraphDefs TF 1.x wrote): equal ranks, equal batch ──
def _batch_matmul_v1_shape(x, y, **attrs):
    if x.ndims is not None and y.ndims is not None and min(x.ndims, y.ndims) >= 2:
        bx, by = x.as_tuple()[:-2], y.as_tuple()[:-2]   # TF merges the batch parts
        if len(bx) != len(by):
            raise ValueError(f"Shapes must be equal rank, but are {len(bx)} and {len(by)}")
        for i, (a, b) in enumerate(zip(bx, by)):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {a} "
                                 f"and {b}. Shapes are {shape_str(TensorShape(bx))} and "
                                 f"{shape_str(TensorShape(by))}.")
    return _batch_matmul_shape(x, y, adj_x=attrs["adj_x"], adj_y=attrs["adj_y"])


def _batch_matmul_v1_kernel(x, y, *, adj_x, adj_y):
    dims = (shape_str(TensorShape(x.shape)), shape_str(TensorShape(y.shape)))
    if x.ndim != y.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"In[0] and In[1] has different ndims: {dims[0]} vs. {dims[1]}")
    for i in range(x.ndim - 2):
        if x.shape[i] != y.shape[i]:
            raise errors.InvalidArgumentError(
                None, None, f"In[0].dim({i}) and In[1].dim({i}) must be the same: "
                f"{dims[0]} vs {dims[1]}")
    return _batch_matmul_kernel(x, y, adj_x=adj_x, adj_y=adj_y)


batch_matmul_v1_op = OpDef("BatchMatMul", shape=_batch_matmul_v1_shape,
                           dtype=_same_dtype_in(_MATMUL_TYPES), kernel=_batch_matmul_v1_kernel,
                           attrs={"adj_x": False, "adj_y": False}, input_names=("x", "y"))
batch_matmul_v1_op.def_grad(_batch_matmul_grad)  # TF's rule: products of BatchMatMulV2


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None) -> Tensor:
    """Matrix product ``a @ b``.

    Rank-2 inputs make a ``MatMul`` op (``transpose_a``/``transpose_b``); higher or
    unknown ranks make ``BatchMatMulV2`` (``adj_x``/``adj_y``) with broadcast batch
    dimensions. ``adjoint_*`` also conjugates complex inputs. ``*_is_sparse`` are hints
    and are ignored.

    >>> matmul([[1., 2.]], [[3.], [4.]]).shape.as_list()
    [1, 1]
    """
    with name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True. Received "
                             f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of `transpose_b` and `adjoint_b` can be True. Received "
                             f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", preferred_dtype=a.dtype.base_dtype)
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None or ra > 2 or rb > 2:
            return batch_matmul_op.bind(a, b, adj_x=bool(transpose_a or adjoint_a),
                                        adj_y=bool(transpose_b or adjoint_b), name=scope)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        return matmul_op.bind(a, b, transpose_a=bool(transpose_a),
                              transpose_b=bool(transpose_b), name=scope)


# ── tensordot (composite: Transpose, Reshape, MatMul) ────────────────────────────────
def tensordot(a, b, axes, name=None) -> Tensor:
    """Sums products over ``axes`` of ``a`` and ``b`` (an int N: the last N of ``a`` with
    the first N of ``b``; or a pair of axis lists), built from transpose/reshape/matmul.

    The ops are TF's: a fully defined shape is transposed and reshaped with constant
    shapes; a shape with unknown dimensions is measured at run time (``axes``/``free``
    constants, ``Shape``, ``GatherV2``, ``Prod``, ``ConcatV2``, ``Pack``); a rank unknown
    while building is too (``Rank``, ``Range``, ``ListDiff``).
    """
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", preferred_dtype=a.dtype.base_dtype)
        if a.shape.ndims is None or b.shape.ndims is None:
            return _tensordot_unknown_rank(a, b, axes, scope)
        sa, sb = a.shape.as_list(), b.shape.as_list()
        a_axes, b_axes = _tensordot_axes(axes, len(sa), len(sb))
        for i, j in zip(a_axes, b_axes):
            if sa[i] is not None and sb[j] is not None and sa[i] != sb[j]:
                raise ValueError(f"Dimensions must be equal, but are {sa[i]} and {sb[j]}")
        a2, a_free, a_static = _tensordot_reshape(a, sa, a_axes, contract_last=True)
        b2, b_free, b_static = _tensordot_reshape(b, sb, b_axes, contract_last=False)
        product = matmul(a2, b2)
        if isinstance(a_free, list) and isinstance(b_free, list):
            out_shape = a_free + b_free
            if product.shape.as_list() == out_shape:
                return product
            return reshape(product, out_shape, name=scope)
        a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
        out = reshape(product, concat([a_free, b_free], 0), name=scope)
        out.set_shape(a_static + b_static)
        return out


def _tensordot_axes(axes, rank_a, rank_b):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(rank_a, rank_b):
            raise ValueError(f"'axes' must be at most min(rank(a), rank(b)) = "
                             f"{min(rank_a, rank_b)}; got {n}")
        return list(range(rank_a - n, rank_a)), list(range(n))
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                         f"{len(a_axes)} != {len(b_axes)}.")
    return [int(i) % rank_a for i in a_axes], [int(j) % rank_b for j in b_axes]


def _tensordot_reshape(t, shape, axes, contract_last):
    """TF's ``_tensordot_reshape``: ``t`` as the 2-D matmul operand, with its free dims
    (a list when static, else an int32 tensor) and their static values."""
    free = [i for i in range(len(shape)) if i not in axes]
    free_dims = [shape[i] for i in free]
    if None not in shape:
        perm = free + axes if contract_last else axes + free
        n_free = int(np.prod(free_dims)) if free_dims else 1
        n_contract = int(np.prod([shape[i] for i in axes])) if axes else 1
        new_shape = [n_free, n_contract] if contract_last else [n_contract, n_free]
        if perm != list(range(len(shape))):
            t = transpose(t, perm)
        if [shape[i] for i in perm] != new_shape:
            t = reshape(t, new_shape)
        return t, free_dims, free_dims
    axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
    free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
    t2, free_dims_t = _tensordot_measured(t, shape_of(t), axes_t, free_t, contract_last)
    return t2, free_dims_t, free_dims


def _tensordot_measured(t, shape_t, axes_t, free_t, contract_last):
    """``t`` transposed and reshaped to the 2-D operand from shapes measured at run time;
    returns it and the free dimensions (an int32 tensor)."""
    free_dims_t = gather(shape_t, free_t)
    axes_dims_t = gather(shape_t, axes_t)
    prod_free = reduce_prod(free_dims_t)
    prod_axes = reduce_prod(axes_dims_t)
    if contract_last:
        perm = concat([free_t, axes_t], 0)
        new_shape = stack([prod_free, prod_axes])
    else:
        perm = concat([axes_t, free_t], 0)
        new_shape = stack([prod_axes, prod_free])
    return reshape(transpose(t, perm), new_shape), free_dims_t


def _tensordot_unknown_rank(a, b, axes, scope):
    """TF's ``tensordot`` when a rank is unknown while building: that operand's axes and free
    dimensions are measured at run time (``Rank``, ``Range``, ``ListDiff``)."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        a_axes, b_axes = int(axes), int(axes)
    else:
        a_axes, b_axes = axes
        a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
        b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                             f"{len(a_axes)} != {len(b_axes)}.")
    a2, a_free, a_static = _tensordot_operand(a, a_axes, contract_last=True)
    b2, b_free, b_static = _tensordot_operand(b, b_axes, contract_last=False)
    product = matmul(a2, b2)
    a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
    b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
    out = reshape(product, concat([a_free, b_free], 0), name=scope)
    if a_static is not None and b_static is not None:
        out.set_shape(a_static + b_static)
    return out


def _tensordot_operand(t, axes, contract_last):
    """One operand for ``_tensordot_unknown_rank``: ``axes`` an int (the last or first N
    axes) or a list; static when ``t``'s rank is known."""
    rank_t = t.shape.ndims
    if rank_t is not None:
        if isinstance(axes, int):
            if axes > rank_t:
                raise ValueError(f"`axes` must not be larger than the number of dimensions "
                                 f"of tensor {t}.  Received {axes}, vs tensor dimensions "
                                 f"{rank_t}.")
            axes = list(range(rank_t - axes, rank_t)) if contract_last else list(range(axes))
        return _tensordot_reshape(t, t.shape.as_list(), [i % rank_t for i in axes],
                                  contract_last)
    shape_t, rank = shape_of(t), rank_op(t)
    if isinstance(axes, int):
        axes_t = arange(rank - axes, rank) if contract_last else arange(axes)
    else:
        axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        axes_t = where(axes_t >= 0, axes_t, axes_t + rank)
    # ListDiff through the registry: its module (sort_ops) imports this one's namespace
    free_t = REGISTRY["ListDiff"].create([arange(rank), axes_t],
                                          {"out_idx": dtypes.int32}).outputs[0]
    t2, free_dims = _tensordot_measured(t, shape_t, axes_t, free_t, contract_last)
    return t2, free_dims, None
