"""Issue 40's second round against TF 2.15's tf.compat.v1.estimator (gaps.json, written by
tests/fixtures/estimator/make_gaps_fixtures.py):

- ``label_vocabulary`` (string labels; ``classes``/``all_classes`` the vocabulary strings)
  and ``loss_reduction`` other than SUM for the DNN, Linear, DNNLinearCombined and Baseline
  classifiers and regressors: three training steps' losses, the eval metrics, predictions,
  every variable's name and value (DNNClassifier's Adagrad slots ``<var>/t_0/Adagrad``
  included) and the export signatures equal TF's;
- checkpoints move both ways: TF's step-3 DNNClassifier checkpoint (Adagrad slots and all)
  continues here with TF's losses, and TF 2.15 continues scopeflow's (live, when
  /work/tf215 exists);
- ``BestExporter``/``LatestExporter``/``FinalExporter`` in ``train_and_evaluate``: the
  ``export/<name>/<timestamp>`` layout, how many exports each keeps, the evaluations;
- TF's errors for a bad ``label_vocabulary``, ``loss_reduction`` or labels."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "estimator"
EXPECTED = json.loads((FIXTURES / "gaps.json").read_text())
TF215_PYTHON = Path(os.environ.get("SCOPEFLOW_TF215_PYTHON", "/work/tf215/bin/python"))
VOCAB = ["a", "b", "c", "d"]
IRIS = ["setosa", "versicolor", "virginica"]
YES_NO = ["no", "yes"]
R = tf.losses.Reduction


def _data():
    i = np.arange(30)
    y = (i % 3).astype(np.int32)
    x = np.stack([np.sin(i * 0.7) + y, np.cos(i * 0.3) - 0.5 * y, (i % 5) * 0.2 + y * 0.4,
                  np.sin(i * 1.3) * 0.5 - y * 0.3], axis=1).astype(np.float32)
    first = np.array(VOCAB)[i % 4]
    second = np.where(i % 3 == 0, "", np.array(VOCAB)[(i * 7) % 4])
    w = (1.0 + (i % 4) * 0.5).astype(np.float32)
    return {"x": x, "tok": np.stack([first, second], axis=1).astype(object), "w": w}, y


def _labels(kind, y):
    if kind == "iris":
        return np.array(IRIS)[y]
    if kind == "yes_no":
        return np.array(YES_NO)[(y > 0).astype(int)]
    return y.astype(np.float32)


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


def _makers():
    """As make_gaps_fixtures.makers: name -> (make(d, c, w), label kind, premade ckpt)."""
    x, tok = _columns()
    fc = tf.feature_column
    est = tf.estimator
    return {
        "DNNClassifierVocab": (lambda d, c, w: est.DNNClassifier(
            [8, 5], [x], n_classes=3, label_vocabulary=IRIS, model_dir=d, config=c,
            warm_start_from=w), "iris", "DNNClassifier"),
        "DNNClassifierBinaryVocabBatch": (lambda d, c, w: est.DNNClassifier(
            [6], [x], label_vocabulary=YES_NO, loss_reduction=R.SUM_OVER_BATCH_SIZE,
            model_dir=d, config=c, warm_start_from=w), "yes_no", "DNNClassifierBinary"),
        "DNNRegressorMean": (lambda d, c, w: est.DNNRegressor(
            [8], [x], loss_reduction=R.MEAN, model_dir=d, config=c, warm_start_from=w),
            "float", "DNNRegressor"),
        "LinearClassifierVocabMean": (lambda d, c, w: est.LinearClassifier(
            [x, tok], n_classes=3, label_vocabulary=tuple(IRIS), weight_column="w",
            loss_reduction=R.MEAN, model_dir=d, config=c), "iris", None),
        "LinearClassifierBinaryVocab": (lambda d, c, w: est.LinearClassifier(
            [x, tok], label_vocabulary=YES_NO, loss_reduction=R.SUM_OVER_BATCH_SIZE,
            model_dir=d, config=c), "yes_no", None),
        "LinearRegressorNonzero": (lambda d, c, w: est.LinearRegressor(
            [x, tok], weight_column="w", loss_reduction=R.SUM_BY_NONZERO_WEIGHTS,
            model_dir=d, config=c), "float", None),
        "DNNLinearCombinedClassifierVocab": (lambda d, c, w: est.DNNLinearCombinedClassifier(
            model_dir=d, linear_feature_columns=[tok, x], dnn_feature_columns=[
                x, fc.embedding_column(tok, 2)], dnn_hidden_units=[5], n_classes=3,
            label_vocabulary=IRIS, loss_reduction=R.SUM_OVER_BATCH_SIZE, config=c,
            warm_start_from=w), "iris", "DNNLinearCombinedClassifier"),
        "DNNLinearCombinedRegressorMean": (lambda d, c, w: est.DNNLinearCombinedRegressor(
            model_dir=d, linear_feature_columns=[tok], dnn_feature_columns=[x],
            dnn_hidden_units=[4], config=c, linear_sparse_combiner="mean",
            loss_reduction=R.MEAN, warm_start_from=w), "float", "DNNLinearCombinedRegressor"),
        "BaselineClassifierVocab": (lambda d, c, w: est.BaselineClassifier(
            n_classes=3, label_vocabulary=IRIS, loss_reduction=R.SUM_OVER_BATCH_SIZE,
            model_dir=d, config=c), "iris", None),
        "BaselineRegressorWeightedMean": (lambda d, c, w: est.BaselineRegressor(
            weight_column="w", loss_reduction=R.MEAN, model_dir=d, config=c), "float", None),
    }


def _warm_start(ckpt):
    if ckpt is None:
        return None
    return tf.estimator.WarmStartSettings(str(FIXTURES / "premade" / ckpt / "model.ckpt-0"),
                                          vars_to_warm_start="dnn/.*")


def _train_fn(feats, labels):
    return tf.estimator.inputs.numpy_input_fn(feats, labels, batch_size=10, num_epochs=None,
                                              shuffle=False)


def _assert_predictions(preds, want):
    assert len(preds) == len(want)
    for g, w in zip(preds, want):
        assert sorted(g) == sorted(w)
        for key, value in w.items():
            if np.asarray(g[key]).dtype.kind in "SO":
                assert [v.decode() for v in np.ravel(g[key])] == value, key
            else:
                np.testing.assert_allclose(g[key], value, rtol=1e-4, atol=1e-6, err_msg=key)


def _signatures(est, path):
    from scopeflow.io import protos
    export = est.export_saved_model(
        str(path), tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(list(_columns()))))
    sm = protos.SavedModel()
    sm.ParseFromString(Path(export.decode(), "saved_model.pb").read_bytes())
    return {k: [s.method_name, sorted(s.inputs), sorted(s.outputs)]
            for k, s in sm.meta_graphs[0].signature_def.items()}


@pytest.mark.parametrize("name", sorted(_makers()))
def test_vocabulary_and_reduction_match_tf215(name, tmp_path):
    make, kind, ckpt = _makers()[name]
    feats, y = _data()
    labels = _labels(kind, y)
    want = EXPECTED[name]
    est = make(str(tmp_path / "m"), tf.estimator.RunConfig(save_checkpoints_steps=100),
               _warm_start(ckpt))
    rec = LossRecorder()
    est.train(_train_fn(feats, labels), steps=3, hooks=[rec])
    np.testing.assert_allclose(rec.losses, want["losses"], rtol=1e-4)
    got = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        feats, labels, batch_size=10, num_epochs=1, shuffle=False))
    assert sorted(got) == sorted(want["eval"])
    for key, value in want["eval"].items():
        assert float(got[key]) == pytest.approx(value, rel=1e-4, abs=1e-5), key
    _assert_predictions(list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {k: v[:3] for k, v in feats.items()}, shuffle=False))), want["predictions"])
    assert sorted(est.get_variable_names()) == sorted(want["variables"])
    for var, value in want["variables"].items():
        np.testing.assert_allclose(est.get_variable_value(var), value, rtol=1e-4, atol=1e-6,
                                   err_msg=var)
    assert _signatures(est, tmp_path / "export") == want["signatures"]


def test_scopeflow_continues_tf215_dnn_checkpoint(tmp_path):
    """TF's step-3 checkpoint (its ``t_0/Adagrad`` slots restored by name) trains on to
    step 6 with TF's losses."""
    shutil.copytree(FIXTURES / "gaps" / "DNNClassifierVocab", tmp_path / "m")
    make, kind, _ = _makers()["DNNClassifierVocab"]
    feats, y = _data()
    est = make(str(tmp_path / "m"), tf.estimator.RunConfig(save_checkpoints_steps=100), None)
    rec = LossRecorder()
    est.train(_train_fn(feats, _labels(kind, y)), max_steps=6, hooks=[rec])
    np.testing.assert_allclose(rec.losses, EXPECTED["DNNClassifierVocab"]["resume_losses"],
                               rtol=1e-4)


