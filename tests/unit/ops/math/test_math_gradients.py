"""Math-op gradients against real TensorFlow (TF 2.21, TF1 semantics).

The programs live in ``tests/fixtures/tf_math_gradients/cases.py`` and run unchanged under
both frameworks; ``expected.json`` holds TF's answers (regenerate with ``generate.py``).
Values are the priority (1e-5 relative); gradient tensor names are compared too.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_math_gradients"
_spec = importlib.util.spec_from_file_location("tf_math_gradient_cases", FIXTURES / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())["cases"]

# Names that differ for reasons outside the math rules (kept explicit so they stay known).
NAME_DIFFS = {
    "clip_by_value_ties": "TF's Maximum/Minimum rule builds SelectV2; scopeflow has Select",
    "clip_by_value_op": "TF reshapes a same-shape bound's gradient; the walk skips it",
    "empty_reduction": "TF's dynamic Sum rule ends in BroadcastTo; scopeflow tiles",
    "batch_matmul_broadcast": "TF's BatchMatMul rule reshapes both inputs; the walk only one",
}
# The walk decides broadcast-reduction axes from static shapes where it can (e.g. a bias
# [n] added to [?, n] is summed over axis 0 by one Sum op), where TF always builds
# Shape/BroadcastGradientArgs/Sum/Reshape: fewer ops per training step, other names.
STATIC_REDUCTION = "static broadcast reduction: gradients/<op>_grad/Sum, not .../Reshape"
NAME_DIFFS.update({case: STATIC_REDUCTION for case in [
    "grad_ys_and_several_ys", "mlp_chain", "names_small_graph",
    "pow_broadcast_scalar_exponent"]})


def _compare(got, want, name):
    assert got["kinds"] == want["kinds"], f"{name}: gradient kinds"
    assert len(got["grads"]) == len(want["grads"])
    for i, (g, w) in enumerate(zip(got["grads"], want["grads"])):
        assert (g is None) == (w is None), f"{name}[{i}]: None vs a gradient"
        if g is None:
            continue
        assert g["dtype"] == w["dtype"], f"{name}[{i}]: dtype"
        assert g["shape"] == w["shape"], f"{name}[{i}]: shape"
        a, b = np.array(g["value"], np.float64), np.array(w["value"], np.float64)
        scale = max(1.0, float(np.nanmax(np.abs(b[np.isfinite(b)]), initial=0.0)))
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6 * scale, equal_nan=True,
                                   err_msg=f"{name}[{i}]")


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_gradient_values_match_tf(name):
    _compare(cases.run_case(tf, name), EXPECTED[name], name)


@pytest.mark.parametrize("name", [n for n in cases.NAME_CASES if n not in NAME_DIFFS])
def test_gradient_names_match_tf_exactly(name):
    got = cases.run_case(tf, name)
    assert got["names"] == EXPECTED[name]["names"]


def _addn_free(names):
    # gradients.py numbers the AddN of each x differently from TF (see the report)
    return [None if n is None else re.sub(r"/AddN(_\d+)?:", "/AddN:", n) for n in names]


@pytest.mark.parametrize("name", sorted(set(cases.CASES) - set(NAME_DIFFS)))
def test_gradient_names_match_tf_up_to_addn_numbering(name):
    got = cases.run_case(tf, name)
    assert _addn_free(got["names"]) == _addn_free(EXPECTED[name]["names"])


def test_name_diffs_are_real_cases():
    assert set(NAME_DIFFS) <= set(cases.CASES)


def test_small_graph_rule_op_names():
    """The ops a few rules build, by name, as TF's math_grad.py names them."""
    got = set(cases.run_case(tf, "pow_cases")["grad_ops"])
    for op in ("Pow_grad/Pow", "Pow_grad/Greater", "Pow_grad/Select", "Pow_grad/Select_1",
               "Pow_grad/Log", "Pow_grad/mul", "Pow_grad/mul_3", "Pow_grad/sub"):
        assert f"gradients/{op}" in got
    got = set(cases.run_case(tf, "realdiv_floormod")["grad_ops"])
    want = {o for o in EXPECTED["realdiv_floormod"]["grad_ops"]
            if re.search(r"/(truediv|FloorMod)_grad/(RealDiv|Neg|FloorDiv|mul)", o)}
    assert want and want <= got


def test_unsorted_segment_sum_densifies_gather_gradient():
    p = tf.placeholder(tf.float32, [4, 2])
    g = tf.gradients(tf.reduce_sum(tf.gather(p, [1, 1, 3]) * 2.0), p)[0]
    assert isinstance(g, tf.IndexedSlices)
    dense = tf.convert_to_tensor(g)
    assert dense.op.type == "UnsortedSegmentSum"
    value = tf.Session().run(dense, {p: np.zeros((4, 2), np.float32)})
    np.testing.assert_array_equal(value, [[0, 0], [4, 4], [0, 0], [2, 2]])


def test_unsorted_segment_sum_out_of_range():
    out = tf.unsorted_segment_sum([1.0, 2.0], [0, 5], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5"):
        tf.Session().run(out)


@pytest.mark.tf
def test_live_against_tf(tf1):
    """A few cases recomputed by TF now (guards expected.json against drift)."""
    names = ["pow_cases", "max_min_ties", "prod_with_zeros", "batch_matmul_broadcast",
             "reductions_unknown_rank", "names_small_graph"]
    src = (FIXTURES / "cases.py").read_text().replace("from __future__ import annotations\n", "")
    live = tf1(src + "\ntf.disable_v2_behavior()\n"
               f"print(json.dumps({{n: run_case(tf, n) for n in {names!r}}}))\n")
    for name in names:
        _compare(cases.run_case(tf, name), live[name], name)
        if name not in NAME_DIFFS:
            assert live[name]["names"] == EXPECTED[name]["names"]
