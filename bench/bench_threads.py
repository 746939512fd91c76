"""The seed CNN step's parts on one thread and on two: the numbers behind the thread plan.

    python bench/bench_threads.py

For each heavy part of the step (batch 50), the time on one thread and on two, in the ways
scopeflow could use two:
- conv2's three passes on oneDNN (``fast`` extra): one thread; the batch split in two
  halves on scopeflow's two GEMM threads (what runs); oneDNN's own two-thread OpenMP team
  (in a child process with ``SCOPEFLOW_NATIVE_THREADS=2``);
- the dense layer's three products (50x3136 by 3136x1024): one BLAS thread; split over
  scopeflow's two threads (what runs); OpenBLAS's own two threads;
- Adam on the 3136x1024 weights, ReLU's gradient and MaxPool's gradient at conv1's size:
  one thread; split in two (what runs).
Best of 15 rounds of 3 calls, milliseconds; the CPU model first, then one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs

from scopeflow.native import onednn
from scopeflow.ops.math import blas
from scopeflow.ops.nn import nn_activation_ops, pool_ops
from scopeflow.ops.state import training_ops

PADS = ((2, 2), (2, 2))


def _ms(fn):
    fn()
    return round(timing.best_of(fn, 15, 3) * 1e3, 3)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def conv_parts(prefix):
    dnnl = onednn.backend()
    if dnnl is None:
        return {}
    x, w, dy = _rand(50, 14, 14, 32), _rand(5, 5, 32, 64, seed=1), _rand(50, 14, 14, 64, seed=2)
    geo = ((1, 1), (1, 1), PADS)
    whole = {"fwd": lambda lo, hi: dnnl.conv2d(x[lo:hi], w, *geo, (14, 14)),
             "bwd_data": lambda lo, hi: dnnl.conv2d_backprop_input(
                 (hi - lo, 14, 14, 32), w, dy[lo:hi], *geo),
             "bwd_weights": lambda lo, hi: dnnl.conv2d_backprop_filter(
                 x[lo:hi], (5, 5, 32, 64), dy[lo:hi], *geo)}
    out = {}
    for name, run in whole.items():
        out[f"{prefix}conv2_{name}_ms"] = _ms(lambda run=run: run(0, 50))
        if prefix == "1thread_":
            out[f"split_conv2_{name}_ms"] = _ms(
                lambda run=run: blas.split_rows(lambda lo, hi: run(lo, hi), 50, 1e12))
    return out


def other_parts():
    h, w3, g = _rand(50, 3136), _rand(3136, 1024, seed=1), _rand(50, 1024, seed=2)
    products = {"dense_fwd": (h, w3), "dense_dx": (g, w3.T), "dense_dw": (h.T, g)}
    out = {}
    set_threads, get_threads = blas._BLAS_THREADS or (None, None)
    for name, (a, b) in products.items():
        if set_threads is not None:
            before = get_threads()
            set_threads(1)
            out[f"1thread_{name}_ms"] = _ms(lambda a=a, b=b: np.dot(a, b))
            set_threads(2)
            out[f"openblas2_{name}_ms"] = _ms(lambda a=a, b=b: np.dot(a, b))
            set_threads(before)
        out[f"split_{name}_ms"] = _ms(lambda a=a, b=b: blas.gemm(a, b))
    # Adam, ReluGrad and MaxPoolGrad split their rows over two threads from a size up.
    var, m, v, grad = (_rand(3136, 1024, seed=s) for s in range(4))
    v = np.abs(v)
    x, dy = _rand(50, 28, 28, 32), _rand(50, 28, 28, 32, seed=1)
    y = x.reshape(50, 14, 2, 14, 2, 32).max(axis=(2, 4))
    dyp = _rand(50, 14, 14, 32, seed=2)

    flat = [a.reshape(-1) for a in (var, m, v, grad)]
    chunk = training_ops._CHUNK
    n_blocks = -(-flat[0].size // chunk)
    scratches = [np.empty(chunk, np.float32) for _ in range(2)]

    def adam_blocks(lo, hi):  # ApplyAdam's kernel, cache-sized blocks (it needs a session)
        tmp = scratches[0 if lo == 0 else 1]
        for b in range(lo, hi):
            x_, m_, v_, g_ = (a[b * chunk:(b + 1) * chunk] for a in flat)
            training_ops._adam_block(x_, m_, v_, g_, tmp[:x_.size], None, np.float32(0.1),
                                     np.float32(0.001), np.float32(1e-4), np.float32(0.9),
                                     np.float32(1e-8))

    parts = {"relu_grad": lambda: nn_activation_ops._relu_grad_kernel(dy, x),
             "max_pool_grad": lambda: pool_ops._max_pool_grad_2x2(x, y, dyp, 14, 14)}
    for name, fn in parts.items():
        out[f"split_{name}_ms"] = _ms(fn)
    out["1thread_adam_ms"] = _ms(lambda: adam_blocks(0, n_blocks))
    out["split_adam_ms"] = _ms(lambda: blas.split_rows(adam_blocks, n_blocks, 1e12))
    threshold = blas.PARALLEL_ELEMENTWISE_FLOPS
    try:  # every split_rows call below the threshold runs on one thread
        for mod in (nn_activation_ops, pool_ops):
            mod.PARALLEL_ELEMENTWISE_FLOPS = float("inf")
        for name, fn in parts.items():
            out[f"1thread_{name}_ms"] = _ms(fn)
    finally:
        for mod in (nn_activation_ops, pool_ops):
            mod.PARALLEL_ELEMENTWISE_FLOPS = threshold
    return out


def main():
    if "--openmp-child" in sys.argv:
        print(json.dumps(conv_parts("openmp2_")))
        return
    out = {"cpu": timing.cpu_model(), **conv_parts("1thread_")}
    if onednn.backend() is not None:
        child = subprocess.run(
            [sys.executable, __file__, "--openmp-child"], capture_output=True, text=True,
            check=True, env=dict(os.environ, SCOPEFLOW_NATIVE_THREADS="2",
                                 SCOPEFLOW_BENCH_TURNS=""))
        out.update(json.loads(child.stdout.strip().splitlines()[-1]))
    out.update(other_parts())
    print(f"CPU: {out['cpu']}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
