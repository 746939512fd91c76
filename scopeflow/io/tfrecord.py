"""TFRecord framing: the container of TensorFlow's event files and record files (FORMATS
§2.2), optionally inside a ZLIB or GZIP stream.

Each record is ``uint64 LE length | uint32 LE masked CRC32C of those 8 bytes | data |
uint32 LE masked CRC32C of data``, with no file header and no padding. A compressed file
is that byte stream deflated as one zlib (``ZLIB``) or gzip (``GZIP``) stream.

>>> import io
>>> buf = io.BytesIO()
>>> TFRecordWriter(buf).write(b"hello")
>>> buf.getvalue()[:8].hex(), len(buf.getvalue())
('0500000000000000', 21)
>>> list(tf_record_iterator(io.BytesIO(buf.getvalue())))
[b'hello']
"""

from __future__ import annotations

import os
import re
import struct
import zlib

from scopeflow.framework.errors import DataLossError
from scopeflow.io.crc32c import masked_value

__all__ = ["encode_record", "TFRecordWriter", "tf_record_iterator", "TruncatedRecordError",
           "read_records", "CompressedWriter", "DecompressedReader", "COMPRESSIONS"]

_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")
# Reads grow in chunks of at most this many bytes, so a damaged length field declaring an
# exabyte record fails as a truncated record instead of allocating the declared size.
_READ_CHUNK = 1 << 24
# zlib's window bits for each container: a zlib header, or a gzip header (+16).
COMPRESSIONS = {"ZLIB": zlib.MAX_WBITS, "GZIP": zlib.MAX_WBITS + 16}


def encode_record(data: bytes) -> bytes:
    """One framed record holding ``data``."""
    header = _LEN.pack(len(data))
    return (header + _CRC.pack(masked_value(header)) + data +
            _CRC.pack(masked_value(data)))


class CompressedWriter:
    """A binary file that deflates what is written to it into ``raw`` as TF's
    ``ZlibOutputBuffer`` does (zlib's defaults but ``mem_level`` 9, TF's; ``flush`` deflates
    with ``flush_mode``, ``close`` finishes the stream)."""

    def __init__(self, raw, compression, *, level=zlib.Z_DEFAULT_COMPRESSION,
                 window_bits=zlib.MAX_WBITS, mem_level=9, strategy=zlib.Z_DEFAULT_STRATEGY,
                 flush_mode=zlib.Z_NO_FLUSH):
        bits = window_bits + (16 if compression == "GZIP" else 0)
        self._raw = raw
        self._z = zlib.compressobj(level, zlib.DEFLATED, bits, mem_level, strategy)
        self._flush_mode = flush_mode
        self.closed = False

    def write(self, data):
        self._raw.write(self._z.compress(data))

    def flush(self):
        if self._flush_mode != zlib.Z_NO_FLUSH:
            self._raw.write(self._z.flush(self._flush_mode))
        self._raw.flush()

    def close(self):
        if not self.closed:
            self.closed = True
            self._raw.write(self._z.flush(zlib.Z_FINISH))
            self._raw.close()


class DecompressedReader:
    """A binary file reading the inflated bytes of a zlib or gzip stream in ``raw``
    (concatenated gzip members too, as zlib's ``inflate`` with TF's window bits)."""

    def __init__(self, raw, compression, name="<file>"):
        self._raw, self._bits, self.name = raw, COMPRESSIONS[compression], name
        self._z = zlib.decompressobj(self._bits)
        self._buf = bytearray()

    def _inflate(self, chunk, want):
        try:
            self._buf += self._z.decompress(chunk, max(want, 1 << 16))
        except zlib.error as e:  # "Error -3 while decompressing data: <zlib's msg>"
            code = re.match(r"Error (-?\d+)", str(e))
            raise DataLossError(None, None, f"inflate() failed with error "
                                f"{code.group(1) if code else -3}: "
                                f"{str(e).rpartition(': ')[2]}") from None

    def read(self, n):
        while len(self._buf) < n:
            if self._z.eof:  # the end of a gzip member: another may follow
                rest = self._z.unused_data or self._raw.read(1 << 16)
                if not rest:
                    break
                self._z = zlib.decompressobj(self._bits)
            else:
                rest = self._z.unconsumed_tail or self._raw.read(1 << 16)
                if not rest:
                    break  # the stream stops before its end: a truncated file
            self._inflate(rest, n - len(self._buf))
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def close(self):
        self._raw.close()


