"""``EditDistance`` (``tf.edit_distance``): Levenshtein distances between the sequences of
two SparseTensors, one per position of their leading dimensions (the last dimension holds
each sequence). Not differentiable, as in TF."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape, unknown_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.sparse.sparse_kernels import check_sparse, invalid, row_keys

__all__ = ["edit_distance"]


def levenshtein(truth, hyp) -> int:
    """The edit distance (insertions, deletions, substitutions) between two sequences; one
    NumPy pass per element of ``truth`` (a row's running minimum is a cumulative min)."""
    n = len(hyp)
    if len(truth) == 0 or n == 0:
        return max(len(truth), n)
    hyp = np.asarray(hyp)
    steps = np.arange(n + 1)
    row = steps.copy()
    for i, t in enumerate(truth, 1):
        cost = (hyp != t).astype(np.int64)
        tmp = np.empty(n + 1, np.int64)
        tmp[0] = i
        tmp[1:] = np.minimum(row[1:] + 1, row[:-1] + cost)
        row = steps + np.minimum.accumulate(tmp - steps)
    return int(row[-1])


def _shape(h_ind, h_val, h_shape, t_ind, t_val, t_shape, *, normalize):
    hs, ts = constant_value(h_shape), constant_value(t_shape)
    if hs is None or ts is None:
        return unknown_shape()
    if len(hs) != len(ts):
        raise ValueError(f"Shape must be rank {len(hs)} but is rank {len(ts)}")
    return TensorShape([max(int(a), int(b)) for a, b in zip(hs[:-1], ts[:-1])])


def _dtype(h_ind, h_val, h_shape, t_ind, t_val, t_shape, *, normalize):
    check_dtype(h_ind, (dtypes.int64,), "hypothesis_indices")
    if t_val != h_val:
        raise TypeError(f"Input 'truth_values' of 'EditDistance' Op has type {t_val.name} "
                        f"that does not match type {h_val.name} of argument "
                        f"'hypothesis_values'.")
    return dtypes.float32


def _groups(idx, vals, prefix):
    """Each group's key (row-major in ``prefix``) and its sequence, in index order."""
    order = np.lexsort(idx.T[::-1]) if len(idx) else np.arange(0)
    idx, vals = idx[order], vals[order]
    keys = row_keys(idx[:, :-1], prefix)
    uniq, starts = np.unique(keys, return_index=True)
    bounds = np.append(starts, len(keys))
    return {int(k): vals[bounds[i]:bounds[i + 1]] for i, k in enumerate(uniq)}


def _kernel(h_ind, h_val, h_shape, t_ind, t_val, t_shape, *, normalize):
    hi, hv, hs = check_sparse(h_ind, h_val, h_shape, "hypothesis")
    ti, tv, ts = check_sparse(t_ind, t_val, t_shape, "truth")
    if len(hs) != len(ts):
        raise invalid(f"hypothesis_shape and truth_shape must have the same rank: "
                      f"{len(hs)} vs {len(ts)}")
    if len(hs) < 2:
        raise invalid(f"Input SparseTensors must have rank at least 2, but truth_shape rank "
                      f"is: {len(ts)}")
    prefix = np.maximum(hs[:-1], ts[:-1])
    out = np.zeros(int(np.prod(prefix)), np.float32)
    hyp, truth = _groups(hi, hv, prefix), _groups(ti, tv, prefix)
    for key in set(hyp) | set(truth):
        h, t = hyp.get(key), truth.get(key)
        if h is not None and t is not None:
            d = float(levenshtein(t, h))
            out[key] = d / len(t) if normalize else d
        elif h is not None:
            out[key] = np.inf if normalize else len(h)
        else:
            out[key] = 1.0 if normalize else len(t)
    return out.reshape(prefix)


edit_distance_op = OpDef("EditDistance", shape=from_tensors(
    lambda *ts, normalize: _shape(*ts, normalize=normalize)), dtype=_dtype, kernel=_kernel,
    attrs={"normalize": True}, grad=None,
    input_names=("hypothesis_indices", "hypothesis_values", "hypothesis_shape",
                 "truth_indices", "truth_values", "truth_shape"))


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two SparseTensors, divided by the
    truth's length when ``normalize`` (a missing truth sequence gives inf).

    >>> h = tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
    >>> t = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> tf.Session().run(tf.edit_distance(h, t))
    array([1.], dtype=float32)
    """
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hypothesis, truth = SparseTensor.from_value(hypothesis), SparseTensor.from_value(truth)
    return edit_distance_op.bind(hypothesis.indices, hypothesis.values, hypothesis.dense_shape,
                                 truth.indices, truth.values, truth.dense_shape,
                                 normalize=bool(normalize), name=name)
