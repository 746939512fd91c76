"""LevelDB-format tables (SSTables), as TensorFlow writes a checkpoint's ``.index`` file.

A table is a sorted list of ``(key, value)`` byte strings: data blocks of prefix-compressed
entries, an empty metaindex block, an index block that maps a separator key to each data
block, and a 48-byte footer ending in a magic number. Every block is followed by a
one-byte compression type and a masked CRC-32C (see ``FORMATS.md`` §1.2).

:func:`build_table` reproduces TensorFlow's bytes exactly (block size 256 KiB, restart
interval 16, LevelDB's shortened separator keys, no compression). :func:`parse_table`
reads tables written with any block size or restart interval and verifies every block's
checksum; compressed blocks and bad magic numbers are refused with a clear error.

>>> table = build_table([(b"", b"header"), (b"a", b"1"), (b"b", b"22")])
>>> len(table), table[-8:].hex()
(113, '57fb808b247547db')
>>> parse_table(table)
[(b'', b'header'), (b'a', b'1'), (b'b', b'22')]
"""

from __future__ import annotations

import struct

from scopeflow.framework import errors
from scopeflow.io import crc32c

__all__ = ["BLOCK_SIZE", "RESTART_INTERVAL", "MAGIC", "TableBuilder", "build_table",
           "parse_table"]

BLOCK_SIZE = 262144        # TF's tensor bundles: kTableBlockSize... 256 KiB
RESTART_INTERVAL = 16      # LevelDB's default, which TF keeps
MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_TRAILER_SIZE = 5
_NO_COMPRESSION = 0
_COMPRESSION_NAMES = {1: "snappy", 2: "zstd"}
_U32 = struct.Struct("<I")
_MAGIC_BYTES = struct.pack("<Q", MAGIC)


