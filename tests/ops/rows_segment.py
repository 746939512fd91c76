"""Op-table rows for Unique and the segment reductions (SegmentSum, SparseSegment*)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

i32, i64 = np.int32, np.int64
DATA = rand(5, 3)
IDX = np.array([4, 0, 4, 2, 1, 1], i32)
SEG = np.array([0, 0, 1, 3, 3, 3], i32)   # segment 2 is empty


def _segment_sum_ref(data, ids):
    out = np.zeros((ids[-1] + 1,) + data.shape[1:], data.dtype)
    np.add.at(out, ids, data)
    return out


def _sparse_ref(combiner):
    def ref(data, idx, seg):
        out = _segment_sum_ref(data[idx], seg)
        counts = np.maximum(np.bincount(seg), 1).astype(data.dtype)[:, None]
        if combiner == "mean":
            out = out / counts
        elif combiner == "sqrtn":
            out = out / np.sqrt(counts)
        return out.astype(data.dtype)
    return ref


def _unique_ref(x):
    _, first = np.unique(x, return_index=True)
    y = x[np.sort(first)]
    return [y, np.array([list(y).index(v) for v in x], i32)]


def _grad_ref(combiner):
    """What the gradient ops return: d(sum(out * dy))/d(data) over the looked-up rows."""
    def ref(dy, idx, seg):
        counts = np.maximum(np.bincount(seg, minlength=dy.shape[0]), 1).astype(dy.dtype)
        scale = {"Sum": np.ones_like(counts), "Mean": counts,
                 "SqrtN": np.sqrt(counts)}[combiner][seg][:, None]
        out = np.zeros((5,) + dy.shape[1:], dy.dtype)
        np.add.at(out, idx, dy[seg] / scale)
        return out
    return ref


ROWS = [
    OpCase("Unique", lambda tf, x: list(tf.unique(x)), _unique_ref,
           [np.array([7, 3, 7, 1, 3, 9], i32)]),
    OpCase("Unique", lambda tf, x: list(tf.unique(x, out_idx=tf.int64)),
           lambda x: [np.array([2.5, -1.0], np.float32), np.array([0, 1, 0], i64)],
           [np.array([2.5, -1.0, 2.5], np.float32)], id="Unique-float-int64-idx"),
    OpCase("SegmentSum", lambda tf, d, s: tf.math.segment_sum(d, s), _segment_sum_ref,
           [DATA, np.array([0, 0, 2, 2, 3], i32)], rtol=1e-5),
    OpCase("SegmentSum", lambda tf, d, s: tf.segment_sum(d, s), _segment_sum_ref,
           [rand(4, dtype=np.float64), np.array([1, 1, 1, 4], i64)], id="SegmentSum-1d-int64"),
    OpCase("SparseSegmentSum", lambda tf, d, i, s: tf.sparse.segment_sum(d, i, s),
           _sparse_ref("sum"), [DATA, IDX, SEG], rtol=1e-5),
    OpCase("SparseSegmentSum",
           lambda tf, d, i, s: tf.sparse_segment_sum(d, i, s, sparse_gradient=True),
           _sparse_ref("sum"), [DATA, IDX, SEG], rtol=1e-5, id="SparseSegmentSum-sparse-grad"),
    OpCase("SparseSegmentMean", lambda tf, d, i, s: tf.sparse.segment_mean(d, i, s),
           _sparse_ref("mean"), [DATA, IDX, SEG], rtol=1e-5),
    OpCase("SparseSegmentMean",
           lambda tf, d, i, s: tf.sparse_segment_mean(d, i, s, sparse_gradient=True),
           _sparse_ref("mean"), [DATA, IDX.astype(i64), SEG], rtol=1e-5,
           id="SparseSegmentMean-sparse-grad"),
    OpCase("SparseSegmentSqrtN", lambda tf, d, i, s: tf.sparse.segment_sqrt_n(d, i, s),
           _sparse_ref("sqrtn"), [DATA, IDX, SEG], rtol=1e-5),
    OpCase("SparseSegmentSqrtN",
           lambda tf, d, i, s: tf.sparse_segment_sqrt_n(d, i, s, sparse_gradient=True),
           _sparse_ref("sqrtn"), [DATA, IDX, SEG], rtol=1e-5, id="SparseSegmentSqrtN-sparse-grad"),
]

# The gradient ops, built directly with a fixed dense_output_dim0 of 5.
def _grad_builder(combiner, which):
    def build(tf, dy, i, s):
        from scopeflow.ops.math.segment_ops import SPARSE_SEGMENT_OPS
        out = SPARSE_SEGMENT_OPS[combiner][which].bind(dy, i, s, tf.constant(5))
        return list(out) if isinstance(out, tuple) else out
    return build


def _sparse_grad_ref(combiner):
    def ref(dy, i, s):
        unique = np.unique(i)
        return [_grad_ref(combiner)(dy, i, s)[unique], unique]
    return ref


for _c in ("Sum", "Mean", "SqrtN"):
    if _c != "Sum":
        ROWS.append(OpCase(f"SparseSegment{_c}Grad", _grad_builder(_c, 1), _grad_ref(_c),
                           [rand(4, 3), IDX, SEG], rtol=1e-5))
    ROWS.append(OpCase(f"SparseSegment{_c}GradV2", _grad_builder(_c, 2), _sparse_grad_ref(_c),
                       [rand(4, 3), IDX, SEG], rtol=1e-5))


# SegmentMax/Min/Mean/Prod, the unsorted ones, and the composites over UnsortedSegmentSum.
def _seg_reduce_ref(fn, empty):
    """Sorted or unsorted segment reduction of rows by ``fn``; ``empty`` where no rows."""
    def ref(data, ids, n=None):
        n = int(ids.max()) + 1 if n is None else int(n)
        out = np.full((n,) + data.shape[1:], empty(data.dtype), data.dtype)
        for s in range(n):
            rows = data[ids == s]
            if len(rows):
                out[s] = fn(rows, axis=0)
        return out
    return ref


def _unsorted_ref(fn, empty):
    def ref(data, ids):
        return _seg_reduce_ref(fn, empty)(data, ids, 4)
    return ref


def _lowest(dt):
    return np.finfo(dt).min if np.dtype(dt).kind == "f" else np.iinfo(dt).min


def _highest(dt):
    return np.finfo(dt).max if np.dtype(dt).kind == "f" else np.iinfo(dt).max


def _zero(dt):
    return 0


def _one(dt):
    return 1


def _unsorted_mean_ref(root):
    def ref(data, ids):
        out = np.zeros((4,) + data.shape[1:], data.dtype)
        for s in range(4):
            rows = data[ids == s]
            if len(rows):
                out[s] = rows.sum(0) / (np.sqrt(len(rows)) if root else len(rows))
        return out
    return ref


UIDS = np.array([3, 0, 3, -1, 1], i32)   # segment 2 empty, one id dropped
SORTED = np.array([0, 0, 2, 2, 3], i32)  # segment 1 empty
FULL = np.array([3, 0, 2, -1, 1], i32)   # no empty segment: lowest/highest fills overflow

ROWS += [
    OpCase("SegmentMax", lambda tf, d, s: tf.segment_max(d, s),
           _seg_reduce_ref(np.max, _zero), [DATA, SORTED]),
    OpCase("SegmentMin", lambda tf, d, s: tf.math.segment_min(d, s),
           _seg_reduce_ref(np.min, _zero), [DATA, np.array([0, 1, 1, 1, 1], i64)]),
    OpCase("SegmentMean", lambda tf, d, s: tf.segment_mean(d, s),
           _seg_reduce_ref(np.mean, _zero), [DATA, SORTED], rtol=1e-5),
    OpCase("SegmentMean", lambda tf, d, s: tf.segment_mean(d, s),
           lambda d, s: np.array([2, -3, 7], i32),
           [np.array([1, 3, -2, -5, 7], i32), np.array([0, 0, 1, 1, 2], i32)],
           id="SegmentMean-int-toward-zero"),
    OpCase("SegmentProd", lambda tf, d, s: tf.segment_prod(d, s),
           _seg_reduce_ref(np.prod, _one), [DATA, SORTED], rtol=1e-5),
    OpCase("UnsortedSegmentMax", lambda tf, d, s: tf.unsorted_segment_max(d, s, 4),
           _unsorted_ref(np.max, _lowest), [DATA, FULL]),
    OpCase("UnsortedSegmentMin", lambda tf, d, s: tf.math.unsorted_segment_min(d, s, 4),
           _unsorted_ref(np.min, _highest), [DATA.astype(np.float64), FULL]),
    OpCase("UnsortedSegmentMin", lambda tf, d, s: tf.unsorted_segment_min(d, s, 4),
           _unsorted_ref(np.min, _highest), [np.array([5, 2, 7, 1, 9], i32), UIDS],
           id="UnsortedSegmentMin-int"),
    OpCase("UnsortedSegmentMax", lambda tf, d, s: tf.unsorted_segment_max(d, s, 4),
           _unsorted_ref(np.max, _lowest), [DATA, UIDS], check_grad=False,
           id="UnsortedSegmentMax-empty-segment"),
    OpCase("UnsortedSegmentProd", lambda tf, d, s: tf.unsorted_segment_prod(d, s, 4),
           _unsorted_ref(np.prod, _one), [DATA, UIDS], rtol=1e-5),
    OpCase("UnsortedSegmentSum", lambda tf, d, s: tf.unsorted_segment_mean(d, s, 4),
           _unsorted_mean_ref(False), [DATA, UIDS], rtol=1e-5, id="unsorted_segment_mean"),
    OpCase("UnsortedSegmentSum", lambda tf, d, s: tf.math.unsorted_segment_sqrt_n(d, s, 4),
           _unsorted_mean_ref(True), [DATA, UIDS], rtol=1e-5, id="unsorted_segment_sqrt_n"),
]
