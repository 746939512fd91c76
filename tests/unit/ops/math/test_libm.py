"""``scopeflow.ops.math.libm``: the C library's bits, whatever loops NumPy dispatched at import.

The reference is the C library itself: Python's ``math`` (double) and the float functions
through ``ctypes``. NumPy's ufuncs are nudged (as another CPU's SIMD loop might round) to
show that no result takes its bits from them.

``glibc_expm1f``/``glibc_log1pf`` (glibc's s_expm1f.c/s_log1pf.c replayed in NumPy float32
arithmetic) were checked once against glibc 2.36 (Debian 12, x86-64 with AVX2/FMA, NumPy
2.4) on all 2**32 float32 bit patterns each, bit for bit, NaNs included: a throwaway C
helper (``gcc -O2 -fno-builtin -shared``, linked with ``-lm``) evaluated the C library's
``expm1f``/``log1pf`` over 2**22 consecutive bit patterns a call into a NumPy buffer, and
each chunk was compared with the replay (and with NumPy's baseline float32 loop): no
difference. The tests here keep a fast sample of that: random bit patterns, every branch
threshold and table step with its neighbours, the samplers' ranges, special values.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from scopeflow.ops.math import libm

pytestmark = pytest.mark.bitexact


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}").tolist()


def _nudged(f, factor):
    return lambda *args, **kwargs: f(*args, **kwargs) * factor


def _c_float(name):
    fn = getattr(libm._c_library(), name)
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    return lambda xs: np.array([fn(v) for v in np.asarray(xs, np.float32).tolist()],
                               np.float32)


DOUBLES = np.concatenate([np.random.default_rng(0).uniform(-50, 50, 5000),
                          np.random.default_rng(1).uniform(0, 1e-3, 1000),
                          [0.0, -0.0, 1.0, 1e-300, 1e300, 800.0, -800.0, np.inf, -np.inf,
                           np.nan]])


@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos"])
def test_double_functions_are_the_c_librarys(name, monkeypatch):
    fn = getattr(math, name)

    def want(v):
        try:
            return fn(v)
        except (OverflowError, ValueError):
            return {"exp": math.inf, "log": -math.inf if v == 0 else math.nan}.get(name,
                                                                                  math.nan)
    expected = np.array([want(v) for v in DOUBLES.tolist()])
    monkeypatch.setattr(np, name, _nudged(getattr(np, name), 1.001))
    got = getattr(libm, name)(DOUBLES.reshape(-1, 2)).reshape(-1)
    assert _bits(got) == _bits(expected)


def test_trunc_exp_is_int_of_the_c_librarys_exp(monkeypatch):
    t = []
    for m in [2, 3, 10, 1000, 65537, 2**40 + 1]:   # just below and at each integer
        x = math.log(m)
        while math.exp(x) >= m:
            x = math.nextafter(x, -math.inf)
        t += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]
    t = np.array(t + np.random.default_rng(2).uniform(0, 12, 2000).tolist())
    want = [int(math.exp(v)) for v in t.tolist()]
    for factor in (1.0, 1 + 2.0**-36, 1 - 2.0**-36):
        with monkeypatch.context() as m:
            m.setattr(np, "exp", _nudged(np.exp, factor))
            assert libm.trunc_exp(t).tolist() == want
    assert (np.exp(t) * (1 + 2.0**-36)).astype(np.int64).tolist() != want  # teeth


@pytest.fixture(params=["as selected", "replay", "ctypes"])
def float_path(request, monkeypatch):
    """The float functions as chosen for this CPU; forced to glibc's code replayed (as on
    a CPU where NumPy's loop is SIMD); forced through ctypes."""
    libm._float_function.cache_clear()
    if request.param == "replay" and not libm.replay_is_the_c_librarys():
        pytest.skip("the C library here is not glibc < 2.41 on x86-64: no replay of it")
    if request.param != "as selected":
        monkeypatch.setattr(libm, "numpy_loop_is_plain", lambda name: False)
        monkeypatch.setattr(libm, "replay_is_the_c_librarys", lambda: request.param == "replay")
    yield request.param
    libm._float_function.cache_clear()


FLOATS = np.concatenate([np.random.default_rng(3).uniform(-30, 1, 20000),
                         -np.geomspace(1e-12, 0.999, 5000),
                         [0.0, -0.0, -1.0, 88.0, 89.0, -np.inf, np.inf, np.nan]]).astype(np.float32)


@pytest.mark.parametrize("name", ["expm1f", "log1pf"])
def test_float_functions_are_the_c_librarys(name, float_path, monkeypatch):
    """The guard on the fast path too: were NumPy's own float32 expm1/log1p loop ever SIMD
    code on a CPU where ``numpy_loop_is_plain`` says it is not, this fails there."""
    x = FLOATS if name == "expm1f" else np.maximum(FLOATS, np.float32(-1))
    with np.errstate(all="ignore"):
        want = _c_float(name)(x)
    monkeypatch.setattr(np, name[:-1], _nudged(getattr(np, name[:-1]), np.float32(1.001)))
    with np.errstate(all="ignore"):
        got = getattr(libm, name)(x.reshape(-1, 4)).reshape(-1)
    assert got.dtype == np.float32
    assert _bits(got) == _bits(want)
    if float_path == "replay":
        assert libm._float_function(name[:-1]) is getattr(libm, "glibc_" + name)


