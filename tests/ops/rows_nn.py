"""Op-table rows for the nn families (scopeflow/ops/nn_*.py; NumPy references)."""

from __future__ import annotations

import numpy as np

from scopeflow.ops import nn_ops

from .op_table import OpCase, rand

f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64
SELU_SCALE, SELU_ALPHA = 1.0507009873554805, 1.6732632423543772


def _away_from(x, points, gap=0.05):
    """``x`` nudged away from kinks (numeric gradients are wrong there)."""
    x = x.copy()
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + gap * 2
    return x


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _labels(*shape, seed=3):
    p = np.random.default_rng(seed).random(shape)
    return (p / p.sum(-1, keepdims=True)).astype(f32)


def _lrn_ref(x, r=5, bias=1.0, alpha=1.0, beta=0.5):
    sq = x.astype(f64) ** 2
    d = x.shape[-1]
    s = np.stack([sq[..., max(0, i - r):i + r + 1].sum(-1) for i in range(d)], -1)
    return (x / (bias + alpha * s) ** beta).astype(x.dtype)


def _lrn_grad_ref(dy, x, *params, eps=1e-6):
    """``J^T dy`` of the LRN by central differences in float64."""
    x = x.astype(f64)
    out = np.zeros_like(x)
    for k in range(x.size):
        idx = np.unravel_index(k, x.shape)
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = np.sum(dy * (_lrn_ref(plus, *params) - _lrn_ref(minus, *params))) / (2 * eps)
    return out


def _bn_train_ref(x, scale, offset, mean, var, eps=1e-3):
    m = x.mean((0, 1, 2))
    v = x.var((0, 1, 2))
    n = x.size // x.shape[-1]
    y = (x - m) / np.sqrt(v + eps) * scale + offset
    return [y, m, v * n / (n - 1)]


def _bn_infer_ref(x, scale, offset, mean, var, eps=1e-3):
    return [(x - mean) / np.sqrt(var + eps) * scale + offset, mean, var]


def _top_k_ref(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(x, order, -1), order.astype(i32)]


X = _away_from(rand(3, 4), [0.0])
X6 = _away_from(rand(3, 4, low=-2, high=8), [0.0, 6.0])
DY = rand(3, 4, seed=5)
Y_ELU = np.where(X < 0, np.expm1(np.minimum(X, 0)), X).astype(f32)
Y_SELU = (SELU_SCALE * np.where(X < 0, SELU_ALPHA * np.expm1(np.minimum(X, 0)), X)).astype(f32)
IMG = rand(2, 2, 3, 7, seed=7)
BN_X = rand(2, 3, 2, 4, seed=9)
BN_C = [rand(4, seed=10, low=0.5, high=1.5), rand(4, seed=11), rand(4, seed=12),
        rand(4, seed=13, low=0.5, high=2.0)]


def _fused_bn(tf, x, scale, offset, mean, var, training):
    return list(tf.nn.fused_batch_norm(x, scale, offset, None if training else mean,
                                       None if training else var, epsilon=1e-3,
                                       is_training=training))


def _fused_bn_grad(tf, dy, x, scale, offset):
    y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)
    return tf.gradients(y, [x, scale, offset], grad_ys=dy)


def _fused_bn_grad_ref(dy, x, scale, offset, eps=1e-3):
    axes = (0, 1, 2)
    m, v = x.mean(axes), x.var(axes)
    inv = 1 / np.sqrt(v + eps)
    xh = (x - m) * inv
    db, dg = dy.sum(axes), (dy * xh).sum(axes)
    n = x.size // x.shape[-1]
    dx = scale * inv / n * (n * dy - db - xh * dg)
    return [dx, dg, db]


