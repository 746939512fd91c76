"""tf.keras models, compared with real tf_keras (TF 2.21, TF1 graph mode): variable and
tensor names, output shapes, summary() text, and the losses of fit/evaluate/predict from
the same starting weights (set_weights from one seeded array list) to ~1e-5.

Each program below runs here (``tf`` = scopeflow) and under TF (``tf`` =
``tensorflow.compat.v1``, ``tf.keras`` = tf_keras); the oracle tests skip without TF.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import scopeflow as tf

COMMON = """
K = tf.keras
rng = np.random.RandomState(0)
x = rng.rand(20, 4).astype("float32")
y_int = rng.randint(0, 3, 20)
y_cat = np.eye(3)[y_int].astype("float32")
y_reg = rng.rand(20, 2).astype("float32")
y_bin = (rng.rand(20, 1) > 0.5).astype("float32")

def same_weights(model, seed=1):
    r = np.random.RandomState(seed)
    values = [r.uniform(-0.5, 0.5, w.shape.as_list()).astype("float32")
              for w in model.weights]
    model.set_weights([abs(v) + 0.5 if "variance" in w.name else v
                       for v, w in zip(values, model.weights)])

def floats(values):
    return np.asarray(values, dtype="float64").round(5).tolist()
"""

TRAINING = COMMON + """
cases = [
    ("sgd", "sparse_categorical_crossentropy", y_int, 3, "softmax", ["accuracy"]),
    ("adam", "categorical_crossentropy", y_cat, 3, "softmax", ["accuracy", "mse"]),
    ("rmsprop", "mse", y_reg, 2, None, ["mae"]),
    ("adagrad", "binary_crossentropy", y_bin, 1, "sigmoid", ["acc"]),
    ("momentum", "categorical_crossentropy", y_cat, 3, "softmax", []),
    ("tf.train.adam", "mse", y_reg, 2, "tanh", []),
]
result = {}
for opt, loss, y, units, act, metrics in cases:
    K.backend.clear_session()
    model = K.Sequential([K.layers.Dense(8, activation="relu", input_shape=(4,)),
                          K.layers.Dropout(0.0),
                          K.layers.Dense(units, activation=act)])
    same_weights(model)
    optimizer = {"momentum": lambda: K.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                 "tf.train.adam": lambda: tf.train.AdamOptimizer(0.01)}.get(opt, lambda: opt)()
    model.compile(optimizer, loss, metrics=metrics)
    h = model.fit(x, y, batch_size=6, epochs=3, shuffle=False, verbose=0,
                  validation_split=0.25)
    ev = model.evaluate(x, y, batch_size=7, verbose=0)
    result[opt] = {"history": {k: floats(v) for k, v in sorted(h.history.items())},
                   "names": model.metrics_names,
                   "evaluate": floats(ev),
                   "predict": floats(model.predict(x[:3])),
                   "variables": [v.name for v in tf.global_variables()],
                   "batch": floats(model.train_on_batch(x[:5], y[:5]))}
"""

LAYERS = COMMON + """
result = {}
K.backend.clear_session()
inp = K.Input(shape=(6,), name="ids", dtype="int32")
e = K.layers.Embedding(10, 4, mask_zero=True)(inp)
f = K.layers.Flatten()(e)
r = K.layers.Reshape((3, 8))(f)
p = K.layers.Permute((2, 1))(r)
m = K.layers.Masking(0.5)(p)
a = K.layers.Activation("tanh")(m)
v = K.layers.Dense(2)(K.layers.Flatten()(a))
rv = K.layers.RepeatVector(3)(v)
lam = K.layers.Lambda(lambda t: t * 2.0, name="double")(rv)
reg = K.layers.ActivityRegularization(l1=0.01)(lam)
model = K.Model(inp, reg)
same_weights(model, 2)
lines = []
model.summary(print_fn=lines.append)
result["summary"] = lines
result["shapes"] = [list(t.shape.as_list()) for t in (e, f, r, p, m, a, v, rv, lam, reg)]
result["names"] = [t.name for t in (inp, e, f, r, p, m, a, v, rv, lam, reg)]
result["layers"] = [l.name for l in model.layers]
result["variables"] = [w.name for w in model.weights]
ids = np.array([[1, 2, 0, 3, 4, 0], [5, 0, 0, 0, 9, 1]])
result["predict"] = floats(model.predict(ids))
result["losses"] = floats(K.backend.get_session().run(model.losses, {inp: ids}))

