"""Candidate samplers and accidental hits: bit-exact against TensorFlow 2.21's CPU kernels.

TF's values are in ``tests/fixtures/tf_embedding/cases.json`` (``samplers``): two runs of
each sampler op in one session, so the per-session Philox stream position is checked too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "tf_embedding"
WANT = json.loads((HERE / "cases.json").read_text())["samplers"]
CONFIGS = [("log", 1, 8, True, 100, 3, None), ("log", 1, 8, False, 100, 3, None),
           ("log", 2, 64, True, 50000, 7, None), ("log", 1, 10, True, 10, 5, None),
           ("log", 1, 16, False, 1000, None, 42), ("uni", 1, 8, True, 100, 3, None),
           ("uni", 1, 8, False, 100, 3, None), ("uni", 3, 20, True, 30, 11, 5)]


def _run(kind, num_true, n, unique, range_max, seed, graph_seed, runs=2):
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    true = np.arange(2 * num_true, dtype=np.int64).reshape(2, num_true) * 3 + 1
    fn = tf.nn.log_uniform_candidate_sampler if kind == "log" else \
        tf.nn.uniform_candidate_sampler
    outs = fn(tf.constant(true), num_true, n, unique, range_max, seed=seed)
    with tf.Session() as sess:
        return outs, [sess.run(list(outs)) for _ in range(runs)]


@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_sampler_bit_exact_with_tf(i):
    cfg = CONFIGS[i]
    key = f"{i}_{cfg[0]}_{'u' if cfg[3] else 'r'}_{cfg[4]}"
    outs, runs = _run(*cfg)
    assert [t.dtype.name for t in outs] == ["int64", "float32", "float32"]
    assert outs[0].shape.as_list() == [cfg[2]] and outs[1].shape.as_list() == [2, cfg[1]]
    for (s, t, c), (ws, wt, wc) in zip(runs, WANT[key]):
        assert s.tolist() == ws
        np.testing.assert_array_equal(t, np.array(wt, np.float32))
        np.testing.assert_array_equal(c, np.array(wc, np.float32))


def test_unique_sampler_has_no_repeats_and_expected_counts_formula():
    outs, [(s, t, c)] = _run("log", 1, 50, True, 60, 9, None, runs=1)
    assert len(set(s.tolist())) == 50
    assert np.all((c > 0) & (c <= 1)) and np.all((t > 0) & (t <= 1))


def test_log_uniform_distribution():
    _, runs = _run("log", 1, 4000, False, 20, 1, None, runs=1)
    s = runs[0][0]
    freq = np.bincount(s, minlength=20) / s.size
    p = np.log((np.arange(20) + 2.0) / (np.arange(20) + 1.0)) / np.log(21.0)
    np.testing.assert_allclose(freq, p, atol=0.03)
    np.testing.assert_allclose(runs[0][2], np.float32(p[s]) * np.float32(4000), rtol=1e-6)


def test_range_too_small_for_unique():
    s, _, _ = tf.nn.uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 5, True, 3)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="range is too small"):
        sess.run(s)


def test_static_shape_errors():
    with pytest.raises(ValueError):
        tf.nn.log_uniform_candidate_sampler(tf.constant([[1, 2]], tf.int64), 1, 3, True, 10)


def test_compute_accidental_hits_matches_tf():
    hits = tf.nn.compute_accidental_hits(
        tf.constant(np.array([[1, 5], [7, 2], [4, 4]], np.int64)),
        tf.constant(np.array([5, 4, 1, 4, 9], np.int64)), num_true=2)
    with tf.Session() as sess:
        got = [v.tolist() for v in sess.run(list(hits))]
    assert got[:2] == WANT["accidental_hits"][:2]
    np.testing.assert_array_equal(np.float32(got[2]), np.float32(WANT["accidental_hits"][2]))


@pytest.mark.tf
def test_live_samplers_against_tensorflow(tf1):
    code = """
    s = tf.nn.log_uniform_candidate_sampler(tf.constant([[3], [8]], tf.int64), 1, 32, True,
                                            5000, seed=77)
    u = tf.nn.uniform_candidate_sampler(tf.constant([[3], [8]], tf.int64), 1, 32, False,
                                        5000, seed=78)
    with tf.Session() as sess:
        print(json.dumps([[v.tolist() for v in sess.run(list(x))] for x in (s, u, s)]))
    """
    want = tf1(code)
    s = tf.nn.log_uniform_candidate_sampler(tf.constant([[3], [8]], tf.int64), 1, 32, True,
                                            5000, seed=77)
    u = tf.nn.uniform_candidate_sampler(tf.constant([[3], [8]], tf.int64), 1, 32, False,
                                        5000, seed=78)
    with tf.Session() as sess:
        got = [[v.tolist() for v in sess.run(list(x))] for x in (s, u, s)]
    for g, w in zip(got, want):
        assert g[0] == w[0]
        np.testing.assert_array_equal(np.float32(g[1]), np.float32(w[1]))
        np.testing.assert_array_equal(np.float32(g[2]), np.float32(w[2]))


def test_runs_computed_ahead_equal_the_plain_stream():
    """Prefixes of upcoming runs are computed in batches; each run still reads exactly the
    words TF's kernel reads (``ReserveSamples32(2048 * num_sampled)`` per run)."""
    from scopeflow.framework import random_seed
    from scopeflow.ops import philox
    s, _, _ = tf.nn.log_uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 6, False,
                                                  1000, seed=5)
    with tf.Session() as sess:
        got = [sess.run(s).tolist() for _ in range(12)]
    stream = philox.PhiloxStream(random_seed.DEFAULT_GRAPH_SEED, 5)
    want = []
    for _ in range(12):
        w = stream.words(stream.reserve32(2048 * 6), 12).astype(np.uint64).reshape(6, 2)
        u = (((w[:, 0] & np.uint64(0xFFFFF)) << np.uint64(32)) | w[:, 1]) * 2.0**-52
        want.append(((np.exp(u * np.log1p(1000)).astype(np.int64) - 1) % 1000).tolist())
    assert got == want
