"""Peak memory of the seed CNN's training, for scopeflow or (with --tf) real TensorFlow.

    python bench/bench_memory.py            # scopeflow
    ../shared/tools/tf1 bench/bench_memory.py --tf
    python bench/compare.py bench/bench_memory.py

Trains bench_conv.py's model (seed 003's MNIST CNN, Adam, batch 50 of random images) for
30 steps in a fresh child process (this script, ``--child``, run by the same interpreter:
under ``--tf``, TensorFlow's), so nothing the parent imported or allocated counts. The
child reports its peak resident set size, ``getrusage(RUSAGE_SELF).ru_maxrss``, right
after importing the framework (and NumPy) and again after training. Prints one JSON line
in MiB (lower is better): ``import_rss_mb``, ``peak_rss_mb`` (after training),
``peak_rss_above_import_mb`` (their difference: graph, session, variables, the step's
buffers, and whatever the initializers or a step held for a moment), and the resident
set at the end, ``rss_at_end_mb`` (``VmRSS``: what training keeps, not its transient
peak). The memory does not depend on the machine's load, so one child is enough; under
compare.py it still runs in its turn, never beside the other framework's child.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import timing  # noqa: E402 - bench/ is on sys.path when a script runs

USE_TF = "--tf" in sys.argv
STEPS = 30


def _max_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _rss_now_mib():
    with open("/proc/self/status") as f:  # Linux, as ru_maxrss's unit (KiB) is
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line in /proc/self/status")


def child():
    """Imports the framework, trains, prints the two peaks (MiB) as one JSON line."""
    if USE_TF:
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()  # the child is plain python, not the tf1 tool
    else:
        import scopeflow as tf
    import numpy  # noqa: F401 - both frameworks import it; counted in the import peak

    after_import = _max_rss_mib()
    import bench_conv  # the model; it picks the same framework from sys.argv

    train, x, y, keep = bench_conv.mnist_model()
    images, labels = bench_conv.mnist_batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        step = sess.make_callable(train, [x, y, keep])
        for _ in range(STEPS):
            step(images, labels, 0.5)
    print(json.dumps({"import_rss_mb": after_import, "peak_rss_mb": _max_rss_mib(),
                      "rss_at_end_mb": _rss_now_mib()}))


def run_child():
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + (["--tf"] if USE_TF else [])
    env = dict(os.environ)
    env.pop("SCOPEFLOW_BENCH_TURNS", None)  # the child times nothing and waits for no turn
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        sys.exit(f"bench_memory: the training child failed:\n{out.stderr}")
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


def main():
    [result] = timing.each_round(run_child)
    name = "tensorflow " + _tf_version() if USE_TF else "scopeflow"
    print(json.dumps({"framework": name, "import_rss_mb": result["import_rss_mb"],
                      "peak_rss_mb": result["peak_rss_mb"],
                      "peak_rss_above_import_mb": result["peak_rss_mb"]
                      - result["import_rss_mb"],
                      "rss_at_end_mb": result["rss_at_end_mb"]}))


def _tf_version():
    import tensorflow as tf  # the tf1 tool imported it already: free
    return tf.__version__


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
    else:
        main()
