"""The fuzz harness's short run: every reader of untrusted bytes, deterministic, seconds.

For each reader (``tests/fuzz/targets``): its seed files must decode under the worker's
memory limit; its hand-made hostile inputs and truncations at its structure boundaries
must end in success or an error class the target accepts; then Hypothesis draws mutated
inputs from its seeds (derandomized: the same inputs every run; a crash shrinks to a
small reproducer). The harness itself is checked first: a stray exception, a memory hog,
a hang, a dying worker and a kernel exception the session wraps are all reported as
crashes. The long run is ``python -m tests.fuzz --long`` (docs/RELIABILITY.md).
"""

from __future__ import annotations

import os
import random

import pytest

from .harness import Campaign, Worker, mutate
from .targets import READERS

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Mutated inputs per reader (SCOPEFLOW_FUZZ_EXAMPLES raises it for a longer run).
EXAMPLES = int(os.environ.get("SCOPEFLOW_FUZZ_EXAMPLES", "25"))
MAX_CUTS = 24   # truncations per seed in the short run (the long run tries every boundary)



@pytest.fixture(scope="module")
def worker():
    with Worker() as w:
        yield w


@pytest.fixture(scope="module")
def selftest_worker():
    with Worker(memory_mb=256) as w:   # a small limit: the hog is stopped quickly
        yield w


_campaigns: dict = {}


def _campaign(worker, reader) -> Campaign:
    campaign = _campaigns.get(reader)
    if campaign is None or campaign.worker is not worker:
        campaign = _campaigns[reader] = Campaign(worker, reader)
    return campaign


# ── the harness itself ───────────────────────────────────────────────────────────────
def _run(worker, target, data, timeout=2.0):
    worker.setup(target)
    return worker.run(target, 0, data, timeout=timeout)


def test_a_stray_exception_is_a_crash_and_an_accepted_error_is_not(selftest_worker):
    assert _run(selftest_worker, "selftest_crash", b"fine").outcomes() == ["ok"]
    assert _run(selftest_worker, "selftest_crash", b"refused").outcomes() == ["DataLossError"]
    crash = _run(selftest_worker, "selftest_crash", b"BADxx")
    assert crash.crashed and crash.crash["class"] == "struct.error", crash.summary()
    assert crash.data == b"BADxx"   # the reproducer comes back
    # ValueError is accepted only from a `raise` in scopeflow: this one is the harness's.
    stray = _run(selftest_worker, "selftest_crash", b"BAD value")
    assert stray.crashed and stray.crash["class"] == "ValueError", stray.summary()


def test_a_memory_hog_is_stopped_by_the_limit(selftest_worker):
    hog = _run(selftest_worker, "selftest_hog", b"BAD", timeout=30.0)
    assert hog.crashed and "MemoryError" in hog.crash["class"], hog.summary()
    limit_kb = (selftest_worker.hello["limit"] >> 10)
    assert hog.maxrss_kb < limit_kb, (hog.maxrss_kb, limit_kb)
    # The worker is replaced after a MemoryError and serves the next input.
    assert _run(selftest_worker, "selftest_hog", b"fine").outcomes() == ["ok"]


def test_a_hang_is_stopped_by_the_time_limit(selftest_worker):
    hang = _run(selftest_worker, "selftest_hang", b"BAD", timeout=1.0)
    assert hang.crashed and hang.crash["class"] == "Timeout", hang.summary()
    assert hang.seconds < 5
    assert _run(selftest_worker, "selftest_hang", b"fine").outcomes() == ["ok"]


def test_a_dying_worker_is_a_crash(selftest_worker):
    died = _run(selftest_worker, "selftest_die", b"BAD")
    assert died.crashed and died.crash["class"] == "Died(SIGSEGV)", died.summary()
    assert _run(selftest_worker, "selftest_die", b"fine").outcomes() == ["ok"]


def test_a_kernel_exception_the_session_wraps_is_still_a_crash(selftest_worker):
    # The session turns it into InvalidArgumentError, which the target accepts; the
    # harness judges the exception the kernel raised.
    wrapped = _run(selftest_worker, "selftest_wrapped", b"BADxx")
    assert wrapped.crashed and wrapped.crash["class"] == "struct.error", wrapped.summary()


def test_mutations_are_deterministic_and_damage_the_input():
    data = bytes(range(256)) * 4
    first = [mutate(data, random.Random(7), [0, 100, 500]) for _ in range(1)]
    again = [mutate(data, random.Random(7), [0, 100, 500]) for _ in range(1)]
    assert first == again
    rng = random.Random(1)
    outputs = [mutate(data, rng, [12])[0] for _ in range(200)]
    assert sum(out != data for out in outputs) >= 190
    assert any(len(out) < len(data) for out in outputs)   # truncations and deletions
    assert any(len(out) > len(data) for out in outputs)   # insertions


# ── the readers ──────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("reader", READERS)
def test_seeds_hostile_inputs_and_truncations(worker, reader):
    campaign = _campaign(worker, reader)
    seeds = len(campaign.seeds)
    failures, results = [], []
    for n, (label, seed, data, fix) in enumerate(campaign.systematic(MAX_CUTS)):
        result = campaign.run_one(label, seed, data, fix)
        results.append(result)
        known = campaign.seeds[seed][4] if n < seeds else {}
        if n < seeds and any(status != "ok" and known.get(probe) != cls
                             for probe, status, cls in result.probes):
            # A seed is a valid file: every API reads it, within the memory limit.
            failures.append(f"seed failed: {result.summary()}")
        elif result.crashed:
            failures.append(result.summary())
    assert not failures, f"{len(failures)} of {len(results)} inputs:\n\n" + "\n\n".join(
        failures[:5])
    assert len(results) > seeds   # hostile inputs and truncations ran too


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(rng=st.randoms(use_true_random=False))
def test_mutated_inputs(worker, reader, rng):
    campaign = _campaign(worker, reader)
    seed = rng.choice(campaign.mutable_seeds())
    label, data, boundaries, *_ = campaign.seeds[seed]
    bad, done = mutate(data, rng, boundaries)
    fix = rng.random() < 0.5
    result = campaign.run_one(f"{label}: {'; '.join(done)}", seed, bad, fix)
    assert not result.crashed, (f"{result.summary()}\nreproduce: seed {seed} ({label}), "
                                f"fix={fix}, {len(result.data)} bytes: {result.data[:300]!r}")
