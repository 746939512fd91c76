"""``scopeflow info``: the kernel backend each op uses, the native library and its threads.

    scopeflow info            # human-readable
    scopeflow info --json     # one JSON document

The ops listed are :data:`scopeflow.native.backends.NATIVE`'s, the table the kernels
choose from: a conv op or MaxPool uses oneDNN (``scopeflow[fast]``) for float32 NHWC
operands when the library loads and ``SCOPEFLOW_NATIVE`` is not 0; any other case runs
the NumPy kernel. The implementation oneDNN picks is shown for each entry's probe: the
seed CNN's second conv layer (batch 50, 14x14x32 -> 64, 5x5, SAME) and its first pooling
(28x28x32, 2x2, stride 2).
"""

from __future__ import annotations

import os
import platform

import numpy as np

from scopeflow.cli import version
from scopeflow.native import backends, onednn
from scopeflow.ops.math import blas
from scopeflow.ops.nn import conv_ops
from scopeflow.platform.cli_conventions import epilog, print_json
from scopeflow.runtime import malloc_tuning


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas_threads():
    return None if blas._BLAS_THREADS is None else int(blas._BLAS_THREADS[1]())


def collect() -> dict:
    """Everything ``scopeflow info`` prints, as a dict (the ``--json`` document)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    dnnl = onednn.backend()
    doc = {"scopeflow": version(), "python": platform.python_version(),
           "numpy": np.__version__, "cpu": _cpu_model(), "cores": cores,
           "blas_threads": _blas_threads(), "native_enabled": onednn.enabled()}
    if dnnl is None:
        doc["onednn"] = {"loaded": False, "reason": onednn.load_error()}
    else:
        doc["onednn"] = {"loaded": True, **dnnl.describe(),
                         "batch_split": _batch_split(dnnl)}
    doc["ops"] = {op: _op_backend(kernel, dnnl) for op, kernel in backends.NATIVE.items()}
    # The consumer_fusion pass (scopeflow.runtime.passes), with the backend only.
    doc["fused"] = ({"Conv2D+BiasAdd+Relu": "one oneDNN call (the bias a post-op), the ReLU "
                     "applied to each half of the batch as it is written; also "
                     "Conv2D+BiasAdd, and Add of a bias vector for BiasAdd"}
                    if dnnl is not None else {})
    doc["other_ops"] = "numpy"
    malloc_tuning.apply_once()  # as the first Session would
    doc["malloc"] = malloc_tuning.status()
    return doc


def _op_backend(kernel: backends.NativeKernel, dnnl) -> dict:
    """One op's row: the backend its float32 NHWC operands get here and now."""
    if dnnl is None:
        return {"backend": backends.NUMPY, "reason": "oneDNN not loaded"}
    impl = kernel.implementation(dnnl)
    return {"backend": kernel.backend if impl else backends.NUMPY, "when": kernel.when,
            "probe": kernel.probe, "impl": impl}


def _batch_split(dnnl) -> str:
    if dnnl.threads > 1:
        return "none (the OpenMP team has several threads)"
    if blas._BLAS_THREADS is None or _blas_threads() < 2:
        return "none (one BLAS thread)"
    return (f"conv passes from {conv_ops._NATIVE_SPLIT_FLOPS:.0e} FLOPs run as two halves "
            "of the batch on two threads")


def _info(args) -> int:
    doc = collect()
    if args.json:
        print_json(doc)
        return 0
    print(f"scopeflow {doc['scopeflow']} (Python {doc['python']}, NumPy {doc['numpy']})")
    print(f"CPU: {doc['cpu']}, {doc['cores']} cores available; BLAS threads: "
          f"{doc['blas_threads']}")
    d = doc["onednn"]
    if d["loaded"]:
        threads = f"{d['threads']} OpenMP thread" + ("s" if d["threads"] != 1 else "")
        print(f"oneDNN {d['version']}: {threads}, OMP_WAIT_POLICY="
              f"{d['omp_wait_policy']} ({d['library']})")
        print(f"  batch split: {d['batch_split']}")
    else:
        print(f"oneDNN: not used ({d['reason']})")
    print("kernel backends:")
    for op, row in doc["ops"].items():
        if row["backend"] == "onednn":
            print(f"  {op}: onednn for {row['when']} ({row['probe']}: {row['impl']})")
        else:
            print(f"  {op}: numpy ({row.get('reason', 'no fast oneDNN kernel')})")
    for chain, how in doc["fused"].items():
        print(f"  {chain}: {how}")
    print("  every other op (MaxPoolGrad included): numpy")
    tuning = doc["malloc"]
    print("malloc: " + (tuning["off"] if "off" in tuning else ", ".join(
        f"{k}={v >> 20} MiB" if isinstance(v, int) else f"{k} {v}" for k, v in tuning.items())))
    return 0


def add_parser(subparsers):
    """Adds the ``info`` subcommand to the ``scopeflow`` command line."""
    p = subparsers.add_parser("info", help="kernel backends, native library and threads",
                              description=__doc__.split("\n\n")[0], epilog=epilog())
    p.add_argument("--json", action="store_true", help="print one JSON document instead")
    p.set_defaults(func=_info)
