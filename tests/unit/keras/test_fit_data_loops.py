"""tf.keras step loops (datasets, generators, Sequences) beyond the numbers that
test_fit_data.py compares with tf_keras: the batch logs callbacks see, a Sequence's epochs,
the graph not growing across calls, a dataset starting again per call, an iterator refused."""

from __future__ import annotations

import random

import numpy as np
import pytest

import scopeflow as tf

K = tf.keras
X = np.random.RandomState(0).rand(20, 4).astype("float32")
Y = np.random.RandomState(1).rand(20, 2).astype("float32")


def _model():
    model = K.Sequential([K.layers.Dense(2, input_shape=(4,))])
    model.compile(K.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return model


class _Recording(K.utils.Sequence):
    def __init__(self):
        self.seen, self.epochs = [], 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.seen.append(i)
        return X[i * 5:(i + 1) * 5], Y[i * 5:(i + 1) * 5]

    def on_epoch_end(self):
        self.epochs += 1


def test_batch_logs_count_steps_for_datasets_and_rows_for_generators():
    model = _model()
    logs = []
    record = K.callbacks.LambdaCallback(on_batch_end=lambda b, log: logs.append(dict(log)))
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(6)
    model.fit(ds, epochs=1, verbose=0, callbacks=[record])
    assert [(log["batch"], log["size"]) for log in logs] == [(0, 1), (1, 1), (2, 1), (3, 1)]
    assert sorted(logs[0]) == ["batch", "loss", "mean_absolute_error", "size"]

    def gen():
        while True:
            for i in range(0, 20, 6):
                yield X[i:i + 6], Y[i:i + 6]
    logs.clear()
    h = model.fit_generator(gen(), steps_per_epoch=4, verbose=0, callbacks=[record])
    assert [log["size"] for log in logs] == [6, 6, 6, 2]
    sizes = np.array([6, 6, 6, 2])
    losses = np.array([log["loss"] for log in logs])
    np.testing.assert_allclose(h.history["loss"][0], (losses * sizes).sum() / 20, rtol=1e-6)


def test_sequence_order_shuffled_per_epoch_and_on_epoch_end():
    model = _model()
    seq = _Recording()
    model.fit(seq, epochs=2, verbose=0, shuffle=False)
    assert seq.seen == [0, 1, 2, 3, 0, 1, 2, 3] and seq.epochs == 2
    seq = _Recording()
    random.seed(3)
    model.fit(seq, epochs=2, verbose=0)
    random.seed(3)
    first, second = list(range(4)), list(range(4))
    random.shuffle(first)
    random.shuffle(second)
    assert seq.seen == first + second


def test_same_dataset_again_starts_over_and_adds_no_ops():
    model = _model()
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(5)
    first = model.evaluate(ds)
    model.fit(ds, epochs=1, verbose=0, validation_data=ds)
    ops = len(model.outputs[0].graph.get_operations())
    model.fit(ds, epochs=2, verbose=0, validation_data=ds)
    evaluated = model.evaluate(ds)
    model.predict(ds)
    assert len(model.outputs[0].graph.get_operations()) == ops
    assert model.evaluate(ds) == evaluated
    assert not np.allclose(first, evaluated)


def test_predict_of_a_dataset_of_inputs_alone():
    model = _model()
    ds = tf.data.Dataset.from_tensor_slices(X).batch(8)
    np.testing.assert_allclose(model.predict(ds), model.predict(X), rtol=1e-6)


def test_iterator_is_refused():
    model = _model()
    iterator = tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices((X, Y)))
    with pytest.raises(ValueError, match="not iterators"):
        model.fit(iterator, verbose=0)


def test_subclassed_model_builds_from_dict_of_arrays():
    class Two(K.Model):
        def __init__(self):
            super().__init__()
            self.dense = K.layers.Dense(2)

        def call(self, inputs):
            return self.dense(K.layers.concatenate([inputs["a"], inputs["b"]]))

    model = Two()
    model.compile("sgd", "mse")
    h = model.fit({"a": X, "b": X[:, :2]}, Y, epochs=2, verbose=0, batch_size=5)
    assert len(h.history["loss"]) == 2 and h.history["loss"][1] < h.history["loss"][0]
    assert model.predict({"a": X, "b": X[:, :2]}).shape == (20, 2)
    assert [w.shape.as_list() for w in model.weights] == [[6, 2], [2]]


def test_evaluate_calls_the_test_hooks():
    """The hooks and logs tf_keras's evaluate gives callbacks (checked against TF 2.21)."""
    model = _model()
    calls = []

    class Hooks(K.callbacks.Callback):
        def on_test_begin(self, logs=None):
            calls.append("begin")

        def on_test_batch_end(self, batch, logs=None):
            calls.append((batch, logs["size"], sorted(logs)))

        def on_test_end(self, logs=None):
            calls.append("end")

    model.evaluate(X, Y, batch_size=8, callbacks=[Hooks()])
    names = ["batch", "loss", "mean_absolute_error", "size"]
    assert calls == ["begin", (0, 8, names), (1, 8, names), (2, 4, names), "end"]
    calls.clear()
    model.evaluate(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8), callbacks=[Hooks()])
    assert calls == ["begin", (0, 1, names), (1, 1, names), (2, 1, names), "end"]


def test_predict_calls_the_predict_hooks():
    """tf_keras's predict hooks and logs (checked against TF 2.21): ``batch``, ``size``
    (rows for arrays, 1 a step for datasets), ``outputs``."""
    model = _model()
    calls = []

    class Hooks(K.callbacks.Callback):
        def on_predict_begin(self, logs=None):
            calls.append("begin")

        def on_predict_batch_end(self, batch, logs=None):
            calls.append((batch, logs["size"], [np.shape(o) for o in logs["outputs"]]))

        def on_predict_end(self, logs=None):
            calls.append("end")

    model.predict(X, batch_size=8, callbacks=[Hooks()])
    assert calls == ["begin", (0, 8, [(8, 2)]), (1, 8, [(8, 2)]), (2, 4, [(4, 2)]), "end"]
    calls.clear()
    model.predict(tf.data.Dataset.from_tensor_slices(X).batch(16), callbacks=[Hooks()])
    assert calls == ["begin", (0, 1, [(16, 2)]), (1, 1, [(4, 2)]), "end"]
