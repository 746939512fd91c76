"""``tf.data`` sources, each one block: its ``Dataset`` (graph side), then its run-time
iterator. Tensors (``from_tensors``, ``from_tensor_slices``), ``range``, ``zip``,
``from_generator``, ``list_files``, and the file readers (``TextLineDataset``,
``TFRecordDataset``, ``FixedLengthRecordDataset``)."""

from __future__ import annotations

import glob as _glob
import io
import sys

import numpy as np

from scopeflow.data import composite
from scopeflow.data import structure as st
from scopeflow.data.buffers import _Shuffle
from scopeflow.data.dataset_ops import (
    Dataset,
    _flatten_up_to,
    _scalar_int,
    _structure_like,
    _unique,
    builds,
)
from scopeflow.data.pipeline import End, PyIterator
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import tfrecord
from scopeflow.ragged.ragged_tensor import RaggedTensor, RaggedTensorValue

__all__ = ["TextLineDataset", "TFRecordDataset", "FixedLengthRecordDataset"]


def _as_tensors(tensors, what):
    """``tensors`` as graph tensors (packed as given) and the flat list of them, for
    sources that carry dense tensors only."""
    packed, leaves, flat = _as_elements(tensors)
    if len(flat) != len(leaves):
        raise NotImplementedError(f"tf.data.Dataset.{what} of a SparseTensor or RaggedTensor")
    return packed, flat


def _as_elements(tensors):
    """``tensors`` as graph values (packed as given), the leaf specs and the component
    tensors the source captures. SparseTensor(Value)s and RaggedTensors stay composite."""
    if isinstance(tensors, list):
        # As TF: a list is one tensor (packed), a tuple is a structure.
        leaves = [convert_to_tensor(tensors, name="component_0")]
        packed = leaves[0]
    else:
        # As TF's tf.data nest: only tuples and dicts nest; a list inside is one tensor too.
        leaves = [_as_leaf(x, f"component_{i}")
                  for i, x in enumerate(_data_leaves(tensors))]
        packed = _data_pack(tensors, iter(leaves))
    flat = [t for x in leaves for t in st.components_of(x)]
    return packed, [st.spec_of(x) for x in leaves], flat


def _as_leaf(value, name):
    if value is None or hasattr(value, "_data_spec"):
        return value  # None (TF's NoneTensorSpec: no tensor) or datasets batched
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if isinstance(value, RaggedTensorValue):
        return RaggedTensor.from_nested_row_splits(value.flat_values,
                                                   value.nested_row_splits)
    if isinstance(value, (SparseTensor, RaggedTensor)):
        return value
    return convert_to_tensor(value, name=name)


def _data_leaves(value):
    if isinstance(value, SparseTensorValue):  # a namedtuple, but one (sparse) leaf
        return [value]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _data_leaves(value[k])]
    if isinstance(value, tuple):
        return [x for v in value for x in _data_leaves(v)]
    return [value]


