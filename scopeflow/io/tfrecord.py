"""TFRecord framing: the container of TensorFlow's event files (FORMATS §2.2).

Each record is ``uint64 LE length | uint32 LE masked CRC32C of those 8 bytes | data |
uint32 LE masked CRC32C of data``, with no file header and no padding.

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
import struct

from scopeflow.framework.errors import DataLossError
from scopeflow.io.crc32c import masked_value

__all__ = ["encode_record", "TFRecordWriter", "tf_record_iterator", "TruncatedRecordError"]

_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def encode_record(data: bytes) -> bytes:
    """One framed record holding ``data``."""
    header = _LEN.pack(len(data))
    return (header + _CRC.pack(masked_value(header)) + data +
            _CRC.pack(masked_value(data)))


class TFRecordWriter:
    """Appends framed records to a path or a binary file object (``write``, ``flush``,
    ``close``; a context manager)."""

    def __init__(self, path_or_file, mode="ab"):
        if hasattr(path_or_file, "write"):
            self._file, self._owned = path_or_file, False
        else:
            self._file, self._owned = open(os.fspath(path_or_file), mode), True  # noqa: SIM115

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
        offset = 0
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                if allow_truncated_tail:
                    return
                raise TruncatedRecordError(None, None, f"truncated record at offset {offset} "
                                           f"in {name}")
            (length,) = _LEN.unpack_from(header)
            (len_crc,) = _CRC.unpack_from(header, 8)
            if masked_value(header[:8]) != len_crc:
                raise DataLossError(None, None, f"corrupted record at offset {offset} in "
                                    f"{name}: length checksum mismatch")
            body = f.read(length + 4)
            if len(body) < length + 4:
                if allow_truncated_tail:
                    return
                raise TruncatedRecordError(None, None, f"truncated record at offset {offset} "
                                           f"in {name}")
            data = body[:length]
            (data_crc,) = _CRC.unpack_from(body, length)
            if masked_value(data) != data_crc:
                raise DataLossError(None, None, f"corrupted record at offset {offset} in "
                                    f"{name}: data checksum mismatch")
            yield data
            offset += 12 + length + 4
    finally:
        if owned:
            f.close()
