"""``tf.data.experimental``'s readers and writers of outside storage: ``SqlDataset`` (the
rows of an SQLite query, on the standard library's ``sqlite3``) and ``TFRecordWriter`` (an op
writing a dataset of strings to a TFRecord file)."""

from __future__ import annotations

import csv
import io
import sqlite3

import numpy as np

from scopeflow.data import sources
from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.iterator_ops import _captured_env
from scopeflow.data.pipeline import End, PyIterator
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.io import tfrecord

__all__ = ["SqlDataset", "TFRecordWriter", "CsvDataset"]


def _text(value) -> str:
    v = np.asarray(value, dtype=object).reshape(-1)[0]
    return v.decode() if isinstance(v, bytes) else str(v)


# ── SqlDataset ───────────────────────────────────────────────────────────────────────
class SqlDataset(Dataset):
    """The rows of ``query`` on the SQLite database ``data_source_name`` (``driver_name``
    ``"sqlite"``), each a tuple of ``output_types`` scalars (strings as bytes; a NULL is 0,
    0.0 or empty, as SQLite's column readers give it).

    >>> ds = tf.data.experimental.SqlDataset("sqlite", "/tmp/db.sqlite",
    ...     "SELECT name, age FROM people", (tf.string, tf.int32))
    """

    def __init__(self, driver_name, data_source_name, query, output_types):
        with name_scope("SqlDataset"):
            self._args = [convert_to_tensor(v, dtype=dtypes.string, name=n) for v, n in
                          ((driver_name, "driver_name"), (data_source_name,
                                                          "data_source_name"),
                           (query, "query"))]
        self._structure = st.map_structure(lambda t: st.Spec(t, []), output_types)

    def _captures(self):
        return list(self._args)

    def _iterator(self, state, env):
        driver, source, query = (_text(env[t]) for t in self._args)
        if driver != "sqlite":
            raise errors.InvalidArgumentError(
                None, None, f"The database type, {driver}, is not supported by SqlDataset. "
                "The set of supported databases is: {'sqlite'}.")
        return _SqlIterator(source, query, st.specs(self._structure))


class _SqlIterator(PyIterator):
    def __init__(self, source, query, specs):
        self.source, self.query, self.specs = source, query, specs
        self.rows = None

    def _start(self):
        try:
            connection = sqlite3.connect(f"file:{self.source}?mode=ro", uri=True)
            cursor = connection.execute(self.query)
        except sqlite3.Error as e:
            raise errors.FailedPreconditionError(
                None, None, f"Sqlite error: {e} for query: {self.query}") from None
        if cursor.description is None or len(cursor.description) != len(self.specs):
            n = 0 if cursor.description is None else len(cursor.description)
            raise errors.InvalidArgumentError(
                None, None, f"The number of columns in query ({n}) must match the number of "
                f"elements in output_types ({len(self.specs)}).")
        self.rows = cursor

    def next(self):
        if self.rows is None:
            self._start()
        row = self.rows.fetchone()
        if row is None:
            raise End
        return [_column(v, s.dtype) for v, s in zip(row, self.specs)]


def _column(value, dtype):
    if dtype == dtypes.string:
        if value is None:
            return np.asarray(b"", dtype=object)
        return np.asarray(value if isinstance(value, bytes) else str(value).encode(),
                          dtype=object)
    if value is None:
        value = 0
    if dtype == dtypes.bool:
        return np.asarray(int(value) != 0)
    if dtype.is_floating:
        return np.asarray(float(value), dtype=dtype.as_numpy_dtype)
    return np.asarray(int(value)).astype(dtype.as_numpy_dtype)


# ── TFRecordWriter ───────────────────────────────────────────────────────────────────
def _no_outputs(*args, **attrs):
    return []


def _write_kernel(run, filename, compression, *captured, dataset):
    env = _captured_env(dataset, captured)
    iterator = dataset._make_iterator(run.state, env)
    kind = _text(compression).upper()
    with tfrecord.TFRecordWriter(_text(filename), mode="wb", compression=kind) as writer:
        while True:
            try:
                (record,) = iterator.next()
            except End:
                break
            record = np.asarray(record, dtype=object).reshape(-1)[0]
            writer.write(record if isinstance(record, bytes) else str(record).encode())


write_op = OpDef("DatasetToTFRecord", shape=_no_outputs, dtype=_no_outputs, stateful=True,
                 kernel=_write_kernel, grad=NO_GRADIENT, attrs={"dataset": None})


class TFRecordWriter:
    """Writes a dataset of scalar strings to a TFRecord file: ``write(dataset)`` is the op
    that does it when run."""

    def __init__(self, filename, compression_type=None):
        self._filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        self._compression = convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                              name="compression_type")

    def write(self, dataset):
        spec = dataset._structure
        if not isinstance(spec, st.Spec) or spec.dtype != dtypes.string:
            raise TypeError("Invalid `dataset`. Expected a`dataset` that produces scalar "
                            f"`tf.string` elements, but got a dataset which produces elements "
                            f"with shapes {st.output_shapes(spec)} and types "
                            f"{st.output_types(spec)}.")
        if spec.shape.ndims not in (None, 0):
            raise TypeError("Invalid `dataset`. Expected a`dataset` that produces scalar "
                            f"`tf.string` elements, but got a dataset which produces elements "
                            f"with shapes {spec.shape} and types {spec.dtype!r}.")
        inputs = [self._filename, self._compression] + dataset._captures()
        return write_op.create(inputs, {"dataset": dataset}, name="DatasetToTFRecord")


