"""The fuzz harness, parent side: worker processes, mutators, campaigns, statistics.

``Worker`` starts ``tests/fuzz/worker.py`` in a subprocess (one thread for NumPy's BLAS and
OpenMP, a capped address space), sends it inputs and enforces a time limit on each by
killing it; a worker that dies (a signal, the limit, a timeout) is reported as a crash of
that input and restarted on the next one. ``mutate`` damages bytes the way the readers
must survive: bit flips, truncations, huge integers splatted over length fields, deleted,
repeated and inserted runs. ``Campaign`` feeds a target its seeds, its hand-made hostile
inputs, truncations at every structure boundary, then random mutations (with the
checksums recomputed for half of them, so the damage reaches the parsers behind them),
and ``Stats`` counts the outcomes, the workers' peak memory and the slowest input.

Outcomes: every API call (probe) on an input ends as ``ok`` (or ``ok:<kind>``, a success
that the target names), as an accepted error class, or as ``CRASH:<class>``: an
exception no rule of the target accepts, ``Timeout``, or ``Died(<signal>)``.
"""

from __future__ import annotations

import collections
import os
import pickle
import random
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .worker import read_frame, write_frame

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MEMORY_MB = 1024
# One thread per library pool: OpenBLAS and OpenMP reserve address space per thread.
_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "NUMEXPR_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "PYTHONHASHSEED": "0"}


# ── results ──────────────────────────────────────────────────────────────────────────
@dataclass
class Result:
    """One input's outcome: each probe's ``(name, status, class)``; ``crash``: the first
    crash's class, message, scopeflow frame and traceback; ``data``: the bytes the
    reader saw (after any fix-up), kept when it crashed."""

    target: str
    label: str
    probes: list
    crash: dict | None
    seconds: float
    maxrss_kb: int
    data: bytes | None = None
    fixup_error: str | None = None

    @property
    def crashed(self) -> bool:
        return self.crash is not None

    def outcomes(self) -> list[str]:
        out = []
        for _, status, cls in self.probes:
            if status == "ok":
                out.append("ok" if cls == "ok" else f"ok:{cls}")
            elif status == "accepted":
                out.append(cls)
            else:
                out.append(f"CRASH:{cls}")
        return out

    def summary(self) -> str:
        if not self.crashed:
            return f"{self.target} [{self.label}]: {', '.join(self.outcomes())}"
        c = self.crash
        return (f"{self.target} [{self.label}] CRASH in probe {c.get('probe', '?')}: "
                f"{c['class']}: {c['message'][:300]}\n  at {c['where']}\n"
                f"{c.get('traceback', '')}")


_TIMEOUT = object()   # _receive's answer when the worker outstayed its time


class WorkerError(RuntimeError):
    """The worker failed outside any input (its setup, or the protocol)."""


