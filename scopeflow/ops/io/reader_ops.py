"""TF1's readers: ``tf.TextLineReader``, ``tf.TFRecordReader``, ``tf.FixedLengthRecordReader``,
``tf.WholeFileReader``, ``tf.IdentityReader``.

A reader is a per-session resource, as a queue is (``queue_ops.session_resource``). Its
``read(queue)`` takes work (a file name) from a string queue when it has none, then produces
records from it one at a time, as TF's ``ReaderBase``: ``(key, value)`` with TF's keys
(``b"file.csv:2"``, the 1-based line number; ``b"file.tfr:19"``, the record's byte offset;
``b"file.bin:0"``, the record's index; the file name itself for whole files).
``read_up_to(queue, n)`` returns up to ``n`` records, fewer at the end of a file. When the
queue is closed and drained, reading raises the queue's ``OutOfRangeError``.
"""

from __future__ import annotations

import collections
import glob
import os
import threading

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, scalar_shape
from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io.tfrecord import COMPRESSIONS, DecompressedReader, RecordIterator
from scopeflow.ops.data_flow.queue_ops import SessionResource, _queue_of, session_resource

__all__ = ["matching_files", "ReaderBase", "TextLineReader", "TFRecordReader",
           "FixedLengthRecordReader", "WholeFileReader", "IdentityReader"]

ReaderReadV2 = collections.namedtuple("ReaderReadV2", ["key", "value"])
ReaderReadUpToV2 = collections.namedtuple("ReaderReadUpToV2", ["keys", "values"])


# ── The reader resource ──────────────────────────────────────────────────────────────
def _open(work: bytes):
    """Opens the file named by ``work``; TF's error class and text when it cannot."""
    path = work.decode("utf-8", "surrogateescape")
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the records generator
    except OSError as e:
        cls = {FileNotFoundError: errors.NotFoundError, NotADirectoryError:
               errors.NotFoundError, PermissionError: errors.PermissionDeniedError,
               IsADirectoryError: errors.FailedPreconditionError}.get(type(e),
                                                                      errors.UnknownError)
        raise cls(None, None, f"{path}; {e.strerror}") from None
    if os.path.isdir(path):
        f.close()
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    return f


def _key(work: bytes, n) -> bytes:
    return work + b":" + str(n).encode()


class _Reader(SessionResource):
    """One session's reader: the work in progress (a generator of records) and counts."""

    def __init__(self, name, records):
        self.name = name
        self.records = records  # records(work) -> iterator of (key, value); opens eagerly
        self.lock = threading.Lock()
        self.current = None
        self.produced = 0
        self.completed = 0

    def _start_work(self, ctx, queue_handle):
        element = _queue_of(queue_handle).dequeue(ctx, None)
        work = element[0] if isinstance(element, tuple) else element
        work = work.item() if isinstance(work, np.ndarray) else work
        if isinstance(work, str):
            work = work.encode()
        self.current = iter(self.records(work))

    def read(self, ctx, queue_handle, n=None):
        """One record (``n`` None), or up to ``n``: fewer when a file ends with some read."""
        keys, values = [], []
        want = 1 if n is None else n
        with self.lock:
            while len(keys) < want:
                if self.current is None:
                    self._start_work(ctx, queue_handle)
                record = next(self.current, None)
                if record is None:  # the end of this file
                    self.current = None
                    self.completed += 1
                    if keys and n is not None:
                        break
                    continue
                keys.append(record[0])
                values.append(record[1])
                self.produced += 1
        if n is None:
            return np.array(keys[0], dtype=object), np.array(values[0], dtype=object)
        return _strings(keys), _strings(values)

    def reset(self):
        with self.lock:
            self.current = None
            self.produced = self.completed = 0


