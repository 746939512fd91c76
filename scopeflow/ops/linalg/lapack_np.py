"""How the linear-algebra kernels call LAPACK and BLAS: over a batch on two Python threads
with one OpenBLAS thread each, and triangular solves as BLAS ``trsm``.

NOTE (profiled, bench/profiles/linalg.md): ``numpy.linalg`` calls OpenBLAS's LAPACK, whose
threads spin while waiting for each other; on this shared 2-core machine a batch of eight
256x256 inverses took 480 ms with OpenBLAS's threads and 30 ms with one. So every call
here runs with one BLAS thread, and a batch big enough to pay for it is split in halves
run on two Python threads (NumPy releases the GIL), through ``blas.split_rows``, the rule
MatMul and the convolutions follow. The triangular solve had been a Python loop over
rows (512 NumPy calls for a 512x512 matrix); ``trsm`` is one call per matrix, with the
same arithmetic (substitution, a zero pivot divides by zero as TF's kernel does).
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from scopeflow.ops.math.blas import split_rows

__all__ = ["batched", "trsm", "trsm_serial", "cholesky_serial", "inverse_serial", "HAVE_TRSM"]

# LAPACK's work per matrix is a small multiple of n^3; below this many flops a second
# thread's hand-off costs more than it saves.
_PARALLEL_FLOPS = 2e7


def _cast_in(a):
    """``a`` in a dtype LAPACK has: float16 is computed in float32."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def batched(fn, x, *args):
    """``fn(x, *args)`` for a batch of matrices ``x`` (``args`` share its batch dims),
    run with one BLAS thread, the batch split over two threads when large. float16 is
    computed in float32 and each result cast back, as ``solve_ops.lapack_call``; a tuple
    result stays a tuple. Exceptions (``LinAlgError``) reach the caller."""
    batch = x.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))
    flat = _cast_in(x).reshape((count,) + x.shape[-2:])
    flat_args = [_cast_in(a).reshape((count,) + a.shape[len(batch):]) for a in args]
    parts = {}

    def task(lo, hi):
        parts[lo] = fn(flat[lo:hi], *(a[lo:hi] for a in flat_args))

    n = max(x.shape[-2:])
    split_rows(task, count, flops=float(count) * n ** 3, min_flops=_PARALLEL_FLOPS)
    pieces = [parts[k] for k in sorted(parts)]
    single = not isinstance(pieces[0], tuple)
    if single:
        pieces = [(p,) for p in pieces]
    outs = []
    for i in range(len(pieces[0])):
        o = pieces[0][i] if len(pieces) == 1 else np.concatenate([p[i] for p in pieces])
        o = np.asarray(o)
        if x.dtype == np.float16 and o.dtype.kind == "f":
            o = o.astype(np.float16)
        outs.append(o.reshape(batch + o.shape[1:]))
    return outs[0] if single else tuple(outs)


def _find_blas():
    """NumPy's bundled OpenBLAS's ``cblas_?trsm`` and LAPACK's ``?getrf``/``?getri``
    (64-bit ints) by dtype, or None when not found."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs",
                                  "*openblas*"))
    kinds = ((np.float32, "s"), (np.float64, "d"), (np.complex64, "c"), (np.complex128, "z"))
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            fns = {name: {np.dtype(t): getattr(lib, pattern.format(c)) for t, c in kinds}
                   for name, pattern in (("trsm", "scipy_cblas_{}trsm64_"),
                                         ("getrf", "scipy_{}getrf_64_"),
                                         ("getri", "scipy_{}getri_64_"))}
        except (OSError, AttributeError):
            continue
        for table in fns.values():
            for fn in table.values():
                fn.restype = None
        return fns
    return None


_BLAS = _find_blas()
HAVE_TRSM = _BLAS is not None
_TRSM = _BLAS["trsm"] if HAVE_TRSM else None
_ROW_MAJOR, _LEFT, _UPPER, _LOWER = 101, 141, 121, 122
_NO_TRANS, _CONJ_TRANS, _NON_UNIT = 111, 113, 131


def _trsm_one(fn, a, b, uplo, trans, alpha):
    """Solves one ``op(a) x = b`` in place in ``b`` (C-contiguous, ``(n, k)``)."""
    n, k = b.shape
    if n == 0 or k == 0:
        return
    i64 = ctypes.c_int64
    fn(ctypes.c_int(_ROW_MAJOR), ctypes.c_int(_LEFT), ctypes.c_int(uplo), ctypes.c_int(trans),
       ctypes.c_int(_NON_UNIT), i64(n), i64(k), alpha, a.ctypes.data_as(ctypes.c_void_p),
       i64(a.strides[0] // a.itemsize), b.ctypes.data_as(ctypes.c_void_p), i64(k))


def trsm_serial(a, b, lower, adjoint):
    """Solves ``a x = b`` (``a^H x = b`` for ``adjoint``) for a batch of triangular ``a``
    ``(batch, n, n)`` and ``b`` ``(batch, n, k)`` of one LAPACK dtype, reading only the
    ``lower`` (or upper) triangle of ``a``, on the calling thread (safe inside a
    ``batched`` task); a zero pivot gives inf/NaN, as TF's kernel."""
    fn = _TRSM[a.dtype]
    a = np.ascontiguousarray(a)
    x = np.array(b, dtype=a.dtype, order="C", copy=True)
    if a.dtype.kind == "c":
        one = np.ones(1, a.dtype)
        alpha = one.ctypes.data_as(ctypes.c_void_p)
    else:
        alpha = ctypes.c_double(1.0) if a.dtype == np.float64 else ctypes.c_float(1.0)
    uplo, trans = (_LOWER if lower else _UPPER), (_CONJ_TRANS if adjoint else _NO_TRANS)
    for i in range(a.shape[0]):
        _trsm_one(fn, a[i], x[i], uplo, trans, alpha)
    return x


