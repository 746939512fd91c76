"""tf.reverse (ReverseV2) and tf.reverse_sequence (ReverseSequence) against real TensorFlow.

Values, static shapes and gradients come from ``tests/fixtures/tf_reverse/`` (``cases.py``
run under TF by ``make_fixture.py``, stored in ``expected.json``); the error messages below
were copied from TF 2.x with TF1 semantics, TF's typos included (``[0, 2`` has no ``]``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops import array_ops

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_reverse"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_reverse_cases", FIXTURES / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def test_fixture_covers_every_case():
    assert sorted(EXPECTED["cases"]) == sorted(CASES.CASES)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_values_shapes_and_gradients_match_tensorflow(name):
    got, want = CASES.run_case(tf, name), EXPECTED["cases"][name]
    assert got["shape"] == want["shape"]
    assert got["grad_op"] == want["grad_op"]
    np.testing.assert_array_equal(got["value"], want["value"])
    np.testing.assert_array_equal(got["grad"], want["grad"])


def test_exports():
    assert tf.reverse_v2 is tf.reverse is array_ops.reverse
    assert tf.reverse_sequence is array_ops.reverse_sequence
    assert tf.compat.v1.reverse_sequence is tf.reverse_sequence


def test_graph_structure_matches_tensorflow():
    with tf.Graph().as_default():
        x = tf.constant(np.zeros([2, 3], np.float32))
        y = tf.reverse(x, [-1])
        assert y.op.type == "ReverseV2" and y.op.name == "ReverseV2"
        assert [t.name for t in y.op.inputs] == ["Const:0", "ReverseV2/axis:0"]
        s = tf.reverse_sequence(x, [1, 2], seq_axis=1, batch_axis=0)
        assert [t.name for t in s.op.inputs] == ["Const:0", "ReverseSequence/seq_lengths:0"]
        assert s.op.get_attr("seq_dim") == 1 and s.op.get_attr("batch_dim") == 0
        assert s.op.inputs[1].dtype == tf.int32
        r = tf.reverse_sequence(x, tf.constant([1, 2], tf.int64), 1, name="rs")
        assert r.op.name == "rs" and r.dtype == tf.float32
        assert tf.reverse(tf.constant(["a", "b"]), [0]).dtype == tf.string
        assert tf.reverse(tf.constant([True, False]), [0]).dtype == tf.bool


def test_partial_static_shapes():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3])
        assert tf.reverse(p, tf.placeholder(tf.int32)).shape.as_list() == [None, 3]
        assert tf.reverse(p, tf.placeholder(tf.int32, [None])).shape.as_list() == [None, 3]
        assert tf.reverse(tf.placeholder(tf.float32), [0]).shape.ndims is None
        q = tf.placeholder(tf.float32, [None, None, 4])
        lengths = tf.placeholder(tf.int32, [None])
        assert tf.reverse_sequence(q, lengths, 1, 0).shape.as_list() == [None, None, 4]
        assert tf.reverse_sequence(
            q, tf.placeholder(tf.int32, [5]), 1, 0).shape.as_list() == [5, None, 4]
        assert tf.reverse_sequence(tf.placeholder(tf.float32), lengths, 1, 0).shape.ndims \
            is None


@pytest.mark.parametrize("axis, message", [
    ([3], r"^'axis'\[0\] = 3 is out of valid range \[0, 2 for 'ReverseV2' "),
    ([-4], r"^'axis'\[0\] = -4 is out of valid range \[0, 2 for "),
    ([0, 0], r"^axis 0 specified more than once\. for "),
    ([0, -3], r"^axis 0 specified more than once\. for "),
    ([[0]], r"^Shape must be rank 1 but is rank 2 for .*input shapes: \[2,3,4\], \[1,1\]"),
])
def test_reverse_static_errors(axis, message):
    with tf.Graph().as_default():
        x = tf.constant(np.zeros([2, 3, 4], np.float32))
        with pytest.raises(ValueError, match=message):
            tf.reverse(x, axis)


def test_reverse_static_type_and_rank_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="^Value passed to parameter 'axis' has DataType "
                                            "float32 not in list of allowed values: int32, "
                                            "int64"):
            tf.reverse(tf.constant([1.0]), [0.5])
        with pytest.raises(ValueError, match=r"^'axis'\[0\] = 0 is out of valid range \[0, -1 "):
            tf.reverse(tf.constant(3.0), [0])
        with pytest.raises(ValueError, match="^reverse does not work on tensors with more than "
                                             "8 dimensions"):
            tf.reverse(tf.placeholder(tf.float32, [1] * 9), tf.placeholder(tf.int32, [None]))


@pytest.mark.parametrize("value, axis, error, message", [
    (np.zeros([2, 3]), [2], tf.errors.InvalidArgumentError,
     r"'axis'\[0\] = 2 is out of valid range \[0, 1"),
    (np.zeros([2, 3]), [-3], tf.errors.InvalidArgumentError,
     r"'axis'\[0\] = -3 is out of valid range \[0, 1"),
    (np.zeros([2, 3]), [1, 1], tf.errors.InvalidArgumentError,
     "axis 1 specified more than once."),
    (np.zeros([2, 3]), [1, -1], tf.errors.InvalidArgumentError,
     "axis 1 specified more than once."),
    (np.zeros([2, 3]), [[1]], tf.errors.InvalidArgumentError,
     "'dims' must be 1-dimension, not 2"),
    (np.zeros([1] * 9), [1], tf.errors.UnimplementedError,
     r"reverse is not implemented for tensors of rank > 8\."),
])
def test_reverse_run_time_errors(value, axis, error, message):
    with tf.Graph().as_default():
        x, a = tf.placeholder(tf.float64), tf.placeholder(tf.int32)
        y = tf.reverse(x, a)
        with tf.Session() as sess, pytest.raises(error, match=message):
            sess.run(y, {x: value, a: axis})


def test_reverse_rank_8_and_scalar_run():
    with tf.Graph().as_default():
        x, a = tf.placeholder(tf.float64), tf.placeholder(tf.int32)
        y = tf.reverse(x, a)
        with tf.Session() as sess:
            v = np.arange(2 ** 8, dtype=np.float64).reshape([2] * 8)
            np.testing.assert_array_equal(sess.run(y, {x: v, a: [1, -1]}),
                                          v[:, ::-1, ..., ::-1])
            assert sess.run(y, {x: 3.0, a: np.zeros([0], np.int32)}) == 3.0


@pytest.mark.parametrize("kwargs, lengths, message", [
    (dict(seq_axis=3, batch_axis=0), [1, 3],
     r"^seq_dim must be < input rank: 3 vs\. 3 for 'ReverseSequence' .*\[2,3,4\], \[2\]\.$"),
    (dict(seq_axis=1, batch_axis=3), [1, 3], r"^batch_dim must be < input rank: 3 vs\. 3 for "),
    (dict(seq_axis=1, batch_axis=-1), [1, 3], r"^batch_dim must be >=0, got -1 for "),
    (dict(seq_axis=1, batch_axis=0), [1, 2, 3], r"^Dimensions must be equal, but are 2 and 3 "),
    (dict(seq_axis=1, batch_axis=0), [[1, 2]], r"^Shape must be rank 1 but is rank 2 for "),
    (dict(seq_axis=1, seq_dim=1), [1, 2], r"^Cannot specify both 'seq_dim' and 'seq_axis'\.$"),
    (dict(batch_axis=0, batch_dim=0, seq_axis=1), [1, 2],
     r"^Cannot specify both 'batch_dim' and 'batch_axis'\.$"),
])
def test_reverse_sequence_static_errors(kwargs, lengths, message):
    with tf.Graph().as_default():
        x = tf.constant(np.zeros([2, 3, 4], np.float32))
        with pytest.raises(ValueError, match=message):
            tf.reverse_sequence(x, lengths, **kwargs)


def test_reverse_sequence_static_type_errors_and_accepted_axes():
    with tf.Graph().as_default():
        x = tf.constant(np.zeros([2, 3, 4], np.float32))
        with pytest.raises(TypeError, match="^Value passed to parameter 'seq_lengths' has "
                                            "DataType float32 not in list of allowed values: "
                                            "int32, int64"):
            tf.reverse_sequence(x, tf.constant([1.0, 2.0]), seq_axis=1)
        with pytest.raises(TypeError, match="^Expected int for argument 'seq_dim' not None"):
            tf.reverse_sequence(x, [1, 2])
        # TF's shape function lets these through; its kernel rejects them
        assert tf.reverse_sequence(x, [1, 2], seq_axis=-1).shape.as_list() == [2, 3, 4]
        assert tf.reverse_sequence(x, [1, 2], seq_axis=0, batch_axis=0).shape.as_list() == \
            [2, 3, 4]
        with pytest.raises(ValueError, match="^Dimensions must be equal, but are 3 and 5 .*"
                                             r"input shapes: \[\?,3\], \[5\]\.$"):
            tf.reverse_sequence(tf.placeholder(tf.float32, [None, 3]),
                                tf.placeholder(tf.int64, [5]), 0, 1)


@pytest.mark.parametrize("shape, seq_axis, batch_axis, lengths, message", [
    ((2, 3, 4), 1, 0, [1, 4], r"seq_lens\(1\) > input.dims\(1\)"),
    ((2, 3, 4), 1, 0, [1, -1], r"seq_lens\(1\) < 0"),
    ((2, 3), 1, 0, [4, -1], r"seq_lens\(0\) > input.dims\(1\)"),
    ((2, 3, 4), 1, 0, [1, 2, 3], r"Length of seq_lengths != input.dims\(0\), \(3 vs\. 2\)"),
    ((2,), 1, 0, [0, 3], r"seq_dim must be < input rank \( 1 vs\. 1\)"),
    ((), 1, 0, [1], r"seq_dim must be < input rank \( 1 vs\. 0\)"),
    ((2, 3), 2, 0, [0, 3], r"seq_dim must be < input rank \( 2 vs\. 2\)"),
    ((2, 3), 1, 1, [0, 3], "batch_dim == seq_dim == 1"),
    ((2, 3), 5, 5, [1, 3], "batch_dim == seq_dim == 5"),
    ((2, 3), -1, 0, [1, 3], "Invalid seq_dim -1"),
    ((2, 3), 1, -1, [1, 2, 2], "Invalid batch_dim -1"),
    ((2, 3), 1, 0, [[1, 3]], "seq_lengths must be 1-dim, not 2"),
])
def test_reverse_sequence_run_time_errors(shape, seq_axis, batch_axis, lengths, message):
    with tf.Graph().as_default():
        x, n = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
        y = tf.reverse_sequence(x, n, seq_axis, batch_axis)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(y, {x: np.zeros(shape), n: lengths})


def test_reverse_sequence_zero_and_full_lengths_time_major():
    """TF's answer for seq_axis=0, batch_axis=1 with lengths 0 and the full length."""
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        y = tf.reverse_sequence(x, [0, 3], seq_axis=0, batch_axis=1)
        with tf.Session() as sess:
            assert sess.run(y).tolist() == [[0.0, 5.0], [2.0, 3.0], [4.0, 1.0]]


def test_gradient_ops_reuse_lengths_and_axes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4])
        lengths = tf.constant([2, 3], tf.int64)
        s = tf.reverse_sequence(x, lengths, seq_axis=2, batch_axis=0)
        (g,) = tf.gradients(s, x)
        assert g.op.type == "ReverseSequence" and g.op.inputs[1] is lengths
        assert g.op.get_attr("seq_dim") == 2 and g.op.get_attr("batch_dim") == 0
        r = tf.reverse(x, [-1, 1])
        (g,) = tf.gradients(r, x)
        assert g.op.type == "ReverseV2" and g.op.inputs[1] is r.op.inputs[1]
        assert tf.gradients(r, r.op.inputs[1])[0] is None