def _strings(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _reader_of(handle) -> _Reader:
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _reader_handle(ctx, shared_name, records):
    """The handle of this session's reader of ``ctx.op`` (``shared_name`` shares it), made
    on first use; it reads each work unit with ``records(work)``."""
    h = np.empty((), dtype=object)
    h[()] = session_resource(ctx, shared_name, lambda name: _Reader(name, records))
    return h


def _reader_dtype(**attrs):
    return _dtypes.resource


# ── The record formats ───────────────────────────────────────────────────────────────
def _text_line_records(work, skip_header_lines):
    f = _open(work)

    def lines():
        with f:
            number = 0
            for line in f:
                number += 1
                if number <= skip_header_lines:
                    continue
                if line.endswith(b"\n"):
                    line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                yield _key(work, number), line
    return lines()


class _TFRecords:
    """A TFRecord file's ``(key, value)``s; a read after an error tries the same record
    again, as TF's reader does (``tfrecord.RecordIterator``)."""

    def __init__(self, work, compression_type):
        # TF's TFRecordReader reads the file unbuffered (its message for a negative count).
        self._work = work
        self._records = RecordIterator(_open(work), compression_type, buffered=False)

    def __iter__(self):
        return self

    def __next__(self):
        offset, data = next(self._records)
        return _key(self._work, offset), data


def _tfrecord_records(work, compression_type):
    return _TFRecords(work, compression_type)


def _fixed_length_records(work, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding):
    f = _open(work)
    name = work.decode("utf-8", "surrogateescape")

    def records():
        stream = DecompressedReader(f, encoding, name) if encoding else f
        try:
            data = b"".join(iter(lambda: stream.read(1 << 20), b""))
        finally:
            stream.close()
        body = data[header_bytes:max(header_bytes, len(data) - footer_bytes)]
        hop = hop_bytes or record_bytes
        index = 0
        while index * hop + record_bytes <= len(body):
            yield _key(work, index), body[index * hop:index * hop + record_bytes]
            index += 1
    return records()


def _whole_file_records(work):
    f = _open(work)

    def records():
        with f:
            yield work, f.read()
    return records()


def _identity_records(work):
    return iter([(work, work)])


# ── TextLineReaderV2, TFRecordReaderV2, FixedLengthRecordReaderV2, ... ────────────────
_RESOURCE_ATTRS = {"container": "", "shared_name": ""}


def _reader_op(op_type, kernel, attrs):
    """A reader op: no inputs; its output is the handle of a reader of the session."""
    return OpDef(op_type, shape=scalar_shape, dtype=_reader_dtype, kernel=kernel, attrs=attrs,
                 stateful=True, grad=NO_GRADIENT)


def _text_line_reader_kernel(ctx, *, skip_header_lines, container, shared_name):
    return _reader_handle(ctx, shared_name,
                          lambda work: _text_line_records(work, skip_header_lines))


text_line_reader_op = _reader_op("TextLineReaderV2", _text_line_reader_kernel,
                                 {"skip_header_lines": 0, **_RESOURCE_ATTRS})


def _tfrecord_reader_kernel(ctx, *, compression_type, container, shared_name):
    return _reader_handle(ctx, shared_name,
                          lambda work: _tfrecord_records(work, compression_type))


tfrecord_reader_op = _reader_op("TFRecordReaderV2", _tfrecord_reader_kernel,
                                {"compression_type": "", **_RESOURCE_ATTRS})


def _fixed_length_record_reader_kernel(ctx, *, header_bytes, record_bytes, footer_bytes,
                                       hop_bytes, container, shared_name, encoding):
    return _reader_handle(ctx, shared_name, lambda work: _fixed_length_records(
        work, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding))


fixed_length_record_reader_op = _reader_op(
    "FixedLengthRecordReaderV2", _fixed_length_record_reader_kernel,
    {"header_bytes": 0, "record_bytes": None, "footer_bytes": 0, "hop_bytes": 0,
     **_RESOURCE_ATTRS, "encoding": ""})


def _whole_file_reader_kernel(ctx, *, container, shared_name):
    return _reader_handle(ctx, shared_name, _whole_file_records)


whole_file_reader_op = _reader_op("WholeFileReaderV2", _whole_file_reader_kernel,
                                  _RESOURCE_ATTRS)


def _identity_reader_kernel(ctx, *, container, shared_name):
    return _reader_handle(ctx, shared_name, _identity_records)


identity_reader_op = _reader_op("IdentityReaderV2", _identity_reader_kernel, _RESOURCE_ATTRS)


# ── ReaderReadV2, ReaderReadUpToV2 ───────────────────────────────────────────────────
def _reader_read_shape(reader, queue):
    return [TensorShape([]), TensorShape([])]


def _reader_read_dtype(reader, queue):
    return [_dtypes.string, _dtypes.string]


def _reader_read_kernel(ctx, reader, queue):
    return _reader_of(reader).read(ctx, queue)


reader_read_op = OpDef("ReaderReadV2", shape=_reader_read_shape, dtype=_reader_read_dtype,
                       kernel=_reader_read_kernel, num_outputs=2, stateful=True,
                       grad=NO_GRADIENT, input_names=("reader_handle", "queue_handle"))


def _reader_read_up_to_shape(reader, queue, num_records):
    return [TensorShape([None]), TensorShape([None])]


def _reader_read_up_to_dtype(reader, queue, num_records):
    return [_dtypes.string, _dtypes.string]


def _reader_read_up_to_kernel(ctx, reader, queue, num_records):
    n = int(num_records)
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_records must be a positive integer, not {n}")
    return _reader_of(reader).read(ctx, queue, n)


reader_read_up_to_op = OpDef(
    "ReaderReadUpToV2", shape=_reader_read_up_to_shape, dtype=_reader_read_up_to_dtype,
    kernel=_reader_read_up_to_kernel, num_outputs=2, stateful=True, grad=NO_GRADIENT,
    input_names=("reader_handle", "queue_handle", "num_records"))


# ── ReaderNumRecordsProducedV2, ReaderNumWorkUnitsCompletedV2, ReaderResetV2 ──────────
def _int64_dtype(reader):
    return _dtypes.int64


def _reader_num_records_produced_kernel(ctx, reader):
    return np.array(_reader_of(reader).produced, dtype=np.int64)


reader_num_records_produced_op = OpDef(
    "ReaderNumRecordsProducedV2", shape=scalar_shape, dtype=_int64_dtype,
    kernel=_reader_num_records_produced_kernel, stateful=True, grad=NO_GRADIENT)


def _reader_num_work_units_completed_kernel(ctx, reader):
    return np.array(_reader_of(reader).completed, dtype=np.int64)


reader_num_work_units_completed_op = OpDef(
    "ReaderNumWorkUnitsCompletedV2", shape=scalar_shape, dtype=_int64_dtype,
    kernel=_reader_num_work_units_completed_kernel, stateful=True, grad=NO_GRADIENT)


def _no_outputs(*args, **attrs):
    return []


def _reader_reset_kernel(ctx, reader):
    _reader_of(reader).reset()


reader_reset_op = OpDef("ReaderResetV2", shape=_no_outputs, dtype=_no_outputs,
                        kernel=_reader_reset_kernel, num_outputs=0, stateful=True,
                        grad=NO_GRADIENT)


# ── ReaderSerializeStateV2, ReaderRestoreStateV2 (TF's readers do not support them) ───
def _reader_serialize_state_kernel(ctx, reader):
    raise errors.UnimplementedError(None, None, "Reader SerializeState")


reader_serialize_state_op = OpDef(
    "ReaderSerializeStateV2", shape=scalar_shape, dtype=lambda r: _dtypes.string,
    kernel=_reader_serialize_state_kernel, stateful=True, grad=NO_GRADIENT)


def _reader_restore_state_kernel(ctx, reader, state):
    raise errors.UnimplementedError(None, None, "Reader RestoreState")


reader_restore_state_op = OpDef(
    "ReaderRestoreStateV2", shape=_no_outputs, dtype=_no_outputs,
    kernel=_reader_restore_state_kernel, num_outputs=0, stateful=True, grad=NO_GRADIENT)


# ── MatchingFiles ────────────────────────────────────────────────────────────────────
def _matching_files_shape(pattern):
    if pattern.ndims is not None and pattern.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {pattern.ndims}")
    return TensorShape([None])


def _matching_files_kernel(ctx, pattern):
    names = set()
    for p in np.asarray(pattern, dtype=object).reshape(-1):
        p = p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else str(p)
        names.update(glob.glob(p))
    return _strings(sorted(n.encode("utf-8", "surrogateescape") for n in names))


matching_files_op = OpDef("MatchingFiles", shape=_matching_files_shape,
                          dtype=lambda p: _dtypes.string, kernel=_matching_files_kernel,
                          stateful=True, grad=NO_GRADIENT, input_names=("pattern",))
# stateful: the files are listed at each run, never folded into a constant of the plan.


def matching_files(pattern, name=None) -> Tensor:
    """The sorted names of the files matching the glob ``pattern`` (or any of several)."""
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "MatchingFiles") as scope:
        pattern = pattern if isinstance(pattern, Tensor) else convert_to_tensor(
            pattern, dtype=_dtypes.string, name="pattern")
        return matching_files_op.create([pattern], {}, scope).outputs[0]


