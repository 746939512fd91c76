"""The main job's exact resume and its robustness to kills, damaged state files and
divergence (issue 19's must-shows), on MNIST's test digits split as in test_mnist_cnn."""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.examples import mnist_cnn
from scopeflow.train import checkpoint_management as cm

ROOT = Path(__file__).resolve().parent.parent.parent
MAX_TO_KEEP = 5


def _flags(data_dir, logdir, *more):
    return ["--data-dir", str(data_dir), "--logdir", str(logdir), "--validation-size", "1000",
            *more]


def _train(data_dir, logdir, *more):
    out = io.StringIO()
    args = mnist_cnn._configure(__import__("argparse").ArgumentParser()).parse_args(
        _flags(data_dir, logdir, *more))
    code = mnist_cnn.train(args, out)
    return code, out.getvalue()


def _weights(prefix):
    reader = tf.train.NewCheckpointReader(str(prefix))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def _assert_bitwise_equal(a, b):
    assert sorted(a) == sorted(b)
    differ = [k for k in a if np.asarray(a[k]).tobytes() != np.asarray(b[k]).tobytes()]
    assert not differ, f"differ: {differ}"


@pytest.mark.parametrize("k", [3, 5])
def test_k_steps_restart_k_steps_equal_2k_straight(mnist_split_dir, tmp_path, k):
    """Dropout's stream and the data order continue: bitwise the same variables (Adam's
    slots, global_step and the random streams included)."""
    common = ("--eval-every", "4", "--log-every", "2", "--save-every", "1000")
    code, _ = _train(mnist_split_dir, tmp_path / "straight", "--steps", str(2 * k), *common)
    assert code == 0
    code, _ = _train(mnist_split_dir, tmp_path / "resumed", "--steps", str(k), *common)
    assert code == 0
    code, out = _train(mnist_split_dir, tmp_path / "resumed", "--steps", str(2 * k), *common)
    assert code == 0 and f"(global_step {k})" in out
    straight = _weights(tmp_path / "straight" / f"model.ckpt-{2 * k}")
    resumed = _weights(tmp_path / "resumed" / f"model.ckpt-{2 * k}")
    assert "_scopeflow/training_state" in straight
    _assert_bitwise_equal(straight, resumed)


def _listed(logdir):
    state = tf.train.get_checkpoint_state(str(logdir))
    return [] if state is None else list(state.all_model_checkpoint_paths)


def _temporaries(logdir):
    return [n for n in os.listdir(logdir)
            if re.search(r"\.tmp[0-9a-f]{32}$|\.tempstate\d+$|_temp$", n)]


