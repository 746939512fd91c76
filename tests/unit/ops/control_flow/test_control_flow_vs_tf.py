"""tf.cond / case / while_loop / TensorArray / map_fn / scan / fold / dynamic_rnn against real
TensorFlow: values and gradients of the programs in tests/fixtures/tf_control_flow/cases.py,
which make_fixture.py ran under TF1 (expected.npz); the live test runs them under TF again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_control_flow"
_spec = importlib.util.spec_from_file_location("tf_control_flow_cases", FIXTURE / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = np.load(FIXTURE / "expected.npz")


@pytest.mark.parametrize("passes", ["all", "none"])
@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.__name__)
def test_matches_tensorflow(case, passes, monkeypatch):
    # Sub-plans (branches, loop bodies) are compiled with the session's plan passes: the
    # results must not depend on them.
    monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", passes)
    got = cases.run_case(tf, case)
    want = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files
            if k.split("/", 1)[0] == case.__name__}
    assert sorted(got) == sorted(want), "the same fetches (and gradients that exist) as TF"
    for name, value in want.items():
        assert got[name].shape == value.shape, name
        assert got[name].dtype == value.dtype, name
        np.testing.assert_allclose(got[name], value, rtol=2e-5, atol=2e-6, err_msg=name)


def test_live_tensorflow_agrees(tf1):
    """The fixture is what TF computes today (cases run again under the oracle)."""
    result = tf1(f"""
        import sys
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import cases
        out = {{}}
        for case in cases.CASES:
            for k, v in cases.run_case(tf, case).items():
                out[case.__name__ + "/" + k] = np.asarray(v, np.float64).ravel().tolist()
        print(json.dumps(out))
    """)
    assert sorted(result) == sorted(EXPECTED.files)
    # TF's float32 sums run in other orders on other CPUs (its SIMD kernels, and NumPy's
    # for the cases' inputs): a GRU gradient moved by 7e-6 relative with NumPy's AVX-512
    # loops off. The fixture's bits are not a CPU-independent promise of TF's.
    for key, values in result.items():
        np.testing.assert_allclose(np.asarray(values), EXPECTED[key].astype(np.float64).ravel(),
                                   rtol=2e-5, atol=2e-6, err_msg=key)
