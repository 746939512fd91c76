"""The special functions and the trig/hyperbolic family against TF 2.21.

Without TF: special values observed from TF 2.21 (poles, infinities, domains), values against
Python's C-library ``math`` and ``statistics``, and the composites' graphs. With TF (the
``tf1`` fixture): float32 and float64 values and first gradients of every op, compared live.
"""

from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest

import scopeflow as tf

_SPECIAL = [-2.0, -1.5, -1.0, 0.0, 0.5, 1.0, 1e-8, 3.3, 20.0, np.inf, -np.inf, np.nan]


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def test_special_values_match_tf_observed():
    x = tf.constant(np.array(_SPECIAL, np.float64))
    got = _run({"lgamma": tf.lgamma(x), "digamma": tf.digamma(x), "erf": tf.erf(x),
                "ndtri": tf.math.ndtri(x), "pg1": tf.polygamma(tf.ones_like(x), x)})
    inf = np.inf
    np.testing.assert_array_equal(np.isnan(got["digamma"]),
                                  [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1])   # TF: NaN at poles
    assert got["lgamma"][[0, 2, 3, 9, 10]].tolist() == [inf] * 5
    assert np.isnan(got["erf"][9]) and np.isnan(got["erf"][10])   # TF's float64 erf(+-inf)
    assert got["ndtri"][3] == -inf and got["ndtri"][5] == inf and np.isnan(got["ndtri"][0])
    assert got["pg1"][[0, 2, 3, 10]].tolist() == [inf] * 4
    np.testing.assert_allclose(got["pg1"][5], math.pi ** 2 / 6, rtol=1e-15)
    assert _run(tf.erf(tf.constant([np.inf, -np.inf], tf.float32))).tolist() == [1.0, -1.0]


def test_values_against_the_c_library_and_statistics():
    x = np.linspace(-4.5, 6.0, 41)
    got = _run([tf.erf(x), tf.erfc(x), tf.lgamma(x + 0.01)])
    np.testing.assert_allclose(got[0], [math.erf(v) for v in x], rtol=1e-15)
    np.testing.assert_allclose(got[1], [math.erfc(v) for v in x], rtol=1e-15)
    np.testing.assert_allclose(got[2], [math.lgamma(v + 0.01) for v in x], rtol=1e-13)
    p = np.linspace(1e-12, 1 - 1e-9, 57)
    want = [statistics.NormalDist().inv_cdf(v) for v in p]
    np.testing.assert_allclose(_run(tf.math.ndtri(p)), want, rtol=1e-13, atol=1e-15)
    # digamma's recurrence psi(x + 1) = psi(x) + 1/x, across the reflection at 0
    z = np.array([-3.7, -0.2, 0.3, 2.5, 9.9, 11.0])
    a, b = _run([tf.digamma(z), tf.digamma(z + 1)])
    np.testing.assert_allclose(b - a, 1 / z, rtol=1e-12)


def test_zero_safe_products():
    x = np.array([0.0, 0.0, 2.0])
    y = np.array([0.0, np.inf, 0.0])
    got = _run([tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.multiply_no_nan(y, x),
                tf.math.reciprocal_no_nan(x)])
    assert got[0].tolist() == [0.0, 0.0, -np.inf]
    assert got[1].tolist() == [0.0, 0.0, np.inf]
    assert got[2].tolist() == [0.0, 0.0, 0.0]
    assert got[3].tolist() == [0.0, 0.0, 0.5]


def test_composites_build_tfs_graphs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        assert tf.math.erfcinv(x).name == "erfcinv/mul_1:0"
        assert tf.math.erfinv(x).name == "erfinv/Erfinv:0"
        assert tf.math.xdivy(x, x).name == "xdivy/Xdivy:0"
        assert tf.log_sigmoid(x).name == "LogSigmoid:0"
        assert tf.lbeta(x).name == "lbeta/sub:0"
        assert tf.math.multiply_no_nan(x, x).op.type == "MulNoNan"
        assert tf.math.reciprocal_no_nan(x).op.type == "DivNoNan"
        assert [o.type for o in g.get_operations() if o.name.startswith("LogSigmoid")] == \
            ["Neg", "Softplus", "Neg"]
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.erf(tf.placeholder(tf.int32, [2]))
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.zeta(tf.placeholder(tf.float16, [2]), tf.placeholder(tf.float16, [2]))
    assert tf.math.divide_no_nan is tf.div_no_nan


_UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "expm1", "erf",
          "erfc", "lgamma", "digamma", "math.erfinv", "math.ndtri", "math.erfcinv",
          "log_sigmoid"]


def _f(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


def test_live_values_and_gradients_match_tf(tf1):
    rng = np.random.default_rng(3)
    xs = {"f32": rng.uniform(0.05, 0.95, 16).astype(np.float32),
          "f64": rng.uniform(0.05, 0.95, 16)}
    code = f"""
xs = {json.dumps({k: v.tolist() for k, v in xs.items()})}
names = {_UNARY!r}
out = {{}}
with tf.Session() as s:
    for dt, t in (("f32", tf.float32), ("f64", tf.float64)):
        x = tf.constant(np.array(xs[dt]), dtype=t)
        for n in names:
            f = tf
            for p in n.split("."): f = getattr(f, p)
            y = f(x)
            v, g = s.run([y, tf.gradients(y, x)[0]])
            out[dt + n] = [v.tolist(), g.tolist()]
        y = tf.constant(np.array(xs[dt][::-1]), dtype=t) + 1
        for n, yv in (("atan2", tf.atan2(x, y)), ("xlogy", tf.math.xlogy(x, y)),
                      ("xlog1py", tf.math.xlog1py(x, y)), ("xdivy", tf.math.xdivy(x, y)),
                      ("pg", tf.polygamma(tf.ones_like(x), x + 1)), ("zeta", tf.zeta(y + 1, x)),
                      ("acosh", tf.acosh(x + 1.5)), ("nextafter", tf.math.nextafter(x, y))):
            out[dt + n] = [s.run(yv).tolist(), s.run(tf.gradients(yv, x)[0]).tolist()]
print(json.dumps(out))
"""
    want = tf1(code)
    with tf.Session() as s:
        for dt, t in (("f32", tf.float32), ("f64", tf.float64)):
            rtol = 4e-6 if dt == "f32" else 1e-12
            x = tf.constant(xs[dt], dtype=t)
            y = tf.constant(xs[dt][::-1], dtype=t) + 1
            built = {n: _f(tf, n)(x) for n in _UNARY}
            built.update({"atan2": tf.atan2(x, y), "xlogy": tf.math.xlogy(x, y),
                          "xlog1py": tf.math.xlog1py(x, y), "xdivy": tf.math.xdivy(x, y),
                          "pg": tf.polygamma(tf.ones_like(x), x + 1), "zeta": tf.zeta(y + 1, x),
                          "acosh": tf.acosh(x + 1.5), "nextafter": tf.math.nextafter(x, y)})
            for n, yv in built.items():
                v, g = s.run([yv, tf.gradients(yv, x)[0]])
                wv, wg = want[dt + n]
                np.testing.assert_allclose(v, wv, rtol=rtol, atol=0, err_msg=dt + n)
                if wg is None or g is None:
                    assert wg is None and g is None, dt + n
                else:
                    np.testing.assert_allclose(g, wg, rtol=rtol * 4, atol=0, err_msg=dt + n)
