"""tf_keras's own tests of the merge layers (tf_keras/layers/merging/merging_test.py),
rewritten against the public API in graph mode (``import scopeflow as tf``, ``tf.keras``).

Each test is ours, written after the tf_keras test of the same name; tests of ragged or
eager-only inputs are listed in ``SKIPPED`` with the reason. ``test_real_tensorflow_passes_
these_tests`` runs this very file under the oracle with ``scopeflow`` standing for
``tensorflow.compat.v1`` (its ``tf.keras`` is tf_keras): every test here is one TF passes.
"""

from __future__ import annotations

import functools

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

keras = tf.keras


def _in_graph(fn):
    """Runs the test in a graph of its own (Keras's session follows the default graph)."""
    @functools.wraps(fn)
    def wrapper():
        with tf.Graph().as_default():
            fn()
    return wrapper


def _close(a, b, atol=1e-4):
    np.testing.assert_allclose(a, b, atol=atol)


def _check_mask_errors(layer, i1, i2, i3, x1):
    with _raises(ValueError, "`mask` should be a list."):
        layer.compute_mask([i1, i2, i3], x1)
    with _raises(ValueError, "`inputs` should be a list."):
        layer.compute_mask(i1, [None, None, None])


@_in_graph
def test_add():
    i1, i2, i3 = (keras.layers.Input(shape=(4, 5)) for _ in range(3))
    add_layer = keras.layers.Add()
    o = add_layer([i1, i2, i3])
    assert o.shape.as_list() == [None, 4, 5]
    model = keras.models.Model([i1, i2, i3], o)
    x1, x2, x3 = (np.random.random((2, 4, 5)) for _ in range(3))
    out = model.predict([x1, x2, x3])
    assert out.shape == (2, 4, 5)
    _close(out, x1 + x2 + x3)
    assert add_layer.compute_mask([i1, i2, i3], [None, None, None]) is None
    mask = add_layer.compute_mask([i1, i2], [keras.backend.variable(x1),
                                             keras.backend.variable(x2)])
    assert np.all(keras.backend.eval(mask))
    _check_mask_errors(add_layer, i1, i2, i3, x1)
    with _raises(ValueError, " should have the same length."):
        add_layer.compute_mask([i1, i2, i3], [None, None])


@_in_graph
def test_subtract():
    i1, i2, i3 = (keras.layers.Input(shape=(4, 5)) for _ in range(3))
    subtract_layer = keras.layers.Subtract()
    o = subtract_layer([i1, i2])
    assert o.shape.as_list() == [None, 4, 5]
    model = keras.models.Model([i1, i2], o)
    x1, x2 = np.random.random((2, 4, 5)), np.random.random((2, 4, 5))
    out = model.predict([x1, x2])
    assert out.shape == (2, 4, 5)
    _close(out, x1 - x2)
    assert subtract_layer.compute_mask([i1, i2], [None, None]) is None
    mask = subtract_layer.compute_mask([i1, i2], [keras.backend.variable(x1),
                                                  keras.backend.variable(x2)])
    assert np.all(keras.backend.eval(mask))
    with _raises(ValueError, "`mask` should be a list."):
        subtract_layer.compute_mask([i1, i2], x1)
    with _raises(ValueError, "`inputs` should be a list."):
        subtract_layer.compute_mask(i1, [None, None])
    with _raises(ValueError, "layer should be called on exactly 2 inputs"):
        subtract_layer([i1, i2, i3])
    with _raises(ValueError, "layer should be called on exactly 2 inputs"):
        subtract_layer([i1])


def _elementwise(functional, expected, n):
    inputs = [keras.layers.Input(shape=(4, 5)) for _ in range(n)]
    o = functional(inputs)
    assert o.shape.as_list() == [None, 4, 5]
    model = keras.models.Model(inputs, o)
    xs = [np.random.random((2, 4, 5)) for _ in inputs]
    out = model.predict(xs)
    assert out.shape == (2, 4, 5)
    _close(out, expected(*xs))


@_in_graph
def test_multiply():
    _elementwise(keras.layers.multiply, lambda a, b, c: a * b * c, 3)


@_in_graph
def test_average():
    _elementwise(keras.layers.average, lambda a, b: 0.5 * (a + b), 2)


@_in_graph
def test_maximum():
    _elementwise(keras.layers.maximum, np.maximum, 2)


@_in_graph
def test_minimum():
    _elementwise(keras.layers.minimum, np.minimum, 2)


