"""Scatters by rounds of unique slots (``apply_at``) give ``ufunc.at``'s sequential bits:
repeated slots, NaN, signed zeros, every dtype, slices of any width."""

import numpy as np
import pytest

from scopeflow.ops.array.scatter_nd_ops import apply_at, ordered_rounds

RNG = np.random.default_rng(0)


def _values(n, inner, dt):
    if dt == np.bool_:
        return RNG.random((n,) + inner) < 0.5
    v = (RNG.standard_normal((n,) + inner) * 10.0 ** RNG.integers(-8, 8, (n,) + inner)).astype(dt)
    if dt in (np.float32, np.float64):
        v.reshape(-1)[::37] = -0.0
        v.reshape(-1)[::41] = np.nan
    return v


@pytest.mark.parametrize("inner", [(64,), (3,), (2, 5), (1,)])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.complex64, np.bool_])
def test_same_bits_as_ufunc_at(inner, dt):
    ufuncs = [np.logical_or] if dt == np.bool_ else [np.add, np.subtract]
    ufuncs += [np.fmax, np.fmin] if dt in (np.float32, np.float64, np.int32) else []
    for slots, n in [(20, 3000), (1, 200), (5000, 300), (3, 0)]:
        pos = RNG.integers(0, slots, n)
        vals = _values(n, inner, dt)
        for uf in ufuncs:
            base = _values(slots + 2, inner, dt)
            want, got = base.copy(), base.copy()
            uf.at(want, pos, vals)
            apply_at(uf, got, pos, vals)
            assert want.tobytes() == got.tobytes(), (uf, slots, n)


def test_rounds_hold_each_slot_once_in_order():
    pos = np.array([3, 1, 3, 3, 0, 1])
    assert [r.tolist() for r in ordered_rounds(pos)] == [[4, 1, 0], [5, 2], [3]]
    assert ordered_rounds(pos, limit=2) is None
    assert ordered_rounds(np.zeros(0, np.int64)) == []
