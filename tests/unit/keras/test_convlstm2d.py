"""``tf.keras.layers.ConvLSTM2D`` against tf_keras 2.21 (TF1 graph mode): the same weights
(``set_weights``) give the same outputs and states, the weights have tf_keras's names and
shapes, and one SGD step moves them as tf_keras's does."""

import json

import numpy as np
import pytest

import scopeflow as tf

CASES = [
    dict(filters=3, kernel_size=(3, 3), padding="same", return_sequences=True,
         return_state=True),
    dict(filters=2, kernel_size=2, strides=2),
    dict(filters=2, kernel_size=(3, 2), padding="same", dilation_rate=2, go_backwards=True,
         activation="relu", recurrent_activation="sigmoid", return_sequences=True),
    dict(filters=4, kernel_size=(1, 3), use_bias=False, return_state=True),
]

# Run by scopeflow here and by tf_keras in the oracle (``keras`` is either).
_PROGRAM = """
def run_case(keras, kwargs, train=False):
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (2, 4, 7, 6, 2)).astype("float32")
    inputs = keras.Input((4, 7, 6, 2))
    layer = keras.layers.ConvLSTM2D(**kwargs)
    outputs = layer(inputs)
    model = keras.Model(inputs, outputs)
    weights = [rng.uniform(-0.5, 0.5, w.shape.as_list()).astype("float32")
               for w in layer.weights]
    layer.set_weights(weights)
    result = {"names": [w.name for w in layer.weights],
              "shapes": [w.shape.as_list() for w in layer.weights]}
    outs = model.predict(x)
    outs = outs if isinstance(outs, list) else [outs]
    result["outputs"] = [o.tolist() for o in outs]
    result["output_shapes"] = [list(o.shape) for o in outs]
    if train:
        target = rng.uniform(-1, 1, outs[0].shape).astype("float32")
        single = keras.Model(inputs, outputs[0] if isinstance(outputs, list) else outputs)
        single.compile("sgd", "mse")
        keras.backend.set_value(single.optimizer.lr, 0.5)
        result["loss"] = float(single.train_on_batch(x, target))
        result["trained"] = [w.tolist() for w in layer.get_weights()]
        result["moved"] = float(max(np.abs(a - b).max()
                                    for a, b in zip(layer.get_weights(), weights)))
    return result
"""
exec(_PROGRAM)  # noqa: S102 - defines run_case for both runs


@pytest.fixture(scope="module")
def theirs(tf1):
    return tf1(_PROGRAM + f"""
import tf_keras
tf.disable_eager_execution()
results = []
for i, kwargs in enumerate({CASES!r}):
    tf_keras.backend.clear_session()
    results.append(run_case(tf_keras, kwargs, train=(i == 0)))
print(json.dumps(results))
""")


@pytest.mark.parametrize("case", range(len(CASES)))
def test_outputs_and_weights_are_tf_keras(theirs, case):
    tf.keras.backend.clear_session()
    ours = run_case(tf.keras, CASES[case], train=(case == 0))  # noqa: F821
    expected = theirs[case]
    assert ours["names"] == expected["names"]
    assert ours["shapes"] == expected["shapes"]
    assert ours["output_shapes"] == expected["output_shapes"]
    for a, b in zip(ours["outputs"], expected["outputs"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    if case == 0:
        np.testing.assert_allclose(ours["loss"], expected["loss"], rtol=1e-5)
        assert ours["moved"] > 1e-2  # the step is far larger than the tolerance
        for a, b in zip(ours["trained"], expected["trained"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_config_round_trip_and_shape():
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.ConvLSTM2D(2, 3, strides=(2, 1), return_sequences=True)
    copy = tf.keras.layers.ConvLSTM2D.from_config(layer.get_config())
    assert copy.get_config() == dict(layer.get_config(), name=copy.name)
    assert layer.compute_output_shape((None, 5, 9, 8, 3)).as_list() == [None, 5, 4, 6, 2]
    out = layer(tf.keras.Input((5, 9, 8, 3)))
    assert out.shape.as_list() == [None, 5, 4, 6, 2]
    assert json.dumps(layer.get_config())


def test_unsupported_arguments_raise():
    with pytest.raises(NotImplementedError, match="stateful"):
        tf.keras.layers.ConvLSTM2D(2, 3, stateful=True)
    with pytest.raises(NotImplementedError, match="channels_first"):
        tf.keras.layers.ConvLSTM2D(2, 3, data_format="channels_first")
    with pytest.raises(TypeError, match="Unrolling"):
        tf.keras.layers.ConvLSTM2D(2, 3, unroll=True)
