"""TF1's static lookup tables: ``tf.lookup.StaticHashTable``, ``StaticVocabularyTable``,
their initializers (``KeyValueTensorInitializer``, ``TextFileInitializer``) and
``tf.tables_initializer``.

A table is a per-session resource, as a queue is (``queue_ops.session_resource``): the
``HashTableV2`` op makes it on its first run in a session, keyed by its ``shared_name``
(``hash_table_<uuid4>`` for a key/value initializer; a name built from the file and the
columns for a text file, so that two tables of one file share it, as in TF) and outputs a
handle (a 0-d object array holding the ``_HashTable``). Initializing
(``LookupTableImportV2``, ``InitializeTableFromTextFileV2``) fills it once; a later
initialization does nothing, whatever its entries, as TF 2.21's. The graphs are TF 2.21's
in TF1 mode op for op (names, types, attrs, the ``TABLE_INITIALIZERS`` collection), so
``StaticVocabularyTable``'s out-of-vocabulary buckets are TF's ``StringToHashBucketFast``
(farmhash ``Fingerprint64``) of the key, or of ``AsString`` of an integer key. A
``TextFileInitializer`` reads its file as TF's ``TextFileLineIterator`` (TF's messages for
a short file, a missing column, an unparsable field, an empty line).

Lookups keep the table as its keys sorted (``np.searchsorted``), vectorised for every key
type (bytes keys compare in C too). ``LookupTableExportV2`` gives the entries in key order;
TF's order is its hash map's, which no program may rely on.
"""

from __future__ import annotations

import re
import threading
import uuid

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
)
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, scalar_shape
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.control_flow.control_flow_ops import group, no_op
from scopeflow.ops.data_flow.queue_ops import SessionResource, session_resource
from scopeflow.ops.math.arithmetic_ops import add, cast, not_equal
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.strings.hash_ops import string_to_hash_bucket_fast
from scopeflow.ops.strings.string_ops import as_string

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "initialize_all_tables",
           "tables_initializer"]


