"""tf.io.decode_proto / encode_proto (DecodeProtoV2, EncodeProto) on TF's own messages
(tensorflow.TensorProto, tensorflow.Example): sizes, padded values, output types each
field type accepts, static shapes, errors, and encoding back to TF's bytes."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors
from scopeflow.io import protos

FIELDS = ["dtype", "tensor_shape", "version_number", "tensor_content", "float_val",
          "double_val", "int_val", "string_val", "int64_val", "bool_val", "uint32_val",
          "uint64_val"]
TYPES = ["int32", "string", "int32", "string", "float32", "float64", "int32", "string",
         "int64", "bool", "uint32", "uint64"]
ALL_TYPES = ["int32", "int64", "uint32", "uint64", "float32", "float64", "bool", "string"]


def _data():
    t1 = protos.TensorProto(dtype=1, float_val=[1.5, 2.5], int_val=[3],
                            string_val=[b"a", b"bc"], version_number=7, bool_val=[True],
                            uint64_val=[2**63 + 5], int64_val=[-4, 5, 6], double_val=[0.25])
    t1.tensor_shape.dim.add(size=3)
    t2 = protos.TensorProto(dtype=3, tensor_content=b"\x01\x02", uint32_val=[4000000000])
    ex = protos.Example()
    ex.features.feature["a"].int64_list.value.extend([1, 2])
    return [t1.SerializeToString(), t2.SerializeToString()], ex.SerializeToString()


_CODE = """
def run(tf, data, example, FIELDS, TYPES, ALL_TYPES, message):
    out = {}
    with tf.Graph().as_default():
        sizes, values = tf.io.decode_proto(tf.constant(data), "tensorflow.TensorProto", FIELDS,
                                           [getattr(tf, t) for t in TYPES])
        enc = tf.io.encode_proto(sizes, values, FIELDS, "tensorflow.TensorProto")
        es, ev = tf.io.decode_proto(example, "tensorflow.Example", ["features"], [tf.string])
        out["meta"] = [sizes.name, sizes.shape.as_list(), [v.shape.as_list() for v in values],
                       enc.name, enc.shape.as_list(), es.shape.as_list(), ev[0].shape.as_list()]
        with tf.Session() as sess:
            sv, vv, e, exs, exv = sess.run([sizes, values, enc, es, ev])
        out["sizes"] = sv.tolist()
        out["values"] = [v.tolist() if v.dtype != object else [[x.hex() for x in r] for r in v]
                         for v in vv]
        out["enc"] = [x.hex() for x in e]
        out["example"] = [exs.tolist(), exv[0].tolist()[0].hex()]
    compat = []
    for field in ["dtype", "tensor_shape", "version_number", "float_val", "double_val",
                  "int64_val", "bool_val", "uint32_val", "uint64_val", "string_val"]:
        for t in ALL_TYPES:
            with tf.Graph().as_default():
                _, v = tf.io.decode_proto(tf.constant(data), "tensorflow.TensorProto",
                                          [field], [getattr(tf, t)])
                try:
                    with tf.Session() as sess:
                        r = sess.run(v)[0]
                    compat.append(r.tolist() if r.dtype != object else "bytes")
                except tf.errors.OpError as e:
                    compat.append(message(e))
    out["compat"] = compat
    bad = []
    for args in [("tensorflow.Nope", ["dtype"], [tf.int32]),
                 ("tensorflow.TensorProto", ["nope"], [tf.int32]),
                 ("tensorflow.TensorProto", ["dtype", "float_val"], [tf.int32])]:
        with tf.Graph().as_default():
            _, v = tf.io.decode_proto(tf.constant(data), *args)
            try:
                with tf.Session() as sess:
                    sess.run(v)
            except tf.errors.OpError as e:
                bad.append([type(e).__name__, message(e)])
    with tf.Graph().as_default():
        s, v = tf.io.decode_proto(tf.constant([b"\\xff\\xff"]), "tensorflow.TensorProto",
                                  ["dtype"], [tf.int32])
        try:
            with tf.Session() as sess:
                sess.run(v)
        except tf.errors.OpError as e:
            bad.append([type(e).__name__, message(e)])
        e = tf.io.encode_proto(tf.constant([[2]]), [tf.constant([[1]])], ["dtype"],
                               "tensorflow.TensorProto")
        try:
            with tf.Session() as sess:
                sess.run(e)
        except tf.errors.OpError as err:
            bad.append([type(err).__name__, message(err)])
        e2 = tf.io.encode_proto(tf.constant([[1, 1]]), [tf.constant([[1]]), tf.constant([[1.0]])],
                                ["dtype", "float_val"], "tensorflow.TensorProto", name="ep")
        with tf.Session() as sess:
            bad.append([e2.name, sess.run(e2)[0].hex()])
        s1, v1 = tf.io.decode_proto(tf.placeholder(tf.string, [None, 3]),
                                    "tensorflow.TensorProto", ["dtype", "float_val"],
                                    [tf.int32, tf.float32], name="dp")
        bad.append([s1.name, s1.shape.as_list(), [x.shape.as_list() for x in v1]])
    out["bad"] = bad
    return out
"""


def _ours():
    scope = {"np": np}
    exec(_CODE, scope)
    data, example = _data()
    return scope["run"](tf, data, example, FIELDS, TYPES, ALL_TYPES,
                        lambda e: e.message.split("\n")[0])


def test_round_trip_without_tf():
    data, _ = _data()
    sizes, values = tf.io.decode_proto(tf.constant(data), "tensorflow.TensorProto", FIELDS,
                                       [getattr(tf, t) for t in TYPES])
    enc = tf.io.encode_proto(sizes, values, FIELDS, "tensorflow.TensorProto")
    with tf.Session() as sess:
        sv, vv, e = sess.run([sizes, values, enc])
    assert sv[:, 4].tolist() == [2, 0] and vv[4].tolist() == [[1.5, 2.5], [0.0, 0.0]]
    assert list(e) == data
    assert tf.gradients(values[4], sizes.op.inputs[0]) == [None]
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                             match="No descriptor found"):
        sess.run(tf.io.decode_proto(data, "tensorflow.Nope", ["a"], [tf.int32])[0])


def test_matches_tf(tf1):
    data, example = _data()
    want = tf1(_CODE + f"""
tf.disable_v2_behavior()
def message(e):
    lines = e.message.split("\\n")
    return next(lines[i - 1] for i, ln in enumerate(lines) if ln.startswith("\\t [["))
print(json.dumps(run(tf, {data!r}, {example!r}, {FIELDS!r}, {TYPES!r}, {ALL_TYPES!r}, message)))
""")
    got = _ours()
    for key in want:
        assert got[key] == want[key], key
