"""Candidate samplers and accidental hits: bit-exact against TensorFlow 2.21's CPU kernels.

TF's values are in ``tests/fixtures/tf_embedding/cases.json`` (``samplers``): two runs of
each sampler op in one session, so the per-session Philox stream position is checked too.
TF's kernel takes ``exp``/``log`` (double) and ``log1p``/``expm1`` (float) from the C
library; so do ours (``scopeflow.ops.math.libm``), never from NumPy's SIMD loops, which differ in
the last bit on some CPUs: the tests marked ``bitexact`` check that (CI also runs them with
NumPy's SIMD dispatch off).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

HERE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_embedding"
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


@pytest.mark.bitexact
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


@pytest.mark.bitexact
def test_compute_accidental_hits_matches_tf():
    hits = tf.nn.compute_accidental_hits(
        tf.constant(np.array([[1, 5], [7, 2], [4, 4]], np.int64)),
        tf.constant(np.array([5, 4, 1, 4, 9], np.int64)), num_true=2)
    with tf.Session() as sess:
        got = [v.tolist() for v in sess.run(list(hits))]
    assert got[:2] == WANT["accidental_hits"][:2]
    np.testing.assert_array_equal(np.float32(got[2]), np.float32(WANT["accidental_hits"][2]))


@pytest.mark.bitexact
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


@pytest.mark.bitexact
def test_runs_computed_ahead_equal_the_plain_stream():
    """Prefixes of upcoming runs are computed in batches; each run still reads exactly the
    words TF's kernel reads (``ReserveSamples32(2048 * num_sampled)`` per run)."""
    from scopeflow.framework import random_seed
    from scopeflow.ops.random import philox
    s, _, _ = tf.nn.log_uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 6, False,
                                                  1000, seed=5)
    with tf.Session() as sess:
        got = [sess.run(s).tolist() for _ in range(12)]
    stream = philox.PhiloxStream(random_seed.DEFAULT_GRAPH_SEED, 5)
    want = []
    for _ in range(12):
        w = stream.words(stream.reserve32(2048 * 6), 12).astype(np.uint64).reshape(6, 2)
        u = (((w[:, 0] & np.uint64(0xFFFFF)) << np.uint64(32)) | w[:, 1]) * 2.0**-52
        want.append([(int(math.exp(v * math.log1p(1000))) - 1) % 1000 for v in u.tolist()])
    assert got == want


# ── the bits come from the C library, not NumPy's transcendental ufuncs ─────────────
def _nudged(f, factor):
    """``f`` with its results scaled by ``factor`` (as a different SIMD loop might round)."""
    return lambda *args, **kwargs: f(*args, **kwargs) * factor


def _borderline_words(range_max, targets):
    """Philox words whose ``RandDouble() * log1p(range_max)`` has a C-library ``exp``
    just below an integer ``m`` (and the next double's at or above it), per ``m``."""
    log_range = math.log1p(range_max)
    x0, x1, values = [], [], []
    for m in targets:
        man = int(math.log(m) / log_range * 2.0**52)
        while math.exp(man * 2.0**-52 * log_range) >= m:
            man -= 1
        while math.exp((man + 1) * 2.0**-52 * log_range) < m:
            man += 1
        x0.append(man >> 32)
        x1.append(man & 0xFFFFFFFF)
        values.append(math.exp(man * 2.0**-52 * log_range))
    return np.array(x0, np.uint64), np.array(x1, np.uint64), values


@pytest.mark.bitexact
def test_log_uniform_samples_at_integer_borders_follow_the_c_library(monkeypatch):
    """Where ``exp`` lands within a few ulps below an integer, the class is the C
    library's, however NumPy's ``exp`` rounds (a NumPy loop a few ulps off would pick
    the next class)."""
    from scopeflow.ops.random import candidate_sampling_ops as cs
    range_max = 50000
    targets = [2, 3, 7, 100, 4097, 49999, 50001]
    x0, x1, values = _borderline_words(range_max, targets)
    want = [(int(v) - 1) % range_max for v in values]
    assert want == [(m - 2) % range_max for m in targets]
    sampler = cs._LogUniformSampler(range_max)
    for factor in (1.0, 1 + 2.0**-40, 1 - 2.0**-40):
        monkeypatch.setattr(np, "exp", _nudged(np.exp, factor) if factor != 1.0 else np.exp)
        assert sampler.sample(x0, x1).tolist() == want
        monkeypatch.undo()
    # The test has teeth: NumPy's exp nudged up crosses the integers.
    u = ((x0 << np.uint64(32)) | x1).astype(np.float64) * 2.0**-52
    crossed = (np.exp(u * sampler.log_range) * (1 + 2.0**-40)).astype(np.int64) - 1
    assert crossed.tolist() != want


@pytest.mark.bitexact
def test_samplers_keep_tf_bits_when_numpy_transcendentals_round_differently(monkeypatch):
    """NumPy's ``exp``/``log``/``log1p``/``expm1`` nudged (as another CPU's SIMD loops
    might round them) leave every sampler output bit-identical to TF's: a regression to
    those ufuncs where bits are promised fails here, on any CPU. (NumPy's double
    ``exp``/``log`` may locate results: nudged within ``libm``'s bound, ``2**-32``.)"""
    _, plain = _run("log", 1, 64, True, 50000, 7, None, runs=40)   # the class table too
    for name, factor in (("exp", 1 + 2.0**-40), ("log", 1 - 2.0**-40), ("log1p", 1.001),
                         ("expm1", 1.001)):
        monkeypatch.setattr(np, name, _nudged(getattr(np, name), factor))
    for i in range(len(CONFIGS)):
        tf.reset_default_graph()
        test_sampler_bit_exact_with_tf(i)
    tf.reset_default_graph()
    _, nudged = _run("log", 1, 64, True, 50000, 7, None, runs=40)
    for got, want in zip(nudged, plain):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@pytest.mark.bitexact
def test_log_uniform_probabilities_are_the_c_librarys(monkeypatch):
    """``P(c)`` is float32 of the double ``log(...) / log_range`` with the C library's
    ``log``, also for classes whose double value lies within a hair of a float32 rounding
    boundary (where a NumPy ``log`` a few ulps off rounds to the neighbour)."""
    from scopeflow.ops.random import candidate_sampling_ops as cs
    teeth = 0
    for range_max in (10, 1000, 50000, 2**40):
        sampler = cs._LogUniformSampler(range_max)
        log_range = math.log1p(range_max)
        v = np.arange(min(range_max, 1 << 21))
        log_ratio = np.log((v + 2.0) / (v + 1.0))
        up, down = ((log_ratio * f / log_range).astype(np.float32)
                    for f in (1 + 2.0**-40, 1 - 2.0**-40))
        v = np.unique(np.concatenate([v[:3000], v[up != down],
                                      np.geomspace(1, range_max - 1, 3000).astype(np.int64)]))
        want = np.array([math.log((c + 2.0) / (c + 1.0)) / log_range for c in v.tolist()],
                        np.float32)
        for factor in (1.0, 1 + 2.0**-40, 1 - 2.0**-40):
            with monkeypatch.context() as m:
                m.setattr(np, "log", _nudged(np.log, factor))
                np.testing.assert_array_equal(sampler.prob(v), want)
        teeth += int((up != down).sum())
    assert teeth > 10   # borderline classes were checked: a nudged NumPy log misses them
