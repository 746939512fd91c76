"""``tf.sets``: set operations over the last dimension of dense or sparse tensors.

Each position of the leading dimensions holds a set: the values along the last dimension
(every value of a dense tensor; the present values of a SparseTensor). TF's op types
``DenseToDenseSetOperation``, ``DenseToSparseSetOperation``, ``SparseToSparseSetOperation``
(``set_operation`` "a-b", "b-a", "intersection" or "union") return a SparseTensor whose
last dimension holds each result set sorted, and ``SetSize`` the sets' sizes. None has a
gradient (TF's NotDifferentiable).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.sparse.sparse_kernels import check_sparse, invalid, row_keys
from scopeflow.ops.sparse.sparse_math_ops import convert_to_tensor_or_sparse_tensor

__all__ = ["set_size", "set_intersection", "set_difference", "set_union"]

_VALID = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16,
          dtypes.string)
_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def _dense_members(x):
    """(prefix shape, group of each value, values) of a dense tensor's sets."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise invalid(f"Expected rank >= 2, got shape {list(x.shape)}.")
    prefix = np.asarray(x.shape[:-1], np.int64)
    groups = np.repeat(np.arange(int(np.prod(prefix)), dtype=np.int64), x.shape[-1])
    return prefix, groups, x.reshape(-1)