# ── The table ────────────────────────────────────────────────────────────────────────
def _c_str(v) -> str:
    """A key or value as TF's ``StrCat`` prints it in an error message."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    return str(v)


class _HashTable(SessionResource):
    """One session's table: its keys sorted and unique, and their values (None until
    initialized)."""

    def __init__(self, name, key_dtype, value_dtype):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.lock = threading.Lock()
        self.keys = None
        self.values = None

    def _np(self, dtype):
        return object if dtype is _dtypes.string else dtype.as_numpy_dtype

    def initialize(self, keys, values):
        """TF's ``InitializableLookupTable::Initialize``: the first call fills the table
        (a key given twice must bring the same value); later ones do nothing."""
        keys = np.asarray(keys, dtype=self._np(self.key_dtype)).reshape(-1)
        values = np.asarray(values, dtype=self._np(self.value_dtype)).reshape(-1)
        with self.lock:
            if self.keys is not None:
                return  # TF 2.21 keeps the first entries, whatever the later ones are
            order = np.argsort(keys, kind="stable")
            sk, sv = keys[order], values[order]
            starts = np.ones(len(sk), dtype=bool)
            starts[1:] = sk[1:] != sk[:-1]
            first = np.maximum.accumulate(np.where(starts, np.arange(len(sk)), 0))
            clash = ~starts & (sv != sv[first])
            if clash.any():
                # TF inserts in order and keeps the first value: report the earliest clash
                j = np.flatnonzero(clash)[np.argmin(order[clash])]
                raise errors.FailedPreconditionError(
                    None, None, "HashTable has different value for same key. Key "
                    f"{_c_str(sk[j])} has {_c_str(sv[first[j]])} and trying to add value "
                    f"{_c_str(sv[j])}")
            self.keys, self.values = sk[starts], sv[starts]

    def _find(self, flat):
        if len(self.keys) == 0:
            return np.zeros(len(flat), dtype=bool), np.zeros(len(flat), dtype=np.intp)
        idx = np.minimum(np.searchsorted(self.keys, flat), len(self.keys) - 1)
        return np.asarray(self.keys[idx] == flat, dtype=bool), idx

    def _check_initialized(self):
        if self.keys is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")

    def find(self, keys, default):
        self._check_initialized()
        keys = np.asarray(keys, dtype=self._np(self.key_dtype))
        found, idx = self._find(keys.reshape(-1))
        out = np.where(found, self.values[idx] if len(self.keys) else default,
                       np.asarray(default, dtype=self._np(self.value_dtype)))
        return out.astype(self._np(self.value_dtype)).reshape(keys.shape)

    def size(self):
        return np.array(0 if self.keys is None else len(self.keys), dtype=np.int64)

    def export(self):
        if self.keys is None:
            raise errors.AbortedError(None, None, "HashTable is not initialized.")
        return self.keys.copy(), self.values.copy()


def _handle(table):
    h = np.empty((), dtype=object)
    h[()] = table
    return h


def _table_of(handle) -> _HashTable:
    return handle[()] if isinstance(handle, np.ndarray) else handle


# TF's registered HashTableV2 kernels (key type, value type), in the order its error lists
_KERNELS = [(k, v) for k, vs in (
    (_dtypes.string, (_dtypes.string, _dtypes.int64, _dtypes.int32, _dtypes.float32,
                      _dtypes.float64, _dtypes.bool_)),
    (_dtypes.int64, (_dtypes.string, _dtypes.int64, _dtypes.int32, _dtypes.float32,
                     _dtypes.float64)),
    (_dtypes.int32, (_dtypes.string, _dtypes.int32, _dtypes.float32, _dtypes.float64)),
) for v in vs]


def _dt(dtype):
    return "DT_" + {"float32": "FLOAT", "float64": "DOUBLE"}.get(dtype.name, dtype.name.upper())


def _check_kernel(op, attrs):
    """TF's error for a table type no CPU kernel implements (float or bool keys...)."""
    key_dtype, value_dtype = attrs["key_dtype"], attrs["value_dtype"]
    if (key_dtype, value_dtype) in _KERNELS:
        return
    shown = ", ".join(f'{a}="{v}"' if isinstance(v, str) else
                      f"{a}={str(v).lower()}" if isinstance(v, bool) else f"{a}={_dt(v)}"
                      for a, v in attrs.items())
    kernels = "".join(f"\n  device='CPU'; key_dtype in [{_dt(k)}]; value_dtype in [{_dt(v)}]"
                      for k, v in _KERNELS)
    raise errors.InvalidArgumentError(
        None, None, f"No OpKernel was registered to support Op '{op.type}' used by "
        f"{{{{node {op.name}}}}} with these attrs: [{shown}]\nRegistered devices: [CPU]\n"
        f"Registered kernels:{kernels}\n")


# Gradients as TF's lookup_grad.py: HashTableV2, the text-file initializer, Find and Size
# are NotDifferentiable (grad=None); Import, Export and AnonymousHashTable register nothing.
# ── HashTableV2, AnonymousHashTable ──────────────────────────────────────────────────
def _resource_dtype(*inputs, **attrs):
    return _dtypes.resource


def _hash_table_kernel(ctx, *, container, shared_name, use_node_name_sharing, key_dtype,
                       value_dtype):
    _check_kernel(ctx.op, {"shared_name": shared_name,
                           "use_node_name_sharing": use_node_name_sharing,
                           "container": container, "value_dtype": value_dtype,
                           "key_dtype": key_dtype})
    key = shared_name if shared_name or not use_node_name_sharing else ctx.op.name
    table = session_resource(ctx, key, lambda name: _HashTable(name, key_dtype, value_dtype))
    if (table.key_dtype, table.value_dtype) != (key_dtype, value_dtype):
        # a shared name already taken by a table of other types
        raise errors.InvalidArgumentError(
            None, None, f"Conflicting key/value dtypes {key_dtype.name}->{value_dtype.name} "
            f"with {table.key_dtype.name}-{table.value_dtype.name} for table {table.name}")
    return _handle(table)


hash_table_op = OpDef(
    "HashTableV2", shape=scalar_shape, dtype=_resource_dtype, kernel=_hash_table_kernel,
    attrs={"container": "", "shared_name": "", "use_node_name_sharing": False,
           "key_dtype": None, "value_dtype": None}, stateful=True, grad=None)


def _anonymous_hash_table_kernel(ctx, *, key_dtype, value_dtype):
    # a new table each run: TF deletes it with the run's last handle
    _check_kernel(ctx.op, {"value_dtype": value_dtype, "key_dtype": key_dtype})
    return _handle(_HashTable(ctx.op.name, key_dtype, value_dtype))


