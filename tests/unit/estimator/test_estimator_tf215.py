"""tf.estimator against TensorFlow 2.15 + tensorflow-estimator 2.15 (the last TF with it).

The fixture tests/fixtures/estimator/tf215.json was written by make_fixtures.py (same
directory) under real TF 2.15: a custom model_fn with fixed initial weights on iris-like
data. Here scopeflow runs the same program and must give the same losses, metrics,
predictions, variables, model_dir layout and export signatures; ckpt/ is TF's checkpoint
at step 6, which scopeflow must continue from. The reverse direction (TF continuing from
scopeflow's checkpoint) runs live when the TF 2.15 venv (/work/tf215) exists.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "estimator"
sys.path.insert(0, str(FIXTURES))
from estimator_data import B0, W0, iris_like  # noqa: E402

TF215_PYTHON = Path(os.environ.get("SCOPEFLOW_TF215_PYTHON", "/work/tf215/bin/python"))
EXPECTED = json.loads((FIXTURES / "tf215.json").read_text())


def model_fn(features, labels, mode, params):
    x = features["x"]
    w = tf.get_variable("dense/kernel", initializer=tf.constant(W0))
    b = tf.get_variable("dense/bias", initializer=tf.constant(B0))
    logits = tf.matmul(x, w) + b
    classes = tf.argmax(logits, 1)
    predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "accuracy": tf.metrics.accuracy(labels, classes)})
    opt = tf.train.GradientDescentOptimizer(params["lr"])
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class LossRecorder(tf.train.SessionRunHook):
    def __init__(self):
        self.losses = []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.get_collection(tf.GraphKeys.LOSSES)[0])

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def listing(root):
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            if "events.out.tfevents" in rel:
                rel = rel.split("events.out.tfevents")[0] + "events.out.tfevents*"
            out.append(rel)
    return sorted(out)


def make_estimator(model_dir):
    cfg = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=3,
                                 log_step_count_steps=1, save_summary_steps=2)
    return tf.estimator.Estimator(model_fn, model_dir=str(model_dir), config=cfg,
                                  params={"lr": 0.1})


def input_fns():
    x, y = iris_like()
    inputs = tf.compat.v1.estimator.inputs
    return (inputs.numpy_input_fn({"x": x}, y, batch_size=10, num_epochs=None, shuffle=False),
            inputs.numpy_input_fn({"x": x}, y, batch_size=10, num_epochs=1, shuffle=False),
            inputs.numpy_input_fn({"x": x[:4]}, shuffle=False))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The fixture program's run, step by step, with what each step gave."""
    model_dir = tmp_path_factory.mktemp("est")
    est = make_estimator(model_dir)
    train_fn, eval_fn, pred_fn = input_fns()
    got = {}
    rec = LossRecorder()
    est.train(train_fn, steps=6, hooks=[rec])
    got["train_losses"] = rec.losses
    got["variable_names"] = est.get_variable_names()
    got["kernel_after_6"] = est.get_variable_value("dense/kernel")
    got["latest_checkpoint"] = os.path.basename(est.latest_checkpoint())
    got["eval"] = est.evaluate(eval_fn)
    got["eval_two"] = est.evaluate(eval_fn, steps=2, name="two")
    got["predictions"] = list(est.predict(pred_fn))
    got["predict_probabilities_only"] = [
        sorted(p) for p in est.predict(pred_fn, predict_keys="probabilities")]
    copy = tmp_path_factory.mktemp("ckpt6")
    shutil.copytree(model_dir, copy, dirs_exist_ok=True)
    got["ckpt6_dir"] = copy
    for key, hooks_key in (("train_losses_to_8", None), ("train_losses_skipped", None)):
        del hooks_key
        rec = LossRecorder()
        est.train(train_fn, max_steps=8, hooks=[rec])
        got[key] = rec.losses
    fspec = {"x": tf.FixedLenFeature([4], tf.float32)}
    export_base = tmp_path_factory.mktemp("export")
    got["export_path"] = est.export_saved_model(
        str(export_base), tf.estimator.export.build_parsing_serving_input_receiver_fn(fspec))
    got["raw_export_path"] = est.export_saved_model(
        str(tmp_path_factory.mktemp("raw")),
        tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.placeholder(tf.float32, [None, 4], name="x")}))
    got["model_dir_listing"] = listing(model_dir)
    got["est"] = est
    return got


def test_training_losses_match_tf(trained):
    np.testing.assert_allclose(trained["train_losses"], EXPECTED["train_losses"], rtol=1e-5)
    np.testing.assert_allclose(trained["kernel_after_6"], EXPECTED["kernel_after_6"],
                               rtol=1e-5, atol=1e-6)
    assert trained["variable_names"] == EXPECTED["variable_names"]
    assert trained["latest_checkpoint"] == EXPECTED["latest_checkpoint"]


