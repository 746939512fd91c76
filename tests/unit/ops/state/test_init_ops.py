"""TF1 initializers: values, statistics, graph names, configs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.state import init_ops


def _run(t):
    with tf.Session() as s:
        return s.run(t)


def _names():
    return [op.name for op in tf.get_default_graph().get_operations()]


def test_zeros_ones_constant_values():
    arr = np.arange(6.0).reshape(2, 3)
    z, o, z64, c, c3, ca = _run([
        tf.zeros_initializer()([2, 3]), tf.ones_initializer(dtype=tf.int32)([4]),
        tf.zeros_initializer()([2], dtype=tf.float64), tf.constant_initializer([1.0, 2.0])([2, 2]),
        tf.constant_initializer(3)([2]), tf.constant_initializer(arr)([2, 3])])
    assert z.dtype == np.float32 and z.shape == (2, 3) and not z.any()
    assert o.dtype == np.int32 and o.tolist() == [1, 1, 1, 1]
    assert z64.dtype == np.float64
    assert c.tolist() == [[1.0, 2.0], [2.0, 2.0]]
    assert c3.tolist() == [3.0, 3.0]
    np.testing.assert_array_equal(ca, arr)


def test_constant_verify_shape_and_bad_value():
    with pytest.raises(TypeError):
        tf.constant_initializer([1.0, 2.0], verify_shape=True)([3])
    with pytest.raises(TypeError, match="Invalid type"):
        tf.constant_initializer({"a": 1})


def test_names_inside_a_variable():
    tf.Variable(lambda: tf.glorot_uniform_initializer()([3, 4]), name="v")
    tf.Variable(lambda: tf.truncated_normal_initializer()([3, 4]), name="w")
    tf.Variable(lambda: tf.zeros_initializer()([3, 4]), name="z")
    tf.Variable(lambda: tf.constant_initializer([1, 2])([3, 4]), name="c")
    names = _names()
    for want in ["v/Initializer/random_uniform/shape", "v/Initializer/random_uniform/min",
                 "v/Initializer/random_uniform/max", "v/Initializer/random_uniform/RandomUniform",
                 "v/Initializer/random_uniform/sub", "v/Initializer/random_uniform/mul",
                 "v/Initializer/random_uniform", "w/Initializer/truncated_normal/mean",
                 "w/Initializer/truncated_normal/stddev",
                 "w/Initializer/truncated_normal/TruncatedNormal",
                 "w/Initializer/truncated_normal", "z/Initializer/zeros",
                 "c/Initializer/Const"]:
        assert want in names, f"{want} not in {names}"


def test_large_zeros_use_fill_as_tf():
    tf.Variable(lambda: tf.zeros_initializer()([30, 40]), name="w")
    tf.Variable(lambda: tf.ones_initializer()([3, 4]), name="o")
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    assert ("w/Initializer/zeros/shape_as_tensor", "Const") in ops
    assert ("w/Initializer/zeros", "Fill") in ops
    assert ("o/Initializer/ones", "Const") in ops


def test_random_initializers_statistics():
    u = _run(tf.random_uniform_initializer(-2.0, 3.0, seed=1)([200, 100]))
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    n = _run(tf.random_normal_initializer(1.0, 2.0, seed=2)([200, 100]))
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 2.0) < 0.05
    t = _run(tf.truncated_normal_initializer(0.0, 0.5, seed=3)([200, 100]))
    assert np.abs(t).max() <= 1.0 and abs(t.std() - 0.5 * 0.8796) < 0.02
    i = _run(tf.random_uniform_initializer(0, 10, dtype=tf.int32)([1000]))
    assert i.dtype == np.int32 and i.min() >= 0 and i.max() < 10


@pytest.mark.parametrize("mode,expected_n", [("fan_in", 300), ("fan_out", 200),
                                             ("fan_avg", 250)])
def test_variance_scaling_modes(mode, expected_n):
    shape = [3, 100, 200]                  # a conv kernel: receptive field 3
    fan_in, fan_out = init_ops._compute_fans(shape)
    assert (fan_in, fan_out) == (300, 600)
    shape = [300, 200]
    scale = 2.0
    u = _run(tf.variance_scaling_initializer(scale, mode, "uniform", seed=1)(shape))
    limit = math.sqrt(3 * scale / expected_n)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.95 * limit
    n = _run(tf.variance_scaling_initializer(scale, mode, "untruncated_normal", seed=2)(shape))
    assert abs(n.std() - math.sqrt(scale / expected_n)) < 0.03 * math.sqrt(scale / expected_n)
    for dist in ("truncated_normal", "normal"):
        t = _run(tf.variance_scaling_initializer(scale, mode, dist, seed=3)(shape))
        # The truncation correction restores the requested variance.
        assert abs(t.std() - math.sqrt(scale / expected_n)) < 0.03 * math.sqrt(scale / expected_n)


def test_variance_scaling_graph_and_errors():
    t = tf.variance_scaling_initializer()([4, 5])
    assert t.op.name == "truncated_normal"
    stddev = tf.get_default_graph().get_operation_by_name("truncated_normal/stddev")
    assert np.isclose(stddev.get_attr("value"), math.sqrt(1 / 4) / 0.87962566103423978)
    with pytest.raises(ValueError, match="scale"):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        tf.variance_scaling_initializer(mode="fan_mid")
    with pytest.raises(ValueError, match="distribution"):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="floating"):
        tf.variance_scaling_initializer(dtype=tf.int32)


def test_glorot():
    shape = [300, 500]
    limit = math.sqrt(6 / 800)
    u = _run(tf.glorot_uniform_initializer(seed=1)(shape))
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.99 * limit
    n = _run(tf.glorot_normal_initializer(seed=2)(shape))
    assert abs(n.std() - math.sqrt(2 / 800)) < 0.03 * math.sqrt(2 / 800)
    assert tf.glorot_normal_initializer().distribution == "truncated_normal"


def test_he_lecun():
    assert init_ops.he_normal().get_config()["scale"] == 2.0
    assert init_ops.he_uniform().distribution == "uniform"
    assert init_ops.lecun_normal().scale == 1.0
    assert init_ops.lecun_uniform().mode == "fan_in"


def test_default_dtype_and_override():
    assert tf.glorot_uniform_initializer()([2, 2]).dtype == tf.float32
    assert tf.random_normal_initializer()([2], dtype=tf.float64).dtype == tf.float64


@pytest.mark.parametrize("init", [
    init_ops.Zeros(), init_ops.Ones(tf.int64), init_ops.Constant([1, 2], tf.int32),
    init_ops.RandomUniform(-1.0, 2.0, seed=3), init_ops.RandomNormal(0.5, 2.0, seed=4),
    init_ops.TruncatedNormal(stddev=0.1), init_ops.VarianceScaling(2.0, "fan_out", "uniform", 5),
    init_ops.GlorotUniform(seed=6), init_ops.GlorotNormal(dtype=tf.float64)],
    ids=lambda i: type(i).__name__)
def test_config_round_trip(init):
    config = init.get_config()
    again = type(init).from_config(dict(config))
    assert again.get_config() == config
    assert isinstance(config["dtype"], str)


def test_configs_match_tf():
    assert init_ops.RandomUniform().get_config() == {
        "minval": 0.0, "maxval": None, "seed": None, "dtype": "float32"}
    assert init_ops.GlorotUniform(seed=1).get_config() == {"seed": 1, "dtype": "float32"}
    assert init_ops.VarianceScaling().get_config() == {
        "scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal", "seed": None,
        "dtype": "float32"}
    assert init_ops.Constant(2).get_config() == {"value": 2, "dtype": "float32"}


def test_seeded_initializer_is_reproducible():
    tf.set_random_seed(1)
    a = tf.glorot_uniform_initializer()([3, 3])
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        b = tf.glorot_uniform_initializer()([3, 3])
    with tf.Session() as s1, tf.Session(graph=g) as s2:
        np.testing.assert_array_equal(s1.run(a), s2.run(b))


def test_initializers_namespace():
    ns = tf.initializers
    assert ns.glorot_uniform is init_ops.GlorotUniform
    assert ns.zeros is init_ops.Zeros
    v = tf.Variable(1.0, name="x")
    with tf.Session() as s:
        s.run(ns.global_variables())
        assert s.run(v) == 1.0


@pytest.mark.bitexact
@pytest.mark.tf
def test_glorot_values_match_tensorflow(tf1):
    code = """
    tf.set_random_seed(5)
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [4, 3], initializer=tf.glorot_uniform_initializer(seed=9))
        b = tf.get_variable("b", [5], initializer=tf.truncated_normal_initializer(seed=2))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        print(json.dumps([s.run(w).reshape(-1).view(np.uint32).tolist(),
                          s.run(b).view(np.uint32).tolist()]))
    """
    want = tf1(code)
    tf.set_random_seed(5)
    w = tf.Variable(lambda: tf.glorot_uniform_initializer(seed=9)([4, 3]), name="layer/w")
    b = tf.Variable(lambda: tf.truncated_normal_initializer(seed=2)([5]), name="layer/b")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = [s.run(w).reshape(-1).view(np.uint32).tolist(), s.run(b).view(np.uint32).tolist()]
    assert got == want
