"""Checkpoint housekeeping deletes only a Saver's own files in its own directory
(scopeflow/train/checkpoint_cleanup.py): max_to_keep rotation with a state file that lists
paths elsewhere (absolute, ``../``, through symbolic links), the restart tidy-up of
``MonitoredTrainingSession``, and one Saver shared by two threads."""

from __future__ import annotations

import logging
import os
import shutil
import threading

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.train import checkpoint_cleanup as cc
from scopeflow.train import checkpoint_management as cm

SUFFIXES = (".index", ".data-00000-of-00001", ".meta")


def _victims(directory, prefixes):
    """Files shaped like checkpoints (and one that is not) that must survive."""
    directory.mkdir(parents=True, exist_ok=True)
    made = {}
    for prefix in prefixes:
        for suffix in SUFFIXES:
            path = directory / f"{prefix}{suffix}"
            path.write_bytes(f"precious {prefix}{suffix}".encode())
            made[path] = path.read_bytes()
    (directory / "notes.txt").write_bytes(b"mine")
    made[directory / "notes.txt"] = b"mine"
    return made


def _intact(made):
    return all(p.exists() and p.read_bytes() == data for p, data in made.items())


def _write_state(run, paths):
    run.mkdir(parents=True, exist_ok=True)
    lines = [f'model_checkpoint_path: "{paths[-1]}"'] + \
        [f'all_model_checkpoint_paths: "{p}"' for p in paths]
    (run / "checkpoint").write_text("\n".join(lines) + "\n")


def _save_steps(run, steps, max_to_keep=2, adopt=True):
    """A resumed job: adopt what the state file lists (as SessionManager and the main job
    do), then save ``steps`` checkpoints."""
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=max_to_keep)
        if adopt:
            state = tf.train.get_checkpoint_state(str(run))
            saver.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        with tf.Session() as sess:
            sess.run(v.initializer)
            for step in steps:
                saver.save(sess, str(run / "model.ckpt"), global_step=step)
    return saver


def _kept_warnings(caplog):
    return [r.getMessage() for r in caplog.records if "Not deleting checkpoint" in r.getMessage()]


def test_rotation_keeps_absolute_and_dotdot_paths_outside_the_directory(tmp_path, caplog):
    outside = tmp_path / "elsewhere"
    made = _victims(outside, ["model.ckpt-1", "model.ckpt-2"])
    run = tmp_path / "run"
    _write_state(run, [str(outside / "model.ckpt-1"), "../elsewhere/model.ckpt-2"])
    with caplog.at_level(logging.WARNING, "scopeflow.train"):
        _save_steps(run, range(10, 16))
    assert _intact(made)
    warned = _kept_warnings(caplog)
    assert len(warned) == 2  # one warning each, naming it
    assert str(outside / "model.ckpt-1") in warned[0]
    assert "model.ckpt-2" in warned[1]
    # The run's own rotation still works: two kept, the rest deleted.
    assert sorted(n for n in os.listdir(run) if n.endswith(".index")) == \
        ["model.ckpt-14.index", "model.ckpt-15.index"]
    assert [os.path.basename(p) for p in
            tf.train.get_checkpoint_state(str(run)).all_model_checkpoint_paths] == \
        ["model.ckpt-14", "model.ckpt-15"]


def test_a_symlinked_directory_or_file_is_resolved(tmp_path, caplog):
    outside = tmp_path / "elsewhere"
    made = _victims(outside, ["model.ckpt-1", "victim"])
    run = tmp_path / "run"
    run.mkdir()
    (run / "link").symlink_to(outside, target_is_directory=True)
    # A checkpoint of the run's own name whose .index is a link to a stranger's file.
    (run / "model.ckpt-2.index").symlink_to(outside / "victim.index")
    (run / "model.ckpt-2.data-00000-of-00001").write_bytes(b"data")
    _write_state(run, ["link/model.ckpt-1", "model.ckpt-2"])
    with caplog.at_level(logging.WARNING, "scopeflow.train"):
        _save_steps(run, range(10, 14))
    assert _intact(made)
    assert (run / "model.ckpt-2.index").is_symlink()
    warned = _kept_warnings(caplog)
    assert len(warned) == 2
    assert "link/model.ckpt-1" in warned[0]
    assert "model.ckpt-2.index is not a regular file" in warned[1]


def test_the_run_directory_itself_may_be_reached_through_a_link(tmp_path):
    real = tmp_path / "real"
    _save_steps(real, [1, 2], max_to_keep=5, adopt=False)
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    # The state lists the real path; the job saves through the alias: the same directory.
    _write_state(real, [str(real / "model.ckpt-1"), str(real / "model.ckpt-2")])
    _save_steps(tmp_path / "alias", [3, 4], max_to_keep=2)
    assert sorted(n for n in os.listdir(real) if n.endswith(".index")) == \
        ["model.ckpt-3.index", "model.ckpt-4.index"]


def test_only_this_savers_names_are_deleted(tmp_path, caplog):
    run = tmp_path / "run"
    made = _victims(run, ["important-3", "model.ckpt-x", "model.ckpt-*"])
    _write_state(run, ["important-3", "model.ckpt-x", "model.ckpt-*"])
    with caplog.at_level(logging.WARNING, "scopeflow.train"):
        _save_steps(run, range(10, 14))
    assert _intact(made)
    assert len(_kept_warnings(caplog)) == 3