# ── the worker process ───────────────────────────────────────────────────────────────
class Worker:
    """A fuzz worker subprocess (started on first use, restarted after a death).

    ``memory_mb``: address space allowed above what the worker maps after importing
    scopeflow, NumPy, protobuf and Pillow. ``peak_kb``: the highest ``ru_maxrss`` of any
    of its processes so far (killed ones included, from ``wait4``).
    """

    def __init__(self, memory_mb: int = DEFAULT_MEMORY_MB, workdir: str | None = None):
        self.memory_mb = memory_mb
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="scopeflow-fuzz-")
            workdir = self._tmp.name
        self.workdir = Path(workdir)
        self.proc = None
        self.hello = None
        self.peak_kb = 0
        self.starts = 0
        self._log = None

    # -- lifetime --------------------------------------------------------------------
    def start(self):
        env = dict(os.environ, **_THREAD_ENV)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        self._log = open(self.workdir / "worker.log", "ab")  # noqa: SIM115 - kept open
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.worker", "--memory-mb", str(self.memory_mb),
             "--workdir", str(self.workdir / f"w{self.starts}")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, cwd=ROOT,
            env=env)
        self.starts += 1
        self.hello = self._receive(120.0)
        if self.hello is None or self.hello is _TIMEOUT:
            raise WorkerError(f"the fuzz worker did not start:\n{self.log_tail()}")
        self.peak_kb = max(self.peak_kb, self.hello["maxrss_kb"])

    def close(self):
        if self.proc is not None:
            try:
                write_frame(self.proc.stdin, ("exit",))
            except (BrokenPipeError, OSError):
                pass
            self._reap(timeout=10.0)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _reap(self, timeout: float, kill: bool = False) -> int:
        """Waits for the worker (killing it if asked or when it outstays ``timeout``);
        returns its wait status, and takes its peak RSS from ``wait4``."""
        proc, self.proc = self.proc, None
        if kill:
            proc.kill()   # our own child, by its pid
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self.peak_kb = max(self.peak_kb, usage.ru_maxrss)
        return proc.returncode

    def log_tail(self, size: int = 3000) -> str:
        try:
            data = (self.workdir / "worker.log").read_bytes()
        except OSError:
            return ""
        return data[-size:].decode("utf-8", "replace")

    # -- requests --------------------------------------------------------------------
    def _receive(self, timeout: float):
        """The next reply; ``_TIMEOUT`` when ``timeout`` passed, None when the worker
        died (its end of the pipe closed)."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return _TIMEOUT
        try:
            return read_frame(self.proc.stdout)
        except (EOFError, struct.error, OSError, pickle.UnpicklingError):
            return None

    def _request(self, message, timeout: float):
        if self.proc is None:
            self.start()
        try:
            write_frame(self.proc.stdin, message)
        except (BrokenPipeError, OSError):
            return None, "died"
        reply = self._receive(timeout)
        if reply is _TIMEOUT:
            self._reap(0.0, kill=True)
            return None, "timeout"
        if reply is None:
            return None, "died"
        return reply, None

    def setup(self, target: str, long: bool = False) -> dict:
        """The target's seeds and hostile inputs (prepared in the worker)."""
        reply, failure = self._request(("setup", target, long), 600.0)
        if reply is None or "error" in reply:
            detail = reply["error"] if reply else f"worker {failure}:\n{self.log_tail()}"
            if self.proc is not None and reply is None:
                self._reap(0.0, kill=True)
            raise WorkerError(f"setting up fuzz target {target!r} failed:\n{detail}")
        self.peak_kb = max(self.peak_kb, reply["maxrss_kb"])
        return reply

    def run(self, target: str, seed: int, data: bytes, *, fix: bool = False,
            label: str = "", timeout: float = 10.0) -> Result:
        """Runs one input through the target's probes, within ``timeout`` seconds."""
        start = time.monotonic()
        reply, failure = self._request(("run", target, seed, bytes(data), fix), timeout)
        if reply is not None and "error" in reply:
            raise WorkerError(f"fuzz target {target!r} failed outside its probes:\n"
                              f"{reply['error']}")
        if reply is None:
            seconds = time.monotonic() - start
            if failure == "timeout":
                crash = {"class": "Timeout", "message": f"no answer in {timeout:g} s",
                         "where": "(killed)", "traceback": ""}
            else:
                code = self._reap(5.0)
                name = (signal.Signals(-code).name if code < 0 and -code in
                        signal.valid_signals() else f"exit status {code}")
                crash = {"class": f"Died({name})", "message": "the worker died",
                         "where": "(process)", "traceback": self.log_tail()}
            return Result(target, label, [("*", "crash", crash["class"])], crash, seconds,
                          self.peak_kb, bytes(data))
        self.peak_kb = max(self.peak_kb, reply["maxrss_kb"])
        if reply["restart"]:
            self._reap(5.0, kill=True)
        return Result(target, label, reply["probes"], reply["crash"], reply["seconds"],
                      reply["maxrss_kb"], reply["data"], reply["fixup_error"])


# ── mutations ────────────────────────────────────────────────────────────────────────
# Integers that lengths, counts, offsets and dimensions are damaged into.
INTERESTING = (0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
               0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 32, 1 << 40, (1 << 63) - 1, 1 << 63,
               (1 << 64) - 1)
MAX_VARINT = b"\xff" * 9 + b"\x01"      # 2**64 - 1 as a varint (protobuf's 10-byte -1)


def _position(rng, size: int, boundaries) -> int:
    """An offset in ``[0, size]``: half the time near a structure boundary."""
    if boundaries and rng.random() < 0.5:
        return min(size, max(0, rng.choice(boundaries) + rng.randrange(-2, 9)))
    return rng.randrange(size + 1)


def _flip(buf, rng, pos):
    if pos < len(buf):
        bit = rng.randrange(8)
        buf[pos] ^= 1 << bit
        return f"flip bit {bit} at {pos}"
    return None


def _set_byte(buf, rng, pos):
    if pos < len(buf):
        value = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        buf[pos] = value
        return f"byte {value:#x} at {pos}"
    return None


def _splat_int(buf, rng, pos):
    width = rng.choice((1, 2, 4, 8))
    order = rng.choice(("little", "big"))
    value = rng.choice(INTERESTING + (len(buf),)) & ((1 << (8 * width)) - 1)
    buf[pos:pos + width] = value.to_bytes(width, order)
    return f"{order}-endian {width}-byte {value:#x} at {pos}"