@pytest.mark.skipif(not TF215_PYTHON.exists(), reason="TF 2.15 + tensorflow-estimator venv "
                    "(/work/tf215 or SCOPEFLOW_TF215_PYTHON) is absent")
def test_tf215_continues_scopeflow_dnn_checkpoint(tmp_path):
    """The reverse: scopeflow trains 3 steps from TF's initial weights; TF 2.15 restores its
    checkpoint (Adagrad slots included) and trains to step 6 with its own losses."""
    make, kind, ckpt = _makers()["DNNClassifierVocab"]
    feats, y = _data()
    model_dir = tmp_path / "m"
    est = make(str(model_dir), tf.estimator.RunConfig(save_checkpoints_steps=100),
               _warm_start(ckpt))
    est.train(_train_fn(feats, _labels(kind, y)), steps=3)
    out = subprocess.run([str(TF215_PYTHON), str(FIXTURES / "make_gaps_fixtures.py"),
                          "--continue", str(model_dir)], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    losses = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(losses, EXPECTED["DNNClassifierVocab"]["resume_losses"],
                               rtol=1e-4)


def _higher_loss(best_eval_result, current_eval_result):
    return current_eval_result["loss"] > best_eval_result["loss"]


def test_exporters_in_train_and_evaluate_match_tf215(tmp_path):
    want = EXPECTED["exporters"]
    feats, y = _data()
    x, labels = feats["x"], y.astype(np.float32)
    fc = [tf.feature_column.numeric_column("x", shape=[4])]
    est = tf.estimator.LinearRegressor(fc, model_dir=str(tmp_path), config=tf.estimator.RunConfig(
        save_checkpoints_steps=2))
    recv = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(fc))
    exporters = [tf.estimator.BestExporter("best", recv, exports_to_keep=2),
                 tf.estimator.BestExporter("worst", recv, compare_fn=_higher_loss),
                 tf.estimator.LatestExporter("latest", recv, exports_to_keep=2),
                 tf.estimator.FinalExporter("final", recv)]
    train = tf.estimator.TrainSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, labels, batch_size=10, num_epochs=None, shuffle=False), max_steps=6)
    evals = tf.estimator.EvalSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, labels, batch_size=10, num_epochs=1, shuffle=False), steps=None,
        exporters=exporters, start_delay_secs=0, throttle_secs=0)
    metrics, results = tf.estimator.train_and_evaluate(est, train, evals)
    for key, value in want["metrics"].items():
        assert float(metrics[key]) == pytest.approx(value, rel=1e-4), key
    assert [r is not None for r in results] == want["results"]
    assert all(isinstance(r, bytes) for r in results if r is not None)
    layout = {}
    for name in sorted(os.listdir(tmp_path / "export")):
        stamps = sorted(os.listdir(tmp_path / "export" / name))
        newest = tmp_path / "export" / name / stamps[-1]
        layout[name] = {"count": len(stamps), "all_digits": all(
            len(s) == 10 and s.isdigit() for s in stamps),
            "files": sorted(os.path.relpath(os.path.join(r, f), newest)
                            for r, _, fs in os.walk(newest) for f in fs)}
    assert layout == want["layout"]
    evals_seen = tf.estimator.experimental.read_eval_metrics(str(tmp_path / "eval"))
    assert {str(k): pytest.approx(v["loss"], rel=1e-4) for k, v in evals_seen.items()} == \
        want["eval_losses"]