@_in_graph
def test_concatenate():
    i1, i2 = keras.layers.Input(shape=(4, 5)), keras.layers.Input(shape=(4, 5))
    concat_layer = keras.layers.Concatenate(axis=1)
    o = concat_layer([i1, i2])
    assert o.shape.as_list() == [None, 8, 5]
    model = keras.models.Model([i1, i2], o)
    x1, x2 = np.random.random((2, 4, 5)), np.random.random((2, 4, 5))
    out = model.predict([x1, x2])
    assert out.shape == (2, 8, 5)
    _close(out, np.concatenate([x1, x2], axis=1))
    assert concat_layer.compute_mask([i1, i2], [None, None]) is None
    mask = concat_layer.compute_mask([i1, i2], [keras.backend.variable(x1),
                                                keras.backend.variable(x2)])
    assert np.all(keras.backend.eval(mask))
    # Works with a unit-length input.
    unit_length_o = concat_layer([i1])
    assert unit_length_o.shape.as_list() == i1.shape.as_list()
    with _raises(ValueError, "`mask` should be a list."):
        concat_layer.compute_mask([i1, i2], x1)
    with _raises(ValueError, "`inputs` should be a list."):
        concat_layer.compute_mask(i1, [None, None])
    with _raises(ValueError, "should have the same length"):
        concat_layer.compute_mask([i1, i2], [None])
    with _raises(ValueError, "layer should be called on a list of inputs"):
        concat_layer(i1)


@_in_graph
def test_dot():
    i1, i2 = keras.layers.Input(shape=(4,)), keras.layers.Input(shape=(4,))
    o = keras.layers.dot([i1, i2], axes=1)
    assert o.shape.as_list() == [None, 1]
    model = keras.models.Model([i1, i2], o)
    keras.layers.Dot(axes=1).get_config()
    x1, x2 = np.random.random((2, 4)), np.random.random((2, 4))
    out = model.predict([x1, x2])
    assert out.shape == (2, 1)
    expected = np.array([[np.dot(x1[0], x2[0])], [np.dot(x1[1], x2[1])]])
    _close(out, expected)
    # A negative tuple of axes.
    o = keras.layers.dot([i1, i2], axes=(-1, -1))
    assert o.shape.as_list() == [None, 1]
    model = keras.models.Model([i1, i2], o)
    _close(model.predict([x1, x2]), expected)
    layer = keras.layers.Dot(axes=-1)
    assert tuple(layer.compute_output_shape([(4, 5), (4, 5)]).as_list()) == (4, 1)


@_in_graph
def test_single_element():
    for layer in (keras.layers.Add, keras.layers.add, keras.layers.Average,
                  keras.layers.average, keras.layers.Concatenate, keras.layers.concatenate,
                  keras.layers.Maximum, keras.layers.maximum, keras.layers.Minimum,
                  keras.layers.minimum, keras.layers.Multiply, keras.layers.multiply):
        if isinstance(layer, type):
            layer = layer()
        # A single-element list behaves as the identity.
        i1 = keras.layers.Input(shape=(4, 5))
        o = layer([i1])
        assert o.shape.as_list() == [None, 4, 5]
        model = keras.models.Model(i1, o)
        x1 = np.random.random((2, 4, 5))
        out = model.predict(x1)
        assert out.shape == (2, 4, 5)
        _close(out, x1, atol=1e-6)
        # A single element must come in a list.
        with _raises(ValueError, "called on a list"):
            layer(i1)


@_in_graph
def test_add_elementwise_errors():
    i1, i2 = keras.layers.Input(shape=(4, 5)), keras.layers.Input(shape=(4, 6))
    with _raises(ValueError):
        keras.layers.add([i1, i2])
    with _raises(ValueError):
        keras.layers.add(i1)


@_in_graph
def test_concatenate_errors():
    i1, i2 = keras.layers.Input(shape=(4, 5)), keras.layers.Input(shape=(3, 5))
    with _raises(ValueError, "inputs with matching shapes"):
        keras.layers.concatenate([i1, i2], axis=-1)
    with _raises(ValueError, "called on a list"):
        keras.layers.concatenate(i1, axis=-1)


@_in_graph
def test_concatenate_with_partial_shape():
    i1 = keras.layers.Input(shape=(5,), batch_size=32)
    i2 = keras.layers.Input(shape=(5,))
    i3 = keras.layers.Input(shape=(4, 5), batch_size=32)
    i4 = keras.layers.Input(shape=(None,), batch_size=64)
    i5 = keras.layers.Input(shape=(7,))
    # i2 has a dynamic batch size.
    keras.layers.concatenate([i1, i2], axis=-1)
    with _raises(ValueError, "inputs with matching shapes"):
        keras.layers.concatenate([i1, i3], axis=-1)
    # Partial dimension information.
    keras.layers.concatenate([i1, i4], axis=0)
    keras.layers.concatenate([i2, i4], axis=0)
    keras.layers.concatenate([i2, i4], axis=1)
    keras.layers.concatenate([i1, i2, i4], axis=0)
    keras.layers.concatenate([i1, i5], axis=1)
    # Different batch dimensions.
    with _raises(ValueError, "inputs with matching shapes"):
        keras.layers.concatenate([i1, i4], axis=-1)
    with _raises(ValueError, "inputs with matching shapes"):
        keras.layers.concatenate([i1, i2, i4], axis=-1)


SKIPPED = {
    "MergingLayersTest.test_concatenate_numpy_inputs": "eager only (NumPy inputs)",
    "MergingLayersTest.test_merging_with_ragged_input": "ragged Keras inputs",
    "MergingLayersTest.test_concatenate_with_ragged_input": "ragged Keras inputs",
    "MergingLayersTest.test_merging_with_scalar_input": "eager only (scalar NumPy inputs)",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
