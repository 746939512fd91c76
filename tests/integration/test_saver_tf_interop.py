"""Checkpoints between scopeflow and real TensorFlow, both ways (live; needs the tf1 oracle).

The seed's CNN (tests/fixtures/tf_saver/make_fixtures.py: cnnmodel + Adam + global_step)
is built by both libraries from the same code; each side restores what the other saved
and the values must be identical.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

pytestmark = pytest.mark.tf

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tf_saver"
_spec = importlib.util.spec_from_file_location("tf_saver_cases", FIXTURES / "make_fixtures.py")
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)

# Prepended to every TF snippet: the same model-building code, under TensorFlow.
TF_CASES = f"""
import importlib.util
_spec = importlib.util.spec_from_file_location("cases", {str(FIXTURES / "make_fixtures.py")!r})
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)
"""


def _values(sess):
    return {v.op.name: sess.run(v) for v in tf.global_variables()}


def _assert_same(got, want):
    assert sorted(got) == sorted(want)
    for k in want:
        assert got[k].dtype == want[k].dtype, k
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def _train_and_save(directory, steps=2):
    x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
    saver = tf.train.Saver(max_to_keep=3)
    images, labels = CASES.batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train_step, {x: images, y_: labels, keep_prob: 1.0})
            path = saver.save(sess, os.path.join(directory, "model"), global_step=global_step)
        return path, _values(sess)


def test_tf_restores_scopeflow_cnn_and_keeps_training(tf1, tmp_path):
    path, want = _train_and_save(str(tmp_path))
    assert path == str(tmp_path / "model-2")
    out = str(tmp_path / "tf_values.npz")
    got = tf1(TF_CASES + f"""
x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
saver = tf.train.Saver()
with tf.Session() as sess:
    path = tf.train.latest_checkpoint({str(tmp_path)!r})
    saver.restore(sess, path)
    restored = {{v.op.name: sess.run(v) for v in tf.global_variables()}}
    images, labels = CASES.batch(seed=2)
    sess.run(train_step, {{x: images, y_: labels, keep_prob: 1.0}})
    stepped = {{v.op.name: sess.run(v) for v in tf.global_variables()}}
np.savez({out!r}, **{{"restored/" + k: v for k, v in restored.items()}},
         **{{"stepped/" + k: v for k, v in stepped.items()}})
print(json.dumps([path, sorted(n for n, _ in tf.train.list_variables(path))]))
""")
    assert got == [path, sorted(want)]
    tf_values = np.load(out)
    _assert_same({k[len("restored/"):]: tf_values[k] for k in tf_values.files
                  if k.startswith("restored/")}, want)
    # One more Adam step from the restored state agrees between the two libraries.
    tf.reset_default_graph()
    x, y_, keep_prob, train_step, _ = CASES.build_training(tf)
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, path)
        images, labels = CASES.batch(seed=2)
        sess.run(train_step, {x: images, y_: labels, keep_prob: 1.0})
        stepped = _values(sess)
    for k, v in stepped.items():
        np.testing.assert_allclose(v, tf_values["stepped/" + k], rtol=2e-5, atol=1e-6,
                                   err_msg=k)


def test_scopeflow_restores_tf_cnn(tf1, tmp_path):
    out = str(tmp_path / "values.npz")
    path = tf1(TF_CASES + f"""
x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
saver = tf.train.Saver()
images, labels = CASES.batch(seed=5)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(4):
        sess.run(train_step, {{x: images, y_: labels, keep_prob: 0.5}})
        path = saver.save(sess, {str(tmp_path / "model")!r}, global_step=global_step)
    np.savez({out!r}, **{{v.op.name: sess.run(v) for v in tf.global_variables()}})
print(json.dumps(path))
""")
    assert tf.train.latest_checkpoint(str(tmp_path)) == path == str(tmp_path / "model-4")
    CASES.build_training(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        report = saver.restore(sess, path, report=True)
        got = _values(sess)
    assert report.ok and not report.unused
    _assert_same(got, dict(np.load(out)))


def test_tf_imports_scopeflow_meta_graph(tf1, tmp_path):
    path, want = _train_and_save(str(tmp_path))
    got = tf1(f"""
saver = tf.train.import_meta_graph({path + ".meta"!r})
graph = tf.get_default_graph()
with tf.Session() as sess:
    saver.restore(sess, {path!r})
    values = {{v.op.name: sess.run(v).tolist() for v in tf.global_variables()}}
    train_op = tf.get_collection("train_op")[0]
    sess.run(train_op, {{"Placeholder:0": np.zeros((2, 784), np.float32),
                        "Placeholder_1:0": np.eye(10, dtype=np.float32)[:2],
                        "Placeholder_2:0": 1.0}})
    step = int(sess.run("global_step:0"))
