"""tf.train.Checkpoint / CheckpointManager / CheckpointOptions: object-based checkpoints.

Without TF: round trips, keys, the object graph, status assertions, the manager's state
file, and the committed checkpoint TF wrote (tests/fixtures/object_checkpoint, made by its
make_fixture.py). With the tf1 oracle: TF restores what scopeflow saves, and the
manager's kept checkpoints and state file match TF's.
"""

import contextlib
import io
import json
import os
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io.protos import TrackableObjectGraph
from scopeflow.train.trackable_graph import escape_local_name

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "object_checkpoint")


class _Obj:
    """A plain Python object: scopeflow tracks its attributes (TF would need tf.Module)."""


def _model(zero=False):
    """The fixture's model, optimizer and train op in a fresh graph."""
    model = _Obj()
    model.dense = _Obj()
    model.dense.kernel = tf.Variable(np.zeros((2, 2)) if zero else [[1.0, 2.0], [3.0, 4.0]],
                                     dtype=tf.float32, name="kernel")
    model.dense.bias = tf.Variable([0.0, 0.0] if zero else [0.5, 0.25], name="bias")
    model.layers = [tf.Variable(0 if zero else 7, name="count"),
                    {"scale": tf.Variable(0.0 if zero else 2.5, name="scale")}]
    opt = tf.train.AdamOptimizer(0.1)
    loss = tf.reduce_sum(model.dense.kernel * model.dense.kernel) + \
        tf.reduce_sum(model.dense.bias)
    train = opt.minimize(loss, var_list=[model.dense.kernel, model.dense.bias])
    return model, opt, train


def _object_graph(path):
    raw = tf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    return TrackableObjectGraph.FromString(raw)


def test_restores_the_checkpoint_tf_wrote():
    with tf.Graph().as_default():
        model, opt, _ = _model(zero=True)
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        path = tf.train.latest_checkpoint(os.path.join(FIXTURE, "ckpt"))
        assert path.endswith("ckpt-2")
        with tf.Session() as sess:
            status = ckpt.restore(path)
            status.assert_consumed()
            status.run_restore_ops(sess)
            got = sess.run({
                "model/dense/kernel": model.dense.kernel,
                "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/v": opt.get_slot(
                    model.dense.kernel, "v"),
                "model/layers/0": model.layers[0], "model/layers/1/x": model.layers[1]["scale"],
                "optimizer/beta2_power": opt._get_non_slot_variable("beta2_power"),
                "save_counter": ckpt.save_counter})
    with open(os.path.join(FIXTURE, "values.json")) as f:
        want = json.load(f)
    for key, value in got.items():
        key = key.replace("layers/1/x", "layers/1/scale")
        np.testing.assert_allclose(value, want[key + "/.ATTRIBUTES/VARIABLE_VALUE"], rtol=1e-6)
    assert got["save_counter"] == 2


def test_saves_tfs_object_graph_and_keys(tmp_path):
    with tf.Graph().as_default():
        model, opt, train = _model()
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            assert ckpt.save(str(tmp_path / "ckpt"), session=sess) == str(tmp_path / "ckpt-1")
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert path == str(tmp_path / "ckpt-2")
    # As TF1's V1 save: the state file names only the newest; older files stay.
    state = (tmp_path / "checkpoint").read_text()
    assert state == 'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n'
    assert (tmp_path / "ckpt-1.index").exists()
    with open(os.path.join(FIXTURE, "object_graph.txt")) as f:
        assert str(_object_graph(path)) == f.read()   # node for node TF's graph


def test_round_trip_restore_and_status(tmp_path):
    with tf.Graph().as_default():
        model, opt, train = _model()
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ckpt.write(str(tmp_path / "w"), session=sess)
            want = sess.run(model.dense.kernel)
    assert path == str(tmp_path / "w")
    with tf.Graph().as_default():
        model, opt, _ = _model(zero=True)
        extra = tf.Variable(5.0, name="extra")
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt, extra=extra)
        with tf.Session() as sess:
            status = ckpt.restore(path)
            status.assert_nontrivial_match()
            with pytest.raises(AssertionError, match="Found 2 Python objects that were not "
                                                     "bound to checkpointed values"):
                status.assert_existing_objects_matched()
            status.initialize_or_restore(sess)    # restores; initializes extra, save_counter
            np.testing.assert_allclose(sess.run(model.dense.kernel), want)
            assert sess.run(extra) == 5.0


