"""malloc_tuning: freed step-sized arrays stay in the process (glibc), values never change.

Each case runs in a fresh interpreter: the settings are process-wide and applied once.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="the tuning applies to glibc's malloc only")

_PROGRAM = r"""
import json, resource
import numpy as np
import scopeflow as tf
from scopeflow.runtime import malloc_tuning

tf.reset_default_graph()
x = tf.placeholder(tf.float32, [64, 784])
w = tf.Variable(tf.truncated_normal([784, 4096], stddev=0.1, seed=1))
loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
train = tf.train.AdamOptimizer(1e-3).minimize(loss)
feed = {x: np.random.default_rng(0).random((64, 784), dtype=np.float32)}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train, feed)
    # A step's pattern: a large array made, written and freed, every step. 48 MB is
    # above glibc's largest automatic mmap threshold (32 MB): without the tuning each one
    # is a fresh mmap, faulted in page by page.
    for _ in range(3):
        np.ones(12 << 20, np.float32)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        a = np.empty(12 << 20, np.float32)
        a.fill(1.0)
        del a
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    losses = [float(sess.run([train, loss], feed)[1]) for _ in range(3)]
    weights = sess.run(w)
print(json.dumps({"status": malloc_tuning.status(), "faults": faults, "losses": losses,
                  "checksum": weights.view(np.uint32).astype(np.uint64).sum().item()}))
"""


def _run(**env):
    full = dict(os.environ, **env)
    for name in ("SCOPEFLOW_MALLOC_TUNING", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"):
        if name not in env:
            full.pop(name, None)
    out = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True,
                         cwd=ROOT, env=full, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_freed_arrays_are_reused_without_page_faults_and_values_are_unchanged():
    on, off = _run(), _run(SCOPEFLOW_MALLOC_TUNING="0")
    assert on["status"] == {"M_MMAP_THRESHOLD": 64 << 20, "M_TRIM_THRESHOLD": 256 << 20}
    assert off["status"] == {"off": "switched off (SCOPEFLOW_MALLOC_TUNING=0)"}
    # 10 x 48 MB written: thousands of faults when each array comes fresh from the kernel
    # (fewer with transparent huge pages), none when the heap keeps it.
    assert on["faults"] < 50, on
    assert off["faults"] >= 100, off
    assert (on["losses"], on["checksum"]) == (off["losses"], off["checksum"])


def test_glibcs_own_environment_variables_win():
    got = _run(MALLOC_TRIM_THRESHOLD_="1048576")
    assert got["status"] == {"M_MMAP_THRESHOLD": 64 << 20,
                             "M_TRIM_THRESHOLD": "left to MALLOC_TRIM_THRESHOLD_=1048576"}
