"""Whole-model HDF5 files (``model.save('m.h5')``, ``tf.keras.models.save_model`` and
``load_model``), interchangeable with real tf_keras (TF 2.21, TF1 graph mode).

tests/fixtures/keras_h5/ holds files tf_keras wrote (make_fixtures.py, the same script's
model builders run here on scopeflow) and what tf_keras computed with each model after
saving it: scopeflow loads them and gives the same predictions, evaluation, optimizer state
(``iterations``, slots: two more training steps give tf_keras's losses), and writes the same
layout back. The live test (skipped without the oracle) runs the other direction: tf_keras
loads the files scopeflow writes and predicts and trains as scopeflow does.
"""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import scopeflow as tf

h5py = pytest.importorskip("h5py")

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_h5")
_spec = importlib.util.spec_from_file_location(
    "keras_h5_make_fixtures", os.path.join(FIXTURES, "make_fixtures.py"))
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)

K = tf.keras
Scale = make_fixtures.scale_layer_class(K)


def _inputs(name, case):
    """The fixture's inputs with their dtypes (the LSTM model's word ids are int32)."""
    return [np.asarray(a, dtype="int32" if name.startswith("functional") and i == 0
                       else "float32") for i, a in enumerate(case["x"])]


def _check(model, name, case, rtol=1e-5, atol=1e-6):
    """The model computes what ``case`` recorded: predictions, evaluation, the optimizer's
    step count, and (restored slots) the next two training steps."""
    x, y = _inputs(name, case), np.asarray(case["y"], "float32")
    np.testing.assert_allclose(model.predict(x), case["predict"], rtol=rtol, atol=atol)
    if "evaluate" in case:
        np.testing.assert_allclose(model.evaluate(x, y, batch_size=4, verbose=0),
                                   case["evaluate"], rtol=rtol, atol=atol)
    assert K.backend.get_value(model.optimizer.iterations) == case["iterations"]
    if "train_on_batch" in case:
        steps = [model.train_on_batch(x, y) for _ in range(2)]
        np.testing.assert_allclose(steps, case["train_on_batch"], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(model.predict(x), case["predict_after_training"],
                                   rtol=1e-4, atol=1e-5)


def _walk(path):
    """``{dataset path: (shape, dtype)}`` and ``{group path: sorted attribute names}`` of an
    HDF5 file; the optimizer's ``training/<Name>/`` scope left out (a model loaded from a
    file makes its optimizer's variables at the root, ``iter:0``, in tf_keras too)."""
    out = {}

    def visit(name, obj):
        for scope in ("training/Adam/", "training/SGD/"):
            name = name.replace(scope, "")
        if isinstance(obj, h5py.Dataset):
            out[name] = (obj.shape, str(obj.dtype))
        elif not name.endswith(("training", "training/Adam", "training/SGD")):
            out[name + "/@"] = sorted(obj.attrs)

    with h5py.File(path, "r") as f:
        f.visititems(visit)
        out["/@"] = sorted(f.attrs)
    return out


@pytest.fixture(autouse=True)
def _fresh_graph():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tf_keras_file_loads_and_computes_its_results(name):
    model = K.models.load_model(os.path.join(FIXTURES, f"{name}.h5"),
                                custom_objects={"Scale": Scale})
    _check(model, name, EXPECTED[name])


def test_file_tf_keras_wrote_in_eager_mode_loads_with_its_optimizer_state():
    """TF2's optimizer config (``Custom>Adam``, ``weight_decay: null``...), its weights
    per variable (``Adam/m/dense/kernel:0``), ``MeanMetricWrapper`` metrics."""
    with open(os.path.join(FIXTURES, "eager_expected.json")) as f:
        case = json.load(f)["eager_adam"]
    model = K.models.load_model(os.path.join(FIXTURES, "eager_adam.h5"))
    assert model.optimizer.get_config()["epsilon"] == 1e-7
    _check(model, "eager_adam", case)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saving_a_tf_keras_model_again_writes_its_layout(name, tmp_path):
    source = os.path.join(FIXTURES, f"{name}.h5")
    model = K.models.load_model(source, custom_objects={"Scale": Scale})
    model.save(str(tmp_path / "again.h5"))
    assert _walk(tmp_path / "again.h5") == _walk(source)
    with h5py.File(source, "r") as a, h5py.File(tmp_path / "again.h5", "r") as b:
        theirs, ours = (json.loads(f.attrs["model_config"]) for f in (a, b))
        assert ours["class_name"] == theirs["class_name"]
        assert [layer["config"]["name"] for layer in ours["config"]["layers"]] == \
            [layer["config"]["name"] for layer in theirs["config"]["layers"]]
        assert json.loads(b.attrs["training_config"])["optimizer_config"] == \
            json.loads(a.attrs["training_config"])["optimizer_config"]
        assert b.attrs["keras_version"] == a.attrs["keras_version"]


def test_layer_configs_are_tf_keras_own():
    """The Sequential models' configs read back unchanged (functional ones differ only in
    tf_keras's ``shared_object_id`` bookkeeping of shared initializers)."""
    for name in ("mlp_adam", "cnn_sgd"):
        K.backend.clear_session()
        with h5py.File(os.path.join(FIXTURES, f"{name}.h5"), "r") as f:
            theirs = json.loads(f.attrs["model_config"])
        model = K.models.load_model(os.path.join(FIXTURES, f"{name}.h5"))
        ours = json.loads(model.to_json())
        assert {"class_name": ours["class_name"], "config": ours["config"]} == theirs


def test_round_trip_keeps_predictions_and_optimizer_state(tmp_path):
    model, x, y, _ = make_fixtures.functional(K)
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    tf.keras.models.save_model(model, str(tmp_path / "m.h5"))
    case = make_fixtures.after_saving(K, model, x, y, deterministic=True)
    slots = {w.name.split("/", 2)[-1]: v
             for w, v in zip(model.optimizer.weights, model.optimizer.get_weights())}
    K.backend.clear_session()
    loaded = K.models.load_model(str(tmp_path / "m.h5"))
    assert [w.name for w in loaded.optimizer.weights][:2] == ["iter:0", "embedding/embeddings/m:0"]
    with h5py.File(tmp_path / "m.h5", "r") as f:
        names = [str(n) for n in f["optimizer_weights"].attrs["weight_names"]]
        assert names[0] == "training/Adam/iter:0"
        assert set(f["model_weights"]) == {"ids", "extra", "embedding", "lstm", "dense",
                                           "concatenate", "out", "top_level_model_weights"}
    assert len(slots) == len(loaded.optimizer.weights)
    _check(loaded, "functional", case)


def test_multi_output_dict_losses_and_rmsprop_round_trip(tmp_path):
    a = K.Input((3,), name="a")
    h = K.layers.Dense(2, name="h")(a)
    model = K.Model(a, [h, K.layers.Dense(1, name="o")(h)])
    model.compile(K.optimizers.RMSprop(0.01, momentum=0.5),
                  loss={"h": "mse", "o": K.losses.mean_absolute_error},
                  loss_weights={"h": 1.0, "o": 0.5}, metrics={"o": ["mae"]})
    x, y = np.ones((2, 3), "float32"), [np.ones((2, 2), "float32"), np.ones((2, 1), "float32")]
    model.train_on_batch(x, y)
    model.save(str(tmp_path / "m.h5"))
    with h5py.File(tmp_path / "m.h5", "r") as f:
        config = json.loads(f.attrs["training_config"])
    assert config["loss"] == {"h": "mse", "o": "mean_absolute_error"}
    assert config["loss_weights"] == {"h": 1.0, "o": 0.5}
    assert config["optimizer_config"]["class_name"] == "RMSprop"
    after = [model.train_on_batch(x, y) for _ in range(2)]
    K.backend.clear_session()
    loaded = K.models.load_model(str(tmp_path / "m.h5"))
    assert loaded.loss == {"h": K.losses.mean_squared_error, "o": K.losses.mean_absolute_error}
    np.testing.assert_allclose([loaded.train_on_batch(x, y) for _ in range(2)], after,
                               rtol=1e-5)


def test_include_optimizer_false_and_uncompiled_models_load_uncompiled(tmp_path):
    model, x, y, _ = make_fixtures.mlp(K)
    model.save(str(tmp_path / "m.h5"), include_optimizer=False)
    K.models.Sequential([K.layers.Dense(2, input_shape=(3,))]).save(str(tmp_path / "u.h5"))
    for path in ("m.h5", "u.h5"):
        with h5py.File(tmp_path / path, "r") as f:
            assert "training_config" not in f.attrs and "optimizer_weights" not in f
        K.backend.clear_session()
        loaded = K.models.load_model(str(tmp_path / path))
        assert loaded.optimizer is None
    K.backend.clear_session()
    model, x, _, _ = make_fixtures.cnn(K)
    model.save(str(tmp_path / "c.h5"))
    expected = model.predict(x)
    K.backend.clear_session()
    loaded = K.models.load_model(str(tmp_path / "c.h5"), compile=False)
    assert loaded.optimizer is None
    np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)


