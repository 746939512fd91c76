"""The C library's math functions over NumPy arrays, with the C library's bits.

Where scopeflow promises TensorFlow's bits, TF's CPU kernel calls the C library (glibc on
Linux) one value at a time: ``std::exp``/``std::log``/``std::sin``/``std::cos`` in double,
``std::log1p``/``std::expm1`` in float. NumPy's ufuncs for these may instead run SIMD
code chosen at import for the CPU (NumPy's own AVX2/AVX-512 loops, Intel's SVML under
AVX-512), whose last bit can differ from the C library's. The functions here never take
their bits from such a loop:

* ``exp``, ``log``, ``sin``, ``cos`` (float64): Python's ``math`` functions, which call
  the C library, element by element;
* ``trunc_exp`` (``int64(exp(t))``) and ``to_float32`` (a double result rounded to
  float): NumPy's value only locates the answer; wherever some value within ``2**-30``
  (relative) of NumPy's would give another answer, the C library's value is computed and
  decides (any ``exp``/``log`` loop is within a few ulps, ``2**-50``, of the C library's);
* ``expm1f``, ``log1pf`` (float32): the C library's float functions, through NumPy's
  float32 ufunc while NumPy runs its plain loop for it (for ``expm1``/``log1p`` a loop
  calling the C function; their only SIMD loop is SVML's, under AVX-512: NumPy's
  ``opt_func_info`` names the loop in use); else, where the C library is glibc before
  2.41 on x86-64, ``glibc_expm1f``/``glibc_log1pf``: glibc's C code for them replayed in
  NumPy's float32 arithmetic, the same bits (checked on all 2**32 inputs); else through
  ``ctypes``, element by element.

>>> import math
>>> float(exp(np.array([1.0]))[0]) == math.exp(1.0)
True
>>> trunc_exp(np.array([0.0, math.log(7.5)])).tolist()
[1, 7]
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import os
import platform

import numpy as np

__all__ = ["exp", "log", "sin", "cos", "trunc_exp", "to_float32", "expm1f", "log1pf",
           "glibc_expm1f", "glibc_log1pf"]

_NEAR = 2.0 ** -30   # how close (relative) to an answer's edge NumPy's value must not decide
_NUMPY_F32 = {"expm1": np.expm1, "log1p": np.log1p}   # as imported, never a patched name


def _elementwise(fn, special, x):
    """``fn`` (a ``math`` function) over float64 ``x``; ``special(v)`` where it raises."""
    x = np.asarray(x, np.float64)
    values = x.ravel().tolist()
    try:
        out = np.fromiter(map(fn, values), np.float64, count=len(values))
    except (OverflowError, ValueError):
        def safe(v):
            try:
                return fn(v)
            except (OverflowError, ValueError):
                return special(v)
        out = np.fromiter(map(safe, values), np.float64, count=len(values))
    return out.reshape(x.shape)


def exp(x) -> np.ndarray:
    """The C library's double ``exp`` of each element (``inf`` where it overflows)."""
    return _elementwise(math.exp, lambda v: math.inf, x)


def log(x) -> np.ndarray:
    """The C library's double ``log`` of each element (``-inf`` at 0, NaN below)."""
    return _elementwise(math.log, lambda v: -math.inf if v == 0 else math.nan, x)


def sin(x) -> np.ndarray:
    """The C library's double ``sin`` of each element (NaN for infinities)."""
    return _elementwise(math.sin, lambda v: math.nan, x)


def cos(x) -> np.ndarray:
    """The C library's double ``cos`` of each element (NaN for infinities)."""
    return _elementwise(math.cos, lambda v: math.nan, x)


