"""tf.nn.fractional_max_pool / fractional_avg_pool against TF 2.21: the pooling sequences
TF's Philox generator gives for given seeds (random and pseudo-random, overlapping or
not), values, static shapes, errors, and the FractionalMaxPoolGrad/FractionalAvgPoolGrad
gradients."""

from __future__ import annotations

import numpy as np

import scopeflow as tf
from scopeflow.ops.nn.fractional_pool_ops import pooling_sequence
from scopeflow.ops.random.philox import PhiloxStream

from ..misc2_harness import assert_same, run_both

CASES = '''
x = (np.arange(2 * 10 * 9 * 3, dtype=np.float32).reshape(2, 10, 9, 3) * 7 % 11) / 3
S = tf.Session
def pool(fn, ratio, *args, dtype=np.float32):
    r = fn(x.astype(dtype), ratio, *args)
    return {"v": list(S().run(r)), "shapes": [sh(t) for t in r], "names": [t.name for t in r],
            "fields": list(type(r)._fields)}
for fname, fn in [("max", tf.nn.fractional_max_pool), ("avg", tf.nn.fractional_avg_pool)]:
    for pr in (False, True):
        for ov in (False, True):
            for seeds in ((1, 2), (7, 0), (123456789, 987654321)):
                rec(f"{fname}_{pr}_{ov}_{seeds}",
                    lambda: pool(fn, [1., 1.44, 1.73, 1.], pr, ov, True, *seeds))
    rec(fname + "_divisible", lambda: pool(fn, [1., 2., 1.3, 1.], True, False, True, 3, 4))
    rec(fname + "_f64", lambda: pool(fn, [1., 1.5, 1.5, 1.], False, True, True, 5, 6,
                                     dtype=np.float64))
    rec(fname + "_i64", lambda: pool(fn, [1., 1.5, 1.5, 1.], False, False, True, 5, 6,
                                     dtype=np.int64))
    rec(fname + "_unknown", lambda: [sh(t) for t in fn(tf.placeholder(tf.float32),
                                                       [1., 1.5, 1.5, 1.])])
    rec(fname + "_partial", lambda: [sh(t) for t in fn(tf.placeholder(
        tf.float32, [None, 9, None, 3]), [1., 1.5, 1.5, 1.])])
    rec(fname + "_ratio_len", lambda: pool(fn, [1.5, 1.5]))
    rec(fname + "_rank", lambda: sh(fn(tf.zeros([3, 4]), [1., 1.5, 1.5, 1.])[0]))
    rec(fname + "_batch", lambda: pool(fn, [2., 1.5, 1.5, 1.], False, False, True, 1, 1))
    rec(fname + "_seed_nondet", lambda: pool(fn, [1., 1.5, 1.5, 1.], False, False, False,
                                             1, 1))
    rec(fname + "_bool", lambda: sh(fn(tf.zeros([1, 4, 4, 1], tf.bool), [1., 2., 2., 1.])[0]))
    def grad(fn=fn, ov=False, pr=False):
        v = tf.constant(x)
        r = fn(v, [1., 1.44, 1.73, 1.], pr, ov, True, 11, 12)
        w = np.arange(2 * 6 * 5 * 3, dtype=np.float32).reshape(2, 6, 5, 3) % 5
        g = tf.gradients(r.output * w, v)[0]
        return {"g": S().run(g), "type": g.op.type, "shape": sh(g)}
    rec(fname + "_grad", grad)
    rec(fname + "_grad_ov", lambda: grad(ov=True, pr=True))
def ties():
    v = tf.constant(np.ones([1, 5, 5, 1], np.float32))
    r = tf.nn.fractional_max_pool(v, [1., 1.6, 1.6, 1.], False, True, True, 3, 3)
    return S().run(tf.gradients(r.output, v))
rec("max_grad_ties", ties)
def grad_of_grad():
    v = tf.constant(x)
    g = tf.gradients(tf.nn.fractional_max_pool(v, [1., 1.5, 1.5, 1.], False, False, True,
                                               1, 1).output, v)[0]
    return tf.gradients(g, v)
rec("max_grad_grad", grad_of_grad)
'''


def test_fractional_pool_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    for rec in (ours, theirs):   # the refusal of a zero-size output is not TF's DCHECK
        rec.pop("max_batch", None), rec.pop("avg_batch", None)
    assert_same(ours, theirs)


def test_pooling_sequences_without_tf():
    """TF 2.21's sequences for seeds (1, 2) and (7, 0): 10 rows to 6, 9 columns to 5."""
    for seeds, pseudo, rows, cols in [
            ((1, 2), False, [0, 1, 3, 4, 6, 8, 10], [0, 2, 3, 5, 7, 9]),
            ((7, 0), False, [0, 2, 4, 5, 6, 8, 10], [0, 2, 4, 6, 7, 9]),
            ((1, 2), True, [0, 2, 3, 5, 7, 8, 10], [0, 2, 3, 5, 7, 9]),
            ((7, 0), True, [0, 1, 3, 5, 6, 8, 10], [0, 2, 4, 6, 8, 9])]:
        stream = PhiloxStream(*seeds)
        assert pooling_sequence(10, 6, stream, pseudo).tolist() == rows
        assert pooling_sequence(9, 5, stream, pseudo).tolist() == cols


def test_fractional_avg_pool_values_without_tf():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    with tf.Graph().as_default():
        r = tf.nn.fractional_avg_pool(x, [1., 2., 2., 1.], deterministic=True, seed=1,
                                      seed2=1)
        out = tf.Session().run(r.output)
    np.testing.assert_allclose(out[0, :, :, 0], [[2.5, 4.5], [10.5, 12.5]])
