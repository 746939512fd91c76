"""Issue 40: the tf.compat.v1 DNN estimators' ``batch_norm=True`` against TF 2.15 +
tensorflow-estimator 2.15 (batchnorm.json and batchnorm/<case>/model.ckpt-0, written by
tests/fixtures/estimator/make_batchnorm_fixtures.py).

Starting from TF's initial checkpoint (its random kernels, gamma/beta/moving statistics and
optimizer slots), scopeflow's DNNClassifier, DNNRegressor and DNNLinearCombinedClassifier
with ``batch_norm=True`` give TF's three training losses (batch statistics, moving-average
updates run with the train op), eval metrics and predictions (moving statistics), and every
variable's name (``dnn/hiddenlayer_<i>/batchnorm_<i>/{gamma,beta,moving_mean,
moving_variance}``, slots included) and value. Live: TF 2.15 restores scopeflow's checkpoint
and evaluates to the same metrics."""

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
EXPECTED = json.loads((FIXTURES / "batchnorm.json").read_text())
TF215_PYTHON = Path(os.environ.get("SCOPEFLOW_TF215_PYTHON", "/work/tf215/bin/python"))
VOCAB = ["a", "b", "c", "d"]


def _data():
    i = np.arange(30)
    y = (i % 3).astype(np.int32)
    x = np.stack([np.sin(i * 0.7) + y, np.cos(i * 0.3) - 0.5 * y, (i % 5) * 0.2 + y * 0.4,
                  np.sin(i * 1.3) * 0.5 - y * 0.3], axis=1).astype(np.float32)
    first = np.array(VOCAB)[i % 4]
    second = np.where(i % 3 == 0, "", np.array(VOCAB)[(i * 7) % 4])
    return {"x": x, "tok": np.stack([first, second], axis=1).astype(object)}, y


def _makers():
    """As make_batchnorm_fixtures.makers: name -> (make(model_dir), float labels?)."""
    fc = tf.feature_column
    x = fc.numeric_column("x", shape=[4])
    tok = fc.categorical_column_with_vocabulary_list("tok", VOCAB)
    est = tf.estimator
    return {
        "DNNClassifierBN": (lambda d: est.DNNClassifier(
            [8, 5], [x], n_classes=3, batch_norm=True, model_dir=d), False),
        "DNNRegressorBN": (lambda d: est.DNNRegressor(
            [6], [x], batch_norm=True, optimizer="SGD", model_dir=d), True),
        "DNNLinearCombinedClassifierBN": (lambda d: est.DNNLinearCombinedClassifier(
            linear_feature_columns=[x, tok], dnn_feature_columns=[x], dnn_hidden_units=[7, 4],
            n_classes=3, batch_norm=True, model_dir=d), False),
    }


class _LossRecorder(tf.train.SessionRunHook):
    def __init__(self):
        self.losses = []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.get_collection(tf.GraphKeys.LOSSES)[-1])

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-5, atol=1e-5)


def _train_from_tf_init(name, model_dir):
    """Copies TF's model.ckpt-0 into model_dir and trains 3 steps from it."""
    make, float_labels = _makers()[name]
    for f in (FIXTURES / "batchnorm" / name).iterdir():
        shutil.copy(f, model_dir)
    (Path(model_dir) / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
    feats, y = _data()
    labels = y.astype(np.float32) if float_labels else y
    est = make(str(model_dir))
    rec = _LossRecorder()
    est.train(tf.estimator.inputs.numpy_input_fn(feats, labels, batch_size=10,
                                                 num_epochs=None, shuffle=False),
              steps=3, hooks=[rec])
    return est, feats, labels, rec.losses


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_batch_norm_trains_evaluates_predicts_as_tf(name, tmp_path):
    want = EXPECTED[name]
    est, feats, labels, losses = _train_from_tf_init(name, tmp_path)
    _close(losses, want["losses"])
    ev = est.evaluate(tf.estimator.inputs.numpy_input_fn(feats, labels, batch_size=10,
                                                         num_epochs=1, shuffle=False))
    assert sorted(ev) == sorted(want["eval"])
    for k, v in want["eval"].items():
        _close(ev[k], v)
    assert sorted(est.get_variable_names()) == sorted(want["variables"])
    assert sorted(want["variables"]) == want["initial_names"]
    assert "dnn/hiddenlayer_0/batchnorm_0/moving_variance" in want["variables"]
    for n, v in want["variables"].items():
        _close(est.get_variable_value(n), v)
    # the moving statistics moved (training ran the update ops), and eval/predict use them
    mean = est.get_variable_value("dnn/hiddenlayer_0/batchnorm_0/moving_mean")
    assert np.abs(mean).max() > 0
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {k: v[:3] for k, v in feats.items()}, shuffle=False)))
    assert len(preds) == len(want["predictions"])
    for got, exp in zip(preds, want["predictions"]):
        assert sorted(got) == sorted(exp)
        for k, v in exp.items():
            if np.asarray(v).dtype.kind in "fiu":
                _close(got[k], v)
            else:
                assert [s.decode() if isinstance(s, bytes) else s
                        for s in np.asarray(got[k]).reshape(-1)] == v


def test_batch_norm_update_ops_only_in_training():
    with tf.Graph().as_default() as g:
        tf.train.get_or_create_global_step()
        feats, y = _data()
        est = _makers()["DNNClassifierBN"][0](None)
        est.model_fn({"x": tf.constant(feats["x"])}, tf.constant(y), "eval", est.config)
        assert g.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    with tf.Graph().as_default() as g:
        tf.train.get_or_create_global_step()
        est.model_fn({"x": tf.constant(feats["x"])}, tf.constant(y), "train", est.config)
        assert len(g.get_collection(tf.GraphKeys.UPDATE_OPS)) == 4  # 2 layers x mean, var


@pytest.mark.skipif(not TF215_PYTHON.exists(), reason="TF 2.15 + tensorflow-estimator venv "
                    "(/work/tf215 or SCOPEFLOW_TF215_PYTHON) is absent")
@pytest.mark.parametrize("name", ["DNNClassifierBN", "DNNLinearCombinedClassifierBN"])
def test_tf215_evaluates_scopeflow_batch_norm_checkpoint(name, tmp_path):
    """TF 2.15 restores scopeflow's step-3 checkpoint (batchnorm variables, slots) and its
    evaluate gives TF's own post-training metrics."""
    _train_from_tf_init(name, tmp_path)
    out = subprocess.run([str(TF215_PYTHON), str(FIXTURES / "make_batchnorm_fixtures.py"),
                          "--evaluate", name, str(tmp_path)], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["names"] == sorted(EXPECTED[name]["variables"])
    for k, v in EXPECTED[name]["eval"].items():
        _close(got["eval"][k], v)
