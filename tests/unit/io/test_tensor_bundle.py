"""Tensor bundles (checkpoint V2): TF's bytes, every dtype, checks, atomic writes, live TF."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors
from scopeflow.io import protos, sstable, tensor_bundle
from scopeflow.io.tensor_bundle import BundleReader, write_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_checkpoints"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
BIG_ORDER = [f"layer_{i // 30:04d}/unit_{i % 30:02d}/kernel" for i in range(12000)]

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None


def _raw(value, dtype_name):
    if dtype_name == "string":
        items = [bytes(v) for v in value.reshape(-1)]
        return b"".join(items), [v.hex() for v in items]
    raw = np.ascontiguousarray(value).tobytes()
    return raw, raw.hex()


# ── reading what TensorFlow wrote ────────────────────────────────────────────────────
@pytest.mark.parametrize("prefix", [p for p in EXPECTED if p != "big/bundle"])
def test_reads_tf_written_bundles(prefix):
    tensors = EXPECTED[prefix]["tensors"]
    with BundleReader(FIXTURES / prefix) as reader:
        assert reader.keys() == sorted(tensors)
        for name, want in tensors.items():
            assert reader.shape(name) == tuple(want["shape"]), name
            if want["dtype"] == "bfloat16" and ml_dtypes is None:
                with pytest.raises(errors.UnimplementedError, match="DT_BFLOAT16.*ml_dtypes"):
                    reader.read(name)
                continue
            if want["dtype"] != "bfloat16":
                assert reader.dtype(name) == tf.as_dtype(want["dtype"]), name
            value = reader.read(name)
            assert value.shape == tuple(want["shape"])
            raw, data = _raw(value, want["dtype"])
            if "sha256" in want:
                assert hashlib.sha256(raw).hexdigest() == want["sha256"], name
            else:
                assert data == want["data"], name
            if want["dtype"] == "string":
                assert value.dtype == object
            else:
                assert value.dtype.name == want["dtype"]


def test_reads_tf_sharded_saver_bundle():
    prefix = FIXTURES / "sharded/model.ckpt"
    with BundleReader(prefix) as reader:
        shards = {name: reader.entry(name).shard_id for name in reader.keys()}
        assert sorted(set(shards.values())) == [0, 1]
        assert shards["dev0/v"] != shards["dev1/v"]
        np.testing.assert_array_equal(reader.read("dev1/v"), np.arange(4, dtype=np.float32) + 1)
        assert reader.read("dev1/s").tolist() == [b"on", b"cpu1"]
        assert reader.read("dev1/n") == 10


def test_reads_the_big_tf_bundle():
    with BundleReader(FIXTURES / "big/bundle") as reader:
        assert reader.keys() == sorted(BIG_ORDER)
        for i in (0, 5000, 11999):
            value = reader.read(BIG_ORDER[i])
            assert value.dtype == np.int32 and value.shape == () and value == i


# ── byte identity with TensorFlow ────────────────────────────────────────────────────
@pytest.mark.parametrize("prefix", ["saver/model-5", "all_dtypes/bundle", "big/bundle"])
def test_rewriting_tf_bundles_gives_tfs_bytes(prefix, tmp_path):
    if prefix == "all_dtypes/bundle" and ml_dtypes is None:
        pytest.skip("the bundle holds a bfloat16 tensor: needs ml_dtypes")
    order = BIG_ORDER if prefix == "big/bundle" else EXPECTED[prefix]["order"]
    with BundleReader(FIXTURES / prefix) as reader:
        arrays = [reader.read(name) for name in order]
    out = tmp_path / "copy"
    write_bundle(out, order, arrays)
    assert (tmp_path / "copy.index").read_bytes() == (FIXTURES / f"{prefix}.index").read_bytes()
    assert (tmp_path / "copy.data-00000-of-00001").read_bytes() == \
        (FIXTURES / f"{prefix}.data-00000-of-00001").read_bytes()


def test_data_order_is_write_order_and_index_is_sorted(tmp_path):
    write_bundle(tmp_path / "m", ["zeta", "alpha", "mid/b", "mid/a"],
                 [np.zeros(3, np.float32)] * 4)
    with BundleReader(tmp_path / "m") as reader:
        assert reader.keys() == ["alpha", "mid/a", "mid/b", "zeta"]
        offsets = {n: reader.entry(n).offset for n in reader.keys()}
    assert offsets == {"zeta": 0, "alpha": 12, "mid/b": 24, "mid/a": 36}


# ── writing every dtype ──────────────────────────────────────────────────────────────
ROUND_TRIP = {
    "f16": np.array([1.5, -2.0, np.inf], np.float16),
    "f32": np.arange(12, dtype=np.float32).reshape(3, 4),
    "f64": np.array([[np.pi]]),
    "c64": np.array([1 + 2j, -3j], np.complex64),
    "c128": np.array(2 - 1j),
    "i8": np.array([-1, 2], np.int8), "i16": np.array([-300], np.int16),
    "i32": np.array(7, np.int32), "i64": np.array([2**40], np.int64),
    "u8": np.array([255], np.uint8), "u16": np.array([65535], np.uint16),
    "u32": np.array([2**32 - 1], np.uint32), "u64": np.array([2**64 - 1], np.uint64),
    "bool": np.array([[True], [False]]),
    "empty": np.zeros((0, 5), np.float32), "empty_str": np.array([], object),
    "str": np.array([b"a", "\u00e9t\u00e9", b""], object),
    "str_scalar": np.array("just one", object),
    "str_2d": np.array([[b"x", b"yy"], [b"", bytes(range(256))]], object),
    "unicode_dtype": np.array(["ab", "c"]),
    "transposed": np.arange(6, dtype=np.float64).reshape(2, 3).T,
    "big_endian": np.array([1.0, 2.5], ">f4"),
}


def test_round_trip_every_dtype(tmp_path):
    names = list(ROUND_TRIP)
    write_bundle(tmp_path / "all", names, list(ROUND_TRIP.values()))
    with BundleReader(tmp_path / "all") as reader:
        assert reader.keys() == sorted(names)
        for name, want in ROUND_TRIP.items():
            got = reader.read(name)
            assert got.shape == want.shape, name
            if want.dtype.kind in "OU":
                items = [v.encode() if isinstance(v, str) else v for v in want.reshape(-1)]
                assert got.dtype == object and got.reshape(-1).tolist() == items, name
                assert reader.dtype(name) == tf.string
            else:
                assert got.dtype == want.dtype.newbyteorder("="), name
                np.testing.assert_array_equal(got, want)
                assert reader.dtype(name) == tf.as_dtype(want.dtype.newbyteorder("="))
    assert sorted(os.listdir(tmp_path)) == ["all.data-00000-of-00001", "all.index"]


def test_string_layout_matches_formats_example(tmp_path):
    write_bundle(tmp_path / "s", ["s"], [np.array([b"alpha", b"be", b"", b"gamma-delta"])])
    data = (tmp_path / "s.data-00000-of-00001").read_bytes()
    assert data.hex() == "05 02 00 0b d2 ec 03 95".replace(" ", "") + \
        b"alphabegamma-delta".hex()


@pytest.mark.skipif(ml_dtypes is None, reason="needs ml_dtypes")
def test_bfloat16_round_trip(tmp_path):
    value = np.array([1.0, -2.5, 3.0e38], ml_dtypes.bfloat16)
    write_bundle(tmp_path / "b", ["b"], [value])
    with BundleReader(tmp_path / "b") as reader:
        assert reader.entry("b").dtype == 14
        np.testing.assert_array_equal(reader.read("b"), value)


@pytest.mark.parametrize("names, arrays, exc, match", [
    (["a", "a"], [np.zeros(1), np.zeros(1)], ValueError, "Duplicate tensor name 'a'"),
    ([""], [np.zeros(1)], ValueError, "must not be empty"),
    (["a"], [], ValueError, "1 names but 0 arrays"),
    ([3], [np.zeros(1)], TypeError, "names must be str"),
    (["t"], [np.array(["2020-01-01"], "datetime64[D]")], TypeError,
     "'t': dtype datetime64.D. cannot be stored"),
    (["s"], [np.array([b"ok", 3], object)], TypeError, "'s': a string tensor holds bytes or str"),
])
def test_bad_arguments_write_nothing(tmp_path, names, arrays, exc, match):
    with pytest.raises(exc, match=match):
        write_bundle(tmp_path / "m", names, arrays)
    assert os.listdir(tmp_path) == []


# ── corruption and bad paths ─────────────────────────────────────────────────────────
def _bundle(tmp_path):
    prefix = tmp_path / "model.ckpt"
    write_bundle(prefix, ["w", "s", "b"], [np.arange(6, dtype=np.float32).reshape(2, 3),
                                          np.array([b"hello", b"world"], object),
                                          np.ones(3, np.float32)])
    return prefix


def _flip(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_flipped_data_byte_names_the_tensor_and_file(tmp_path):
    prefix = _bundle(tmp_path)
    _flip(tmp_path / "model.ckpt.data-00000-of-00001", 5)
    with BundleReader(prefix) as reader:
        with pytest.raises(errors.DataLossError) as info:
            reader.read("w")
        np.testing.assert_array_equal(reader.read("b"), np.ones(3))   # others still fine
    message = str(info.value)
    assert "Checksum does not match" in message
    assert "tensor 'w'" in message and "model.ckpt.data-00000-of-00001" in message


def test_flipped_string_bytes_and_lengths(tmp_path):
    prefix = _bundle(tmp_path)
    with BundleReader(prefix) as reader:
        start = reader.entry("s").offset
    _flip(tmp_path / "model.ckpt.data-00000-of-00001", start + 8)     # in "hello"
    with BundleReader(prefix) as reader, \
            pytest.raises(errors.DataLossError, match="Checksum does not match.*tensor 's'"):
        reader.read("s")
    _flip(tmp_path / "model.ckpt.data-00000-of-00001", start + 8)
    _flip(tmp_path / "model.ckpt.data-00000-of-00001", start)         # a length
    with BundleReader(prefix) as reader, \
            pytest.raises(errors.DataLossError, match="tensor 's'.*The length checksum does not match"):
        reader.read("s")


def test_a_string_length_past_64_bits_is_data_loss(tmp_path):
    # A 10-byte varint can carry 70 bits; TF's varint64 refuses more than 64. It was
    # taken as a length and crashed the length checksum (struct.error), found by atheris.
    prefix = _bundle(tmp_path)
    with BundleReader(prefix) as reader:
        start = reader.entry("s").offset
    data_path = tmp_path / "model.ckpt.data-00000-of-00001"
    data = data_path.read_bytes()
    for varint in (b"\x80" * 9 + b"\x02", b"\xff" * 9 + b"\x7f"):   # 2**64 and 2**70 - 1
        data_path.write_bytes(data[:start] + varint + data[start + 1:])
        with BundleReader(prefix) as reader, \
                pytest.raises(errors.DataLossError, match="tensor 's'.*bad string length"):
            reader.read("s")


def test_truncated_data_and_index(tmp_path):
    prefix = _bundle(tmp_path)
    data_path = tmp_path / "model.ckpt.data-00000-of-00001"
    data_path.write_bytes(data_path.read_bytes()[:-4])
    with BundleReader(prefix) as reader, \
            pytest.raises(errors.DataLossError, match="tensor 'b'.*truncated"):
        reader.read("b")
    index_path = tmp_path / "model.ckpt.index"
    index_path.write_bytes(index_path.read_bytes()[:-10])
    with pytest.raises(errors.DataLossError, match=r"model\.ckpt\.index"):
        BundleReader(prefix)


def test_chunked_parallel_reads_check_every_chunk(tmp_path, monkeypatch):
    # Large tensors are read in chunks by a thread pool; shrink the chunk so a small
    # tensor takes that path, then corrupt and truncate chunks in the middle and the end.
    monkeypatch.setattr(tensor_bundle, "_CHUNK", 64)
    value = np.arange(1000, dtype=np.float32).reshape(10, 100)
    prefix = str(tmp_path / "model.ckpt")
    write_bundle(prefix, ["big", "tail"], [value, np.ones(3)])
    with BundleReader(prefix) as reader:
        np.testing.assert_array_equal(reader.read("big"), value)
        offset = reader.entry("big").offset
    data_path = tmp_path / "model.ckpt.data-00000-of-00001"
    _flip(data_path, offset + 64 * 30 + 5)
    with BundleReader(prefix) as reader, \
            pytest.raises(errors.DataLossError, match="Checksum does not match.*tensor 'big'"):
        reader.read("big")
    data_path.write_bytes(data_path.read_bytes()[:offset + 64 * 40 + 10])
    with BundleReader(prefix) as reader, \
            pytest.raises(errors.DataLossError, match="tensor 'big'.*truncated"):
        reader.read("big")


def test_missing_data_file(tmp_path):
    prefix = _bundle(tmp_path)
    os.remove(tmp_path / "model.ckpt.data-00000-of-00001")
    reader = BundleReader(prefix)
    assert reader.keys() == ["b", "s", "w"]
    with pytest.raises(errors.NotFoundError, match="data-00000-of-00001.*tensor 'w'"):
        reader.read("w")


def test_missing_checkpoint_uses_tfs_message_and_lists_neighbours(tmp_path):
    _bundle(tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        BundleReader(tmp_path / "model")
    assert str(info.value).startswith(
        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
        f"{tmp_path / 'model'}")
    assert "model.ckpt" in str(info.value)
    with pytest.raises(errors.NotFoundError, match="is a directory"):
        BundleReader(tmp_path)


@pytest.mark.parametrize("suffix, what", [(".index", "index file"),
                                          (".data-00000-of-00001", "data file")])
def test_passing_a_checkpoint_file_says_to_pass_the_prefix(tmp_path, suffix, what):
    prefix = _bundle(tmp_path)
    with pytest.raises(errors.InvalidArgumentError) as info:
        BundleReader(f"{prefix}{suffix}")
    assert f"is the {what} of the checkpoint '{prefix}': pass the checkpoint prefix " \
        f"'{prefix}'" in str(info.value)


def test_missing_key(tmp_path):
    reader = BundleReader(_bundle(tmp_path))
    assert "w" in reader and "nope" not in reader
    with pytest.raises(errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.read("nope")


def _write_index(path, header, entries):
    table = [(b"", header.SerializeToString())]
    table += [(name.encode(), entry.SerializeToString()) for name, entry in sorted(entries)]
    Path(path).write_bytes(sstable.build_table(table))


def test_missing_slice_and_big_endian_bundles_are_refused(tmp_path):
    # Partitioned variables are read (tests/unit/state/test_partitioned_variables.py); a slice
    # listed without its data entry is a corrupt index.
    header = protos.BundleHeaderProto(num_shards=1, version=protos.VersionDef(producer=1))
    entry = protos.BundleEntryProto(dtype=1)
    entry.shape.dim.add(size=4)
    entry.slices.add().extent.add()
    _write_index(tmp_path / "p.index", header, [("part", entry)])
    (tmp_path / "p.data-00000-of-00001").write_bytes(b"")
    with BundleReader(tmp_path / "p") as reader, \
            pytest.raises(errors.DataLossError, match="'part' lists the slice - .*partitioned"):
        reader.read("part")
    header.endianness = 1
    _write_index(tmp_path / "q.index", header, [])
    with pytest.raises(errors.UnimplementedError, match="big-endian"):
        BundleReader(tmp_path / "q")


# ── atomic writes ────────────────────────────────────────────────────────────────────
def _old_bundle(tmp_path):
    prefix = tmp_path / "model.ckpt"
    write_bundle(prefix, ["a", "b"], [np.full(1000, 1.0, np.float32), np.full(10, 2.0)])
    return prefix


def _assert_old_bundle_intact(tmp_path, prefix):
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt.data-00000-of-00001", "model.ckpt.index"]
    with BundleReader(prefix) as reader:
        np.testing.assert_array_equal(reader.read("a"), np.full(1000, 1.0, np.float32))
        np.testing.assert_array_equal(reader.read("b"), np.full(10, 2.0))


def test_exception_mid_write_keeps_old_bundle_and_no_temporaries(tmp_path, monkeypatch):
    prefix = _old_bundle(tmp_path)
    real = tensor_bundle._write_raw_tensor
    calls = []

    def failing(out, array):
        calls.append(1)
        if len(calls) == 2:
            out.write(b"partial")
            raise OSError(28, "No space left on device")
        return real(out, array)

    monkeypatch.setattr(tensor_bundle, "_write_raw_tensor", failing)
    with pytest.raises(OSError, match="No space left"):
        write_bundle(prefix, ["a", "b"], [np.zeros(1000, np.float32), np.zeros(10)])
    _assert_old_bundle_intact(tmp_path, prefix)


def test_failed_index_rename_restores_the_old_data(tmp_path, monkeypatch):
    prefix = _old_bundle(tmp_path)
    real = os.replace

    def failing(src, dst):
        if str(dst).endswith(".index"):
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(tensor_bundle.os, "replace", failing)
    with pytest.raises(PermissionError):
        write_bundle(prefix, ["a", "b"], [np.zeros(1000, np.float32), np.zeros(10)])
    monkeypatch.setattr(tensor_bundle.os, "replace", real)
    _assert_old_bundle_intact(tmp_path, prefix)


def test_overwrite_replaces_both_files(tmp_path):
    prefix = _old_bundle(tmp_path)
    write_bundle(prefix, ["c"], [np.array([5], np.int64)], sync=False)
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt.data-00000-of-00001", "model.ckpt.index"]
    with BundleReader(prefix) as reader:
        assert reader.keys() == ["c"] and reader.read("c").tolist() == [5]


def test_creates_the_directory(tmp_path):
    write_bundle(tmp_path / "a" / "b" / "m", ["x"], [np.zeros(2)])
    assert BundleReader(tmp_path / "a" / "b" / "m").keys() == ["x"]


# ── live TensorFlow ──────────────────────────────────────────────────────────────────
@pytest.mark.tf
def test_tensorflow_reads_and_restores_scopeflow_bundles(tf1, tmp_path):
    names = [n for n in ROUND_TRIP if n not in ("unicode_dtype",)]
    write_bundle(tmp_path / "all", names, [ROUND_TRIP[n] for n in names])
    weights = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    write_bundle(tmp_path / "model", ["model/w", "global_step", "vocab"],
                 [weights, np.array(42, np.int64), np.array([b"a", b"bc"], object)])
    got = tf1(f"""
        reader = tf.train.load_checkpoint({str(tmp_path / 'all')!r})
        out = {{"vars": tf.train.list_variables({str(tmp_path / 'all')!r}), "values": {{}}}}
        for name, dtype in reader.get_variable_to_dtype_map().items():
            value = reader.get_tensor(name)
            if dtype == tf.string:
                value = [bytes(v).hex() for v in np.asarray(value, object).reshape(-1)]
            else:
                value = np.ascontiguousarray(value).tobytes().hex()
            out["values"][name] = [dtype.name, value]
        w = tf.Variable(tf.zeros([3, 4]), name="model/w")
        step = tf.train.get_or_create_global_step()
        vocab = tf.Variable([b"", b""], name="vocab")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, {str(tmp_path / 'model')!r})
            w_val, step_val, vocab_val = sess.run([w, step, vocab])
        out["restored"] = [w_val.tolist(), int(step_val), [v.decode() for v in vocab_val]]
        print(json.dumps(out))
    """)
    assert got["vars"] == [[n, list(ROUND_TRIP[n].shape)] for n in sorted(names)]
    for name in names:
        want = ROUND_TRIP[name]
        dtype, data = got["values"][name]
        if want.dtype == object:
            items = [v.encode() if isinstance(v, str) else v for v in want.reshape(-1)]
            assert dtype == "string" and data == [v.hex() for v in items], name
        else:
            native = want.astype(want.dtype.newbyteorder("="))
            assert dtype == tf.as_dtype(native.dtype).name, name
            assert data == np.ascontiguousarray(native).tobytes().hex(), name
    assert got["restored"] == [weights.tolist(), 42, ["a", "bc"]]


@pytest.mark.tf
def test_scopeflow_reads_what_tensorflow_writes_now(tf1, tmp_path):
    got = tf1(f"""
        rng = np.random.default_rng(7)
        a = tf.Variable(rng.standard_normal((5, 7)).astype(np.float32), name="scope/a")
        b = tf.Variable(rng.integers(-9, 9, 4), name="b")
        s = tf.Variable([b"x", b"", b"yz"], name="s")
        h = tf.Variable(np.float16(0.5), name="h")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, {str(tmp_path / 'ckpt' / 'm')!r}, global_step=3)
            values = sess.run([a, b, s, h])
        print(json.dumps({{"path": path, "a": values[0].tolist(), "b": values[1].tolist(),
                          "s": [v.decode() for v in values[2]], "h": float(values[3])}}))
    """)
    with BundleReader(got["path"]) as reader:
        assert reader.keys() == ["b", "h", "s", "scope/a"]
        np.testing.assert_array_equal(reader.read("scope/a"), np.float32(got["a"]))
        assert reader.read("b").tolist() == got["b"] and reader.dtype("b") == tf.int64
        assert reader.read("s").tolist() == [v.encode() for v in got["s"]]
        assert reader.read("h") == np.float16(got["h"]) and reader.dtype("h") == tf.float16
    shutil.rmtree(tmp_path / "ckpt")


def test_garbage_entries_and_impossible_sizes_are_data_loss(tmp_path):
    header = protos.BundleHeaderProto(num_shards=1, version=protos.VersionDef(producer=1))
    huge = protos.BundleEntryProto(dtype=1, size=4)
    huge.shape.dim.add(size=1 << 40)
    (tmp_path / "h.index").write_bytes(sstable.build_table(
        [(b"", header.SerializeToString()), (b"bad", b"\xff\xff\xff"),
         (b"huge", huge.SerializeToString())]))
    with BundleReader(tmp_path / "h") as reader:
        with pytest.raises(errors.DataLossError, match=r"h\.index: bad entry for tensor 'bad'"):
            reader.read("bad")
        # Checked before allocating: no MemoryError for a 4 TB shape.
        with pytest.raises(errors.DataLossError, match=r"'huge'.*size 4 in the index"):
            reader.read("huge")


def test_non_ascii_names_sort_bytewise_as_tf(tmp_path):
    names = ["\u00e9t\u00e9/w", "z", "a/b", "Z"]
    write_bundle(tmp_path / "u", names, [np.array(i, np.int32) for i in range(4)])
    with BundleReader(tmp_path / "u") as reader:
        assert reader.keys() == ["Z", "a/b", "z", "\u00e9t\u00e9/w"]
        assert [int(reader.read(n)) for n in names] == [0, 1, 2, 3]


def _relist_slices(prefix, name, extents):
    """Rewrites ``name``'s slice list in the index of ``prefix`` (its data untouched)."""
    index = Path(f"{prefix}.index")
    rows = []
    for key, value in sstable.parse_table(index.read_bytes()):
        if key == name.encode():
            entry = protos.BundleEntryProto.FromString(value)
            del entry.slices[:]
            for box in extents:
                proto = entry.slices.add()
                for start, length in box:
                    proto.extent.add(start=start, length=length)
            value = entry.SerializeToString()
        rows.append((key, value))
    index.write_bytes(sstable.build_table(rows))


