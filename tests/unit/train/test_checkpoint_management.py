"""The ``checkpoint`` state file and path helpers, checked against TensorFlow's bytes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.train import checkpoint_management as cm

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_saver"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _touch(*paths):
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)
        Path(p).write_bytes(b"x")


def test_state_file_bytes_match_tf(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("cnn")
    cm.update_checkpoint_state_internal("cnn", "cnn/model-3", ["cnn/model-2", "cnn/model-3"])
    assert Path("cnn/checkpoint").read_text() == EXPECTED["cnn"]["state_file"]
    os.makedirs("keep2")
    for step in EXPECTED["max_to_keep"]["keep2"]:
        cm.update_checkpoint_state_internal("keep2", step["path"], step["last_checkpoints"])
        assert Path("keep2/checkpoint").read_text() == step["state"]


def test_absolute_directory_gets_relative_paths(tmp_path):
    # TF1 writes absolute paths here (EXPECTED["states"]["absolute"]); scopeflow writes them
    # relative, as TF does with save_relative_paths=True, so the directory can move.
    d = tmp_path / "abs"
    d.mkdir()
    cm.update_checkpoint_state_internal(str(d), str(d / "m-1"), [str(d / "m-1")])
    assert (d / "checkpoint").read_text() == EXPECTED["states"]["absolute_relative"]
    assert EXPECTED["states"]["absolute"].startswith('model_checkpoint_path: "<WORK>/abs/m-1"')
    _touch(d / "m-1.index")
    moved = tmp_path / "moved"
    shutil.move(str(d), str(moved))
    assert tf.train.latest_checkpoint(str(moved)) == str(moved / "m-1")


def test_paths_outside_the_directory_stay_absolute(tmp_path):
    d, other = tmp_path / "d", tmp_path / "other"
    d.mkdir()
    cm.update_checkpoint_state_internal(str(d), str(d / "m-2"), [str(other / "m-1")])
    state = tf.train.get_checkpoint_state(str(d))
    assert list(state.all_model_checkpoint_paths) == [str(other / "m-1"), str(d / "m-2")]
    assert f'"{other / "m-1"}"' in (d / "checkpoint").read_text()
    cm.update_checkpoint_state_internal(str(d), str(d / "m-2"), [str(other / "m-1")],
                                        save_relative_paths=True)
    assert '"../other/m-1"' in (d / "checkpoint").read_text()


def test_get_checkpoint_state_resolves_relative_paths(tmp_path):
    d = tmp_path / "ck"
    d.mkdir()
    (d / "checkpoint").write_text('model_checkpoint_path: "model-5"\n'
                                  'all_model_checkpoint_paths: "model-4"\n'
                                  'all_model_checkpoint_paths: "/abs/model-5"\n')
    state = tf.train.get_checkpoint_state(str(d))
    assert state.model_checkpoint_path == os.path.join(str(d), "model-5")
    assert list(state.all_model_checkpoint_paths) == [os.path.join(str(d), "model-4"),
                                                      "/abs/model-5"]
    assert tf.train.get_checkpoint_state(str(d), latest_filename="other") is None
    assert tf.train.get_checkpoint_state(str(tmp_path / "missing")) is None


def test_get_checkpoint_state_bad_files(tmp_path, caplog):
    (tmp_path / "checkpoint").write_text("this is { not a proto")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert "Checkpoint ignored" in caplog.text
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "m"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.get_checkpoint_state(str(tmp_path))


def test_latest_checkpoint_needs_the_index(tmp_path, caplog):
    cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "model-7"))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert "Couldn't match files for checkpoint" in caplog.text
    _touch(tmp_path / "model-7.data-00000-of-00001")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    _touch(tmp_path / "model-7.index")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model-7")
    assert tf.train.latest_checkpoint(str(tmp_path / "nothing")) is None


def test_fixture_state_file_from_tf(tmp_path):
    assert tf.train.latest_checkpoint(str(FIXTURES / "cnn")) == str(FIXTURES / "cnn" / "model-3")
    state = tf.train.get_checkpoint_state(str(FIXTURES / "cnn"))
    # model-2 is listed but was not committed to the fixture directory.
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == \
        ["model-2", "model-3"]


def test_checkpoint_exists_and_mtimes(tmp_path):
    prefix = str(tmp_path / "m")
    assert not tf.train.checkpoint_exists(prefix)
    assert tf.train.get_checkpoint_mtimes([prefix]) == []
    _touch(prefix + ".index")
    assert tf.train.checkpoint_exists(prefix)
    os.utime(prefix + ".index", (1000, 1234.5))
    assert tf.train.get_checkpoint_mtimes([prefix, str(tmp_path / "gone")]) == [1234.5]
    v1 = str(tmp_path / "v1file")  # a V1 checkpoint is the prefix file itself
    _touch(v1)
    assert tf.train.checkpoint_exists(v1)


def test_remove_checkpoint_deletes_all_its_files(tmp_path):
    prefix = str(tmp_path / "model-3")
    keep = [tmp_path / "model-30.index", tmp_path / "model-3x.meta", tmp_path / "checkpoint"]
    files = [prefix + ".index", prefix + ".meta", prefix + ".data-00000-of-00002",
             prefix + ".data-00001-of-00002"]
    _touch(*files, *keep)
    deleted = tf.train.remove_checkpoint(prefix)
    assert sorted(deleted) == sorted(files)
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in keep)
    assert tf.train.remove_checkpoint(prefix) == []


def test_meta_graph_filename():
    assert cm.meta_graph_filename("ckpt/model-5") == "ckpt/model-5.meta"
    assert cm.meta_graph_filename("model-00000-of-00002", "txt") == "model.txt"


def test_generate_checkpoint_state_proto():
    ckpt = tf.train.generate_checkpoint_state_proto(
        "ckpt", "ckpt/model-5", ["ckpt/model-4"], all_model_checkpoint_timestamps=[1.0, 2.5],
        last_preserved_timestamp=0.5)
    assert str(ckpt) == ('model_checkpoint_path: "model-5"\n'
                         'all_model_checkpoint_paths: "model-4"\n'
                         'all_model_checkpoint_paths: "model-5"\n'
                         "all_model_checkpoint_timestamps: 1\n"
                         "all_model_checkpoint_timestamps: 2.5\n"
                         "last_preserved_timestamp: 0.5\n")
    with pytest.raises(ValueError, match="timestamps"):
        tf.train.generate_checkpoint_state_proto("d", "d/m", [], [1.0, 2.0])


def test_state_path_conflict(tmp_path):
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        cm.update_checkpoint_state_internal("", "checkpoint")


def test_state_file_write_is_atomic(tmp_path, monkeypatch):
    d = str(tmp_path)
    cm.update_checkpoint_state(d, os.path.join(d, "model-1"))
    before = (tmp_path / "checkpoint").read_text()

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        cm.update_checkpoint_state(d, os.path.join(d, "model-2"))
    monkeypatch.undo()
    assert (tmp_path / "checkpoint").read_text() == before
    assert os.listdir(d) == ["checkpoint"]  # the temporary file was removed


@pytest.mark.tf
def test_tf_reads_scopeflow_state_files(tf1, tmp_path):
    d = tmp_path / "ck"
    d.mkdir()
    _touch(d / "model-4.index", d / "model-5.index")
    cm.update_checkpoint_state_internal(str(d), str(d / "model-5"),
                                        [str(d / "model-4"), str(d / "model-5")])
    got = tf1(f"""
        s = tf.train.get_checkpoint_state({str(d)!r})
        print(json.dumps([tf.train.latest_checkpoint({str(d)!r}),
                          list(s.all_model_checkpoint_paths)]))
    """)
    assert got == [str(d / "model-5"), [str(d / "model-4"), str(d / "model-5")]]


@pytest.mark.tf
def test_timestamps_text_matches_tf(tf1, tmp_path):
    args = dict(all_model_checkpoint_timestamps=[1796012911.0510597, 1796012912.25],
                last_preserved_timestamp=1796012909.9686677)
    tf_dir = tmp_path / "tf"
    tf_dir.mkdir()
    tf1(f"""
        from tensorflow.python.checkpoint import checkpoint_management as cm
        cm.update_checkpoint_state_internal({str(tf_dir)!r}, 'model-2', ['model-1', 'model-2'],
                                            save_relative_paths=True, **{args!r})
        print(json.dumps(None))
    """)
    cm.update_checkpoint_state_internal(str(tmp_path), "model-2", ["model-1", "model-2"],
                                        **args)
    assert (tmp_path / "checkpoint").read_bytes() == (tf_dir / "checkpoint").read_bytes()