K.backend.clear_session()
a_in = K.Input((4,), name="a")
b_in = K.Input((3,), name="b")
h1 = K.layers.Dense(5, activation="relu", name="left")(a_in)
h2 = K.layers.Dense(5, activation="relu", kernel_regularizer=K.regularizers.l2(0.01),
                    name="right")(b_in)
merged = K.layers.Lambda(lambda ts: ts[0] + ts[1], name="merge")([h1, h2])
out1 = K.layers.Dense(3, activation="softmax", name="cls")(merged)
out2 = K.layers.Dense(1, name="reg")(merged)
model = K.Model([a_in, b_in], [out1, out2])
same_weights(model, 3)
lines = []
model.summary(print_fn=lines.append)
result["summary2"] = lines
model.compile("adam", ["sparse_categorical_crossentropy", "mse"], metrics=["accuracy"],
              loss_weights=[1.0, 0.5])
xb = rng.rand(20, 3).astype("float32")
h = model.fit([x, xb], [y_int, y_reg[:, :1]], batch_size=5, epochs=2, shuffle=False,
              verbose=0, validation_data=([x[:10], xb[:10]], [y_int[:10], y_reg[:10, :1]]))
result["history2"] = {k: floats(v) for k, v in sorted(h.history.items())}
result["names2"] = model.metrics_names
result["layers2"] = [l.name for l in model.layers]
"""

VERBOSE = COMMON + """
K.backend.clear_session()
model = K.Sequential()
model.add(K.layers.Dense(3, activation="softmax", input_dim=4))
same_weights(model)
model.compile(K.optimizers.SGD(0.5), "categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y_cat, batch_size=8, epochs=2, shuffle=False, verbose=1, validation_split=0.2)
model.fit(x, y_cat, batch_size=8, epochs=1, shuffle=False, verbose=2)
model.evaluate(x, y_cat, verbose=1)
"""


def run_here(program):
    scope = {"tf": tf, "np": np, "json": json}
    exec(program, scope)
    return json.loads(json.dumps(scope["result"]))


def _oracle(tf1, program):
    return tf1(program + "\nprint(json.dumps(result))")


def _close(ours, theirs, path="result"):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), path
        for k in theirs:
            _close(ours[k], theirs[k], f"{path}[{k!r}]")
    elif _numeric(theirs) and not _exact(theirs):
        np.testing.assert_allclose(np.asarray(ours, dtype=float),
                                   np.asarray(theirs, dtype=float), rtol=1e-4, atol=2e-5,
                                   err_msg=path)
    else:
        assert ours == theirs, path


def _numeric(value):
    try:
        return np.asarray(value, dtype=float).dtype == float
    except (TypeError, ValueError):
        return False


def _exact(value):
    """Integers only (shapes, counts): compared exactly."""
    return all(float(v).is_integer() for v in np.ravel(np.asarray(value, dtype=float)))


def test_training_runs_here():
    result = run_here(TRAINING)
    sgd = result["sgd"]
    assert sgd["names"] == ["loss", "acc"]
    assert sorted(sgd["history"]) == ["acc", "loss", "val_acc", "val_loss"]
    assert len(sgd["history"]["loss"]) == 3
    assert sgd["history"]["loss"][2] < sgd["history"]["loss"][0]
    assert result["adam"]["variables"][4:6] == ["training/Adam/iter:0",
                                                "training/Adam/beta_1:0"]


def test_training_matches_tf_keras(tf1):
    _close(run_here(TRAINING), _oracle(tf1, TRAINING))


def test_layers_and_functional_models_match_tf_keras(tf1):
    _close(run_here(LAYERS), _oracle(tf1, LAYERS))


def test_layers_here():
    result = run_here(LAYERS)
    assert result["shapes"][0] == [None, 6, 4]
    assert result["layers"][:3] == ["ids", "embedding", "flatten"]
    assert result["summary"][0] == 'Model: "model"'


def _progress_lines(text):
    """The lines that do not depend on timing: 'Train on', 'Epoch', and the final bar of
    each epoch (the step time replaced)."""
    out = []
    for line in text.splitlines():
        if line.startswith(("Train on", "Epoch")):
            out.append(line)
        elif re.match(r"\s*(\d+)/\1 ", line):
            line = re.sub(r" - \d+s( \d+(ms|us|s)/(sample|step))?", " - T", line)
            out.append(re.sub(r" - \d+(ms|us|s)/(epoch|sample|step)", " - T", line))
    return out


def _stdout_program():
    """VERBOSE, its printed text captured into ``result``."""
    return ("import io, contextlib\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            + "\n".join("    " + line for line in VERBOSE.splitlines())
            + "\nresult = buf.getvalue()\n")


def test_progress_output_here():
    lines = _progress_lines(run_here(_stdout_program()))
    assert lines[:2] == ["Train on 16 samples, validate on 4 samples", "Epoch 1/2"]
    assert re.fullmatch(r"16/16 \[=+\] - T - loss: [\d.]+ - acc: [\d.]+ - val_loss: [\d.]+ - "
                        r"val_acc: [\d.]+", lines[2])


def test_progress_output_matches_tf_keras(tf1):
    ours = _progress_lines(run_here(_stdout_program()))
    theirs = _progress_lines(_oracle(tf1, _stdout_program()))
    assert ours == theirs


def test_uncompiled_model_names_the_fix():
    x = tf.keras.Input((2,))
    model = tf.keras.Model(x, tf.keras.layers.Dense(1)(x))
    with pytest.raises(RuntimeError, match="You must compile your model"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)), verbose=0)


def test_disconnected_graph():
    a, b = tf.keras.Input((2,)), tf.keras.Input((2,))
    out = tf.keras.layers.Dense(1)(b)
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, out)


def test_saver_and_session_see_keras_variables(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    sess = tf.keras.backend.get_session()
    saver = tf.train.Saver()
    path = saver.save(sess, str(tmp_path / "ckpt"))
    before = model.get_weights()
    model.set_weights([w * 0 for w in before])
    saver.restore(sess, path)
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_allclose(a, b)
    model.save_weights(str(tmp_path / "w_ckpt"))
    model.set_weights([w * 0 for w in before])
    model.load_weights(str(tmp_path / "w_ckpt"))
    np.testing.assert_allclose(model.get_weights()[0], before[0])


def test_hdf5_weights_round_trip(tmp_path):
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    before = model.get_weights()
    model.save_weights(str(tmp_path / "w.h5"))
    model.set_weights([w * 0 for w in before])
    model.load_weights(str(tmp_path / "w.h5"))
    np.testing.assert_allclose(model.get_weights()[0], before[0])


MODELS = COMMON + """
result = {}
images = rng.rand(12, 8, 8, 1).astype("float32")
labels = rng.randint(0, 3, 12)
K.backend.clear_session()
cnn = K.Sequential([
    K.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
    K.layers.BatchNormalization(),
    K.layers.MaxPooling2D(2),
    K.layers.Dropout(0.0),
    K.layers.Flatten(),
    K.layers.Dense(3, activation="softmax")])
same_weights(cnn, 4)
cnn.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
h = cnn.fit(images, labels, batch_size=4, epochs=2, shuffle=False, verbose=0)
result["cnn"] = {"history": {k: floats(v) for k, v in sorted(h.history.items())},
                 "predict": floats(cnn.predict(images[:2])),
                 "variables": [v.name for v in tf.global_variables()]}
lines = []
cnn.summary(print_fn=lines.append)
result["cnn_summary"] = lines

K.backend.clear_session()
texts = rng.randint(1, 20, (12, 7))
texts[:, 5:] = 0
rnn = K.Sequential([
    K.layers.Embedding(20, 5, mask_zero=True, input_length=7),
    K.layers.LSTM(6),
    K.layers.Dense(1, activation="sigmoid")])
same_weights(rnn, 5)
rnn.compile(K.optimizers.RMSprop(0.01), "binary_crossentropy", metrics=["accuracy"])
h = rnn.fit(texts, y_bin[:12], batch_size=4, epochs=2, shuffle=False, verbose=0)
result["lstm"] = {"history": {k: floats(v) for k, v in sorted(h.history.items())},
                  "predict": floats(rnn.predict(texts[:3]))}
"""


def test_cnn_and_lstm_here():
    result = run_here(MODELS)
    assert len(result["cnn"]["history"]["loss"]) == 2
    assert "batch_normalization/moving_mean:0" in result["cnn"]["variables"]


def test_cnn_and_lstm_match_tf_keras(tf1):
    _close(run_here(MODELS), _oracle(tf1, MODELS))


CALLBACKS = COMMON + """
import csv, os, tempfile
result = {}
K.backend.clear_session()
model = K.Sequential([K.layers.Dense(3, activation="softmax", input_shape=(4,))])
same_weights(model)
model.compile(K.optimizers.SGD(0.5), "categorical_crossentropy", metrics=["accuracy"])
folder = tempfile.mkdtemp()
seen = []
stopper = K.callbacks.EarlyStopping(monitor="val_loss", patience=1, min_delta=0.01)
callbacks = [
    K.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr),
    K.callbacks.CSVLogger(os.path.join(folder, "log.csv")),
    K.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e)),
    K.callbacks.ModelCheckpoint(os.path.join(folder, "w{epoch:02d}"), save_weights_only=True,
                                save_best_only=True),
    stopper, K.callbacks.TerminateOnNaN()]
