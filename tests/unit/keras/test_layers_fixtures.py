"""The Keras layer fixtures (tests/fixtures/keras_layers/*.json) are what real tf_keras
gives for today's cases (tests/unit/keras/keras_layer_cases.py): re-run live when the TF
oracle is present, so that a changed case cannot pass against a stale fixture."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
_CASES_PATH = _HERE / "keras_layer_cases.py"
_spec = importlib.util.spec_from_file_location("keras_layer_cases_fixtures", _CASES_PATH)
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
FIXTURES = _HERE.parents[1] / "fixtures" / "keras_layers"


def test_fixtures_are_real_tf_keras_results(tf1):
    results = tf1(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("cases", {str(_CASES_PATH)!r})
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        print(json.dumps({{f: cases.run_family(tf, f) for f in cases.CASES}}))
    """)
    for family, live in results.items():
        fixture = json.loads((FIXTURES / f"{family}.json").read_text())
        assert sorted(live) == sorted(fixture) == sorted(cases.CASES[family])
        for name, result in live.items():
            assert "error" not in result, (family, name, result)
            cases.check(result, fixture[name], rtol=1e-6, atol=1e-6)


def test_every_family_has_a_fixture():
    assert sorted(p.stem for p in FIXTURES.glob("*.json")) == sorted(cases.CASES)
    assert np.all([(FIXTURES / f"{f}.json").stat().st_size > 0 for f in cases.CASES])
