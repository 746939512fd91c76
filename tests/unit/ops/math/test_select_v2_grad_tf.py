"""``SelectV2``'s gradient is TF 2.21's ``_SelectGradV2`` node for node: a scalar ``zeros``,
two ``SelectV2``s, then each input's gradient summed back to its shape against the output's
(``Shape``s, ``BroadcastGradientArgs`` where only the run time knows the axes, keepdims
``Sum`` and ``Reshape`` only where the input was broadcast), for ``tf.where_v2`` and for
``tf.nn.dropout``, which selects with it. Values and static shapes are TF's too.

The programs are ``tests/fixtures/select_v2_grad_graphs/cases.py``; ``expected.json`` holds
what real TensorFlow built (regenerate with ``generate.py`` there).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import get_op_def

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "select_v2_grad_graphs"
_spec = importlib.util.spec_from_file_location("select_v2_grad_graphs_cases",
                                               FIXTURES / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())["cases"]


def _lines(ops):
    return [f"{name} {op_type} {' '.join(inputs)}" for name, op_type, inputs in ops]


def _assert_same(got, want):
    if got["ops"] != want["ops"]:
        diff = "\n".join(difflib.unified_diff(_lines(want["ops"]), _lines(got["ops"]), "tf",
                                              "scopeflow", lineterm="", n=2))
        pytest.fail(f"graph differs from TF's:\n{diff}")
    assert got["grads"] == want["grads"]
    for a, b in zip(got["values"], want["values"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_select_v2_gradient_matches_tf_node_for_node(name):
    _assert_same(cases.graph(tf, name), EXPECTED[name])


def test_every_case_has_tf_fixture():
    assert sorted(EXPECTED) == sorted(cases.CASES)


def test_dropout_gradient_of_the_scalar_zero_keeps_its_shape():
    # The issue: gradients/dropout/SelectV2_grad/Sum_1 had shape () where TF's has (1, 1);
    # TF sums the zero's gradient with keepdims and reshapes it to the zero's shape.
    ops = {name: op_type for name, op_type, _ in EXPECTED["dropout_placeholder"]["ops"]}
    assert ops["gradients/dropout/SelectV2_grad/Reshape_1"] == "Reshape"
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])
        tf.gradients(tf.reduce_sum(tf.nn.dropout(x, rate=0.5)), x)
        assert g.get_tensor_by_name("gradients/dropout/SelectV2_grad/Sum_1:0").shape == (1, 1)
        assert g.get_tensor_by_name("gradients/dropout/SelectV2_grad/Reshape_1:0").shape == ()


def test_select_v2_declares_that_its_rule_unbroadcasts():
    assert get_op_def("SelectV2").broadcasting and get_op_def("SelectV2").grad_unbroadcasts
    assert not get_op_def("AddV2").grad_unbroadcasts


def test_where_v2_gradient_values_against_numpy():
    c = np.array([[True], [False]])
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    w = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    with tf.Graph().as_default():
        tx, ty = tf.constant(x), tf.constant(2.0)
        gx, gy = tf.gradients(tf.reduce_sum(tf.where_v2(c, tx, ty) * w), [tx, ty])
        with tf.Session() as sess:
            vx, vy = sess.run([gx, gy])
    np.testing.assert_array_equal(vx, (w * c).sum(0, keepdims=True))
    assert vy == (w * ~c).sum()


def test_live_against_tf(tf1):
    source = (FIXTURES / "cases.py").read_text().replace(
        "from __future__ import annotations", "")
    got = tf1(f"tf.disable_v2_behavior()\n{source}\n"
              "print(json.dumps({n: graph(tf, n) for n in CASES}))")
    assert sorted(got) == sorted(cases.CASES)
    for name in cases.CASES:
        _assert_same(cases.graph(tf, name), got[name])
