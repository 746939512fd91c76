"""tf.train.sdca_fprint: farmhash Fingerprint128 of each string, TF's values bit for bit."""

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
