"""Op-table rows for the random ops: values are checked statistically inside ``ref``."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase


def _uniform_stats(lo, hi, dtype=np.float32):
    def ref(v):
        assert v.dtype == dtype and v.shape == (100, 50)
        assert v.min() >= lo and v.max() < hi
        assert abs(v.mean() - (lo + hi) / 2) < 0.05 * (hi - lo)
        assert abs(v.std() - (hi - lo) / np.sqrt(12)) < 0.05 * (hi - lo)
    return ref


def _normal_stats(mean, std, truncated=False):
    def ref(v):
        assert v.shape == (100, 50)
        assert abs(v.mean() - mean) < 0.1 * std
        want_std = std * (0.8796 if truncated else 1.0)
        assert abs(v.std() - want_std) < 0.05 * std
        if truncated:
            assert np.all(np.abs(v - mean) <= 2 * std)
        else:
            assert np.any(np.abs(v - mean) > 2 * std)
    return ref


def _int_stats(v):
    assert v.dtype == np.int64 and v.shape == (2000,)
    assert v.min() >= -3 and v.max() < 7
    assert set(np.unique(v).tolist()) == set(range(-3, 7))


def _is_permutation(x):
    def ref(v):
        assert v.shape == x.shape
        assert sorted(map(tuple, v.reshape(len(v), -1))) == sorted(map(tuple, x.reshape(len(x), -1)))
        assert not np.array_equal(v, x)
    return ref


_PROBS = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])


def _multinomial_stats(dtype):
    def ref(v):
        assert v.dtype == dtype and v.shape == (2, 4000)
        freq = np.stack([np.bincount(row, minlength=3) / row.size for row in v])
        np.testing.assert_allclose(freq, _PROBS, atol=0.03)
    return ref


_SHUFFLE_1D = np.arange(50, dtype=np.int32)
_SHUFFLE_2D = np.arange(40, dtype=np.float32).reshape(20, 2)

ROWS = [
    OpCase("RandomUniform", lambda tf: tf.random_uniform([100, 50], seed=1),
           _uniform_stats(0.0, 1.0), check_values=False, id="RandomUniform-unit"),
    OpCase("RandomUniform", lambda tf: tf.random_uniform([100, 50], -3.0, 5.0, seed=2),
           _uniform_stats(-3.0, 5.0), check_values=False, id="RandomUniform-range"),
    OpCase("RandomUniform", lambda tf: tf.random_uniform([100, 50], dtype=tf.float64),
           _uniform_stats(0.0, 1.0, np.float64), check_values=False, id="RandomUniform-f64"),
    OpCase("RandomUniformInt",
           lambda tf: tf.random_uniform([2000], -3, 7, dtype=tf.int64, seed=3),
           _int_stats, check_values=False),
    OpCase("RandomStandardNormal", lambda tf: tf.random_normal([100, 50], 2.0, 3.0, seed=4),
           _normal_stats(2.0, 3.0), check_values=False),
    OpCase("TruncatedNormal", lambda tf: tf.truncated_normal([100, 50], -1.0, 0.5, seed=5),
           _normal_stats(-1.0, 0.5, truncated=True), check_values=False),
    OpCase("Multinomial", lambda tf, x: tf.multinomial(x, 4000, seed=7),
           _multinomial_stats(np.int64), [np.log(_PROBS).astype(np.float32)],
           check_values=False),
    OpCase("Multinomial",
           lambda tf, x: tf.random.categorical(x, 4000, dtype=tf.int32),
           _multinomial_stats(np.int32), [np.log(_PROBS) + 3.0], check_values=False,
           id="Multinomial-categorical-f64"),
    OpCase("RandomShuffle", lambda tf, x: tf.random_shuffle(x, seed=6),
           _is_permutation(_SHUFFLE_1D), [_SHUFFLE_1D], check_values=False,
           id="RandomShuffle-1d"),
    OpCase("RandomShuffle", lambda tf, x: tf.random_shuffle(x),
           _is_permutation(_SHUFFLE_2D), [_SHUFFLE_2D], check_values=False,
           id="RandomShuffle-2d"),
]
