"""``tf.data.experimental.make_csv_dataset``: batches of CSV rows as dicts of columns.

Built as TF builds it: the sorted files matching the pattern (shuffled with
``shuffle_seed`` when ``shuffle``), each read by a ``CsvDataset`` (in turn, TF's parallel
interleave of cycle ``num_parallel_reads``), the rows shuffled and repeated, batched
(``drop_remainder`` when repeating forever), and each batch mapped to an ``OrderedDict`` of
columns (and the label column apart). What TF infers in Python before it builds the graph,
it infers here the same way: the column names from the header row, and each column's type
from the first ``num_rows_for_inference`` rows (the least permissive of int32, int64,
float32, float64, string that holds every value).
"""

from __future__ import annotations

import collections
import csv
import glob as _glob
import gzip

import numpy as np

from scopeflow.data.dataset_ops import AUTOTUNE, Dataset
from scopeflow.data.experimental_ops import ignore_errors as _ignore_errors
from scopeflow.data.io_datasets import CsvDataset
from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.constant_op import constant

__all__ = ["make_csv_dataset"]

_ACCEPTABLE_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
                         dtypes.string)


# ── what TF infers in Python ─────────────────────────────────────────────────────────
def _file_names(file_pattern):
    """The files matching ``file_pattern`` (a pattern or a list of them), sorted."""
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = [n for entry in file_pattern for n in _glob.glob(entry)]
    else:
        names = _glob.glob(file_pattern)
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _fits(text, dtype):
    """Whether ``text`` parses as ``dtype`` (TF's ``_is_valid_*``, with NumPy's parsers)."""
    try:
        if dtype == dtypes.int32:
            return np.int32(text) == np.int64(text)
        if dtype == dtypes.int64:
            np.int64(text)
            return True
        return dtype.as_numpy_dtype(text) < np.inf
    except (ValueError, OverflowError):
        return False


_INFERENCE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


def _infer_type(text, na_value, prev):
    """The least permissive type that holds ``text`` and every earlier value (``prev``)."""
    if text in ("", na_value):
        return prev
    for i, dtype in enumerate(_INFERENCE_ORDER):
        if (dtype == dtypes.string or _fits(text, dtype)) and \
                (prev is None or prev in _INFERENCE_ORDER[:i + 1]):
            return dtype
    return prev


def _opener(compression_type, encoding):
    if compression_type is None:
        return lambda name: open(name, encoding=encoding, newline="")
    value = constant_value(compression_type) if isinstance(compression_type, Tensor) \
        else compression_type
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode()
    if value is None or value not in ("", "GZIP", "ZLIB"):
        raise ValueError(f"Received unknown `compression_type` {compression_type}. "
                         "Expected: GZIP, ZLIB or  (empty string).")
    if value == "ZLIB":
        raise ValueError(f"`compression_type` {compression_type} is not supported for "
                         "probing columns.")
    if value == "GZIP":
        return lambda name: gzip.open(name, "rt", encoding=encoding, newline="")
    return lambda name: open(name, encoding=encoding, newline="")


def _reader(f, delim, quote):
    return csv.reader(f, delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)


def _column_names(filenames, delim, quote, opener):
    """The header row of the first file; every file must have the same one."""
    names = None
    for name in filenames:
        with opener(name) as f:
            try:
                row = next(_reader(f, delim, quote))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it "
                                 "an empty file?") from None
        if names is None:
            names = row
        elif row != names:
            raise ValueError("All input CSV files should have the same column names in the "
                             f"header row. File {name} has different column names.")
    return names


def _rows(filenames, num_cols, delim, quote, header, opener):
    for name in filenames:
        with opener(name) as f:
            reader = _reader(f, delim, quote)
            row_num = 1
            if header:
                next(reader, None)
                row_num += 1
            for row in reader:
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has "
                                     f"{len(row)} number of fields. Expected: {num_cols}.")
                row_num += 1
                yield row


