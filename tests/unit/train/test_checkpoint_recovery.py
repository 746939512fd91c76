"""Recovering from damage in a checkpoint directory: a damaged ``checkpoint`` state file is
ignored with a warning, ``find_complete_checkpoints`` finds the intact checkpoints on disk,
``remove_stale_temporaries`` clears what killed saves left behind."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io import atomic, protos, sstable, tensor_bundle
from scopeflow.train import checkpoint_management as cm


# ── the state file ───────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("content", [
    b"",                                    # TF 2.21: ValueError (Invalid checkpoint state)
    b" \n\t\n",
    bytes(range(256)) * 3,                  # TF 2.21: UnicodeDecodeError
    b'model_checkpoint_path: "\xff\xfe"\n',
    b"\0" * 64,
    b'model_checkpoint_path: "mod',         # cut short (TF: ParseError, ignored)
    b'model_checkpoint_path: "m"\n{{{',
], ids=["empty", "blank", "binary", "not-utf8", "nul", "truncated", "trailing-garbage"])
def test_damaged_state_file_is_ignored_with_a_warning(tmp_path, caplog, content):
    (tmp_path / "checkpoint").write_bytes(content)
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert f"{tmp_path / 'checkpoint'}: Checkpoint ignored" in caplog.text


def test_huge_state_file_is_not_read_into_memory(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(cm, "_MAX_STATE_FILE_BYTES", 100)
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "m"\n' * 10)
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert "larger than 100 bytes" in caplog.text


def test_state_file_naming_no_checkpoint_still_raises_as_tf(tmp_path):
    # Parsed, but without model_checkpoint_path: TF's ValueError, kept (no crash makes it).
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "m"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.get_checkpoint_state(str(tmp_path))


# ── find_complete_checkpoints ────────────────────────────────────────────────────────
def _save_steps(directory, steps):
    graph = tf.Graph()
    with graph.as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        tf.Variable(np.array([b"a", b"bc"], dtype=object), name="s")
        saver = tf.train.Saver(max_to_keep=None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [saver.save(sess, str(directory / "model"), global_step=step)
                    for step in steps]


def test_find_complete_checkpoints_newest_intact_first(tmp_path):
    p1, p2, p10, p11, p12 = _save_steps(tmp_path, [1, 2, 10, 11, 12])
    assert cm.find_complete_checkpoints(str(tmp_path)) == [p12, p11, p10, p2, p1]  # 10 > 2
    # A truncated data file, a damaged index, a missing data file, a missing index.
    data = tensor_bundle.data_filename(p12)
    with open(data, "r+b") as f:
        f.truncate(os.path.getsize(data) - 1)
    index = bytearray(open(p11 + ".index", "rb").read())
    index[10] ^= 4
    open(p11 + ".index", "wb").write(bytes(index))
    os.remove(tensor_bundle.data_filename(p2))
    os.remove(p1 + ".index")
    assert cm.find_complete_checkpoints(tmp_path) == [p10]
    # The intended use: the state file is damaged, restore from the newest intact one.
    (tmp_path / "checkpoint").write_bytes(b"\x00\xff garbage")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    reader = tf.train.NewCheckpointReader(cm.find_complete_checkpoints(tmp_path)[0])
    np.testing.assert_array_equal(reader.get_tensor("w"),
                                  np.arange(6, dtype=np.float32).reshape(2, 3))


def test_find_complete_checkpoints_needs_every_shard_and_orders_unstepped_by_mtime(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    tensor_bundle.write_bundle(a, ["x"], [np.zeros(3)])
    tensor_bundle.write_bundle(b, ["x"], [np.zeros(3)])
    (stepped,) = _save_steps(tmp_path, [3])
    now = time.time()
    os.utime(a + ".index", (now, now))
    os.utime(b + ".index", (now - 100, now - 100))
    assert cm.find_complete_checkpoints(tmp_path) == [stepped, a, b]
    # An index that claims two shards when only one data file exists.
    entries = sstable.parse_table(open(b + ".index", "rb").read())
    header = protos.BundleHeaderProto.FromString(entries[0][1])
    header.num_shards = 2
    entries[0] = (b"", header.SerializeToString())
    open(b + ".index", "wb").write(sstable.build_table(entries))
    assert cm.find_complete_checkpoints(tmp_path) == [stepped, a]
    assert cm.find_complete_checkpoints(tmp_path / "absent") == []


# ── remove_stale_temporaries ─────────────────────────────────────────────────────────
def _killed_writes(directory, monkeypatch):
    """Runs our writers with the final rename and the clean-up failing, as a kill would
    leave them: the temporaries keep the names the real writers give them."""
    def killed(*args, **kwargs):
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", killed)
        m.setattr(os, "remove", lambda path: None)
        with pytest.raises(SystemExit):
            tensor_bundle.write_bundle(str(directory / "model-7"), ["w"], [np.ones(2)])
        with pytest.raises(SystemExit):
            atomic.atomic_write_bytes(str(directory / "checkpoint"), b"state")


def test_remove_stale_temporaries_removes_only_our_leftovers(tmp_path, monkeypatch):
    (kept,) = _save_steps(tmp_path, [5])
    _killed_writes(tmp_path, monkeypatch)
    sharded = tmp_path / "model-9_temp"           # a sharded save killed before its merge
    sharded.mkdir()
    for name in ("part-00000-of-00002.index", "part-00001-of-00002.data-00000-of-00001",
                 "part-00000-of-00002.index.tempstate42"):
        (sharded / name).write_bytes(b"x")
    strangers = ["notes.tmp", "model.tempstate", "events.out.tfevents.1.host",
                 "checkpoint.tmp123", "other_temp"]
    for name in strangers[:-1]:
        (tmp_path / name).write_bytes(b"mine")
    (tmp_path / "other_temp").mkdir()
    (tmp_path / "other_temp" / "keep.txt").write_bytes(b"mine")
    before = set(os.listdir(tmp_path))
    leftovers = {n for n in before if ".tempstate" in n or ".tmp" in n} - set(strangers)
    assert len(leftovers) == 3, before       # index and data of model-7, the state file

    removed = cm.remove_stale_temporaries(str(tmp_path))
    assert {os.path.basename(p) for p in removed} == leftovers | {
        "part-00000-of-00002.index", "part-00001-of-00002.data-00000-of-00001",
        "part-00000-of-00002.index.tempstate42"}
    after = set(os.listdir(tmp_path))
    assert after == before - leftovers - {"model-9_temp"}
    assert set(strangers) <= after and (tmp_path / "other_temp" / "keep.txt").exists()
    assert cm.find_complete_checkpoints(tmp_path) == [kept]
    assert cm.remove_stale_temporaries(str(tmp_path)) == []


def test_remove_stale_temporaries_spares_fresh_files_when_asked(tmp_path, monkeypatch):
    _killed_writes(tmp_path, monkeypatch)
    assert cm.remove_stale_temporaries(tmp_path, min_age_s=3600) == []
    assert len(cm.remove_stale_temporaries(tmp_path)) == 3
