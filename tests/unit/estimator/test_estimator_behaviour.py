"""tf.estimator's contract beyond the TF 2.15 fixture: errors TF raises, Dataset input
functions, train_and_evaluate, warm starting, eval summaries and the log lines."""

from __future__ import annotations

import itertools
import logging
import os

import numpy as np
import pytest

import scopeflow as tf

X = np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2)
Y = (X @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)


def linear_model_fn(features, labels, mode):
    x = features["x"] if isinstance(features, dict) else features
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(x, w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.losses.mean_squared_error(labels, pred)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, predictions={"y": pred},
                                          eval_metric_ops={
                                              "mae": tf.metrics.mean_absolute_error(labels,
                                                                                    pred)})
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def numpy_fn(num_epochs=None, batch_size=5):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=batch_size,
                                              num_epochs=num_epochs, shuffle=False)


def dataset_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(5)


def test_train_argument_errors(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(numpy_fn(), steps=1, max_steps=2)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        est.train(numpy_fn(), steps=0)
    with pytest.raises(ValueError, match="Must specify max_steps > 0"):
        est.train(numpy_fn(), max_steps=-1)
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook"):
        est.train(numpy_fn(), steps=1, hooks=["not a hook"])
    with pytest.raises(ValueError, match="Could not find trained model"):
        est.get_variable_names()


def test_model_fn_and_spec_errors(tmp_path):
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda x, labels: None, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), params={"a": 1})
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        with pytest.raises(ValueError, match="Missing train_op"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=loss)
        with pytest.raises(ValueError, match="Missing loss"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL)
        with pytest.raises(ValueError, match="Missing predictions"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant([1.0, 2]))
    with pytest.raises(ValueError, match="Can not provide both save_checkpoints_steps"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)

    def no_spec(features, labels):
        return None
    est = tf.estimator.Estimator(no_spec, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec"):
        est.train(numpy_fn(), steps=1)


def test_dataset_input_fn_trains_until_the_data_ends(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path))
    est.train(dataset_fn)  # 20 rows, batches of 5: 4 steps, then OutOfRange ends it
    assert os.path.basename(est.latest_checkpoint()) == "model.ckpt-4"
    res = est.evaluate(dataset_fn)
    assert res["global_step"] == 4
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(7)))
    assert len(preds) == 20 and preds[0]["y"].shape == (1,)
    # Constant features never run out (as in TF): take the first batch, close the session.
    batches = list(itertools.islice(
        est.predict(lambda: {"x": tf.constant(X)}, yield_single_examples=False), 2))
    assert len(batches) == 2 and batches[0]["y"].shape == (20, 1)
    w, b = est.get_variable_value("w"), est.get_variable_value("b")
    np.testing.assert_allclose(np.stack([p["y"] for p in preds]), X @ w + b, rtol=1e-5)


def test_evaluate_writes_metrics_and_checkpoint_path(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path))
    est.train(numpy_fn(), steps=3)
    res = est.evaluate(numpy_fn(num_epochs=1), name="val")
    assert set(res) == {"mae", "loss", "global_step"}
    events = [f for f in os.listdir(tmp_path / "eval_val") if "tfevents" in f]
    assert len(events) == 1
    tags = {}
    for event in tf.train.summary_iterator(str(tmp_path / "eval_val" / events[0])):
        for v in event.summary.value:
            tags[v.tag] = (event.step, v)
    assert tags["mae"][0] == 3 and tags["mae"][1].simple_value == pytest.approx(res["mae"])
    assert tags["loss"][1].simple_value == pytest.approx(res["loss"])
    assert tags["checkpoint_path"][1].tensor.string_val[0].decode().endswith("model.ckpt-3")


def test_eval_without_checkpoint_initializes(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path))
    res = est.evaluate(numpy_fn(num_epochs=1))
    assert res["global_step"] == 0
    assert res["loss"] == pytest.approx(float(np.mean(Y ** 2)), rel=1e-5)


def test_logging_lines(tmp_path, caplog):
    cfg = tf.estimator.RunConfig(log_step_count_steps=2, save_checkpoints_steps=2)
    tf.logging.set_verbosity(tf.logging.INFO)
    with caplog.at_level(logging.INFO):
        est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=cfg)
        est.train(numpy_fn(), steps=4)
    text = caplog.text
    assert "Using config:" in text
    assert "loss = " in text and ", step = 1" in text and ", step = 3 (" in text
    assert "global_step/sec: " in text
    assert "Saving checkpoints for 4 into" in text
    assert "Loss for final step: " in text


