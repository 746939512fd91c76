"""Op-table rows for the stateless random ops, the gamma/Poisson samplers and the
candidate samplers: stateless values are TF 2.21's own (recorded from its CPU kernels)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase


def _key_counter(*_):
    # StatelessRandomGetKeyCounter of seed [1, 2] under TF 2.21.
    return [np.array([10413732777507651514], np.uint64),
            np.array([0, 17830669156045600267], np.uint64)]


def _get_key_counter(tf):
    from scopeflow.ops.random.stateless_random_ops import get_key_counter_alg
    key, counter, _ = get_key_counter_alg([1, 2], "auto_select")
    return [key, counter]


def _gamma_grad(tf, a, x):
    from scopeflow.ops.random.random_gamma_ops import random_gamma_grad_op
    return random_gamma_grad_op.bind(a, x, T=tf.float64)


def _f32(*values):
    return lambda *_: np.array(values, np.float32)


def _gamma_stats(alpha, beta):
    def ref(v):
        assert v.shape == (4000, 2) and v.dtype == np.float32 and v.min() > 0
        np.testing.assert_allclose(v.mean(axis=0), np.array(alpha) / beta, rtol=0.06)
        np.testing.assert_allclose(v.var(axis=0), np.array(alpha) / beta ** 2, rtol=0.15)
    return ref


def _poisson_stats(lam, dtype):
    def ref(v):
        assert v.shape == (4000, len(lam)) and v.dtype == dtype
        assert np.all(v == np.round(v)) and v.min() >= 0
        np.testing.assert_allclose(v.mean(axis=0), lam, rtol=0.06)
        np.testing.assert_allclose(v.var(axis=0), lam, rtol=0.15)
    return ref


def _binomial_stats(counts, probs):
    def ref(v):
        assert v.shape == (4000, 2) and v.dtype == np.int32
        mean = np.multiply(counts, probs)
        np.testing.assert_allclose(v.mean(axis=0), mean, rtol=0.06)
        np.testing.assert_allclose(v.var(axis=0), mean * (1 - np.array(probs)), rtol=0.15)
    return ref


def _unigram_stats(v, *_):
    assert v.shape == (4000,) and v.dtype == np.int64
    np.testing.assert_allclose(np.bincount(v, minlength=3) / v.size, [0.1, 0.3, 0.6],
                               atol=0.03)


ROWS = [
    OpCase("StatelessRandomGetKeyCounter", _get_key_counter, _key_counter, atol=0, rtol=0),
    OpCase("StatelessRandomUniformV2",
           lambda tf: tf.random.stateless_uniform([4], seed=[1, 2]),
           _f32(0.8440604, 0.19204533, 0.9962232, 0.1603874), atol=0, rtol=0),
    OpCase("StatelessRandomNormalV2",
           lambda tf: tf.random.stateless_normal([4], seed=[3, 4], dtype=tf.float64),
           lambda: np.array([-0.33108455971554474, 0.027812399664981575,
                             -1.4892401731006637, 1.0462064603947236]), atol=0, rtol=0),
    OpCase("StatelessTruncatedNormalV2",
           lambda tf: tf.random.stateless_truncated_normal([5], seed=[5, 6]),
           _f32(1.0239844, -0.53878856, 1.2795534, 0.9120099, -1.5643606), atol=0, rtol=0),
    OpCase("StatelessRandomUniformIntV2",
           lambda tf: tf.random.stateless_uniform([6], seed=[7, 8], minval=-3, maxval=9,
                                                  dtype=tf.int64),
           lambda: np.array([-2, 2, 2, 6, 2, 6], np.int64), atol=0, rtol=0),
    OpCase("StatelessRandomUniformFullIntV2",
           lambda tf: tf.random.stateless_uniform([3], seed=[9, 10], minval=None,
                                                  maxval=None, dtype=tf.int32),
           lambda: np.array([-1188781931, 1499295775, 1715345162], np.int32), atol=0, rtol=0),
    OpCase("StatelessMultinomial",
           lambda tf, x: tf.random.stateless_categorical(x, 8, seed=[11, 12]),
           lambda x: np.array([[0, 2, 0, 2, 1, 0, 2, 2]], np.int64),
           [np.log([[0.2, 0.3, 0.5]]).astype(np.float32)], atol=0, rtol=0),
    OpCase("RandomGamma", lambda tf: tf.random.gamma([4000], [0.5, 4.0], beta=2.0, seed=3),
           _gamma_stats([0.5, 4.0], 2.0), check_values=False, check_grad=False),
    OpCase("StatelessRandomGammaV3",
           lambda tf: tf.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[0.5, 3.0]),
           lambda: np.array([[0.0669536143541336, 3.3503754138946533],
                             [0.6282354593276978, 3.403514862060547],
                             [0.18136732280254364, 2.4479711055755615]], np.float32), atol=0, rtol=0),
    OpCase("RandomPoissonV2", lambda tf: tf.random.poisson([0.7, 4.0, 30.0], [4000], seed=4),
           _poisson_stats([0.7, 4.0, 30.0], np.float32), check_values=False),
    OpCase("RandomPoissonV2",
           lambda tf: tf.random_poisson([12.5], [4000], dtype=tf.int64),
           _poisson_stats([12.5], np.int64), check_values=False, id="RandomPoissonV2-int64"),
    OpCase("StatelessRandomPoisson",
           lambda tf: tf.random.stateless_poisson([2, 3], seed=[3, 4], lam=[2.0, 15.0, 0.5]),
           lambda: np.array([[3, 21, 1], [2, 15, 2]], np.int32), atol=0, rtol=0),
    OpCase("AllCandidateSampler",
           lambda tf, x: list(tf.random.all_candidate_sampler(x, 2, 5, True, seed=3)),
           lambda x: [np.arange(5), np.ones((2, 2), np.float32), np.ones(5, np.float32)],
           [np.array([[1, 2], [3, 4]], np.int64)]),
    OpCase("RandomIndexShuffle",
           lambda tf, i: tf.random_index_shuffle(i, [1, 2, 3], 9),
           lambda i: np.array([2, 0, 6, 4, 8, 1, 7, 9, 5, 3], np.int32),
           [np.arange(10, dtype=np.int32)], atol=0, rtol=0),
    OpCase("StatelessRandomBinomial",
           lambda tf: tf.random.stateless_binomial([4000, 2], seed=[1, 2], counts=[8.0, 90.0],
                                                   probs=[0.25, 0.5]),
           _binomial_stats([8.0, 90.0], [0.25, 0.5]), check_values=False),
    OpCase("StatelessParameterizedTruncatedNormal",
           lambda tf: tf.random.stateless_parameterized_truncated_normal([7], seed=[1, 2]),
           lambda: np.array([1057704653, 1045715841, 1033283812, 1027486248, 3215366783,
                             3212062705, 1062697862], np.uint32).view(np.float32),
           atol=0, rtol=0),
    # TF 2.21's RandomGammaGrad (Eigen's gamma_sample_der_alpha) at these points.
    OpCase("RandomGammaGrad",
           _gamma_grad,
           lambda a, x: np.array([0.4227934381297027, 1.0098019459488548, 1.6316914623496996,
                                  1.349881068559514, 0.8955497027460751, 0.0]),
           [np.array([0.1, 0.5, 1.0, 3.0, 50.0, 0.7]),
            np.array([0.01, 0.3, 2.0, 5.0, 40.0, 0.0])], rtol=1e-13, atol=0,
           check_grad=False),
    OpCase("FixedUnigramCandidateSampler",
           lambda tf, x: tf.random.fixed_unigram_candidate_sampler(
               x, 1, 4000, False, 3, unigrams=[1.0, 3.0, 6.0], seed=2)[0],
           _unigram_stats, [np.array([[0]], np.int64)], check_values=False),
]
