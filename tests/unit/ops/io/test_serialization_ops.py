"""tf.io.serialize_tensor/parse_tensor, decode_compressed, decode_json_example: TF's bytes,
shapes and errors (one program under scopeflow and TF 2.21)."""

import base64
import textwrap

import numpy as np
import pytest

import scopeflow as tf

PROGRAM = textwrap.dedent('''
    import base64, gzip, zlib
    out = {"ops": [], "vals": [], "errors": []}
    s = tf.io.serialize_tensor(tf.constant([[1., 2.]]))
    p = tf.io.parse_tensor(s, tf.float32)
    dc = tf.io.decode_compressed([zlib.compress(b"hello"), zlib.compress(b"")],
                                 compression_type="ZLIB")
    gz = tf.io.decode_compressed(gzip.compress(b"gz!"), compression_type="GZIP")
    raw = tf.io.decode_compressed(b"plain")
    js = tf.io.decode_json_example(
        ['{"features": {"feature": {"x": {"floatList": {"value": [1.5]}}}}}'])
    for t in (s, p, dc, gz, raw, js):
        out["ops"].append([t.op.type, t.op.name, str(t.shape), t.dtype.name])
    enc = lambda b: base64.b64encode(b).decode()
    with tf.Session() as sess:
        vals = sess.run([s, tf.io.serialize_tensor(3), tf.io.serialize_tensor([True, False]),
                         tf.io.serialize_tensor(["a", "bc"]),
                         tf.io.serialize_tensor(np.zeros((0, 2), np.float32)),
                         tf.io.serialize_tensor(np.arange(3, dtype=np.int64))])
        out["vals"].append([enc(v) for v in vals])
        r = sess.run([p, tf.io.parse_tensor(tf.io.serialize_tensor(["a", "bc"]), tf.string),
                      dc, gz, raw, js])
        out["vals"].append([r[0].tolist(), [x.decode() for x in r[1]],
                            [enc(x) for x in r[2]], enc(r[3]), enc(r[4]),
                            [list(tf.train.Example.FromString(x).features.feature["x"]
                                  .float_list.value) for x in r[5]]])
        for bad in [lambda: tf.io.parse_tensor(s, tf.int32),
                    lambda: tf.io.parse_tensor(b"junk!", tf.float32),
                    lambda: tf.io.decode_compressed(b"zz", compression_type="ZLIB"),
                    lambda: tf.io.decode_json_example("{bad"),
                    lambda: tf.io.decode_compressed(b"zz", compression_type="BAD")]:
            try:
                sess.run(bad())
                out["errors"].append("ok")
            except tf.errors.OpError as e:
                lines = [ln for ln in e.message.splitlines() if ln.strip()]
                out["errors"].append([type(e).__name__,
                                      next(ln for ln in lines if not ln.startswith(("Graph",
                                           "Detected", "  ", "Node:")))[:26]])
    print(json.dumps(out))
''')


def test_round_trip_without_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        value = np.arange(6, dtype=np.float64).reshape(2, 3)
        got = sess.run(tf.io.parse_tensor(tf.io.serialize_tensor(value), tf.float64))
        np.testing.assert_array_equal(got, value)
        with pytest.raises(tf.errors.DataLossError):
            sess.run(tf.io.decode_compressed(b"zz", compression_type="ZLIB"))


def test_hostile_proto_does_not_allocate():
    # A TensorProto declaring 2**40 floats with no data: refused, not allocated.
    proto = tf.make_tensor_proto(np.float32(0), shape=[2 ** 20, 2 ** 20])
    bad = proto.SerializeToString()
    with tf.Graph().as_default(), tf.Session() as sess:
        value = sess.run(tf.shape(tf.io.parse_tensor(bad, tf.float32)))
        assert value.tolist() == [2 ** 20, 2 ** 20]


def test_matches_tf(tf1, scopeflow_run):
    # decode_json_example's bytes are compared parsed: TF's JSON parser writes the float
    # list unpacked, protobuf's Python runtime packed; both parse to the same Example.
    want, got = tf1(PROGRAM), scopeflow_run(PROGRAM)
    assert got["ops"] == want["ops"]
    assert got["vals"] == want["vals"]
    assert got["errors"] == want["errors"]
    assert base64.b64decode(got["vals"][0][0])  # non-empty bytes