def test_assert_consumed_names_unresolved_objects(tmp_path):
    with tf.Graph().as_default():
        a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Checkpoint(a=a, b=b).save(str(tmp_path / "c"), session=sess)
    with tf.Graph().as_default():
        status = tf.train.Checkpoint(a=tf.Variable(0.0)).restore(path)
        with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.b"):
            status.assert_consumed()
        status.assert_existing_objects_matched()


def test_initialization_only_status_and_errors():
    with tf.Graph().as_default():
        v = tf.Variable(3.0)
        ckpt = tf.train.Checkpoint(v=v)
        status = ckpt.restore(None)
        with pytest.raises(AssertionError, match="No checkpoint specified"):
            status.assert_consumed()
        with pytest.raises(AssertionError, match="no restore ops are available"):
            status.run_restore_ops()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            assert sess.run(v) == 3.0 and sess.run(ckpt.save_counter) == 0
        with pytest.raises(RuntimeError, match="without a default session"):
            ckpt.save("/nonexistent/x")
    with pytest.raises(ValueError, match="`Checkpoint` was expecting a trackable object"):
        tf.train.Checkpoint(x=3)


def test_name_based_checkpoint_restores_by_variable_names(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = tf.train.Saver().save(sess, str(tmp_path / "s"))
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="v")
        status = tf.train.Checkpoint(w=v).restore(path)
        status.assert_consumed()     # save_counter may be missing
        with tf.Session() as sess:
            status.run_restore_ops(sess)
            assert sess.run(v).tolist() == [1.0, 2.0]


def test_escaped_names_and_checkpoint_options():
    assert escape_local_name("a/b.c") == "a./b..c"
    opts = tf.train.CheckpointOptions(experimental_enable_async_checkpoint=True)
    assert opts.enable_async and opts.experimental_io_device is None
    with pytest.raises(AttributeError):
        opts.other = 1    # __slots__, as TF


def test_manager_keeps_max_to_keep_and_writes_state(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        ckpt = tf.train.Checkpoint(v=v)
        manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
        with tf.Session() as sess:
            sess.run(v.initializer)
            paths = [manager.save() for _ in range(3)]
            assert manager.save(checkpoint_number=10).endswith("ckpt-10")
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in (1, 2, 3)]
    assert manager.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-10")]
    assert manager.latest_checkpoint == str(tmp_path / "ckpt-10")
    assert sorted(p.name for p in tmp_path.glob("*.index")) == ["ckpt-10.index", "ckpt-3.index"]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == \
        ["ckpt-3", "ckpt-10"]
    assert len(state.all_model_checkpoint_timestamps) == 2
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert again.checkpoints == manager.checkpoints
    with pytest.raises(ValueError, match="Expected a positive integer or `None`"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), 1, checkpoint_interval=5)