def trunc_exp(t) -> np.ndarray:
    """``int64(exp(t))`` with the C library's ``exp``, for float64 ``t >= 0`` whose
    ``exp`` is below ``2**62``: as TF's ``static_cast<int64>(exp(t))``."""
    t = np.asarray(t, np.float64)
    y = np.exp(t)
    lo = (y * (1.0 - _NEAR)).astype(np.int64)
    unsure = lo != (y * (1.0 + _NEAR)).astype(np.int64)
    if unsure.any():
        at = np.flatnonzero(unsure)
        lo.flat[at] = [int(math.exp(v)) for v in t.flat[at].tolist()]
    return lo


def to_float32(approx, exact) -> np.ndarray:
    """``float32`` of exact double values, given ``approx`` (float64, each within
    ``2**-32`` relative of its exact value, e.g. computed with NumPy's ufuncs) and
    ``exact(flat_indices)``, which computes the exact values at those indices (with the
    C library). ``exact`` is called only where the bracket around ``approx`` holds a
    float32 rounding boundary (about 3% of elements)."""
    approx = np.asarray(approx, np.float64)
    out = (approx * (1.0 - _NEAR)).astype(np.float32)
    unsure = out != (approx * (1.0 + _NEAR)).astype(np.float32)
    if unsure.any():
        at = np.flatnonzero(unsure)
        out.flat[at] = np.asarray(exact(at), np.float64).astype(np.float32)
    return out