# ── The Python classes ───────────────────────────────────────────────────────────────
def _queue_ref(queue):
    return queue if isinstance(queue, Tensor) else queue.queue_ref


class ReaderBase:
    """What every TF1 reader shares (TF's ``io_ops.ReaderBase``)."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = read_only("_reader_ref")
    supports_serialize = read_only("_supports_serialize")

    def read(self, queue, name=None):
        """The next record ``(key, value)``, taking a file name from ``queue`` as needed."""
        op = reader_read_op.create([self._reader_ref, _queue_ref(queue)], {},
                                   name or "ReaderReadV2")
        return ReaderReadV2(*op.outputs)

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` records ``(keys, values)``, fewer at the end of a file."""
        graph = self._reader_ref.graph
        with graph.as_default(), graph.name_scope(name or "ReaderReadUpToV2") as scope:
            n = num_records if isinstance(num_records, Tensor) else convert_to_tensor(
                num_records, dtype=_dtypes.int64, name="num_records")
            op = reader_read_up_to_op.create([self._reader_ref, _queue_ref(queue), n], {},
                                             scope)
        return ReaderReadUpToV2(*op.outputs)

    def num_records_produced(self, name=None):
        """How many records this reader has produced (an int64 scalar)."""
        return reader_num_records_produced_op.create(
            [self._reader_ref], {}, name or "ReaderNumRecordsProducedV2").outputs[0]

    def num_work_units_completed(self, name=None):
        """How many files (work units) this reader has finished."""
        return reader_num_work_units_completed_op.create(
            [self._reader_ref], {}, name or "ReaderNumWorkUnitsCompletedV2").outputs[0]

    def serialize_state(self, name=None):
        return reader_serialize_state_op.create([self._reader_ref], {},
                                                name or "ReaderSerializeStateV2").outputs[0]

    def restore_state(self, state, name=None):
        state = state if isinstance(state, Tensor) else convert_to_tensor(
            state, dtype=_dtypes.string)
        return reader_restore_state_op.create([self._reader_ref, state], {},
                                              name or "ReaderRestoreStateV2")

    def reset(self, name=None):
        """Forgets the work in progress and the counts."""
        return reader_reset_op.create([self._reader_ref], {}, name or "ReaderResetV2")


