"""Keeps freed step-sized buffers in the process instead of handing them back to the OS.

A training step frees and reallocates the same large arrays every run (a dense layer's
weight gradient, 12.8 MB in the seed CNN). With glibc's defaults such an array sits at the
top of the heap when it is freed, the heap is trimmed, and the next step takes it back from
the kernel page by page: measured on the seed CNN's main job with the oneDNN backend (AMD
EPYC, 2 cores), 3,000-3,500 page faults and 22-33 ms of system time per step, and with
NumPy's transparent-huge-page advice some faults stall 30-60 ms on memory compaction (step
p90 105-176 ms against a 55 ms median). The NumPy conv kernels hide it only by chance:
their cached scratch matrices sit above the freed arrays, so nothing is trimmed.

So, once per process, when the first ``Session`` is made (glibc only):

- ``M_MMAP_THRESHOLD`` = 64 MiB: arrays below it come from the heap, which is reused,
  rather than from a fresh ``mmap`` each time;
- ``M_TRIM_THRESHOLD`` = 256 MiB: up to that much freed memory at the top of the heap stays
  with the process.

With both, the same main-job steps made no page faults, 1.7-2.1 ms of system time and a p90
of 61-65 ms. The price: after a run frees up to 256 MiB, the process's resident size does
not shrink (peak RSS is unchanged). Values never change. ``SCOPEFLOW_MALLOC_TUNING=0``
turns it off, and a ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_`` the user set
in the environment (glibc's own switches) is left as it is.
"""

from __future__ import annotations

import ctypes
import os
import platform
import threading

__all__ = ["apply_once", "status", "SETTINGS", "ENV_VAR"]

ENV_VAR = "SCOPEFLOW_MALLOC_TUNING"
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # malloc.h
# (mallopt parameter, value, glibc's environment variable for it)
SETTINGS = (("M_MMAP_THRESHOLD", _M_MMAP_THRESHOLD, 64 << 20, "MALLOC_MMAP_THRESHOLD_"),
            ("M_TRIM_THRESHOLD", _M_TRIM_THRESHOLD, 256 << 20, "MALLOC_TRIM_THRESHOLD_"))

_LOCK = threading.Lock()
_STATUS: dict = {}


def _mallopt():
    """glibc's ``mallopt``, or None (another C library, or not Linux)."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None


def apply_once() -> None:
    """Applies ``SETTINGS`` the first time it is called in this process (then does nothing)."""
    if _STATUS:
        return
    with _LOCK:
        if _STATUS:
            return
        if os.environ.get(ENV_VAR, "1").strip().lower() in ("0", "false", "off", "no"):
            _STATUS["off"] = f"switched off ({ENV_VAR}=0)"
            return
        mallopt = _mallopt()
        if mallopt is None:
            _STATUS["off"] = "not glibc"
            return
        for name, param, value, env in SETTINGS:
            if env in os.environ:
                _STATUS[name] = f"left to {env}={os.environ[env]}"
            elif mallopt(param, value) == 1:
                _STATUS[name] = value
            else:
                _STATUS[name] = "refused by mallopt"


def status() -> dict:
    """What ``apply_once`` did: each setting's value, or why it was left alone."""
    return dict(_STATUS)