def test_max_steps_continues_and_skips_as_tf(trained):
    np.testing.assert_allclose(trained["train_losses_to_8"], EXPECTED["train_losses_to_8"],
                               rtol=1e-5)
    assert trained["train_losses_skipped"] == EXPECTED["train_losses_skipped"] == []


def test_evaluate_matches_tf(trained):
    for key in ("eval", "eval_two"):
        got = trained[key]
        assert sorted(got) == sorted(EXPECTED[key])
        for name, value in EXPECTED[key].items():
            assert got[name] == pytest.approx(value, rel=1e-5), (key, name)
        assert isinstance(got["global_step"], np.int64)


def test_predict_matches_tf(trained):
    got = trained["predictions"]
    assert len(got) == len(EXPECTED["predictions"])
    for g, e in zip(got, EXPECTED["predictions"]):
        assert int(g["classes"]) == e["classes"]
        np.testing.assert_allclose(g["probabilities"], e["probabilities"], rtol=1e-5)
    assert trained["predict_probabilities_only"] == EXPECTED["predict_probabilities_only"]


def test_model_dir_layout_matches_tf(trained):
    assert trained["model_dir_listing"] == EXPECTED["model_dir_listing"]


def _signatures(export_path):
    from scopeflow.io import protos
    sm = protos.SavedModel()
    sm.ParseFromString((Path(os.fsdecode(export_path)) / "saved_model.pb").read_bytes())
    mg = sm.meta_graphs[0]
    sigs = {k: {"method": s.method_name, "inputs": sorted(s.inputs),
                "outputs": sorted(s.outputs)} for k, s in mg.signature_def.items()}
    return sigs, list(mg.meta_info_def.tags)


def test_export_matches_tf(trained):
    path = trained["export_path"]
    assert isinstance(path, bytes)
    assert os.path.basename(path).isdigit()
    assert listing(os.fsdecode(path)) == EXPECTED["export_listing"]
    sigs, tags = _signatures(path)
    assert sigs == EXPECTED["export_signatures"]
    assert tags == EXPECTED["export_tags"]
    raw_sigs, _ = _signatures(trained["raw_export_path"])
    assert raw_sigs == EXPECTED["raw_export_signatures"]


def test_exported_model_serves_the_predictions(trained):
    x, _ = iris_like()
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"],
                                        os.fsdecode(trained["raw_export_path"]))
        sig = mg.signature_def["serving_default"]
        probs = sess.run(sig.outputs["probabilities"].name,
                         {sig.inputs["x"].name: x[:4]})
    # The export is of step 8's checkpoint; check it against that checkpoint's weights.
    est = trained["est"]
    w, b = est.get_variable_value("dense/kernel"), est.get_variable_value("dense/bias")
    logits = x[:4] @ w + b
    want = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(probs, want / want.sum(1, keepdims=True), rtol=1e-5)


def test_continues_from_tf_checkpoint(tmp_path):
    """TF 2.15's checkpoint at step 6 (ckpt/) is continued to step 8 with TF's losses."""
    for f in (FIXTURES / "ckpt").iterdir():
        shutil.copy(f, tmp_path)
    est = make_estimator(tmp_path)
    train_fn, _, _ = input_fns()
    rec = LossRecorder()
    est.train(train_fn, max_steps=8, hooks=[rec])
    # Same data position as TF's second train() call: the input_fn restarts at row 0.
    np.testing.assert_allclose(rec.losses, EXPECTED["train_losses_to_8"], rtol=1e-5)
    assert os.path.basename(est.latest_checkpoint()) == "model.ckpt-8"


@pytest.mark.skipif(not TF215_PYTHON.exists(), reason="TF 2.15 + tensorflow-estimator venv "
                    "(/work/tf215 or SCOPEFLOW_TF215_PYTHON) is absent")
def test_tf215_continues_from_scopeflow_checkpoint(trained, tmp_path):
    """The reverse: real TF 2.15 restores scopeflow's step-6 checkpoint and trains to 8."""
    shutil.copytree(trained["ckpt6_dir"], tmp_path / "m", dirs_exist_ok=True)
    prog = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(FIXTURES)!r})
        sys.argv = ["x"]
        import make_fixtures as mf
        tf = mf.tf
        x, y = mf.iris_like()
        cfg = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=3,
                                     log_step_count_steps=1, save_summary_steps=2)
        est = tf.estimator.Estimator(mf.model_fn, model_dir={str(tmp_path / 'm')!r},
                                     config=cfg, params={{"lr": 0.1}})
        fn = tf.estimator.inputs.numpy_input_fn({{"x": x}}, y, batch_size=10,
                                                num_epochs=None, shuffle=False)
        rec = mf.LossRecorder()
        est.train(fn, max_steps=8, hooks=[rec])
        print("RESULT" + json.dumps(rec.losses))
    """)
    out = subprocess.run([str(TF215_PYTHON), "-c", prog], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, out.stderr[-3000:]
    np.testing.assert_allclose(json.loads(lines[-1][6:]), EXPECTED["train_losses_to_8"],
                               rtol=1e-5)
