"""SparseFeature (parse_example, parse_single_example) and the batched
parse_sequence_example (issue 18) against real TensorFlow: fixtures/tf_parsing_more/program.py
run here must give what TF gave (make_fixture.py); the live test runs it under TF again."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_parsing_more"
_spec = importlib.util.spec_from_file_location("tf_parsing_more_program",
                                               FIXTURE / "program.py")
program = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(program)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["result"]
GOT = {}


def _got():
    if not GOT:
        GOT.update(json.loads(json.dumps(program.run(tf))))
    return GOT


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tensorflow(key):
    assert _got().get(key) == EXPECTED[key]


def test_live_tensorflow_agrees(tf1):
    result = tf1(f"""
        import sys
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import program
        print(json.dumps(program.run(tf)))
    """)
    assert result == EXPECTED


def test_sparse_reorder_gradient_follows_the_values():
    values = tf.constant([1.0, 2.0, 3.0])
    st = tf.SparseTensor([[2, 0], [0, 1], [1, 1]], values, [3, 2])
    from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder
    out = sparse_reorder(st)
    (g,) = tf.gradients(out.values * tf.constant([10.0, 20.0, 30.0]), [values])
    sess = tf.Session()
    assert sess.run(out.values).tolist() == [2.0, 3.0, 1.0]
    assert sess.run(g).tolist() == [30.0, 10.0, 20.0]


def test_graph_names_are_tensorflows():
    with tf.Graph().as_default() as g:
        q = tf.placeholder(tf.string, [None])
        _, lists, lengths = tf.io.parse_sequence_example(
            q, sequence_features={"x": tf.FixedLenSequenceFeature([], tf.int64)})
        assert lists["x"].op.name == "ParseSequenceExample/ParseSequenceExample/" \
            "ParseSequenceExampleV2"
        assert lengths["x"].dtype == tf.int64
        out = tf.io.parse_example(tf.placeholder(tf.string, [None]), {
            "f": tf.io.SparseFeature("i", "v", tf.float32, 3)})
        assert out["f"].values.op.name == "SparseMerge/SparseReorder"  # (TF: out of scope)
        assert g.get_operation_by_name("ParseExample/ParseExampleV2").type == "ParseExampleV2"
    assert tf.SparseFeature is tf.io.SparseFeature
    assert isinstance(tf.io.SparseFeature("i", "v", tf.float32, 3), tuple)
    np.testing.assert_equal(tf.io.SparseFeature("i", "v", tf.float32, 3).already_sorted, False)
