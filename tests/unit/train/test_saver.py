"""tf.train.Saver against TensorFlow's recorded behaviour (tests/fixtures/tf_saver)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io.protos import MetaGraphDef, VariableDef
from scopeflow.io.tensor_bundle import BundleReader
from scopeflow.train import saver as saver_module

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_saver"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
TF_CKPT = str(FIXTURES / "cnn" / "model-3")
TF_VALUES = dict(np.load(FIXTURES / "cnn" / "values.npz"))


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_saver_cases",
                                                  FIXTURES / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CASES = _load_cases()


def _listing(d):
    return sorted(f for f in os.listdir(d) if ".tempstate" not in f and ".tmp" not in f)


def _values(sess):
    return {v.op.name: sess.run(v) for v in tf.global_variables()}


# ── the graph a Saver adds ───────────────────────────────────────────────────────────
def test_cnn_saver_graph_matches_tf():
    CASES.build_training(tf)
    saver = tf.train.Saver(max_to_keep=2)
    graph = tf.get_default_graph()
    got = [[op.name, op.type, [t.name for t in op.inputs],
            sorted(c.name for c in op.control_inputs), op.device]
           for op in graph.get_operations() if op.name.startswith("save/")]
    # TF's op.control_inputs come in no particular order (its GraphDef sorts them by name).
    want = [[n, t, i, sorted(c), d] for n, t, i, c, d in EXPECTED["cnn"]["saver_nodes"]]
    assert got == want
    assert str(saver.saver_def) == EXPECTED["cnn"]["saver_def"]
    assert saver.as_saver_def() is saver.saver_def


def test_second_saver_gets_its_own_scope():
    v = tf.Variable(1.0, name="v")
    tf.train.Saver()
    s2 = tf.train.Saver({"a": v}, name="mine")
    s3 = tf.train.Saver([v])
    assert s2.saver_def.restore_op_name == "mine/restore_all"
    assert s3.saver_def.filename_tensor_name == "save_1/Const:0"
    assert s3.saver_def.save_tensor_name == "save_1/control_dependency:0"


def test_saver_def_fields():
    tf.Variable(1.0, name="v")
    s = tf.train.Saver(max_to_keep=None, keep_checkpoint_every_n_hours=2.5)
    assert s.saver_def.max_to_keep == 0
    assert s.saver_def.keep_checkpoint_every_n_hours == 2.5
    assert s.saver_def.version == 2


# ── round trips with TF's files ──────────────────────────────────────────────────────
def test_restores_tf_cnn_checkpoint_with_adam_slots():
    CASES.build_training(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.restore(sess, tf.train.latest_checkpoint(str(FIXTURES / "cnn")))
        got = _values(sess)
    assert sorted(got) == sorted(TF_VALUES) == EXPECTED["cnn"]["keys"]
    for k, v in TF_VALUES.items():
        assert got[k].dtype == v.dtype
        np.testing.assert_array_equal(got[k], v, err_msg=k)


def test_resaving_tf_checkpoint_gives_tf_bytes(tmp_path):
    CASES.build_training(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, TF_CKPT)
        path = saver.save(sess, str(tmp_path / "model"), global_step=3)
    assert path == str(tmp_path / "model-3")
    for suffix in (".index", ".data-00000-of-00001"):
        assert Path(path + suffix).read_bytes() == Path(TF_CKPT + suffix).read_bytes(), suffix


def test_training_continues_from_restored_state():
    x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
    saver = tf.train.Saver()
    images, labels = CASES.batch(seed=1)
    with tf.Session() as sess:
        saver.restore(sess, TF_CKPT)
        assert sess.run(global_step) == 3
        sess.run(train_step, {x: images, y_: labels, keep_prob: 1.0})
        assert sess.run(global_step) == 4
        assert sess.run("beta1_power:0") == pytest.approx(0.9 ** 5, rel=1e-6)


def test_save_returns_paths_and_writes_meta(tmp_path):
    CASES.build_training(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model"), global_step=tf.train.get_global_step())
        assert path == str(tmp_path / "model-0")
        step_path = saver.save(sess, str(tmp_path / "model"), global_step=np.int64(1000),
                               write_meta_graph=False)
        assert step_path == str(tmp_path / "model-1000")
    assert _listing(tmp_path) == ["checkpoint", "model-0.data-00000-of-00001", "model-0.index",
                                  "model-0.meta", "model-1000.data-00000-of-00001",
                                  "model-1000.index"]
    meta = MetaGraphDef.FromString((tmp_path / "model-0.meta").read_bytes())
    assert meta.saver_def == saver.saver_def
    assert meta.meta_info_def.tensorflow_version
    assert {"variables", "trainable_variables", "train_op", "global_step"} <= \
        set(meta.collection_def)
    names = [VariableDef.FromString(b).variable_name
             for b in meta.collection_def["variables"].bytes_list.value]
    assert names == [v.name for v in tf.global_variables()]
    w = VariableDef.FromString(meta.collection_def["trainable_variables"].bytes_list.value[0])
    assert (w.variable_name, w.initializer_name, w.snapshot_name, w.trainable) == \
        ("cnn/conv1/w:0", "cnn/conv1/w/Assign", "cnn/conv1/w/read:0", True)
    assert list(meta.collection_def["train_op"].node_list.value) == ["Adam"]
    assert {n.name for n in meta.graph_def.node} >= {"save/restore_all", "cnn/conv1/w"}


def test_global_step_tensor_and_padding(tmp_path):
    v = tf.Variable(0, name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = tf.train.Saver().save(sess, str(tmp_path / "m"), global_step=tf.constant(1000),
                                    write_state=False)
        assert os.path.basename(got) == os.path.basename(EXPECTED["states"]["global_step_tensor"])
        assert not (tmp_path / "checkpoint").exists()
        got = tf.train.Saver(pad_step_number=True).save(sess, str(tmp_path / "m"), global_step=7)
        assert got == str(tmp_path / "m-00000007")


def test_latest_filename(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    v = tf.Variable(0, name="v")
    os.makedirs("latest")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        saver.save(sess, "latest/m", latest_filename="mystate")
        assert _listing("latest") == EXPECTED["states"]["latest_filename"]
        with pytest.raises(ValueError, match="must not contain path components"):
            saver.save(sess, "latest/m", latest_filename="a/b")
        with pytest.raises(ValueError, match="'latest_filename' collides with 'save_path'"):
            saver.save(sess, "latest/checkpoint")
    assert tf.train.latest_checkpoint("latest", "mystate") == "latest/m"


def test_save_makes_one_missing_directory_level_as_tf(tmp_path):
    """TF 2.21: ``save(sess, "one/model")`` makes ``one``; two missing levels are an error."""
    tf.Variable(0, name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert saver.save(sess, str(tmp_path / "one" / "model")) == str(tmp_path / "one" /
                                                                         "model")
        assert (tmp_path / "one" / "model.index").exists()
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save"):
            saver.save(sess, str(tmp_path / "two" / "levels" / "model"))
        assert not (tmp_path / "two").exists()
        with pytest.raises(TypeError, match="'sess' must be a Session"):
            saver.save("not a session", str(tmp_path / "m"))


# ── max_to_keep, as TF deletes ───────────────────────────────────────────────────────
@pytest.mark.parametrize("scenario", CASES._keep_scenarios(), ids=lambda s: s[0])
def test_max_to_keep_listings_match_tf(scenario, tmp_path, monkeypatch):
    name, kwargs, saves, with_step = scenario
    monkeypatch.chdir(tmp_path)
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    saver = tf.train.Saver(**kwargs)
    os.makedirs(name)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, want in zip(range(1, saves + 1), EXPECTED["max_to_keep"][name]):
            sess.run(inc)
            path = saver.save(sess, f"{name}/model", global_step=step if with_step else None)
            assert path == want["path"]
            assert _listing(name) == want["files"]
            assert saver.last_checkpoints == want["last_checkpoints"]
            assert Path(f"{name}/checkpoint").read_text() == want["state"]


def test_restart_and_recover_last_checkpoints(tmp_path, monkeypatch):
    want = EXPECTED["max_to_keep"]["restarted"]
    monkeypatch.chdir(tmp_path)
    tf.Variable(0, name="v")
    os.makedirs("keep2")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = tf.train.Saver(max_to_keep=2)
        for step in range(1, 5):
            first.save(sess, "keep2/model", global_step=step)
        shutil.copytree("keep2", "keep2r")
        assert tf.train.Saver(max_to_keep=2).save(sess, "keep2/model", global_step=9) == \
            want["plain"]
        assert _listing("keep2") == want["plain_files"]
        assert Path("keep2/checkpoint").read_text() == want["plain_state"]
        ckpt = tf.train.get_checkpoint_state("keep2r")
        recovered = tf.train.Saver(max_to_keep=2)
        recovered.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths) + ["gone/x"])
        assert recovered.last_checkpoints == want["recovered_last"]
        assert recovered.save(sess, "keep2r/model", global_step=10) == want["recovered"]
        assert _listing("keep2r") == want["recovered_files"]


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(saver_module.time, "time", lambda: clock[0])
    tf.Variable(0, name="v")
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, t in [(1, 1010), (2, 4700), (3, 4800), (4, 4900), (5, 8700), (6, 8800)]:
            clock[0] = t
            saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    # Save times past construction + 1h, + 2h... are kept: steps 2 (4700 > 4600) and 5.
    assert _listing(tmp_path) == ["checkpoint"] + [
        f"m-{s}.{ext}" for s in (2, 5, 6) for ext in ("data-00000-of-00001", "index")]


def test_set_last_checkpoints(tmp_path):
    tf.Variable(0, name="v")
    saver = tf.train.Saver(max_to_keep=1)
    saver.set_last_checkpoints([str(tmp_path / "old")])
    assert saver.last_checkpoints == [str(tmp_path / "old")]
    saver.set_last_checkpoints_with_time([(str(tmp_path / "older"), 5.0)])
    assert saver.last_checkpoints == [str(tmp_path / "older")]
    for f in ("older.index", "older.data-00000-of-00001", "older.meta"):
        (tmp_path / f).write_bytes(b"")
        (tmp_path / f.replace("older", "new-3")).write_bytes(b"")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "new"))
        # Not one of this Saver's names (new, new-<step>): kept, where TF deletes it.
        assert (tmp_path / "older.index").exists()
        saver.set_last_checkpoints_with_time([(str(tmp_path / "new-3"), 5.0)])
        saver.save(sess, str(tmp_path / "new"))
    assert not (tmp_path / "new-3.index").exists()  # dropped past max_to_keep: deleted
    assert not (tmp_path / "new-3.data-00000-of-00001").exists()
    with pytest.raises(TypeError):
        saver.set_last_checkpoints("not a list")


# ── var_list forms (seed 000 and 003) ────────────────────────────────────────────────
@pytest.mark.parametrize("form", sorted(CASES.PARTIAL))
def test_partial_savers_write_tf_keys(form, tmp_path):
    v1, v2 = CASES.partial_variables(tf)
    saver = CASES.PARTIAL[form](tf, v1, v2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model"))
        names = tf.get_default_graph().get_tensor_by_name("save/SaveV2/tensor_names:0")
        assert [s.decode() for s in names.op.get_attr("value")] == \
            EXPECTED["partial"][form]["tensor_names"]
    with BundleReader(path) as reader:
        assert reader.keys() == EXPECTED["partial"][form]["keys"]
    tf.reset_default_graph()
    v1, v2 = CASES.partial_variables(tf)
    with tf.Session() as sess:
        sess.run([v1.assign([0.0, 0.0]), v2.initializer])
        sess.run(v2.assign([[0, 0]]))
        CASES.PARTIAL[form](tf, v1, v2).restore(sess, path)
        np.testing.assert_array_equal(sess.run(v1), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v2), [[3, 4]])


def test_restore_only_conv1_variables():
    CASES.build_training(tf)
    net_var = [v for v in tf.global_variables() if "conv1" in v.name]
    assert sorted(v.op.name for v in net_var) == EXPECTED["partial"]["conv1"]["saver_vars"]
    saver = tf.train.Saver(net_var)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = _values(sess)
        report = saver.restore(sess, TF_CKPT, report=True)
        after = _values(sess)
    changed = sorted(k for k in after if not np.array_equal(before[k], after[k]))
    assert changed == EXPECTED["partial"]["conv1"]["changed"]
    assert report.restored == EXPECTED["partial"]["conv1"]["saver_vars"]
    assert report.unused == sorted(set(EXPECTED["cnn"]["keys"]) - set(report.restored))
    assert "6 of 6 variables restored" in str(report)
    assert "unused checkpoint keys (21)" in str(report)


@pytest.mark.parametrize("case", sorted(CASES.BAD_VAR_LISTS))
def test_var_list_errors_match_tf(case):
    kind, message = EXPECTED["errors"][case]
    with pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[kind]) as info:
        CASES.BAD_VAR_LISTS[case](tf)
    assert str(info.value) == message


def test_allow_empty_and_defer_build(tmp_path):
    saver = tf.train.Saver(allow_empty=True)
    with tf.Session() as sess:
        assert saver.save(sess, str(tmp_path / "m")) is None
        assert saver.restore(sess, str(tmp_path / "m")) is None
    v = tf.Variable(1.0, name="v")
    deferred = tf.train.Saver(defer_build=True)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(RuntimeError, match="`build\\(\\)` should be called before save"):
            deferred.save(sess, str(tmp_path / "m"))
        deferred.build()
        assert deferred.save(sess, str(tmp_path / "m")) == str(tmp_path / "m")
    with pytest.raises(ValueError, match="build cannot be deferred"):
        tf.train.Saver([v], defer_build=True)


def test_saver_from_saver_def(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    first = tf.train.Saver()
    again = tf.train.Saver(saver_def=first.saver_def)
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = again.save(sess, str(tmp_path / "m"))
        sess.run(v.assign([5.0, 6.0]))
        report = again.restore(sess, path, report=True)
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
    assert report.restored == ["v"]
    with pytest.raises(ValueError, match="must specify the restore_op_name"):
        tf.train.Saver(saver_def=tf.train.Saver().saver_def.__class__(save_tensor_name="x"))


def test_reshape_restores_other_shapes(tmp_path):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="shape mismatch"):
            tf.train.Saver().restore(sess, path)
        tf.train.Saver(reshape=True).restore(sess, path)
        np.testing.assert_array_equal(sess.run(v), np.arange(6).reshape(3, 2))


def test_string_and_scalar_variables(tmp_path):
    s = tf.Variable(tf.constant([b"alpha", b"", "gamma"]), name="s")
    i = tf.Variable(np.int64(-7), name="i")
    b = tf.Variable([True, False], name="b")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
    with tf.Session() as sess:
        saver.restore(sess, path)
        assert list(sess.run(s)) == [b"alpha", b"", b"gamma"]
        assert sess.run(i) == -7
        np.testing.assert_array_equal(sess.run(b), [True, False])


# ── restore checks everything first ──────────────────────────────────────────────────
@pytest.mark.parametrize("case", sorted(CASES.RESTORE_MISTAKES))
def test_restore_errors_keep_tf_class_and_phrases(case):
    kind, tf_prefix, tf_kernel_message = EXPECTED["errors"]["restore"][case]
    CASES.RESTORE_MISTAKES[case](tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = _values(sess)
        with pytest.raises(getattr(tf.errors, kind)) as info:
            saver.restore(sess, TF_CKPT)
        after = _values(sess)
    message = str(info.value)
    assert message.startswith(tf_prefix + "Original error:\n\n" + tf_kernel_message), message
    assert "nothing was restored" in message
    for k in before:  # nothing was assigned
        np.testing.assert_array_equal(before[k], after[k])


def test_restore_lists_every_problem_with_fixes():
    CASES.RESTORE_MISTAKES["model_prefix"](tf)
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as info:
        tf.train.Saver().restore(sess, TF_CKPT)
    message = str(info.value)
    assert "missing from the checkpoint (8):" in message
    assert "model/cnn/fc2/w: float32 [8,10], created at" in message
    assert "the missing names are without the 'model/' prefix in the checkpoint" in message
    assert "tf.train.init_from_checkpoint(path, {'/': 'model/'})" in message
    assert info.value.op.name == "save/RestoreV2"


def test_restore_mixed_problems_in_one_error(tmp_path):
    a = tf.Variable([1.0, 2.0], name="a")
    tf.Variable(3, name="b")
    tf.Variable(0.5, name="c")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    a = tf.Variable([9.0, 9.0, 9.0], name="a")
    tf.Variable(3.0, name="b")
    tf.Variable(0.5, name="c")
    tf.Variable(0.5, name="d")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.NotFoundError) as info:
            tf.train.Saver().restore(sess, path)
        message = str(info.value)
        assert "Key d not found in checkpoint" in message
        assert "dtype mismatch (1):\n    b: the variable is float32, the checkpoint has int32" \
            in message
        assert "shape mismatch (1):\n    a: the variable has shape [3], the checkpoint [2]" \
            in message
        np.testing.assert_array_equal(sess.run(a), [9.0, 9.0, 9.0])
        report = tf.train.Saver().preview(path)
        assert (report.ok, report.restored, report.missing) == (False, ["c"], ["d"])


def test_checkpoint_without_optimizer_state(tmp_path):
    x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver(tf.trainable_variables()).save(sess, str(tmp_path / "m"))
        with pytest.raises(tf.errors.NotFoundError) as info:
            tf.train.Saver().restore(sess, path)
        message = str(info.value)
        assert "saved without optimizer state (18 optimizer variables such as " \
            "'cnn/conv1/b/Adam' are absent)" in message
        assert "tf.train.Saver(var_list=tf.trainable_variables())" in message
        assert "(also missing: global_step)" in message
        tf.train.Saver(var_list=tf.trainable_variables()).restore(sess, path)


def test_rerun_model_code_suggests_reset(tmp_path):
    with tf.variable_scope("dense"):
        tf.get_variable("kernel", [2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    tf.Variable(1.0, name="dense")   # the second build got "dense_1"
    with tf.variable_scope("dense_1"):
        tf.get_variable("kernel", [2])
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="reset_default_graph"):
        tf.train.Saver(tf.trainable_variables()[1:]).restore(sess, path)


@pytest.mark.parametrize("path,what", [
    (TF_CKPT + ".index", "it is the checkpoint's .index file; pass the prefix without the "
     f"extension: {TF_CKPT!r}"),
    (TF_CKPT + ".data-00000-of-00001", "it is the checkpoint's .data-00000-of-00001 file"),
    (str(FIXTURES / "cnn"), f"it is a directory. Pass a checkpoint prefix, e.g. "
     f"tf.train.latest_checkpoint({str(FIXTURES / 'cnn')!r}) (= {TF_CKPT!r})"),
    (TF_CKPT + "-404", f"no file '<path>.index' exists; the newest checkpoint in "
     f"{str(FIXTURES / 'cnn')!r} is {TF_CKPT!r}"),
    (str(FIXTURES / "make_fixtures.py"), "it is a file but not a V2 checkpoint prefix"),
])
def test_restore_path_errors(path, what):
    CASES.build_training(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess, pytest.raises(ValueError) as info:
        saver.restore(sess, path)
    assert str(info.value).startswith(f"The passed save_path is not a valid checkpoint: {path}")
    assert what in str(info.value)


def test_restore_none_path():
    tf.Variable(1.0, name="v")
    with tf.Session() as sess, pytest.raises(ValueError, match="Can't load save_path when"):
        tf.train.Saver().restore(sess, None)


def test_corrupt_checkpoint_is_data_loss_and_assigns_nothing(tmp_path):
    a = tf.Variable(np.arange(4, dtype=np.float32), name="a")
    b = tf.Variable(np.arange(4, dtype=np.float32), name="b")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
        data = Path(path + ".data-00000-of-00001")
        raw = bytearray(data.read_bytes())
        raw[-1] ^= 0xFF  # inside "b" (saved after "a")
        data.write_bytes(bytes(raw))
        sess.run([a.assign(np.zeros(4, np.float32)), b.assign(np.zeros(4, np.float32))])
        with pytest.raises(tf.errors.DataLossError) as info:
            saver.restore(sess, path)
        assert "b" in str(info.value) and "data-00000-of-00001" in str(info.value)
        np.testing.assert_array_equal(sess.run(a), np.zeros(4))


def test_seed_003_saver_built_in_the_loop(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("backup")
    x, y_, keep_prob, train_step, global_step = CASES.build_training(tf)
    images, labels = CASES.batch()
    sess = tf.InteractiveSession()
    try:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            train_step.run(feed_dict={x: images, y_: labels, keep_prob: 0.5})
            saver = tf.train.Saver()
            saver.save(sess, "backup/latest")
        want = _values(sess)
        assert saver.saver_def.restore_op_name == "save_2/restore_all"
        sess.run(tf.global_variables_initializer())
        if tf.train.get_checkpoint_state("backup/"):
            tf.train.Saver().restore(sess, "backup/latest")
        got = _values(sess)
    finally:
        sess.close()
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    assert _listing("backup") == ["checkpoint", "latest.data-00000-of-00001", "latest.index",
                                  "latest.meta"]


# ── sharded=True ─────────────────────────────────────────────────────────────────────
def _saver_nodes():
    return [[op.name, op.type, [t.name for t in op.inputs],
             sorted(c.name for c in op.control_inputs), op.device]
            for op in tf.get_default_graph().get_operations() if op.name.startswith("save/")]


# As the fixtures' maker: three CPUs for the variables pinned to /cpu:1 and /cpu:2 (with
# one, TF's placer refuses those devices).
_SHARDED_CONFIG = tf.ConfigProto(device_count={"CPU": 3})


@pytest.mark.parametrize("case", sorted(CASES.SHARDED))
def test_sharded_saver_graph_and_files_match_tf(case, tmp_path):
    want = EXPECTED["sharded"][case]
    CASES.SHARDED[case](tf)
    saver = tf.train.Saver(sharded=True)
    got_nodes = _saver_nodes()
    if case == "three_devices":
        # TF's group() adds one NoOp per device under save/restore_all/ (NoOp, NoOp_1...);
        # scopeflow's group() makes save/restore_all depend on the shards directly.
        want_nodes = [n for n in want["nodes"] if not n[0].startswith("save/restore_all")]
        got_nodes = [n for n in got_nodes if not n[0].startswith("save/restore_all")]
    else:
        want_nodes = want["nodes"]
    assert got_nodes == want_nodes
    assert str(saver.saver_def) == want["saver_def"]
    os.makedirs(tmp_path / f"sharded_{case}")
    with tf.Session(config=_SHARDED_CONFIG) as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / f"sharded_{case}" / "model"), global_step=3)
        assert _listing(os.path.dirname(path)) == want["files"]
        for v in tf.global_variables():
            sess.run(v.assign(tf.zeros_like(v)))
        saver.restore(sess, path)
        for v in tf.global_variables():
            np.testing.assert_array_equal(sess.run(v), want["values"][v.op.name])
    if case == "one_device":
        for suffix in (".index", ".data-00000-of-00001"):
            assert Path(path + suffix).read_bytes() == \
                (FIXTURES / "sharded" / ("model-3" + suffix)).read_bytes()


def test_sharded_save_leaves_no_temporary_directory(tmp_path):
    CASES.SHARDED["three_devices"](tf)
    saver = tf.train.Saver(sharded=True, max_to_keep=1)
    with tf.Session(config=_SHARDED_CONFIG) as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "m"), global_step=1)
        os.makedirs(tmp_path / "m-2_temp")  # as left by a save killed before its merge
        (tmp_path / "m-2_temp" / "part-00000-of-00003.index").write_bytes(b"torn")
        saver.save(sess, str(tmp_path / "m"), global_step=2)
    assert _listing(tmp_path) == ["checkpoint"] + [
        f"m-2.{ext}" for ext in ("data-00000-of-00003", "data-00001-of-00003",
                                 "data-00002-of-00003", "index", "meta")]


def test_object_based_checkpoint_hint(tmp_path):
    from scopeflow.io.tensor_bundle import write_bundle
    prefix = str(tmp_path / "ckpt-1")
    write_bundle(prefix, ["_CHECKPOINTABLE_OBJECT_GRAPH", "dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"],
                 [np.array(b"graph", dtype=object), np.ones(3, np.float32)])
    v = tf.Variable(np.zeros(3, np.float32), name="dense/kernel")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.NotFoundError, match="TF2 object-based checkpoint"):
            tf.train.Saver().restore(sess, prefix)
        tf.train.Saver({"dense/kernel/.ATTRIBUTES/VARIABLE_VALUE": v}).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(v), np.ones(3))


def test_weights_kernel_alias_hint_and_state_proto_argument(tmp_path):
    with tf.variable_scope("dense"):
        w = tf.get_variable("weights", [2])
        tf.get_variable("biases", [1])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
        with pytest.raises(TypeError, match=r"pass its \.model_checkpoint_path"):
            tf.train.Saver([w]).restore(sess, tf.train.get_checkpoint_state(str(tmp_path)))
    tf.reset_default_graph()
    with tf.variable_scope("dense"):
        tf.get_variable("kernel", [2])
        tf.get_variable("bias", [1])
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as info:
        tf.train.Saver().restore(sess, path)
    assert "2 missing names exist in the checkpoint under the other name of the same " \
        "parameter (e.g. 'dense/bias' is 'dense/biases'" in str(info.value)


def test_saver_for_a_graph_that_is_not_the_default(tmp_path):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0], name="v")
    saver = tf.train.Saver([v])  # built in v's graph, while another graph is the default
    assert g.get_operation_by_name("save/restore_all") is not None
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
        sess.run(v.assign([3.0]))
        saver.restore(sess, path)
        assert sess.run(v) == [1.0]