# ── CsvDataset ───────────────────────────────────────────────────────────────────────
_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


class CsvDataset(Dataset):
    """The records of CSV files, each a tuple of scalars typed by ``record_defaults`` (a
    default value per column, or a dtype for a column that must be present). A quoted field
    may hold the delimiter, ``""`` and line breaks; an empty field or ``na_value`` takes its
    column's default."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None):
        with name_scope("CsvDataset"):
            self._filenames = convert_to_tensor(filenames, dtype=dtypes.string,
                                                name="filenames")
            self._defaults = []
            for i, d in enumerate(record_defaults):
                if isinstance(d, dtypes.DType):
                    d = convert_to_tensor(np.zeros([0], d.as_numpy_dtype) if d != dtypes.string
                                          else np.zeros([0], object), dtype=d)
                else:
                    d = convert_to_tensor(d, name=f"record_default_{i}")
                if d.dtype.base_dtype not in _CSV_TYPES:
                    raise TypeError(f"Unsupported type for record_defaults: {d.dtype}")
                self._defaults.append(d)
        self._compression = (compression_type or "").upper()
        self._header = bool(header)
        self._delim = field_delim
        self._quote = bool(use_quote_delim)
        self._na = na_value
        cols = None
        if select_cols is not None:
            cols = [int(c) for c in select_cols]
        elif exclude_cols is not None:
            excluded = {int(c) for c in exclude_cols}
            cols = ("exclude", excluded)
        self._cols = cols
        self._structure = tuple(st.Spec(d.dtype, []) for d in self._defaults)

    def _captures(self):
        return [self._filenames, *self._defaults]

    def _iterator(self, state, env):
        defaults = [np.asarray(env[d]).reshape(-1) for d in self._defaults]
        return _CsvIterator(self, _names_of(env[self._filenames]), defaults)


def _names_of(value):
    return [v.decode() if isinstance(v, bytes) else str(v)
            for v in np.asarray(value, dtype=object).reshape(-1)]


def _csv_records(text, delim, quote):
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim,
                        quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
                        doublequote=True, quotechar='"' if quote else None, strict=False)
    for row in reader:
        if row:
            yield row


class _CsvIterator(PyIterator):
    def __init__(self, spec, files, defaults):
        self.spec, self.files, self.defaults = spec, files, defaults
        self.records = None
        self.file = 0

    def _open(self, path):
        data = sources._read_bytes(path, self.spec._compression).decode("latin-1")
        records = _csv_records(data, self.spec._delim, self.spec._quote)
        if self.spec._header:
            next(records, None)
        return records

    def next(self):
        while True:
            if self.records is None:
                if self.file >= len(self.files):
                    raise End
                self.records = self._open(self.files[self.file])
                self.file += 1
            row = next(self.records, None)
            if row is None:
                self.records = None
                continue
            return self._parse(row)

    def _parse(self, row):
        spec, n = self.spec, len(self.defaults)
        cols = spec._cols
        if cols is None:
            if len(row) != n:
                raise errors.InvalidArgumentError(
                    None, None, f"Expect {n} fields but have {len(row)} in record")
            fields = row
        elif isinstance(cols, tuple):
            fields = [f for i, f in enumerate(row) if i not in cols[1]]
        else:
            if max(cols) >= len(row):
                raise errors.InvalidArgumentError(
                    None, None, f"Expect {max(cols) + 1} fields but have {len(row)} in record")
            fields = [row[c] for c in cols]
        if len(fields) != n:
            raise errors.InvalidArgumentError(
                None, None, f"Expect {n} fields but have {len(fields)} in record")
        return [self._field(i, f) for i, f in enumerate(fields)]

    def _field(self, i, text):
        dtype = self.spec._defaults[i].dtype.base_dtype
        default = self.defaults[i]
        if text == "" or text == self.spec._na:
            if default.size == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Field {i} is required but missing in record!")
            value = default[0]
            return np.asarray(value, dtype=object) if dtype == dtypes.string else \
                np.asarray(value, dtype=dtype.as_numpy_dtype)
        if dtype == dtypes.string:
            return np.asarray(text.encode("latin-1"), dtype=object)
        try:
            if dtype.is_integer:
                value = int(text.strip())
                info = np.iinfo(dtype.as_numpy_dtype)
                if not info.min <= value <= info.max:
                    raise ValueError(text)
            else:
                value = float(text)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Field {i} in record is not a valid {dtype.name}: {text}") from None
        return np.asarray(value, dtype=dtype.as_numpy_dtype)
