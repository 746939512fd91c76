"""LevelDB tables as TensorFlow writes a checkpoint's .index: byte identity and checks."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from scopeflow.framework import errors
from scopeflow.io import crc32c, sstable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_checkpoints"
TF_INDEXES = ["saver/model-5.index", "all_dtypes/bundle.index", "big/bundle.index",
              "sharded/model.ckpt.index"]


@pytest.mark.parametrize("name", TF_INDEXES)
def test_rebuilding_a_tf_index_gives_tfs_bytes(name):
    data = (FIXTURES / name).read_bytes()
    entries = sstable.parse_table(data, name)
    assert entries[0][0] == b""
    assert sstable.build_table(entries) == data


def _index_block(data):
    footer = len(data) - sstable.FOOTER_SIZE
    meta_end = sstable._read_varint(data, sstable._read_varint(data, footer, len(data), "t")[1],
                                    len(data), "t")[1]
    index = sstable._block_at(data, *sstable._handle(data, meta_end, "t"), "t")
    return list(sstable._block_entries(index, "t"))


def _index_block_keys(data):
    return [key for key, _ in _index_block(data)]


def test_tf_big_index_has_two_blocks_and_shortened_separators():
    data = (FIXTURES / "big/bundle.index").read_bytes()
    entries = sstable.parse_table(data)
    assert len(entries) == 12001
    keys = _index_block_keys(data)
    assert len(keys) == 2
    # The separator sits between the first block's last key and the next block's first
    # (here it cannot be shortened: "...unit_00..." vs "...unit_01..."); the last one is the short successor of the last key.
    all_keys = [k for k, _ in entries]
    i = next(i for i, k in enumerate(all_keys) if k > keys[0])
    assert all_keys[i - 1] <= keys[0] < all_keys[i]
    assert keys[1] == b"m"


@pytest.mark.parametrize("start, limit, expected", [
    (b"abcd", b"abzz", b"abd"),
    (b"abc", b"abd", b"abc"),             # c+1 == d: no shorter key fits
    (b"ab", b"abc", b"ab"),               # a prefix: unchanged
    (b"a\xffz", b"b", b"a\xffz"),         # a+1 == b
    (b"a\xff", b"a\xff\x01", b"a\xff"),
    (b"model/a", b"model/c", b"model/b"),
])
def test_shortest_separator(start, limit, expected):
    sep = sstable._shortest_separator(start, limit)
    assert sep == expected
    assert start <= sep < limit


@pytest.mark.parametrize("key, expected", [
    (b"names", b"o"), (b"\xff\xffa", b"\xff\xffb"), (b"\xff\xff", b"\xff\xff"), (b"", b"")])
def test_short_successor(key, expected):
    assert sstable._short_successor(key) == expected


def test_empty_block_and_footer_layout():
    table = sstable.build_table([(b"", b"\x08\x01")])
    assert table[-8:] == struct.pack("<Q", sstable.MAGIC)
    # data block, then the empty metaindex block (8 bytes + trailer) right after it.
    data_block = 3 + 2 + 8
    assert table[data_block + 5:data_block + 5 + 8] == bytes.fromhex("0000000001000000")


@pytest.mark.parametrize("block_size, restart_interval", [
    (1, 1), (64, 3), (4096, 1000), (128, 2), (300, 5), (262144, 16)])
def test_round_trip_any_block_size(block_size, restart_interval):
    rng = random.Random(block_size)
    keys = sorted({bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
                   for _ in range(300)})
    entries = [(b"", b"header")] + [(k, k * rng.randrange(3)) for k in keys]
    table = sstable.build_table(entries, block_size, restart_interval)
    assert sstable.parse_table(table) == entries


def test_keys_must_increase():
    with pytest.raises(ValueError, match="increasing order"):
        sstable.build_table([(b"b", b""), (b"a", b"")])
    with pytest.raises(ValueError, match="increasing order"):
        sstable.build_table([(b"a", b""), (b"a", b"")])


def _table():
    return bytearray(sstable.build_table([(b"", b"hdr"), (b"alpha", b"1"), (b"beta", b"22")]))


def test_flipped_byte_is_a_checksum_error_naming_the_file():
    table = _table()
    table[6] ^= 0x10
    with pytest.raises(errors.DataLossError, match=r"model\.index: block checksum mismatch"):
        sstable.parse_table(bytes(table), "model.index")


def test_bad_magic_and_truncation():
    table = _table()
    with pytest.raises(errors.DataLossError, match="bad magic number"):
        sstable.parse_table(bytes(table[:-1]) + b"\x00", "m.index")
    with pytest.raises(errors.DataLossError, match="too short"):
        sstable.parse_table(bytes(table[-20:]), "m.index")
    # The footer survives but a block lies past the truncated end.
    cut = bytes(table[:10]) + bytes(table[-sstable.FOOTER_SIZE:])
    with pytest.raises(errors.DataLossError, match="truncated"):
        sstable.parse_table(cut, "m.index")


def test_snappy_blocks_are_refused_clearly():
    table = _table()
    # Re-type the first data block as snappy, with a valid checksum, as a snappy writer would.
    size = sstable._handle(_index_block(bytes(table))[0][1], 0, "t")[1]
    table[size] = 1
    crc = crc32c.mask(crc32c.extend(crc32c.value(bytes(table[:size])), b"\x01"))
    table[size + 1:size + 5] = struct.pack("<I", crc)
    with pytest.raises(errors.UnimplementedError, match="snappy-compressed"):
        sstable.parse_table(bytes(table), "m.index")


def test_table_builder_streams_to_a_file(tmp_path):
    path = tmp_path / "t.index"
    entries = [(b"", b"h")] + [(b"k%05d" % i, b"v" * (i % 7)) for i in range(2000)]
    with open(path, "wb") as f:
        builder = sstable.TableBuilder(f, block_size=1024)
        for key, value in entries:
            builder.add(key, value)
        size = builder.finish()
    assert path.stat().st_size == size
    assert sstable.parse_table(path.read_bytes()) == entries
