"""consumer_fusion: Conv2D + BiasAdd (or + a bias vector) + Relu as one oneDNN call.

The fused call adds the bias to the finished sums and applies NumPy's ReLU, so the fused
plan gives the unfused plan's bits (NaN included); these tests compare them bit for bit
and check when the pass must not apply. Without the backend the pass never applies
(NumPy's kernels gain nothing from it), which the first test checks everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.native import onednn
from scopeflow.ops.nn import nn_norm_ops
from scopeflow.runtime import passes as plan_passes
from scopeflow.runtime import plan as plan_module

DNNL = onednn.backend()
needs_dnnl = pytest.mark.skipif(
    DNNL is None, reason=f"oneDNN backend unavailable: {onednn.load_error()}")


def _layer(x, c_in, c_out, seed, add="bias_add", relu=True):
    w = tf.Variable(tf.truncated_normal([5, 5, c_in, c_out], stddev=0.1, seed=seed))
    b = tf.Variable(tf.constant(0.1, shape=[c_out]) * tf.range(1.0, c_out + 1.0) / c_out)
    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    y = tf.nn.bias_add(y, b) if add == "bias_add" else y + b if add == "add" else b + y
    return (tf.nn.relu(y) if relu else y), w, b


def _seed_cnn(batch=6):
    """The seed CNN's two conv layers, their gradients and an Adam step on them."""
    x = tf.placeholder(tf.float32, [batch, 28, 28, 1])
    h, w1, b1 = _layer(x, 1, 32, 1)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h, w2, b2 = _layer(h, 32, 64, 2, add="add")
    loss = tf.reduce_sum(tf.square(h))
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    images = np.random.default_rng(0).random((batch, 28, 28, 1), dtype=np.float32)
    return x, images, h, loss, train, [w1, b1, w2, b2]


def _kernels(sess, fetches, feed, fed_shapes=None):
    """The kernel each op of the session's plan for ``fetches`` calls, by op name."""
    fetches = fetches if isinstance(fetches, list) else [fetches]
    tensors = [t for t in fetches if isinstance(t, tf.Tensor)]
    targets = [t for t in fetches if not isinstance(t, tf.Tensor)]
    plan = plan_module.compile_plan(tensors, targets, list(feed), sess._state, sess._passes,
                                    fed_shapes=fed_shapes)
    return {op.name: plan.fn.__globals__[f"_k{k}"].__name__
            for k, op in enumerate(plan.ops) if f"_k{k}(" in plan.source}


def _run_steps(spec, monkeypatch, steps=3):
    monkeypatch.setenv(plan_passes.ENV_VAR, spec)
    tf.reset_default_graph()
    x, images, h, loss, train, params = _seed_cnn()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = [sess.run([h, loss, train], {x: images})[:2] for _ in range(steps)]
        kernels = _kernels(sess, [h, loss, train], {x: images})
        return out, sess.run(params), kernels


def test_without_the_backend_nothing_is_fused(monkeypatch):
    before = onednn.set_enabled(False)
    try:
        _, _, kernels = _run_steps("all", monkeypatch, steps=1)
    finally:
        onednn.set_enabled(before)
    assert "fused_conv2d" not in kernels.values()


@needs_dnnl
def test_fused_training_matches_the_unfused_plan(monkeypatch):
    fused, params_fused, kernels = _run_steps("all", monkeypatch)
    unfused, params_unfused, kernels_off = _run_steps("-consumer_fusion", monkeypatch)
    # Both layers fused (BiasAdd + Relu and an Add of the bias + Relu), at the Relu.
    assert [n for n, k in kernels.items() if k == "fused_conv2d"] == ["Relu", "Relu_1"]
    assert not {"Conv2D", "Conv2D_1", "BiasAdd", "add"} & kernels.keys()
    assert "fused_conv2d" not in kernels_off.values()
    for (h, loss), (h0, loss0) in zip(fused, unfused):
        np.testing.assert_array_equal(h.view(np.uint32), h0.view(np.uint32))
        assert loss == loss0
    for a, b in zip(params_fused, params_unfused):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
    # ReLU really applied, and a negative bias makes zeros the fused call must keep.
    assert (fused[-1][0] >= 0).all() and (fused[-1][0] == 0).any()