def test_best_exporter_reads_the_best_from_eval_events(tmp_path):
    """A new BestExporter on a model_dir whose eval events hold a better loss does not
    export a worse evaluation (TF's preemption-safe behaviour)."""
    feats, y = _data()
    fc = [tf.feature_column.numeric_column("x", shape=[4])]
    est = tf.estimator.LinearRegressor(fc, model_dir=str(tmp_path))
    fn = tf.estimator.inputs.numpy_input_fn({"x": feats["x"]}, y.astype(np.float32),
                                            batch_size=10, num_epochs=1, shuffle=False)
    est.train(fn)
    result = est.evaluate(fn)
    recv = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(fc))
    exporter = tf.estimator.BestExporter("best", recv)
    ckpt = est.latest_checkpoint()
    base = str(tmp_path / "export" / "best")
    assert exporter.export(est, base, ckpt, result, False) is not None  # first: exports
    worse = dict(result, loss=result["loss"] + 1.0)
    assert exporter.export(est, base, ckpt, worse, False) is None
    again = tf.estimator.BestExporter("best", recv)  # restarted: best read from events
    again._has_exported = True  # noqa: SLF001 - as after an export in this run
    assert again.export(est, base, ckpt, worse, False) is None
    with pytest.raises(ValueError, match="must include best_eval_result"):
        tf.estimator.BestExporter("b", recv, compare_fn=lambda a, b: True)
    with pytest.raises(ValueError, match="exports_to_keep"):
        tf.estimator.BestExporter("b", recv, exports_to_keep=0)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared with TF's error
        lines = str(e).splitlines()
        assertion = [ln.strip() for ln in lines if "Labels must" in ln][:1]
        return [type(e).__name__, lines[0][:200]] + assertion
    return None


