"""Op-table rows for the embedding and candidate-sampling ops (and their composites)."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.array import stitch_ops as _stitch
from scopeflow.ops.nn import embedding_ops as _emb

from .op_table import OpCase, rand

P64 = rand(6, 4, dtype=np.float32)
IDS = np.array([[5, 0], [2, 2], [3, 1]], np.int32)
PARTS = np.array([1, 0, 2, 1, 0], np.int32)
DATA53 = rand(5, 3)


def _partition_ref(data, parts, n):
    return [data[parts == i] for i in range(n)]


def _stitch_ref(i0, i1, d0, d1):
    out = np.zeros((max(i0.max(), i1.max()) + 1,) + d0.shape[i0.ndim:], d0.dtype)
    out[i0.reshape(-1)] = d0.reshape((-1,) + d0.shape[i0.ndim:])
    out[i1.reshape(-1)] = d1.reshape((-1,) + d1.shape[i1.ndim:])
    return out


def _sparse_to_dense_ref(idx, shape, values, default):
    out = np.full(shape, default, values.dtype)
    out[tuple(np.reshape(idx, (-1, len(shape))).T)] = values
    return out


def _mod_shards(p, n):
    return [p[np.arange(len(p)) % n == k] for k in range(n)]


def _clip_rows(x, max_norm):
    norms = np.sqrt((x.astype(np.float64) ** 2).sum(-1, keepdims=True))
    return (x * max_norm / np.maximum(norms, max_norm)).astype(x.dtype)


def _sampler_stats(n, range_max, unique):
    def ref(s, t, c):
        assert s.dtype == np.int64 and s.shape == (n,) and t.dtype == np.float32
        assert s.min() >= 0 and s.max() < range_max
        assert not unique or len(set(s.tolist())) == n
        assert np.all(c > 0) and np.all(t > 0)
    return ref


def _nce_ref(w, b, x):
    labels, sampled = np.array([1, 4]), np.array([0, 5, 4])
    true_ec, samp_ec = np.float32([0.5, 0.2]), np.float32([0.3, 0.1, 0.2])
    true_logits = (x * w[labels]).sum(1) + b[labels] - np.log(true_ec)
    samp_logits = x @ w[sampled].T + b[sampled] - np.log(samp_ec)
    logits = np.concatenate([true_logits[:, None], samp_logits], 1)
    z = np.concatenate([np.ones((2, 1)), np.zeros((2, 3))], 1)
    return (np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))).sum(1)


def _nce(tf, w, b, x):
    sv = (tf.constant(np.array([0, 5, 4], np.int64)), tf.constant(np.float32([[0.5], [0.2]])),
          tf.constant(np.float32([0.3, 0.1, 0.2])))
    return tf.nn.nce_loss(w, b, [[1], [4]], x, num_sampled=3, num_classes=6,
                          sampled_values=sv)


ROWS = [
    # ── DynamicPartition ──
    OpCase("DynamicPartition", lambda tf, d, p: _stitch.dynamic_partition(d, p, 3),
           lambda d, p: _partition_ref(d, p, 3), [DATA53, PARTS]),
    OpCase("DynamicPartition", lambda tf, d, p: _stitch.dynamic_partition(d, p, 2),
           lambda d, p: _partition_ref(d, p, 2),
           [rand(2, 3, 2), np.array([[0, 1, 1], [1, 0, 0]], np.int32)], id="DynamicPartition-2d"),
    # ── DynamicStitch, ParallelDynamicStitch ──
    OpCase("DynamicStitch", lambda tf, i0, i1, d0, d1: tf.dynamic_stitch([i0, i1], [d0, d1]),
           _stitch_ref, [np.array([0, 3], np.int32), np.array([[1], [2]], np.int32), rand(2, 3),
                         rand(2, 1, 3)]),
    OpCase("ParallelDynamicStitch",
           lambda tf, i0, i1, d0, d1: _stitch.parallel_dynamic_stitch([i0, i1], [d0, d1]),
           _stitch_ref, [np.array([0, 3], np.int32), np.array([[1], [2]], np.int32), rand(2, 3),
                         rand(2, 1, 3)]),
    # ── SparseToDense ──
    OpCase("SparseToDense", lambda tf, i, s, v, d: _emb.sparse_to_dense(i, s, v, d),
           _sparse_to_dense_ref, [np.array([[0, 1], [2, 0]], np.int32), np.array([3, 2], np.int32),
                                  np.float32([5.0, -1.5]), np.array(0.25, np.float32)]),
    OpCase("SparseToDense", lambda tf, i, s, v, d: _emb.sparse_to_dense(i, s, v, d),
           _sparse_to_dense_ref, [np.array([1, 3], np.int64), np.array([5], np.int64),
                                  np.array(2.0, np.float32),
                                  np.array(-1.0, np.float32)], id="SparseToDense-scalar"),
    # ── embedding_lookup (GatherV2; DynamicPartition + ParallelDynamicStitch) ──
    OpCase("GatherV2", lambda tf, p, i: tf.nn.embedding_lookup(p, i), lambda p, i: p[i],
           [P64, IDS], id="embedding_lookup"),
    OpCase("GatherV2", lambda tf, p, i: tf.nn.embedding_lookup(p, i, max_norm=0.8),
           lambda p, i: _clip_rows(p[i], 0.8), [P64, IDS], id="embedding_lookup-max_norm",
           rtol=1e-5),
    OpCase("ParallelDynamicStitch",
           lambda tf, p0, p1, i: tf.nn.embedding_lookup([p0, p1], i),
           lambda p0, p1, i: P64[i], _mod_shards(P64, 2) + [IDS], id="embedding_lookup-mod"),
    OpCase("ParallelDynamicStitch",
           lambda tf, p0, p1, p2, i: tf.nn.embedding_lookup([p0, p1, p2], i, "div", max_norm=1.0),
           lambda p0, p1, p2, i: _clip_rows(P64[i], 1.0), [P64[:2], P64[2:4], P64[4:], IDS],
           id="embedding_lookup-div-max_norm", rtol=1e-5),
    # ── candidate samplers ──
    OpCase("LogUniformCandidateSampler",
           lambda tf: tf.nn.log_uniform_candidate_sampler(
               tf.constant(np.array([[1], [7]], np.int64)), 1, 20, True, 100, seed=1),
           _sampler_stats(20, 100, True), check_values=False),
    OpCase("LogUniformCandidateSampler",
           lambda tf: tf.nn.log_uniform_candidate_sampler(
               tf.constant(np.array([[1, 2]], np.int64)), 2, 50, False, 30, seed=2),
           _sampler_stats(50, 30, False), check_values=False, id="LogUniform-repeats"),
    OpCase("UniformCandidateSampler",
           lambda tf: tf.nn.uniform_candidate_sampler(
               tf.constant(np.array([[1], [7]], np.int64)), 1, 12, True, 40, seed=3),
           _sampler_stats(12, 40, True), check_values=False),
    OpCase("ComputeAccidentalHits",
           lambda tf, t, s: tf.nn.compute_accidental_hits(t, s, num_true=2),
           lambda t, s: [np.int32([0, 1, 1]), np.int64([1, 2, 0]),
                         np.full(3, -np.finfo(np.float32).max, np.float32)],
           [np.array([[4, 9], [2, 7]], np.int64), np.array([7, 4, 2], np.int64)]),
    # ── nce_loss (composite: gathers, MatMul, SparseToDense when removing hits) ──
    OpCase("SparseToDense",
           lambda tf, w, b, x: tf.nn.nce_loss(
               w, b, [[1], [4]], x, num_sampled=3, num_classes=6, remove_accidental_hits=True,
               sampled_values=(tf.constant(np.array([0, 5, 3], np.int64)),
                               tf.constant(np.float32([[0.5], [0.2]])),
                               tf.constant(np.float32([0.3, 0.1, 0.2])))),
           lambda *v: None, [P64, rand(6), rand(2, 4)], check_values=False,
           id="nce_loss-accidental-hits"),
    OpCase("LogUniformCandidateSampler",
           lambda tf, w, b, x: tf.nn.sampled_softmax_loss(w, b, [[1], [4]], x, num_sampled=3,
                                                         num_classes=6, seed=4),
           lambda *v: None, [P64, rand(6), rand(2, 4)], check_values=False, check_grad=False,
           id="sampled_softmax_loss-default-sampler"),
    OpCase("GatherV2", _nce, _nce_ref, [P64, rand(6), rand(2, 4)], id="nce_loss", rtol=1e-5,
           atol=1e-5),
]