def encode_varint(n: int) -> bytes:
    """Unsigned LEB128, as LevelDB and protobuf write lengths."""
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# ── writing ──────────────────────────────────────────────────────────────────────────
class _BlockBuilder:
    """Prefix-compressed entries plus a restart array (LevelDB's BlockBuilder)."""

    __slots__ = ("_buf", "_restarts", "_counter", "_last_key", "_interval")

    def __init__(self, restart_interval: int):
        self._interval = restart_interval
        self.reset()

    def reset(self):
        self._buf = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    def empty(self) -> bool:
        return not self._buf

    def size_estimate(self) -> int:
        return len(self._buf) + 4 * len(self._restarts) + 4

    def add(self, key: bytes, value: bytes):
        shared = 0
        if self._counter < self._interval:
            last = self._last_key
            limit = min(len(last), len(key))
            while shared < limit and last[shared] == key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buf))
            self._counter = 0
        buf = self._buf
        buf += encode_varint(shared)
        buf += encode_varint(len(key) - shared)
        buf += encode_varint(len(value))
        buf += key[shared:]
        buf += value
        self._last_key = key
        self._counter += 1

    def finish(self) -> bytes:
        restarts = self._restarts
        return bytes(self._buf) + struct.pack(f"<{len(restarts) + 1}I", *restarts,
                                              len(restarts))


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key K with start <= K < limit (LevelDB's BytewiseComparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        byte = start[i]
        if byte < 0xFF and byte + 1 < limit[i]:
            return start[:i] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key``: its first non-0xff byte plus one, the rest cut off."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


class TableBuilder:
    """Writes a table to a binary file object, one ``add(key, value)`` at a time.

    Keys must come in strictly increasing bytewise order. ``finish()`` writes the
    metaindex and index blocks and the footer; nothing is buffered beyond one block.
    """

    def __init__(self, file, block_size: int = BLOCK_SIZE,
                 restart_interval: int = RESTART_INTERVAL):
        self._file = file
        self._offset = 0
        self._block_size = block_size
        self._data = _BlockBuilder(restart_interval)
        self._index = _BlockBuilder(1)
        self._last_key = None
        self._pending_handle = None    # handle of the last data block, awaiting its key

    def add(self, key: bytes, value: bytes):
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(f"Table keys must be added in increasing order: {key!r} after "
                             f"{self._last_key!r}")
        if self._pending_handle is not None:
            self._index.add(_shortest_separator(self._last_key, key), self._pending_handle)
            self._pending_handle = None
        self._data.add(key, value)
        self._last_key = key
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def _flush(self):
        if self._data.empty():
            return
        self._pending_handle = self._write_block(self._data)

    def _write_block(self, block: _BlockBuilder) -> bytes:
        raw = block.finish()
        block.reset()
        crc = crc32c.mask(crc32c.extend(crc32c.value(raw), b"\x00"))
        handle = encode_varint(self._offset) + encode_varint(len(raw))
        self._file.write(raw)
        self._file.write(b"\x00" + _U32.pack(crc))
        self._offset += len(raw) + _TRAILER_SIZE
        return handle

    def finish(self) -> int:
        """Writes the remaining blocks and the footer; returns the table's size in bytes."""
        self._flush()
        metaindex_handle = self._write_block(_BlockBuilder(RESTART_INTERVAL))
        if self._pending_handle is not None:
            self._index.add(_short_successor(self._last_key), self._pending_handle)
            self._pending_handle = None
        index_handle = self._write_block(self._index)
        handles = metaindex_handle + index_handle
        self._file.write(handles + bytes(40 - len(handles)) + _MAGIC_BYTES)
        self._offset += FOOTER_SIZE
        return self._offset


def build_table(entries, block_size: int = BLOCK_SIZE,
                restart_interval: int = RESTART_INTERVAL) -> bytes:
    """The bytes of a table holding ``entries`` (``(key, value)`` pairs, sorted by key)."""
    out = _Sink()
    builder = TableBuilder(out, block_size, restart_interval)
    for key, value in entries:
        builder.add(key, value)
    builder.finish()
    return bytes(out.buf)


class _Sink:
    __slots__ = ("buf",)

    def __init__(self):
        self.buf = bytearray()

    def write(self, data):
        self.buf += data


# ── reading ──────────────────────────────────────────────────────────────────────────
def _corrupt(name: str, what: str):
    return errors.DataLossError(None, None, f"Corrupted table {name}: {what}")


def _read_varint(buf, pos: int, end: int, name: str):
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _corrupt(name, "bad varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _handle(buf: bytes, pos: int, name: str):
    """Decodes a block handle (varint offset, varint size) at ``pos``."""
    offset, pos = _read_varint(buf, pos, len(buf), name)
    size, pos = _read_varint(buf, pos, len(buf), name)
    return offset, size


def _block_at(data: bytes, offset: int, size: int, name: str) -> bytes:
    """The contents of the block at ``offset``, checksum and compression type checked."""
    end = offset + size
    if end + _TRAILER_SIZE > len(data) - FOOTER_SIZE:
        raise _corrupt(name, f"block at offset {offset} (size {size}) runs past the end of "
                       f"the data ({len(data)} bytes in the file; truncated?)")
    contents = data[offset:end]
    kind = data[end]
    stored = _U32.unpack_from(data, end + 1)[0]
    actual = crc32c.mask(crc32c.extend(crc32c.value(contents), bytes([kind])))
    if stored != actual:
        raise _corrupt(name, f"block checksum mismatch in the block at offset {offset}")
    if kind != _NO_COMPRESSION:
        kind_name = _COMPRESSION_NAMES.get(kind)
        if kind_name is None:
            raise _corrupt(name, f"bad block type {kind} at offset {offset}")
        raise errors.UnimplementedError(
            None, None, f"Table {name} has {kind_name}-compressed blocks; scopeflow reads "
            "only uncompressed tables (what TensorFlow writes for checkpoints)")
    return contents


def _block_entries(block: bytes, name: str):
    """Yields (key, value) for every entry of an uncompressed block."""
    if len(block) < 4:
        raise _corrupt(name, "block too short")
    num_restarts = _U32.unpack_from(block, len(block) - 4)[0]
    end = len(block) - 4 * (num_restarts + 1)
    if num_restarts < 1 or end < 0:
        raise _corrupt(name, f"bad restart count {num_restarts}")
    pos = 0
    key = b""
    while pos < end:
        shared, pos = _read_varint(block, pos, end, name)
        unshared, pos = _read_varint(block, pos, end, name)
        value_len, pos = _read_varint(block, pos, end, name)
        if shared > len(key) or pos + unshared + value_len > end:
            raise _corrupt(name, "bad entry in block")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + value_len]
        pos += value_len


def parse_table(data: bytes, name: str = "<table>") -> list[tuple[bytes, bytes]]:
    """All ``(key, value)`` entries of the table ``data``, in key order.

    Verifies the magic number, every block's checksum and the key order; raises
    ``DataLossError`` naming ``name`` (the file) on any corruption or truncation.
    """
    data = bytes(data)
    if len(data) < FOOTER_SIZE:
        raise _corrupt(name, f"file is too short to be an sstable ({len(data)} bytes)")
    footer = len(data) - FOOTER_SIZE
    if data[-8:] != _MAGIC_BYTES:
        raise _corrupt(name, "not an sstable (bad magic number)")
    metaindex_end = _read_varint(data, _read_varint(data, footer, len(data), name)[1],
                                 len(data), name)[1]
    index = _block_at(data, *_handle(data, metaindex_end, name), name)
    entries = []
    last = None
    for _, handle in _block_entries(index, name):
        block = _block_at(data, *_handle(handle, 0, name), name)
        for key, value in _block_entries(block, name):
            if last is not None and key <= last:
                raise _corrupt(name, f"keys out of order ({key!r} after {last!r})")
            entries.append((key, value))
            last = key
    return entries
