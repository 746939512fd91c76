"""tf.nn.ctc_loss_v2 against TF 2.21: dense labels (label_length, logit_length, blank_index,
batch-major logits) and sparse labels, loss values and gradients, static shapes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
rng = np.random.default_rng(0)
T, B, C = 5, 3, 4
logits = rng.normal(size=(T, B, C)).astype(np.float32)
labels = np.array([[1, 2, 0], [3, 3, 0], [1, 2, 3]], np.int32)
def dense(lab_len, log_len, **kw):
    lg = tf.constant(logits if kw.get("logits_time_major", True) else logits.transpose(1, 0, 2))
    l = tf.nn.ctc_loss_v2(labels, lg, lab_len, log_len, **kw)
    g = tf.gradients(l, lg)[0]
    return {"v": tf.Session().run([l, g]), "shape": sh(l), "gshape": sh(g)}
rec("dense", lambda: dense([2, 2, 2], [5, 4, 3]))
rec("dense_blank2", lambda: dense([2, 1, 3], [5, 4, 5], blank_index=2))
rec("dense_blank_last", lambda: dense([2, 0, 1], [5, 4, 5], blank_index=-1))
rec("dense_batch_major", lambda: dense([1, 2, 3], [5, 5, 5], logits_time_major=False))
def sparse(blank, **kw):
    lg = tf.constant(logits)
    sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [1, 0, 2, 2, 1], [3, 2])
    l = tf.nn.ctc_loss_v2(sp, lg, None, [5, 4, 5], blank_index=blank, **kw)
    g = tf.gradients(l, lg)[0]
    return {"v": tf.Session().run([l, g]), "shape": sh(l)}
rec("sparse_last", lambda: sparse(3))
rec("sparse_0", lambda: sparse(0))
rec("sparse_neg", lambda: sparse(-2))
rec("sparse_none", lambda: sparse(None))
def shapes():
    P = tf.placeholder
    return [sh(tf.nn.ctc_loss_v2(P(tf.int32, [None, 4]), P(tf.float32, [7, None, 5]),
                                 P(tf.int32, [None]), P(tf.int32, [None]))),
            sh(tf.nn.ctc_loss_v2(P(tf.int32, [3, 4]), P(tf.float32, [7, 3, 5]),
                                 P(tf.int32, [3]), P(tf.int32, [3])))]
rec("shapes", shapes)
def sparse_bad(vals):
    sp = tf.SparseTensor([[0, 0], [0, 1]], vals, [1, 2])
    return tf.Session().run(tf.nn.ctc_loss_v2(sp, tf.zeros([5, 1, 4]), None, [5], blank_index=3))
rec("null_then_label", lambda: sparse_bad([3, 1]))
rec("negative", lambda: sparse_bad([-1, 1]))
'''


def test_ctc_loss_v2_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    assert_same(ours, theirs, rtol=1e-4, atol=1e-5)


def test_ctc_loss_v2_blank_moves_without_tf():
    """Blank 0 of dense labels is the blank last of the same logits rotated."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 2, 4)).astype(np.float32)
    with tf.Graph().as_default():
        a = tf.nn.ctc_loss_v2([[1, 2], [3, 0]], x, [2, 1], [6, 5], blank_index=0)
        rolled = np.concatenate([x[:, :, 1:], x[:, :, :1]], axis=2)
        b = tf.nn.ctc_loss_v2([[0, 1], [2, 0]], rolled, [2, 1], [6, 5], blank_index=3)
        got_a, got_b = tf.Session().run([a, b])
    np.testing.assert_allclose(got_a, got_b, rtol=1e-6)
    with pytest.raises(ValueError, match="blank_index"):
        tf.nn.ctc_loss_v2(tf.SparseTensor([[0, 0]], [1], [1, 1]), x[:, :1], None, [6])