anonymous_hash_table_op = OpDef(
    "AnonymousHashTable", shape=scalar_shape, dtype=_resource_dtype,
    kernel=_anonymous_hash_table_kernel, attrs={"key_dtype": None, "value_dtype": None},
    stateful=True, grad=NO_GRADIENT)


# ── LookupTableImportV2, InitializeTableFromTextFileV2 ────────────────────────────────
def _no_outputs(*args, **attrs):
    return []


def _check_table_types(table, key_dtype, value_dtype):
    """TF's ``CheckTableDataTypes``: the op's types are the table's."""
    if table.key_dtype != key_dtype or table.value_dtype != value_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Conflicting key/value dtypes {key_dtype.name}->"
            f"{value_dtype.name} with {table.key_dtype.name}-{table.value_dtype.name}")


def _import_shape(handle, keys, values, *, Tin, Tout):
    handle.with_rank(0)
    if keys.ndims is not None and keys.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {keys.ndims}")
    if keys.ndims is not None and values.ndims is not None and values.ndims >= 1:
        k, v = keys.as_list()[0], values.as_list()[0]
        if k is not None and v is not None and k != v:
            raise ValueError(f"Dimensions must be equal, but are {k} and {v}")
    return []


def _import_kernel(ctx, handle, keys, values, *, Tin, Tout):
    table = _table_of(handle)
    _check_table_types(table, Tin, Tout)
    if np.size(keys) == 0 or np.size(values) == 0:
        raise errors.InvalidArgumentError(None, None,
                                          "keys and values cannot be empty tensors.")
    if np.shape(keys)[:1] != np.shape(values)[:1]:
        raise errors.InvalidArgumentError(
            None, None, "Expected shape " + str(list(np.shape(keys))) +
            " for value, got " + str(list(np.shape(values))))
    table.initialize(keys, values)


lookup_table_import_op = OpDef(
    "LookupTableImportV2", shape=_import_shape, dtype=_no_outputs, kernel=_import_kernel,
    attrs={"Tin": None, "Tout": None}, num_outputs=0, stateful=True, grad=NO_GRADIENT,
    input_names=("table_handle", "keys", "values"))


_INT = re.compile(rb"^\s*[+-]?[0-9]+\s*$")
_LIMITS = {_dtypes.int32: (-2 ** 31, 2 ** 31 - 1), _dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}


def _parse(token: bytes, dtype, line_number):
    """A field as TF's ``TextFileLineIterator::SetValue`` converts it."""
    if dtype is _dtypes.string:
        return token
    if dtype in _LIMITS:
        lo, hi = _LIMITS[dtype]
        if _INT.match(token) and lo <= int(token) <= hi:
            return int(token)
    elif dtype in (_dtypes.float32, _dtypes.float64):
        try:
            if b"_" not in token:
                return float(token)
        except ValueError:
            pass
    else:
        raise errors.InvalidArgumentError(None, None,
                                          f"Data type {dtype.name} not supported.")
    kind = {_dtypes.float32: "float", _dtypes.float64: "double"}.get(dtype, dtype.name)
    raise errors.InvalidArgumentError(
        None, None, f"Field {token.decode('utf-8', 'replace')} in line {line_number} is not "
        f"a valid {kind}.")


