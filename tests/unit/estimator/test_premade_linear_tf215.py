"""LinearClassifier/LinearRegressor and DNNLinearCombinedClassifier/Regressor against TF
2.15's tf.compat.v1.estimator (premade_linear.json, written by
tests/fixtures/estimator/make_premade_linear_fixtures.py): a numeric column and a multivalent
vocabulary-list column (sparse_combiner sum/mean/sqrtn); the linear parts start at zero as
TF's, the DNN parts warm-start from TF's initial checkpoint (premade/<name>/model.ckpt-0);
three training steps give TF's losses, then TF's eval metrics, predictions, variable names
and values, and export signatures; also weight_column (a key, a numeric_column with a
normalizer) for Linear and DNN estimators."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "estimator"
EXPECTED = json.loads((FIXTURES / "premade_linear.json").read_text())
VOCAB = ["a", "b", "c", "d"]


def _data():
    i = np.arange(30)
    y = (i % 3).astype(np.int32)
    x = np.stack([np.sin(i * 0.7) + y, np.cos(i * 0.3) - 0.5 * y, (i % 5) * 0.2 + y * 0.4,
                  np.sin(i * 1.3) * 0.5 - y * 0.3], axis=1).astype(np.float32)
    first = np.array(VOCAB)[i % 4]
    second = np.where(i % 3 == 0, "", np.array(VOCAB)[(i * 7) % 4])
    w = (1.0 + (i % 4) * 0.5).astype(np.float32)
    return {"x": x, "tok": np.stack([first, second], axis=1).astype(object), "w": w}, y


def _columns():
    fc = tf.feature_column
    return fc.numeric_column("x", shape=[4]), fc.categorical_column_with_vocabulary_list(
        "tok", VOCAB)


class LossRecorder(tf.train.SessionRunHook):
    def __init__(self):
        self.losses = []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.get_collection(tf.GraphKeys.LOSSES)[-1])

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def _make(name, d, c, w):
    x, tok = _columns()
    fc = tf.feature_column
    if name == "LinearClassifier":
        return tf.estimator.LinearClassifier([x, tok], n_classes=3, model_dir=d, config=c)
    if name == "LinearClassifierBinary":
        return tf.estimator.LinearClassifier([x, tok], model_dir=d, config=c,
                                             sparse_combiner="mean")
    if name == "LinearRegressor":
        return tf.estimator.LinearRegressor([x, tok], model_dir=d, config=c,
                                            sparse_combiner="sqrtn")
    if name == "LinearClassifierWeighted":
        return tf.estimator.LinearClassifier([x, tok], n_classes=3, model_dir=d, config=c,
                                             weight_column="w")
    if name == "LinearRegressorWeighted":
        return tf.estimator.LinearRegressor([x, tok], model_dir=d, config=c,
                                            weight_column=fc.numeric_column(
                                                "w", normalizer_fn=lambda t: t * 2.0))
    if name == "DNNClassifierBinaryWeighted":
        return tf.estimator.DNNClassifier([4], [x], model_dir=d, config=c, weight_column="w",
                                          warm_start_from=w)
    if name == "DNNLinearCombinedClassifier":
        return tf.estimator.DNNLinearCombinedClassifier(
            model_dir=d, linear_feature_columns=[tok, x],
            dnn_feature_columns=[x, fc.embedding_column(tok, 2)], dnn_hidden_units=[5],
            n_classes=3, config=c, warm_start_from=w)
    return tf.estimator.DNNLinearCombinedRegressor(
        model_dir=d, linear_feature_columns=[tok], dnn_feature_columns=[x],
        dnn_hidden_units=[4], config=c, linear_sparse_combiner="mean", warm_start_from=w)


LABELS = {"LinearClassifier": lambda y: y, "DNNLinearCombinedClassifier": lambda y: y,
          "LinearClassifierWeighted": lambda y: y,
          "LinearClassifierBinary": lambda y: (y > 0).astype(np.int32),
          "DNNClassifierBinaryWeighted": lambda y: (y > 0).astype(np.int32)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_premade_linear_matches_tf215(name, tmp_path):
    feats, y = _data()
    labels = LABELS.get(name, lambda y: y.astype(np.float32))(y)
    want = EXPECTED[name]
    ws = tf.estimator.WarmStartSettings(str(FIXTURES / "premade" / name / "model.ckpt-0"),
                                        vars_to_warm_start="dnn/.*") \
        if name.startswith("DNN") else None
    est = _make(name, str(tmp_path), tf.estimator.RunConfig(save_checkpoints_steps=100), ws)
    rec = LossRecorder()
    est.train(tf.estimator.inputs.numpy_input_fn(feats, labels, batch_size=10,
                                                 num_epochs=None, shuffle=False),
              steps=3, hooks=[rec])
    np.testing.assert_allclose(rec.losses, want["losses"], rtol=1e-4)
    got = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        feats, labels, batch_size=10, num_epochs=1, shuffle=False))
    assert sorted(got) == sorted(want["eval"])
    for key, value in want["eval"].items():
        assert float(got[key]) == pytest.approx(value, rel=1e-4, abs=1e-5), key
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {k: v[:3] for k, v in feats.items()}, shuffle=False)))
    assert len(preds) == len(want["predictions"])
    for g, w in zip(preds, want["predictions"]):
        assert sorted(g) == sorted(w)
        for key, value in w.items():
            got_v = g[key]
            if np.asarray(got_v).dtype.kind in "SO":
                assert [v.decode() for v in np.ravel(got_v)] == value, key
            else:
                np.testing.assert_allclose(got_v, value, rtol=1e-4, atol=1e-6, err_msg=key)
    want_vars = want["variables"]
    # DNNClassifier's Adagrad slots included: TF 2.15 names them ``<var>/t_0/Adagrad``.
    assert sorted(est.get_variable_names()) == sorted(want_vars)
    for var, value in want_vars.items():
        np.testing.assert_allclose(est.get_variable_value(var), value, rtol=1e-4, atol=1e-6,
                                   err_msg=var)
    from scopeflow.io import protos
    path = est.export_saved_model(
        str(tmp_path / "export"), tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(list(_columns()))))
    sm = protos.SavedModel()
    sm.ParseFromString(Path(path.decode(), "saved_model.pb").read_bytes())
    sigs = {k: [s.method_name, sorted(s.inputs), sorted(s.outputs)]
            for k, s in sm.meta_graphs[0].signature_def.items()}
    assert sigs == want["signatures"]
