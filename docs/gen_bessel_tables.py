"""Generates scopeflow/ops/math/_bessel_tables.py: Chebyshev coefficients of the smooth
parts of the Bessel functions (scopeflow/ops/math/bessel_ops.py) and of Dawson's integral,
the Fresnel integrals and the exponential integral (scopeflow/ops/math/integral_ops.py).

Run with SciPy installed (development only; scopeflow never imports SciPy):
``python docs/gen_bessel_tables.py``. Each table is the Chebyshev interpolant, on
``[lo, hi]`` of its variable ``v`` (``x``, ``x**2`` or ``1/x`` or ``1/x**2``), of a part
that is analytic there (the logarithms and the oscillation are taken out), of the degree that fits
best (past it the samples' rounding dominates), checked against SciPy on a dense grid
(the script fails above 1e-13 relative to the part's scale, 1e-10 for Fresnel's f and g,
which enter the integrals scaled by 1/x and 1/x**3).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.polynomial import chebyshev as C
from scipy import special as sp

TWO_OVER_PI = 2 / np.pi


def _hankel(nu, x):
    """Hankel's asymptotic P and Q (x**-1 series), summed to the smallest term: exact to
    rounding for x > 30, where SciPy's j and y lose digits to the phase's rounding."""
    mu = 4 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        if k % 2:
            q += (-1) ** (k // 2) * term
        else:
            p += (-1) ** (k // 2) * term
    return p, q


def _pq(j, y, x, shift):
    nu = 0 if shift < 1 else 1
    hp, hq = _hankel(nu, np.maximum(x, 30.0))
    chi = x - shift
    amp = np.sqrt(np.pi * x / 2)
    p = amp * (j(x) * np.cos(chi) + y(x) * np.sin(chi))
    q = amp * (y(x) * np.cos(chi) - j(x) * np.sin(chi))
    return np.where(x > 30, hp, p), np.where(x > 30, hq, q)


def _fresnel_fg(x):
    """Fresnel's auxiliary f and g (C = 1/2 + f sin t - g cos t, S = 1/2 - f cos t -
    g sin t, t = pi x^2 / 2): from SciPy up to 10, by their asymptotic series above."""
    s, c = sp.fresnel(np.minimum(x, 10.0))
    xm = np.minimum(x, 10.0)
    t = np.pi * xm * xm / 2
    f = (c - 0.5) * np.sin(t) - (s - 0.5) * np.cos(t)
    g = -(c - 0.5) * np.cos(t) - (s - 0.5) * np.sin(t)
    u = 1 / (np.pi * x * x) ** 2
    fa, ga, tf_, tg = np.ones_like(x), np.ones_like(x), np.ones_like(x), np.ones_like(x)
    for m in range(1, 12):
        tf_ = tf_ * -(4 * m - 3) * (4 * m - 1) * u
        tg = tg * -(4 * m - 1) * (4 * m + 1) * u
        fa, ga = fa + tf_, ga + tg
    fa, ga = fa / (np.pi * x), ga / (np.pi ** 2 * x ** 3)
    return np.where(x > 10, fa, f), np.where(x > 10, ga, g)


def _scaled_ei(x):
    """``x exp(-x) Ei(x)``: SciPy's up to 50, the asymptotic series sum k!/x^k above."""
    term, total = np.ones_like(x), np.ones_like(x)
    for k in range(1, 40):
        term = term * k / x
        total = total + term
    xm = np.minimum(x, 50.0)
    return np.where(x > 50, total, xm * np.exp(-xm) * sp.expi(xm))


