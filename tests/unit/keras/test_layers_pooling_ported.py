"""tf_keras's own tests of the global pooling layers (tf_keras/layers/pooling/
global_average_pooling_test.py and global_max_pooling_test.py), rewritten against the
public API in graph mode (``import scopeflow as tf``, ``tf.keras``).

``_layer_test`` stands for tf_keras's ``test_utils.layer_test``: it calls the layer on an
``Input``, checks the static output shape, predicts random data through a model and remakes
the layer from its config. Tests of mixed precision and ragged inputs are in ``SKIPPED``.
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
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


def _layer_test(cls, kwargs=None, input_shape=None, expected_output_shape=None):
    kwargs = kwargs or {}
    data = np.random.random(input_shape).astype(np.float32)
    layer = cls(**kwargs)
    x = keras.layers.Input(shape=input_shape[1:])
    y = layer(x)
    expected = tuple(layer.compute_output_shape(tf.TensorShape((None,) + input_shape[1:]))
                     .as_list())
    assert tuple(y.shape.as_list()) == expected
    if expected_output_shape is not None:
        assert expected == tuple(expected_output_shape)
    model = keras.models.Model(x, y)
    out = model.predict(data)
    assert out.shape == (input_shape[0],) + expected[1:]
    remade = cls.from_config(layer.get_config())
    assert remade.get_config()["data_format"] == layer.get_config()["data_format"]
    return out


def _masked_mean_model(keepdims=False):
    model = keras.Sequential()
    model.add(keras.layers.Masking(mask_value=0.0, input_shape=(None, 4)))
    model.add(keras.layers.GlobalAveragePooling1D(keepdims=keepdims))
    model.compile(loss="mae", optimizer="rmsprop")
    return model


@_in_graph
def test_global_average_pooling_1d():
    _layer_test(keras.layers.GlobalAveragePooling1D, input_shape=(3, 4, 5))
    _layer_test(keras.layers.GlobalAveragePooling1D, {"data_format": "channels_first"},
                input_shape=(3, 4, 5))


@_in_graph
def test_global_average_pooling_1d_masking_support():
    model = _masked_mean_model()
    model_input = np.random.random((2, 3, 4))
    model_input[0, 1:, :] = 0
    output = model.predict(model_input)
    np.testing.assert_allclose(output[0], model_input[0, 0, :], rtol=1e-5)


@_in_graph
def test_global_average_pooling_2d():
    _layer_test(keras.layers.GlobalAveragePooling2D, {"data_format": "channels_first"},
                input_shape=(3, 4, 5, 6))
    _layer_test(keras.layers.GlobalAveragePooling2D, {"data_format": "channels_last"},
                input_shape=(3, 5, 6, 4))


@_in_graph
def test_global_average_pooling_3d():
    for data_format in ("channels_first", "channels_last"):
        _layer_test(keras.layers.GlobalAveragePooling3D, {"data_format": data_format},
                    input_shape=(3, 4, 3, 4, 3))


@_in_graph
def test_global_average_pooling_keepdims():
    cases = [
        (keras.layers.GlobalAveragePooling1D, {"keepdims": True}, (3, 4, 5), (None, 1, 5)),
        (keras.layers.GlobalAveragePooling1D,
         {"data_format": "channels_first", "keepdims": True}, (3, 4, 5), (None, 4, 1)),
        (keras.layers.GlobalAveragePooling2D,
         {"data_format": "channels_first", "keepdims": True}, (3, 4, 5, 6),
         (None, 4, 1, 1)),
        (keras.layers.GlobalAveragePooling2D,
         {"data_format": "channels_last", "keepdims": True}, (3, 4, 5, 6), (None, 1, 1, 6)),
        (keras.layers.GlobalAveragePooling3D,
         {"data_format": "channels_first", "keepdims": True}, (3, 4, 3, 4, 3),
         (None, 4, 1, 1, 1)),
        (keras.layers.GlobalAveragePooling3D,
         {"data_format": "channels_last", "keepdims": True}, (3, 4, 3, 4, 3),
         (None, 1, 1, 1, 3)),
    ]
    for cls, kwargs, input_shape, expected in cases:
        _layer_test(cls, kwargs, input_shape=input_shape, expected_output_shape=expected)


@_in_graph
def test_global_average_pooling_1d_keepdims_masking_support():
    model = _masked_mean_model(keepdims=True)
    model_input = np.random.random((2, 3, 4))
    model_input[0, 1:, :] = 0
    output = model.predict(model_input)
    assert output.shape == (2, 1, 4)
    np.testing.assert_allclose(output[0, 0], model_input[0, 0, :], rtol=1e-5)


@_in_graph
def test_global_average_pooling_1d_invalid_input_dimension():
    with _raises(ValueError, "Incorrect input shape"):
        keras.layers.GlobalAveragePooling1D().build((None, 0, 2))


@_in_graph
def test_global_average_pooling_3d_invalid_input_dimension():
    with _raises(ValueError, "Incorrect input shape"):
        keras.layers.GlobalAveragePooling3D(keepdims=True).build((None, 0, 16, 16, 3))


@_in_graph
def test_global_max_pooling():
    _layer_test(keras.layers.GlobalMaxPooling1D, input_shape=(3, 4, 5))
    _layer_test(keras.layers.GlobalMaxPooling1D, {"data_format": "channels_first"},
                input_shape=(3, 4, 5))
    for data_format, shape in (("channels_first", (3, 4, 5, 6)),
                               ("channels_last", (3, 5, 6, 4))):
        _layer_test(keras.layers.GlobalMaxPooling2D, {"data_format": data_format},
                    input_shape=shape)
    for data_format in ("channels_first", "channels_last"):
        _layer_test(keras.layers.GlobalMaxPooling3D, {"data_format": data_format},
                    input_shape=(3, 4, 3, 4, 3))


@_in_graph
def test_global_max_pooling_keepdims():
    cases = [
        (keras.layers.GlobalMaxPooling1D, {"keepdims": True}, (3, 4, 5), (None, 1, 5)),
        (keras.layers.GlobalMaxPooling2D,
         {"data_format": "channels_first", "keepdims": True}, (3, 4, 5, 6),
         (None, 4, 1, 1)),
        (keras.layers.GlobalMaxPooling3D,
         {"data_format": "channels_last", "keepdims": True}, (3, 4, 3, 4, 3),
         (None, 1, 1, 1, 3)),
    ]
    for cls, kwargs, input_shape, expected in cases:
        out = _layer_test(cls, kwargs, input_shape=input_shape,
                          expected_output_shape=expected)
        assert np.all(np.isfinite(out))


SKIPPED = {
    "GlobalAveragePoolingTest.test_mixed_float16_policy": "mixed precision policies",
    "GlobalAveragePoolingTest.test_global_average_pooling_1d_with_ragged":
        "ragged Keras inputs",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