def test_custom_objects_and_unknown_classes():
    path = os.path.join(FIXTURES, "custom_layer.h5")
    with pytest.raises(ValueError, match="Unknown layer: Scale. Please ensure you are using a "
                       "`keras.utils.custom_object_scope`"):
        K.models.load_model(path)
    with K.utils.custom_object_scope({"Scale": Scale}):
        model = K.models.load_model(path)
    assert type(model.layers[-1]) is Scale and model.layers[-1].offset == 0.5


def test_custom_loss_by_name(tmp_path):
    def doubled_mse(y_true, y_pred):
        return 2.0 * K.losses.mean_squared_error(y_true, y_pred)

    model = K.Sequential([K.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", doubled_mse)
    model.save(str(tmp_path / "m.h5"))
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert json.loads(f.attrs["training_config"])["loss"] == "doubled_mse"
    K.backend.clear_session()
    with pytest.raises(ValueError, match="Unknown loss function: doubled_mse"):
        K.models.load_model(str(tmp_path / "m.h5"))
    K.backend.clear_session()
    loaded = K.models.load_model(str(tmp_path / "m.h5"),
                                 custom_objects={"doubled_mse": doubled_mse})
    assert loaded.loss is doubled_mse


def test_formats_and_missing_files(tmp_path):
    """TF1's default format is HDF5 whatever the extension (tf_keras in graph mode writes
    an HDF5 file for a path without one); SavedModel is not implemented."""
    model = K.Sequential([K.layers.Dense(1, input_shape=(2,))])
    kernel = model.get_weights()[0]
    model.save(str(tmp_path / "no_extension"))
    assert h5py.is_hdf5(tmp_path / "no_extension")
    model.save(str(tmp_path / "m.keras"))
    assert h5py.is_hdf5(tmp_path / "m.keras")
    with pytest.raises(NotImplementedError, match="SavedModel"):
        model.save(str(tmp_path / "saved"), save_format="tf")
    with pytest.raises(ValueError, match="Unknown `save_format` argument"):
        model.save(str(tmp_path / "m.h5"), save_format="pb")
    with pytest.raises(OSError, match="No file or directory found at"):
        K.models.load_model(str(tmp_path / "missing.h5"))
    os.makedirs(tmp_path / "dir")
    with pytest.raises(NotImplementedError, match="SavedModel"):
        K.models.load_model(str(tmp_path / "dir"))
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(NotImplementedError, match="not HDF5"):
        K.models.load_model(str(tmp_path / "text.h5"))
    K.backend.clear_session()
    loaded = K.models.load_model(str(tmp_path / "no_extension"))
    np.testing.assert_allclose(loaded.get_weights()[0], kernel)


def test_subclassed_model_cannot_be_saved_to_hdf5(tmp_path):
    class Twice(K.Model):
        def call(self, inputs):
            return inputs * 2.0

    with pytest.raises(NotImplementedError, match="Functional model or a Sequential"):
        Twice().save(str(tmp_path / "m.h5"))


TF_KERAS_READS_OURS = """
import importlib.util, os
spec = importlib.util.spec_from_file_location("make_fixtures", {script!r})
make_fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_fixtures)
K = tf.keras
Scale = make_fixtures.scale_layer_class(K)
ours = json.load(open({ours_json!r}))
result = {{"loaded": {{}}, "written": make_fixtures.write(tf, {theirs!r})}}
for name, case in ours.items():
    K.backend.clear_session()
    model = K.models.load_model(os.path.join({ours!r}, name + ".h5"),
                                custom_objects={{"Scale": Scale}})
    x = [np.asarray(a, dtype="int32" if name.startswith("functional") and i == 0
                    else "float32") for i, a in enumerate(case["x"])]
    y = np.asarray(case["y"], "float32")
    result["loaded"][name] = make_fixtures.after_saving(K, model, x, y, "train_on_batch" in case)
print(json.dumps(result))
"""


def test_files_interchange_with_live_tf_keras(tf1, tmp_path):
    """Scopeflow writes the fixture models, tf_keras loads them and computes what scopeflow
    computed; tf_keras writes them afresh and scopeflow loads those."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    expected = make_fixtures.write(tf, str(ours))
    with open(ours / "expected.json", "w") as f:
        json.dump(expected, f)
    result = tf1(TF_KERAS_READS_OURS.format(
        script=os.path.abspath(os.path.join(FIXTURES, "make_fixtures.py")),
        ours_json=str(ours / "expected.json"), ours=str(ours), theirs=str(theirs)))
    for name, case in result["loaded"].items():
        mine = expected[name]
        np.testing.assert_allclose(case["predict"], mine["predict"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(case["evaluate"], mine["evaluate"], rtol=1e-5, atol=1e-6)
        assert case["iterations"] == mine["iterations"]
        if "train_on_batch" in mine:
            np.testing.assert_allclose(case["train_on_batch"], mine["train_on_batch"],
                                       rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(case["predict_after_training"],
                                       mine["predict_after_training"], rtol=1e-4, atol=1e-5)
    assert sorted(result["written"]) == sorted(expected)
    for name, case in result["written"].items():
        K.backend.clear_session()
        model = K.models.load_model(str(theirs / f"{name}.h5"), custom_objects={"Scale": Scale})
        _check(model, name, case)


def test_open_h5py_files_and_model_checkpoint(tmp_path):
    model, x, y, _ = make_fixtures.custom_layer(K)
    checkpoint = K.callbacks.ModelCheckpoint(str(tmp_path / "m{epoch:02d}.h5"))
    model.fit(x, y, batch_size=3, epochs=2, shuffle=False, verbose=0, callbacks=[checkpoint])
    expected = model.predict(x)
    with h5py.File(tmp_path / "open.h5", "w") as f:
        K.models.save_model(model, f)
    for path in ("m02.h5", "open.h5"):
        K.backend.clear_session()
        with h5py.File(tmp_path / path, "r") as f:
            loaded = K.models.load_model(f, custom_objects={"Scale": Scale})
        np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)
        assert K.backend.get_value(loaded.optimizer.iterations) == 4


def test_tf2_optimizer_settings_beyond_the_graph_optimizers_are_named():
    from scopeflow.keras.utils import saving_utils

    config = {"loss": "mse", "metrics": None, "loss_weights": None, "optimizer_config": {
        "class_name": "Custom>SGD", "config": {
            "name": "SGD", "weight_decay": 0.004, "clipnorm": None, "use_ema": False,
            "is_legacy_optimizer": False, "learning_rate": 0.1, "momentum": 0.0,
            "nesterov": False}}}
    with pytest.raises(NotImplementedError, match=r"SGD's \['weight_decay'\]"):
        saving_utils.compile_args_from_training_config(config)
    config["optimizer_config"]["config"]["weight_decay"] = None
    optimizer = saving_utils.compile_args_from_training_config(config)["optimizer"]
    assert type(optimizer) is K.optimizers.SGD and optimizer.get_config()["learning_rate"] == 0.1