@needs_dnnl
@pytest.mark.parametrize("add", ["bias_add", "add", "radd"])
@pytest.mark.parametrize("relu", [True, False])
def test_each_chain_matches_the_ops_one_by_one(monkeypatch, add, relu):
    x = tf.placeholder(tf.float32, [4, 12, 12, 3])
    y, _, b = _layer(x, 3, 8, 5, add=add, relu=relu)
    images = np.random.default_rng(1).standard_normal((4, 12, 12, 3)).astype(np.float32)
    images[0, 5, 5, 0] = np.nan  # NaN must reach the output as in the unfused ops
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(b, -tf.range(8.0) / 8))  # some outputs negative, some not
        got = sess.run(y, {x: images})
        kernels = _kernels(sess, y, {x: images})
        monkeypatch.setenv(plan_passes.ENV_VAR, "-consumer_fusion")
        with tf.Session() as plain:
            plain.run(tf.global_variables_initializer())
            plain.run(tf.assign(b, -tf.range(8.0) / 8))
            want = plain.run(y, {x: images})
    assert kernels[y.op.name] == "fused_conv2d"
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isnan(got).any()
    assert (got < 0).any() != relu


@needs_dnnl
def test_switched_off_after_compiling_runs_the_ops_one_by_one(monkeypatch):
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    y, _, _ = _layer(x, 3, 4, 7)
    images = np.random.default_rng(2).standard_normal((2, 8, 8, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert _kernels(sess, y, {x: images})[y.op.name] == "fused_conv2d"
        before = onednn.set_enabled(False)
        try:
            got = sess.run(y, {x: images})
            monkeypatch.setenv(plan_passes.ENV_VAR, "-consumer_fusion")
            with tf.Session() as plain:
                plain.run(tf.global_variables_initializer())
                want = plain.run(y, {x: images})
        finally:
            onednn.set_enabled(before)
    np.testing.assert_array_equal(got, want)  # the NumPy kernels, the same bits


@needs_dnnl
def test_a_write_between_the_conv_and_the_relu_is_seen_as_unfused(monkeypatch):
    # The conv reads w before the assign (creation order), the Relu after it: fusing would
    # move the read past the write, so the pass leaves this chain alone.
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    w = tf.Variable(tf.ones([5, 5, 3, 4]))
    b = tf.Variable(tf.zeros([4]))
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    double = tf.assign(w, w * 2.0)
    with tf.control_dependencies([double]):
        biased = tf.nn.bias_add(conv, b)
    y = tf.nn.relu(biased)
    images = np.ones((2, 8, 8, 3), np.float32)
    results = {}
    for spec in ("all", "-consumer_fusion"):
        monkeypatch.setenv(plan_passes.ENV_VAR, spec)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            results[spec] = sess.run(y, {x: images})
            assert _kernels(sess, y, {x: images})[y.op.name] != "fused_conv2d"
    np.testing.assert_array_equal(results["all"], results["-consumer_fusion"])
    assert results["all"][0, 4, 4, 0] == 75.0  # 5 * 5 * 3 ones: the weights before doubling


@needs_dnnl
def test_not_fused_where_the_chain_is_not_the_runs_own(monkeypatch):
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    y, w, b = _layer(x, 3, 4, 8)
    conv = y.op.inputs[0].op.inputs[0]
    unknown = tf.placeholder(tf.float32, [None, 8, 8, 3])
    y_unknown, _, _ = _layer(unknown, 3, 4, 9)
    wide = tf.placeholder(tf.float32, [2, 8, 8, 3])
    y_wide = tf.nn.relu(tf.nn.conv2d(wide, w, [1, 1, 1, 1], "SAME") + tf.ones([1, 1, 1, 4]))
    images = np.ones((2, 8, 8, 3), np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # the conv's output fetched too: it must exist, so nothing is fused
        assert _kernels(sess, [y, conv], {x: images})[y.op.name] != "fused_conv2d"
        # a shape known only at run time (a generic plan): errors must name the Conv2D;
        # a plan specialised on the fed shape knows it and fuses
        assert _kernels(sess, y_unknown, {unknown: images})[y_unknown.op.name] \
            != "fused_conv2d"
        assert _kernels(sess, y_unknown, {unknown: images}, [images.shape])[
            y_unknown.op.name] == "fused_conv2d"
        # an Add that is not a per-channel bias vector
        assert _kernels(sess, y_wide, {wide: images})[y_wide.op.name] != "fused_conv2d"
        # the bias fed: its producer is not run, the fused call reads the fed value
        got = sess.run(y, {x: images, b: np.full(4, -100.0, np.float32)})
        assert (got == 0).all()


@needs_dnnl
def test_config_remapping_off_turns_the_pass_off():
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    assert "consumer_fusion" not in [p.NAME for p in plan_passes.for_config(config)]
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    y, _, _ = _layer(x, 3, 4, 3)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        assert _kernels(sess, y, {x: np.ones((2, 8, 8, 3), np.float32)})[y.op.name] \
            != "fused_conv2d"


# ── Conv2D + inference FusedBatchNorm ──────────────────────────────────────────────
def _conv_bn_graph(version, frozen, fetch_stats=False):
    """A conv, an inference batch norm (FusedBatchNorm, V2 or V3 by ``version``) and a
    ReLU; constants like a frozen graph's, or variables. Returns (x, fetches)."""
    rng = np.random.default_rng(version)
    make = tf.constant if frozen else tf.Variable
    x = tf.placeholder(tf.float32, [2, 9, 9, 8])
    w = make(rng.standard_normal((3, 3, 8, 16), dtype=np.float32))
    scale, offset, mean = (make(rng.standard_normal(16, dtype=np.float32)) for _ in range(3))
    variance = make(rng.uniform(0.5, 2.0, 16).astype(np.float32))
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    op_def = {1: nn_norm_ops.fused_bn_v1_op, 2: nn_norm_ops.fused_bn_v2_op,
              3: nn_norm_ops.fused_bn_op}[version]
    bn = op_def.bind(y, scale, offset, mean, variance, epsilon=1e-3, is_training=False)
    out = tf.nn.relu(bn[0])
    return x, [out, bn[1]] if fetch_stats else [out]


def _run_conv_bn(spec, monkeypatch, version, frozen=True, fetch_stats=False):
    monkeypatch.setenv(plan_passes.ENV_VAR, spec)
    tf.reset_default_graph()
    x, fetches = _conv_bn_graph(version, frozen, fetch_stats)
    images = np.random.default_rng(9).standard_normal((2, 9, 9, 8), dtype=np.float32)
    images[0, 4, 4, 3] = np.nan
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = [sess.run(fetches, {x: images}) for _ in range(2)]
        return out, _kernels(sess, fetches, {x: images})


@needs_dnnl
@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("frozen", [True, False], ids=["constants", "variables"])
def test_conv_and_inference_batch_norm_fuse_with_the_unfused_bits(monkeypatch, version,
                                                                  frozen):
    fused, kernels = _run_conv_bn("all", monkeypatch, version, frozen)
    unfused, kernels_off = _run_conv_bn("-consumer_fusion", monkeypatch, version, frozen)
    assert "fused_conv2d_batch_norm" in kernels.values()
    assert "fused_conv2d_batch_norm" not in kernels_off.values()
    for got, want in zip(fused, unfused):
        assert [a.tobytes() for a in got] == [a.tobytes() for a in want]
    assert np.isnan(fused[0][0]).any()


@needs_dnnl
def test_no_fusion_when_a_statistics_output_is_read(monkeypatch):
    fused, kernels = _run_conv_bn("all", monkeypatch, 3, fetch_stats=True)
    assert "fused_conv2d_batch_norm" not in kernels.values()
    unfused, _ = _run_conv_bn("-consumer_fusion", monkeypatch, 3, fetch_stats=True)
    assert [a.tobytes() for a in fused[0]] == [a.tobytes() for a in unfused[0]]


@needs_dnnl
def test_no_fusion_for_a_training_batch_norm(monkeypatch):
    monkeypatch.setenv(plan_passes.ENV_VAR, "all")
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 9, 9, 8])
    w = tf.constant(np.ones((3, 3, 8, 4), np.float32))
    y, _, _ = tf.nn.fused_batch_norm(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
                                     tf.ones([4]), tf.zeros([4]), is_training=True)
    with tf.Session() as sess:
        kernels = _kernels(sess, [y], {x: np.zeros((2, 9, 9, 8), np.float32)})
    assert "fused_conv2d_batch_norm" not in kernels.values()
