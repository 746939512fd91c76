"""tf.ragged.cross / cross_hashed (RaggedCross): TF's ordering of crosses (inputs in the
caller's order, the last varying fastest), farmhash hashed values, splits dtype, static
shapes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

_BUILD = """
def build(tf):
    rng = np.random.RandomState(3)
    words = np.array([b"a", b"bb", b"c", b"dog", b"", b"x y"], object)
    outs = []
    for k in range(12):
        batch = int(rng.randint(1, 5))
        inputs = []
        for j in range(int(rng.randint(1, 4))):
            kind = "RSD"[(k + j) % 3]
            ints = (k + j) % 2 == 0
            if kind == "D":
                width = int(rng.randint(1, 3))
                v = rng.randint(-5, 9, (batch, width)) if ints else words[rng.randint(0, 6, (batch, width))]
                inputs.append(tf.constant(v.astype(np.int32)) if ints else tf.constant(v.tolist(), tf.string))
            else:
                lengths = rng.randint(0, 3, batch)
                n = int(lengths.sum())
                v = tf.constant(rng.randint(-5, 9, n).astype(np.int64)) if ints else \
                    tf.constant(words[rng.randint(0, 6, n)].tolist(), tf.string)
                if kind == "R":
                    splits = np.concatenate([[0], np.cumsum(lengths)])
                    inputs.append(tf.RaggedTensor.from_row_splits(
                        v, tf.constant(splits, tf.int64)))
                else:
                    idx = [[b, i] for b in range(batch) for i in range(lengths[b])]
                    inputs.append(tf.SparseTensor(np.array(idx, np.int64).reshape(-1, 2), v, [batch, 3]))
        outs.append(tf.ragged.cross(inputs))
        outs.append(tf.ragged.cross_hashed(inputs, num_buckets=[0, 7, 1000][k % 3],
                                           hash_key=[None, 5, 2**64 - 3][k % 3]))
    return outs
"""


def _ours():
    scope = {"np": np}
    exec(_BUILD, scope)
    with tf.Graph().as_default():
        outs = scope["build"](tf)
        meta = [[o.values.dtype.name, o.row_splits.dtype.name, o.row_splits.shape.as_list()]
                for o in outs]
        with tf.Session() as sess:
            vals = sess.run(outs)
    return meta, [[[x.decode("latin1") if isinstance(x, bytes) else int(x) for x in v.values],
                   v.row_splits.tolist()] for v in vals]


def test_values_without_tf():
    r = tf.ragged.constant([["a", "b"], [], ["c"]])
    d = tf.constant([["x"], ["y"], ["z"]])
    s = tf.SparseTensor([[0, 0], [2, 0], [2, 1]], tf.constant([1, 2, 3], tf.int64), [3, 2])
    c = tf.ragged.cross([r, s, d])
    h = tf.ragged.cross_hashed([r, s, d], num_buckets=100)
    with tf.Session() as sess:
        cv, hv = sess.run([c, h])
    assert cv.to_list() == [[b"a_X_1_X_x", b"b_X_1_X_x"], [], [b"c_X_2_X_z", b"c_X_3_X_z"]]
    assert hv.to_list() == [[67, 1], [], [84, 81]]   # TF 2.21's values
    assert c.values.op.type == "RaggedCross" and c.values.name == "RaggedCross/RaggedCross:0"
    assert c.row_splits.shape.as_list() == [4] and c.values.shape.as_list() == [None]


def test_static_errors_and_shapes():
    r = tf.ragged.constant([["a", "b"], [], ["c"]])
    with pytest.raises(ValueError, match="inputs must all have the same batch dimension"):
        tf.ragged.cross([r, tf.constant([["x"]])])
    with pytest.raises(ValueError, match="Unexpected dtype for inputs\\[0\\]"):
        tf.ragged.cross([tf.constant([[1.0]])])
    with pytest.raises(ValueError, match="only supports inputs with rank=2"):
        tf.ragged.cross([tf.ragged.constant([[[1]]])])
    with pytest.raises(TypeError, match="Inputs must be a list"):
        tf.ragged.cross(r)
    p = tf.placeholder(tf.string, [None, None])
    assert tf.ragged.cross([p]).row_splits.shape.as_list() == [None]
    q = tf.placeholder(tf.int64, [5, 2])
    out = tf.ragged.cross_hashed([q], name="foo")
    assert out.values.name == "foo/foo:0" and out.row_splits.shape.as_list() == [6]
    sp = tf.SparseTensor([[0, 0]], ["q"], [2, 1])
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                             match="same batch dimension size"):
        sess.run(tf.ragged.cross([r, sp]))


def test_matches_tf(tf1):
    want = tf1(_BUILD + """
tf.disable_v2_behavior()
outs = build(tf)
meta = [[o.values.dtype.name, o.row_splits.dtype.name, o.row_splits.shape.as_list()] for o in outs]
with tf.Session() as sess:
    vals = sess.run(outs)
print(json.dumps([meta, [[[x.decode("latin1") if isinstance(x, bytes) else int(x) for x in v.values],
                          v.row_splits.tolist()] for v in vals]]))
""")
    meta, vals = _ours()
    assert meta == want[0]
    assert vals == want[1]
