"""The seed CNN step's achieved GFLOP/s against this machine's sgemm rate.

    python bench/bench_gflops.py [--batch 50]

Counts the multiply-adds of the step's convolutions and matrix products (2 FLOPs each;
the elementwise ops, pooling and Adam are left out, as GEMM-bound work is what a FLOP
rate measures), times the step as
``bench_conv.py`` does, and times NumPy's float32 GEMM (its OpenBLAS) on 2048x2048
matrices with one thread and with all cores. Prints the CPU model, then one JSON line.
With ``--tf``, the same for real TensorFlow's step (the sgemm rate is NumPy's either way).
"""

from __future__ import annotations

import json
import sys

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs
from bench_conv import BATCH, mnist_step, tf

SGEMM_N = 2048


def step_flops(batch) -> int:
    """2 x the multiply-adds of the step's convolutions and matrix products.

    The passes a training step runs: each conv forward, its filter gradient, and its input
    gradient except for the first layer (the images need none, so neither framework
    computes it); each dense layer's product and its two gradients.
    """
    conv1 = 2 * batch * 28 * 28 * 32 * 5 * 5 * 1     # per pass: output positions x taps
    conv2 = 2 * batch * 14 * 14 * 64 * 5 * 5 * 32
    dense1 = 2 * batch * 7 * 7 * 64 * 1024
    dense2 = 2 * batch * 1024 * 10
    return 2 * conv1 + 3 * conv2 + 3 * dense1 + 3 * dense2


def sgemm_gflops(threads: int | None) -> float:
    """NumPy's float32 GEMM rate, best of 5, with ``threads`` BLAS threads (None: all)."""
    a = np.random.default_rng(0).random((SGEMM_N, SGEMM_N), dtype=np.float32)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threads is not None and threadpool_limits is None:
        return float("nan")
    ctx = threadpool_limits(threads) if threads is not None else None
    try:
        if ctx is not None:
            ctx.__enter__()
        a @ a
        best = timing.best_of(lambda: a @ a, 5, 1)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
    return 2 * SGEMM_N ** 3 / best / 1e9


def main():
    batch = int(sys.argv[sys.argv.index("--batch") + 1]) if "--batch" in sys.argv else BATCH
    step_ms = mnist_step(batch)["mnist_train_step_ms"]
    flops = step_flops(batch)
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow",
           "cpu": timing.cpu_model(), "batch": batch, "step_gflop": flops / 1e9,
           "step_ms": step_ms, "step_gflops_per_s": flops / step_ms / 1e6,
           "sgemm_1_thread_gflops_per_s": sgemm_gflops(1),
           "sgemm_all_cores_gflops_per_s": sgemm_gflops(None)}
    out["fraction_of_sgemm"] = out["step_gflops_per_s"] / out["sgemm_all_cores_gflops_per_s"]
    print(f"CPU: {out['cpu']}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
