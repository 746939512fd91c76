"""bench/compare.py's turn-taking: two benchmark processes never time rounds at once."""

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


def _script(tmp_path, name, log, setup_between=""):
    # Each call appends "<name> start/end" to a shared log; between its two timed
    # measures the script may do untimed work, as bench_conv.py builds its second graph.
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""
        import json, sys, time
        sys.path.insert(0, {str(BENCH)!r})
        from timing import best_of

        def call():
            with open({str(log)!r}, "a") as f:
                f.write("{name} start\\n")
            time.sleep(0.01)
            with open({str(log)!r}, "a") as f:
                f.write("{name} end\\n")

        first = best_of(call, repeat=3, number=2)
        {setup_between}
        second = best_of(call, repeat=2)
        print(json.dumps({{"framework": {name!r}, "first": first, "second": second}}))
    """))
    return [sys.executable, str(path)]


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