def test_max_to_keep_holds_across_restarts(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    for steps in range(2, 16, 2):  # seven runs, each resuming and saving twice
        code, out = _train(mnist_split_dir, logdir, "--steps", str(steps), "--save-every", "1")
        assert code == 0
    assert len(cm.find_complete_checkpoints(str(logdir))) == MAX_TO_KEEP
    assert [os.path.basename(p) for p in _listed(logdir)] == [
        f"model.ckpt-{s}" for s in range(10, 15)]


def test_a_damaged_state_file_falls_back_to_the_newest_intact_checkpoint(mnist_split_dir,
                                                                          tmp_path):
    logdir = tmp_path / "run"
    assert _train(mnist_split_dir, logdir, "--steps", "4", "--save-every", "2")[0] == 0
    (logdir / "checkpoint").write_bytes(b"\x00\xffgarbage{{{")
    # The newest checkpoint's data is truncated: the one before it is the newest intact.
    data = logdir / "model.ckpt-4.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:100])
    code, out = _train(mnist_split_dir, logdir, "--steps", "5")
    assert code == 0
    assert "resuming from" in out and "model.ckpt-2 (global_step 2)" in out


def test_leftovers_of_a_killed_save_are_tidied(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    assert _train(mnist_split_dir, logdir, "--steps", "2", "--save-every", "1")[0] == 0
    # What a kill inside a save leaves: temporaries, and an uncommitted complete checkpoint.
    for name in ("checkpoint.tmp" + "ab" * 16, "model.ckpt-3.index.tempstate99",
                 "model.ckpt-3.meta.tmp" + "cd" * 16):
        (logdir / name).write_bytes(b"partial")
    for suffix in (".index", ".data-00000-of-00001", ".meta"):
        (logdir / f"model.ckpt-3{suffix}").write_bytes((logdir / f"model.ckpt-2{suffix}")
                                                       .read_bytes())
    code, out = _train(mnist_split_dir, logdir, "--steps", "3")
    assert code == 0 and "(global_step 2)" in out
    assert "removed 3 temporary file(s) of an interrupted save" in out
    assert "removed model.ckpt-3: the checkpoint state file does not list it" in out
    assert not _temporaries(logdir)


def _files(directory):
    return {p.relative_to(directory): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file()}


def _write_state(logdir, paths):
    (logdir / "checkpoint").write_text(
        f'model_checkpoint_path: "{paths[-1]}"\n' +
        "".join(f'all_model_checkpoint_paths: "{p}"\n' for p in paths))


def test_a_copied_run_resumes_from_its_copies_and_never_touches_the_original(
        mnist_split_dir, tmp_path, capsys):
    original = tmp_path / "run"
    assert _train(mnist_split_dir, original, "--steps", "2", "--save-every", "1")[0] == 0
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    # TF1 writes absolute paths: the copy's state file still names the original's files.
    _write_state(copy, [str(original / f"model.ckpt-{s}") for s in (1, 2)])
    before = _files(original)
    code, out = _train(mnist_split_dir, copy, "--steps", "9", "--save-every", "1")
    assert code == 0
    assert f"resuming from {copy / 'model.ckpt-2'} (global_step 2)" in out
    assert _files(original) == before
    assert f"lists {original / 'model.ckpt-2'}, outside" in capsys.readouterr().err
    assert [os.path.basename(p) for p in _listed(copy)] == [
        f"model.ckpt-{s}" for s in range(5, 10)]


def test_a_hostile_state_file_deletes_nothing_outside_the_run(mnist_split_dir, tmp_path,
                                                              capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("model.ckpt-7.index", "model.ckpt-7.data-00000-of-00001", "model.ckpt-8.index",
                 "model.ckpt-8.data-00000-of-00001", "model.ckpt-8.meta", "thesis.tex"):
        (victim / name).write_bytes(b"precious " + name.encode())
    before = _files(victim)
    logdir = tmp_path / "run"
    assert _train(mnist_split_dir, logdir, "--steps", "2", "--save-every", "1")[0] == 0
    _write_state(logdir, ["../victim/model.ckpt-7", str(victim / "model.ckpt-8")])
    code, out = _train(mnist_split_dir, logdir, "--steps", "9", "--save-every", "1")
    assert code == 0 and "(global_step 2)" in out
    assert _files(victim) == before
    err = capsys.readouterr().err
    assert "ignored (a run uses and deletes only checkpoints in its own directory)" in err
    assert "lists none of its checkpoints; using the complete checkpoints on disk" in err


def _with_training_state(prefix, entry: bytes):
    from scopeflow.io.tensor_bundle import write_bundle

    reader = tf.train.NewCheckpointReader(str(prefix))
    keys = sorted(reader.get_variable_to_shape_map())
    values = [np.asarray(entry, dtype=object) if k == "_scopeflow/training_state"
              else reader.get_tensor(k) for k in keys]
    write_bundle(str(prefix), keys, values)


@pytest.mark.parametrize("entry", ["deep", "huge-array"])
def test_a_damaged_training_state_falls_back_to_the_previous_checkpoint(
        mnist_split_dir, tmp_path, capsys, entry):
    import base64
    import json

    logdir = tmp_path / "run"
    assert _train(mnist_split_dir, logdir, "--steps", "4", "--save-every", "2")[0] == 0
    if entry == "deep":  # RecursionError at every restart, before
        bad = '{"format": "scopeflow-training-state/1", "state": ' + "[" * 50000 + \
            "]" * 50000 + "}"
    else:  # MemoryError at every restart, before: a .npy header declaring 10^13 floats
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 13,)})
        array = {"__array__": base64.b64encode(header.getvalue() + b"\0" * 12).decode()}
        bad = json.dumps({"format": "scopeflow-training-state/1", "state": {"__dict__": {
            "random_streams": {"__dict__": {}}, "iterators": {"__dict__": {}},
            "objects": {"__dict__": {"train": array}}}}})
    newest = logdir / "model.ckpt-4"
    _with_training_state(newest, bad.encode())
    code, out = _train(mnist_split_dir, logdir, "--steps", "5")
    assert code == 0
    assert "model.ckpt-2 (global_step 2)" in out
    err = capsys.readouterr().err
    assert f"cannot restore {newest}: Checkpoint {newest} is damaged" in err
    assert "trying an older checkpoint" in err


