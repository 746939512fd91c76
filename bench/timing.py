"""The one timing rule every benchmark here uses (importable from the scripts beside it).

Run alone, ``best_of`` times its rounds back to back. Under ``compare.py`` both
frameworks' processes run at once and take turns, one timed round each
(``SCOPEFLOW_BENCH_TURNS=1``): before a round the script prints ``#wait`` and blocks on
a line of stdin, after it prints ``#round <seconds>``. This shared VM's speed drifts by
up to 1.5x for seconds at a time, even for pure Python; alternating rounds puts both
frameworks in the same stretches, so the ratio no longer depends on which process
happened to run in a slow one.
"""

from __future__ import annotations

import os
import platform
import sys
import time

_TURNS = os.environ.get("SCOPEFLOW_BENCH_TURNS") == "1"


def _await_turn():
    print("#wait", flush=True)
    if not sys.stdin.readline():
        raise SystemExit("compare.py went away")


def best_of(fn, repeat=5, number=1):
    """Best mean time per call (seconds) over ``repeat`` rounds of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        if _TURNS:
            _await_turn()
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        seconds = (time.perf_counter() - t0) / number
        if _TURNS:
            print(f"#round {seconds!r}", flush=True)
        best = min(best, seconds)
    return best


def each_round(fn, repeat=1):
    """``fn()``'s results over ``repeat`` rounds, for measures a script takes itself.

    Some measures are not a time of ``fn`` in this process: a child process's own clock
    (``bench_import``), a child's peak memory (``bench_memory``), a one-shot
    ``FileWriter.close``. ``fn`` returns what it measured; each call is one round, so
    under ``compare.py`` it waits for its turn as ``best_of``'s rounds do, and the other
    framework's work never runs beside it.
    """
    results = []
    for _ in range(repeat):
        if _TURNS:
            _await_turn()
        t0 = time.perf_counter()
        results.append(fn())
        if _TURNS:
            print(f"#round {time.perf_counter() - t0!r}", flush=True)
    return results


def cpu_model() -> str:
    """The CPU's model name: every benchmark result is reported with it."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