def test_a_saver_deletes_what_it_saved_with_any_save_path(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=1)
        with tf.Session() as sess:
            sess.run(v.initializer)
            saver.save(sess, str(tmp_path / "a"))
            saver.save(sess, str(tmp_path / "sub" / "b"), global_step=7)
    assert not any(n.startswith("a.") for n in os.listdir(tmp_path))
    assert sorted(os.listdir(tmp_path / "sub")) == \
        ["b-7.data-00000-of-00001", "b-7.index", "b-7.meta", "checkpoint"]


def test_owner_of_and_checkpoint_files_use_exact_names(tmp_path):
    locations = {cc.save_location(tmp_path / "model.ckpt")}
    assert cc.owner_of(tmp_path / "model.ckpt-12", locations)
    assert cc.owner_of(tmp_path / "model.ckpt", locations)
    for other in ("model.ckpt-", "model.ckpt-1a", "model.ckptx-1", "../model.ckpt-1"):
        assert cc.owner_of(tmp_path / other, locations) is None, other
    for name in ("m[1].index", "m[1].data-00000-of-00001", "m1.index",
                 "m[1].data-0-of-1", "m[1].meta"):
        (tmp_path / name).write_bytes(b"")
    assert [os.path.basename(p) for p in cc.checkpoint_files(tmp_path / "m[1]")] == \
        ["m[1].meta", "m[1].index", "m[1].data-00000-of-00001"]


# ── the restart tidy-up (MonitoredTrainingSession) ───────────────────────────────────
def _mts_steps(d, steps):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w - 3.0),
                                                                global_step=step)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(d), save_checkpoint_steps=1, save_summaries_steps=None,
                log_step_count_steps=None,
                hooks=[tf.train.StopAtStepHook(num_steps=steps)]) as sess:
            first = int(sess.run(step))
            while not sess.should_stop():
                sess.run(train)
    return first


def test_monitored_session_restart_tidies_a_killed_save(tmp_path, caplog):
    d = tmp_path / "run"
    _mts_steps(d, 7)  # saves steps 0..7; the state file lists 3..7
    # What a kill inside the save of step 8 leaves, and what is not ours.
    litter = ["model.ckpt-8.meta.tmp" + "ab" * 16, "model.ckpt-8.index.tempstate42",
              "checkpoint.tmp" + "cd" * 16]
    for name in litter:
        (d / name).write_bytes(b"partial")
    for suffix in SUFFIXES:  # step 8's bundle committed, the state file not yet updated
        shutil.copy(d / f"model.ckpt-7{suffix}", d / f"model.ckpt-8{suffix}")
    (d / "model.ckpt-1.data-00000-of-00001").write_bytes(b"orphan of a cut deletion")
    strangers = _victims(d, ["other-5"])
    with caplog.at_level(logging.INFO, "scopeflow.train"):
        assert _mts_steps(d, 1) == 7  # resumed from the listed newest
    assert "Deleted checkpoint " + str(d / "model.ckpt-8") in caplog.text
    names = set(os.listdir(d))
    assert not names & set(litter)
    assert "model.ckpt-1.data-00000-of-00001" not in names
    assert _intact(strangers)
    listed = tf.train.get_checkpoint_state(str(d)).all_model_checkpoint_paths
    assert [os.path.basename(p) for p in listed] == [f"model.ckpt-{i}" for i in range(4, 9)]
    assert tf.train.load_variable(str(d / "model.ckpt-8"), "global_step") == 8


def test_monitored_session_rotation_keeps_files_outside_its_directory(tmp_path):
    outside = tmp_path / "elsewhere"
    made = _victims(outside, [f"model.ckpt-{i}" for i in range(5)])
    d = tmp_path / "run"
    _mts_steps(d, 1)
    listed = [str(outside / f"model.ckpt-{i}") for i in range(5)]
    _write_state(d, listed + [str(d / "model.ckpt-1")])
    _mts_steps(d, 6)
    assert _intact(made)
    assert len([n for n in os.listdir(d) if n.endswith(".index")]) == 5


def test_tidy_without_a_state_file_deletes_only_temporaries(tmp_path):
    for name in ("model.ckpt-3.index", "model.ckpt-3.data-00000-of-00001",
                 "model.ckpt-3.index.tempstate7"):
        (tmp_path / name).write_bytes(b"x")
    temporaries, stale = cc.tidy_checkpoint_dir(tmp_path, "model.ckpt", [])
    assert [os.path.basename(p) for p in temporaries] == ["model.ckpt-3.index.tempstate7"]
    assert stale == [] and (tmp_path / "model.ckpt-3.index").exists()


# ── one Saver, two threads ───────────────────────────────────────────────────────────
@pytest.mark.parametrize("same_prefix", [True, False])
def test_two_threads_saving_through_one_saver(tmp_path, same_prefix):
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(50000, dtype=np.float32), name="v")
        saver = tf.train.Saver(max_to_keep=3)
        failures = []
        with tf.Session() as sess:
            sess.run(v.initializer)

            def work(offset):
                try:
                    for i in range(12):
                        step = None if same_prefix else 2 * i + offset
                        saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
                except Exception as e:  # noqa: BLE001 - any failure fails the test
                    failures.append(e)

            threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert not failures, failures
    state = tf.train.get_checkpoint_state(str(tmp_path))
    listed = list(state.all_model_checkpoint_paths)
    assert listed == saver.last_checkpoints[-3:] or same_prefix
    on_disk = cm.find_complete_checkpoints(str(tmp_path))
    assert sorted(on_disk) == sorted(set(listed))
    for prefix in listed:
        assert tf.train.load_variable(prefix, "v").tolist() == list(range(50000))
    leftovers = [n for n in os.listdir(tmp_path)
                 if "tempstate" in n or ".tmp" in n or n.endswith("_temp")]
    assert not leftovers
