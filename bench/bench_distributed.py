"""Data-parallel scaling of the seed CNN with scopeflow.distributed (1 and 2 processes).

    python bench/bench_distributed.py [--procs 1 2] [--batch 50] [--steps 10]

Launches itself under ``mpiexec -n N`` for each N; every worker trains the seed CNN
(scopeflow.examples.mnist_cnn, Adam) on its own batch of ``--batch`` MNIST-shaped random
examples with ``DistributedOptimizer``, so N workers process N·batch examples a step.
Rank 0 reports the best step time over the timed rounds (every round starts at a barrier)
and the time of one fused allreduce of all the model's gradients (3.3 M floats, 13 MB).
Prints a table and one JSON line; scaling efficiency = throughput(N) / (N · throughput(1)).
There is no TensorFlow side: TF1 has no MPI of its own (Horovod is a separate build).
This measures the per-host cost of the collectives; across hosts the network adds to it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(args):
    import numpy as np

    import scopeflow as tf
    import scopeflow.distributed as sfd
    from scopeflow.examples.mnist_cnn import cnn_logits

    sfd.init(timeout=300)
    r, n = sfd.rank(), sfd.size()
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.int64, [None])
    logits, variables = cnn_logits(x, 1.0)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    opt = sfd.DistributedOptimizer(tf.train.AdamOptimizer(1e-4))
    train = opt.minimize(loss, var_list=variables)
    grads = [tf.zeros_like(v) for v in variables]
    fused = tf.group(*sfd.grouped_allreduce(grads))
    rng = np.random.default_rng(r)
    feed = {x: rng.uniform(0, 1, (args.batch, 28, 28, 1)).astype(np.float32),
            y: rng.integers(0, 10, args.batch)}
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(sfd.broadcast_global_variables(0))

    def best(fn, rounds, number):
        times = []
        for _ in range(rounds):
            sfd.barrier()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times.append((time.perf_counter() - t0) / number)
        return min(times)

    sess.run(train, feed)  # warm-up: plans compiled, buffers allocated
    sess.run(fused)
    step = best(lambda: sess.run(train, feed), args.rounds, args.steps)
    reduce = best(lambda: sess.run(fused), args.rounds, 5)
    if r == 0:
        floats = sum(int(np.prod(v.shape.as_list())) for v in variables)
        print(json.dumps({"procs": n, "batch_per_worker": args.batch, "step_s": step,
                          "examples_per_s": n * args.batch / step, "allreduce_s": reduce,
                          "gradient_floats": floats}), flush=True)


def driver(args):
    mpiexec = (shutil.which("mpiexec", path=str(Path(sys.executable).parent))
               or shutil.which("mpiexec"))
    if mpiexec is None:
        raise SystemExit("no mpiexec: pip install 'scopeflow[mpi]'")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    results = []
    for n in args.procs:
        cmd = [mpiexec, "-n", str(n), sys.executable, __file__, "--worker",
               "--batch", str(args.batch), "--steps", str(args.steps),
               "--rounds", str(args.rounds)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800,
                             check=True)
        results.append(json.loads([ln for ln in out.stdout.splitlines()
                                   if ln.startswith("{")][-1]))
    base = results[0]["examples_per_s"] / results[0]["procs"]
    print(f"{'procs':>5} {'step (s)':>9} {'examples/s':>11} {'efficiency':>10} "
          f"{'allreduce 13MB (s)':>19}")
    for res in results:
        res["efficiency"] = res["examples_per_s"] / (res["procs"] * base)
        print(f"{res['procs']:>5} {res['step_s']:>9.3f} {res['examples_per_s']:>11.1f} "
              f"{res['efficiency']:>10.2f} {res['allreduce_s']:>19.4f}")
    cpus = os.cpu_count()
    print(json.dumps({"cpus": cpus, "results": results}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--procs", type=int, nargs="+", default=[1, 2])
    p.add_argument("--batch", type=int, default=50)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    (worker if args.worker else driver)(args)


if __name__ == "__main__":
    main()
