"""The main job, run as a user runs it (a subprocess), on the real MNIST test set.

MNIST's 10,000 test digits (the ``mnist_split_dir`` fixture finds them) are split into a
temporary data directory (first 8,000 as "train" of which 1,000 validate, last 2,000 as
"test"), which the job reads without downloading anything.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from scopeflow.datasets import mnist

ROOT = Path(__file__).resolve().parent.parent.parent
COMMON = ["--validation-size", "1000"]




def _cmd(mnist_split_dir, logdir, *flags):
    return [sys.executable, "-m", "scopeflow.examples.mnist_cnn", "--data-dir", str(mnist_split_dir),
            "--logdir", str(logdir), *COMMON, *flags]


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


def _run(cmd, timeout=900):
    out = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=timeout)
    return out.returncode, out.stdout, out.stderr


def _latest_step(logdir):
    text = (Path(logdir) / "checkpoint").read_text()
    return int(re.search(r'^model_checkpoint_path: "model\.ckpt-(\d+)"', text, re.M)[1])


@pytest.fixture(scope="module")
def short_run(mnist_split_dir, tmp_path_factory):
    logdir = tmp_path_factory.mktemp("runs") / "mnist"
    rc, out, err = _run(_cmd(mnist_split_dir, logdir, "--steps", "300", "--eval-every", "150",
                             "--save-every", "100", "--log-every", "50"))
    assert rc == 0, err
    return logdir, out


def test_short_run_reaches_90_percent(short_run):
    logdir, out = short_run
    match = re.search(r"^test accuracy: (0\.\d{4})$", out, re.M)
    assert match, out
    assert float(match[1]) > 0.90
    assert out.rstrip().endswith(f"tensorboard --logdir {logdir}")
    assert "training the seed's CNN on MNIST: 7000 training images, batch 50" in out
    # Off a terminal: one progress line per --log-every steps, with rate, loss, accuracy, ETA.
    lines = re.findall(r"^step +(\d+)/300 +[\d.]+ steps/s  loss ([\d.]+)  train acc ([\d.]+)"
                       r"(?:  validation acc ([\d.]+))?  ETA \d+:\d\d$", out, re.M)
    assert [int(s) for s, *_ in lines] == [50, 100, 150, 200, 250, 300]
    assert float(lines[-1][1]) < float(lines[0][1])
    assert [v for *_, v in lines if v] and float(lines[-1][3]) > 0.85


def test_short_run_writes_event_files_tensorboard_reads(short_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logdir, out = short_run
    acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    tags = acc.Tags()
    assert {"summaries/loss", "summaries/accuracy", "validation/accuracy",
            "test/accuracy", "train/mean_loss", "train/mean_accuracy"} <= set(tags["scalars"])
    assert [e.step for e in acc.Scalars("summaries/loss")] == [50, 100, 150, 200, 250, 300]
    # The console's loss is the mean over --log-every steps: TensorBoard has it too.
    console = re.findall(r"^step +\d+/300 .* loss ([\d.]+)  train acc ([\d.]+)", out, re.M)
    means = acc.Scalars("train/mean_loss")
    assert [e.step for e in means] == [50, 100, 150, 200, 250, 300]
    assert len(console) == len(means)
    for event, (loss, _) in zip(means, console):  # float32 in the event, 4 decimals shown
        assert abs(event.value - float(loss)) <= 5.1e-5, (event.step, event.value, loss)
    assert "means over 50 steps, as TensorBoard's train/mean_loss" in out
    assert [e.step for e in acc.Scalars("validation/accuracy")] == [150, 300]
    assert acc.Scalars("test/accuracy")[0].step == 300
    assert set(tags["histograms"]) == {f"summaries/cnn/{layer}/{v}" for layer in
                                       ("conv1", "conv2", "fc1", "fc2") for v in "wb"}
    hist = acc.Histograms("summaries/cnn/fc1/w")[-1].histogram_value
    assert hist.num == 7 * 7 * 64 * 1024
    names = {node.name for node in acc.Graph().node}
    assert {"x", "labels", "keep_prob", "cnn/conv1/w", "global_step", "loss/cross_entropy"} <= names


def test_short_run_checkpoints(short_run):
    import scopeflow as tf

    logdir, _ = short_run
    state = tf.train.get_checkpoint_state(str(logdir))
    assert Path(state.model_checkpoint_path).name == "model.ckpt-300"
    assert [Path(p).name for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-100", "model.ckpt-200", "model.ckpt-300"]
    reader = tf.train.NewCheckpointReader(state.model_checkpoint_path)
    assert int(reader.get_tensor("global_step")) == 300
    assert reader.get_variable_to_shape_map()["cnn/conv2/w"] == [5, 5, 32, 64]


@pytest.mark.tf
def test_real_tensorflow_reads_the_checkpoint(short_run, tf1):
    logdir, _ = short_run
    got = tf1(f"""
        path = tf.train.latest_checkpoint({str(logdir)!r})
        shapes = dict(tf.train.list_variables(path))
        step = int(tf.train.load_variable(path, "global_step"))
        w = tf.train.load_variable(path, "cnn/fc2/w")
        print(json.dumps({{"path": path, "step": step, "fc1": shapes["cnn/fc1/w"],
                          "adam": "cnn/fc1/w/Adam" in shapes, "w_sum": float(w.sum())}}))
    """)
    import scopeflow as tf

    assert got["path"].endswith("model.ckpt-300") and got["step"] == 300
    assert got["fc1"] == [3136, 1024] and got["adam"]
    ours = tf.train.NewCheckpointReader(str(logdir / "model.ckpt-300")).get_tensor("cnn/fc2/w")
    assert np.isclose(got["w_sum"], float(ours.sum()), rtol=0, atol=1e-4)


def _start(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())


def _wait_for_step(proc, at_least, timeout=600):
    """Read progress lines until one reports a step >= at_least; returns the output so far."""
    seen, deadline = [], time.monotonic() + timeout
    for line in proc.stdout:
        seen.append(line)
        m = re.match(r"step +(\d+)/", line)
        if m and int(m[1]) >= at_least:
            return "".join(seen)
        assert time.monotonic() < deadline, "".join(seen)
    raise AssertionError("the job ended early:\n" + "".join(seen) + proc.stderr.read())


def test_ctrl_c_saves_and_a_second_run_resumes(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    proc = _start(_cmd(mnist_split_dir, logdir, "--steps", "100000", "--save-every", "100000",
                       "--eval-every", "100000", "--log-every", "5"))
    _wait_for_step(proc, 10)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    stopped = int(re.search(r"Ctrl-C: stopped at step (\d+); checkpoint saved in", out)[1])
    assert stopped >= 10 and _latest_step(logdir) == stopped
    assert "test accuracy" not in out and "Traceback" not in err

    rc, out, err = _run(_cmd(mnist_split_dir, logdir, "--steps", str(stopped + 5), "--log-every", "5"))
    assert rc == 0, err
    assert f"resuming from {logdir}/model.ckpt-{stopped} (global_step {stopped})" in out
    assert re.search(rf"^step {stopped + 5}/{stopped + 5} ", out, re.M)
    assert _latest_step(logdir) == stopped + 5

    # The resumed writer marks the restart: SessionLog START at the restored step.
    import scopeflow as tf
    starts = [e.step for e in tf.summary.summary_iterator(
        str(sorted(logdir.glob("events.out.tfevents.*"))[-1]))
        if e.HasField("session_log") and e.session_log.status == tf.SessionLog.START]
    assert starts == [stopped]


def test_killed_run_resumes_from_its_last_checkpoint(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    proc = _start(_cmd(mnist_split_dir, logdir, "--steps", "100000", "--save-every", "10",
                       "--eval-every", "100000", "--log-every", "5"))
    _wait_for_step(proc, 25)
    proc.kill()  # SIGKILL: no chance to save
    proc.communicate(timeout=60)
    saved = _latest_step(logdir)
    assert saved >= 20 and saved % 10 == 0

    rc, out, err = _run(_cmd(mnist_split_dir, logdir, "--steps", str(saved + 3), "--log-every", "1"))
    assert rc == 0, err
    assert f"(global_step {saved})" in out
    steps = [int(s) for s in re.findall(r"^step +(\d+)/", out, re.M)]
    assert steps == [saved + 1, saved + 2, saved + 3]
    # Already there: a further run only evaluates.
    rc, out, _ = _run(_cmd(mnist_split_dir, logdir, "--steps", str(saved + 3)))
    assert rc == 0 and not re.search(r"^step ", out, re.M) and "test accuracy: 0." in out


def test_fresh_moves_the_old_run_aside(mnist_split_dir, tmp_path):
    logdir = tmp_path / "run"
    assert _run(_cmd(mnist_split_dir, logdir, "--steps", "2", "--log-every", "1"))[0] == 0
    rc, out, err = _run(_cmd(mnist_split_dir, logdir, "--steps", "1", "--fresh", "--log-every", "1"))
    assert rc == 0, err
    assert "--fresh: moved the previous run to" in out and "resuming" not in out
    previous = next(logdir.glob("previous-*"))
    assert (previous / "model.ckpt-2.index").exists() and _latest_step(logdir) == 1


def test_cli_alias_and_flags(mnist_split_dir, tmp_path, capsys):
    from scopeflow.examples import mnist_cnn

    with pytest.raises(SystemExit):
        mnist_cnn.main(["--help"])
    helptext = capsys.readouterr().out
    for flag in ("--steps", "--batch-size", "--lr", "--eval-every", "--save-every", "--seed",
                 "--logdir", "--data-dir", "--fresh"):
        assert flag in helptext
    rc, out, err = _run([sys.executable, "-m", "scopeflow.cli", "train-mnist", "--data-dir",
                         str(mnist_split_dir), "--logdir", str(tmp_path / "cli"), *COMMON, "--steps", "1"])
    assert rc == 0, err
    assert re.search(r"^test accuracy: 0\.\d{4}$", out, re.M)


def test_no_data_and_no_sklearn_is_a_clear_error(tmp_path, monkeypatch):
    from scopeflow.examples import mnist_cnn

    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn -> ImportError
    with pytest.raises(SystemExit) as info:
        mnist_cnn.load_data(str(tmp_path / "none"), 5000, 0, source_url="file:///nonexistent/")
    msg = str(info.value)
    assert "MNIST file train-images-idx3-ubyte.gz is not in" in msg
    assert "file:///nonexistent/train-images-idx3-ubyte.gz" in msg
    assert "scikit-learn's bundled digits, is not installed either" in msg


def test_sklearn_digits_fallback_trains(tmp_path):
    pytest.importorskip("sklearn")
    rc, out, err = _run(_cmd(tmp_path / "none", tmp_path / "digits", "--steps", "100",
                             "--log-every", "50", "--source-url", "file:///nonexistent/"))
    assert rc == 0, err
    assert "==> Training on scikit-learn's bundled handwritten digits instead" in err
    assert "This is NOT MNIST" in err  # a warning: on stderr
    assert "training the seed's CNN on sklearn-digits: 1297 training images" in out
    assert float(re.search(r"^test accuracy: (0\.\d{4})$", out, re.M)[1]) > 0.8


def test_a_digits_run_resumes_without_looking_for_mnist(tmp_path):
    pytest.importorskip("sklearn")
    logdir = tmp_path / "digits"
    rc, out, err = _run(_cmd(tmp_path / "none", logdir, "--steps", "2", "--save-every", "1",
                             "--source-url", "file:///nonexistent/"))
    assert rc == 0 and "MNIST is not available here" in err
    # The resume finds job.json's record: no MNIST lookup (which would download, or time
    # out offline) and no "not available" block again.
    rc, out, err = _run(_cmd(tmp_path / "none", logdir, "--steps", "3",
                             "--source-url", "file:///nonexistent/"))
    assert rc == 0, err
    assert "resuming a run trained on scikit-learn's bundled digits" in out
    assert "MNIST is not available" not in err
    assert "(global_step 2)" in out


def test_a_run_is_not_resumed_on_other_data(tmp_path):
    import argparse

    from scopeflow.examples import mnist_cnn

    args = argparse.Namespace(logdir=str(tmp_path), steps=5, func=None, source_url=None)
    mnist_cnn._record_job(args, "sklearn-digits")
    assert '"data": "sklearn-digits"' in (tmp_path / "job.json").read_text()
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-5"\n')
    mnist_cnn._record_job(args, "sklearn-digits")  # same data: fine
    with pytest.raises(SystemExit, match=r"was trained on sklearn-digits, but this time the "
                                         r"data is MNIST; use --fresh"):
        mnist_cnn._record_job(args, "MNIST")


def test_a_corrupt_data_file_is_a_clear_error(tmp_path, mnist_split_dir):
    import shutil

    from scopeflow.examples import mnist_cnn

    for f in mnist_split_dir.iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / mnist.TEST_LABELS).write_bytes(b"\x00\x00\x08\x03" + bytes(12))
    with pytest.raises(SystemExit, match=r"^error: Invalid magic number 2051 in MNIST label "
                                         r"file: .*t10k-labels-idx1-ubyte.gz$"):
        mnist_cnn.load_data(str(tmp_path), 1000, 0)


def test_step_batches_resume_the_data_order():
    from scopeflow.examples.mnist_cnn import StepBatches

    ds = mnist.DataSet(np.arange(10, dtype=np.uint8).reshape(10, 1, 1, 1),
                       np.arange(10, dtype=np.uint8), dtype=np.uint8, seed=0)
    straight = StepBatches(ds, 4, seed=7)
    batches = [straight.next_batch()[1].tolist() for _ in range(10)]  # 4 epochs of 10
    flat = sum(batches, [])
    for epoch in range(4):  # every epoch visits each example once, in its own order
        assert sorted(flat[10 * epoch:10 * epoch + 10]) == list(range(10))
    assert flat[:10] != flat[10:20]
    resumed = StepBatches(ds, 4, seed=7, first_step=6)
    assert [resumed.next_batch()[1].tolist() for _ in range(4)] == batches[6:]
    x, y = resumed.next_batch()
    np.testing.assert_array_equal(x.reshape(-1), y)  # images and labels stay paired
    assert StepBatches(ds, 4, seed=8).next_batch()[1].tolist() != batches[0]
    assert len(StepBatches(ds, 25, seed=1).next_batch()[1]) == 25  # more than one epoch


class _Terminal:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


@pytest.mark.parametrize("tty", [True, False])
def test_progress_line_on_and_off_a_terminal(tty, monkeypatch):
    from scopeflow.examples import mnist_cnn

    now = [0.0]  # one step per second
    monkeypatch.setattr(mnist_cnn.time, "perf_counter", lambda: now[0])
    stream = _Terminal(tty)
    progress = mnist_cnn.Progress(0, 20, 10, stream)
    for step in range(1, 21):
        now[0] = float(step)
        progress.update(step, 1.0 / step, 0.5, "  validation acc 0.9000" if step == 20 else "")
    progress.close()
    if tty:  # \r-refreshed status line, erased to the end of line; the eval line stays
        assert stream.text.startswith("\rstep  1/20 ") and "\x1b[K\rstep  2/20 " in stream.text
        assert stream.text.endswith("\r\x1b[Kstep 20/20    1.0 steps/s  loss 0.0669  train acc "
                                    "0.500  validation acc 0.9000  ETA 0:00\n")
    else:  # one plain line per 10 steps
        assert stream.text.splitlines() == [
            "step 10/20    1.0 steps/s  loss 0.2929  train acc 0.500  ETA 0:10",
            "step 20/20    1.0 steps/s  loss 0.0669  train acc 0.500  validation acc 0.9000  "
            "ETA 0:00"]


def test_sigterm_and_ctrl_c_only_request_a_stop():
    from scopeflow.examples.mnist_cnn import _StopRequest

    before = signal.getsignal(signal.SIGTERM)
    with _StopRequest() as stop:
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.signum == signal.SIGTERM  # the loop saves, then stops
        with pytest.raises(KeyboardInterrupt):  # a second Ctrl-C does not wait
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGTERM) is before
