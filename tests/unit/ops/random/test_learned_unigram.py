"""tf.nn/tf.random.learned_unigram_candidate_sampler against TF 2.21: the exact candidates
and expected counts of successive runs for given seeds (the weights learn from each run's
true classes), unique or not, graph seeds, names, shapes and errors."""

from __future__ import annotations

import numpy as np

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
def run3(unique, seed, tc, k, rng, n=3):
    s, t, c = tf.nn.learned_unigram_candidate_sampler(tc, len(tc[0]), k, unique, rng, seed=seed)
    sess = tf.Session()
    return {"runs": [sess.run([s, t, c]) for _ in range(n)], "names": [s.name, t.name, c.name],
            "shapes": [sh(s), sh(t), sh(c)]}
rec("u_s1", lambda: run3(True, 1, [[1], [3]], 4, 10))
rec("nu_s1", lambda: run3(False, 1, [[1], [3]], 4, 10))
rec("u_s7", lambda: run3(True, 7, [[0, 2], [2, 9]], 6, 12, 4))
rec("nu_big", lambda: run3(False, 42, [[5, 5, 7]], 20, 50))
rec("u_tight", lambda: run3(True, 3, [[1]], 5, 5))
def graph_seed():
    tf.set_random_seed(5)
    return run3(True, None, [[1], [2]], 3, 8)
rec("graph_seed", graph_seed)
rec("too_small", lambda: run3(True, 3, [[1]], 6, 5))
rec("random_ns", lambda: tf.random.learned_unigram_candidate_sampler([[1]], 1, 2, False, 5, seed=2)[0].op.type)
'''


def test_learned_unigram_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    assert_same(ours, theirs, rtol=1e-6, atol=1e-7)


def test_learned_unigram_runs_without_tf():
    """TF 2.21's first two runs for seed 1 (unique, 4 of 10, true classes 1 and 3): the
    second run's counts see the weights 1 and 3 gained."""
    with tf.Graph().as_default():
        s, t, c = tf.nn.learned_unigram_candidate_sampler([[1], [3]], 1, 4, True, 10,
                                                          seed=1)
        sess = tf.Session()
        first, second = sess.run([s, t, c]), sess.run([s, t, c])
    assert first[0].tolist() == [7, 9, 3, 2]
    np.testing.assert_allclose(first[1].ravel(), [0.4, 0.4], rtol=1e-6)
    assert second[0].tolist() == [6, 7, 5, 3]
    np.testing.assert_allclose(second[2], [0.45614883, 0.45614883, 0.45614883, 0.72091836],
                               rtol=1e-6)