def test_thousands_of_slices_are_checked_for_overlap_in_near_linear_time(tmp_path):
    # An index may list thousands of slices of one tensor (a damaged or hostile one, or
    # a finely partitioned variable); a pairwise overlap check took minutes for these.
    n = 8000
    full = np.arange(2 * n, dtype=np.float32).reshape(2, n)
    write_bundle(tmp_path / "p", ["v"] * n, [full[:, i:i + 1] for i in range(n)],
                 slices=[f"2 {n} -:{i},1" for i in range(n)], sync=False)
    start = time.perf_counter()
    with BundleReader(tmp_path / "p") as reader:
        np.testing.assert_array_equal(reader.read("v"), full)
    # 8000 empty slices (nothing to overlap) and an overlap hidden among 8000.
    _relist_slices(tmp_path / "p", "v", [[(0, 2), (i, 0)] for i in range(n)])
    with BundleReader(tmp_path / "p") as reader, \
            pytest.raises(errors.NotFoundError, match="do not cover"):
        reader.read("v")
    boxes = [[(0, 2), (i, 1)] for i in range(n)]
    boxes.insert(5000, [(1, 1), (7000, 3)])
    _relist_slices(tmp_path / "p", "v", boxes)
    with BundleReader(tmp_path / "p") as reader, \
            pytest.raises(errors.DataLossError, match=r"overlapping slices \(0,2:7000,1\)"):
        reader.read("v")
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("boxes, overlap", [
    ([[(0, 2), (0, 2)], [(2, 2), (0, 2)], [(0, 2), (2, 2)], [(2, 2), (2, 2)]], None),
    ([[(0, 2), (0, 2)], [(2, 2), (0, 2)], [(1, 2), (1, 2)]], 2),      # the later one named
    ([[(1, 2), (1, 2)], [(0, 4), (3, 1)], [(0, 2), (0, 2)]], 2),
    ([[(0, 4), (0, 0)], [(0, 4), (0, 0)]], None),                      # empty: no overlap
    ([[(0, 4), (0, 1)], [(3, 1), (0, 4)]], 1),                         # a corner shared
    ([[(0, 4), (0, 1)], [(0, 4), (1, 1)], [(0, 4), (2, 2)]], None),    # touching edges only
])
def test_slice_overlaps_are_found_in_any_layout(tmp_path, boxes, overlap):
    full = np.zeros((4, 4), np.float32)
    write_bundle(tmp_path / "p", ["v", "v"], [full[:2], full[2:]],
                 slices=["4 4 0,2:-", "4 4 2,2:-"], sync=False)
    _relist_slices(tmp_path / "p", "v", boxes)
    with BundleReader(tmp_path / "p") as reader:
        if overlap is None:
            with pytest.raises((errors.NotFoundError, errors.DataLossError),
                               match="do not cover|no entry for its data"):
                reader.read("v")
        else:
            spec = ":".join(f"{a},{n}" for a, n in boxes[overlap])
            with pytest.raises(errors.DataLossError, match=rf"overlapping slices \({spec}\)"):
                reader.read("v")
