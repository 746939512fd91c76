"""TFRecord framing: the container of TensorFlow's event files and record files (FORMATS
§2.2), optionally inside a ZLIB or GZIP stream.

Each record is ``uint64 LE length | uint32 LE masked CRC32C of those 8 bytes | data |
uint32 LE masked CRC32C of data``, with no file header and no padding. A compressed file
is that byte stream deflated as one zlib (``ZLIB``) or gzip (``GZIP``) stream.

Two readers: ``read_records``/``tf_record_iterator`` (scopeflow's own, for event files:
messages name the file and offset) and ``tf_records``/``RecordIterator`` (TF's public
readers: TF's ``RecordReader`` and ``ZlibInputStream`` rebuilt, so a damaged file gives
the same records, then the same error class and message, as TF 2.21;
tests/unit/io/test_tfrecord_damage.py checks some 230 damaged files against TF's answers).

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
import sys
import zlib

from scopeflow.framework.errors import DataLossError, InvalidArgumentError
from scopeflow.io.crc32c import masked_value

__all__ = ["encode_record", "TFRecordWriter", "tf_record_iterator", "TruncatedRecordError",
           "read_records", "tf_records", "open_tf_records", "RecordIterator", "CompressedWriter",
           "DecompressedReader", "RawInput", "COMPRESSIONS"]

_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_INT64 = 1 << 63
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


# TF's zlib input and output buffer sizes (ZlibCompressionOptions' defaults, which all of
# TF's TFRecord readers use): where in a damaged stream inflate() fails, and so how many
# records come out first, depends on them.
TF_INFLATE_BUFFER = 256 << 10


class _EndOfData(Exception):
    """TF's OutOfRange status inside a read (the data ends first); ``args[0]`` is TF's
    message, which a record cut short quotes."""


class DecompressedReader:
    """The inflated bytes of a zlib or gzip stream in the binary file ``raw``, produced as
    TF's ``ZlibInputStream`` produces them: ``inflate()`` fills an output buffer of
    ``TF_INFLATE_BUFFER`` bytes from an input buffer of as many, and runs only when the
    output is used up, so a damaged stream fails after the same bytes as in TF. A gzip
    member may be followed by another (what follows must be one: bytes that are not a
    gzip header fail); a zlib stream ends at its end (bytes after it are ignored). A
    stream cut short just ends. A damaged stream raises ``DataLossError`` with TF's
    message (``inflate() failed with error -3: <zlib's reason>``).

    ``read(n)`` reads as a file does; ``read_n(n)`` as TF's ``ReadNBytes``.
    """

    def __init__(self, raw, compression, name="<file>", buffer_size=TF_INFLATE_BUFFER):
        self._raw, self._bits, self.name = raw, COMPRESSIONS[compression], name
        self._size = buffer_size
        self._z = zlib.decompressobj(self._bits)
        self._in = b""              # read from raw, not yet taken by inflate (avail_in)
        self._out, self._pos = b"", 0  # the output buffer and its first unread byte
        self._ended = False         # a zlib stream past its end: inflate makes no progress

    def _inflate(self):
        """One call of TF's ``Inflate()``: a fresh output buffer from what input there is."""
        self._out, self._pos = b"", 0
        if self._ended:
            return
        try:
            self._out = self._z.decompress(self._in, self._size)
        except zlib.error as e:  # "Error -3 while decompressing data: <zlib's msg>"
            code = re.match(r"Error (-?\d+)", str(e))
            raise DataLossError(None, None, f"inflate() failed with error "
                                f"{code.group(1) if code else -3}: "
                                f"{str(e).rpartition(': ')[2]}") from None
        if self._z.eof:
            self._in = self._z.unused_data
            if self._bits == COMPRESSIONS["GZIP"]:
                self._z = zlib.decompressobj(self._bits)  # TF's inflateReset: another member
            else:
                self._ended = True
        else:
            self._in = self._z.unconsumed_tail

    def _fill(self):
        """Inflates until there is output; False at the end of the data (TF's
        ``ReadFromStream`` reading nothing new)."""
        while True:
            self._inflate()
            if self._out:
                return True
            want = self._size - len(self._in)
            more = self._raw.read(want) if want > 0 and not self._ended else b""
            if not more:
                return False
            self._in += more

    def _take(self, n, parts):
        """Up to ``n`` unread bytes of the output buffer, onto ``parts``; how many."""
        k = min(n, len(self._out) - self._pos)
        if parts is not None and k:
            parts.append(self._out[self._pos:self._pos + k])
        self._pos += k
        return k

    def read(self, n):
        parts, have = [], 0
        while have < n:
            if self._pos == len(self._out) and not self._fill():
                break
            have += self._take(n - have, parts)
        return b"".join(parts)

    def read_n(self, n):
        """TF's ``ZlibInputStream::ReadNBytes(n)``, ``n`` an int64: exactly ``n`` bytes, or
        ``_EndOfData("EOF reached")``. A negative ``n`` (a length field of 2**63 or more)
        takes what the output buffer holds and, as TF's size_t/int64 arithmetic does,
        returns it or (where the count wraps round) reads on to the end of the data.
        Memory grows only with the data: a count no bytes object can reach is read through
        and dropped, and one over ``_READ_CHUNK`` is first checked to be there."""
        parts = []
        n -= self._take(n if n >= 0 else len(self._out), parts)
        if n < -_INT64:
            n += 1 << 64
        if n > sys.maxsize:  # more than any bytes object: read on to the end, keeping none
            parts = None
        elif n > _READ_CHUNK and not self._holds(n):
            raise _EndOfData("EOF reached")
        while n > 0:
            if not self._fill():
                raise _EndOfData("EOF reached")
            n -= self._take(n, parts)
        return b"".join(parts)

    def _holds(self, n):
        """Whether ``n`` more bytes can be read, found by inflating them and dropping them,
        then going back (a damaged length over a stream of zeros must not gather
        gigabytes before the stream ends short). An inflate error raises as the read
        would. True, without looking, where ``raw`` cannot seek back."""
        try:
            if not self._raw.seekable():
                return True
            at = self._raw.tell()
        except (AttributeError, OSError, ValueError):
            return True
        state = (self._z.copy(), self._in, self._out, self._pos, self._ended)
        try:
            self.skip(n)
        except _EndOfData:
            return False
        self._raw.seek(at)
        self._z, self._in, self._out, self._pos, self._ended = state
        return True

    def skip(self, n):
        """TF's ``SkipNBytes``: reads ``n`` bytes and drops them (``_EndOfData`` first if
        the data ends)."""
        while n > 0:
            if self._pos == len(self._out) and not self._fill():
                raise _EndOfData("EOF reached")
            n -= self._take(n, None)

    def close(self):
        self._raw.close()


class RawInput:
    """An uncompressed file read as TF's input streams read it: ``BufferedInputStream``
    (``buffered``: ``TFRecordDataset``, ``tf_record_iterator``) or
    ``RandomAccessInputStream`` (``TFRecordReader``). They differ only in the message for a
    negative count."""

    def __init__(self, raw, buffered=True):
        self._raw, self._buffered = raw, buffered

    def read_n(self, n):
        """TF's ``ReadNBytes(n)``, ``n`` an int64: exactly ``n`` bytes, or
        ``_EndOfData("Read less bytes than requested")``. A count past what the file holds
        is refused before reading (TF allocates it first, and crashes on the largest)."""
        if n < 0:
            raise InvalidArgumentError(None, None, f"Can't read a negative number of bytes: "
                                       f"{n}" if self._buffered else
                                       "Cannot read negative number of bytes")
        data = _read_at_most(self._raw, n)
        if len(data) < n:
            raise _EndOfData("Read less bytes than requested")
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


def read_records(f, name="<file>", allow_truncated_tail=False):
    """Yields the data of each record of the binary file ``f``, checking both CRCs.

    A damaged record raises ``DataLossError`` (``TruncatedRecordError`` when the file ends
    inside it, unless ``allow_truncated_tail``, which stops quietly there). The message
    names the file and the record's byte offset. (``tf_records`` reads as TF does.)
    """
    message = _scopeflow_message
    offset = 0
    while True:  # (unlike TF, a partial header at the end is a truncated record here)
        header = f.read(12)
        if not header:
            return
        if len(header) < 12:
            if allow_truncated_tail:
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


# ── TF's RecordReader (tsl/lib/io/record_reader.cc) ──────────────────────────────────
def _suffix(offset):
    return " (Is this even a TFRecord file?)" if offset == 0 else ""


def _read_checksummed(stream, offset, n):
    """TF's ``ReadChecksummed``: ``n`` bytes and their masked CRC32C at ``offset``."""
    if n >= (1 << 64) - 5:  # n + 4 would pass SIZE_MAX
        raise DataLossError(None, None, "record size too large" + _suffix(offset))
    expected = n + 4
    # TF passes the size_t count to ReadNBytes(int64): 2**63 and more read as negative.
    result = stream.read_n(expected - (1 << 64) if expected >= _INT64 else expected)
    if len(result) != expected:
        if not result:
            raise _EndOfData("eof" + _suffix(offset))
        raise DataLossError(None, None, f"truncated record at {offset}{_suffix(offset)}")
    (crc,) = _CRC.unpack_from(result, n)
    if masked_value(result[:n]) != crc:
        raise DataLossError(None, None, f"corrupted record at {offset}{_suffix(offset)}")
    return result[:n]


def _read_record(stream, offset):
    """TF's ``ReadRecord``: the data of the record at ``offset`` (where ``stream`` stands);
    ``_EndOfData`` where its header is cut short (the end of the data)."""
    (length,) = _LEN.unpack(_read_checksummed(stream, offset, 8))
    try:
        return _read_checksummed(stream, offset + 12, length)
    except _EndOfData as e:
        raise DataLossError(None, None, f"truncated record at {offset}' failed with "
                            f"{e.args[0]}") from None


def tf_records(stream):
    """Yields ``(offset, data)`` for each record of ``stream`` (a ``RawInput`` or
    ``DecompressedReader``), ending and failing where TF's ``RecordReader`` does.

    The data ends quietly where a record's 12-byte header is cut short (an empty file, a
    file of 1..11 bytes). Then ``DataLossError``: ``corrupted record at <offset>`` (a
    length or data checksum; `` (Is this even a TFRecord file?)`` at offset 0),
    ``truncated record at <offset>' failed with <the stream's reason>`` (the data or
    footer cut short), ``record size too large`` (a length of 2**64 - 5 or more), an
    inflate error; and a length field of 2**63 .. 2**64 - 6 as TF's 64-bit arithmetic
    takes it (``InvalidArgumentError`` for an uncompressed file). No declared length is
    ever allocated. An error ends the generator (``TFRecordDataset`` then goes on to the
    next file, as TF's); ``RecordIterator`` retries instead.
    """
    offset = 0
    while True:
        try:
            data = _read_record(stream, offset)
        except _EndOfData:
            return
        yield offset, data
        offset += 12 + len(data) + 4


class RecordIterator:
    """TF's ``RecordIterator`` (``tf_record_iterator``) and ``TFRecordReader``'s reading of
    one file: an iterator of ``(offset, data)`` over the seekable binary file ``raw``, as
    ``tf_records``, except that after an error or the end of the data the next read tries
    the same record again from the start of the stream (TF's ``PositionInputStream``
    after a failed read): it fails again, or reads on where the file has since grown."""

    def __init__(self, raw, compression="", buffered=True):
        self._raw, self._compression, self._buffered = raw, compression, buffered
        self._stream = self._open()
        self.offset = 0
        self._failed = False

    def _open(self):
        if self._compression:
            return DecompressedReader(self._raw, self._compression)
        return RawInput(self._raw, self._buffered)

    def _position(self):
        self._failed = False
        self._raw.seek(0 if self._compression else self.offset)
        self._stream = self._open()
        if self._compression:
            self._stream.skip(self.offset)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            if self._failed:
                self._position()
            data = _read_record(self._stream, self.offset)
        except _EndOfData:
            self._failed = True
            raise StopIteration from None
        except BaseException:
            self._failed = True
            raise
        offset = self.offset
        self.offset += 12 + len(data) + 4
        return offset, data

    def close(self):
        self._raw.close()

    def __del__(self):
        raw = getattr(self, "_raw", None)
        if raw is not None:
            raw.close()


def open_tf_records(raw, compression="", buffered=True):
    """``tf_records`` of the binary file ``raw`` (``compression`` ``""``, ``"ZLIB"`` or
    ``"GZIP"``; ``buffered`` as ``RawInput``); closes ``raw`` when done or dropped."""
    stream = DecompressedReader(raw, compression) if compression else RawInput(raw, buffered)
    try:
        yield from tf_records(stream)
    finally:
        stream.close()


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
