"""tf.train.sdca_fprint (farmhash Fingerprint128 of each string) and tf.train.sdca_shrink_l1
(the L1 proximal step in place): TF's values bit for bit."""

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.strings.hashing import fingerprint128

# Lengths reach every branch: 0, <8, 8..16, 17..127 (CityMurmur), >=128 (the main loop,
# with and without a tail).
_STRINGS = [b"", b"a", b"abc", b"abcdefg", b"abcdefgh", b"0123456789abcdef",
            b"0123456789abcdefg", b"x" * 31, b"y" * 33, b"z" * 100, bytes(range(200)),
            b"w" * 127, b"q" * 128 + b"r" * 17, bytes(range(256)) * 3, "é".encode()]


def test_known_values_and_static_shapes():
    # farmhash's Fingerprint128("a"), as TF's SdcaFprint gives it (low64, high64).
    assert fingerprint128(b"a") == (7969074168056553668, 5955762262185338209)
    t = tf.train.sdca_fprint(tf.placeholder(tf.string, [None]))
    assert t.op.type == "SdcaFprint" and t.dtype == tf.int64 and t.shape.as_list() == [None, 2]
    assert tf.train.sdca_fprint(tf.placeholder(tf.string)).shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.train.sdca_fprint(tf.constant("a"))
    with pytest.raises(TypeError, match="does not match expected type of string"):
        tf.train.sdca_fprint(tf.constant([1]))
    with tf.Session() as sess:
        out = sess.run(tf.train.sdca_fprint(["a", ""]))
    assert out.dtype == np.int64 and out.shape == (2, 2)
    assert out[0].view(np.uint64).tolist() == list(fingerprint128(b"a"))


def test_matches_tf(tf1):
    got = tf1(f"""
        tf.disable_v2_behavior()
        with tf.Session() as sess:
            out = sess.run(tf.train.sdca_fprint(tf.constant({_STRINGS!r})))
        print(json.dumps(out.tolist()))
    """)
    with tf.Session() as sess:
        ours = sess.run(tf.train.sdca_fprint(tf.constant(_STRINGS)))
    assert ours.tolist() == got


_SHRINK = """
w1 = tf.Variable([1.5, -0.2, 0.3, -2.0, 0.0], name="w1")
w2 = tf.Variable([[0.05, -1.0]], name="w2")
ops = [tf.train.sdca_shrink_l1([w1, w2], l1=0.5, l2=2.0),
       tf.train.sdca_shrink_l1([w1], l1=0.5, l2=0.0),
       tf.train.sdca_shrink_l1([w1], l1=0.3, l2=0.3)]
results = [[ops[0].type, ops[0].name, len(ops[0].outputs), list(ops[0].inputs[1].op.name
                                                                 for _ in [0])]]
with tf.Session() as sess:
    for op in ops:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        results.append([np.copysign(1.0, x).tolist() + x.tolist()
                        for x in (sess.run(w1).reshape(-1), sess.run(w2).reshape(-1))])
"""


def _shrink_ours():
    ns = {"tf": tf, "np": np}
    with tf.Graph().as_default():
        exec(_SHRINK, ns)   # noqa: S102
    return ns["results"]


def test_shrink_l1_without_tf():
    res = _shrink_ours()
    assert res[0] == ["SdcaShrinkL1", "SdcaShrinkL1", 0, ["w2"]]
    signs, values = res[1][0][:5], res[1][0][5:]
    np.testing.assert_allclose(values, [1.25, 0.0, 0.05, -1.75, 0.0], rtol=1e-6)
    assert signs[1] == -1.0       # -0.2 shrinks to -0.0, as TF's sign(w) * 0
    assert res[2][0][5:] == [0.0] * 5   # l2 = 0: everything to zero
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="be a mutable tensor"):
            tf.train.sdca_shrink_l1([tf.constant([1.0])], l1=0.5, l2=1.0)
        with pytest.raises(TypeError, match="does not match expected type of float32_ref"):
            tf.train.sdca_shrink_l1([tf.Variable([1])], l1=0.5, l2=1.0)


def test_shrink_l1_matches_tf(tf1):
    got = tf1("tf.disable_v2_behavior()\n" + _SHRINK + "print(json.dumps(results))")
    assert _shrink_ours() == got