def trsm(a, b, lower, adjoint):
    """``trsm_serial`` on one BLAS thread, the batch split over two threads when large."""
    n, k = b.shape[-2:]
    parts = {}

    def task(lo, hi):
        parts[lo] = trsm_serial(a[lo:hi], b[lo:hi], lower, adjoint)

    split_rows(task, a.shape[0], flops=float(a.shape[0]) * n * n * k,
               min_flops=_PARALLEL_FLOPS)
    pieces = [parts[k] for k in sorted(parts)]
    return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)


# OpenBLAS's potrf is slow past about 400 rows (12 ms for 480, 117 ms for 1024 on one
# thread, where 400 takes 2.5 ms): larger factors are split in two blocks.
_CHOLESKY_BLOCK = 384


def cholesky_serial(a):
    """The lower Cholesky factors of a batch ``(batch, n, n)``, reading the lower triangle
    only, on the calling thread: LAPACK up to ``_CHOLESKY_BLOCK`` rows, above it the
    blocked recursion ``L11 = chol(A11)``, ``L21 = A21 L11^-H``, ``L22 = chol(A22 - L21
    L21^H)``. Raises ``LinAlgError`` where a leading minor is not positive definite."""
    n = a.shape[-1]
    if n <= _CHOLESKY_BLOCK or _TRSM is None:
        return np.linalg.cholesky(a)
    h = (n // 2 + 63) // 64 * 64
    out = np.zeros_like(a)
    l11 = cholesky_serial(a[:, :h, :h])
    adj = lambda m: np.conj(np.swapaxes(m, -1, -2)) if m.dtype.kind == "c" else \
        np.swapaxes(m, -1, -2)  # noqa: E731
    l21 = adj(trsm_serial(l11, adj(a[:, h:, :h]), True, False))
    with np.errstate(all="ignore"):
        schur = a[:, h:, h:] - np.matmul(l21, adj(l21))
    out[:, :h, :h] = l11
    out[:, h:, :h] = l21
    out[:, h:, h:] = cholesky_serial(schur)
    return out


def inverse_serial(a):
    """``(inverses, invertible)`` of a batch ``(batch, n, n)`` of one LAPACK dtype on the
    calling thread: LAPACK's getrf (partial-pivot LU of each matrix, as Eigen's
    PartialPivLU in TF's kernel and gesv in ``numpy.linalg.inv``) then getri, 3x faster
    than ``numpy.linalg.inv``'s solve against the identity. ``invertible`` is False where
    a pivot is exactly zero (that entry of ``inverses`` is then undefined)."""
    n = a.shape[-1]
    x = np.array(np.swapaxes(a, -1, -2), order="C")  # each matrix column-major
    ok = np.ones(a.shape[0], bool)
    if n == 0:
        return x, ok
    getrf, getri = _BLAS["getrf"][a.dtype], _BLAS["getri"][a.dtype]
    i64, ref, ptr = ctypes.c_int64, ctypes.byref, lambda v: v.ctypes.data_as(ctypes.c_void_p)
    size, info, lwork = i64(n), i64(0), i64(64 * n)
    ipiv, work = np.empty(n, np.int64), np.empty(64 * n, a.dtype)
    for i in range(x.shape[0]):
        m = x[i]
        getrf(ref(size), ref(size), ptr(m), ref(size), ptr(ipiv), ref(info))
        if info.value != 0:
            ok[i] = False
            continue
        getri(ref(size), ptr(m), ref(size), ptr(ipiv), ptr(work), ref(lwork), ref(info))
    return np.ascontiguousarray(np.swapaxes(x, -1, -2)), ok