def test_the_fast_path_is_only_numpys_plain_loop():
    """``numpy_loop_is_plain`` reads NumPy's dispatch report; on x86 the float32
    expm1/log1p loops have one SIMD target (SVML, AVX-512), which it must not call plain."""
    opt_func_info = pytest.importorskip("numpy.lib.introspect").opt_func_info
    for name in ("expm1", "log1p"):
        current = opt_func_info(func_name=f"^{name}$", signature="^float32$")[name]["ff"]
        assert libm.numpy_loop_is_plain(name) == current["current"].startswith("baseline")


def _neighbours(bits, reach=3):
    """Bit patterns within ``reach`` ulps of each of ``bits`` (uint32), either sign."""
    bits = np.asarray(bits, np.int64) & 0x7fffffff
    near = (bits[:, None] + np.arange(-reach, reach + 1)).ravel()
    near = near[(near >= 0) & (near <= 0x7fffffff)]
    return np.concatenate([near, near | 0x80000000]).astype(np.uint32)


def _replay_inputs(name):
    """Some 300,000 float32: random bit patterns, the C code's thresholds and the replay's
    table steps with their neighbours, the samplers' ranges, special values."""
    rng = np.random.default_rng(7)
    if name == "expm1f":
        edges = [0x4195b844, 0x42b17218, 0x42b17180, 0x3eb17218, 0x3f851592, 0x33000000,
                 0x3f000000, 0x3e800000]                      # |x| = 0.5, 0.25
        steps = libm._expm1f_tables()[0]
        ranges = [rng.uniform(-30, 0, 60000), -np.geomspace(1e-9, 30, 20000),
                  rng.uniform(-1.1, 1.1, 20000), rng.uniform(0, 90, 20000)]
    else:
        edges = [0x3ed413d7, 0x3e95f61f, 0x3f800000, 0x31000000, 0x24800000, 0x5a000000,
                 0x7f800000, 0x3504f7 | 0x3f800000]
        steps = libm._log1pf_tables()[0]
        u = np.float32(2.0) ** np.arange(-24, 127, dtype=np.float32)   # u = 1 + x near 2**j
        ranges = [rng.uniform(-1, 0, 60000), -np.geomspace(1e-9, 1, 20000),
                  rng.uniform(-1, 2, 20000), np.geomspace(1e-9, 1e30, 20000),
                  (u - np.float32(1)).astype(np.float32)]
        edges += u.view(np.uint32).tolist()
    bits = np.concatenate([
        rng.integers(0, 1 << 32, 150000, np.uint64).astype(np.uint32),
        _neighbours(edges, 40), _neighbours(steps.view(np.uint32)),
        np.concatenate(ranges).astype(np.float32).view(np.uint32),
        np.array([0, 1, 0x7fffff, 0x800000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000,
                  0x7fffffff, 0x3f800000, 0x40000000], np.uint32)])
    return np.concatenate([bits, bits | np.uint32(0x80000000)]).view(np.float32)


@pytest.mark.parametrize("name", ["expm1f", "log1pf"])
def test_the_replay_is_glibcs_bit_for_bit(name, monkeypatch):
    """``glibc_expm1f``/``glibc_log1pf`` against the C library's through ctypes, NaNs'
    bits included (exhaustively checked once, see the module's docstring)."""
    try:
        libm._c_float_function(name)
    except (AttributeError, OSError) as err:
        pytest.skip(f"no C library {name} to compare with: {err}")
    if not libm.replay_is_the_c_librarys():
        pytest.skip("the C library here is not glibc < 2.41 on x86-64: no replay of it")
    x = _replay_inputs(name)
    with np.errstate(all="ignore"):
        want = _c_float(name)(x)
    for ufunc in ("expm1", "log1p", "exp", "log"):          # never NumPy's transcendentals
        monkeypatch.setattr(np, ufunc, _nudged(getattr(np, ufunc), np.float32(1.001)))
    replay = getattr(libm, "glibc_" + name)
    got = replay(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert not bad.size, [(hex(b), hex(w), hex(g)) for b, w, g in zip(
        x.view(np.uint32)[bad[:5]], want.view(np.uint32)[bad[:5]], got.view(np.uint32)[bad[:5]])]
    # Any shape, any path (all-plain inputs take the main path alone), 0-d, empty.
    plain = x[np.isfinite(want) & (np.abs(x) > 1e-6) & (np.abs(x) < 15) & (x > -1)][:4096]
    assert np.array_equal(replay(plain.reshape(64, -1)).ravel().view(np.uint32),
                          _c_float(name)(plain).view(np.uint32))
    assert replay(np.float32(-0.5)).shape == () and replay(np.zeros((0, 3))).shape == (0, 3)


def test_the_replay_stands_in_for_the_c_library_only_where_it_is():
    """glibc before 2.41 (CORE-MATH's correctly rounded expm1f/log1pf from 2.41), x86-64."""
    import platform
    expected = ((libm.glibc_version() or (9, 9)) < (2, 41)
                and platform.machine().lower() in ("x86_64", "amd64"))
    assert libm.replay_is_the_c_librarys() == expected