def _make_reader(op_def, attrs, name):
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or op_def.type) as scope:
        return op_def.create([], attrs, scope, graph=graph).outputs[0]


class TextLineReader(ReaderBase):
    """Records are the lines of each file (without ``\\n`` or ``\\r\\n``); keys are
    ``file:line`` (1-based, counting skipped header lines)."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_make_reader(text_line_reader_op, {
            "skip_header_lines": int(skip_header_lines or 0)}, name))


class TFRecordReader(ReaderBase):
    """Records of TFRecord files (``options``: ``TFRecordOptions`` or ``"GZIP"``/``"ZLIB"``);
    keys are ``file:byte offset``."""

    def __init__(self, name=None, options=None):
        super().__init__(_make_reader(tfrecord_reader_op, {
            "compression_type": _compression_type(options)}, name))


def _compression_type(options) -> str:
    if options is None:
        return ""
    kind = getattr(options, "compression_type", options)
    if isinstance(kind, int) or hasattr(kind, "value"):
        kind = {0: "", 1: "ZLIB", 2: "GZIP"}[int(getattr(kind, "value", kind))]
    kind = "" if kind in (None, "NONE") else str(kind)
    if kind and kind not in COMPRESSIONS:
        raise ValueError(f"Unsupported compression type: {kind}")
    return kind


class FixedLengthRecordReader(ReaderBase):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before
    ``footer_bytes``, one every ``hop_bytes`` (default: back to back); keys are
    ``file:record index``."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        super().__init__(_make_reader(fixed_length_record_reader_op, {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
            "encoding": _compression_type(encoding)}, name))


class WholeFileReader(ReaderBase):
    """One record per file: its whole contents, keyed by the file name."""

    def __init__(self, name=None):
        super().__init__(_make_reader(whole_file_reader_op, {}, name))


class IdentityReader(ReaderBase):
    """One record per work unit: the work string as both key and value."""

    def __init__(self, name=None):
        super().__init__(_make_reader(identity_reader_op, {}, name))
