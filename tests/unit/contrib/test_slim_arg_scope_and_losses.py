"""slim's arg_scope (scopeflow/contrib/arg_scope.py) and tf.contrib.losses = slim.losses
(scopeflow/contrib/losses.py), with TF 1.15's semantics.

TF 2.21 (the oracle) has neither tf.contrib nor these functions, so each loss is checked
against TF 1.15's formula written here in NumPy (contrib/losses/python/losses/loss_ops.py:
weights of lower rank than the losses, the mean over elements of non-zero weight), and,
where TF 2.21's tf.compat.v1.losses has the same function with the same reduction
(SUM_BY_NONZERO_WEIGHTS), against scopeflow's tf.losses with the arguments swapped.
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.contrib import arg_scope as arg_scope_module

slim = tf.contrib.slim
losses = tf.contrib.losses


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


@arg_scope_module.add_arg_scope
def _probe(x, a=1, b=2, *, c=3):
    """Returns what it was called with."""
    return x, a, b, c


@arg_scope_module.add_arg_scope
def _other(x, a=10):
    return x, a


def _plain(x, a=1):
    return x, a


# ── arg_scope ────────────────────────────────────────────────────────────────────────
def test_scope_supplies_defaults_and_explicit_kwargs_win():
    assert _probe(0) == (0, 1, 2, 3)
    with slim.arg_scope([_probe], a=5, c=7) as sc:
        assert _probe(0) == (0, 5, 2, 7)
        assert _probe(0, a=6) == (0, 6, 2, 7)  # the caller's keyword wins
        assert _other(0) == (0, 10)  # a function the scope does not name
        assert sc == {arg_scope_module.arg_scope_func_key(_probe): {"a": 5, "c": 7}}
        assert slim.current_arg_scope() is sc
    assert _probe(0) == (0, 1, 2, 3) and slim.current_arg_scope() == {}


def test_nested_scopes_copy_and_update_the_outer_one():
    key = slim.arg_scope_func_key(_probe)
    with slim.arg_scope([_probe, _other], a=5) as outer:
        with slim.arg_scope([_probe], b=8) as inner:
            assert _probe(0) == (0, 5, 8, 3) and _other(0) == (0, 5)
            with slim.arg_scope((_probe,), a=9):
                assert _probe(0) == (0, 9, 8, 3)
            assert _probe(0) == (0, 5, 8, 3)
        assert inner[key] == {"a": 5, "b": 8}
        assert outer[key] == {"a": 5}  # the inner scope did not change the outer one
        assert _probe(0) == (0, 5, 2, 3)


def test_a_captured_scope_is_entered_again():
    with slim.arg_scope([_probe], a=4, b=5) as captured:
        pass
    assert _probe(0) == (0, 1, 2, 3)
    with slim.arg_scope([_other], a=0):
        with slim.arg_scope(captured) as again:
            # the captured scope replaces the current one, it is not merged into it
            assert _probe(0) == (0, 4, 5, 3) and _other(0) == (0, 10)
            assert again == captured and again is not captured
    assert slim.current_arg_scope() == {}


def test_arg_scope_errors():
    with slim.arg_scope([_probe], a=4) as captured:
        pass
    with pytest.raises(ValueError, match="kwargs must be empty"):
        with slim.arg_scope(captured, a=1):
            pass
    with pytest.raises(TypeError, match="list/tuple or a reused scope"):
        with slim.arg_scope(_probe, a=1):
            pass
    with pytest.raises(ValueError, match=r"_plain is not decorated with @add_arg_scope"):
        with slim.arg_scope([_probe, _plain], a=1):
            pass
    with pytest.raises(ValueError, match="_plain is not decorated"):
        slim.arg_scoped_arguments(_plain)
    assert slim.current_arg_scope() == {}  # a failed scope left nothing on the stack
    with pytest.raises(RuntimeError, match="boom"):
        with slim.arg_scope([_probe], a=3):
            raise RuntimeError("boom")
    assert _probe(0) == (0, 1, 2, 3)


def test_decorated_functions_keep_their_identity():
    assert _probe.__name__ == "_probe" and _probe.__doc__ == "Returns what it was called with."
    assert inspect.signature(_probe) == inspect.signature(_probe.__wrapped__)
    assert slim.has_arg_scope(_probe) and slim.has_arg_scope(_probe.__wrapped__)
    assert not slim.has_arg_scope(_plain)
    assert slim.arg_scoped_arguments(_probe) == ("a", "b", "c")
    args = slim.arg_scoped_arguments(slim.fully_connected)
    assert "inputs" not in args and "num_outputs" not in args
    assert {"activation_fn", "weights_initializer", "weights_regularizer", "scope"} <= set(args)


DECORATED = ["fully_connected", "convolution", "convolution2d", "conv2d", "max_pool2d",
             "avg_pool2d", "flatten", "dropout", "one_hot_encoding", "batch_norm",
             "model_variable"]


@pytest.mark.parametrize("name", DECORATED)
def test_the_layers_tf_decorates_are_decorated(name):
    fn = getattr(tf.contrib.layers, name)
    assert slim.has_arg_scope(fn) and getattr(slim, name) is fn
    assert fn.__name__ == ("convolution2d" if name == "conv2d" else name)


def test_aliases_share_their_scope_and_two_functions_do_not():
    assert slim.conv2d is slim.convolution2d
    x = tf.ones([1, 4, 4, 2])
    with slim.arg_scope([slim.conv2d], padding="VALID", activation_fn=None):
        assert slim.convolution2d(x, 3, 3).shape.as_list() == [1, 2, 2, 3]
        # convolution is its own function: SAME, its default
        assert slim.convolution(x, 3, 3).shape.as_list() == [1, 4, 4, 3]
    with slim.arg_scope([slim.convolution], padding="VALID"):
        assert slim.convolution(x, 3, 3).shape.as_list() == [1, 2, 2, 3]
        # convolution2d passes all its arguments on; convolution's scope does not apply
        assert slim.conv2d(x, 3, 3).shape.as_list() == [1, 4, 4, 3]
    assert not slim.has_arg_scope(slim.embed_sequence)


def test_linear_and_normalizer_fn_go_through_the_decorated_functions():
    x = tf.ones([2, 4])
    with slim.arg_scope([slim.fully_connected], weights_initializer=tf.ones_initializer(),
                        activation_fn=tf.nn.relu):
        y = slim.linear(-x, 3)  # linear's explicit activation_fn=None wins
    assert y.op.type == "BiasAdd"
    np.testing.assert_allclose(_run(y), np.full([2, 3], -4.0))
    with slim.arg_scope([slim.batch_norm], scale=True, is_training=False):
        slim.fully_connected(x, 3, normalizer_fn=slim.batch_norm, scope="fc")
    assert "fc/BatchNorm/gamma" in [v.op.name for v in tf.global_variables()]


def _model(x, under_scope):
    init = tf.truncated_normal_initializer(stddev=0.3, seed=7)
    reg = slim.l2_regularizer(0.05)
    if under_scope:
        with slim.arg_scope([slim.conv2d, slim.fully_connected], activation_fn=tf.nn.tanh,
                            weights_initializer=init, weights_regularizer=reg):
            with slim.arg_scope([slim.conv2d], padding="VALID", stride=1):
                net = slim.conv2d(x, 4, [3, 3], scope="conv1")
                net = slim.max_pool2d(net, [2, 2], scope="pool1")
                net = slim.flatten(net)
                return slim.fully_connected(net, 3, activation_fn=None, scope="logits")
    net = slim.conv2d(x, 4, [3, 3], padding="VALID", stride=1, activation_fn=tf.nn.tanh,
                      weights_initializer=init, weights_regularizer=reg, scope="conv1")
    net = slim.max_pool2d(net, [2, 2], scope="pool1")
    net = slim.flatten(net)
    return slim.fully_connected(net, 3, activation_fn=None, weights_initializer=init,
                                weights_regularizer=reg, scope="logits")


def _model_run(under_scope):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = np.linspace(-1, 1, 2 * 6 * 6 * 2, dtype=np.float32).reshape(2, 6, 6, 2)
        y = _model(tf.constant(x), under_scope)
        reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        variables = tf.global_variables()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([y, reg, variables])
        return ([v.op.name for v in variables], [r.op.name for r in reg],
                [op.type for op in graph.get_operations()], values)


def test_a_model_under_arg_scope_equals_the_model_written_out():
    names, reg_names, op_types, values = _model_run(True)
    names2, reg_names2, op_types2, values2 = _model_run(False)
    assert names == ["conv1/weights", "conv1/biases", "logits/weights", "logits/biases"]
    assert reg_names == ["conv1/kernel/Regularizer/l2_regularizer",
                         "logits/kernel/Regularizer/l2_regularizer"]
    assert (names, reg_names, op_types) == (names2, reg_names2, op_types2)
    assert "Tanh" in op_types and values[0].shape == (2, 3)
    flat = [values[0], *values[1], *values[2]]
    flat2 = [values2[0], *values2[1], *values2[2]]
    assert len(flat) == 7
    for a, b in zip(flat, flat2):
        np.testing.assert_array_equal(a, b)


# ── the losses: TF 1.15's formulas in NumPy ─────────────────────────────────────────
def _np_weighted(per_element, weights=1.0):
    """compute_weighted_loss: losses summed over the dims weights lacks, weighted, summed,
    divided by the number of elements of non-zero (broadcast) weight, 0 when none."""
    per_element = np.asarray(per_element, np.float64)
    w = np.asarray(weights, np.float64)
    if w.ndim > 1 and w.shape[-1] == 1:
        w = w[..., 0]
    reduced = per_element.sum(axis=tuple(range(w.ndim, per_element.ndim)))
    total = (reduced * w).sum()
    count = np.count_nonzero(w) * int(np.prod(per_element.shape[w.ndim:])) if w.ndim else (
        per_element.size if w != 0 else 0)
    return total / count if count else 0.0


_P = np.array([[0.2, 0.9, 0.4], [0.7, 0.1, 0.5]], np.float32)
_L = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
_LOGITS = np.array([[1.0, -2.0, 0.5], [0.3, 2.0, -1.0]], np.float32)
_W_BATCH = np.array([2.0, 0.0], np.float32)
_W_FULL = np.array([[1.0, 0.0, 3.0], [0.5, 2.0, 0.0]], np.float32)


def _np_softmax_xent(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    return -(labels * (z - np.log(np.exp(z).sum(axis=1, keepdims=True)))).sum(axis=1)


def _np_sigmoid_xent(logits, labels):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def test_compute_weighted_loss_by_hand():
    values = [[1.0, 3.0], [5.0, 7.0]]
    cases = [losses.compute_weighted_loss(values, [1.0, 0.0]),       # (1 + 3) / 2
             losses.compute_weighted_loss(values, 2.0),              # 2 * 16 / 4
             losses.compute_weighted_loss(values, 0.0),              # no element counts
             losses.compute_weighted_loss(values, [[0.5], [1.0]]),   # [2, 1] squeezed
             losses.compute_weighted_loss(values, [[1.0, 0.0], [0.0, 3.0]])]
    assert cases[0].name == "weighted_loss/value:0"
    np.testing.assert_allclose(_run(cases), [2.0, 8.0, 0.0, (2 + 12) / 4, (1 + 21) / 2])
    assert tf.get_collection(tf.GraphKeys.LOSSES) == cases


@pytest.mark.parametrize("weights", [1.0, 0.5, 0.0, _W_BATCH, _W_FULL, _W_BATCH[:, None]])
def test_each_loss_is_tf_1_15s_formula(weights):
    mean = lambda per_element: _np_weighted(per_element, weights)  # noqa: E731
    smoothed = _L * 0.8 + 0.2 / 3
    built = {
        "absolute_difference": (losses.absolute_difference(_P, _L, weights),
                                mean(np.abs(_P - _L))),
        "mean_squared_error": (losses.mean_squared_error(_P, _L, weights),
                               mean((_P - _L) ** 2)),
        "log_loss": (losses.log_loss(_P, _L, weights),
                     mean(-_L * np.log(_P + 1e-7) - (1 - _L) * np.log(1 - _P + 1e-7))),
        "sigmoid_cross_entropy": (
            losses.sigmoid_cross_entropy(_LOGITS, _L, weights, label_smoothing=0.2),
            mean(_np_sigmoid_xent(_LOGITS, _L * 0.8 + 0.1))),
    }
    if np.shape(weights) != (2, 3):  # per-example losses: [2, 3] weights do not broadcast
        built["cosine_distance"] = (losses.cosine_distance(_P, _L, axis=1, weights=weights),
                                    mean(1 - (_P * _L).sum(axis=1)))
    if np.ndim(weights) < 2 or np.shape(weights)[-1] == 1:  # per-example losses
        built["softmax_cross_entropy"] = (
            losses.softmax_cross_entropy(_LOGITS, _L, weights, label_smoothing=0.2),
            mean(_np_softmax_xent(_LOGITS, smoothed)))
        built["sparse_softmax_cross_entropy"] = (
            losses.sparse_softmax_cross_entropy(_LOGITS, [[1], [0]], weights),
            mean(_np_softmax_xent(_LOGITS, np.eye(3)[[1, 0]])))
    got = _run({k: t for k, (t, _) in built.items()})
    for name, (tensor, expected) in built.items():
        scope = {"sigmoid_cross_entropy": "sigmoid_cross_entropy_loss",
                 "softmax_cross_entropy": "softmax_cross_entropy_loss",
                 "sparse_softmax_cross_entropy": "sparse_softmax_cross_entropy_loss",
                 "cosine_distance": "cosine_distance_loss"}.get(name, name)
        assert tensor.name == f"{scope}/value:0", name
        np.testing.assert_allclose(got[name], expected, rtol=2e-6, atol=1e-7, err_msg=name)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [t for t, _ in built.values()]


def test_losses_match_tf_losses_with_the_arguments_swapped():
    """Where tf.losses (TF 2.21's tf.compat.v1.losses) has the loss with the same reduction,
    the values agree: same-rank weights, labels second here and first there."""
    pairs = [
        (losses.absolute_difference(_P, _L, _W_FULL),
         tf.losses.absolute_difference(_L, _P, _W_FULL)),
        (losses.mean_squared_error(_P, _L, _W_FULL),
         tf.losses.mean_squared_error(_L, _P, _W_FULL)),
        (losses.log_loss(_P, _L, _W_FULL, epsilon=1e-3),
         tf.losses.log_loss(_L, _P, _W_FULL, epsilon=1e-3)),
        (losses.sigmoid_cross_entropy(_LOGITS, _L, _W_FULL, label_smoothing=0.1),
         tf.losses.sigmoid_cross_entropy(_L, _LOGITS, _W_FULL, label_smoothing=0.1)),
        (losses.softmax_cross_entropy(_LOGITS, _L, _W_BATCH, label_smoothing=0.3),
         tf.losses.softmax_cross_entropy(_L, _LOGITS, _W_BATCH, label_smoothing=0.3)),
        (losses.sparse_softmax_cross_entropy(_LOGITS, [2, 1], 3.0),
         tf.losses.sparse_softmax_cross_entropy([2, 1], _LOGITS, 3.0)),
    ]
    for contrib_value, core_value in _run(pairs):
        np.testing.assert_allclose(contrib_value, core_value, rtol=1e-6)
    assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 2 * len(pairs)


def test_mean_pairwise_squared_error():
    def np_loss(p, y, w):
        d = (p - y).reshape(len(p), -1).astype(np.float64)
        w = np.broadcast_to(np.asarray(w, np.float64), [len(p)])
        n = np.where(w != 0, d.shape[1], 0)
        term1 = np.where(n > 0, 2 * (d ** 2).sum(1) / np.maximum(n, 1), 0)
        term2 = np.where(n > 0, 2 * d.sum(1) ** 2 / np.maximum(n, 1) ** 2, 0)
        return ((term1 - term2) * w).sum() if n.sum() > 0 else 0.0

    cases = [(_P, _L, 1.0), (_P, _L, _W_BATCH), (_P, _L, 0.0),
             (_P.reshape(2, 3, 1), _L.reshape(2, 3, 1), [1.5, 0.5])]
    tensors = [losses.mean_pairwise_squared_error(p, y, w) for p, y, w in cases]
    got = _run(tensors)
    for (p, y, w), value in zip(cases, got):
        np.testing.assert_allclose(value, np_loss(p, y, w), rtol=1e-6, atol=1e-7)
    # the pairwise form of one example of n = 3 errors d: 2 / n**2 * sum((d_i - d_j)**2)
    d = _P[0] - _L[0]
    pairs = [(d[i] - d[j]) ** 2 for i in range(3) for j in range(i + 1, 3)]
    np.testing.assert_allclose(_run(losses.mean_pairwise_squared_error(_P[:1], _L[:1])),
                               2 * sum(pairs) / 9, rtol=1e-6)
    # TF 1.15's two safe divisions are named "value" and "value_1" in the scope before it
    assert tensors[0].name == "mean_pairwise_squared_error/value_2:0"
    assert tf.get_collection(tf.GraphKeys.LOSSES)[:4] == tensors


def test_hinge_loss_is_unreduced_and_not_collected():
    h = losses.hinge_loss(_LOGITS, _L)
    assert h.shape.as_list() == [2, 3] and h.op.name.startswith("hinge_loss/")
    np.testing.assert_allclose(_run(h), np.maximum(0, 1 - (2 * _L - 1) * _LOGITS), rtol=1e-6)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == []


def test_loss_argument_checks():
    with pytest.raises(ValueError, match="get_total_loss: there are no losses"):
        losses.get_total_loss()
    with pytest.raises(ValueError, match="cosine_distance: .*both be None"):
        losses.cosine_distance(_P, _L)
    with pytest.raises(ValueError, match="cannot specify both 'axis' and 'dim'"):
        losses.cosine_distance(_P, _L, axis=1, dim=1)
    dim_value, axis_value = _run([losses.cosine_distance(_P, _L, dim=0),
                                  losses.cosine_distance(_P, _L, axis=0)])
    assert dim_value == axis_value
    np.testing.assert_allclose(axis_value, np.mean(1 - (_P * _L).sum(0)), rtol=1e-6)
    with pytest.raises(ValueError, match=r"mean_squared_error: the shapes of `predictions`"):
        losses.mean_squared_error(_P, _L[:, :2])
    with pytest.raises(ValueError, match="absolute_difference: `labels` must not be None"):
        losses.absolute_difference(_P)


def test_name_scopes_and_add_loss():
    with tf.name_scope("tower"):
        loss = losses.mean_squared_error(_P, _L, scope="mse")
    assert loss.name == "tower/mse/value:0"
    extra = tf.constant(2.5)
    losses.add_loss(extra)
    losses.add_loss(tf.constant(1.0), loss_collection=None)
    assert losses.get_losses() == [loss, extra]
    assert losses.get_losses(scope="tower") == [loss]
    assert slim.has_arg_scope(losses.add_loss)
    with slim.arg_scope([losses.add_loss], loss_collection="mine"):
        losses.add_loss(extra)
    assert tf.get_collection("mine") == [extra]


def test_get_total_loss_adds_the_layers_regularization_losses():
    x = tf.constant(_P)
    with slim.arg_scope([slim.fully_connected], weights_regularizer=slim.l2_regularizer(0.1),
                        weights_initializer=tf.truncated_normal_initializer(seed=3)):
        logits = slim.fully_connected(x, 3, activation_fn=None, scope="fc1")
        logits = slim.fully_connected(logits, 3, activation_fn=None, scope="fc2")
    data_loss = slim.losses.softmax_cross_entropy(logits, _L)
    total = slim.losses.get_total_loss()
    data_only = slim.losses.get_total_loss(add_regularization_losses=False, name="data")
    assert total.name == "total_loss:0" and data_only.name == "data:0"
    assert len(slim.losses.get_regularization_losses()) == 2
    weights = [v for v in tf.global_variables() if v.op.name.endswith("weights")]
    total_v, data_v, loss_v, w_v = _run([total, data_only, data_loss, weights])
    expected_reg = sum(0.1 * (w.astype(np.float64) ** 2).sum() / 2 for w in w_v)
    assert expected_reg > 0.01
    np.testing.assert_allclose(data_v, loss_v, rtol=1e-6)
    np.testing.assert_allclose(total_v, loss_v + expected_reg, rtol=1e-5)


# ── where the names are ─────────────────────────────────────────────────────────────
def test_the_tf1_paths():
    assert slim.losses is tf.contrib.losses is importlib.import_module("scopeflow.contrib.losses")
    framework = tf.contrib.framework
    for name in ("arg_scope", "add_arg_scope", "has_arg_scope", "arg_scoped_arguments",
                 "current_arg_scope", "arg_scope_func_key"):
        assert getattr(slim, name) is getattr(framework, name) is getattr(
            arg_scope_module, name)
    deep = importlib.import_module("scopeflow.contrib.framework.python.ops.arg_scope")
    assert deep.arg_scope is slim.arg_scope and deep.add_arg_scope is slim.add_arg_scope
    assert slim.losses.softmax_cross_entropy is losses.softmax_cross_entropy
    assert list(inspect.signature(losses.softmax_cross_entropy).parameters)[:2] == [
        "logits", "onehot_labels"]
