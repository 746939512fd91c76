"""The learning-rate decays build TF's graph node for node (TF 2.21, where the Keras
``LearningRateSchedule`` classes build ``tf.compat.v1.train.*_decay``): the same ops, names,
types and inputs in the same creation order, the same result tensor, the same values.

The programs are ``tests/fixtures/lr_decay_graphs/cases.py``; ``expected.json`` holds what
real TensorFlow built (regenerate with ``generate.py`` there). ``tf.cond``/``tf.case``'s own
ops (``<scope>/cond/...``, ``<scope>/case/...``: TF1's ``Switch``/``Merge``, scopeflow's one
``If`` op) are left out of the comparison; the ops around them and their outputs' names
are compared.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lr_decay_graphs"
_spec = importlib.util.spec_from_file_location("lr_decay_graphs_cases", FIXTURES / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())["cases"]


def _control_flow_scopes(ops):
    """The ``.../cond/`` and ``.../case/`` scopes whose ops TF1 builds as Switch/Merge."""
    scopes = set()
    for name, op_type, _ in ops:
        if op_type in ("Switch", "Merge", "If", "Cond"):
            parts = name.split("/")
            for i, part in enumerate(parts):
                if part == "case" or part.startswith("cond"):
                    scopes.add("/".join(parts[:i + 1]) + "/")
                    break
    return scopes


def _lines(ops, scopes):
    return [f"{name} {op_type} {' '.join(inputs)}" for name, op_type, inputs in ops
            if not any(name.startswith(s) for s in scopes)]


def _assert_same(got, want):
    scopes = _control_flow_scopes(want["ops"]) | _control_flow_scopes(got["ops"])
    a, b = _lines(want["ops"], scopes), _lines(got["ops"], scopes)
    if a != b:
        diff = "\n".join(difflib.unified_diff(a, b, "tf", "scopeflow", lineterm="", n=2))
        pytest.fail(f"graph differs from TF's:\n{diff}")
    assert got["output"] == want["output"]
    # float32 Pow/RealDiv round a few ULP apart from Eigen's (1 - 99/100 cancels them up
    # to 5e-6 relative in polynomial_decay at step 99).
    np.testing.assert_allclose(got["values"], want["values"], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_decay_graph_matches_tf_node_for_node(name):
    _assert_same(cases.graph(tf, name), EXPECTED[name])


def test_every_case_has_tf_fixture():
    assert sorted(EXPECTED) == sorted(cases.CASES)


def test_only_control_flow_ops_are_left_out():
    # Straight-line decays are compared whole; the cond/case ones lose only their scope.
    assert not _control_flow_scopes(EXPECTED["exponential"]["ops"])
    assert _control_flow_scopes(EXPECTED["cosine_restarts"]["ops"]) == {"SGDRDecay/cond/"}
    assert _control_flow_scopes(EXPECTED["piecewise"]["ops"]) == {"PiecewiseConstant/case/"}


def test_float64_cosine_decay_fails_as_tf():
    # TF's CosineDecay multiplies a float32 pi by the float64 fraction.
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="float64"):
            tf.train.cosine_decay(tf.constant(0.1, tf.float64), tf.constant(3), 10)


def test_live_against_tf(tf1):
    source = (FIXTURES / "cases.py").read_text().replace(
        "from __future__ import annotations", "")
    got = tf1(f"tf.disable_v2_behavior()\n{source}\n"
              "print(json.dumps({n: graph(tf, n) for n in CASES}))")
    assert sorted(got) == sorted(cases.CASES)
    for name in cases.CASES:
        _assert_same(cases.graph(tf, name), got[name])
