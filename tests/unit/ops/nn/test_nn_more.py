"""The remaining tf.nn front ends (issue 35): the nn_impl composites (crelu, swish, the
weighted/log-Poisson losses, sufficient statistics, weighted moments, ...), the generic and
1-D convolutions and poolings (convolution, pool, with_space_to_batch, atrous and
transposed convolutions), tf.losses' cosine_distance/hinge_loss/mean_pairwise_squared_error
and tf.layers.SeparableConv1D.

NumPy references run without TensorFlow; the live comparison runs the same case builders
(nn_more_cases.py) under scopeflow and under TF 2.21 (one TF process) and compares values,
gradients, op names, static shapes, op types and error classes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

from . import nn_more_cases

CASES = ("run_composites", "run_conv_pool", "run_losses", "run_layers", "run_ctc",
         "run_morphology", "run_argmax", "run_collapse")

# Graph details TF builds differently only for dynamic spatial shapes: TF packs the
# SpaceToBatchND paddings row by row (more Pack/StridedSlice ops), scopeflow column-wise.
_DYNAMIC_PACKING = {"pool_u_dil", "conv_u_dil"}


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


# ── NumPy references (no TensorFlow needed) ──────────────────────────────────────────
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_activations_and_layers_match_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    xv = rng.randn(3, 4)
    w, b = rng.randn(4, 2), rng.randn(2)
    x = tf.placeholder(tf.float64, [None, 4])
    beta = tf.constant(1.7, tf.float64)
    ys = [tf.nn.crelu(x), tf.nn.swish(x, beta), tf.nn.silu(x), tf.nn.relu_layer(x, w, b),
          tf.nn.xw_plus_b(x, w, b)]
    gx, gb = tf.gradients(tf.reduce_sum(ys[1]), [x, beta])
    out = _run(ys + [gx, gb], {x: xv})
    s = _sigmoid(1.7 * xv)
    np.testing.assert_allclose(out[0], np.maximum(np.concatenate([xv, -xv], -1), 0))
    np.testing.assert_allclose(out[1], xv * s)
    np.testing.assert_allclose(out[2], xv * _sigmoid(xv))
    np.testing.assert_allclose(out[3], np.maximum(xv @ w + b, 0))
    np.testing.assert_allclose(out[4], xv @ w + b)
    np.testing.assert_allclose(out[5], s * (1 + 1.7 * xv * (1 - s)))
    np.testing.assert_allclose(out[6], np.sum(xv ** 2 * s * (1 - s)))
    assert [y.op.type for y in ys] == ["Relu", "IdentityN", "IdentityN", "Relu", "BiasAdd"]


def test_losses_and_moments_match_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(1)
    xv, z = rng.randn(3, 4), (rng.rand(3, 4) > 0.5).astype(np.float64)
    q = 2.5
    wce = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=xv, pos_weight=q)
    t = np.abs(xv) * 3
    lp = tf.nn.log_poisson_loss(t, xv, compute_full_loss=True)
    fw = rng.rand(3, 1)
    wm = tf.nn.weighted_moments(xv, [0], fw)
    counts, m_ss, v_ss, shift = tf.nn.sufficient_statistics(xv, [1], shift=np.float64(0.3))
    nm = tf.nn.normalize_moments(counts, m_ss, v_ss, shift)
    out = _run([wce, lp, wm, nm, counts])
    ref_wce = (1 - z) * xv + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(xv))) + np.maximum(-xv, 0))
    np.testing.assert_allclose(out[0], ref_wce)
    stirling = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
    np.testing.assert_allclose(out[1], np.exp(xv) - xv * t + np.where(t <= 1, 0, stirling))
    mean = (fw * xv).sum(0) / (fw + 0 * xv).sum(0)
    np.testing.assert_allclose(out[2][0], mean)
    np.testing.assert_allclose(out[2][1], (fw * (xv - mean) ** 2).sum(0) / (fw + 0 * xv).sum(0))
    np.testing.assert_allclose(out[3][0], xv.mean(1))
    np.testing.assert_allclose(out[3][1], xv.var(1))
    assert out[4] == 4 and counts.op.type == "Const"


def test_tf_losses_match_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(2)
    lab, pred = rng.rand(3, 4).astype(np.float32), rng.rand(3, 4).astype(np.float32)
    cos = tf.losses.cosine_distance(lab, pred, axis=1)
    hinge = tf.losses.hinge_loss(lab > 0.5, pred, reduction=tf.losses.Reduction.NONE)
    mpse = tf.losses.mean_pairwise_squared_error(lab, pred)
    out = _run([cos, hinge, mpse])
    np.testing.assert_allclose(out[0], np.mean(1 - (lab * pred).sum(1)), rtol=1e-5)
    np.testing.assert_allclose(out[1], np.maximum(1 - (2 * (lab > 0.5) - 1) * pred, 0))
    d = pred - lab
    # Per batch row, the mean over its unordered pairs (i < j) of (d_i - d_j)**2; summed.
    iu = np.triu_indices(4, 1)
    ref = np.sum(((d[:, :, None] - d[:, None, :]) ** 2)[:, iu[0], iu[1]].mean(1))
    np.testing.assert_allclose(out[2], ref, rtol=1e-5)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [cos, hinge, mpse]
    with pytest.raises(ValueError, match="axis"):
        tf.losses.cosine_distance(lab, pred)


def _dilated_conv_ref(x, f, rate, padding):
    """Direct NHWC dilated cross-correlation."""
    kh, kw = f.shape[:2]
    ekh, ekw = (kh - 1) * rate[0] + 1, (kw - 1) * rate[1] + 1
    if padding == "SAME":
        ph, pw = ekh - 1, ekw - 1
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh, ow = x.shape[1] - ekh + 1, x.shape[2] - ekw + 1
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * rate[0]:i * rate[0] + oh, j * rate[1]:j * rate[1] + ow]
            out += patch @ f[i, j]
    return out


def test_dilated_convolution_and_pool_match_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    xv, fv = rng.randn(2, 9, 8, 3), rng.randn(3, 2, 3, 4)
    x = tf.placeholder(tf.float64, [None, 9, 8, 3])
    ys = [tf.nn.convolution(x, fv, "SAME", dilation_rate=[2, 3]),
          tf.nn.atrous_conv2d(x, fv, 2, "VALID"),
          tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2]),
          tf.nn.avg_pool1d(x[:, :, :, 0], 3, 2, "VALID")]
    out = _run(ys, {x: xv})
    np.testing.assert_allclose(out[0], _dilated_conv_ref(xv, fv, (2, 3), "SAME"), atol=1e-10)
    np.testing.assert_allclose(out[1], _dilated_conv_ref(xv, fv, (2, 2), "VALID"), atol=1e-10)
    taps = [xv[:, i:i + 7, j:j + 6] for i in (0, 2) for j in (0, 2)]
    np.testing.assert_allclose(out[2], np.max(taps, 0))
    x1 = xv[:, :, :, 0]
    np.testing.assert_allclose(out[3], np.mean([x1[:, i:i + 7:2] for i in range(3)], 0))
    assert [y.op.type for y in ys[:3]] == ["BatchToSpaceND"] * 3


def test_transposed_convolutions_are_adjoints():
    """<conv(x), y> == <x, conv_transpose(y)>: the transposes are the exact adjoints."""
    tf.reset_default_graph()
    rng = np.random.RandomState(4)
    x1, f1, y1 = rng.randn(2, 9, 4), rng.randn(3, 4, 3), rng.randn(2, 5, 3)
    fwd = tf.nn.conv1d(x1, f1, 2, "SAME")
    back = tf.nn.conv1d_transpose(y1, f1, [2, 9, 4], 2)
    x2, f2, y2 = rng.randn(1, 7, 7, 2), rng.randn(3, 3, 2, 3), rng.randn(1, 7, 7, 3)
    fwd2 = tf.nn.atrous_conv2d(x2, f2, 2, "SAME")
    back2 = tf.nn.atrous_conv2d_transpose(y2, f2, [1, 7, 7, 2], 2, "SAME")
    back3 = tf.nn.conv_transpose(y2, f2, [1, 7, 7, 2], 1)
    a, b, a2, b2, b3 = _run([fwd, back, fwd2, back2, back3])
    np.testing.assert_allclose((a * y1).sum(), (x1 * b).sum())
    np.testing.assert_allclose((a2 * y2).sum(), (x2 * b2).sum())
    fwd3 = _run(tf.nn.conv2d(x2, f2, [1, 1, 1, 1], "SAME"))
    np.testing.assert_allclose((fwd3 * y2).sum(), (x2 * b3).sum())


def test_separable_conv1d_layer_matches_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    xv, dw, pw = rng.randn(2, 9, 3), rng.randn(3, 3, 2), rng.randn(1, 6, 4)
    y = tf.layers.separable_conv1d(
        tf.constant(xv), 4, 3, depth_multiplier=2,
        depthwise_initializer=tf.constant_initializer(dw),
        pointwise_initializer=tf.constant_initializer(pw))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
    depth = sum(xv[:, k:k + 7, :, None] * dw[k] for k in range(3)).reshape(2, 7, 6)
    np.testing.assert_allclose(out, depth @ pw[0], rtol=1e-5)
    assert [v.name for v in tf.trainable_variables()] == [
        "separable_conv1d/depthwise_kernel:0", "separable_conv1d/pointwise_kernel:0",
        "separable_conv1d/bias:0"]


def test_ctc_loss_gradient_and_errors():
    """The loss's gradient is the fused backprop output (softmax minus the state posteriors,
    here checked against central differences); a second derivative raises, as in TF."""
    tf.reset_default_graph()
    rng = np.random.RandomState(6)
    xv = rng.randn(5, 2, 4)
    x = tf.placeholder(tf.float64, [5, 2, 4])
    labels = tf.SparseTensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64),
                             np.array([1, 1, 2], np.int32), [2, 2])
    loss = tf.nn.ctc_loss(labels, x, np.array([5, 4], np.int32))
    (g,) = tf.gradients(tf.reduce_sum(loss), x)
    with tf.Session() as sess:
        gv = sess.run(g, {x: xv})
        eps, num = 1e-6, np.zeros_like(xv)
        for i in np.ndindex(xv.shape):
            d = np.zeros_like(xv)
            d[i] = eps
            num[i] = (sess.run(loss, {x: xv + d}).sum() - sess.run(loss, {x: xv - d}).sum()) / (2 * eps)
        np.testing.assert_allclose(gv, num, atol=1e-6)
        assert not gv[4, 1].any()   # past sequence_length
        with pytest.raises(tf.errors.InvalidArgumentError, match="Not enough time"):
            sess.run(tf.nn.ctc_loss(labels, x, np.array([1, 1], np.int32)), {x: xv})
    with pytest.raises(LookupError, match="second"):
        tf.gradients(g, x)
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.nn.ctc_loss([[1]], x, [5, 4])


def test_collapse_repeated_matches_numpy():
    tf.reset_default_graph()
    lab = np.array([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0]], np.int32)
    out, lengths = _run(tf.nn.collapse_repeated(lab, [5, 2]))
    np.testing.assert_array_equal(out, [[1, 2, 3], [4, 0, 0]])
    np.testing.assert_array_equal(lengths, [3, 1])


# ── against TensorFlow (one TF process for all cases) ────────────────────────────────
def _compare(mine, theirs, where):
    for key in theirs:
        a, b = mine[key], theirs[key]
        if key == "vals":
            assert set(a) == set(b), (where, set(a) ^ set(b))
            for k in b:
                np.testing.assert_allclose(np.array(a[k], float), np.array(b[k], float),
                                           rtol=2e-3, atol=2e-3, err_msg=f"{where} {k}")
        elif isinstance(b, dict):
            skip = _DYNAMIC_PACKING if key == "types" else set()
            assert {k: v for k, v in a.items() if k not in skip} == \
                {k: v for k, v in b.items() if k not in skip}, (where, key)
        else:
            assert json.loads(json.dumps(a)) == b, (where, key)


def test_against_tensorflow(tf1):
    source = Path(nn_more_cases.__file__).read_text()
    theirs = tf1(f"""
        tf.disable_v2_behavior()
        ns = {{}}
        exec({source!r}, ns)
        print(json.dumps({{name: ns[name](tf) for name in {CASES!r}}}))
    """)
    for name in CASES:
        mine = json.loads(json.dumps(getattr(nn_more_cases, name)(tf)))
        _compare(mine, theirs[name], name)
