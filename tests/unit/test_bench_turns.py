"""bench/compare.py's turn-taking: two benchmark processes never time rounds at once; timing.py's
each_round (one-shot measures) under those turns; the suite."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def compare():
    spec = importlib.util.spec_from_file_location("bench_compare", BENCH / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program(tmp_path, name, log, main):
    """A benchmark script whose ``call()`` appends "<name> start/end" to a shared log and
    returns 0, 10, 20...; ``main`` (source at column 0) times it and prints the JSON line."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""
        import json, sys, time
        sys.path.insert(0, {str(BENCH)!r})
        import timing
        from timing import best_of

        calls = iter(range(100))

        def call():
            with open({str(log)!r}, "a") as f:
                f.write("{name} start\\n")
            time.sleep(0.01)
            with open({str(log)!r}, "a") as f:
                f.write("{name} end\\n")
            return next(calls) * 10.0
    """) + main)
    return [sys.executable, str(path)]


def _script(tmp_path, name, log, setup_between=""):
    # Between its two timed measures the script may do untimed work, as bench_conv.py
    # builds its second graph.
    return _program(tmp_path, name, log, (
        "first = best_of(call, repeat=3, number=2)\n"
        f"{setup_between}\n"
        "second = best_of(call, repeat=2)\n"
        f"print(json.dumps({{'framework': {name!r}, 'first': first, 'second': second}}))\n"))


def test_rounds_alternate_and_never_overlap(compare, tmp_path):
    log = tmp_path / "log"
    ours, theirs = compare.run_in_turns(
        _script(tmp_path, "a", log, setup_between="call(); time.sleep(0.2); call()"),
        _script(tmp_path, "b", log))
    assert ours["framework"] == "a" and theirs["framework"] == "b"
    assert ours["first"] >= 0.01 and theirs["second"] >= 0.01
    events = log.read_text().split()
    names = events[0::2]
    # Rounds of 2 calls then rounds of 1 call, strictly a, b, a, b, ...; "a"'s two untimed
    # calls come before "b"'s last round of the first measure: "b" never runs while "a"
    # is inside a round or between measures.
    expected = ["a"] * 4 + ["b"] * 4 + ["a"] * 4 + ["b"] * 4 + ["a"] * 4 + ["a"] * 4 \
        + ["b"] * 4 + ["a"] * 2 + ["b"] * 2 + ["a"] * 2 + ["b"] * 2
    assert names == expected
    assert events[1::2] == ["start", "end"] * (len(events) // 4)


def test_a_failing_script_reports_its_stderr(compare, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit('no such model')\n")
    with pytest.raises(RuntimeError, match="no such model"):
        compare.run_in_turns([sys.executable, str(bad)], [sys.executable, str(bad)])


# ── each_round and the suite ──────────────────────────────────────────────────────────
def _rounds_script(tmp_path, name, log, use):
    # ``use`` is "each_round" (returns what each call measured) or "best_of".
    measure = "timing.each_round(call, 3)" if use == "each_round" else \
        "[timing.best_of(call, repeat=3)]"
    return _program(tmp_path, name, log, (
        f"got = {measure}\n"
        f"print(json.dumps({{'framework': {name!r}, 'got': got}}))\n"))


def test_each_round_takes_turns_and_returns_what_fn_measured(compare, tmp_path):
    log = tmp_path / "log"
    ours, theirs = compare.run_in_turns(_rounds_script(tmp_path, "a", log, "each_round"),
                                        _rounds_script(tmp_path, "b", log, "best_of"))
    assert ours["got"] == [0.0, 10.0, 20.0]  # fn's own results, not times
    assert len(theirs["got"]) == 1 and theirs["got"][0] >= 0.01
    events = log.read_text().split()
    assert events[0::2] == ["a", "a", "b", "b"] * 3  # one call per round, alternating
    assert events[1::2] == ["start", "end"] * 6


def test_each_round_alone_just_calls(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import timing
    monkeypatch.setattr(timing, "_TURNS", False)  # as run alone, whatever imported it first
    results = iter([3, 1, 2])
    assert timing.each_round(lambda: next(results), 3) == [3, 1, 2]


def test_suite_lists_scripts_that_exist_and_run_under_tf(compare):
    assert compare.SUITE[:2] == compare.SEED_MODELS
    for script in compare.SUITE:
        path = compare.ROOT / script
        assert path.is_file(), script
        text = path.read_text()
        # Each takes --tf itself, or is a variant of a script that does.
        assert '"--tf"' in text or "import bench_" in text, script


def test_suite_with_named_scripts_is_an_error(compare, capsys):
    with pytest.raises(SystemExit) as exc:
        compare.main(["--suite", "bench/bench_conv.py"])
    assert exc.value.code == 2
    assert "--suite runs every script of the suite" in capsys.readouterr().err
