"""tf.train.load_checkpoint / list_variables / load_variable / init_from_checkpoint vs TF."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors
from scopeflow.io.tensor_bundle import write_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_checkpoints"
SAVER = FIXTURES / "saver"


def test_reader_of_a_tf_saver_checkpoint():
    reader = tf.train.load_checkpoint(SAVER / "model-5")
    assert reader.get_variable_to_shape_map() == {
        "global_step": [], "label": [], "model/counts": [2, 2], "model/f64": [2],
        "model/layer1/bias": [4], "model/layer1/weights": [3, 4], "model/mask": [3],
        "names": [3]}
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["global_step"] == tf.int64 and dtypes["names"] == tf.string
    assert dtypes["model/mask"] == tf.bool and dtypes["model/f64"] == tf.float64
    assert reader.has_tensor("label") and not reader.has_tensor("label:0")
    # Scalars come back as NumPy scalars and a string scalar as bytes, as TF's reader.
    step = reader.get_tensor("global_step")
    assert type(step) is np.int64 and step == 5
    assert reader.get_tensor("label") == b"a label"
    assert reader.get_tensor("names").tolist() == [b"cat", b"", b"dog\x00"]
    np.testing.assert_array_equal(reader.get_tensor("model/layer1/weights"),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))
    assert reader.debug_string().startswith(
        b"global_step (DT_INT64) []\nlabel (DT_STRING) []\nmodel/counts (DT_INT32) [2,2]\n")


def test_directory_resolves_through_the_state_file():
    assert tf.train.list_variables(SAVER)[:2] == [("global_step", []), ("label", [])]
    assert tf.train.load_variable(SAVER, "global_step:0") == 5     # ':0' ignored, as TF
    assert tf.train.NewCheckpointReader(str(SAVER / "model-5")).has_tensor("names")


def test_missing_key_suggests_names():
    reader = tf.train.load_checkpoint(SAVER / "model-5")
    with pytest.raises(errors.NotFoundError, match=r"Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(errors.NotFoundError, match=r"Did you mean 'label'\?"):
        reader.get_tensor("label:0")
    with pytest.raises(errors.NotFoundError, match=r"Did you mean 'model/layer1/bias'"):
        reader.get_tensor("model/layer1/biass")


def test_path_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="Unsuccessful TensorSliceReader constructor: "
                       "Failed to find any matching files for .*nothere"):
        tf.train.load_checkpoint(tmp_path / "nothere")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in "
                       "given directory"):
        tf.train.load_checkpoint(tmp_path)
    write_bundle(tmp_path / "orphan-3", ["x"], [np.zeros(1)])
    with pytest.raises(ValueError, match="holds the checkpoints orphan-3, but no state file"):
        tf.train.list_variables(tmp_path)
    with pytest.raises(errors.InvalidArgumentError, match="pass the checkpoint prefix"):
        tf.train.load_checkpoint(SAVER / "model-5.index")
    with pytest.raises(errors.InvalidArgumentError, match="is the data file of the checkpoint"):
        tf.train.load_checkpoint(SAVER / "model-5.data-00000-of-00001")


# ── init_from_checkpoint ─────────────────────────────────────────────────────────────
@pytest.fixture
def old_ckpt(tmp_path):
    prefix = tmp_path / "old"
    write_bundle(prefix, ["old/layer/w", "old/layer/b", "top", "count"],
                 [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones(3, np.float32),
                  np.float32(3.0), np.int64(9)])
    return prefix


def _new_layer(scope="new/layer"):
    with tf.variable_scope(scope):
        return [tf.get_variable("w", [2, 3]), tf.get_variable("b", [3])]


def _init_values(variables):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [sess.run(v).tolist() for v in variables]


def test_scope_to_scope_builds_tfs_ops(old_ckpt):
    w, b = _new_layer()
    graph = tf.get_default_graph()
    before = len(graph.get_operations())
    tf.train.init_from_checkpoint(str(old_ckpt), {"old/layer/": "new/layer/"})
    new = [(op.name, op.type) for op in graph.get_operations()[before:]]
    # As TF: variables in name order (b before w), a RestoreV2 and an Assign each.
    assert new == [
        ("checkpoint_initializer/prefix", "Const"),
        ("checkpoint_initializer/tensor_names", "Const"),
        ("checkpoint_initializer/shape_and_slices", "Const"),
        ("checkpoint_initializer", "RestoreV2"), ("Assign", "Assign"),
        ("checkpoint_initializer_1/prefix", "Const"),
        ("checkpoint_initializer_1/tensor_names", "Const"),
        ("checkpoint_initializer_1/shape_and_slices", "Const"),
        ("checkpoint_initializer_1", "RestoreV2"), ("Assign_1", "Assign")]
    assert w.initial_value.name == "checkpoint_initializer_1:0"
    assert w.initial_value.shape.as_list() == [2, 3]
    assert w.initializer.name == "Assign_1"
    assert _init_values([w, b]) == [[[0, 1, 2], [3, 4, 5]], [1, 1, 1]]


def test_one_variable_by_name_or_object(old_ckpt):
    w, b = _new_layer()
    tf.train.init_from_checkpoint(old_ckpt, {"old/layer/w": "new/layer/w"})
    plain = tf.Variable(np.zeros(3, np.float32), name="plain")
    tf.train.init_from_checkpoint(old_ckpt, [("old/layer/b", plain)])
    w_val, b_val, plain_val = _init_values([w, b, plain])
    assert w_val == [[0, 1, 2], [3, 4, 5]] and plain_val == [1, 1, 1]
    assert b_val != [1, 1, 1]      # untouched: its own random initializer


def test_root_mappings(old_ckpt):
    with tf.variable_scope("x"):
        top = tf.get_variable("top", [])
    tf.train.init_from_checkpoint(old_ckpt, {"/": "x/"})
    with tf.variable_scope("y"):
        layer = _new_layer("layer")
    tf.train.init_from_checkpoint(old_ckpt, {"old/": "y/"})
    assert _init_values([top] + layer) == [3.0, [[0, 1, 2], [3, 4, 5]], [1, 1, 1]]


def test_directory_argument_uses_the_latest_checkpoint(tmp_path, old_ckpt):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "old"\n')
    w, b = _new_layer()
    tf.train.init_from_checkpoint(str(tmp_path), {"old/layer/": "new/layer/"})
    assert w.initial_value.op.inputs[0].op.get_attr("value") is not None
    assert _init_values([b]) == [[1, 1, 1]]


@pytest.mark.parametrize("amap, match", [
    ({"old/layer/zz": "new/layer/w"}, "Tensor old/layer/zz is not found in .* checkpoint"),
    ({"old/other/": "new/layer/"},
     r"Tensor old/other/b \(b in old/other/\) is not found"),
    ({"old/layer": "new/layer/"}, "Assignment map with scope only name new/layer should map "
     "to scope only old/layer. Should be 'scope/': 'other_scope/'."),
    ({"old/layer/w": "new/layer/b"}, r"Shape of variable new/layer/b:0 \(\(3,\)\) doesn't "
     r"match with shape of tensor old/layer/w \(\[2, 3\]\)"),
    ({"old/": "nothing/"}, "matched no variable"),
])
def test_bad_maps_raise_before_changing_anything(old_ckpt, amap, match):
    w, b = _new_layer()
    initializers = (w.initializer, b.initializer)
    with pytest.raises(ValueError, match=match):
        tf.train.init_from_checkpoint(old_ckpt, dict(amap, **{"top": "new/layer/w"}))
    assert (w.initializer, b.initializer) == initializers


def test_dtype_mismatch_is_caught_at_build_time(old_ckpt):
    count = tf.get_variable("count", [], dtype=tf.int32)
    with pytest.raises(ValueError, match=r"Dtype of variable count:0 \(int32\) doesn't match "
                       r"with dtype of tensor count \(int64\)"):
        tf.train.init_from_checkpoint(old_ckpt, {"count": count})


@pytest.mark.tf
def test_tensorflow_initializes_from_a_scopeflow_checkpoint_like_scopeflow(tf1, tmp_path):
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    with tf.variable_scope("old/layer"):
        w = tf.get_variable("w", initializer=w0)
        tf.get_variable("b", initializer=np.full(3, 0.25, np.float32))
    ckpt_dir = tmp_path / "ck"
    ckpt_dir.mkdir()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, str(ckpt_dir / "model"), global_step=7)
    got = tf1(f"""
        with tf.variable_scope("new"):
            w = tf.get_variable("w", [2, 3]); b = tf.get_variable("b", [3])
        tf.train.init_from_checkpoint({str(ckpt_dir)!r}, {{"old/layer/": "new/"}})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print(json.dumps([sess.run(w).tolist(), sess.run(b).tolist(),
                              tf.train.list_variables({str(ckpt_dir)!r})]))
    """)
    tf.reset_default_graph()
    with tf.variable_scope("new"):
        nw, nb = tf.get_variable("w", [2, 3]), tf.get_variable("b", [3])
    tf.train.init_from_checkpoint(str(ckpt_dir), {"old/layer/": "new/"})
    assert got[:2] == _init_values([nw, nb])
    assert got[0] == w0.tolist()
    assert [tuple(v) for v in got[2]] == tf.train.list_variables(ckpt_dir)
    del w
    shutil.rmtree(ckpt_dir)