def _data_pack(structure, flat):
    if isinstance(structure, SparseTensorValue):
        return next(flat)
    if isinstance(structure, dict):
        packed = {k: _data_pack(structure[k], flat) for k in sorted(structure)}
        return type(structure)((k, packed[k]) for k in structure) \
            if type(structure) is not dict else {k: packed[k] for k in structure}
    if isinstance(structure, tuple):
        items = [_data_pack(v, flat) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    return next(flat)


# ── from_tensors ─────────────────────────────────────────────────────────────────────
@builds("from_tensors")
class _Tensors(Dataset):
    def __init__(self, tensors):
        with name_scope("TensorDataset"):
            packed, self._leaves, self._flat = _as_elements(tensors)
        self._structure = _structure_like(packed, self._leaves)

    def _captures(self):
        return list(self._flat)

    def _iterator(self, state, env):
        return _OnceIterator(st.from_components(self._leaves, [env[t] for t in self._flat]))


class _OnceIterator(PyIterator):
    def __init__(self, components):
        self.components = components
        self.done = False

    def next(self):
        if self.done:
            raise End
        self.done = True
        return list(self.components)

    def get_state(self):
        return {"done": self.done}

    def set_state(self, state):
        self.done = bool(state["done"])


# ── from_tensor_slices ───────────────────────────────────────────────────────────────
@builds("from_tensor_slices")
class _TensorSlices(Dataset):
    def __init__(self, tensors):
        with name_scope("TensorSliceDataset"):
            packed, leaves, self._flat = _as_elements(tensors)
        if not leaves:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        first = None
        for s in leaves:
            if s.shape.ndims == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            n = s.shape.as_tuple()[0] if s.shape.ndims else None
            if first is not None and n is not None and first != n:
                raise ValueError(f"Dimensions {first} and {n} are not compatible")
            first = n if first is None else first
        self._leaves = leaves
        self._structure = _structure_like(packed, [composite.unbatched_spec(s) for s in leaves])

    def _captures(self):
        return list(self._flat)

    def _iterator(self, state, env):
        values = st.from_components(self._leaves, [env[t] for t in self._flat])
        values = [v if composite.is_composite(s) else np.asarray(v)
                  for s, v in zip(self._leaves, values)]
        n = {composite.nrows(v) for v in values} - {None}
        if len(n) > 1:
            raise errors.InvalidArgumentError(
                None, None, "All components must have the same size in the 0th dimension "
                f"(got {sorted(n)})")
        return _SlicesIterator(values)


class _SlicesIterator(PyIterator):
    def __init__(self, components):
        self.components = components
        rows = [composite.nrows(c) for c in components if c is not None]
        self.n = rows[0] if rows else 0
        self.i = 0

    def next(self):
        if self.i >= self.n:
            raise End
        i = self.i
        self.i += 1
        return [composite.row(c, i) for c in self.components]

    def get_state(self):
        return {"i": self.i}

    def set_state(self, state):
        self.i = int(state["i"])


# ── range ────────────────────────────────────────────────────────────────────────────
@builds("range")
class _Range(Dataset):
    def __init__(self, args, output_type):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else \
            (args[0], args[1], 1) if len(args) == 2 else args
        with name_scope("RangeDataset"):
            self._args = [_scalar_int(a, n) for a, n in
                          zip((start, stop, step), ("start", "stop", "step"))]
        self._dtype = dtypes.as_dtype(output_type)
        self._structure = st.Spec(self._dtype, [])

    def _captures(self):
        return list(self._args)

    def _iterator(self, state, env):
        start, stop, step = (int(env[t]) for t in self._args)
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        return _RangeIterator(start, stop, step, self._dtype.as_numpy_dtype)


class _RangeIterator(PyIterator):
    def __init__(self, start, stop, step, dtype):
        self.value, self.stop, self.step, self.dtype = start, stop, step, dtype

    def next(self):
        v = self.value
        if (self.step > 0 and v >= self.stop) or (self.step < 0 and v <= self.stop):
            raise End
        self.value = v + self.step
        return [np.asarray(v, self.dtype)]

    def get_state(self):
        return {"value": int(self.value)}

    def set_state(self, state):
        self.value = int(state["value"])


# ── zip ──────────────────────────────────────────────────────────────────────────────
@builds("zip")
class _Zip(Dataset):
    def __init__(self, datasets):
        if not st.is_sequence(datasets) or not all(
                isinstance(d, Dataset) for d in st.flatten(datasets)):
            raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure of "
                            "`Dataset` objects.")
        self._datasets = datasets
        self._structure = st.map_structure(lambda d: d._structure, datasets)

    def _captures(self):
        return _unique([t for d in st.flatten(self._datasets) for t in d._captures()])

    def _iterator(self, state, env):
        return _ZipIterator([d._make_iterator(state, env) for d in st.flatten(self._datasets)])


class _ZipIterator(PyIterator):
    def __init__(self, inners):
        self.inners = inners

    def next(self):
        out = []
        for it in self.inners:
            out.extend(it.next())
        return out

    def get_state(self):
        return {"inners": [it.get_state() for it in self.inners]}

    def set_state(self, state):
        for it, s in zip(self.inners, state["inners"]):
            it.set_state(s)


# ── from_generator ───────────────────────────────────────────────────────────────────
@builds("from_generator")
class _FromGenerator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        if output_shapes is None:
            output_shapes = st.map_structure(lambda _: TensorShape(None), output_types)
        self._structure = st.map_structure(lambda t, s: st.Spec(t, s), output_types,
                                           output_shapes) if st.is_sequence(output_types) \
            else st.Spec(output_types, output_shapes)
        self._specs = st.specs(self._structure)
        self._generator = generator
        self._args = [] if args is None else [convert_to_tensor(a) for a in args]

    def _captures(self):
        return list(self._args)

    def _iterator(self, state, env):
        arg_values = [env[t] for t in self._args]
        generator = self._generator
        return _GeneratorIterator(lambda: generator(*arg_values), self._checked)

    def _checked(self, value):
        """A yielded element as arrays of the declared types and shapes."""
        specs = self._specs
        flat = _flatten_like(self._structure, value)
        if len(flat) != len(specs):
            raise errors.InvalidArgumentError(
                None, None, "`generator` yielded an element that did not match the "
                f"expected structure. The expected structure was {self.output_types}, "
                f"but the yielded element was {value}.")
        out = []
        for v, spec in zip(flat, specs):
            try:
                arr = np.asarray(v, dtype=spec.dtype.as_numpy_dtype)
            except (TypeError, ValueError):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that could "
                    f"not be converted to the expected type. The expected type was "
                    f"{spec.dtype.name}, but the yielded element was {v}.") from None
            if not spec.shape.is_compatible_with(TensorShape(arr.shape)):
                raise errors.InvalidArgumentError(
                    None, None, f"`generator` yielded an element of shape "
                    f"{_tf_shape(arr.shape)} where an element of shape "
                    f"{_tf_shape(spec.shape.as_tuple())} was expected.")
            out.append(arr)
        return out


def _flatten_like(structure, value):
    try:
        return _flatten_up_to(structure, value)
    except (ValueError, KeyError, TypeError):
        raise errors.InvalidArgumentError(
            None, None, "`generator` yielded an element that did not match the expected "
            f"structure. The expected structure was {structure}, but the yielded element "
            f"was {value}.") from None


