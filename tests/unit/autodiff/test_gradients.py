"""The autodiff walk itself: structure, names, None/zero semantics, overrides, diagnostics.

Per-op gradient values are checked by the op table (tests/ops) and against TensorFlow in
test_math_gradients.py / test_array_gradients.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf


def _run(t, feeds=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(t, feeds)


def test_gradient_ops_live_under_gradients_scope_with_tf_names():
    # TF 2.21 names these gradients/mul_grad/... and the default grad_ys gradients/grad_ys_0.
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    v = tf.Variable(tf.ones([3]), name="v")
    y = tf.reduce_sum(x * v + 1.0)
    gv, gx = tf.gradients(y, [v, x])
    names = [o.name for o in tf.get_default_graph().get_operations()
             if o.name.startswith("gradients")]
    assert "gradients/grad_ys_0" in names
    assert any(n.startswith("gradients/mul_grad/") for n in names)
    assert any(n.startswith("gradients/Sum_grad/") for n in names)
    assert gx.op.name.startswith("gradients/mul_grad/")
    val_v, val_x = _run([gv, gx], {x: np.arange(6, dtype=np.float32).reshape(2, 3)})
    np.testing.assert_allclose(val_v, [3, 5, 7])
    np.testing.assert_allclose(val_x, np.ones((2, 3)))
    assert tf.gradients(y, v)[0].op.name.startswith("gradients_1/")


def test_several_ys_are_summed_and_grad_ys_weights_them():
    x = tf.constant([1.0, 2.0])
    g = tf.gradients([x * 2.0, x * x], x, grad_ys=[tf.constant([1.0, 1.0]),
                                                   tf.constant([0.5, 2.0])])[0]
    np.testing.assert_allclose(_run(g), [2 + 0.5 * 2, 2 + 2 * 4])


def test_unconnected_gives_none_or_zero():
    x = tf.constant(1.0)
    z = tf.constant([1.0, 2.0])
    assert tf.gradients(x * 2.0, z) == [None]
    zero = tf.gradients(x * 2.0, z, unconnected_gradients="zero")[0]
    np.testing.assert_array_equal(_run(zero), [0.0, 0.0])
    zero2 = tf.gradients(x * 2.0, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0]
    assert zero2.shape.as_list() == [2]


def test_stop_gradient_and_stop_gradients_argument():
    a = tf.constant(3.0)
    b = a * a
    assert tf.gradients(tf.stop_gradient(b) * a, a)[0] is not None
    np.testing.assert_allclose(_run(tf.gradients(tf.stop_gradient(b) * a, a)[0]), 9.0)
    # stop_gradients: b is treated as a constant, so d(b*a)/da = b.
    np.testing.assert_allclose(_run(tf.gradients(b * a, a, stop_gradients=[b])[0]), 9.0)
    np.testing.assert_allclose(_run(tf.gradients(b * a, a)[0]), 27.0)


def test_integer_paths_carry_no_gradient():
    x = tf.placeholder(tf.float32, [3])
    i = tf.cast(x, tf.int32)
    assert tf.gradients(tf.reduce_sum(tf.cast(i, tf.float32)), x) == [None]
    assert tf.gradients(tf.reduce_sum(tf.cast(tf.argmax(tf.reshape(x, [1, 3]), 1),
                                              tf.float32)), x) == [None]


def test_variables_are_accepted_as_xs():
    v = tf.Variable([1.0, 2.0], name="v")
    g = tf.gradients(tf.reduce_sum(v * v), v)[0]
    np.testing.assert_allclose(_run(g), [2.0, 4.0])


def test_missing_rule_names_the_op_and_where_it_was_made():
    from scopeflow.framework.opdef import OpDef, same_dtype, same_shape
    op = OpDef("TestNoGradYet", shape=same_shape, dtype=same_dtype, kernel=lambda x: x * 1)
    try:
        x = tf.constant(1.0)
        y = op.bind(x, name="mystery")
        with pytest.raises(LookupError, match=r"No gradient defined for operation 'mystery' "
                           r"\(op type: TestNoGradYet\)\. Created at .*test_gradients\.py"):
            tf.gradients(y, x)
    finally:
        from scopeflow.framework.opdef import REGISTRY
        del REGISTRY["TestNoGradYet"]


def test_register_gradient_twice_is_an_error():
    @tf.RegisterGradient("TwiceRegistered")
    def _g(op, dy):
        return [dy]
    with pytest.raises(KeyError, match="Registering two gradient with name 'TwiceRegistered'"):
        tf.RegisterGradient("TwiceRegistered")(_g)


def test_gradient_override_map_replaces_a_rule():
    @tf.RegisterGradient("TripleGrad")
    def _triple(op, dy):
        return [dy * 3.0]
    x = tf.constant(2.0)
    with tf.get_default_graph().gradient_override_map({"Identity": "TripleGrad"}):
        y = tf.identity(x)
    z = tf.identity(x)
    np.testing.assert_allclose(_run(tf.gradients(y, x)[0]), 3.0)
    np.testing.assert_allclose(_run(tf.gradients(z, x)[0]), 1.0)


def test_gradient_override_map_rejects_unknown_op_types():
    """TF silently ignores a typo here; scopeflow refuses it."""
    with pytest.raises(ValueError, match="no op type named \\['Identty'\\]"):
        with tf.get_default_graph().gradient_override_map({"Identty": "X"}):
            pass


def test_custom_gradient():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)
        return tf.identity(x), grad
    x = tf.constant([1.0, 2.0])
    y = clip_grad(x)
    g = tf.gradients(tf.reduce_sum(y * 10.0), x)[0]
    assert y.op.type == "IdentityN"
    np.testing.assert_allclose(_run(g), [0.1, 0.1])
    np.testing.assert_allclose(_run(y), [1.0, 2.0])


def test_explain_gradient_says_where_the_path_breaks():
    x = tf.placeholder(tf.float32, [3], name="x")
    i = tf.cast(x, tf.int32, name="to_int")
    y = tf.reduce_sum(tf.cast(i, tf.float32))
    text = tf.explain_gradient(y, x)
    assert "'to_int_1'" in text or "Cast" in text
    assert "int32" in text and "test_gradients.py" in text
    s = tf.reduce_sum(tf.stop_gradient(x * 2.0))
    assert "tf.stop_gradient" in tf.explain_gradient(s, x)
    assert tf.explain_gradient(tf.reduce_sum(x * 2.0), x) == "connected"
    other = tf.placeholder(tf.float32, [3])
    assert "no path exists" in tf.explain_gradient(tf.reduce_sum(other), x)


def test_shared_input_gradients_are_aggregated():
    x = tf.constant(3.0)
    y = x * x + x
    np.testing.assert_allclose(_run(tf.gradients(y, x)[0]), 7.0)


def test_broadcast_gradients_sum_back_to_input_shapes():
    a = tf.placeholder(tf.float32, [None, 1, 3])
    b = tf.placeholder(tf.float32, [4, 1])
    ga, gb = tf.gradients(tf.reduce_sum(a * b), [a, b])
    av = np.ones((2, 1, 3), np.float32)
    bv = np.arange(4, dtype=np.float32).reshape(4, 1)
    va, vb = _run([ga, gb], {a: av, b: bv})
    np.testing.assert_allclose(va, np.full((2, 1, 3), bv.sum()))
    np.testing.assert_allclose(vb, np.full((4, 1), 6.0))


def test_compute_gradient_error_and_check_gradients():
    x = tf.placeholder(tf.float64, [2, 3])
    y = tf.reduce_sum(x * x * 3.0, 1)
    with tf.Session().as_default():
        theo, num = tf.test.compute_gradient(x, [2, 3], y, [2])
        assert theo.shape == (6, 2)
        np.testing.assert_allclose(theo, num, atol=1e-6)
        assert tf.test.compute_gradient_error(x, [2, 3], y, [2]) < 1e-6
        tf.test.check_gradients(y, x, np.ones((2, 3)))

    @tf.custom_gradient
    def wrong(v):
        return tf.identity(v), lambda dy: dy * 2.0
    z = tf.placeholder(tf.float64, [2])
    with pytest.raises(AssertionError, match="disagrees"):
        tf.test.check_gradients(tf.reduce_sum(wrong(z)), z, np.ones(2))


# ── ops without a gradient rule: TF's two kinds ──────────────────────────────────────
_REGISTRY_FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "tf_gradient_registry")
# TF rules that only ever return None (the same as not differentiable here).
_TF_RULES_GIVING_NONE = {"ArgMax", "ArgMin", "Ceil", "Floor", "FloorDiv", "Rint", "Round",
                         "TruncateDiv"}
# TF computes (second-order) gradients through these; scopeflow has no rule and raises.
_SECOND_ORDER_MISSING = {"FusedBatchNormGradV3", "FusedBatchNormGrad", "FusedBatchNormGradV2",
                         "MaxPoolGrad", "MaxPool3DGrad",
                         # TF's gradient w.r.t. the means, stddevs and bounds: not built yet
                         "StatelessParameterizedTruncatedNormal"}


def _ours():
    """Our op types without a gradient rule; TF has an opinion only on its own op types
    (not on graph_def.SCOPEFLOW_ONLY_OPS: the functional control flow and TensorArrays)."""
    from scopeflow.framework.graph_def import SCOPEFLOW_ONLY_OPS
    from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY
    return {t: ("unregistered" if od.grad is NO_GRADIENT else "not_differentiable")
            for t, od in REGISTRY.items() if (od.grad is None or od.grad is NO_GRADIENT)
            and t not in SCOPEFLOW_ONLY_OPS}


def test_ops_without_a_rule_raise_or_pass_nothing_as_tf_registers_them():
    """``grad=None`` where TF says NotDifferentiable; ``NO_GRADIENT`` (LookupError) where TF
    registers nothing, so a gradient never silently stops where TF would raise."""
    ours = _ours()
    assert sorted(ours) == json.loads((_REGISTRY_FIXTURE / "op_types.json").read_text()), (
        "refresh tests/fixtures/tf_gradient_registry (see its make_fixture.py)")
    theirs = json.loads((_REGISTRY_FIXTURE / "tf_registry.json").read_text())
    for op_type, kind in ours.items():
        if op_type in _SECOND_ORDER_MISSING:
            assert theirs[op_type] == "has_gradient" and kind == "unregistered", op_type
        elif op_type in _TF_RULES_GIVING_NONE:
            assert theirs[op_type] == "has_gradient" and kind == "not_differentiable", op_type
        else:
            assert kind == theirs[op_type], op_type


@pytest.mark.tf
def test_tf_gradient_registry_fixture_is_current(tf1):
    source = (_REGISTRY_FIXTURE / "make_fixture.py").read_text().split("if __name__")[0]
    got = tf1(source + f"\nprint(json.dumps(classify({sorted(_ours())!r})))\n")
    assert got == json.loads((_REGISTRY_FIXTURE / "tf_registry.json").read_text())


def test_a_gradient_through_an_op_tf_has_no_rule_for_raises():
    v = tf.Variable([1.0, 2.0])
    s = tf.scatter_update(v, [0], [5.0])
    with pytest.raises(LookupError, match="No gradient defined for operation 'ScatterUpdate'"):
        tf.gradients(tf.reduce_sum(s * v), v)
    x = tf.constant([1.0, 2.0])
    with pytest.raises(LookupError, match="op type: SoftsignGrad"):
        tf.gradients(tf.gradients(tf.nn.softsign(x), x)[0], x)
    # A variable itself, or a placeholder, is where a gradient stops: no rule is looked up.
    p = tf.placeholder(tf.float32, [2])
    assert all(g is not None for g in tf.gradients(tf.reduce_sum(v * p), [v, p]))