# ── float32 functions of the C library ───────────────────────────────────────────────
@functools.cache
def _c_library():
    for name in ("libm.so.6", "libm.dylib", "ucrtbase"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    found = ctypes.util.find_library("m")
    return ctypes.CDLL(found) if found else ctypes.CDLL(None)


@functools.cache
def _c_float_function(name):
    fn = getattr(_c_library(), name)
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    return fn


def numpy_loop_is_plain(ufunc_name: str) -> bool:
    """Whether NumPy's float32 ``ufunc_name`` loop in use now is its baseline (no SIMD
    target of NumPy's build selected for this CPU), per ``numpy.lib.introspect``."""
    try:
        from numpy.lib.introspect import opt_func_info
        info = opt_func_info(func_name=f"^{ufunc_name}$", signature="^float32$")
        return info[ufunc_name]["ff"]["current"].startswith("baseline")
    except Exception:   # NumPy < 2.0, or a report in another form: take the safe path
        return False


def glibc_version() -> tuple[int, int] | None:
    """The running C library's version where it is glibc (``(2, 36)``), else None."""
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
        if name == "glibc":
            return tuple(int(v) for v in version.split(".")[:2])
    except (AttributeError, ValueError, OSError, TypeError):
        pass
    return None


@functools.cache
def replay_is_the_c_librarys() -> bool:
    """Whether ``glibc_expm1f``/``glibc_log1pf`` are this process's C library's functions:
    glibc before 2.41 (from 2.41 on, its ``expm1f``/``log1pf`` are CORE-MATH's, correctly
    rounded) on x86-64 (glibc builds this C code for it without FMA, with no CPU-selected
    variant; compilers may fuse its ``a*b + c`` on other CPUs), and the two agree with the
    C library's bit for bit on probe inputs from every branch."""
    version = glibc_version()
    if version is None or version >= (2, 41):
        return False
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    x = np.concatenate([np.random.default_rng(0x5EED).integers(0, 1 << 32, 1024, np.uint64)
                        .astype(np.uint32).view(np.float32),
                        np.float32([0.0, -0.0, 1.0, -1.0, 0.5, -0.25, 88.7, -20.0, 1e-30,
                                    -0.3, 0.4, 2.0**53, np.inf, -np.inf, np.nan])])
    for name, replay in (("expm1f", glibc_expm1f), ("log1pf", glibc_log1pf)):
        try:
            c_fn = _c_float_function(name)
        except (AttributeError, OSError):
            return False
        want = np.array([c_fn(v) for v in x.tolist()], np.float32)
        if not np.array_equal(replay(x).view(np.uint32), want.view(np.uint32)):
            return False
    return True


@functools.cache
def _float_function(name: str):
    """``name`` (``expm1``/``log1p``) as a function of a float32 array giving the C
    library's ``<name>f`` of each element."""
    if numpy_loop_is_plain(name):
        return _NUMPY_F32[name]      # NumPy's own loop over the C function: same bits
    if replay_is_the_c_librarys():
        return _REPLAYS[name]        # glibc's code, replayed in NumPy's float32 arithmetic
    c_fn = _c_float_function(name + "f")

    def per_element(x):
        values = x.ravel().tolist()
        return np.fromiter(map(c_fn, values), np.float32, count=len(values)).reshape(x.shape)
    return per_element


def expm1f(x) -> np.ndarray:
    """The C library's ``expm1f`` of each element of float32 ``x``."""
    return _float_function("expm1")(np.asarray(x, np.float32))


def log1pf(x) -> np.ndarray:
    """The C library's ``log1pf`` of each element of float32 ``x``."""
    return _float_function("log1p")(np.asarray(x, np.float32))


# ── glibc's expm1f and log1pf, replayed ──────────────────────────────────────────────
# sysdeps/ieee754/flt-32/s_expm1f.c and s_log1pf.c (Sun's fdlibm code in float), which
# x86-64 glibc builds as they are (SSE, no FMA: no sysdeps/x86_64 variant, no ifunc) up
# to 2.40. Every float32 operation of theirs is done here by NumPy's float32 ufuncs, each
# exactly rounded on every CPU, in the same order (or, where noted, an order that rounds
# the same); the branches on x's bits become per-element tables or a fix-up of the
# special inputs. Checked against glibc 2.36 on all 2**32 inputs (tests/unit/ops/math/test_libm.py).
_F = np.float32
_ONE, _HALF, _TWO, _THREE, _SIX = _F(1), _F(0.5), _F(2), _F(3), _F(6)
_LN2_HI, _LN2_LO = _F(6.9313812256e-01), _F(9.0580006145e-06)   # 0x3f317180, 0x3717f7d1
_INVLN2 = _F(1.4426950216e+00)                                    # 0x3fb8aa3b
_Q1, _Q2, _Q3, _Q4, _Q5 = (_F(-3.3333335072e-02), _F(1.5873016091e-03), _F(-7.9365076090e-05),
                           _F(4.0082177293e-06), _F(-2.0109921195e-07))
_LP1, _LP2, _LP3, _LP4, _LP5, _LP6, _LP7 = (
    _F(6.6666668653e-01), _F(4.0000000596e-01), _F(2.8571429849e-01), _F(2.2222198546e-01),
    _F(1.8183572590e-01), _F(1.5313838422e-01), _F(1.4798198640e-01))
_TWO_THIRDS = _F(0.66666666666666666)
_E_HUGE = np.int32(0x4195b844).view(np.float32)                # 27 ln2, 18.7149...


def _from_ordered(o) -> np.ndarray:
    """float32 of "ordered" ints: ``bits`` for x >= 0, ``-(bits & 0x7fffffff)`` below."""
    o = np.asarray(o, np.int64)
    return np.where(o < 0, (-o) | 0x80000000, o).astype(np.uint32).view(np.float32)


def _steps(step, lo: int, hi: int):
    """A step function's steps: ``step`` (float32 array -> int array) non-decreasing over
    the float32 from ordered int ``lo`` to ``hi``. Returns ``(breaks, values)``: the first
    float32 of each step but the lowest, and each step's value, so that
    ``values[searchsorted(breaks, x, 'right')] == step(x)`` there; found by bisection."""
    a, b = np.array([lo], np.int64), np.array([hi], np.int64)
    sa, sb = step(_from_ordered(a)), step(_from_ordered(b))
    found = []
    while a.size:
        last = b - a == 1
        found.append(b[last & (sa < sb)])
        a, b, sa, sb = a[~last], b[~last], sa[~last], sb[~last]
        m = (a + b) // 2
        sm = step(_from_ordered(m))
        left, right = sa < sm, sm < sb                     # the halves holding a step
        a, b = np.concatenate([a[left], m[right]]), np.concatenate([m[left], b[right]])
        sa, sb = np.concatenate([sa[left], sm[right]]), np.concatenate([sm[left], sb[right]])
    breaks = _from_ordered(np.sort(np.concatenate(found)))
    values = step(np.concatenate([_from_ordered([lo]), breaks]))
    if not (np.diff(values) > 0).all():
        raise AssertionError("not a non-decreasing step function")
    return breaks, values


def _expm1f_step(x: np.ndarray) -> np.ndarray:
    """s_expm1f.c's ``2*k`` for float32 ``x`` on its main path, less 1 where ``k == 1`` and
    the reduced ``x - ln2`` is below -0.25 (the one return chosen by the reduced x)."""
    hx = x.view(np.int32)
    ax = hx & 0x7fffffff
    k = (_INVLN2 * x + np.where(hx < 0, -_HALF, _HALF)).astype(np.int32)
    k = np.where(ax < 0x3F851592, np.where(hx < 0, -1, 1), k)     # |x| < 1.5 ln2: +-1
    k = np.where(ax <= 0x3eb17218, 0, k)                           # |x| <= 0.5 ln2: 0
    t = k.astype(np.float32)
    xr = (x - t * _LN2_HI) - t * _LN2_LO
    return 2 * k - ((k == 1) & (xr < _F(-0.25)))


@functools.cache
def _expm1f_tables():
    """expm1f's main path (``-27 ln2 < x < 88.72``, ``|x| >= 2**-25``) by steps of its k.

    k (with k == 1 split on the reduced x) is a non-decreasing step function of x, a step
    at a time, so ``searchsorted`` finds an element's step. Per step: ``k*ln2_hi`` and
    ``k*ln2_lo`` (the C code's float32 products ``t*ln2_hi``, ``t*ln2_lo``; for k = +-1 its
    ``x -+ ln2_hi``, ``+-ln2_lo`` are the same values), ``k << 23``, and P, A, T, S of
    ``y = P + ((xr + A) - (e + T))``, returned as ``y * 2**k - S`` (``2**k`` by adding to
    the exponent bits, as the C code), each of the C code's returns with its roundings
    (``d = xr - e``, rounded, is ``-(e - xr)``; scaling by 2 is exact):

    * k = 0: ``x - (x*e - hxs)``, its ``e`` being ours (``c`` is 0): all 0;
    * k = -1: ``0.5*(x - e) - 0.5``, that is ``(d - 1) * 2**-1``: P = -1;
    * k = 1: ``1 + 2*(x - e)``, that is ``(0.5 + d) * 2``: P = 0.5; where x < -0.25,
      ``-2*(e - (x + 0.5))`` (``x + 0.5`` exact there): A = 0.5;
    * 2 <= k <= 22: ``t - (e - x)`` with ``t = 1 - 2**-k``: P = t;
    * 23 <= k <= 56: ``(x - (e + t)) + 1`` with ``t = 2**-k``: P = 1, T = t;
    * else: ``(1 - (e - x)) * 2**k - 1``: P = 1, S = 1.
    """
    breaks, steps = _steps(_expm1f_step, -0x4195b843, 0x42b17217)
    k = (steps + 1) // 2
    tables = {"P": np.zeros(len(k), np.float32), "A": np.zeros(len(k), np.float32),
              "T": np.zeros(len(k), np.float32), "S": np.zeros(len(k), np.float32)}
    for i, (kk, step) in enumerate(zip(k.tolist(), steps.tolist())):
        if kk == -1:
            tables["P"][i] = -1
        elif kk == 1:
            tables["A" if step == 1 else "P"][i] = 0.5
        elif 2 <= kk <= 22:
            tables["P"][i] = _from_ordered(0x3f800000 - (0x1000000 >> kk))
        elif 23 <= kk <= 56:
            tables["P"][i], tables["T"][i] = 1, _from_ordered((0x7f - kk) << 23)
        elif kk != 0:
            tables["P"][i] = tables["S"][i] = 1
    kf = k.astype(np.float32)
    return (breaks, kf * _LN2_HI, kf * _LN2_LO, (k << 23).astype(np.int32),
            tables["P"], tables["A"], tables["T"], tables["S"])


def _expm1f_main(x: np.ndarray) -> np.ndarray:
    breaks, k_hi, k_lo, k_exp, P, A, T, S = _expm1f_tables()
    i = breaks.searchsorted(x, "right")
    hi = x - k_hi.take(i)
    lo = k_lo.take(i)
    xr = hi - lo                                          # x, reduced
    c = (hi - xr) - lo
    hfx = _HALF * xr
    hxs = xr * hfx
    r1 = _ONE + hxs * (_Q1 + hxs * (_Q2 + hxs * (_Q3 + hxs * (_Q4 + hxs * _Q5))))
    t = _THREE - r1 * hfx
    e = hxs * ((r1 - t) / (_SIX - xr * t))
    e = (xr * (e - c) - c) - hxs                          # (where k = 0: x*e - hxs)
    y = P.take(i) + ((xr + A.take(i)) - (e + T.take(i)))
    y = (y.view(np.int32) + k_exp.take(i)).view(np.float32)
    return y - S.take(i)


def glibc_expm1f(x) -> np.ndarray:
    """glibc's (x86-64, before 2.41) ``expm1f`` of each element of float32 ``x``, replayed
    in NumPy's float32 arithmetic (NaN: ``x`` quieted, as ``x+x``)."""
    x = np.asarray(x, np.float32)
    shape, x = x.shape, x.reshape(-1)
    a = np.abs(x)
    if x.size == 0 or (a.min() >= _F(2.0**-25) and a.max() < _E_HUGE):   # (NaN: no)
        return _expm1f_main(x).reshape(shape)
    hx = x.view(np.int32)
    ax = hx & 0x7fffffff
    neg = hx < 0
    tiny = ax < 0x33000000                                # |x| < 2**-25: x
    to_m1 = neg & (ax >= 0x4195b844)                      # x <= -27 ln2, -inf: -1
    to_inf = ~neg & (ax >= 0x42b17218)                    # overflow, +inf: inf
    out = _expm1f_main(np.where(tiny | to_m1 | to_inf, _ONE, x))
    out[tiny] = x[tiny]
    out[to_m1] = -1
    out[to_inf] = np.inf
    nan = ax > 0x7f800000
    out.view(np.int32)[nan] = hx[nan] | 0x00400000
    return out.reshape(shape)


def _log1pf_step(x: np.ndarray) -> np.ndarray:
    """Per float32 ``x`` on s_log1pf.c's main path: ``4*k``, plus 2 where ``k == 0`` off
    its branch ``f = x`` (``0.41421 <= x`` and ``1 + x < sqrt(2)``), plus 1 from ``2**53``
    up (where its correction term ``c`` is 0)."""
    hx = x.view(np.int32)
    hu = (_ONE + x).view(np.int32)
    k = (hu >> 23) - 127 + ((hu & 0x007fffff) >= 0x3504f7)
    k0 = (hx < 0x3ed413d7) & ((hx > 0) | (hx <= np.int32(-0x416a09e1)))   # 0xbe95f61f
    return 4 * np.where(k0, 0, k) + 2 * (~k0 & (k == 0)) + (hx >= 0x5a000000)


@functools.cache
def _log1pf_tables():
    """log1pf's main path (``-1 < x < inf``, ``|x| >= 2**-29``) by steps of its k: 0 on
    ``-0.2929 < x < 0.41422`` (where ``f = x``), else that of ``u = 1 + x`` (``u = x`` from
    ``2**53`` up, the same value) normalized to ``[sqrt(2)/2, sqrt(2))``, ``f = u - 1``.
    Per step: ``k << 23``, ``k*ln2_hi``, ``k*ln2_lo``, whether ``c`` is used (not where
    ``k == 0``: there the C code returns ``f - (hfsq - s*(hfsq + R))``, which is
    ``0 - ((hfsq - (s*(hfsq + R) + 0)) - f)``, the same value); and the step ``f = x``."""
    breaks, steps = _steps(_log1pf_step, -0x3f7fffff, 0x7f7fffff)
    k = steps // 4
    kf = k.astype(np.float32)
    uses_c = ((k != 0) & (steps % 2 == 0)).astype(np.float32)
    return (breaks, (k << 23).astype(np.int32), kf * _LN2_HI, kf * _LN2_LO, uses_c,
            int(np.flatnonzero(steps == 0)[0]))


def _log1pf_main(x: np.ndarray) -> np.ndarray:
    breaks, k_exp, k_hi, k_lo, uses_c, f_is_x = _log1pf_tables()
    i = breaks.searchsorted(x, "right")
    k0 = i == f_is_x
    u = _ONE + x
    c = np.where(u >= _TWO, _ONE - (u - x), x - (u - _ONE)) / u * uses_c.take(i)
    ub = u.view(np.int32)
    f = np.where(k0, x, (ub - k_exp.take(i)).view(np.float32) - _ONE)  # u normalized - 1
    hfsq = _HALF * f * f
    s = f / (_TWO + f)
    z = s * s
    R = z * (_LP1 + z * (_LP2 + z * (_LP3 + z * (_LP4 + z * (_LP5 + z * (_LP6 + z * _LP7))))))
    w = k_lo.take(i) + c                                  # k*ln2_lo + c
    inner = hfsq - (s * (hfsq + R) + w)
    edge = ((ub + 3) & 0x007fffff) < 3                    # hu == 0: u's mantissa 0 or ~1
    if edge.any():
        edge &= ~k0
        R0 = hfsq * (_ONE - _TWO_THIRDS * f)
        inner = np.where(edge, R0 - w, inner)
    return k_hi.take(i) - (inner - f)


def glibc_log1pf(x) -> np.ndarray:
    """glibc's (x86-64, before 2.41) ``log1pf`` of each element of float32 ``x``, replayed
    in NumPy's float32 arithmetic (NaN: ``x`` quieted; below -1: x86's default NaN)."""
    x = np.asarray(x, np.float32)
    shape, x = x.shape, x.reshape(-1)
    a = np.abs(x)
    if x.size == 0 or (a.min() >= _F(2.0**-29) and a.max() < np.inf and x.min() > -1):
        return _log1pf_main(x).reshape(shape)
    hx = x.view(np.int32)
    ax = hx & 0x7fffffff
    small = ax < 0x31000000                               # |x| < 2**-29
    below = (hx < 0) & (ax >= 0x3f800000)                 # x <= -1, -inf, -NaN
    out = _log1pf_main(np.where(small | below | (ax >= 0x7f800000), _ONE, x))
    xs = x[small]
    with np.errstate(under="ignore"):
        out[small] = np.where(ax[small] < 0x24800000, xs, xs - xs * xs * _HALF)
    bits = out.view(np.int32)
    bits[below] = np.int32(-0x00400000)                   # (x-x)/(x-x): 0xffc00000
    bits[x == -1] = np.int32(-0x00800000)                 # -two25/zero: -inf
    bits[hx == 0x7f800000] = 0x7f800000                   # x+x: inf
    nan = ax > 0x7f800000
    bits[nan] = hx[nan] | 0x00400000                      # x+x, (x-x)/(x-x): x, quieted
    return out.reshape(shape)


_REPLAYS = {"expm1": glibc_expm1f, "log1p": glibc_log1pf}