def _read_text_file(filename, key_index, value_index, vocab_size, delimiter, offset,
                    key_dtype, value_dtype):
    """The (keys, values) of a vocabulary file, line by line as TF's
    ``TextFileLineIterator``: lines split on ``delimiter``, a column, the whole line
    (``-2``) or the line number (``-1``, plus ``offset``); at most ``vocab_size``
    lines, which the file must have."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None,
                                   f"{filename}; No such file or directory") from None
    except OSError as e:
        raise errors.error_for_os_error(e)(None, None, f"{filename}; {e.strerror}") from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if vocab_size != -1:
        lines = lines[:vocab_size]
    keys, values, pos = [], [], 0
    for n, raw in enumerate(lines):
        pos += len(raw) + 1
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if not line:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid content in {filename}: empty line found at position "
                f"{min(pos, len(data))}.")
        tokens = line.split(delimiter) if key_index >= 0 or value_index >= 0 else []
        max_index = max(key_index, value_index)
        if max_index >= len(tokens) and max_index >= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {filename} line {n} "
                f"({line.decode('utf-8', 'replace')}) : expected at least {max_index + 1} got "
                f"{len(tokens)}")
        for index, dtype, out in ((key_index, key_dtype, keys),
                                  (value_index, value_dtype, values)):
            if index == -1:
                out.append(n + offset)
            else:
                v = _parse(line if index == -2 else tokens[index], dtype, n)
                # TF adds the offset to int32 fields too (not to int64 ones)
                out.append(v + offset if dtype is _dtypes.int32 else v)
    if vocab_size != -1 and len(lines) != vocab_size:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid vocab_size in {filename}: expected {vocab_size} but got "
            f"{len(lines)}")
    return keys, values


def _text_file_shape(handle, filename, **attrs):
    handle.with_rank(0)
    filename.with_rank(0)
    return []


def _text_file_kernel(ctx, handle, filename, *, key_index, value_index, vocab_size,
                      delimiter, offset):
    table = _table_of(handle)
    delimiter = delimiter.encode() if isinstance(delimiter, str) else bytes(delimiter)
    if len(delimiter) != 1:
        raise errors.InvalidArgumentError(None, None, "delimiter should be only 1 char")
    name = filename[()] if isinstance(filename, np.ndarray) else filename
    name = name.decode() if isinstance(name, bytes) else str(name)
    keys, values = _read_text_file(name, key_index, value_index, vocab_size, delimiter,
                                   offset, table.key_dtype, table.value_dtype)
    table.initialize(keys, values)


initialize_table_from_text_file_op = OpDef(
    "InitializeTableFromTextFileV2", shape=_text_file_shape, dtype=_no_outputs,
    kernel=_text_file_kernel,
    attrs={"key_index": None, "value_index": None, "vocab_size": -1, "delimiter": "\t",
           "offset": 0}, num_outputs=0, stateful=True, grad=None,
    input_names=("table_handle", "filename"))


# ── LookupTableFindV2, LookupTableSizeV2, LookupTableExportV2 ─────────────────────────
def _find_shape(handle, keys, default_value, *, Tin, Tout):
    handle.with_rank(0)
    return keys


def _find_dtype(handle, keys, default_value, *, Tin, Tout):
    return Tout


def _find_kernel(ctx, handle, keys, default_value, *, Tin, Tout):
    table = _table_of(handle)
    _check_table_types(table, Tin, Tout)
    return table.find(keys, default_value)


lookup_table_find_op = OpDef(
    "LookupTableFindV2", shape=_find_shape, dtype=_find_dtype, kernel=_find_kernel,
    attrs={"Tin": None, "Tout": None}, stateful=True, grad=None,
    input_names=("table_handle", "keys", "default_value"))


def _size_kernel(ctx, handle):
    return _table_of(handle).size()


lookup_table_size_op = OpDef(
    "LookupTableSizeV2", shape=scalar_shape, dtype=lambda h: _dtypes.int64,
    kernel=_size_kernel, stateful=True, grad=None, input_names=("table_handle",))


def _export_kernel(ctx, handle, *, Tkeys, Tvalues):
    return _table_of(handle).export()


lookup_table_export_op = OpDef(
    "LookupTableExportV2", shape=lambda h, **a: [TensorShape(None), TensorShape(None)],
    dtype=lambda h, *, Tkeys, Tvalues: [Tkeys, Tvalues], kernel=_export_kernel,
    attrs={"Tkeys": None, "Tvalues": None}, num_outputs=2, stateful=True, grad=NO_GRADIENT,
    input_names=("table_handle",))


# ── Initializers ─────────────────────────────────────────────────────────────────────
def _check_table_dtypes(table, key_dtype, value_dtype):
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got "
                        f"{key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but "
                        f"got {value_dtype}.")


class TableInitializerBase:
    """What a table's initializer gives it: the key and value types, and its init op."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The expected table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The expected table value dtype."""
        return self._value_dtype

    @property
    def _shared_name(self):
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table with ``keys`` and ``values`` (1-D tensors of one length)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with init_scope():
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """The ``LookupTableImportV2`` op filling ``table`` (in ``TABLE_INITIALIZERS``)."""
        _check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with name_scope(self._name, values=(table.resource_handle, self._keys,
                                            self._values)):
            init_op = lookup_table_import_op.create(
                [table.resource_handle, self._keys, self._values],
                {"Tin": self._keys.dtype.base_dtype, "Tout": self._values.dtype.base_dtype},
                "LookupTableImportV2")
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """What of a line a ``TextFileInitializer`` takes: a column (``>= 0``), the whole
    line, or the line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file, one entry a line: the key and the value are each a
    column (split on ``delimiter``), the whole line, or the line number (plus
    ``value_index_offset``)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for "
                             "tf.lookup.TextFileInitializer")
        key_dtype = _dtypes.as_dtype(key_dtype)
        value_dtype = _dtypes.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype),
                                   ("value", value_index, value_dtype)):
            self._check_index(what, index, dtype)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename_arg = filename
        with init_scope():  # TF's Asset: the path as a tensor, made once, here
            self._filename = convert_to_tensor(filename, _dtypes.string, name="asset_path")
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    @staticmethod
    def _check_index(what, index, dtype):
        """TF's checks of a column index against its type (messages as TF words them)."""
        if index < -2:
            end = "." if what == "key" else ""
            raise ValueError(f"`{what}_index` should be >= -2, received: {index}{end}")
        if index == TextFileIndex.LINE_NUMBER and dtype != _dtypes.int64:
            if what == "key":
                raise ValueError("`key_dtype` must be int64 if `key_index` is "
                                 f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
            raise ValueError("`value_dtype` must be int64 for `value_index` "
                             f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
        if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and \
                dtype != _dtypes.string:
            raise ValueError(f"`{what}_dtype` should be either integer or string for "
                             f"`{what}_index` {TextFileIndex.WHOLE_LINE}, received: {dtype}")

    def initialize(self, table):
        """The ``InitializeTableFromTextFileV2`` op filling ``table``."""
        _check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = self._filename
            init_op = initialize_table_from_text_file_op.create(
                [table.resource_handle, filename],
                {"key_index": self._key_index, "value_index": self._value_index,
                 "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                 "delimiter": self._delimiter, "offset": self._offset},
                "InitializeTableFromTextFileV2")
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self):
        # TF shares one table among the tables of one file read the same way
        parts = [self._filename_arg]
        if self._vocab_size:
            parts.append(f"{int(self._vocab_size)}")
        parts += [self._key_index, self._value_index]
        if self._offset:
            parts.append(self._offset)
        return "hash_table_" + "_".join(str(p) for p in parts)


# ── Tables ───────────────────────────────────────────────────────────────────────────
class LookupInterface:
    """A lookup table: its key and value types, ``lookup`` (``table[keys]``), ``size``."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table value dtype."""
        return self._value_dtype

    def __getitem__(self, keys):
        return self.lookup(keys)


def _keys_of(keys, key_dtype):
    """The dense keys of ``keys`` (a tensor or a ``SparseTensor``'s values), of the
    table's key type (TF's ``TypeError`` otherwise)."""
    if keys.dtype.base_dtype != key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype}, received: "
                        f"{keys.dtype}")
    return keys.values if isinstance(keys, SparseTensor) else keys


