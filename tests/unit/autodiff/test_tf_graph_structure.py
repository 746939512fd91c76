"""TF's graph, node for node: losses, gradients and optimizers build the ops TF builds, with
TF's names, types, inputs and control inputs, in TF's creation order (what
``get_operations()``, ``as_graph_def()`` and TensorBoard show a user).

The programs are ``tests/fixtures/tf_graph_structure/cases.py``; ``expected.json`` holds the
graphs real TensorFlow built (regenerate with ``generate.py`` there).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_graph_structure"
_spec = importlib.util.spec_from_file_location("tf_graph_structure_cases", FIXTURES / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())["cases"]


def _lines(ops):
    return [f"{name} {op_type} {' '.join(inputs)}" for name, op_type, inputs in ops]


def _assert_same_graph(got, want):
    if got != want:
        diff = "\n".join(difflib.unified_diff(_lines(want), _lines(got), "tf", "scopeflow",
                                              lineterm="", n=2))
        pytest.fail(f"graph differs from TF's:\n{diff}")


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_graph_matches_tf_node_for_node(name):
    _assert_same_graph(cases.graph(tf, name), EXPECTED[name])


def test_gate_op_tuple_orders_without_changing_values():
    # GATE_OP's control dependencies change no value: one SGD step gated and ungated.
    import numpy as np

    def step(gate):
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(3)
            x = tf.constant(np.arange(10, dtype=np.float32).reshape(2, 5))
            w = tf.get_variable("w", [5, 3])
            b = tf.get_variable("b", [3], initializer=tf.ones_initializer())
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, gate_gradients=gate)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                return sess.run([w, b])

    gated, ungated = step(tf.train.Optimizer.GATE_OP), step(tf.train.Optimizer.GATE_NONE)
    for a, b in zip(gated, ungated):
        np.testing.assert_array_equal(a, b)


def test_live_against_tf(tf1):
    source = (FIXTURES / "cases.py").read_text().replace(
        "from __future__ import annotations", "")
    got = tf1(f"tf.disable_v2_behavior()\n{source}\n"
              "print(json.dumps({n: graph(tf, n) for n in CASES}))")
    for name in cases.CASES:
        _assert_same_graph(cases.graph(tf, name), got[name])
