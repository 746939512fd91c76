"""The one timing rule every benchmark here uses (importable from the scripts beside it)."""

from __future__ import annotations

import time


def best_of(fn, repeat=5, number=1):
    """Best mean time per call (seconds) over ``repeat`` rounds of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
