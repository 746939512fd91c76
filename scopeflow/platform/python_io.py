"""``tf.python_io``: TFRecord files (``TFRecordWriter``, ``tf_record_iterator``) with TF's
options (``TFRecordOptions``: no compression, ZLIB or GZIP).

The framing and the zlib streams are :mod:`scopeflow.io.tfrecord`'s; this module is TF's
public surface over them: TF's signatures, its error classes and messages (a damaged
record is ``tf.errors.DataLossError: corrupted record at 21``, a missing file
``NotFoundError``). Files are byte-compatible with TensorFlow's in both directions.
"""

from __future__ import annotations

import enum
import os
import zlib

from scopeflow.framework import errors
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.io import tfrecord

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "tf_record_iterator"]


class TFRecordCompressionType(enum.IntEnum):
    """The compression of a TFRecord file."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


_COMPRESSION_NAME = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
                     TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """How a TFRecord file is compressed: the type (``"ZLIB"``, ``"GZIP"``, ``""`` or a
    ``TFRecordCompressionType``) and zlib's parameters (``None``: TF's defaults)."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                            TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        if compression_type is not None and not isinstance(compression_type, str):
            compression_type = TFRecordCompressionType(compression_type)
        elif isinstance(compression_type, str) and compression_type not in ("", "ZLIB",
                                                                               "GZIP"):
            raise ValueError(f'Not a valid compression_type: "{compression_type}"')
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``""``, ``"ZLIB"`` or ``"GZIP"`` for options, a compression type or ``None``."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, str):
            if options not in ("", "ZLIB", "GZIP"):
                raise ValueError(f'Not a valid compression_type: "{options}"')
            return options
        return _COMPRESSION_NAME[TFRecordCompressionType(options)]

    def _zlib_options(self):
        """The options that change the bytes written, as CompressedWriter's keywords."""
        chosen = {"level": self.compression_level, "window_bits": self.window_bits,
                  "mem_level": self.mem_level, "strategy": self.compression_strategy,
                  "flush_mode": self.flush_mode}
        if self.compression_method not in (None, zlib.DEFLATED):
            raise errors.InvalidArgumentError(
                None, None, f"Unsupported compression_method {self.compression_method}: "
                "zlib has only Z_DEFLATED (8)")
        return {k: v for k, v in chosen.items() if v is not None}


def _options(options):
    if options is None or isinstance(options, TFRecordOptions):
        return options or TFRecordOptions()
    return TFRecordOptions(options)


def _os_error(e, path, reading):
    """An OSError opening ``path`` as TF's error (its FileSystem messages)."""
    path = os.fspath(path)
    what = "read" if reading else "write"
    return errors.file_error(e, path, f"Could not {what} {path}: {e.strerror or e}")


class TFRecordWriter:
    """Writes records to a new TFRecord file ``path`` (replacing one there), compressed as
    ``options`` says; a context manager."""

    def __init__(self, path, options=None):
        opts = _options(options)
        compression = TFRecordOptions.get_compression_type_string(opts)
        zopts = opts._zlib_options() if compression else {}
        try:
            raw = open(os.fspath(path), "wb")  # noqa: SIM115 - closed by close()
        except OSError as e:
            raise _os_error(e, path, reading=False) from None
        self._writer = tfrecord.TFRecordWriter(raw, compression=compression, **zopts)
        self._raw = raw
        self._closed = False

    def write(self, record):
        """Appends one record (bytes; a str is written UTF-8 encoded)."""
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._writer.write(record)

    def flush(self):
        """Writes what is buffered to the file."""
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._writer.flush()

    def close(self):
        """Finishes the file (and its compressed stream); closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self._writer.close()
            if not self._raw.closed:
                self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields each record of the TFRecord file ``path`` (decompressed as ``options`` says).

    A damaged record (a checksum that does not match, a file ending inside a record, a
    length that is more than the file holds, a damaged compressed stream) raises
    ``DataLossError``, after the records before it, as TF's does (``tfrecord.tf_records``);
    a file ending inside a record's 12-byte header just ends. After an error (or the end)
    the next ``next`` tries that record again."""
    compression = TFRecordOptions.get_compression_type_string(_options(options))
    try:
        raw = open(os.fspath(path), "rb")  # noqa: SIM115 - closed by RecordIterator
    except OSError as e:
        raise _os_error(e, path, reading=True) from None
    return _Records(raw, compression)


class _Records:
    """The data of each record, as TF's ``RecordIterator``: after an error (or the end) the
    next ``next`` reads the same record again (a file still being written reads on)."""

    def __init__(self, raw, compression):
        self._records = tfrecord.RecordIterator(raw, compression, buffered=True)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._records)[1]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
