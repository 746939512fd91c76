"""Parsing ops (scopeflow/ops/io/parsing_ops.py): Example protos, raw bytes, CSV, numbers;
ReadFile and WriteFile (scopeflow/ops/io/io_ops.py). Values against TensorFlow:
tests/unit/ops/io/test_parse_example.py."""

from __future__ import annotations

import numpy as np

from scopeflow.io import protos
from scopeflow.ops.io import parsing_ops

from .op_table import OpCase


def _example(**features):
    return protos.Example(features=protos.Features(feature=features)).SerializeToString()


_SERIALIZED = np.array([
    _example(a=protos.Feature(int64_list=protos.Int64List(value=[1, 2])),
             c=protos.Feature(bytes_list=protos.BytesList(value=[b"x", b"yy"]))),
    _example(a=protos.Feature(int64_list=protos.Int64List(value=[3, 0]))),
], dtype=object)


def _parse(tf, s):
    out = parsing_ops.parse_example(s, {
        "a": tf.FixedLenFeature([2], tf.int64),
        "b": tf.FixedLenFeature([], tf.float32, default_value=-1.0),
        "c": tf.VarLenFeature(tf.string)})
    return [out["a"], out["b"], out["c"].indices, out["c"].values, out["c"].dense_shape]


def _check_parse(a, b, indices, values, dense_shape):
    np.testing.assert_array_equal(a, [[1, 2], [3, 0]])
    np.testing.assert_array_equal(b, [-1.0, -1.0])
    np.testing.assert_array_equal(indices, [[0, 0], [0, 1]])
    assert list(values) == [b"x", b"yy"]
    np.testing.assert_array_equal(dense_shape, [2, 2])


def _expect(*want):
    def check(*got):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    return check


_SEQUENCE = np.array(protos.SequenceExample(
    context=protos.Features(feature={"id": protos.Feature(
        int64_list=protos.Int64List(value=[7]))}),
    feature_lists=protos.FeatureLists(feature_list={"w": protos.FeatureList(feature=[
        protos.Feature(float_list=protos.FloatList(value=[0.5, 1.5])),
        protos.Feature(float_list=protos.FloatList(value=[2.5, 3.5]))])}),
).SerializeToString(), dtype=object)


def _parse_sequence(tf, s):
    context, lists = parsing_ops.parse_single_sequence_example(
        s, {"id": tf.FixedLenFeature([], tf.int64)},
        {"w": tf.FixedLenSequenceFeature([2], tf.float32), "v": tf.VarLenFeature(tf.string)})
    return [context["id"], lists["w"], lists["v"].indices, lists["v"].dense_shape]


def _reorder(tf, values):
    from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder
    st = sparse_reorder(tf.SparseTensor([[1, 2], [0, 3], [1, 0], [0, 1]], values, [2, 4]))
    return [st.values, st.indices]


ROWS = [
    OpCase("SparseReorder", _reorder,
           lambda v: [v[[3, 1, 2, 0]], np.array([[0, 1], [0, 3], [1, 0], [1, 2]])],
           [np.array([1.5, -2.0, 3.0, 0.25], np.float32)], id="sparse_reorder"),
    OpCase("ParseSequenceExampleV2", _parse_sequence,
           _expect(7, np.array([[0.5, 1.5], [2.5, 3.5]], np.float32),
                   np.zeros((0, 2), np.int64), [0, 0]),
           [_SEQUENCE], check_values=False),
    OpCase("ParseExampleV2", _parse, _check_parse, [_SERIALIZED], check_values=False),
    OpCase("DecodeRaw", lambda tf, x: parsing_ops.decode_raw(x, tf.int16),
           _expect([[1, 2], [3, -1]]),
           [np.array([b"\x01\x00\x02\x00", b"\x03\x00\xff\xff"], dtype=object)],
           check_values=False),
    OpCase("DecodeCSV", lambda tf, x: parsing_ops.decode_csv(x, [[0], [1.5], ["z"]]),
           _expect([1, 3], np.array([2.5, 1.5], np.float32), [b"a,b", b"z"]),
           [np.array([b'1,2.5,"a,b"', b"3,,"], dtype=object)], check_values=False),
    OpCase("StringToNumber", lambda tf, x: parsing_ops.string_to_number(x, tf.int64),
           _expect([[15, -2]]), [np.array([[b"15", b" -2"]], dtype=object)],
           check_values=False),
]

EXEMPT = {
    "ReadFile": "reads a file; covered by tests/unit/ops/io/test_parse_example.py",
    "WriteFile": "writes a file; covered by tests/unit/ops/io/test_parse_example.py",
}