ROWS = [
    # ── activations ─────────────────────────────────────────────────────────────────
    OpCase("Relu", lambda tf, x: tf.nn.relu(x), lambda x: np.maximum(x, 0), [X]),
    OpCase("Relu", lambda tf, x: tf.nn.relu(x), lambda x: np.maximum(x, 0),
           [np.array([-3, 0, 4], i32)], id="Relu-int32"),
    OpCase("ReluGrad", lambda tf, dy, x: tf.gradients(tf.nn.relu(x), x, grad_ys=dy)[0],
           lambda dy, x: np.where(x > 0, dy, 0), [DY, X]),
    OpCase("Relu6", lambda tf, x: tf.nn.relu6(x), lambda x: np.clip(x, 0, 6), [X6]),
    OpCase("Relu6Grad", lambda tf, dy, x: tf.gradients(tf.nn.relu6(x), x, grad_ys=dy)[0],
           lambda dy, x: np.where((x > 0) & (x < 6), dy, 0), [DY, X6]),
    OpCase("Elu", lambda tf, x: tf.nn.elu(x), lambda x: np.where(x < 0, np.expm1(x), x), [X]),
    OpCase("EluGrad", lambda tf, dy, x: tf.gradients(tf.nn.elu(x), x, grad_ys=dy)[0],
           lambda dy, x: np.where(x < 0, dy * np.exp(x), dy), [DY, X], rtol=1e-5),
    OpCase("Selu", lambda tf, x: tf.nn.selu(x),
           lambda x: SELU_SCALE * np.where(x < 0, SELU_ALPHA * np.expm1(x), x), [X], rtol=1e-5),
    OpCase("SeluGrad", lambda tf, dy, x: tf.gradients(tf.nn.selu(x), x, grad_ys=dy)[0],
           lambda dy, x: SELU_SCALE * np.where(x < 0, dy * SELU_ALPHA * np.exp(x), dy),
           [DY, X], rtol=1e-5),
    OpCase("LeakyRelu", lambda tf, x: tf.nn.leaky_relu(x, 0.1),
           lambda x: np.where(x > 0, x, 0.1 * x), [X]),
    OpCase("LeakyReluGrad", lambda tf, dy, x: tf.gradients(tf.nn.leaky_relu(x), x,
                                                           grad_ys=dy)[0],
           lambda dy, x: np.where(x > 0, dy, 0.2 * dy), [DY, X]),
    OpCase("Softplus", lambda tf, x: tf.nn.softplus(x), lambda x: np.log1p(np.exp(x)), [X],
           rtol=1e-5),
    OpCase("SoftplusGrad", lambda tf, dy, x: tf.gradients(tf.nn.softplus(x), x, grad_ys=dy)[0],
           lambda dy, x: dy * _sigmoid(x), [DY, X], rtol=1e-5),
    OpCase("Softsign", lambda tf, x: tf.nn.softsign(x), lambda x: x / (1 + np.abs(x)), [X]),
    OpCase("SoftsignGrad", lambda tf, dy, x: tf.gradients(tf.nn.softsign(x), x, grad_ys=dy)[0],
           lambda dy, x: dy / (1 + np.abs(x)) ** 2, [DY, X], rtol=1e-5),
    # ── softmax ─────────────────────────────────────────────────────────────────────
    OpCase("Softmax", lambda tf, x: tf.nn.softmax(x), _softmax, [rand(3, 5)], rtol=1e-5),
    OpCase("Softmax", lambda tf, x: tf.nn.softmax(x, axis=0), lambda x: _softmax(x, 0),
           [rand(3, 5)], rtol=1e-5, id="Softmax-axis0"),
    OpCase("Softmax", lambda tf, x: tf.nn.softmax(x, dim=1), lambda x: _softmax(x, 1),
           [rand(2, 3, 4)], rtol=1e-5, id="Softmax-rank3-dim1"),
    OpCase("LogSoftmax", lambda tf, x: tf.nn.log_softmax(x), _log_softmax, [rand(3, 5)],
           rtol=1e-5),
    OpCase("LogSoftmax", lambda tf, x: tf.nn.log_softmax(x, axis=0),
           lambda x: _log_softmax(x, 0), [rand(4)], rtol=1e-5, id="LogSoftmax-1d"),
    # ── cross-entropies ─────────────────────────────────────────────────────────────
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x),
           lambda lab, x: -(lab * _log_softmax(x)).sum(-1), [_labels(3, 5), rand(3, 5)],
           rtol=1e-5),
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=x,
                                                                      dim=0),
           lambda lab, x: -(lab * _log_softmax(x, 0)).sum(0),
           [_labels(3, 4).T.copy(), rand(4, 3)], rtol=1e-5, id="Xent-v1-dim0",
           check_grad=False),  # labels get no gradient in v1
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x),
           lambda lab, x: -(lab * _log_softmax(x)).sum(-1), [_labels(2, 3, 4), rand(2, 3, 4)],
           rtol=1e-5, id="Xent-rank3"),
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: list(nn_ops.xent_op.bind(x, lab)),
           lambda lab, x: [-(lab * _log_softmax(x)).sum(-1), _softmax(x) - lab],
           [_labels(3, 5), rand(3, 5)], rtol=1e-5, id="Xent-raw-op-both-outputs",
           check_grad=False),  # as TF, d backprop / d labels is not propagated
    OpCase("SparseSoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab,
                                                                             logits=x),
           lambda lab, x: -_log_softmax(x)[np.arange(3), lab], [np.array([0, 4, 2], i32),
                                                                 rand(3, 5)], rtol=1e-5),
    OpCase("SparseSoftmaxCrossEntropyWithLogits",
           lambda tf, lab, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab,
                                                                             logits=x),
           lambda lab, x: -np.take_along_axis(_log_softmax(x), lab[..., None], -1)[..., 0],
           [np.array([[0, 3, 2], [1, 1, 0]], i64), rand(2, 3, 4)], rtol=1e-5,
           id="SparseXent-rank3-int64"),
    OpCase("L2Loss", lambda tf, x: tf.nn.l2_loss(x), lambda x: np.sum(x.astype(f64) ** 2) / 2,
           [rand(3, 4)], rtol=1e-5),
    # ── normalization ───────────────────────────────────────────────────────────────
    OpCase("LRN", lambda tf, x: tf.nn.lrn(x, 2, 1.5, 0.3, 0.75),
           lambda x: _lrn_ref(x, 2, 1.5, 0.3, 0.75), [IMG], rtol=1e-5),
    OpCase("LRN", lambda tf, x: tf.nn.local_response_normalization(x), _lrn_ref, [IMG],
           rtol=1e-5, id="LRN-defaults"),
    OpCase("LRNGrad", lambda tf, dy, x: tf.gradients(tf.nn.lrn(x, 2, 1.5, 0.3, 0.75), x,
                                                     grad_ys=dy)[0],
           lambda dy, x: _lrn_grad_ref(dy, x, 2, 1.5, 0.3, 0.75), [rand(2, 2, 3, 7, seed=8), IMG],
           rtol=1e-4, atol=1e-5),
    OpCase("FusedBatchNormV3", lambda tf, *a: _fused_bn(tf, *a, True), _bn_train_ref,
           [BN_X] + BN_C, rtol=1e-4, atol=1e-5, check_grad=False),
    OpCase("FusedBatchNormV3", lambda tf, *a: _fused_bn(tf, *a, False), _bn_infer_ref,
           [BN_X] + BN_C, rtol=1e-4, atol=1e-5, id="FusedBatchNormV3-inference",
           check_grad=False),  # mean/variance outputs carry no gradient (as TF)
    OpCase("FusedBatchNormGradV3", _fused_bn_grad, _fused_bn_grad_ref,
           [rand(2, 3, 2, 4, seed=14), BN_X] + BN_C[:2], rtol=1e-4, atol=1e-5,
           check_grad=False),
    # ── top-k ───────────────────────────────────────────────────────────────────────
    OpCase("TopKV2", lambda tf, x: list(tf.nn.top_k(x, 3)), lambda x: _top_k_ref(x, 3),
           [rand(4, 6)]),
    OpCase("TopKV2", lambda tf, x: list(tf.nn.top_k(x, 2)), lambda x: _top_k_ref(x, 2),
           [np.array([[1, 3, 3, 2], [5, 5, 5, 5]], i32)], id="TopKV2-ties-int"),
    OpCase("InTopKV2", lambda tf, p, t: tf.nn.in_top_k(p, t, 2),
           lambda p, t: np.array([True, True, False]),
           [np.array([[0.1, 0.5, 0.5, 0.2], [1, 2, 3, 4], [4, 3, 2, 1]], f32),
            np.array([2, 2, 3], i32)]),
]
