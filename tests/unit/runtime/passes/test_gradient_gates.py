"""gradient_gates: ops only an optimizer's GATE_OP gates wait for are not called, and every
value a run returns or stores stays the same bits as without the pass."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.runtime.passes import gradient_gates


def _mlp(optimizer):
    tf.set_random_seed(5)
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    h = tf.layers.dense(x, 8, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 3)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return x, y, loss, optimizer.minimize(loss)


FEED_X = np.random.RandomState(0).randn(5, 6).astype(np.float32)
FEED_Y = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]]


@pytest.mark.parametrize("make", [lambda: tf.train.GradientDescentOptimizer(0.5),
                                  lambda: tf.train.AdamOptimizer(0.1),
                                  lambda: tf.train.MomentumOptimizer(0.1, 0.9)])
def test_training_gives_the_same_bits_without_the_input_gradient(passes, make):
    x, y, loss, train = _mlp(make())
    variables = tf.global_variables()
    init = tf.global_variables_initializer()

    def program(sess):
        sess.run(init)
        losses = [sess.run([loss, train], {x: FEED_X, y: FEED_Y})[0] for _ in range(3)]
        return losses + sess.run(variables)

    passes.compare("gradient_gates", program)
    with tf.Session() as sess:
        sess.run(init)
        sess.run(train, {x: FEED_X, y: FEED_Y})
        (plan,) = [p for p in sess._plans.values() if train in p.ops]
    # The gate of the first layer's MatMul waits for the gradient of x: built, not called.
    dx = tf.get_default_graph().get_operation_by_name("gradients/dense/MatMul_grad/MatMul")
    assert dx.inputs[1].op.name == "dense/kernel/read"
    assert dx in plan.ops and "MatMul" in passes.calls(plan)
    k = plan.ops.index(dx)
    assert f"_k{k}(" not in plan.source


def test_a_gated_gradient_that_is_fetched_is_computed(passes):
    x, y, loss, train = _mlp(tf.train.GradientDescentOptimizer(0.5))
    dx = tf.get_default_graph().get_tensor_by_name("gradients/dense/MatMul_grad/MatMul:0")
    init = tf.global_variables_initializer()

    def program(sess):
        sess.run(init)
        return sess.run([dx, train], {x: FEED_X, y: FEED_Y})[:1]

    ((got,), _) = passes.compare("gradient_gates", program)
    assert got.shape == (5, 6) and np.abs(got).sum() > 0


def test_only_tuple_gates_of_gradient_rules_are_gates():
    a = tf.placeholder(tf.float32, [2])
    checked = tf.check_numerics(a, "bad")
    with tf.control_dependencies([checked]):
        out = tf.identity(a)
    user_group = tf.group(tf.exp(a), name="gradients/x_grad/tuple/group_deps_not")
    gated = tf.tuple([tf.exp(a), tf.sin(a)], name="my_grad/tuple")
    assert not gradient_gates.is_gate(checked.op)
    assert not gradient_gates.is_gate(user_group)
    assert gradient_gates.is_gate(gated[0].op.control_inputs[0])
    # The control-dependency pattern of check_numerics keeps checking.
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
            sess.run(out, {a: [1.0, np.nan]})