h = model.fit(x, y_cat, batch_size=5, epochs=8, shuffle=False, verbose=0,
              validation_data=(x[:10], y_cat[:10]), callbacks=callbacks)
with open(os.path.join(folder, "log.csv")) as f:
    rows = list(csv.reader(f))
result["header"] = rows[0]
result["rows"] = floats([[float(v) for v in row] for row in rows[1:]])
result["history"] = {k: floats(v) for k, v in sorted(h.history.items())}
result["epochs"] = seen
result["stopped"] = stopper.stopped_epoch
result["saved"] = sorted(n.split(".")[0] for n in os.listdir(folder) if n.startswith("w"))
"""


def test_callbacks_here():
    result = run_here(CALLBACKS)
    assert result["header"][0] == "epoch" and "val_loss" in result["header"]
    assert result["history"]["lr"][:2] == [0.5, 0.25]
    assert result["epochs"] == list(range(len(result["rows"])))


def test_callbacks_match_tf_keras(tf1):
    _close(run_here(CALLBACKS), _oracle(tf1, CALLBACKS))


JSON = COMMON + """
result = {}
K.backend.clear_session()
seq = K.Sequential([K.layers.Dense(4, input_shape=(3,), activation="relu",
                                   kernel_regularizer=K.regularizers.l2(0.01)),
                    K.layers.Dropout(0.1), K.layers.Dense(2, activation="softmax")])
result["sequential"] = json.loads(seq.to_json())
a = K.Input((3,), name="a")
b = K.Input((2,), name="b")
h = K.layers.Dense(2, name="h")(a)
out = K.layers.Lambda(lambda ts: ts, name="pair", output_shape=(2,))
o1 = K.layers.Dense(1, name="o1")(h)
o2 = K.layers.Dense(1, name="o2", activation="sigmoid")(b)
result["functional"] = json.loads(K.Model([a, b], [o1, o2], name="two").to_json())
"""


def test_to_json_matches_tf_keras_and_reads_its_json(tf1):
    theirs = _oracle(tf1, JSON)
    ours = run_here(JSON)
    assert ours == theirs
    for key in ("sequential", "functional"):
        tf.reset_default_graph()
        model = tf.keras.models.model_from_json(json.dumps(theirs[key]))
        assert json.loads(model.to_json()) == theirs[key]