def _splat_varint(buf, rng, pos):
    value = rng.choice((MAX_VARINT, b"\xff\xff\xff\xff\x0f", b"\x80\x80\x80\x80\x80\x80"))
    buf[pos:pos + len(value)] = value
    return f"varint {value.hex()} at {pos}"


def _truncate(buf, rng, pos):
    del buf[pos:]
    return f"truncate at {pos}"


def _delete(buf, rng, pos):
    n = rng.choice((1, 2, 4, 8, rng.randrange(1, 65)))
    del buf[pos:pos + n]
    return f"delete {n} at {pos}"


def _insert(buf, rng, pos):
    if rng.random() < 0.5:
        chunk = rng.randbytes(rng.randrange(1, 33))
        what = f"{len(chunk)} random bytes"
    else:
        byte = rng.choice((0, 0xFF, 0x41, 0x80))
        chunk = bytes([byte]) * rng.choice((1, 16, 256, 4096))
        what = f"{len(chunk)} x {byte:#x}"
    buf[pos:pos] = chunk
    return f"insert {what} at {pos}"


def _repeat(buf, rng, pos):
    """A run of the input copied elsewhere (or repeated): duplicated structures."""
    if not buf:
        return None
    start = rng.randrange(len(buf))
    n = min(len(buf) - start, rng.choice((4, 16, 64, 512)))
    chunk = bytes(buf[start:start + n]) * rng.choice((1, 1, 2, 8))
    if rng.random() < 0.5:
        buf[pos:pos] = chunk
        return f"insert copy of [{start}:{start + n}] x{len(chunk) // max(n, 1)} at {pos}"
    buf[pos:pos + len(chunk)] = chunk
    return f"overwrite with copy of [{start}:{start + n}] at {pos}"


_MUTATORS = (_flip, _flip, _set_byte, _splat_int, _splat_int, _splat_varint, _truncate,
             _delete, _insert, _repeat)


def mutate(data: bytes, rng, boundaries=(), max_ops: int = 4) -> tuple[bytes, list[str]]:
    """``data`` damaged by 1 to ``max_ops`` mutations drawn from ``rng`` (a
    ``random.Random``, or Hypothesis' ``st.randoms()`` so that failures shrink); returns
    the bytes and what was done."""
    buf = bytearray(data)
    done = []
    for _ in range(rng.randint(1, max_ops)):
        op = rng.choice(_MUTATORS)
        what = op(buf, rng, _position(rng, len(buf), boundaries))
        if what:
            done.append(what)
    return bytes(buf), done


# ── campaigns ────────────────────────────────────────────────────────────────────────
@dataclass
class Stats:
    """A target's tally: inputs, outcomes per probe call, peak memory, slowest input,
    and each distinct crash (class and scopeflow frame) with its smallest input."""

    target: str
    owner: str = ""
    tried: int = 0
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    peak_kb: int = 0
    worst_s: float = 0.0
    worst_label: str = ""
    crashes: dict = field(default_factory=dict)
    fixup_errors: int = 0

    def add(self, result: Result):
        self.tried += 1
        self.outcomes.update(result.outcomes())
        self.peak_kb = max(self.peak_kb, result.maxrss_kb)
        if result.seconds > self.worst_s:
            self.worst_s, self.worst_label = result.seconds, result.label
        if result.fixup_error:
            self.fixup_errors += 1
        if result.crashed:
            key = (result.crash["class"], result.crash["where"])
            known = self.crashes.get(key)
            if known is None or len(result.data or b"") < len(known["result"].data or b""):
                self.crashes[key] = {"result": result,
                                     "count": known["count"] + 1 if known else 1}
            else:
                known["count"] += 1

    @property
    def crash_count(self) -> int:
        return sum(c["count"] for c in self.crashes.values())


