"""tf.train.import_meta_graph: a .meta + checkpoint that real TensorFlow wrote (a CNN of seed
003's shape, trained one Adam step: tests/fixtures/tf_meta_graph) restores into scopeflow,
gives TF's logits and loss by tensor name, and trains on as TF does; the live test does the
same with the seed's full-size CNN written by TF now."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_meta_graph"


def _check(directory, **import_args):
    e = np.load(Path(directory) / "expected.npz")
    saver = tf.train.import_meta_graph(str(Path(directory) / "model.ckpt.meta"), **import_args)
    prefix = import_args.get("import_scope")
    name = (lambda n: f"{prefix}/{n}") if prefix else (lambda n: n)
    feed = {name("x:0"): e["xs"], name("y:0"): e["ys"]}
    with tf.Session() as sess:
        saver.restore(sess, str(Path(directory) / "model.ckpt"))
        logits, loss = sess.run([name("logits/BiasAdd:0"), name("loss:0")], feed)
        np.testing.assert_allclose(logits, e["logits"], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(loss, e["loss"], rtol=1e-5)
        train = tf.get_collection("train_op")[0]  # TF1 adds it too (GraphKeys.TRAIN_OP)
        sess.run(train, feed)  # Adam's slots and beta powers came from the checkpoint
        np.testing.assert_allclose(sess.run(name("loss:0"), feed), e["after"], rtol=1e-4)
        assert sess.run(tf.train.get_global_step()) == 2
    return saver


def test_tf_written_meta_graph_restores_and_trains_on():
    _check(FIXTURE)
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names == ["conv1/b", "conv1/w", "conv2/b", "conv2/w", "fc/dense/bias",
                     "fc/dense/kernel", "logits/bias", "logits/kernel"]
    assert len(tf.global_variables()) == 8 * 3 + 3  # + Adam's slots, beta powers, the step


def test_import_scope_and_clear_devices():
    _check(FIXTURE, import_scope="imported", clear_devices=True)
    assert all(v.op.name.startswith("imported/") for v in tf.global_variables())
    assert all(op.device == "" for op in tf.get_default_graph().get_operations())


def test_our_own_meta_graph_round_trips(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
    tf.identity(tf.matmul(x, w), name="out")
    with tf.Session() as sess:
        sess.run(w.initializer)
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run("out:0", {"x:0": [[1.0, 1.0]]}).tolist() == [[3.0]]


def test_a_damaged_meta_file_is_data_loss(tmp_path):
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\xff\xfe not a meta graph \x00\x01")
    with pytest.raises(tf.errors.DataLossError, match="not a MetaGraphDef"):
        tf.train.import_meta_graph(str(bad))


def test_the_seeds_cnn_written_by_tf_now(tf1, tmp_path):
    # (the tf1 fixture: skips when the oracle is missing, unless CI requires it)
    tool = os.environ.get("SCOPEFLOW_TF1", str(FIXTURE.parents[3] / "shared" / "tools" / "tf1"))
    out = subprocess.run([tool, str(FIXTURE / "make_fixture.py"), str(tmp_path), "--seed-cnn"],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    _check(tmp_path)
