"""tf.data against real TensorFlow: the programs of tests/fixtures/tf_data/cases.py (sources,
transformations, the four kinds of iterator, CS20's linear regression from a Dataset), whose
results make_fixture.py recorded under TF1; the live test runs them under TF again."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_data"
_spec = importlib.util.spec_from_file_location("tf_data_cases", FIXTURE / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["cases"]


def _close(got, want, where):
    if isinstance(want, dict) and set(want) == {"dtype", "value"}:
        assert isinstance(got, dict) and got.get("dtype") == want["dtype"], (where, got, want)
        np.testing.assert_allclose(np.asarray(got["value"], np.float64),
                                   np.asarray(want["value"], np.float64), rtol=1e-5,
                                   atol=1e-6, err_msg=where)
    elif isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for k in want:
            _close(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{where}[{i}]")
    else:
        assert got == want, (where, got, want)


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.__name__)
def test_matches_tensorflow(case, tmp_path):
    got = cases.jsonable(cases.run_case(tf, case, str(tmp_path)))
    _close(got, EXPECTED[case.__name__], case.__name__)


def test_live_tensorflow_agrees(tf1):
    result = tf1(f"""
        import sys, tempfile
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import cases
        out = {{}}
        for case in cases.CASES:
            with tempfile.TemporaryDirectory() as tmp:
                out[case.__name__] = cases.jsonable(cases.run_case(tf, case, tmp))
        print(json.dumps(out))
    """)
    _close(result, EXPECTED, "live")