def test_a_diverged_run_stops_without_saving(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    assert _train(mnist_split_dir, logdir, "--steps", "2", "--save-every", "1")[0] == 0
    before = _listed(logdir)
    code, out = _train(mnist_split_dir, logdir, "--steps", "30", "--lr", "1e30",
                       "--save-every", "1", "--log-every", "1")
    assert code == 1
    m = re.search(r"error: training diverged at step (\d+): (.*)\. Stopped without saving; "
                  r"the last good checkpoint is (\S+)\.", out)
    assert m, out
    assert int(m[1]) > 2 and m[3].endswith(os.path.basename(_listed(logdir)[-1]))
    # Nothing non-finite was saved; good checkpoints were kept.
    for prefix in _listed(logdir):
        for name, value in _weights(prefix).items():
            if np.asarray(value).dtype.kind == "f":
                assert np.isfinite(value).all(), (prefix, name)
    assert set(before) <= set(_listed(logdir))


def _cmd(data_dir, logdir, *more):
    return [sys.executable, "-m", "scopeflow.examples.mnist_cnn", *_flags(data_dir, logdir, *more)]


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


def _wait_for_a_temporary(logdir, deadline):
    while time.monotonic() < deadline:
        try:
            if _temporaries(logdir):
                return
        except FileNotFoundError:
            pass
        time.sleep(0.001)


def test_sigkill_at_random_moments_never_loses_work(mnist_split_dir, tmp_path):
    """The job killed (SIGKILL) many times, at random moments and inside saves, saving
    every step: each restart resumes from the last committed checkpoint, at most
    max_to_keep checkpoints stay, no temporaries remain, and the final weights equal an
    uninterrupted run's."""
    target = 24
    flags = ("--steps", str(target), "--save-every", "1", "--eval-every", "5",
             "--log-every", "1")
    code, _ = _train(mnist_split_dir, tmp_path / "straight", *flags)
    assert code == 0
    logdir = tmp_path / "killed"
    rng = random.Random(19)
    kills = restarts = left_temporaries = 0
    while True:
        committed = _listed(logdir) if (logdir / "checkpoint").exists() else []
        proc = subprocess.Popen(_cmd(mnist_split_dir, logdir, *flags), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=_env())
        if kills < 10:
            # Wait for training to start, then kill at a random moment of it.
            deadline = time.monotonic() + 300
            for line in proc.stdout:
                if line.startswith("training the seed's CNN") or time.monotonic() > deadline:
                    break
            if kills % 2:
                time.sleep(rng.uniform(0.0, 1.5))
            else:  # inside a save: as soon as one of its temporary files appears
                _wait_for_a_temporary(logdir, deadline)
            proc.send_signal(signal.SIGKILL)
            kills += 1
        out, err = proc.communicate(timeout=600)
        restarts += 1
        left_temporaries += bool(logdir.exists() and _temporaries(logdir))
        if committed:
            resumed = re.search(r"resuming from (\S+) \(global_step (\d+)\)", out)
            if resumed:  # (a kill before that line was printed leaves no evidence)
                assert os.path.basename(resumed[1]) == os.path.basename(committed[-1]), out
        assert len(_listed(logdir)) <= MAX_TO_KEEP
        # At most one complete checkpoint beyond the listed ones: a save killed before its
        # commit (the next start removes it).
        assert len(cm.find_complete_checkpoints(str(logdir))) <= MAX_TO_KEEP + 1
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, err
    assert kills == 10 and restarts >= 11
    assert left_temporaries >= 1  # some kills did land inside a save
    assert not _temporaries(logdir)
    assert len(cm.find_complete_checkpoints(str(logdir))) == MAX_TO_KEEP
    _assert_bitwise_equal(_weights(tmp_path / "straight" / f"model.ckpt-{target}"),
                          _weights(logdir / f"model.ckpt-{target}"))