def _inferred_defaults(filenames, num_cols, delim, quote, na_value, header, num_rows,
                       select_columns, opener):
    """A one-element default per column, of the type its first ``num_rows`` rows hold."""
    columns = range(num_cols) if select_columns is None else select_columns
    types = [None] * len(columns)
    for i, row in enumerate(_rows(filenames, num_cols, delim, quote, header, opener)):
        if num_rows is not None and i >= num_rows:
            break
        types = [_infer_type(row[c], na_value, t) for c, t in zip(columns, types)]
    types = [t or dtypes.string for t in types]
    return [constant([0 if t != dtypes.string else ""], dtype=t) for t in types]


def _duplicates(values):
    ordered = sorted(values)
    return {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}


def _sorted_col_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > "
                                 f"0  and <= {len(column_names)}, which is the number of "
                                 "columns.")
            out.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the "
                             f"columns: {index.keys()}.")
        else:
            out.append(index[v])
    result = sorted(set(out))
    if len(result) != len(select_columns):
        # as TF's message, which looks for duplicates among the deduplicated indices
        raise ValueError("The `select_columns` argument contains duplicate columns: "
                         f"{_duplicates(result)}.")
    return result


# ── make_csv_dataset ─────────────────────────────────────────────────────────────────
def _columns_and_defaults(filenames, a):
    """TF's checks and inference: ``(column_names, column_defaults, select_columns)``."""
    names, defaults, select = a["column_names"], a["column_defaults"], a["select_columns"]
    opener = None
    if names is None or defaults is None:
        opener = _opener(a["compression_type"], a["encoding"])
    if names is None:
        if not a["header"]:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        names = _column_names(filenames, a["field_delim"], a["use_quote_delim"], opener)
    if len(names) != len(set(names)):
        raise ValueError("Either `column_names` argument or CSV header row contains "
                         f"duplicate column names: {_duplicates(names)}.")
    if select is not None:
        select = _sorted_col_indices(select, names)
    if defaults is not None:
        defaults = [constant([], dtype=x) if not isinstance(x, Tensor) and
                    x in _ACCEPTABLE_CSV_TYPES else x for x in defaults]
    else:
        defaults = _inferred_defaults(filenames, len(names), a["field_delim"],
                                      a["use_quote_delim"], a["na_value"], a["header"],
                                      a["num_rows_for_inference"], select, opener)
    if select is not None and len(defaults) != len(select):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the "
                         f"same length: `column_defaults` has length {len(defaults)}, "
                         f"`select_columns` has length {len(select)}.")
    if select is not None and len(names) > len(select):
        names = [names[i] for i in select]
    return names, defaults, select


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of rows of the CSV files matching ``file_pattern``: each an ``OrderedDict``
    from column name to a ``[batch]`` tensor, or ``(features, label)`` with ``label_name``.
    Column names come from the header row and types from the data unless given. Files and
    rows are shuffled (with ``shuffle_seed``) unless ``shuffle=False``; ``num_epochs=None``
    repeats forever (and then every batch is full).
    """
    args = dict(locals())
    num_parallel_reads = 1 if num_parallel_reads is None else num_parallel_reads
    prefetch_buffer_size = AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size
    filenames = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    names, defaults, select = _columns_and_defaults(filenames, args)
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. "
                         f"Received: {label_name}.")

    def read_file(filename):
        ds = CsvDataset(filename, record_defaults=defaults, field_delim=field_delim,
                        use_quote_delim=use_quote_delim, na_value=na_value,
                        select_cols=select, header=header, compression_type=compression_type)
        return ds.apply(_ignore_errors()) if ignore_errors else ds

    def to_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features

    # sloppy orders change nothing here: the files are read in their deterministic order
    dataset = dataset.interleave(read_file, cycle_length=num_parallel_reads, block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    return dataset.map(to_features).prefetch(prefetch_buffer_size)