# name: (variable, lo, hi, part as a function of x)
PARTS = {
    "I0E_SMALL": ("x", 0.0, 8.0, lambda x: sp.i0e(x)),
    "I0E_LARGE": ("1/x", 0.0, 1 / 8, lambda x: np.sqrt(x) * sp.i0e(x)),
    "I1E_SMALL": ("x", 0.0, 8.0, lambda x: sp.i1e(x) / x),
    "I1E_LARGE": ("1/x", 0.0, 1 / 8, lambda x: np.sqrt(x) * sp.i1e(x)),
    "K0_SMALL": ("x2", 0.0, 4.0, lambda x: sp.k0(x) + np.log(x / 2) * sp.i0(x)),
    "K0E_LARGE": ("1/x", 0.0, 0.5, lambda x: np.sqrt(x) * sp.k0e(x)),
    "K1_SMALL": ("x2", 0.0, 4.0, lambda x: x * (sp.k1(x) - np.log(x / 2) * sp.i1(x))),
    "K1E_LARGE": ("1/x", 0.0, 0.5, lambda x: np.sqrt(x) * sp.k1e(x)),
    "J0_SMALL": ("x2", 0.0, 25.0, lambda x: sp.j0(x)),
    "J1_SMALL": ("x2", 0.0, 25.0, lambda x: sp.j1(x) / x),
    "Y0_SMALL": ("x2", 0.0, 25.0, lambda x: sp.y0(x) - TWO_OVER_PI * np.log(x) * sp.j0(x)),
    "Y1_SMALL": ("x2", 0.0, 25.0,
                 lambda x: x * sp.y1(x) - TWO_OVER_PI * x * np.log(x) * sp.j1(x)),
    "DAWSN_SMALL": ("x2", 0.0, 16.0, lambda x: sp.dawsn(x) / x),
    "DAWSN_LARGE": ("1/x2", 0.0, 1 / 16, lambda x: x * sp.dawsn(x)),
    "FRESNEL_C_SMALL": ("x2", 0.0, 6.25, lambda x: sp.fresnel(x)[1] / x),
    "FRESNEL_S_SMALL": ("x2", 0.0, 6.25, lambda x: sp.fresnel(x)[0] / x ** 3),
    "FRESNEL_F": ("1/x2", 0.0, 0.16, lambda x: x * _fresnel_fg(x)[0]),
    "FRESNEL_G": ("1/x2", 0.0, 0.16, lambda x: x ** 3 * _fresnel_fg(x)[1]),
    "EI_SMALL": ("x", 0.0, 6.0, lambda x: sp.expi(x) - np.log(x)),
    "EI_LARGE": ("1/x", 0.0, 1 / 6, lambda x: _scaled_ei(x)),
    "P0": ("1/x2", 0.0, 1 / 25, lambda x: _pq(sp.j0, sp.y0, x, np.pi / 4)[0]),
    "Q0": ("1/x2", 0.0, 1 / 25, lambda x: x * _pq(sp.j0, sp.y0, x, np.pi / 4)[1]),
    "P1": ("1/x2", 0.0, 1 / 25, lambda x: _pq(sp.j1, sp.y1, x, 3 * np.pi / 4)[0]),
    "Q1": ("1/x2", 0.0, 1 / 25, lambda x: x * _pq(sp.j1, sp.y1, x, 3 * np.pi / 4)[1]),
}


def _x_of(variable, v):
    return {"x": v, "x2": np.sqrt(v), "1/x": 1 / v, "1/x2": 1 / np.sqrt(v)}[variable]


def fit(name):
    variable, lo, hi, part = PARTS[name]
    f = lambda v: part(_x_of(variable, v))   # noqa: E731
    v = np.linspace(lo, hi, 20001)[1:-1]
    want = f(v)
    best = None
    for degree in range(6, 60):   # the degree past which the samples' noise dominates
        coef = C.Chebyshev.interpolate(f, degree, domain=[lo, hi]).coef
        got = C.chebval((2 * v - (lo + hi)) / (hi - lo), coef)
        err = np.max(np.abs(got - want)) / np.max(np.abs(want))
        if best is None or err < best[1] * 0.7:
            best = (coef, err)
    coef, err = best
    assert err < (1e-10 if name.startswith("FRESNEL_") else 1e-13), (name, err)
    return variable, lo, hi, coef, err


def main():
    out = ['"""Chebyshev tables of the Bessel functions\' smooth parts (generated by',
           'docs/gen_bessel_tables.py; do not edit)."""', "", "TABLES = {"]
    for name in PARTS:
        variable, lo, hi, coef, err = fit(name)
        out.append(f"    # {variable} in [{lo!r}, {hi!r}], {len(coef)} terms, max error "
                   f"{err:.1e}")
        out.append(f"    {name!r}: ({lo!r}, {hi!r}, (")
        for i in range(0, len(coef), 3):
            out.append("        " + " ".join(f"{float(c)!r}," for c in coef[i:i + 3]))
        out.append("    )),")
    out.append("}")
    path = Path(__file__).resolve().parents[1] / "scopeflow/ops/math/_bessel_tables.py"
    path.write_text("\n".join(out) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
