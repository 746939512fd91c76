"""tf.math.sobol_sample against TF 2.21: exact values for dimensions up to 1111 with skips
(also TF's negated values where a block reaches 31 binary digits), float32/float64,
static shapes, op names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
S = tf.Session
def run(*a, **kw):
    t = tf.math.sobol_sample(*a, **kw)
    return {"v": S().run(t), "shape": sh(t), "name": t.name, "type": t.op.type,
            "inputs": [i.name for i in t.op.inputs]}
rec("d3", lambda: run(3, 5))
rec("d40_skip", lambda: run(40, 33, skip=7, dtype=tf.float64))
rec("d40_f32", lambda: run(40, 1000, skip=123))
rec("d1111", lambda: run(1111, 6, skip=1000))
rec("big_skip", lambda: run(7, 3, skip=2**26 + 3))
rec("big_skip_f64", lambda: run(7, 3, skip=2**29 + 5, dtype=tf.float64))
rec("overflow", lambda: run(5, 3, skip=2**31 - 10))
rec("named", lambda: run(2, 2, name="q"))
P = tf.placeholder
rec("shapes", lambda: [sh(tf.math.sobol_sample(P(tf.int32, []), 5)),
                       sh(tf.math.sobol_sample(3, P(tf.int32, [])))])
for key, a in [("dim0", (0, 5)), ("n0", (3, 0)), ("skip_neg", (3, 5, -1)),
               ("dim_max", (21201, 2)), ("n_neg", (3, -2)), ("rank", ([3], 5)),
               ("too_many", (2, 2**31 - 5, 10))]:
    rec(key, lambda: run(*a))
rec("f16", lambda: run(3, 5, dtype=tf.float16))
'''


def test_sobol_sample_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    assert_same(ours, theirs, rtol=0, atol=0)


def test_sobol_sample_without_tf():
    with tf.Graph().as_default():
        v = tf.Session().run(tf.math.sobol_sample(4, 4, skip=3))
    # Sobol points 4..7 of the first four dimensions (Joe and Kuo's direction numbers)
    np.testing.assert_array_equal(v, [[0.375, 0.375, 0.625, 0.875],
                                      [0.875, 0.875, 0.125, 0.375],
                                      [0.625, 0.125, 0.875, 0.625],
                                      [0.125, 0.625, 0.375, 0.125]])
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="1111"):
            tf.Session().run(tf.math.sobol_sample(1112, 2))
