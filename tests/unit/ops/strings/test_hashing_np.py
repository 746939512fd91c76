"""The vectorised farmhash Fingerprint64 gives the per-string reference's bits in every
length class, and StringToHashBucketFast keeps TF's buckets."""

import random

import numpy as np

import scopeflow as tf
from scopeflow.ops.strings.hashing import fingerprint64
from scopeflow.ops.strings.hashing_np import fingerprint64_many


def _strings(count=2000, seed=0):
    rng = random.Random(seed)
    sizes = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
             191, 192, 193, 300, 1000]
    return [bytes(rng.randrange(256) for _ in range(rng.choice(sizes + [rng.randrange(400)])))
            for _ in range(count)]


def test_matches_reference_at_every_length_and_alignment():
    items = _strings()
    want = np.array([fingerprint64(s) for s in items], np.uint64)
    np.testing.assert_array_equal(fingerprint64_many(items), want)
    for k in range(1, 8):   # other start offsets within the joined buffer's words
        sub = items[k::7]
        np.testing.assert_array_equal(fingerprint64_many([b"x" * k] + sub)[1:], want[k::7])


def test_str_items_and_empty():
    assert fingerprint64_many([]).shape == (0,)
    np.testing.assert_array_equal(fingerprint64_many(["héllo", b"a"]),
                                  [fingerprint64("héllo".encode()), fingerprint64(b"a")])


def test_bucket_op_against_tf(tf1):
    words = [f"w{i}".encode() * (i % 9) for i in range(60)] + [b"", b"\0", b"a\0"]
    x = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        got = sess.run(tf.strings.to_hash_bucket_fast(x, 997),
                       {x: np.array(words, dtype=object)}).tolist()
    want = tf1("import tensorflow.compat.v1 as tf, json; tf.disable_v2_behavior()\n"
               f"w = {words!r}\n"
               "print(json.dumps(tf.Session().run("
               "tf.strings.to_hash_bucket_fast(tf.constant(w), 997)).tolist()))")
    assert got == want
