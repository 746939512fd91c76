"""Premade DNN and Baseline estimators against TF 2.15's tf.compat.v1.estimator (premade.json, written by
tests/fixtures/estimator/make_premade_fixtures.py): starting from TF's initial checkpoint
(premade/<name>/model.ckpt-0, warm-started, since the two frameworks' random initializers
differ), three Adagrad steps give TF's losses, then TF's eval metrics and predictions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "estimator"
EXPECTED = json.loads((FIXTURES / "premade.json").read_text())


def _iris_like():
    i = np.arange(30)
    y = (i % 3).astype(np.int32)
    x = np.stack([np.sin(i * 0.7) + y, np.cos(i * 0.3) - 0.5 * y, (i % 5) * 0.2 + y * 0.4,
                  np.sin(i * 1.3) * 0.5 - y * 0.3], axis=1).astype(np.float32)
    return x, y


class LossRecorder(tf.train.SessionRunHook):
    def __init__(self):
        self.losses = []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.get_collection(tf.GraphKeys.LOSSES)[-1])

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


CASES = {
    "DNNClassifier": (lambda d, c, w: tf.estimator.DNNClassifier(
        [8, 5], FC(), n_classes=3, model_dir=d, config=c, warm_start_from=w),
        lambda y: y),
    "DNNRegressor": (lambda d, c, w: tf.estimator.DNNRegressor(
        [8], FC(), model_dir=d, config=c, warm_start_from=w), lambda y: y.astype(np.float32)),
    "DNNClassifierBinary": (lambda d, c, w: tf.estimator.DNNClassifier(
        [6], FC(), model_dir=d, config=c, warm_start_from=w),
        lambda y: (y > 0).astype(np.int32)),
    # Zero-initialized: no warm start needed; Ftrl's steps must equal TF's.
    "BaselineClassifier": (lambda d, c, w: tf.estimator.BaselineClassifier(
        n_classes=3, model_dir=d, config=c), lambda y: y),
    "BaselineRegressor": (lambda d, c, w: tf.estimator.BaselineRegressor(
        model_dir=d, config=c), lambda y: y.astype(np.float32)),
}


def FC():  # noqa: N802
    return [tf.feature_column.numeric_column("x", shape=[4])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_premade_matches_tf215(name, tmp_path):
    make, label_fn = CASES[name]
    x, y = _iris_like()
    labels = label_fn(y)
    want = EXPECTED[name]
    ws = tf.estimator.WarmStartSettings(str(FIXTURES / "premade" / name / "model.ckpt-0"),
                                        vars_to_warm_start="dnn/.*") \
        if name.startswith("DNN") else None
    est = make(str(tmp_path), tf.estimator.RunConfig(save_checkpoints_steps=100), ws)
    rec = LossRecorder()
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, labels, batch_size=10,
                                                 num_epochs=None, shuffle=False),
              steps=3, hooks=[rec])
    np.testing.assert_allclose(rec.losses, want["losses"], rtol=1e-4)
    got = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, labels, batch_size=10, num_epochs=1, shuffle=False))
    assert sorted(got) == sorted(want["eval"])
    for key, value in want["eval"].items():
        assert float(got[key]) == pytest.approx(value, rel=1e-4, abs=1e-5), key
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:3]}, shuffle=False)))
    for g, w in zip(preds, want["predictions"]):
        assert sorted(g) == sorted(w)
        for key, value in w.items():
            got_v = g[key]
            if np.asarray(got_v).dtype.kind in "SO":
                assert [v.decode() for v in np.ravel(got_v)] == value, key
            else:
                np.testing.assert_allclose(got_v, value, rtol=1e-4, atol=1e-6, err_msg=key)
    names = set(est.get_variable_names())
    if name.startswith("DNN"):
        assert {"dnn/logits/kernel", "dnn/logits/bias", "dnn/hiddenlayer_0/kernel",
                "global_step"} <= names
    else:  # TF's names, the Ftrl slots included
        assert names == {"baseline/bias", "baseline/bias/Ftrl", "baseline/bias/Ftrl_1",
                         "global_step"}


def test_premade_export_signatures_match_tf215(tmp_path):
    """premade_export_signatures.json: TF 2.15's SignatureDefs of the premade exports
    (make_premade_export_fixture.py)."""
    from scopeflow.io import protos
    want = json.loads((FIXTURES / "premade_export_signatures.json").read_text())
    x = np.random.RandomState(0).randn(20, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    fc = FC()
    for key, est in [("DNNClassifier3", tf.estimator.DNNClassifier(
                          [4], fc, n_classes=3, model_dir=str(tmp_path / "c3"))),
                     ("DNNClassifier2", tf.estimator.DNNClassifier(
                         [4], fc, model_dir=str(tmp_path / "c2"))),
                     ("DNNRegressor", tf.estimator.DNNRegressor(
                         [4], fc, model_dir=str(tmp_path / "r")))]:
        labels = y if "Classifier" in key else y.astype(np.float32)
        est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, labels, batch_size=5,
                                                     num_epochs=1, shuffle=False))
        path = est.export_saved_model(
            str(tmp_path / "export" / key), tf.estimator.export.build_parsing_serving_input_receiver_fn(
                tf.feature_column.make_parse_example_spec(fc)))
        sm = protos.SavedModel()
        sm.ParseFromString(Path(path.decode(), "saved_model.pb").read_bytes())
        got = {k: [s.method_name, sorted(s.inputs), sorted(s.outputs)]
               for k, s in sm.meta_graphs[0].signature_def.items()}
        assert got == want[key], key
