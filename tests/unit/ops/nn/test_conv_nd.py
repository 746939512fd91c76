"""tf.conv (TF's N-D ``Conv`` op) and tf.conv2d_backprop_{input,filter}_v2 against
TF 2.21: values, static shapes, dtypes, graph-time and run-time errors, no gradients."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
x = (np.arange(2 * 7 * 7 * 3, dtype=np.float32).reshape(2, 7, 7, 3) % 11) / 10
w = (np.arange(3 * 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 3, 4) % 7) / 10
x5 = (np.arange(2 * 4 * 5 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 5, 3) % 13) / 10
S = tf.Session
def run(t):
    return {"value": S().run(t), "shape": sh(t), "name": t.name, "type": t.op.type}
rec("same", lambda: run(tf.conv(x, w, [1, 1, 1, 1], "SAME")))
rec("valid_s2", lambda: run(tf.conv(x, w, [1, 2, 2, 1], "VALID")))
rec("dilated", lambda: run(tf.conv(x, w, [1, 2, 1, 1], "SAME", dilations=[1, 2, 2, 1])))
rec("explicit", lambda: run(tf.conv(x, w, [1, 2, 1, 1], "EXPLICIT",
                                   explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])))
rec("3d", lambda: run(tf.conv(x5, w[None], [1, 1, 2, 1, 1], "SAME", name="c3")))
rec("batch2", lambda: run(tf.conv(x5, w, [1, 1, 1, 1], "SAME", batch_dims=2)))
rec("f64", lambda: run(tf.conv(x.astype(np.float64), w.astype(np.float64), [1, 1, 1, 1],
                               "VALID")))
rec("i32", lambda: run(tf.conv((x * 10).astype(np.int32), (w * 10).astype(np.int32),
                               [1, 1, 1, 1], "VALID")))
P = tf.placeholder
rec("shapes", lambda: [sh(tf.conv(P(tf.float32, s), P(tf.float32, f), st, pad, batch_dims=b,
                                  data_format=df, groups=g))
                       for s, f, st, pad, b, df, g in [
    ([None, 4, 4, 3], [3, 3, 3, 4], [1, 1, 1, 1], "SAME", 1, "CHANNELS_LAST", 1),
    ([None, None, 4, 4, 3], [3, 3, 3, 4], [1, 1, 1, 1], "SAME", 2, "CHANNELS_LAST", 1),
    ([5, 4, 4, 3], [None, 3, 3, 6], [1, 1, 1, 1], "VALID", 1, "CHANNELS_LAST", 1),
    ([5, 4, 4, None], [3, 3, 3, 6], [1, 1, 1, 1], "VALID", 1, "CHANNELS_LAST", 1),
    ([5, 4, 4, 3], [None, None, None, None], [1, 1, 1, 1], "VALID", 1, "CHANNELS_LAST", 1),
    ([2, 3, 6, 6], [3, 3, 3, 4], [1, 1, 2, 2], "VALID", 1, "CHANNELS_FIRST", 1),
    ([2, 6, 6, 6], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", 1, "CHANNELS_LAST", 2),
    (None, [3, 3, 3, 4], [1, 1, 1, 1], "VALID", 1, "CHANNELS_LAST", 1)]])
for key, args, kw in [
        ("rank", ([2, 3, 3], [3, 3, 3, 4]), {}),
        ("filter_rank", ([2, 4, 4, 3], [3, 3, 3, 4]), {"batch_dims": 0}),
        ("strides_len", ([2, 7, 7, 3], [3, 3, 3, 4]), {"strides": [1, 1, 1]}),
        ("dil_len", ([2, 7, 7, 3], [3, 3, 3, 4]), {"dilations": [1, 1, 1]}),
        ("explicit_not", ([2, 7, 7, 3], [3, 3, 3, 4]),
         {"padding": "VALID", "explicit_paddings": [0] * 8}),
        ("explicit_3d", ([2, 4, 5, 5, 3], [1, 3, 3, 3, 4]),
         {"padding": "EXPLICIT", "explicit_paddings": [0] * 10, "strides": [1] * 5}),
        ("depth", ([2, 7, 7, 3], [3, 3, 2, 4]), {}),
        ("groups", ([2, 6, 6, 6], [3, 3, 3, 4]), {}),
        ("negative", ([2, 2, 3, 3], [3, 3, 3, 4]), {"padding": "VALID"}),
        ("bad_padding", ([2, 7, 7, 3], [3, 3, 3, 4]), {"padding": "FOO"}),
        ("bad_format", ([2, 7, 7, 3], [3, 3, 3, 4]), {"data_format": "NHWC"})]:
    kw = dict({"strides": [1] * len(args[1]), "padding": "SAME"}, **kw)
    rec(key, lambda: sh(tf.conv(P(tf.float32, args[0]), P(tf.float32, args[1]), **kw)))
rec("int64", lambda: sh(tf.conv(tf.zeros([1, 4, 4, 3], tf.int64), tf.zeros([1, 1, 3, 2],
                                                                      tf.int64),
                                [1, 1, 1, 1], "SAME")))
x6 = np.ones([2, 5, 5, 6], np.float32)
for key, f in [
        ("run_nchw", lambda: tf.conv(x.transpose(0, 3, 1, 2), w, [1, 1, 1, 1], "SAME",
                                     data_format="CHANNELS_FIRST")),
        ("run_groups", lambda: tf.conv(x6, w, [1, 1, 1, 1], "SAME", groups=2)),
        ("run_stride_n", lambda: tf.conv(x, w, [2, 1, 1, 1], "SAME")),
        ("run_dil_n", lambda: tf.conv(x, w, [1, 1, 1, 1], "SAME", dilations=[2, 1, 1, 1])),
        ("run_3d_dil", lambda: tf.conv(x5, w[None], [1] * 5, "SAME",
                                       dilations=[1, 2, 1, 1, 1]))]:
    rec(key, lambda: S().run(f()))
def grad_of(f):
    t = f()
    return tf.gradients(t, [t.op.inputs[0]])
rec("conv_grad", lambda: grad_of(lambda: tf.conv(tf.constant(x), w, [1, 1, 1, 1], "SAME")))
dy = np.ones([2, 7, 7, 4], np.float32)
for key, fn in [("bi", tf.conv2d_backprop_input_v2), ("bf", tf.conv2d_backprop_filter_v2)]:
    rec(key + "_graph", lambda: [(t.name, t.op.type, sh(t), t.dtype.name) for t in [
        fn(x, w, dy, [1, 1, 1, 1], "SAME"),
        fn(P(tf.float32), P(tf.float32), dy, [1, 1, 1, 1], "SAME", name="v2"),
        fn(x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64),
           [1, 1, 1, 1], "VALID")]])
    rec(key + "_rank", lambda: sh(fn(P(tf.float32, [2, 3]), w, dy, [1, 1, 1, 1], "SAME")))
    rec(key + "_run", lambda: S().run(fn(x, w, dy, [1, 1, 1, 1], "SAME")))
    rec(key + "_grad", lambda: grad_of(lambda: fn(tf.constant(x), w, dy, [1, 1, 1, 1],
                                                  "SAME")))
'''


def test_conv_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    # TF lists a kernel-less op's attrs in its own (hash) order: compare the message head
    for k in ("bi_run", "bf_run"):
        for rec in (ours, theirs):
            rec[k]["msg"] = rec[k]["msg"].split(" with these attrs")[0].split(" used by")[0]
    assert_same(ours, theirs)


def test_conv_flattens_batch_dims_without_tf():
    x = np.random.default_rng(0).normal(size=(3, 2, 6, 6, 2)).astype(np.float32)
    w = np.random.default_rng(1).normal(size=(3, 3, 2, 5)).astype(np.float32)
    with tf.Graph().as_default():
        a = tf.conv(x, w, [1, 2, 1, 1], "SAME", batch_dims=2)
        b = tf.nn.conv2d(x.reshape(6, 6, 6, 2), w, [1, 2, 1, 1], "SAME")
        got, want = tf.Session().run([a, b])
    assert a.shape.as_list() == [3, 2, 3, 6, 5]
    np.testing.assert_allclose(got.reshape(6, 3, 6, 5), want, rtol=1e-6)


def test_conv_refusals_without_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="rank 4 or 5"):
            tf.conv(tf.zeros([2, 3, 3]), tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
        t = tf.conv(tf.ones([1, 4, 4, 4]), tf.ones([1, 1, 2, 2]), [1, 1, 1, 1], "SAME",
                    groups=2)
        with pytest.raises(tf.errors.UnimplementedError, match="Grouped"):
            tf.Session().run(t)
        with pytest.raises(LookupError):
            tf.gradients(t, t.op.inputs[0])
