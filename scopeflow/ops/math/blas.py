"""Matrix products on NumPy's OpenBLAS without its thread spinning (used by MatMul and conv).

NOTE: OpenBLAS splits a GEMM over threads that spin while waiting for each other; for
skinny products like the first conv layer's (39200x25 @ 25x32) that costs 5x, and on a
busy 2-core machine a descheduled worker can stall a call for a second. So every call
here runs on one BLAS thread, and large products are split by rows over two Python
threads instead (NumPy releases the GIL; the halves block, they don't spin). The thread
count is process-wide: it is switched under a lock and restored right after.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["gemm", "split_rows", "parallel_ufunc", "PARALLEL_ELEMENTWISE_FLOPS"]

def _openblas_threads_setter():
    """NumPy's bundled OpenBLAS ``set/get_num_threads``, or None when not found."""
    import ctypes
    import glob
    import os
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs",
                                  "*openblas*"))
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            return lib.scipy_openblas_set_num_threads64_, lib.scipy_openblas_get_num_threads64_
        except (OSError, AttributeError):
            continue
    return None


_BLAS_THREADS = _openblas_threads_setter()
_BLAS_LOCK = threading.Lock()
# OpenBLAS's own cut-off (65536 * GEMM_MULTITHREAD_THRESHOLD): smaller products never thread.
_OPENBLAS_SINGLE_THREAD_MNK = 65536 * 4
_SMALL_GEMM_FLOPS = 2e8  # below this (or with a dim < 48) threading costs more than it gives
# Elementwise kernels split over two threads from ~400K elements; below, the second
# thread's hand-off costs more than it gives.
PARALLEL_ELEMENTWISE_FLOPS = 4e6


def _matmul_into(a, b, out):
    # The pool's half of a product, called from a scopeflow frame: NumPy's overflow and
    # invalid-value warnings are raised "from" the innermost Python frame, and scopeflow's
    # filter (TF's kernels do not warn on inf or NaN) matches only its own modules.
    np.matmul(a, b, out=out)


def gemm(a, b, out=None):
    """``a @ b`` for 2-D arrays: large products split over two single-threaded calls."""
    m, k = a.shape
    n = b.shape[1]
    mnk = m * n * k
    # np.dot, not np.matmul: matmul skips BLAS for some strided operands (an outer product
    # of two transposed columns took 40 us instead of 7).
    if _BLAS_THREADS is None or mnk <= _OPENBLAS_SINGLE_THREAD_MNK:
        return np.dot(a, b, out=out)  # OpenBLAS runs these on one thread by itself
    set_threads, get_threads = _BLAS_THREADS
    with _BLAS_LOCK:
        before = get_threads()
        set_threads(1)
        try:
            if 2.0 * mnk < _SMALL_GEMM_FLOPS or before < 2 or (m < 96 and n < 96):
                return np.dot(a, b, out=out)
            if out is None:
                out = np.empty((m, n), np.result_type(a, b))
            if m < 96:  # short and wide (a dense layer's small batch): split b's columns
                half = n // 2
                worker = _POOL.submit(_matmul_into, a, b[:, :half], out[:, :half])
                np.matmul(a, b[:, half:], out=out[:, half:])
                worker.result()
                return out
            half = m // 2
            worker = _POOL.submit(_matmul_into, a[:half], b, out[:half])
            np.matmul(a[half:], b, out=out[half:])
            worker.result()
            return out
        finally:
            set_threads(before)


def split_rows(task, m, flops, min_flops=_SMALL_GEMM_FLOPS):
    """Runs ``task(lo, hi)`` over rows ``[0, m)`` with single-threaded BLAS calls inside.

    Large jobs (``flops`` at least ``min_flops``, ``m >= 2``) are split in two
    halves run on two Python threads (each with its own thread-local scratch), so work
    around the GEMMs (im2col copies) runs in parallel too.
    """
    if _BLAS_THREADS is None:
        task(0, m)
        return
    set_threads, get_threads = _BLAS_THREADS
    with _BLAS_LOCK:
        before = get_threads()
        set_threads(1)
        try:
            if flops < min_flops or m < 2 or before < 2:
                task(0, m)
                return
            half = m // 2
            worker = _POOL.submit(task, 0, half)
            task(half, m)
            worker.result()
        finally:
            set_threads(before)


def parallel_ufunc(ufunc, a, b, dtype=None):
    """``ufunc(a, b)`` for a large ``a`` (``b`` the same shape, or broadcast along ``a``'s
    first axis): the rows are split over two threads, as NumPy releases the GIL."""
    if a.ndim == 0:
        return ufunc(a, b, dtype=dtype)
    out = np.empty(a.shape, dtype or np.result_type(a, b))
    whole_rows = np.ndim(b) < a.ndim or np.shape(b)[0] == 1

    def rows(lo, hi):
        ufunc(a[lo:hi], b if whole_rows else b[lo:hi], out=out[lo:hi])

    split_rows(rows, a.shape[0], flops=10.0 * a.size,
               min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return out


def _make_pool():
    from concurrent.futures import ThreadPoolExecutor
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="scopeflow-gemm")


_POOL = _make_pool()
