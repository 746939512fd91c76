"""``import horovod.tensorflow as hvd`` under ``scopeflow run``: Horovod's TF1 API mapped onto
scopeflow.distributed (scopeflow.distributed.horovod), in one process (a world of one), a
Horovod-style script run by ``scopeflow run``, and the same script on 2 MPI workers when
mpiexec is there."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.distributed import horovod as hvd

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _one_world():
    hvd.init()
    yield


def test_the_job():
    assert hvd.is_initialized()
    assert (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size()) == (0, 1, 0, 1)
    assert (hvd.cross_rank(), hvd.cross_size(), hvd.is_homogeneous()) == (0, 1, True)
    assert not hvd.gloo_enabled() and not hvd.nccl_built() and not hvd.cuda_built()
    hvd.barrier()
    hvd.shutdown()
    with tf.Session() as sess:
        assert sess.run([hvd.size_op(), hvd.rank_op(), hvd.local_rank_op(),
                         hvd.local_size_op()]) == [1, 0, 0, 1]


def test_collectives():
    x = tf.constant([1.0, 2.0])
    with tf.Session() as sess:
        mean, total, scaled, gathered, root, grouped = sess.run([
            hvd.allreduce(x), hvd.allreduce(x, op=hvd.Sum), hvd.allreduce(
                x, average=False, prescale_factor=2.0, postscale_factor=0.5),
            hvd.allgather(x), hvd.broadcast(x, 0),
            hvd.grouped_allreduce([x, x * 2.0], op=hvd.Average)])
    np.testing.assert_array_equal(mean, [1.0, 2.0])
    np.testing.assert_array_equal(total, [1.0, 2.0])
    np.testing.assert_array_equal(scaled, [1.0, 2.0])
    np.testing.assert_array_equal(gathered, [1.0, 2.0])
    np.testing.assert_array_equal(root, [1.0, 2.0])
    np.testing.assert_array_equal(grouped[1], [2.0, 4.0])
    with pytest.raises(ValueError, match="op parameter supersedes average"):
        hvd.allreduce(x, average=True, op=hvd.Sum)


def test_optimizer_and_broadcast_hook():
    v = tf.Variable(3.0)
    w = tf.Variable([1.0, 2.0])
    loss = v * v + tf.reduce_sum(w)
    opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1))
    assert isinstance(opt, tf.train.Optimizer) and opt.get_name() == "DistributedGradientDescent"
    train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    bcast = hvd.broadcast_variables([w], 0)
    hooks = [hvd.BroadcastGlobalVariablesHook(0), tf.train.StopAtStepHook(last_step=2)]
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        sess.run(bcast)
        while not sess.should_stop():
            _, now = sess.run([train, v])
    assert now == pytest.approx(3.0 * 0.8 * 0.8)
    assert hvd.broadcast_global_variables(0).type == "NoOp"


def test_what_does_not_map_says_so():
    opt = tf.train.GradientDescentOptimizer(0.1)
    for call, match in [
            (lambda: hvd.alltoall, r"horovod.tensorflow.alltoall is not provided by scopeflow"),
            (lambda: hvd.DistributedGradientTape, "TF2's GradientTape"),
            (lambda: hvd.no_such_name, "not a name of Horovod's TF API"),
            (lambda: hvd.DistributedOptimizer(opt, op=hvd.Adasum),
             r"DistributedOptimizer\(op=ReduceOp.ADASUM\)"),
            (lambda: hvd.DistributedOptimizer(opt, backward_passes_per_step=2),
             "backward_passes_per_step=2"),
            (lambda: hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16),
             r"compression=_FP16Compressor"),
            (lambda: hvd.allreduce(tf.constant(1.0), op=hvd.Max), "Max|MAX"),
            (lambda: hvd.init(comm=[0]), r"init\(comm=...\)")]:
        with pytest.raises(NotImplementedError, match=match):
            call()
    assert not hasattr(hvd, "alltoall")     # an AttributeError too: feature probes work


SCRIPT = """\
    import numpy as np
    import tensorflow.compat.v1 as tf
    import horovod.tensorflow as hvd

    hvd.init()
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.get_variable("w", [1, 1], initializer=tf.random_normal_initializer(seed=hvd.rank()))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1))
    train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    hooks = [hvd.BroadcastGlobalVariablesHook(0), tf.train.StopAtStepHook(last_step=20)]
    xs = np.arange(8, dtype=np.float32).reshape(-1, 1) / 8
    mine = np.array_split(xs, hvd.size())[hvd.rank()]
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        while not sess.should_stop():
            _, now = sess.run([train, w], {x: mine, y: 3 * mine})
    print(f"rank {hvd.rank()}/{hvd.size()} w={now[0, 0]:.6f}", flush=True)
    """


def test_a_horovod_script_runs_under_scopeflow_run(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPT))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "scopeflow", "run", "train.py"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("rank 0/1 w=")


def _mpiexec():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    return shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpiexec")


@pytest.mark.skipif(_mpiexec() is None, reason="mpi4py or mpiexec not installed")
def test_a_horovod_script_on_two_workers(tmp_path):
    """Both workers end with the same weights (gradients averaged, rank 0's start)."""
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPT))
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    proc = subprocess.Popen([_mpiexec(), "-n", "2", sys.executable, "-m", "scopeflow", "run",
                             "train.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mpiexec -n 2 hung:\n{out}\n{err[-3000:]}")
    assert proc.returncode == 0, err[-3000:]
    lines = sorted(out.splitlines())
    assert [line.split(" w=")[0] for line in lines] == ["rank 0/2", "rank 1/2"]
    assert lines[0].split(" w=")[1] == lines[1].split(" w=")[1]