class TFRecordWriter:
    """Appends framed records to a path or a binary file object (``write``, ``flush``,
    ``close``; a context manager). ``compression`` ``"ZLIB"``/``"GZIP"`` deflates the stream
    (``zlib_options``: ``CompressedWriter``'s keywords)."""

    def __init__(self, path_or_file, mode="ab", compression="", **zlib_options):
        if hasattr(path_or_file, "write"):
            self._file, self._owned = path_or_file, False
        else:
            self._file, self._owned = open(os.fspath(path_or_file), mode), True  # noqa: SIM115
        if compression:
            self._file = CompressedWriter(self._file, compression, **zlib_options)
            self._owned = True

    def write(self, data: bytes):
        self._file.write(encode_record(bytes(data)))

    def flush(self):
        self._file.flush()

    def close(self):
        if self._owned and not self._file.closed:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class TruncatedRecordError(DataLossError):
    """The file ends inside a record (it may still be being written)."""


def _bytes_left(f):
    """How many bytes ``f`` holds past its position, or None when it cannot tell (a pipe,
    a decompressing reader). Taken from the file's size at this moment: a writer may still
    be appending, so the answer is only ever used to refuse a record, never to end a read.
    """
    try:
        if not f.seekable():
            return None
        fileno = f.fileno()
    except (AttributeError, OSError, ValueError):
        try:  # an in-memory file (BytesIO): its buffer's size
            return len(f.getbuffer()) - f.tell()
        except (AttributeError, ValueError):
            return None
    try:
        return os.fstat(fileno).st_size - f.tell()
    except OSError:
        return None


def _read_at_most(f, n):
    """Up to ``n`` bytes of ``f``, fewer only at its end; memory grows with what is read."""
    if n <= _READ_CHUNK:
        return f.read(n)
    left = _bytes_left(f)
    if left is not None and left < n:
        # A damaged length field declaring more than the file holds: fail as a truncated
        # record without reading (or allocating) anything.
        return b""
    parts, have = [], 0
    while have < n:
        part = f.read(min(n - have, _READ_CHUNK))
        if not part:
            break
        parts.append(part)
        have += len(part)
    return b"".join(parts)


def _scopeflow_message(kind, offset, name):
    if kind == "truncated":
        return f"truncated record at offset {offset} in {name}"
    what = "length" if kind == "length" else "data"
    return f"corrupted record at offset {offset} in {name}: {what} checksum mismatch"


def _tensorflow_message(kind, offset, name):
    """TF's ``RecordReader`` messages (a data checksum names the data's own offset)."""
    if kind == "truncated":
        return f"truncated record at {offset}' failed with Read less bytes than requested"
    if kind == "data":
        return f"corrupted record at {offset + 12}"
    return f"corrupted record at {offset}" + (" (Is this even a TFRecord file?)"
                                              if offset == 0 else "")


def read_records(f, name="<file>", allow_truncated_tail=False, tf_messages=False):
    """Yields the data of each record of the binary file ``f``, checking both CRCs.

    A damaged record raises ``DataLossError`` (``TruncatedRecordError`` when the file ends
    inside it, unless ``allow_truncated_tail``, which stops quietly there). The message
    names the file and the record's byte offset, or is TF's own (``tf_messages``, where as
    in TF a file ending inside a record's 12-byte header ends quietly).
    """
    message = _tensorflow_message if tf_messages else _scopeflow_message
    offset = 0
    while True:
        header = f.read(12)
        if not header:
            return
        if len(header) < 12:
            if allow_truncated_tail or tf_messages:  # TF reads a partial header as the end
                return
            raise TruncatedRecordError(None, None, message("truncated", offset, name))
        (length,) = _LEN.unpack_from(header)
        (len_crc,) = _CRC.unpack_from(header, 8)
        if masked_value(header[:8]) != len_crc:
            raise DataLossError(None, None, message("length", offset, name))
        body = _read_at_most(f, length + 4)
        if len(body) < length + 4:
            if allow_truncated_tail:
                return
            raise TruncatedRecordError(None, None, message("truncated", offset, name))
        data = body[:length]
        (data_crc,) = _CRC.unpack_from(body, length)
        if masked_value(data) != data_crc:
            raise DataLossError(None, None, message("data", offset, name))
        yield data
        offset += 12 + length + 4


def tf_record_iterator(path_or_file, allow_truncated_tail=False):
    """Yields the data of each record; checks both CRCs of every record.

    Raises ``DataLossError`` naming the file and byte offset on a corrupted record.
    A file that ends inside its last record (a writer still at work, or killed) raises
    ``TruncatedRecordError`` unless ``allow_truncated_tail``, which stops quietly there.
    """
    owned = not hasattr(path_or_file, "read")
    f = open(os.fspath(path_or_file), "rb") if owned else path_or_file  # noqa: SIM115
    name = os.fspath(path_or_file) if owned else getattr(f, "name", "<file>")
    try:
        yield from read_records(f, name, allow_truncated_tail)
    finally:
        if owned:
            f.close()