def test_errors_match_tf215():
    want = EXPECTED["errors"]
    feats, y = _data()
    x = feats["x"]
    fc = [tf.feature_column.numeric_column("x", shape=[4])]
    est = tf.estimator

    def train_with(labels, **kw):
        e = est.DNNClassifier([3], fc, n_classes=3, **kw)
        e.train(_train_fn({"x": x}, labels), steps=1)

    got = {
        "bad_reduction": _error(lambda: est.DNNClassifier([3], fc, loss_reduction="bad")),
        "none_reduction": _error(lambda: est.LinearRegressor(fc, loss_reduction=R.NONE)),
        "vocab_set_multi": _error(lambda: est.DNNClassifier(
            [3], fc, n_classes=3, label_vocabulary={"a", "b", "c"})),
        "vocab_set_binary": _error(lambda: est.LinearClassifier(
            fc, label_vocabulary={"a", "b"})),
        "int_labels_with_vocab": _error(lambda: train_with(y, label_vocabulary=IRIS)),
        "string_labels_without_vocab": _error(lambda: train_with(_labels("iris", y))),
        "unknown_label": _error(lambda: train_with(
            _labels("iris", y), label_vocabulary=["setosa", "versicolor", "other"])),
    }
    for key, value in want.items():
        if key == "vocab_set_multi" or key == "vocab_set_binary":
            assert got[key][0] == value[0] and got[key][1].startswith(value[1][:40]), key
        elif key == "unknown_label":  # TF's first line is "Graph execution error:"
            assert got[key][0] == value[0] and got[key][2:] == value[2:], (key, got[key])
        else:
            assert got[key] == value, key


_SERVE = """
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
path, xs = sys.argv[1], np.array(json.loads(sys.argv[2]), np.float32)
examples = [tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
    float_list=tf.train.FloatList(value=row))})).SerializeToString() for row in xs]
with tf.Session(graph=tf.Graph()) as sess:
    meta = tf.saved_model.loader.load(sess, ["serve"], path)
    out = {}
    for key in ("predict", "serving_default"):
        sig = meta.signature_def[key]
        fetch = {k: v.name for k, v in sig.outputs.items()}
        feed = {list(sig.inputs.values())[0].name: examples}
        got = sess.run(fetch, feed)
        out[key] = {k: [x.decode() if isinstance(x, bytes) else x
                        for x in np.ravel(v).tolist()] for k, v in got.items()}
print(json.dumps(out))
"""


def _vocab_export(tmp_path):
    # The Baseline classifier: the DNN and linear models' exports hold zero_fraction's
    # tf.cond, which scopeflow writes as its own Cond op (TF cannot load it; docs).
    make, kind, ckpt = _makers()["BaselineClassifierVocab"]
    feats, y = _data()
    est = make(str(tmp_path / "m"), tf.estimator.RunConfig(save_checkpoints_steps=100),
               _warm_start(ckpt))
    est.train(_train_fn({"x": feats["x"]}, _labels(kind, y)), steps=3)
    fc = [tf.feature_column.numeric_column("x", shape=[4])]
    path = est.export_saved_model(
        str(tmp_path / "export"), tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(fc)))
    return path.decode(), feats["x"][:3]


@pytest.mark.skipif(not TF215_PYTHON.exists(), reason="TF 2.15 + tensorflow-estimator venv "
                    "(/work/tf215 or SCOPEFLOW_TF215_PYTHON) is absent")
def test_tf215_serves_scopeflow_vocabulary_export(tmp_path):
    """TF 2.15 loads scopeflow's export of a label_vocabulary classifier (its init op fills
    the class-string table) and serves TF's own predictions: the vocabulary strings."""
    path, xs = _vocab_export(tmp_path)
    out = subprocess.run([str(TF215_PYTHON), "-c", _SERVE, path, json.dumps(xs.tolist())],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    want = EXPECTED["BaselineClassifierVocab"]["predictions"]
    assert got["predict"]["classes"] == [p["classes"][0] for p in want]
    assert got["predict"]["all_classes"] == [c for p in want for c in p["all_classes"]]
    for key in ("probabilities", "logits"):
        np.testing.assert_allclose(got["predict"][key], np.ravel([p[key] for p in want]),
                                   rtol=1e-4)
    assert got["serving_default"]["classes"] == IRIS * 3


def test_dnn_embedding_checkpoint_names_match_tf215(tmp_path):
    """The DNN's input layer is partitioned as TF's: the embedding and every Adagrad slot
    are saved under TF 2.15's names (``.../embedding_weights/t_0/Adagrad``)."""
    feats, y = _data()
    x, tok = _columns()
    est = tf.estimator.DNNClassifier([3], [x, tf.feature_column.embedding_column(tok, 2)],
                                     n_classes=3, model_dir=str(tmp_path))
    est.train(_train_fn(feats, y), steps=1)
    got = [[n, list(s)] for n, s in tf.train.list_variables(str(tmp_path))]
    assert got == EXPECTED["embedding_variable_names"]
