"""The callbacks and training options the oracle comparisons do not cover: they run, and
do what they say."""

from __future__ import annotations

import glob

import numpy as np

import scopeflow as tf

K = tf.keras


def _model():
    model = K.Sequential([K.layers.Dense(2, activation="softmax", input_shape=(3,))])
    model.compile(K.optimizers.SGD(0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


DATA = (np.random.RandomState(0).rand(12, 3).astype("float32"), np.array([0, 1] * 6))


def test_reduce_lr_on_plateau_and_restore_best_weights():
    model = _model()
    reduce = K.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                           min_delta=10.0)
    stop = K.callbacks.EarlyStopping(monitor="loss", patience=2, min_delta=10.0,
                                     restore_best_weights=True)
    history = model.fit(*DATA, epochs=5, verbose=0, callbacks=[reduce, stop])
    np.testing.assert_allclose(history.history["lr"], [0.1, 0.1, 0.05])  # logged before reducing
    assert len(history.epoch) == 3 and stop.stopped_epoch == 2


def test_tensorboard_writes_events(tmp_path):
    model = _model()
    model.fit(*DATA, epochs=2, verbose=0, callbacks=[K.callbacks.TensorBoard(str(tmp_path))])
    files = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert files
    tags = {v.tag for e in tf.train.summary_iterator(files[0]) for v in e.summary.value}
    assert {"loss", "acc"} <= tags


def test_sample_and_class_weights_change_the_loss():
    x, y = DATA
    model = _model()
    plain = model.test_on_batch(x, y)[0]
    weighted = model.test_on_batch(x, y, sample_weight=np.arange(12) % 2 * 2.0)[0]
    assert plain != weighted
    model.fit(x, y, epochs=1, verbose=0, class_weight={0: 1.0, 1: 3.0})
    assert model.predict_on_batch(x).shape == (12, 2)
