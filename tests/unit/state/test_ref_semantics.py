"""Reads and writes of ref variables against TensorFlow 2.21 (TF1 semantics).

``tests/fixtures/tf_ref_semantics/programs.py`` holds small programs that build a graph
with either API and return what a session fetched; ``expected.json`` holds TensorFlow's
results (refresh: ``../shared/tools/tf1 tests/fixtures/tf_ref_semantics/make_fixture.py``).
Values are small dyadic floats and ints, so they must match exactly. Every program runs with
the plan passes on and off. The rules they pin down (TF1's, verified): a consumer of a variable (through any chain of
buffer-forwarding ops) sees it as it is when the consumer runs; a fetched tensor that
still aliases the variable's buffer shows it as the run leaves it; ops that compute copy;
a value handed back to Python never changes afterwards.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import scopeflow as tf

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_ref_semantics"
WANT = json.loads((HERE / "expected.json").read_text())


def _programs():
    spec = importlib.util.spec_from_file_location("tf_ref_semantics_programs",
                                                  HERE / "programs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAMS = _programs()


def _plain(value):
    return json.loads(json.dumps(value))


def test_fixture_covers_every_program():
    assert sorted(WANT["programs"]) == sorted(PROGRAMS.PROGRAMS)
    assert sorted(WANT["quirks"]) == sorted(PROGRAMS.QUIRKS)


@pytest.mark.parametrize("passes", ["all", "none"])
@pytest.mark.parametrize("name", list(PROGRAMS.PROGRAMS))
def test_program_matches_tf(name, passes, monkeypatch):
    monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", passes)
    got = _plain(PROGRAMS.run_program(tf, name))
    assert got == WANT["programs"][name]


def test_programs_are_deterministic_under_scopeflow():
    # a few representative programs, run again: scopeflow must pick one order and keep it
    for name in ("table_fetch_unordered_identity_then_assign",
                 "chain_read_value_unordered_scatter_add",
                 "batchnorm_update_ops_identity_with_other_fetches",
                 "sgd_loss_w_and_reads_after_train_op"):
        results = [_plain(PROGRAMS.run_program(tf, name)) for _ in range(3)]
        assert results[1] == results[0] and results[2] == results[0], name


@pytest.mark.tf
def test_live_tf_still_matches_fixture(tf1):
    """All programs (and the recorded quirks) in one TF process, twice each."""
    source = (HERE / "programs.py").read_text()
    got = tf1(source + "\n\nprint(json.dumps({'programs': run_all(tf, repeats=2), "
                       "'quirks': run_all(tf, repeats=2, table=QUIRKS)}))\n")
    stale = [n for n in WANT["programs"] if got["programs"].get(n) != WANT["programs"][n]]
    stale += [n for n in WANT["quirks"] if got["quirks"].get(n) != WANT["quirks"][n]]
    assert not stale, f"expected.json is stale for: {stale}"
    assert sorted(got["programs"]) == sorted(WANT["programs"])