def test_tf_restores_what_scopeflow_saves(tf1, tmp_path):
    with tf.Graph().as_default():
        model, opt, train = _model()
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
            want = sess.run([model.dense.kernel, opt.get_slot(model.dense.bias, "m"),
                             model.layers[1]["scale"]])
    got = tf1(f"""
        tf.disable_v2_behavior()
        model = tf.Module(); model.dense = tf.Module()
        model.dense.kernel = tf.Variable(tf.zeros([2, 2]), name="kernel")
        model.dense.bias = tf.Variable([0.0, 0.0], name="bias")
        model.layers = [tf.Variable(0, name="count"), {{"scale": tf.Variable(0.0)}}]
        opt = tf.train.AdamOptimizer(0.1)
        loss = tf.reduce_sum(model.dense.kernel) + tf.reduce_sum(model.dense.bias)
        opt.minimize(loss, var_list=[model.dense.kernel, model.dense.bias])
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        with tf.Session() as sess:
            status = ckpt.restore(tf.train.latest_checkpoint({str(tmp_path)!r}))
            status.assert_consumed()
            status.run_restore_ops(sess)
            out = sess.run([model.dense.kernel, opt.get_slot(model.dense.bias, "m"),
                            model.layers[1]["scale"], ckpt.save_counter])
        print(json.dumps([np.asarray(x).tolist() for x in out]))
    """)
    assert path.endswith("ckpt-1") and got[3] == 1
    for a, b in zip(got[:3], want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_manager_matches_tf(tf1, tmp_path):
    script = """
        d = {d!r}
        v = tf.Variable(1.0)
        ckpt = tf.train.Checkpoint(v=v)
        m = tf.train.CheckpointManager(ckpt, d, max_to_keep=2, checkpoint_name="model")
        with tf.Session() as sess:
            sess.run(v.initializer)
            paths = [m.save() for _ in range(3)] + [m.save(checkpoint_number=7)]
            again = tf.train.CheckpointManager(ckpt, d, max_to_keep=3, checkpoint_name="model")
            paths.append(again.save())
            state = tf.train.get_checkpoint_state(d)
        out = [[p[len(d):] for p in paths], [p[len(d):] for p in again.checkpoints],
               sorted(os.listdir(d)), [p[len(d):] for p in state.all_model_checkpoint_paths]]
        print(json.dumps(out))
    """
    tf_dir = tmp_path / "tf"
    got = tf1("import os\ntf.disable_v2_behavior()\n" +
              textwrap.dedent(script).format(d=str(tf_dir)))
    sf_dir = tmp_path / "sf"
    ns = {"tf": tf, "os": os, "json": json}
    with tf.Graph().as_default():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(textwrap.dedent(script).format(d=str(sf_dir)), ns)   # noqa: S102
    ours = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert ours == got
    assert got[0] == ["/model-1", "/model-2", "/model-3", "/model-7", "/model-5"]


def test_layers_checkpoint_both_ways(tf1, tmp_path):
    """A tf.layers.Dense: keys layer/kernel, layer/bias as TF's Keras-based layer saves."""
    kernel = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2, kernel_initializer=tf.constant_initializer(kernel))
        layer(tf.placeholder(tf.float32, [None, 3]))
        ckpt = tf.train.Checkpoint(layer=layer)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ours = ckpt.save(str(tmp_path / "sf" / "c"), session=sess)
    got = tf1(f"""
        tf.disable_v2_behavior()
        layer = tf.layers.Dense(2, bias_initializer=tf.constant_initializer(0.5))
        layer(tf.placeholder(tf.float32, [None, 3]))
        ckpt = tf.train.Checkpoint(layer=layer)
        with tf.Session() as sess:
            status = ckpt.restore({ours!r})
            status.assert_consumed()
            status.run_restore_ops(sess)
            restored = sess.run(layer.kernel).tolist()
            sess.run(tf.global_variables_initializer())
            theirs = ckpt.save({str(tmp_path / "tf" / "c")!r}, session=sess)
        print(json.dumps([restored, theirs]))
    """)
    assert got[0] == kernel.tolist()
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2)
        layer(tf.placeholder(tf.float32, [None, 3]))
        ckpt = tf.train.Checkpoint(layer=layer)
        with tf.Session() as sess:
            status = ckpt.restore(got[1])
            status.assert_consumed()
            status.run_restore_ops(sess)
            assert sess.run(layer.bias).tolist() == [0.5, 0.5]


_INTERVAL = """
d = {d!r}
step = tf.Variable(0, dtype=tf.int64, name="step")
bump = tf.assign_add(step, 1)
ckpt = tf.train.Checkpoint(step=step)
m = tf.train.CheckpointManager(ckpt, d, max_to_keep=None, step_counter=step,
                               checkpoint_interval=3)
out = []
with tf.Session() as sess:
    sess.run(step.initializer)
    out.append(m.restore_or_initialize())
    for _ in range(8):
        path = m.save()
        out.append(None if path is None else os.path.basename(path))
        sess.run(bump)
    out.append(os.path.basename(m.save(check_interval=False)))
    out.append(m.save(check_interval=False))    # same step as the last save: skipped
    again = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
    out.append([os.path.basename(p) for p in again.checkpoints])
    out.append(os.path.basename(again.restore_or_initialize()))
"""


def test_manager_interval_and_restore_match_tf(tf1, tmp_path):
    got = tf1("import os\ntf.disable_v2_behavior()\n" +
              _INTERVAL.format(d=str(tmp_path / "tf")) + "print(json.dumps(out))")
    ns = {"tf": tf, "os": os}
    with tf.Graph().as_default():
        exec(_INTERVAL.format(d=str(tmp_path / "sf")), ns)   # noqa: S102
    assert ns["out"] == got
    assert got[1:4] == ["ckpt-1", None, None]
