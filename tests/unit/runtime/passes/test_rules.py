"""Every plan pass rule (``RULES`` of each pass module, by op type) has a program here on
which it fires, and that program's results are the same bits with the pass on, off, and
with no pass at all. A new rule without a row fails ``test_every_rule_has_a_program``.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.native import onednn
from scopeflow.runtime import passes as plan_passes

X = np.array([[1.5, -2.0, 0.0], [-0.0, 3.25, -7.5]], np.float32)


def _identity():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.identity(x) * 2.0
    return lambda sess: sess.run(out, {x: X})


def _stop_gradient():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.stop_gradient(x) * 2.0
    return lambda sess: sess.run(out, {x: X})


def _reshape_to_its_own_shape():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.reshape(x, [2, 3]) * 2.0
    return lambda sess: sess.run(out, {x: X})


def _mul_by_one():
    x = tf.placeholder(tf.float32, [2, 3])
    out = ((x + 1.0) * 1.0) - 1.0
    return lambda sess: sess.run(out, {x: X})


def _select_with_zeros():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.where(x > 0, x * 2.0, tf.zeros([2, 3]))
    return lambda sess: sess.run(out, {x: X})


def _slice():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.slice(x * 2.0, [0, 1], [2, 2])
    return lambda sess: sess.run(out, {x: X})


def _pad():
    x = tf.placeholder(tf.float32, [2, 3])
    out = tf.pad(x * 2.0, [[1, 0], [0, 2]])
    return lambda sess: sess.run(out, {x: X})


def _add_n_of_padded_pieces():
    x = tf.placeholder(tf.float32, [2, 3])
    pieces = [tf.pad(x * 2.0, [[0, 2], [0, 0]]), tf.pad(x * 3.0, [[2, 0], [0, 0]])]
    out = tf.add_n(pieces)
    return lambda sess: sess.run(out, {x: X})


def _add_n_of_masked_selects():
    x = tf.placeholder(tf.float32, [2, 3])
    c, zeros = x > 0, tf.zeros([2, 3])
    terms = [tf.where(c, x * 2.0, zeros), tf.where(c, zeros, x * 3.0),
             -tf.where(c, x * 4.0, zeros)]
    out = tf.add_n(terms)
    return lambda sess: sess.run(out, {x: X})


def _select_of_negation():
    x = tf.placeholder(tf.float32, [2, 3])
    y = x * 2.0
    out = tf.where(x > 0, -y, y)
    return lambda sess: sess.run(out, {x: X})


def _assign_keeps_owned_value():
    x = tf.placeholder(tf.float32, [2, 3])
    v = tf.Variable(tf.zeros([2, 3]))
    assign = tf.assign(v, x * 2.0)

    def run(sess):
        sess.run(v.initializer)
        sess.run(assign.op, {x: X})
        return sess.run(v)
    return run


def _conv2d_bias_relu():
    if onednn.backend() is None:
        pytest.skip(f"oneDNN backend unavailable: {onednn.load_error()}")
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [2, 6, 6, 3])
    w = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal(4).astype(np.float32))
    y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x * 1.5, w, [1, 1, 1, 1], "SAME"), b))
    images = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    return lambda sess: sess.run(y, {x: images})


def _conv2d_batch_norm():
    if onednn.backend() is None:
        pytest.skip(f"oneDNN backend unavailable: {onednn.load_error()}")
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, [2, 6, 6, 3])
    w = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32))
    scale, offset, mean = (tf.constant(rng.standard_normal(4).astype(np.float32))
                           for _ in range(3))
    variance = tf.constant(rng.uniform(0.5, 2.0, 4).astype(np.float32))
    y, _, _ = tf.nn.fused_batch_norm(tf.nn.conv2d(x * 1.5, w, [1, 1, 1, 1], "SAME"), scale,
                                     offset, mean, variance, is_training=False)
    images = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    return lambda sess: sess.run(y, {x: images})


# (pass, op type, rule name) -> a program: ``program()`` builds its ops in the default graph
# and returns ``run(sess)``, which computes the results once.
PROGRAMS = {
    ("pass_through", "Identity", "first_input_always"): _identity,
    ("pass_through", "StopGradient", "first_input_always"): _stop_gradient,
    ("pass_through", "Reshape", "reshape_to_its_own_shape"): _reshape_to_its_own_shape,
    ("pass_through", "Mul", "mul_by_scalar_one"): _mul_by_one,
    ("const_kernels", "Select", "select_with_constant_zeros"): _select_with_zeros,
    ("const_kernels", "Slice", "slice_with_constant_bounds"): _slice,
    ("const_kernels", "Pad", "pad_with_constant_paddings"): _pad,
    ("producer_absorption", "AddN", "add_n_of_padded_pieces"): _add_n_of_padded_pieces,
    ("producer_absorption", "AddN", "add_n_of_masked_selects"): _add_n_of_masked_selects,
    ("producer_absorption", "Select", "select_of_negation"): _select_of_negation,
    ("owning_kernels", "Assign", "assign_keeps_owned_value"): _assign_keeps_owned_value,
    ("consumer_fusion", "Conv2D", "conv2d_bias_relu"): _conv2d_bias_relu,
    ("consumer_fusion", "Conv2D", "conv2d_batch_norm"): _conv2d_batch_norm,
}


def _all_rules():
    return {(p.NAME, op_type, rule.__name__)
            for p in plan_passes.PASSES for op_type, rules in p.RULES.items() for rule in rules}


def test_every_rule_has_a_program():
    assert _all_rules() == set(PROGRAMS)


@pytest.mark.parametrize("key", sorted(PROGRAMS), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_rule_fires_and_keeps_the_unoptimised_bits(key, passes, monkeypatch):
    pass_name, op_type, rule_name = key
    module = next(p for p in plan_passes.PASSES if p.NAME == pass_name)
    fired = []

    def spy(rule):
        def watched(*args):
            found = rule(*args)
            if found is not None:
                fired.append(rule.__name__)
            return found
        return watched

    monkeypatch.setitem(module.RULES, op_type, tuple(
        spy(r) if r.__name__ == rule_name else r for r in module.RULES[op_type]))

    with tf.Graph().as_default():
        run = PROGRAMS[key]()
        passes.compare(pass_name, lambda sess: [run(sess)])
    assert rule_name in fired, f"{rule_name} never fired on its program"