def _sparse_members(indices, values, shape, validate_indices):
    idx, vals, shape = check_sparse(indices, values, shape, "set")
    if len(shape) < 2:
        raise invalid(f"Invalid input rank {len(shape)}, expected >= 2.")
    if validate_indices and len(idx) > 1:
        keys = row_keys(idx, shape)
        bad = np.flatnonzero(np.diff(keys) <= 0)
        if len(bad):
            raise invalid(f"indices[{bad[0] + 1}] = {_vec(idx[bad[0] + 1])} is out of order. "
                          f"Many sparse ops require sorted indices.\n    Use "
                          f"`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    prefix = shape[:-1]
    return prefix, row_keys(idx[:, :-1], prefix), vals


def _vec(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def _set_result(a, b, set_operation):
    """The SparseTensor triple of ``set_operation`` over the (prefix, groups, values) sets."""
    (pa, ga, va), (pb, gb, vb) = a, b
    if len(pa) != len(pb):
        raise invalid(f"Mismatched ranks: {len(pa) + 1} vs {len(pb) + 1}.")
    prefix = np.maximum(pa, pb)
    # Groups re-keyed in the common prefix shape; values ranked together (sorted order).
    ga = row_keys(np.stack(np.unravel_index(ga, pa), 1).reshape(len(ga), len(pa)), prefix)
    gb = row_keys(np.stack(np.unravel_index(gb, pb), 1).reshape(len(gb), len(pb)), prefix)
    uniq, rank = np.unique(np.concatenate([va, vb]), return_inverse=True)
    rank = rank.reshape(-1).astype(np.int64)
    n = max(len(uniq), 1)
    ka = np.unique(ga * n + rank[:len(va)])
    kb = np.unique(gb * n + rank[len(va):])
    res = {"a-b": lambda: np.setdiff1d(ka, kb), "b-a": lambda: np.setdiff1d(kb, ka),
           "intersection": lambda: np.intersect1d(ka, kb),
           "union": lambda: np.union1d(ka, kb)}[set_operation]()
    groups, values = res // n, uniq[res % n]
    first = np.ones(len(groups), bool)
    first[1:] = groups[1:] != groups[:-1]
    starts = np.flatnonzero(first)
    position = np.arange(len(groups)) - np.repeat(starts, np.diff(np.append(starts,
                                                                            len(groups))))
    lead = np.stack(np.unravel_index(groups, prefix), 1).reshape(len(groups), len(prefix))
    indices = np.concatenate([lead, position[:, None]], 1).astype(np.int64)
    width = int(position.max()) + 1 if len(position) else 0
    out_values = values.astype(va.dtype) if va.dtype.kind != "O" else values
    return indices, out_values, np.append(prefix, width).astype(np.int64)


def _check_operation(set_operation):
    if set_operation not in _OPERATIONS:
        raise invalid(f"Invalid set_operation {set_operation}.")


def _result_shapes(rank):
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _values_dtype(a, b, what_b="set2"):
    check_dtype(a, _VALID, "T")
    if b != a:
        raise TypeError(f"Input '{what_b}' has type {b.name} that does not match type "
                        f"{a.name} of argument 'set1'.")
    return [dtypes.int64, a, dtypes.int64]


# ── DenseToDenseSetOperation ─────────────────────────────────────────────────────────
def _d2d_kernel(set1, set2, *, set_operation, validate_indices):
    _check_operation(set_operation)
    return _set_result(_dense_members(set1), _dense_members(set2), set_operation)


def _d2d_shape(set1, set2, *, set_operation, validate_indices):
    if set1.ndims is not None and set1.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {set1.ndims}")
    return _result_shapes(set1.ndims if set1.ndims is not None else set2.ndims)


d2d_op = OpDef("DenseToDenseSetOperation", shape=_d2d_shape,
               dtype=lambda a, b, **attrs: _values_dtype(a, b),
               kernel=_d2d_kernel, attrs={"set_operation": "", "validate_indices": True},
               num_outputs=3, grad=None, input_names=("set1", "set2"))


# ── DenseToSparseSetOperation ────────────────────────────────────────────────────────
def _d2s_kernel(set1, set2_indices, set2_values, set2_shape, *, set_operation,
                validate_indices):
    _check_operation(set_operation)
    return _set_result(_dense_members(set1),
                       _sparse_members(set2_indices, set2_values, set2_shape,
                                       validate_indices), set_operation)


def _d2s_shape(set1, indices, values, shape, *, set_operation, validate_indices):
    rank = set1.ndims if set1.ndims is not None else (shape[0] if shape.ndims else None)
    return _result_shapes(rank)


d2s_op = OpDef("DenseToSparseSetOperation", shape=_d2s_shape,
               dtype=lambda a, i, v, s, **attrs: _values_dtype(a, v, "set2_values"),
               kernel=_d2s_kernel, attrs={"set_operation": "", "validate_indices": True},
               num_outputs=3, grad=None,
               input_names=("set1", "set2_indices", "set2_values", "set2_shape"))


# ── SparseToSparseSetOperation ───────────────────────────────────────────────────────
def _s2s_kernel(set1_indices, set1_values, set1_shape, set2_indices, set2_values, set2_shape,
                *, set_operation, validate_indices):
    _check_operation(set_operation)
    return _set_result(
        _sparse_members(set1_indices, set1_values, set1_shape, validate_indices),
        _sparse_members(set2_indices, set2_values, set2_shape, validate_indices),
        set_operation)


def _s2s_shape(i1, v1, s1, i2, v2, s2, *, set_operation, validate_indices):
    rank = s1[0] if s1.ndims else None
    rank = rank if rank is not None else (s2[0] if s2.ndims else None)
    return _result_shapes(rank)


s2s_op = OpDef("SparseToSparseSetOperation", shape=_s2s_shape,
               dtype=lambda i1, v1, s1, i2, v2, s2, **attrs: _values_dtype(v1, v2,
                                                                         "set2_values"),
               kernel=_s2s_kernel, attrs={"set_operation": "", "validate_indices": True},
               num_outputs=3, grad=None,
               input_names=("set1_indices", "set1_values", "set1_shape", "set2_indices",
                            "set2_values", "set2_shape"))


# ── SetSize ──────────────────────────────────────────────────────────────────────────
def _set_size_kernel(set_indices, set_values, set_shape, *, validate_indices):
    prefix, groups, values = _sparse_members(set_indices, set_values, set_shape,
                                             validate_indices)
    _, rank = np.unique(values, return_inverse=True)
    n = max(len(values), 1)
    pairs = np.unique(groups * n + rank.reshape(-1))
    counts = np.bincount(pairs // n, minlength=int(np.prod(prefix)))
    return counts.astype(np.int32).reshape(prefix)


set_size_op = OpDef("SetSize", shape=lambda i, v, s, **attrs: TensorShape(None),
                    dtype=lambda i, v, s, **attrs: (check_dtype(v, _VALID, "T"),
                                                    dtypes.int32)[1],
                    kernel=_set_size_kernel, attrs={"validate_indices": True}, grad=None,
                    input_names=("set_indices", "set_values", "set_shape"))


# ── The public functions (TF's sets_impl.py) ─────────────────────────────────────────
def set_size(a, validate_indices=True):
    """The number of unique values in each set of the SparseTensor ``a`` (int32, shape
    ``a``'s minus its last dimension)."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
                        f"`{_valid_names()}`.")
    return set_size_op.bind(a.indices, a.values, a.dense_shape,
                            validate_indices=bool(validate_indices))


def _valid_names():
    return "frozenset({" + ", ".join(f"tf.{d.name}" for d in _VALID) + "})"


def _convert_pair(a, b):
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_valid_names()}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    attrs = {"set_operation": set_operation, "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip "
                             "the order of your inputs.")
        out = s2s_op.bind(a.indices, a.values, a.dense_shape, b.indices, b.values,
                          b.dense_shape, **attrs)
    elif isinstance(b, SparseTensor):
        out = d2s_op.bind(a, b.indices, b.values, b.dense_shape, **attrs)
    else:
        out = d2d_op.bind(a, b, **attrs)
    return SparseTensor(*out)


def set_intersection(a, b, validate_indices=True) -> SparseTensor:
    """The values in both ``a``'s and ``b``'s set at each position, sorted.

    >>> st = tf.sets.intersection([[1, 2, 3], [4, 5, 6]], [[3, 1, 9], [7, 8, 9]])
    >>> tf.Session().run(st).values.tolist()
    [1, 3]
    """
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The values of ``a``'s sets not in ``b``'s (``b - a`` when ``aminusb`` is False)."""
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a, b, validate_indices=True) -> SparseTensor:
    """The values in ``a``'s or ``b``'s set at each position, sorted."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union", validate_indices)
