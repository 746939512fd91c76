"""Plans specialised on the fed shapes against the generic plans, over the random graphs of
the plan differential test (``test_plan_differential.py``: variables, ref reads and writes,
control dependencies, pass-throughs, reductions, reshapes, fed intermediates, failing
runs, repeated runs with fresh feeds, placeholders with an unknown first dimension).

Every run with an unknown fed dim runs a plan specialised on its shapes
(``SPECIALIZE_AT = 1``); the results (values, dtypes, shapes, Python types and error
classes and messages) must be bit-identical to the same session with
``-shape_specialization`` (the generic plans, with the other passes; the other passes
against none are ``test_plan_differential``'s business). A second corpus seed varies the
graphs; the cache size is cut so that plans are dropped and compiled again.
"""

from __future__ import annotations

import pytest

from scopeflow.runtime import plan as plan_module
from scopeflow.runtime import session as session_module
from scopeflow.runtime import shape_specialization
from tests.unit.runtime.test_plan_differential import (
    N_GRAPHS,
    _report,
    corpus,
    diff_exact,
    run_ours,
)

N = N_GRAPHS


@pytest.fixture
def counted(monkeypatch):
    """Specialise at once, keep few plans, and count the specialised plans compiled."""
    monkeypatch.setattr(shape_specialization, "SPECIALIZE_AT", 1)
    monkeypatch.setattr(shape_specialization, "CACHE_SIZE", 2)
    count = {"specialised": 0}

    def compile_plan(*args, fed_shapes=None, **kwargs):
        if fed_shapes is not None:
            count["specialised"] += 1
        return plan_module.compile_plan(*args, fed_shapes=fed_shapes, **kwargs)

    monkeypatch.setattr(session_module, "compile_plan", compile_plan)
    return count


@pytest.mark.parametrize("seed", ["0", "specialise"])
def test_specialised_plans_match_generic_ones(counted, monkeypatch, seed):
    failures = []
    for spec in corpus(N, seed=seed, only=None):
        on, without = run_ours(spec, ["all", "-shape_specialization"], monkeypatch)
        msgs = diff_exact(spec, on, without, labels=("specialised", "generic"))
        if msgs:
            failures.append((spec, msgs))
    if failures:
        pytest.fail(_report("specialised vs generic plans", failures, seed), pytrace=False)
    # The corpus does exercise the specialisation (fed placeholders of unknown dims).
    print(f"{N} graphs, {counted['specialised']} specialised plans compiled")
    assert counted["specialised"] >= N // 3, counted