def _like_keys(keys, values):
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    return values


class StaticHashTable(LookupInterface):
    """A table that maps keys to values, filled once by its initializer; a missing key
    gets ``default_value``. In a session, run ``tf.tables_initializer()`` (or
    ``table.initializer``) before a lookup."""

    def __init__(self, initializer, default_value, name=None,
                 experimental_is_anonymous=False):
        self._initializer = initializer
        self._is_anonymous = experimental_is_anonymous
        if not experimental_is_anonymous:
            self._shared_name = initializer._shared_name or f"hash_table_{uuid.uuid4()}"
        self._name = name or "hash_table"
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(TensorShape([]))
        with init_scope():
            self._resource_handle = self._create_resource()
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        if get_default_graph()._state().cf_context is not None:
            # built in a cond or while body: the init op lives outside it, as TF's
            with init_scope():
                self._init_op = initializer.initialize(self)
        else:
            self._init_op = initializer.initialize(self)
        self._value_shape = self._default_value.shape

    def _create_resource(self):
        types = {"key_dtype": self._initializer.key_dtype,
                 "value_dtype": self._initializer.value_dtype}
        if self._is_anonymous:
            return anonymous_hash_table_op.create([], types, self._name).outputs[0]
        return hash_table_op.create([], {"shared_name": self._shared_name, **types},
                                    self._name).outputs[0]

    @property
    def name(self):
        """The table op's name (its last component)."""
        return self._table_name

    @property
    def resource_handle(self):
        """The ``HashTableV2`` op's handle."""
        return self._resource_handle

    @property
    def default_value(self):
        """The value of a missing key."""
        return self._default_value

    @property
    def initializer(self):
        """The op that fills the table."""
        return self._init_op

    def size(self, name=None):
        """The number of entries (int64 scalar; 0 before initialization)."""
        with name_scope(name, f"{self.name}_Size", [self._resource_handle]):
            return lookup_table_size_op.bind(self._resource_handle, name="LookupTableSizeV2")

    def lookup(self, keys, name=None):
        """Each key's value (``default_value`` for missing ones), of ``keys``' shape; a
        ``SparseTensor`` of keys gives one of values."""
        key_tensor = _keys_of(keys, self._key_dtype)
        with name_scope(name, f"{self.name}_Lookup",
                        (self._resource_handle, key_tensor, self._default_value)):
            values = lookup_table_find_op.create(
                [self._resource_handle, key_tensor, self._default_value],
                {"Tin": self._key_dtype, "Tout": self._value_dtype},
                "LookupTableFindV2").outputs[0]
        values.set_shape(key_tensor.shape)
        return _like_keys(keys, values)

    def export(self, name=None):
        """All keys and their values, two 1-D tensors."""
        with name_scope(name, f"{self.name}_Export", [self._resource_handle]):
            keys, values = lookup_table_export_op.create(
                [self._resource_handle],
                {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                "LookupTableExportV2").outputs
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return keys, values


class StaticVocabularyTable(LookupInterface):
    """Keys to int64 ids: a key in the initializer's table gets its id, any other one of
    ``num_oov_buckets`` ids after them, ``size + Fingerprint64(key) % num_oov_buckets``
    (an integer key hashed as its decimal string), as TF."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            lookup_key_dtype = _dtypes.as_dtype(lookup_key_dtype)
            supported = (_dtypes.int64, _dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError("Invalid `key_dtype`, expected one of (tf.int64, tf.string), "
                                f"but got {initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                kind = "integer" if lookup_key_dtype.is_integer else "non-integer"
                raise TypeError(f"Invalid `key_dtype`, expected {kind} but got "
                                f"{initializer.key_dtype}.")
            if initializer.value_dtype != _dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {_dtypes.int64} but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, default_value=-1,
                                          experimental_is_anonymous=experimental_is_anonymous)
            name = name or self._table.name
        else:
            lookup_key_dtype = _dtypes.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != _dtypes.string:
            raise TypeError("Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1]
        super().__init__(lookup_key_dtype, _dtypes.int64)

    @property
    def name(self):
        """The table's name."""
        return self._table_name

    @property
    def resource_handle(self):
        """The inner ``HashTableV2``'s handle (None without an initializer)."""
        return None if self._table is None else self._table.resource_handle

    @property
    def initializer(self):
        """The op that fills the table (a ``NoOp`` named ``init`` without one)."""
        if self._table is not None:
            return self._table.initializer
        with name_scope(None, "init"):
            return no_op()

    def size(self, name=None):
        """The vocabulary's size plus ``num_oov_buckets``."""
        with name_scope(name, f"{self.name}_Size"):
            if self._table:
                tsize = self._table.size()
            else:
                tsize = convert_to_tensor(0, dtype=_dtypes.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """Each key's id: its table value, else its bucket after the table's ids."""
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: "
                            f"{keys.dtype}")
        values = keys.values if isinstance(keys, SparseTensor) else keys
        if self._table and self._table.key_dtype.base_dtype == _dtypes.int64:
            values = cast(values, _dtypes.int64)
        with name_scope(name, f"{self.name}_Lookup"):
            strings = values if values.dtype.base_dtype == _dtypes.string else \
                as_string(values)
            buckets = string_to_hash_bucket_fast(strings, num_buckets=self._num_oov_buckets,
                                                 name="hash_bucket")
            if self._table:
                ids = self._table.lookup(values)
                buckets = add(buckets, self._table.size())
                ids = where_v2(not_equal(ids, self._table.default_value), ids, buckets)
            else:
                ids = buckets
        return _like_keys(keys, ids)


def tables_initializer(name="init_all_tables"):
    """One op that initializes every table of the default graph (a ``NoOp`` when there is
    none): the group of the ``TABLE_INITIALIZERS`` collection."""
    initializers = get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


def initialize_all_tables(name="init_all_tables"):
    """Deprecated name of :func:`tables_initializer`."""
    return tables_initializer(name)
