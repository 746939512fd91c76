"""``tf.keras.callbacks.TensorBoard(histogram_freq=N)``: tf_keras's v1 callback writes, on
each validation batch of every N-th epoch, histograms of every layer's weights (and with
``write_grads`` their gradients, with ``write_images`` their images) and outputs; the tags
and steps are compared with what tf_keras 2.21 (TF1 graph mode) writes, the values with the
weights and outputs themselves."""

import glob

import numpy as np
import pytest

import scopeflow as tf

# The model and data, run by scopeflow here and by tf_keras in the oracle (``keras`` is
# scopeflow's tf.keras or tf_keras).
_PROGRAM = """
def build_and_fit(keras, log_dir, histogram_freq=2, **tb_kwargs):
    rng = np.random.RandomState(0)
    x = rng.rand(8, 3).astype("float32")
    y = rng.rand(8, 1).astype("float32")
    inputs = keras.Input((3,), name="inp")
    h = keras.layers.Dense(4, name="d1")(inputs)
    h = keras.layers.BatchNormalization(name="bn")(h)
    outputs = keras.layers.Dense(1, name="d2")(h)
    model = keras.Model(inputs, outputs)
    model.compile("sgd", "mse")
    callback = keras.callbacks.TensorBoard(log_dir=log_dir, histogram_freq=histogram_freq,
                                           write_graph=True, update_freq="epoch",
                                           **tb_kwargs)
    model.fit(x, y, epochs=3, batch_size=4, callbacks=[callback], validation_data=(x, y),
              verbose=0)
    return model, x


def read_events(files, iterator):
    events = {}
    for name in files:
        for event in iterator(name):
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                events.setdefault(value.tag, []).append((event.step, kind))
    return {tag: sorted(steps) for tag, steps in events.items()}
"""
exec(_PROGRAM)  # noqa: S102 - defines build_and_fit and read_events for both runs


def _events_files(log_dir):
    return sorted(glob.glob(str(log_dir) + "/events.out.tfevents.*"))


def _histograms(log_dir):
    """{(tag, step): HistogramProto}."""
    out = {}
    for name in _events_files(log_dir):
        for event in tf.train.summary_iterator(name):
            for value in event.summary.value:
                if value.WhichOneof("value") == "histo":
                    out[value.tag, event.step] = value.histo
    return out


def _check_histogram(histo, values):
    values = np.asarray(values, np.float64).ravel()
    assert histo.num == values.size
    np.testing.assert_allclose([histo.min, histo.max], [values.min(), values.max()],
                               rtol=1e-6)
    np.testing.assert_allclose([histo.sum, histo.sum_squares],
                               [values.sum(), (values ** 2).sum()], rtol=1e-5, atol=1e-6)
    assert sum(histo.bucket) == values.size


def test_histograms_are_the_weights_and_outputs(tmp_path):
    tf.keras.backend.clear_session()
    model, x = build_and_fit(tf.keras, str(tmp_path))  # noqa: F821
    histos = _histograms(tmp_path)
    # histogram_freq=2 over 3 epochs: epochs 0 and 2, 2 validation batches each.
    assert {step for _, step in histos} == {0, 1, 2, 3}
    weights = {w.name: v for w, v in zip(model.weights, model.get_weights())}
    assert len(weights) == 8
    for name, value in weights.items():
        # The last validation pass runs after the last training batch.
        _check_histogram(histos[name.replace(":", "_"), 3], value)
    _check_histogram(histos["d2_out", 3], model.predict(x[4:]))
    _check_histogram(histos["d2_out", 2], model.predict(x[:4]))
    _check_histogram(histos["inp_out", 3], x[4:])
    tags = read_events(_events_files(tmp_path), tf.train.summary_iterator)  # noqa: F821
    assert tags["loss"] == [(0, "simple_value"), (1, "simple_value"), (2, "simple_value")]


def test_histogram_freq_0_writes_no_histogram(tmp_path):
    tf.keras.backend.clear_session()
    build_and_fit(tf.keras, str(tmp_path), histogram_freq=0)  # noqa: F821
    assert _histograms(tmp_path) == {}
    assert set(read_events(_events_files(tmp_path), tf.train.summary_iterator)) == {  # noqa: F821
        "loss", "val_loss"}


def _scopeflow_tags(tmp_path, **kwargs):
    tf.keras.backend.clear_session()
    build_and_fit(tf.keras, str(tmp_path), **kwargs)  # noqa: F821
    tags = read_events(_events_files(tmp_path), tf.train.summary_iterator)  # noqa: F821
    # The scalar epoch logs keep scopeflow's tags (tf_keras prefixes them with "epoch_").
    return {tag: steps for tag, steps in tags.items() if steps[0][1] != "simple_value"}


@pytest.mark.parametrize("kwargs", [{}, {"write_grads": True, "write_images": True}],
                         ids=["weights", "grads_images"])
def test_tags_and_steps_are_tf_keras(tf1, tmp_path, kwargs):
    theirs = tf1(_PROGRAM + f"""
import glob, tempfile
import tf_keras
from tensorflow.python.summary.summary_iterator import summary_iterator
tf.disable_eager_execution()
log_dir = tempfile.mkdtemp()
build_and_fit(tf_keras, log_dir, **{kwargs!r})
tags = read_events(sorted(glob.glob(log_dir + "/events.out.tfevents.*")), summary_iterator)
print(json.dumps({{t: s for t, s in tags.items() if s[0][1] != "simple_value"}}))
""")
    theirs = {tag: [tuple(s) for s in steps] for tag, steps in theirs.items()}
    assert _scopeflow_tags(tmp_path, **kwargs) == theirs
