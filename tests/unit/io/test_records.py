"""tf.train.Example protos and TFRecord files (tf.python_io / tf.io) against TensorFlow:
the fixture tests/fixtures/tf_records/ (written by its make_fixture.py under real TF) and a
live round trip through the oracle."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.io.crc32c import masked_value

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_records"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())
T = tf.train

# The same table as make_fixture.py's EXAMPLES.
EXAMPLES = [
    {"a": [1, 2], "b": [1.5], "c": [b"x", b"yy"], "s": [1.0, 2.0, 3.0, 4.0]},
    {"a": [3, 0], "c": [b"z\x00"], "s": [5.0, 6.0]},
    {"a": [-5, 2 ** 40], "b": [-0.25], "c": "bytes", "d": None},
]


def _feature(values):
    if values is None:
        return T.Feature()
    if values == "bytes":
        return T.Feature(bytes_list=T.BytesList())
    if isinstance(values[0], bytes):
        return T.Feature(bytes_list=T.BytesList(value=values))
    if isinstance(values[0], float):
        return T.Feature(float_list=T.FloatList(value=values))
    return T.Feature(int64_list=T.Int64List(value=values))


def _example(table):
    return T.Example(features=T.Features(feature={k: _feature(v) for k, v in table.items()}))


SERIALIZED = [bytes.fromhex(h) for h in EXPECTED["serialized"]]


# ── the protos ───────────────────────────────────────────────────────────────────────
def test_example_bytes_identical_to_tensorflows():
    for table, want in zip(EXAMPLES, SERIALIZED):
        assert _example(table).SerializeToString(deterministic=True) == want
        back = T.Example.FromString(want)
        assert back == _example(table)
    assert list(T.Example.FromString(SERIALIZED[0]).features.feature["a"].int64_list.value) \
        == [1, 2]


def test_sequence_example_bytes_identical_to_tensorflows():
    seq = T.SequenceExample(
        context=T.Features(feature={"id": _feature([7])}),
        feature_lists=T.FeatureLists(feature_list={
            "tokens": T.FeatureList(feature=[_feature([b"a"]), _feature([b"b", b"c"])]),
            "w": T.FeatureList(feature=[_feature([0.5])])}))
    assert seq.SerializeToString(deterministic=True).hex() == EXPECTED["sequence_example"]


def test_proto_names_and_package():
    assert T.Example.DESCRIPTOR.full_name == "tensorflow.Example"
    assert T.Feature.DESCRIPTOR.oneofs_by_name["kind"] is not None
    for name in ("Example", "SequenceExample", "Features", "Feature", "FeatureList",
                 "FeatureLists", "BytesList", "FloatList", "Int64List"):
        assert getattr(tf.train, name).DESCRIPTOR.name == name


# ── TFRecord files ───────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("name,options", [
    ("examples.tfrecord", None), ("examples.tfrecord.gz", "GZIP"),
    ("examples.tfrecord.zlib", tf.python_io.TFRecordOptions(
        tf.python_io.TFRecordCompressionType.ZLIB))])
def test_reads_tensorflows_files_and_writes_them_byte_for_byte(tmp_path, name, options):
    path = str(FIXTURE / name)
    assert list(tf.python_io.tf_record_iterator(path, options)) == SERIALIZED
    ours = str(tmp_path / name)
    with tf.io.TFRecordWriter(ours, options) as w:
        for s in SERIALIZED:
            w.write(s)
    assert Path(ours).read_bytes() == Path(path).read_bytes()


def test_writer_api(tmp_path):
    path = str(tmp_path / "w.tfrecord")
    w = tf.python_io.TFRecordWriter(path)
    w.write(b"a")
    w.write("text")  # str is written UTF-8 encoded, as TF's
    w.flush()
    w.close()
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="^Writer is closed.$"):
        w.write(b"x")
    assert list(tf.io.tf_record_iterator(path)) == [b"a", b"text"]
    with tf.python_io.TFRecordWriter(path, "GZIP") as w:  # replaces the file
        w.write(b"b")
    assert list(tf.python_io.tf_record_iterator(path, "GZIP")) == [b"b"]


def test_options():
    opts = tf.python_io.TFRecordOptions
    assert opts.get_compression_type_string("GZIP") == "GZIP"
    assert opts.get_compression_type_string(None) == ""
    assert opts.get_compression_type_string(opts(tf.io.TFRecordCompressionType.ZLIB)) == "ZLIB"
    assert [int(c) for c in tf.python_io.TFRecordCompressionType] == [0, 1, 2]
    with pytest.raises(ValueError, match='^Not a valid compression_type: "BOGUS"$'):
        opts("BOGUS")


def _record_header(length):
    header = struct.pack("<Q", length)
    return header + struct.pack("<I", masked_value(header))


def _iterate(path, options=None):
    return list(tf.python_io.tf_record_iterator(str(path), options))


def test_damaged_files_are_data_loss_errors_with_tensorflows_messages(tmp_path):
    data = (FIXTURE / "examples.tfrecord").read_bytes()
    first = 12 + len(SERIALIZED[0]) + 4
    cases = {
        "data_crc": (first + 14, f"^corrupted record at {first + 12}$"),
        "length_crc": (first, f"^corrupted record at {first}$"),
        "first_length_crc": (0, r"^corrupted record at 0 \(Is this even a TFRecord file\?\)$"),
    }
    for name, (flip, message) in cases.items():
        bad = bytearray(data)
        bad[flip] ^= 1
        (tmp_path / name).write_bytes(bytes(bad))
        with pytest.raises(tf.errors.DataLossError, match=message):
            _iterate(tmp_path / name)
    (tmp_path / "trunc").write_bytes(data[:-3])
    last = 2 * 16 + len(SERIALIZED[0]) + len(SERIALIZED[1])  # the third record's offset
    with pytest.raises(tf.errors.DataLossError, match=f"^truncated record at {last}' failed "
                       "with Read less bytes than requested$"):
        _iterate(tmp_path / "trunc")
    (tmp_path / "short_header").write_bytes(data[:first + 5])
    assert _iterate(tmp_path / "short_header") == SERIALIZED[:1]  # TF: the end of the file
    # A length field declaring an exabyte: an error, not an exabyte allocation (TF crashes).
    (tmp_path / "huge").write_bytes(_record_header(1 << 60) + b"abc")
    with pytest.raises(tf.errors.DataLossError, match="^truncated record at 0' failed"):
        _iterate(tmp_path / "huge")
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b\x08\x00garbage-garbage")
    with pytest.raises(tf.errors.DataLossError,
                       match="^inflate\\(\\) failed with error -3: invalid code lengths set$"):
        _iterate(tmp_path / "bad.gz", "GZIP")
    with pytest.raises(tf.errors.DataLossError, match=r"Is this even a TFRecord file"):
        _iterate(FIXTURE / "examples.tfrecord.gz")  # compressed, read as plain


def test_missing_files(tmp_path):
    missing = str(tmp_path / "nope.tfr")
    with pytest.raises(tf.errors.NotFoundError, match=f"^{missing}; No such file or directory$"):
        _iterate(missing)
    target = str(tmp_path / "nodir" / "x.tfr")
    with pytest.raises(tf.errors.NotFoundError, match=f"^{target}; No such file or directory$"):
        tf.python_io.TFRecordWriter(target)


def test_tensorflow_reads_our_files(tmp_path, tf1):
    paths = {}
    for ctype in ("", "GZIP", "ZLIB"):
        path = str(tmp_path / f"ours{ctype}.tfrecord")
        with tf.python_io.TFRecordWriter(path, ctype) as w:
            for table in EXAMPLES:
                w.write(_example(table).SerializeToString())
            w.write(b"\x00" * 70000)
        paths[ctype] = path
    got = tf1(f"""
        from tensorflow.python.lib.io import tf_record
        out = {{}}
        for ctype, path in {paths!r}.items():
            records = list(tf_record.tf_record_iterator(path, tf_record.TFRecordOptions(
                ctype or None)))
            out[ctype] = [tf.train.Example.FromString(r).SerializeToString(
                deterministic=True).hex() for r in records[:-1]] + [len(records[-1])]
        print(json.dumps(out))
    """)
    for ctype in paths:
        assert got[ctype] == EXPECTED["serialized"] + [70000]
