"""tf.parse_example / parse_single_example (ParseExampleV2), decode_raw, decode_csv,
string_to_number, read_file / write_file: values and messages against TensorFlow (the
tests/fixtures/tf_records fixture, messages read from TF 2.21, and a live check)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_records"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())
SERIALIZED = [bytes.fromhex(h) for h in EXPECTED["serialized"]]
# These tests build a few ops per check on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore::scopeflow.framework.graph.GraphGrowthWarning")


def _spec():
    return {"a": tf.FixedLenFeature([2], tf.int64),
            "b": tf.FixedLenFeature([], tf.float32, default_value=-1.0),
            "c": tf.VarLenFeature(tf.string),
            "s": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "m": tf.FixedLenFeature([2], tf.string, default_value=[b"p", b"q"])}


def _plain(value):
    if isinstance(value, tf.SparseTensorValue):
        return {"indices": np.asarray(value.indices).tolist(), "values": _plain(value.values),
                "dense_shape": np.asarray(value.dense_shape).tolist()}
    value = np.asarray(value)
    if value.dtype == object:
        return [v.hex() for v in value.reshape(-1)]
    return value.tolist()


def test_parse_example_matches_tensorflow():
    out = tf.parse_example(SERIALIZED, _spec())
    assert out["a"].shape.as_list() == [3, 2] and out["s"].shape.as_list() == [3, None, 2]
    assert out["c"].indices.shape.as_list() == [None, 2]
    got = tf.Session().run(out)
    assert {k: _plain(v) for k, v in got.items()} == EXPECTED["parse_example"]
    assert got["a"].dtype == np.int64 and got["b"].dtype == np.float32


def test_parse_single_example_matches_tensorflow():
    ph = tf.placeholder(tf.string, [])
    out = tf.io.parse_single_example(ph, _spec())
    assert out["a"].shape.as_list() == [2] and out["s"].shape.as_list() == [None, 2]
    assert out["c"].indices.shape.as_list() == [None, 1]
    assert out["c"].dense_shape.shape.as_list() == [1]
    sess = tf.Session()
    for s, want in zip(SERIALIZED, EXPECTED["parse_single_example"]):
        got = sess.run(out, {ph: s})
        assert {k: _plain(v) for k, v in got.items()} == want


def test_graph_is_tensorflows():
    g = tf.Graph()
    with g.as_default():
        out = tf.parse_single_example(tf.placeholder(tf.string, []), {
            "a": tf.FixedLenFeature([2], tf.int64, default_value=[0, 1]),
            "c": tf.VarLenFeature(tf.string)})
    op = g.get_operation_by_name("ParseSingleExample/ParseExample/ParseExampleV2")
    assert op.type == "ParseExampleV2"
    assert [t.op.name for t in op.inputs] == [
        "Placeholder", "ParseSingleExample/ParseExample/ParseExampleV2/names",
        "ParseSingleExample/ParseExample/ParseExampleV2/sparse_keys",
        "ParseSingleExample/ParseExample/ParseExampleV2/dense_keys",
        "ParseSingleExample/ParseExample/ParseExampleV2/ragged_keys",
        "ParseSingleExample/ParseExample/Reshape"]
    assert all(t.dtype == tf.string for t in op.inputs[:5])  # keys and names, even empty
    assert out["a"].name == "ParseSingleExample/ParseExample/ParseExampleV2:3"
    assert out["c"].values.name == "ParseSingleExample/ParseExample/ParseExampleV2:1"


@pytest.mark.parametrize("case", sorted(EXPECTED["errors"]))
def test_errors_are_tensorflows(case):
    s = SERIALIZED
    build = {
        "missing_batch": lambda: tf.parse_example(s, {"b": tf.FixedLenFeature([], tf.float32)}),
        "missing_single": lambda: tf.parse_single_example(
            s[1], {"b": tf.FixedLenFeature([], tf.float32)}),
        "missing_named": lambda: tf.parse_example(
            s, {"b": tf.FixedLenFeature([], tf.float32)}, example_names=["e0", "e1", "e2"]),
        "type_fixed_batch": lambda: tf.parse_example(
            s, {"a": tf.FixedLenFeature([2], tf.float32)}),
        "type_fixed_single": lambda: tf.parse_single_example(
            s[0], {"a": tf.FixedLenFeature([2], tf.string)}),
        "type_varlen_batch": lambda: tf.parse_example(s, {"c": tf.VarLenFeature(tf.int64)}),
        "count_batch": lambda: tf.parse_example(s, {"a": tf.FixedLenFeature([3], tf.int64)}),
        "count_single": lambda: tf.parse_single_example(
            s[0], {"a": tf.FixedLenFeature([3], tf.int64)}),
        "stride_batch": lambda: tf.parse_example(s, {"s": tf.FixedLenSequenceFeature(
            [3], tf.float32, allow_missing=True)}),
        "not_a_proto": lambda: tf.parse_example(
            [b"\x0a\x05abc"], {"a": tf.FixedLenFeature([2], tf.int64)}),
    }[case]
    cls, message = EXPECTED["errors"][case]
    with pytest.raises(getattr(tf.errors, cls)) as info:
        tf.Session().run(build())
    assert info.value.message.split("\n\t [[")[0] == message


def test_build_time_errors():
    with pytest.raises(ValueError, match=r"^Argument `features` cannot be None or falsy. "
                       r"Got \{\}$"):
        tf.parse_example(SERIALIZED, {})
    with pytest.raises(ValueError, match="^Unsupported: FixedLenSequenceFeature requires "
                       "allow_missing to be True.$"):
        tf.parse_example(SERIALIZED, {"a": tf.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(ValueError, match="^Missing shape for feature a"):
        tf.parse_example(SERIALIZED, {"a": tf.FixedLenFeature(None, tf.int64)})
    with pytest.raises(TypeError, match="parameter 'dense_defaults' has DataType int32 not in "
                       "list of allowed values: float32, int64, string"):
        tf.parse_example(SERIALIZED, {"a": tf.FixedLenFeature([2], tf.int32)})
    with pytest.raises(ValueError, match="^Input serialized must be a scalar$"):
        tf.parse_single_example(SERIALIZED, {"a": tf.FixedLenFeature([2], tf.int64)})
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.parse_example([SERIALIZED], {"a": tf.FixedLenFeature([2], tf.int64)})


def test_parse_edge_cases():
    sess = tf.Session()
    empty = sess.run(tf.parse_example(tf.constant([], tf.string), {
        "a": tf.FixedLenFeature([2], tf.int64), "c": tf.VarLenFeature(tf.string),
        "s": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}))
    assert empty["a"].shape == (0, 2) and empty["s"].shape == (0, 0, 2)
    assert empty["c"].indices.shape == (0, 2) and list(empty["c"].dense_shape) == [0, 0]
    # A sequence default pads; a kind-less Feature counts as missing (default 9).
    got = sess.run(tf.parse_example([SERIALIZED[0], SERIALIZED[1]], {"a": tf.FixedLenSequenceFeature(
        [], tf.int64, allow_missing=True, default_value=7), "d": tf.FixedLenFeature(
        [], tf.int64, default_value=9)}))
    np.testing.assert_array_equal(got["a"], [[1, 2], [3, 0]])
    np.testing.assert_array_equal(got["d"], [9, 9])
    got = sess.run(tf.parse_single_example(SERIALIZED[2], {"d": tf.FixedLenFeature(
        (), tf.int64, default_value=9), "e": tf.VarLenFeature(tf.float32)}))
    assert got["d"] == 9 and got["e"].indices.shape == (0, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Expected names have the same "
                       r"shape as serialized: name.shape=\[1\], serialized.shape=\[2\]"):
        sess.run(tf.parse_example(SERIALIZED[:2], {"b": tf.FixedLenFeature(
            [], tf.float32, default_value=0.0)}, example_names=["n1"]))


# ── decode_raw, decode_csv, string_to_number ─────────────────────────────────────────
def test_decode_raw():
    sess = tf.Session()
    x = tf.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], tf.int16)
    assert x.name == "DecodeRaw:0"
    np.testing.assert_array_equal(sess.run(x), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(
        sess.run(tf.io.decode_raw([b"\x01\x00\x02\x00"], tf.int16, little_endian=False)),
        [[256, 512]])
    np.testing.assert_array_equal(sess.run(tf.decode_raw(b"abcd", tf.uint8)), [97, 98, 99, 100])
    assert sess.run(tf.decode_raw([b"", b""], tf.int32)).shape == (2, 0)
    np.testing.assert_array_equal(sess.run(tf.decode_raw(
        np.array([1.5, 2], np.float32).tobytes(), tf.float32)), [1.5, 2])
    assert tf.decode_raw(tf.placeholder(tf.string, [3, None]), tf.int32).shape.as_list() == \
        [3, None, None]
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Input to DecodeRaw has length 3 "
                       "that is not a multiple of 2, the size of int16"):
        sess.run(tf.decode_raw([b"\x01\x00\x02"], tf.int16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="^DecodeRaw requires input strings "
                       "to all be the same size, but element 1 has size 4 != 2"):
        sess.run(tf.decode_raw([b"\x01\x00", b"\x01\x00\x02\x00"], tf.int16))
    with pytest.raises(TypeError, match="parameter 'out_type' has DataType string not in list"):
        tf.decode_raw([b"ab"], tf.string)


def test_decode_csv():
    sess = tf.Session()
    out = tf.decode_csv(["1,2.5,a", "3,,b"], [[0], [1.0], ["z"]], name="dc")
    assert [t.name for t in out] == ["dc:0", "dc:1", "dc:2"]
    a, b, c = sess.run(out)
    np.testing.assert_array_equal(a, [1, 3])
    np.testing.assert_array_equal(b, np.array([2.5, 1.0], np.float32))
    assert list(c) == [b"a", b"b"]
    got = sess.run(tf.io.decode_csv(['1,"a,b",x', '2,"c""d",y'], [[0], [""], [""]]))
    assert list(got[1]) == [b"a,b", b'c"d']
    assert list(sess.run(tf.decode_csv(['1,"a",x'], [[0], [""], [""]],
                                       use_quote_delim=False))[1]) == [b'"a"']
    assert sess.run(tf.decode_csv(["1;2"], [[0], [0]], field_delim=";"))[1] == [2]
    assert sess.run(tf.decode_csv(["1,NA"], [[0], [5]], na_value="NA"))[1] == [5]
    assert [v.tolist() for v in sess.run(tf.decode_csv(["1,2,3"], [[0], [0]],
                                                       select_cols=[0, 2]))] == [[1], [3]]
    got = sess.run(tf.decode_csv(["1,2,3,4"], [tf.constant([0], tf.int64), [0.0],
                                               tf.constant([0.0], tf.float64), [""]]))
    assert [v.dtype for v in got[:3]] == [np.int64, np.float32, np.float64]
    assert sess.run(tf.decode_csv("1,2", [[0], [0]])) == [1, 2]
    assert sess.run(tf.decode_csv([" 1, 2.5 "], [[0], [0.0]]))[1] == [2.5]
    errors = {
        "Field 1 is required but missing in record 0!": (["1,"], [[0], tf.constant([], tf.int32)]),
        "Expect 2 fields but have 3 in record 0": (["1,2,3"], [[0], [0]]),
        "Expect 1 fields but have 0 in record 0": ([""], [[7]]),
        "Field 0 in record 0 is not a valid int32: x": (["x,2"], [[0], [0]]),
        "Field 1 in record 0 is not a valid float: y": (["1,y"], [[0], [0.0]]),
        "Field 0 in record 0 is not a valid int32: 99999999999": (["99999999999"], [[0]]),
        "Field 0 in record 0 is not a valid int32: 0x10": (["0x10"], [[0]]),
        "Quoted field has to end with quote followed by delim or end": (['1,"ab'], [[0], [""]]),
        "Quote inside a string has to be escaped by another quote": (['1,"a"b'], [[0], [""]]),
        "Unquoted fields cannot have quotes/CRLFs inside": (['1,a"b"'], [[0], [""]]),
    }
    for message, (records, defaults) in errors.items():
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(tf.decode_csv(records, defaults))
        assert info.value.message.split("\n\t [[")[0] == message
    with pytest.raises(tf.errors.InvalidArgumentError, match="field_delim should be only 1"):
        sess.run(tf.decode_csv(["1;2"], [[0], [0]], field_delim=";;"))
    with pytest.raises(TypeError, match="parameter 'record_defaults' has DataType bool not in "
                       "list of allowed values: float32, float64, int32, int64, string"):
        tf.decode_csv(["1"], [[True]])


def test_string_to_number():
    sess = tf.Session()
    x = tf.string_to_number(["1.5", "2"])
    assert (x.name, x.dtype) == ("StringToNumber:0", tf.float32)
    np.testing.assert_array_equal(sess.run(x), [1.5, 2])
    np.testing.assert_array_equal(sess.run(tf.string_to_number(["15", "-2"], tf.int32)),
                                  [15, -2])
    np.testing.assert_array_equal(
        sess.run(tf.string_to_number([" 1.5 ", "inf", "nan", "0x10", "1e3"])),
        np.array([1.5, np.inf, np.nan, 16, 1000], np.float32))
    for text, dtype in (("1.5x", tf.float32), ("1.5", tf.int32), ("99999999999", tf.int32)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="^StringToNumberOp could not "
                           f"correctly convert string: {text}"):
            sess.run(tf.string_to_number([text], dtype))
    with pytest.raises(TypeError, match="parameter 'out_type' has DataType uint8 not in list "
                       "of allowed values: float32, float64, int32, int64, uint32, uint64"):
        tf.string_to_number(["3"], tf.uint8)


# ── read_file / write_file ───────────────────────────────────────────────────────────
def test_read_and_write_file(tmp_path):
    sess = tf.Session()
    target = tmp_path / "w" / "sub" / "g.txt"
    w = tf.io.write_file(str(target), "data")
    assert (w.name, w.type) == ("WriteFile", "WriteFile")
    sess.run(w)  # creates the directories, as TF's
    r = tf.read_file(str(target))
    assert (r.name, r.op.type) == ("ReadFile:0", "ReadFile")
    assert sess.run(r) == b"data"
    target.write_bytes(b"new")  # every run reads the file as it is then
    assert sess.run(r) == b"new"
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(tf.errors.NotFoundError) as info:
        sess.run(tf.io.read_file(missing))
    assert info.value.message.split("\n\t [[")[0] == f"{missing}; No such file or directory"
    with pytest.raises(tf.errors.FailedPreconditionError, match=f"^{tmp_path}; Is a directory"):
        sess.run(tf.read_file(str(tmp_path)))


def test_parse_example_live(tf1):
    """A batch with a multi-dimensional feature and string defaults, parsed by TF."""
    T = tf.train
    examples = [T.Example(features=T.Features(feature={
        "m": T.Feature(float_list=T.FloatList(value=[float(i + k) for k in range(6)])),
        "v": T.Feature(int64_list=T.Int64List(value=list(range(i)))),
    })).SerializeToString() for i in range(3)]
    spec = """{"m": tf.FixedLenFeature([2, 3], tf.float32),
               "v": tf.VarLenFeature(tf.int64),
               "q": tf.FixedLenFeature([], tf.string, default_value="dflt"),
               "w": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}"""
    hexes = [e.hex() for e in examples]
    want = tf1(f"""
        serialized = [bytes.fromhex(h) for h in {hexes!r}]
        out = tf.Session().run(tf.parse_example(serialized, {spec}))
        print(json.dumps({{"m": out["m"].tolist(), "v": [out["v"].indices.tolist(),
            out["v"].values.tolist(), out["v"].dense_shape.tolist()],
            "q": [x.decode() for x in out["q"]], "w": list(out["w"].shape)}}))
    """)
    out = tf.Session().run(tf.parse_example(examples, eval(spec)))  # noqa: S307 - the same text
    assert out["m"].tolist() == want["m"]
    assert [out["v"].indices.tolist(), out["v"].values.tolist(),
            out["v"].dense_shape.tolist()] == want["v"]
    assert [x.decode() for x in out["q"]] == want["q"] and list(out["w"].shape) == want["w"]


# ── parse_single_sequence_example ────────────────────────────────────────────────────
def _sequence_specs():
    context = {"id": tf.FixedLenFeature([], tf.int64), "name": tf.VarLenFeature(tf.string),
               "opt": tf.FixedLenFeature([], tf.float32, default_value=-1.0)}
    lists = {"tokens": tf.VarLenFeature(tf.string),
             "w": tf.FixedLenSequenceFeature([], tf.float32),
             "miss": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}
    return context, lists


SEQUENCE = bytes.fromhex(EXPECTED["sequence_example"])


def test_parse_single_sequence_example_matches_tensorflow():
    ph = tf.placeholder(tf.string, [])
    context, lists = tf.io.parse_single_sequence_example(ph, *_sequence_specs())
    assert context["id"].shape.as_list() == [] and lists["w"].shape.as_list() == [None]
    assert lists["miss"].shape.as_list() == [None, 2]
    assert lists["tokens"].indices.shape.as_list() == [None, 2]
    assert context["name"].dense_shape.shape.as_list() == [1]
    assert context["id"].op.name == \
        "ParseSingleSequenceExample/ParseSequenceExample/ParseSequenceExampleV2"
    got_context, got_lists = tf.Session().run((context, lists), {ph: SEQUENCE})
    want_context, want_lists = EXPECTED["parse_single_sequence_example"]
    assert {k: _plain(v) for k, v in got_context.items()} == want_context
    assert {k: _plain(v) for k, v in got_lists.items()} == want_lists


@pytest.mark.parametrize("case", sorted(EXPECTED["sequence_errors"]))
def test_sequence_errors_are_tensorflows(case):
    ctx, lists = _sequence_specs()
    seq = SEQUENCE
    parse = tf.parse_single_sequence_example
    build = {
        "context_missing": lambda: parse(seq, {"zz": tf.FixedLenFeature([], tf.int64)}, lists),
        "list_missing": lambda: parse(seq, ctx, {"zz": tf.FixedLenSequenceFeature(
            [], tf.int64)}),
        "list_type": lambda: parse(seq, ctx, {"w": tf.FixedLenSequenceFeature([], tf.int64)}),
        "list_count": lambda: parse(seq, ctx, {"tokens": tf.FixedLenSequenceFeature(
            [], tf.string)}),
        "context_type": lambda: parse(seq, {"id": tf.FixedLenFeature([], tf.float32)}, lists),
        "context_count": lambda: parse(seq, {"id": tf.FixedLenFeature([2], tf.int64)}, lists),
        "list_sparse_type": lambda: parse(seq, ctx, {"tokens": tf.VarLenFeature(tf.int64)}),
        "not_a_proto": lambda: parse(b"\x0a\x05abc", ctx, lists),
    }[case]
    cls, message = EXPECTED["sequence_errors"][case]
    with pytest.raises(getattr(tf.errors, cls)) as info:
        tf.Session().run(build())
    assert info.value.message.split("\n\t [[")[0] == message


def test_sequence_example_edge_cases():
    T = tf.train
    empty_list = T.SequenceExample(feature_lists=T.FeatureLists(
        feature_list={"w": T.FeatureList()})).SerializeToString()
    context, lists = tf.Session().run(tf.parse_single_sequence_example(
        empty_list, None, {"w": tf.FixedLenSequenceFeature([2], tf.float32),
                           "v": tf.VarLenFeature(tf.int64)}))
    assert context == {} and lists["w"].shape == (0, 2)
    assert lists["v"].indices.shape == (0, 2) and list(lists["v"].dense_shape) == [0, 0]
    with pytest.raises(ValueError, match="^Both context_features and sequence_features are "
                       "None, but at least one should have values.$"):
        tf.parse_single_sequence_example(SEQUENCE, None, None)