class Campaign:
    """One target's inputs, in order: its seeds, its hostile inputs, truncations at every
    boundary (``long``: at every offset of small seeds too), then ``iterations`` random
    mutations from ``random.Random`` seeded with ``seed`` and the target's name."""

    def __init__(self, worker: Worker, target: str, *, long: bool = False, seed: int = 0):
        self.worker, self.target, self.long = worker, target, long
        self.info = worker.setup(target, long)
        self.seeds = self.info["seeds"]
        self.rng = random.Random(f"{seed}:{target}")
        self.stats = Stats(target, self.info["owner"])
        self.stats.peak_kb = self.info["maxrss_kb"]

    def mutable_seeds(self) -> list[int]:
        return [i for i, s in enumerate(self.seeds) if s[3]]

    def systematic(self, max_cuts: int | None = None):
        """``(label, seed, data, fix)`` of the seeds, hostile inputs, truncations and
        one-bit flips at the boundaries (a flip in a length, a CRC, a tag); ``max_cuts``:
        at most that many truncations and as many flips per seed, evenly spread."""
        for i, (label, data, *_) in enumerate(self.seeds):
            yield f"seed {label}", i, data, False
        for label, data, seed, long_only in self.info["hostile"]:
            if self.long or not long_only:
                yield f"hostile {label}", seed, data, False
        for i in self.mutable_seeds():
            label, data, boundaries, *_ = self.seeds[i]
            cuts = set()
            for b in boundaries:
                cuts.update((b - 1, b, b + 1))
            if self.long:
                step = 1 if len(data) <= 4096 else max(1, len(data) // 1024)
                cuts.update(range(0, len(data), step))
            cuts = _spread(sorted(c for c in cuts if 0 <= c < len(data)), max_cuts)
            for cut in cuts:
                yield f"{label} cut at {cut}", i, data[:cut], False
            for pos in _spread(sorted({b for b in boundaries if 0 <= b < len(data)}),
                               max_cuts):
                flipped = bytearray(data)
                flipped[pos] ^= 0x01
                yield f"{label} bit 0 flipped at {pos}", i, bytes(flipped), False

    def random_inputs(self, iterations: int):
        choices = self.mutable_seeds()
        for n in range(iterations):
            i = self.rng.choice(choices)
            label, data, boundaries, *_ = self.seeds[i]
            bad, done = mutate(data, self.rng, boundaries)
            fix = self.rng.random() < 0.5
            yield f"{label} #{n}: {'; '.join(done)}{' (CRCs fixed)' if fix else ''}", i, bad, fix

    def run_one(self, label, seed, data, fix=False) -> Result:
        result = self.worker.run(self.target, seed, data, fix=fix, label=label,
                                 timeout=self.info["timeout_s"])
        self.stats.add(result)
        return result

    def run(self, iterations: int, *, systematic: bool = True, max_cuts=None,
            seconds: float | None = None, progress=None) -> Stats:
        """Runs the systematic inputs, then ``iterations`` random ones (stopping early
        once ``seconds`` have passed since the start, if given)."""
        start = time.monotonic()
        sources = [self.systematic(max_cuts)] if systematic else []
        sources.append(self.random_inputs(iterations))
        for source in sources:
            for label, seed, data, fix in source:
                result = self.run_one(label, seed, data, fix)
                if progress is not None:
                    progress(result)
                if (seconds is not None and source is sources[-1] and
                        time.monotonic() - start > seconds):
                    break
        self.stats.peak_kb = max(self.stats.peak_kb, self.worker.peak_kb)
        return self.stats


def _spread(items: list, most: int | None) -> list:
    """At most ``most`` of ``items``, evenly spread (all of them when ``most`` is None)."""
    if most is None or len(items) <= most:
        return items
    return [items[k * len(items) // most] for k in range(most)]


# ── reports ──────────────────────────────────────────────────────────────────────────
def _outcome_text(counter: collections.Counter) -> str:
    def order(item):
        name, count = item
        return (name.startswith("CRASH"), not name.startswith("ok"), -count, name)
    return ", ".join(f"{name} {count}" for name, count in sorted(counter.items(), key=order))


def format_table(all_stats: list[Stats]) -> str:
    """A Markdown table: per reader, inputs tried, outcomes per API call (probe), peak
    RSS of its workers, and the slowest input."""
    rows = ["| reader | inputs | outcomes (per API call) | peak RSS | worst time |",
            "|---|---:|---|---:|---|"]
    for s in all_stats:
        worst = s.worst_label if len(s.worst_label) <= 60 else s.worst_label[:57] + "..."
        rows.append(f"| {s.target} | {s.tried} | {_outcome_text(s.outcomes)} | "
                    f"{s.peak_kb / 1024:.0f} MiB | {s.worst_s:.3f} s ({worst}) |")
    return "\n".join(rows)


def format_crashes(all_stats: list[Stats]) -> str:
    out = []
    for s in all_stats:
        for (cls, where), c in s.crashes.items():
            r = c["result"]
            out.append(f"## {s.target} (code: {s.owner or '-'}): {cls} at {where}, "
                       f"{c['count']} input(s)\nsmallest: [{r.label}] {len(r.data or b'')} "
                       f"bytes: {(r.data or b'')[:96]!r}{'...' if len(r.data or b'') > 96 else ''}"
                       f"\n{r.crash['message'][:400]}\n{r.crash.get('traceback', '')[-1500:]}")
    return "\n\n".join(out)