def test_train_and_evaluate_with_exporter(tmp_path):
    cfg = tf.estimator.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=4)
    est = tf.estimator.Estimator(linear_model_fn, config=cfg)
    exporter = tf.estimator.FinalExporter(
        "final", tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.placeholder(tf.float32, [None, 2], name="x")}))
    metrics, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(numpy_fn(), max_steps=8),
        tf.estimator.EvalSpec(numpy_fn(num_epochs=1), steps=None, exporters=exporter,
                              throttle_secs=0))
    assert metrics["global_step"] == 8
    assert len(exports) == 1
    assert os.path.dirname(os.fsdecode(exports[0])) == str(tmp_path / "export" / "final")
    assert os.path.exists(os.path.join(os.fsdecode(exports[0]), "saved_model.pb"))
    assert os.path.isdir(tmp_path / "eval")
    with pytest.raises(TypeError, match="`train_spec` must have type"):
        tf.estimator.train_and_evaluate(est, None, None)


def test_warm_start_from_another_model_dir(tmp_path):
    first = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "a"))
    first.train(numpy_fn(), steps=5)
    w = first.get_variable_value("w")
    second = tf.estimator.Estimator(
        linear_model_fn, model_dir=str(tmp_path / "b"),
        warm_start_from=tf.estimator.WarmStartSettings(str(tmp_path / "a"),
                                                       vars_to_warm_start="w"))
    # Evaluation before any training warm-starts too: w from a, b still zero.
    second.train(numpy_fn(), steps=1, hooks=[_CheckValue("w:0", w)])
    assert np.all(second.get_variable_value("w") != w)  # trained one more step
    assert second.get_variable_value("global_step") == 1


class _CheckValue(tf.train.SessionRunHook):
    def __init__(self, name, want):
        self._name, self._want, self.checked = name, want, False

    def after_create_session(self, session, coord):
        got = session.run(session.graph.get_tensor_by_name(self._name))
        np.testing.assert_allclose(got, self._want)


def test_numpy_input_fn_batches():
    x = np.arange(7, dtype=np.float32)
    fn = tf.estimator.inputs.numpy_input_fn({"a": x}, x * 2, batch_size=3, num_epochs=1,
                                            shuffle=False)
    with tf.Graph().as_default():
        feats, labels = fn()
        got = []
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                got.append(sess.run([feats["a"], labels]))
    assert [list(a) for a, _ in got] == [[0, 1, 2], [3, 4, 5], [6]]
    np.testing.assert_array_equal(got[2][1], [12])
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn({"a": x})
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        tf.estimator.inputs.numpy_input_fn({"a": x}, x[:3], shuffle=False)


def test_not_yet_names_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="BoostedTreesClassifier"):
        tf.estimator.BoostedTreesClassifier  # noqa: B018
    assert tf.compat.v1.estimator is tf.estimator


def test_add_metrics(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path))
    est.train(numpy_fn(), steps=2)

    def metric_fn(labels, predictions):
        return {"rmse": tf.metrics.root_mean_squared_error(labels, predictions["y"])}

    est2 = tf.estimator.add_metrics(est, metric_fn)
    res = est2.evaluate(numpy_fn(num_epochs=1))
    assert set(res) == {"mae", "rmse", "loss", "global_step"}
    assert res["rmse"] == pytest.approx(np.sqrt(res["loss"]), rel=1e-5)
    with pytest.raises(ValueError, match="must include predictions argument"):
        tf.estimator.add_metrics(est, lambda labels: {})


def test_early_stopping_hook_stops_on_eval_metrics(tmp_path):
    first = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "a"))
    first.train(numpy_fn(), steps=2)
    first.evaluate(numpy_fn(num_epochs=1))
    metrics = tf.estimator.experimental.read_eval_metrics(first.eval_dir())
    assert list(metrics) == [2] and set(metrics[2]) >= {"loss", "mae"}
    # The hooks make signal_early_stopping/STOP, so (as in TF) they are there from the
    # model's first training on: a checkpoint without it does not restore into their graph.
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "b"))
    never = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", 1000, eval_dir=first.eval_dir(), run_every_secs=None, run_every_steps=1)
    est.train(numpy_fn(), steps=2, hooks=[never])
    assert est.get_variable_value("global_step") == 2
    assert not est.get_variable_value("signal_early_stopping/STOP")
    # loss is below 100 in first's eval: the hook stops the next run at its first check.
    hook = tf.estimator.experimental.stop_if_lower_hook(
        est, "loss", 100.0, eval_dir=first.eval_dir(), run_every_secs=None,
        run_every_steps=1)
    est.train(numpy_fn(), steps=50, hooks=[hook])
    assert est.get_variable_value("global_step") == 3
    assert bool(est.get_variable_value("signal_early_stopping/STOP"))
    with pytest.raises(NotImplementedError, match="InMemoryEvaluatorHook"):
        tf.estimator.experimental.InMemoryEvaluatorHook  # noqa: B018