def _tf_shape(dims):
    if dims is None:
        return "<unknown>"
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") + ")"


class _GeneratorIterator(PyIterator):
    def __init__(self, generator, check):
        self.it = iter(generator())
        self.check = check

    def next(self):
        try:
            value = next(self.it)
        except StopIteration:
            raise End from None
        return self.check(value)


# ── list_files ───────────────────────────────────────────────────────────────────────
class _ListFiles(Dataset):
    """The sorted files matching the patterns (TF's ``MatchingFiles``); ``list_files``
    shuffles them with a buffer holding them all, as TF does."""

    def __init__(self, file_pattern):
        with name_scope("list_files"):
            self._pattern = convert_to_tensor(file_pattern, dtype=dtypes.string,
                                              name="file_pattern")
        self._structure = st.Spec(dtypes.string, [])

    def _captures(self):
        return [self._pattern]

    def _iterator(self, state, env):
        patterns = _names(env[self._pattern])
        files = [f for p in patterns for f in sorted(_glob.glob(p))]
        if not files:
            raise errors.InvalidArgumentError(
                None, None, "assertion failed: [No files matched pattern: "
                f"{', '.join(patterns)}]")
        return _SlicesIterator([np.array([f.encode() for f in files], dtype=object)])


@builds("list_files")
def _list_files(file_pattern, shuffle, seed):
    dataset = _ListFiles(file_pattern)
    if shuffle is None or shuffle:
        dataset = _Shuffle(dataset, None, seed, None, buffer_all=True)
    return dataset


# ── file readers ─────────────────────────────────────────────────────────────────────
def _names(value):
    return [n.decode() if isinstance(n, bytes) else str(n)
            for n in np.asarray(value, dtype=object).reshape(-1)]


def _read_bytes(path, compression=""):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression in ("GZIP", "ZLIB"):
        # TF's zlib stream: a damaged one is DataLossError "inflate() failed ...", not
        # Python's zlib.error/gzip.BadGzipFile.
        reader = tfrecord.DecompressedReader(io.BytesIO(data), compression, name=path)
        data = reader.read(sys.maxsize)
    return data


class _FileDataset(Dataset):
    """Strings read from files, one file after another: ``_read(path)`` gives a file's
    records (an iterable, read as it is used, so a damaged record fails after the ones
    before it)."""

    _scope: str  # the name scope of its filenames tensor, TF's

    def __init__(self, filenames, compression_type):
        with name_scope(self._scope):
            with name_scope("filenames"):
                self._filenames = convert_to_tensor(filenames, dtype=dtypes.string)
        self._compression = (compression_type or "").upper()
        self._structure = st.Spec(dtypes.string, [])

    def _captures(self):
        return [self._filenames]

    def _read(self, path):
        raise NotImplementedError

    def _iterator(self, state, env):
        return _RecordsIterator(_names(env[self._filenames]), self._read)


class TextLineDataset(_FileDataset):
    """The lines of text files (without line endings), file after file."""

    _scope = "TextLineDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _read(self, path):
        lines = _read_bytes(path, self._compression).split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (``compression_type`` ``""``, ``"GZIP"`` or
    ``"ZLIB"``), read one at a time as TF reads them: a damaged record or stream is a
    ``DataLossError`` after the records before it (``tfrecord.tf_records``)."""

    _scope = "TFRecordDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _read(self, path):
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed by open_tf_records
        except FileNotFoundError:
            raise errors.NotFoundError(
                None, None, f"{path}; No such file or directory") from None
        return (data for _, data in tfrecord.open_tf_records(raw, self._compression))


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before
    ``footer_bytes`` of each file."""

    _scope = "FixedLengthRecordDataset"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None):
        super().__init__(filenames, compression_type)
        self._sizes = (int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0))

    def _read(self, path):
        record, header, footer = self._sizes
        data = _read_bytes(path, self._compression)
        body = data[header:len(data) - footer if footer else len(data)]
        return [body[i * record:(i + 1) * record] for i in range(len(body) // record)]


class _RecordsIterator(PyIterator):
    """A file's records, then the next file's; a saved position is the file and the records
    read from it (read again, up to there, when restored)."""

    def __init__(self, filenames, read_records):
        self.filenames = filenames
        self.read_records = read_records
        self.f = 0
        self.records = None
        self.i = 0

    def next(self):
        while True:
            if self.records is None:
                if self.f >= len(self.filenames):
                    raise End
                self.records = iter(self.read_records(self.filenames[self.f]))
                self.i = 0
            for record in self.records:
                self.i += 1
                return [np.asarray(record, dtype=object)]
            self.records = None
            self.f += 1

    def get_state(self):
        return {"f": self.f, "i": self.i, "open": self.records is not None}

    def set_state(self, state):
        self.f, self.i = int(state["f"]), int(state["i"])
        self.records = None
        if state["open"]:
            self.records = iter(self.read_records(self.filenames[self.f]))
            for _ in range(self.i):
                next(self.records, None)
