"""scopeflow.distributed under a real ``mpiexec -n 2`` (and 3): collectives' values and
gradients, averaged gradients equal to one process's on the whole batch, a small CNN
trained on 2 workers staying identical across ranks and equal to one worker with the
whole batch, files written by rank 0 only, resuming with another number of workers, and
a dead or stuck worker stopping the job instead of hanging it.

Each MPI program runs as a subprocess in its own process group under a timeout, so a hang
fails the test instead of hanging CI. Skipped when mpi4py or mpiexec is missing, unless
SCOPEFLOW_REQUIRE_MPI=1 (CI installs the ``mpi`` extra and sets it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _mpiexec():
    """MPICH's mpiexec from this environment's bin/ (the wheel's, matching mpi4py), else
    the one on PATH."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None, "mpi4py is not installed (pip install 'scopeflow[mpi]')"
    here = shutil.which("mpiexec", path=str(Path(sys.executable).parent))
    found = here or shutil.which("mpiexec")
    return (found, None) if found else (None, "no mpiexec (the mpich wheel puts one in bin/)")


MPIEXEC, WHY_NOT = _mpiexec()


@pytest.fixture(scope="module")
def mpiexec():
    if MPIEXEC is None:
        if os.environ.get("SCOPEFLOW_REQUIRE_MPI") == "1":
            pytest.fail(f"SCOPEFLOW_REQUIRE_MPI=1 but {WHY_NOT}")
        pytest.skip(WHY_NOT)
    return MPIEXEC


def _run(mpiexec, n, tmp_path, source, *args, timeout=180):
    """Runs ``source`` on ``n`` MPI processes; returns (returncode, stdout, stderr, seconds).
    A run past ``timeout`` is killed with its whole process group, and the test fails."""
    prog = tmp_path / f"prog_{abs(hash(source)) % 10**8}.py"
    prog.write_text(PRELUDE + textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    start = time.monotonic()
    proc = subprocess.Popen([mpiexec, "-n", str(n), sys.executable, str(prog), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mpiexec -n {n} hung for {timeout} s:\n{out[-2000:]}\n{err[-3000:]}")
    return proc.returncode, out, err, time.monotonic() - start


def _ok(result):
    rc, out, err, _ = result
    assert rc == 0, f"rc={rc}\n{out[-3000:]}\n{err[-5000:]}"
    return out


PRELUDE = """\
import os, sys
import numpy as np
import scopeflow as tf
import scopeflow.distributed as sfd
"""

# ── collectives ──────────────────────────────────────────────────────────────────────
COLLECTIVES = """
sfd.init(timeout=60)
r, n = sfd.rank(), sfd.size()
assert sfd.local_size() == n and 0 <= sfd.local_rank() < n, (sfd.local_rank(), sfd.local_size())
x = tf.constant([1.0, 2.0]) * float(r + 1)
mean, total = sfd.allreduce(x), sfd.allreduce(x, average=False)
ints = sfd.allreduce(tf.constant([r, 1], tf.int32), average=False)
half = sfd.allreduce(tf.constant([r + 0.5], tf.float16))
gathered = sfd.allgather(tf.fill([r + 1, 2], float(r)))
root = n - 1
bcast = sfd.broadcast(tf.constant([10 * r, 7]), root)
# gradients: allgather (sum over workers, sliced back) and broadcast (to the root only)
xg = tf.constant(np.ones((r + 1, 2), np.float32))
rows = n * (n + 1) // 2
w = tf.constant(np.arange(rows * 2, dtype=np.float32).reshape(rows, 2))
(g_gather,) = tf.gradients(tf.reduce_sum(sfd.allgather(xg) * w), [xg])
xb = tf.constant([1.0, 1.0])
(g_bcast,) = tf.gradients(tf.reduce_sum(sfd.broadcast(xb, root) * [3.0, 4.0]), [xb])
(g_reduce,) = tf.gradients(tf.reduce_sum(sfd.allreduce(xb) * float(r + 1)), [xb])
s = tf.Session()
vals = s.run(dict(mean=mean, total=total, ints=ints, half=half, gathered=gathered,
                  bcast=bcast, g_gather=g_gather, g_bcast=g_bcast, g_reduce=g_reduce))
np.savez(f"collectives{r}.npz", rank=r, size=n, **vals)
"""


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_values_and_gradients(mpiexec, tmp_path, n):
    _ok(_run(mpiexec, n, tmp_path, COLLECTIVES))
    rows = n * (n + 1) // 2
    w = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
    k = sum(range(1, n + 1))
    for r in range(n):
        v = np.load(tmp_path / f"collectives{r}.npz")
        assert int(v["rank"]) == r and int(v["size"]) == n
        np.testing.assert_allclose(v["total"], [k, 2 * k])
        np.testing.assert_allclose(v["mean"], [k / n, 2 * k / n], rtol=1e-6)
        assert v["ints"].dtype == np.int32 and v["ints"].tolist() == [n * (n - 1) // 2, n]
        assert v["half"].dtype == np.float16
        np.testing.assert_allclose(v["half"], [(n * (n - 1) / 2 + 0.5 * n) / n], rtol=1e-3)
        want = np.concatenate([np.full((q + 1, 2), float(q), np.float32) for q in range(n)])
        np.testing.assert_array_equal(v["gathered"], want)
        assert v["bcast"].tolist() == [10 * (n - 1), 7]
        offset = r * (r + 1) // 2
        np.testing.assert_allclose(v["g_gather"], n * w[offset:offset + r + 1])
        np.testing.assert_allclose(v["g_bcast"], [3.0 * n, 4.0 * n] if r == n - 1 else [0, 0])
        np.testing.assert_allclose(v["g_reduce"], [k / n, k / n], rtol=1e-6)


# ── averaged gradients == one process's on the whole batch ───────────────────────────
GRADS = """
out, threshold, as_dense = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "dense"
sfd.init(timeout=60)
r, n = sfd.rank(), sfd.size()
B = 4
rng = np.random.default_rng(0)
X = rng.normal(size=(n * B, 6, 6, 1)).astype(np.float32)
Y = rng.integers(0, 3, size=n * B)
IDS = rng.integers(0, 10, size=n * B)


def model(x, y, ids):
    tf.set_random_seed(1)
    w = tf.get_variable("w", [3, 3, 1, 2])
    emb = tf.get_variable("emb", [10, 2])
    d = tf.get_variable("d", [74, 3])
    b = tf.get_variable("b", [3], initializer=tf.constant_initializer(0.1))
    h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
    feats = tf.concat([tf.reshape(h, [-1, 72]), tf.nn.embedding_lookup(emb, ids)], 1)
    logits = tf.matmul(feats, d) + b
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))


def dense_grads(opt, lo, hi):
    loss = model(tf.constant(X[lo:hi]), tf.constant(Y[lo:hi]), tf.constant(IDS[lo:hi]))
    gv = opt.compute_gradients(loss)
    sparse = [type(g).__name__ for g, _ in gv]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([g for g, _ in gv])
    out = {}
    for (g, v), val in zip(gv, got):
        if hasattr(val, "indices"):
            dense = np.zeros(v.shape.as_list(), val.values.dtype)
            np.add.at(dense, val.indices, val.values)
            val = dense
        out[v.op.name] = val
    return out, sparse


opt = sfd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1),
                               fusion_threshold=threshold, sparse_as_dense=as_dense)
grads, kinds = dense_grads(opt, r * B, (r + 1) * B)
# the embedding's gradient stays sparse (gathered), unless sparse_as_dense
assert kinds.count("IndexedSlices") == (0 if as_dense else 1), kinds
np.savez(os.path.join(out, f"rank{r}.npz"), **grads)
if r == 0:  # the reference: one process, plain optimizer, the whole batch of n*B
    with tf.Graph().as_default():
        ref, _ = dense_grads(tf.train.GradientDescentOptimizer(0.1), 0, n * B)
    np.savez(os.path.join(out, "reference.npz"), **ref)
    fused = [op for op in tf.get_default_graph().get_operations() if op.type == "MpiAllreduce"]
    print("MpiAllreduce ops:", len(fused), "inputs:", len(fused[0].inputs))
"""


@pytest.mark.parametrize("n,threshold,sparse", [(2, 64 << 20, "sparse"), (3, 64 << 20, "sparse"),
                                                (2, 100, "sparse"), (3, 0, "dense")])
def test_averaged_gradients_equal_one_process_on_whole_batch(mpiexec, tmp_path, n, threshold,
                                                              sparse):
    out = _ok(_run(mpiexec, n, tmp_path, GRADS, tmp_path, threshold, sparse))
    # the dense gradients (and the densified embedding's) go through one fused op
    assert f"MpiAllreduce ops: 1 inputs: {3 if sparse == 'sparse' else 4}" in out
    ref = np.load(tmp_path / "reference.npz")
    for r in range(n):
        got = np.load(tmp_path / f"rank{r}.npz")
        assert sorted(got.files) == sorted(ref.files) == ["b", "d", "emb", "w"]
        for name in ref.files:
            np.testing.assert_allclose(got[name], ref[name], rtol=2e-5, atol=1e-6,
                                       err_msg=f"rank {r} of {n}: {name}")
            # every rank holds the very same bits
            np.testing.assert_array_equal(got[name], np.load(tmp_path / "rank0.npz")[name])


# ── training: a small CNN on 2 workers, rank 0 writes files, resume with 3 ───────────
TRAIN = """
base, steps, B = sys.argv[1], int(sys.argv[2]), 8
sfd.init(timeout=120)
r, n = sfd.rank(), sfd.size()


def cnn(x):
    h = tf.layers.conv2d(x, 4, 5, padding="same", activation=tf.nn.relu, name="conv")
    h = tf.layers.max_pooling2d(h, 2, 2)
    return tf.layers.dense(tf.reshape(h, [-1, 14 * 14 * 4]), 10, name="logits")


def batch(step):  # the whole batch of step `step` (n*B MNIST-shaped examples)
    rng = np.random.default_rng(1000 + step)
    return (rng.uniform(0, 1, (n * B, 28, 28, 1)).astype(np.float32),
            rng.integers(0, 10, n * B))


def build(opt_wrapper):
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.int64, [None])
    loss = tf.losses.sparse_softmax_cross_entropy(y, cnn(x))
    tf.summary.scalar("loss", loss)
    step = tf.train.get_or_create_global_step()
    train = opt_wrapper(tf.train.AdamOptimizer(1e-2)).minimize(loss, global_step=step)
    return x, y, loss, step, train


tf.set_random_seed(100 + r)  # different initial values on each rank: the hook fixes them
x, y, loss, step_t, train = build(sfd.DistributedOptimizer)
hooks = [sfd.BroadcastGlobalVariablesHook(0)]
logdir = sfd.on_root(os.path.join(base, f"rank{r}"))  # rank 0 only writes files
with tf.train.MonitoredTrainingSession(checkpoint_dir=logdir, hooks=hooks,
                                       save_summaries_steps=2, save_checkpoint_steps=2,
                                       log_step_count_steps=None) as sess:
    raw = sess._tf_sess()  # reads without the hooks (whose summaries need the feeds)
    names = [v.op.name for v in tf.global_variables()]
    first = raw.run(step_t)
    start = raw.run(tf.global_variables())
    losses = []
    while raw.run(step_t) < steps:
        xb, yb = batch(raw.run(step_t))
        _, l = sess.run([train, loss], {x: xb[r * B:(r + 1) * B], y: yb[r * B:(r + 1) * B]})
        losses.append(float(l))
    end = raw.run(tf.global_variables())
np.savez(os.path.join(base, f"vars{r}_{n}.npz"), first=first, losses=losses,
         **{"start/" + k: v for k, v in zip(names, start)},
         **{"end/" + k: v for k, v in zip(names, end)})
if r == 0 and first == 0:
    # One worker, the whole batch of n*B, from rank 0's initial values.
    with tf.Graph().as_default():
        tf.set_random_seed(100)
        x, y, loss, step_t, train = build(lambda opt: opt)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            ref_start = s.run(tf.global_variables())
            for i in range(steps):
                xb, yb = batch(i)
                s.run(train, {x: xb, y: yb})
            ref_end = s.run(tf.global_variables())
    np.savez(os.path.join(base, f"reference_{n}.npz"),
             **{"start/" + k: v for k, v in zip(names, ref_start)},
             **{"end/" + k: v for k, v in zip(names, ref_end)})
"""


def test_cnn_trains_on_2_workers_like_one_with_whole_batch_then_resumes_on_3(mpiexec,
                                                                            tmp_path):
    _ok(_run(mpiexec, 2, tmp_path, TRAIN, tmp_path, 6, timeout=300))
    v0, v1 = np.load(tmp_path / "vars0_2.npz"), np.load(tmp_path / "vars1_2.npz")
    ref = np.load(tmp_path / "reference_2.npz")
    names = [k for k in v0.files if k.startswith(("start/", "end/"))]
    assert "end/conv/kernel" in names and "end/logits/kernel/Adam" in names
    for k in names:  # identical across ranks, after the broadcast and after training
        np.testing.assert_array_equal(v0[k], v1[k], err_msg=k)
    for k in names:  # N workers x batch b == one worker x batch N*b
        np.testing.assert_allclose(v0[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
    assert int(v0["end/global_step"]) == 6 and int(v0["first"]) == 0
    assert v0["losses"][-1] < v0["losses"][0]
    # Only rank 0 wrote files: its checkpoints and summaries; rank 1's directory is absent.
    rank0 = tmp_path / "rank0"
    assert (rank0 / "checkpoint").is_file() and list(rank0.glob("model.ckpt-6.index"))
    assert list(rank0.glob("events.out.tfevents.*"))
    assert not (tmp_path / "rank1").exists()

    # Relaunched with 3 workers: rank 0 restores step 6, the hook hands it to the others.
    _ok(_run(mpiexec, 3, tmp_path, TRAIN, tmp_path, 8, timeout=300))
    runs = [np.load(tmp_path / f"vars{r}_3.npz") for r in range(3)]
    assert [int(v["first"]) for v in runs] == [6, 6, 6]
    for k in names:
        np.testing.assert_array_equal(runs[1][k], runs[0][k], err_msg=k)
        np.testing.assert_array_equal(runs[2][k], runs[0][k], err_msg=k)
    for k in [k for k in names if k.startswith("start/")]:  # restored = where 2 workers ended
        np.testing.assert_array_equal(runs[0][k], v0["end/" + k[len("start/"):]], err_msg=k)
    assert int(runs[0]["end/global_step"]) == 8
    assert list(rank0.glob("model.ckpt-8.index"))
    assert not (tmp_path / "rank1").exists() and not (tmp_path / "rank2").exists()


# ── failures: a finished or crashed worker stops the job ─────────────────────────────
HANG = """
sfd.init(timeout=3)
x = sfd.allreduce(tf.constant([1.0, 2.0]))
s = tf.Session()
s.run(x)
if sfd.rank() == 1:
    sys.exit(0)  # finishes (MPI_Finalize) while rank 0 waits in its next allreduce
s.run(x)
print("unreachable", flush=True)
"""


def test_a_worker_that_left_makes_the_others_fail_within_the_timeout(mpiexec, tmp_path):
    rc, out, err, seconds = _run(mpiexec, 2, tmp_path, HANG, timeout=60)
    assert rc != 0 and "unreachable" not in out
    assert "DeadlineExceededError" in err and "rank 0 of 2 waited 3 s" in err, err[-3000:]
    assert "MpiAllreduce" in err and "aborting the job (MPI_Abort)" in err
    assert seconds < 40


CRASH = """
sfd.init()  # the default timeout (600 s): the job must still end at once
x = sfd.allreduce(tf.constant([1.0, 2.0]))
s = tf.Session()
for step in range(100):
    if sfd.rank() == 1 and step == 3:
        raise RuntimeError("worker 1 crashed at step 3")
    s.run(x)
"""


def test_a_crashed_worker_ends_the_job_at_once(mpiexec, tmp_path):
    rc, out, err, seconds = _run(mpiexec, 3, tmp_path, CRASH, timeout=120)
    assert rc != 0
    assert "worker 1 crashed at step 3" in err, err[-3000:]
    assert seconds < 60  # far below the 600 s collective timeout


# ── the main job under mpiexec ────────────────────────────────────────────────────────
def test_main_job_runs_unchanged_under_mpiexec(mpiexec, tmp_path, mnist_split_dir):
    logdir = tmp_path / "run"
    source = f"""
from scopeflow.examples import mnist_cnn
sys.exit(mnist_cnn.main(["--steps", "4", "--validation-size", "1000", "--eval-every", "2",
                         "--log-every", "2", "--save-every", "2", "--data-dir",
                         {str(mnist_split_dir)!r}, "--logdir", {str(logdir)!r}]))
"""
    out = _ok(_run(mpiexec, 2, tmp_path, source, timeout=300))
    assert out.count("test accuracy: ") == 1 and out.count("training the seed's CNN") == 1
    assert 'model_checkpoint_path: "model.ckpt-4"' in (logdir / "checkpoint").read_text()
    assert len(list(logdir.glob("events.out.tfevents.*"))) == 1  # rank 0's writer only
    # relaunched on 3 workers, it resumes from rank 0's checkpoint
    out = _ok(_run(mpiexec, 3, tmp_path, source.replace('"4"', '"6"'), timeout=300))
    assert "resuming from" in out and "model.ckpt-4" in out and out.count("test accuracy") == 1
    assert list(logdir.glob("model.ckpt-6.index"))