print(json.dumps([values, [v.op.name for v in tf.trainable_variables()], train_op.name, step]))
""")
    values, trainable, train_op, step = got
    assert (train_op, step) == ("Adam", 3)
    assert trainable == [v.op.name for v in tf.trainable_variables()]
    for k, v in want.items():
        np.testing.assert_array_equal(np.asarray(values[k], dtype=v.dtype), v, err_msg=k)


def test_partial_and_sharded_savers_both_ways(tf1, tmp_path):
    """The seed's dict / list / op-name savers, and a 3-shard save, read by TF."""
    v1, v2 = CASES.partial_variables(tf)
    paths = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for form, make in sorted(CASES.PARTIAL.items()):
            os.makedirs(tmp_path / form)
            paths[form] = make(tf, v1, v2).save(sess, str(tmp_path / form / "model"))
    tf.reset_default_graph()
    CASES.SHARDED["three_devices"](tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sharded = tf.train.Saver(sharded=True).save(sess, str(tmp_path / "sharded"))
        want_sharded = {k: v.tolist() for k, v in _values(sess).items()}
    got = tf1(TF_CASES + f"""
reader = tf.train.load_checkpoint({sharded!r})
sharded = {{k: reader.get_tensor(k).tolist() for k in reader.get_variable_to_shape_map()}}
out = {{}}
for form, make in sorted(CASES.PARTIAL.items()):
    tf.reset_default_graph()
    v1, v2 = CASES.partial_variables(tf)
    saver = make(tf, v1, v2)
    with tf.Session() as sess:
        sess.run([v1.assign([0.0, 0.0]), v2.assign([[0, 0]])])
        saver.restore(sess, {str(tmp_path)!r} + "/" + form + "/model")
        out[form] = [sess.run(v1).tolist(), sess.run(v2).tolist()]
print(json.dumps([out, sharded]))
""")
    assert got == [{form: [[1.0, 2.0], [[3, 4]]] for form in CASES.PARTIAL}, want_sharded]
    assert len([f for f in os.listdir(tmp_path) if f.startswith("sharded.data-")]) == 3


def test_conv1_restore_keep_hours_and_errors_match_tf(tf1, tmp_path):
    """One TF run: the conv1-only restore, keep_checkpoint_every_n_hours under a fake
    clock (max_to_keep=1), and the error for a variable the checkpoint lacks."""
    path, want = _train_and_save(str(tmp_path), steps=1)
    times = [1010, 4700, 4800, 4900, 8700, 8800]
    keep_tf, keep_sf = tmp_path / "keep_tf", tmp_path / "keep_sf"
    keep_tf.mkdir()
    keep_sf.mkdir()
    got = tf1(TF_CASES + f"""
import os
from tensorflow.python.training import saver as saver_module
out = {{}}
CASES.build_training(tf)
net_var = [v for v in tf.global_variables() if "conv1" in v.name]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    before = {{v.op.name: sess.run(v) for v in tf.global_variables()}}
    tf.train.Saver(net_var).restore(sess, {path!r})
    after = {{v.op.name: sess.run(v) for v in tf.global_variables()}}
out["changed"] = sorted(k for k in after if not np.array_equal(before[k], after[k]))

tf.reset_default_graph()
clock = [1000.0]
real_time = saver_module.time.time
saver_module.time.time = lambda: clock[0]
tf.Variable(0, name="v")
saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step, t in enumerate({times!r}, 1):
        clock[0] = t
        saver.save(sess, {str(keep_tf / "m")!r}, global_step=step, write_meta_graph=False)
saver_module.time.time = real_time
out["kept"] = sorted(os.listdir({str(keep_tf)!r}))

tf.reset_default_graph()
tf.Variable(1.0, name="extra")
with tf.Session() as sess:
    try:
        tf.train.Saver().restore(sess, {path!r})
    except tf.errors.NotFoundError as e:
        out["error"] = str(e)
print(json.dumps(out))
""")
    # conv1 only: the same variables change, to the saved values.
    tf.reset_default_graph()
    CASES.build_training(tf)
    net_var = [v for v in tf.global_variables() if "conv1" in v.name]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = _values(sess)
        tf.train.Saver(net_var).restore(sess, path)
        after = _values(sess)
    changed = sorted(k for k in after if not np.array_equal(before[k], after[k]))
    assert changed == got["changed"]
    for k in changed:
        np.testing.assert_array_equal(after[k], want[k])

    # keep_checkpoint_every_n_hours: the same checkpoints survive.
    from scopeflow.train import saver as saver_module
    clock = [1000.0]
    real_time = saver_module.time.time
    saver_module.time.time = lambda: clock[0]
    try:
        tf.reset_default_graph()
        tf.Variable(0, name="v")
        saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step, t in enumerate(times, 1):
                clock[0] = t
                saver.save(sess, str(keep_sf / "m"), global_step=step, write_meta_graph=False)
    finally:
        saver_module.time.time = real_time
    assert sorted(os.listdir(keep_sf)) == got["kept"]

    # The error: TF's head and kernel message first, then scopeflow's complete list.
    tf.reset_default_graph()
    tf.Variable(1.0, name="extra")
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as info:
        tf.train.Saver().restore(sess, path)
    ours, tf_message = str(info.value), got["error"]
    assert ours.split("Original error:")[0] == tf_message.split("Original error:")[0]
    assert "Key extra not found in checkpoint" in tf_message
    assert "Key extra not found in checkpoint" in ours
    assert "missing from the checkpoint (1):" in ours
