"""tf.keras's base Layer and backend in graph mode: names, weights, learning phase, and the
name-by-string modules (initializers, activations, regularizers, constraints)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.keras import activations, constraints, initializers, regularizers
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer


class Linear(Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1].value, self.units),
                                      regularizer=regularizers.l2(0.5))
        self.bias = self.add_weight("bias", (self.units,), initializer="zeros")

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel) + self.bias


# The same program under real TF (tf_keras) gives these names (see the oracle test below).
PROGRAM = """
class Linear(K_Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (int(input_shape[-1]), self.units),
                                      regularizer=tf.keras.regularizers.l2(0.5))
        self.bias = self.add_weight("bias", (self.units,), initializer="zeros")
    def call(self, inputs):
        return tf.matmul(inputs, self.kernel) + self.bias
x = tf.placeholder(tf.float32, [None, 3])
a, b = Linear(), Linear(name="custom")
c = Linear()
y = c(b(a(x)))
plain = K_Layer(name="plain")
plain(x)
a.set_weights([np.ones((3, 2)), np.array([1.0, 2.0])])
sess = tf.keras.backend.get_session()
out = sess.run(y, {x: [[1.0, 2.0, 3.0]]}) if False else None
reg = sess.run(a.losses[0])
result = {"names": [a.name, b.name, c.name],
          "weights": [w.name for w in a.weights + b.weights + c.weights],
          "uid": tf.keras.backend.get_uid("linear"),
          "a": sess.run(a(x), {x: [[1.0, 2.0, 3.0]]}).tolist(),
          "reg": float(reg), "params": a.count_params(),
          "phase": tf.keras.backend.learning_phase().name,
          "config": plain.get_config()}
"""


def _run_here():
    scope = {"tf": tf, "np": np, "K_Layer": tf.keras.layers.Layer if hasattr(
        tf.keras, "layers") else Layer}
    exec(PROGRAM, scope)
    return scope["result"]


def test_layer_names_weights_and_losses():
    result = _run_here()
    assert result["names"] == ["linear", "custom", "linear_1"]
    assert result["weights"] == ["linear/kernel:0", "linear/bias:0", "custom/kernel:0",
                                 "custom/bias:0", "linear_1/kernel:0", "linear_1/bias:0"]
    assert result["uid"] == 1  # get_uid's counters are apart from the layer names'
    assert result["a"] == [[7.0, 8.0]]
    assert result["reg"] == pytest.approx(3.0)  # 0.5 * sum(ones(3, 2) ** 2)
    assert result["params"] == 8
    assert result["phase"] == "keras_learning_phase:0"
    assert result["config"] == {"name": "plain", "trainable": True, "dtype": "float32"}


def test_same_names_and_values_as_tf_keras(tf1):
    theirs = tf1("import tensorflow.compat.v1 as tf\nK_Layer = tf.keras.layers.Layer\n"
                 + PROGRAM + "\nprint(json.dumps(result))")
    ours = json.loads(json.dumps(_run_here()))
    assert ours == theirs


def test_set_weights_checks_count_and_shapes():
    layer = Linear()
    layer(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.ones((3, 2))])
    with pytest.raises(ValueError, match=r"Layer weight shape \(3, 2\) not compatible"):
        layer.set_weights([np.ones((2, 2)), np.ones(2)])


def test_count_params_before_build_names_the_layer():
    with pytest.raises(ValueError, match="call `count_params` on linear, but the layer isn't"):
        Linear().count_params()


def test_unknown_constructor_keyword():
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        Linear(foo=1)


def test_learning_phase_placeholder_and_fixed_value():
    phase = K.learning_phase()
    assert phase.op.type == "PlaceholderWithDefault" and phase.dtype == tf.bool
    assert K.get_session().run(phase) is np.False_ or not K.get_session().run(phase)
    K.set_learning_phase(1)
    assert K.learning_phase() == 1
    with K.learning_phase_scope(0):
        assert K.learning_phase() == 0
    assert K.learning_phase() == 1


def test_by_name_modules():
    assert isinstance(initializers.get("glorot_uniform"), initializers.GlorotUniform)
    assert initializers.get("random_normal").stddev == 0.05
    assert activations.get("relu") is activations.relu
    assert activations.get(None) is activations.linear
    assert regularizers.get({"class_name": "L1L2", "config": {"l1": 0.0, "l2": 0.1}}).l2 == \
        pytest.approx(0.1)
    assert isinstance(constraints.get("non_neg"), constraints.NonNeg)
    with pytest.raises(ValueError, match="Unknown activation function: nope"):
        activations.get("nope")


def test_backend_values_and_function():
    v = K.variable(np.arange(6).reshape(2, 3), name="v")
    assert v.name == "v:0" and K.int_shape(v) == (2, 3)
    np.testing.assert_allclose(K.get_value(v), np.arange(6).reshape(2, 3))
    K.set_value(v, np.ones((2, 3)))
    x = K.placeholder(shape=(None, 3))
    f = K.function([x], [K.sum(x * v, axis=1)])
    np.testing.assert_allclose(f([np.ones((2, 3))])[0], [3.0, 3.0])
    K.clear_session()
    assert tf.get_default_graph().get_operations() == []
