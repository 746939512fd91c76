"""``tf.data.Dataset`` in TF1 graph mode: sources, transformations and their element
structures.

A Dataset is a description built while the graph is built: its element structure (nested
``Spec``s: ``output_types``/``output_shapes``), the graph tensors its pipeline needs
(``_captures``: source tensors, and the values the functions of ``map``/``filter``/...
capture), and how to make its run-time iterator (``_make_iterator(state, env)``, with
``env`` the captured values, taken when an iterator is initialized). Functions are traced
into the graph once (``data.functions``) and run by their compiled sub-plans.
"""

from __future__ import annotations

import io
import sys

import numpy as np

from scopeflow.data import iterator_ops
from scopeflow.data import pipeline as pl
from scopeflow.data import structure as st
from scopeflow.data.functions import TracedFunction
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from scopeflow.framework.random_seed import get_seed
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.io import tfrecord

__all__ = ["Dataset", "TextLineDataset", "TFRecordDataset", "FixedLengthRecordDataset"]

AUTOTUNE = -1


def _unique(tensors):
    seen, out = set(), []
    for t in tensors:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _scalar_int(value, name):
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


class Dataset(st.ElementDescription):
    """TF1's ``tf.data.Dataset``: ``from_tensor_slices(...).map(f).batch(32)`` and so on.

    >>> ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
    >>> nxt = ds.make_one_shot_iterator().get_next()
    >>> s = tf.Session(); s.run(nxt).tolist(), s.run(nxt).tolist(), s.run(nxt).tolist()
    ([0, 2], [4, 6], [8])
    """

    _structure = None

    # -- what subclasses provide -----------------------------------------------------------
    def _captures(self) -> list:
        return []

    def _make_iterator(self, state, env) -> pl.PyIterator:
        raise NotImplementedError

    def __repr__(self):
        return (f"<{type(self).__name__} shapes: {self.output_shapes}, types: "
                f"{self.output_types}>")

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager "
                           "execution is enabled.")

    # -- iterators ------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        return iterator_ops.make_initializable_iterator(self, shared_name)

    # -- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        return _TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors):
        return _Tensors(tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64):
        return _Range(args, output_type)

    @staticmethod
    def zip(datasets):
        return _Zip(datasets)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        return _FromGenerator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        return _list_files(file_pattern, shuffle, seed)

    # -- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None):
        del num_parallel_calls, deterministic  # elements are made in order, one at a time
        return _Map(self, map_func)

    def filter(self, predicate):
        return _Filter(self, predicate)

    def flat_map(self, map_func):
        return _FlatMap(self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None):
        del num_parallel_calls, deterministic
        return _Interleave(self, map_func, cycle_length, block_length)

    def batch(self, batch_size, drop_remainder=False):
        return _Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False):
        return _Batch(self, batch_size, drop_remainder, padded=(padded_shapes,
                                                                 padding_values))

    def unbatch(self):
        return _Unbatch(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        return _Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None):
        return _Repeat(self, count)

    def take(self, count):
        return _Take(self, count)

    def skip(self, count):
        return _Skip(self, count)

    def shard(self, num_shards, index):
        """Every ``num_shards``-th element, starting at ``index`` (TF's ``shard``: one
        worker's part of the data; both may be tensors, checked when the iterator starts).

        >>> ds = tf.data.Dataset.range(10).shard(3, 1)
        >>> nxt = ds.make_one_shot_iterator().get_next(); s = tf.Session()
        >>> [int(s.run(nxt)) for _ in range(3)]
        [1, 4, 7]
        """
        return _Shard(self, num_shards, index)

    def concatenate(self, dataset):
        return _Concatenate(self, dataset)

    def prefetch(self, buffer_size):
        return _Prefetch(self, buffer_size)

    def cache(self, filename=""):
        return _Cache(self, filename)

    def apply(self, transformation_func):
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("`transformation_func` must return a Dataset. Got "
                            f"{type(result).__name__}.")
        return result

    def with_options(self, options):
        return self


# ── sources ──────────────────────────────────────────────────────────────────────────
def _as_tensors(tensors, what):
    if isinstance(tensors, SparseTensor):
        raise NotImplementedError(f"tf.data.Dataset.{what} of a SparseTensor")
    if isinstance(tensors, list):
        # As TF: a list is one tensor (packed), a tuple is a structure.
        flat = [convert_to_tensor(tensors, name="component_0")]
        return flat[0], flat
    flat = [convert_to_tensor(x, name=f"component_{i}")
            for i, x in enumerate(st.flatten(tensors))]
    return st.pack(tensors, flat), flat


class _Tensors(Dataset):
    def __init__(self, tensors):
        with name_scope("TensorDataset"):
            packed, self._flat = _as_tensors(tensors, "from_tensors")
        self._structure = _structure_like(packed, [st.spec_of(t) for t in self._flat])

    def _captures(self):
        return list(self._flat)

    def _make_iterator(self, state, env):
        return pl._Once([env[t] for t in self._flat])


def _structure_like(packed, leaves):
    if st.is_sequence(packed):
        return st.pack(packed, leaves)
    return leaves[0]


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        with name_scope("TensorSliceDataset"):
            packed, self._flat = _as_tensors(tensors, "from_tensor_slices")
        first = None
        for t in self._flat:
            if t.shape.ndims == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            n = t.shape.as_tuple()[0] if t.shape.ndims else None
            if first is not None and n is not None and first != n:
                raise ValueError(f"Dimensions {first} and {n} are not compatible")
            first = n if first is None else first
        self._structure = _structure_like(packed, [
            st.Spec(t.dtype, t.shape[1:] if t.shape.ndims else None) for t in self._flat])

    def _captures(self):
        return list(self._flat)

    def _make_iterator(self, state, env):
        values = [np.asarray(env[t]) for t in self._flat]
        n = {len(v) for v in values}
        if len(n) > 1:
            raise errors.InvalidArgumentError(
                None, None, "All components must have the same size in the 0th dimension "
                f"(got {sorted(n)})")
        return pl._Slices(values)


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

    def _make_iterator(self, state, env):
        start, stop, step = (int(env[t]) for t in self._args)
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        return pl._Range(start, stop, step, self._dtype.as_numpy_dtype)


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

    def _make_iterator(self, state, env):
        return pl._Zip([d._make_iterator(state, env) for d in st.flatten(self._datasets)])


class _FromGenerator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        if output_shapes is None:
            output_shapes = st.map_structure(lambda _: TensorShape(None), output_types)
        self._structure = st.map_structure(lambda t, s: st.Spec(t, s), output_types,
                                           output_shapes) if st.is_sequence(output_types) \
            else st.Spec(output_types, output_shapes)
        self._generator = generator
        self._args = [] if args is None else [convert_to_tensor(a) for a in args]

    def _captures(self):
        return list(self._args)

    def _make_iterator(self, state, env):
        specs = st.specs(self._structure)
        structure = self._structure
        arg_values = [env[t] for t in self._args]

        def check(value):
            flat = _flatten_like(structure, value)
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

        generator = self._generator
        return pl._Generator(lambda: generator(*arg_values), specs, check)


def _flatten_up_to(structure, value):
    """``value``'s parts where ``structure`` has leaves (a leaf's part may itself be a list,
    a shape for instance); ``ValueError`` when they do not nest alike."""
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _flatten_up_to(structure[k], value[k])]
    if isinstance(structure, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{structure} and {value}")
        return [x for s, v in zip(structure, value) for x in _flatten_up_to(s, v)]
    return [value]


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

    def _make_iterator(self, state, env):
        patterns = [p.decode() if isinstance(p, bytes) else str(p)
                    for p in np.asarray(env[self._pattern], dtype=object).reshape(-1)]
        files = pl.glob_files(patterns)
        if not files:
            raise errors.InvalidArgumentError(
                None, None, "assertion failed: [No files matched pattern: "
                f"{', '.join(patterns)}]")
        return pl._Slices([np.array([f.encode() for f in files], dtype=object)])


def _list_files(file_pattern, shuffle, seed):
    dataset = _ListFiles(file_pattern)
    if shuffle is None or shuffle:
        dataset = _Shuffle(dataset, None, seed, None, buffer_all=True)
    return dataset


# ── file datasets ────────────────────────────────────────────────────────────────────
def _filenames(filenames):
    with name_scope("filenames"):
        return convert_to_tensor(filenames, dtype=dtypes.string)


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


class TextLineDataset(Dataset):
    """The lines of text files (without line endings), file after file."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        with name_scope("TextLineDataset"):
            self._filenames = _filenames(filenames)
        self._compression = (compression_type or "").upper()
        self._structure = st.Spec(dtypes.string, [])

    def _captures(self):
        return [self._filenames]

    def _make_iterator(self, state, env):
        compression = self._compression
        return pl._Lines(_names(env[self._filenames]),
                         lambda path: _read_bytes(path, compression))


class TFRecordDataset(Dataset):
    """The records of TFRecord files (``compression_type`` ``""``, ``"GZIP"`` or
    ``"ZLIB"``), read one at a time as TF reads them: a damaged record or stream is a
    ``DataLossError`` after the records before it (``tfrecord.tf_records``)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        with name_scope("TFRecordDataset"):
            self._filenames = _filenames(filenames)
        self._compression = (compression_type or "").upper()
        self._structure = st.Spec(dtypes.string, [])

    def _captures(self):
        return [self._filenames]

    def _make_iterator(self, state, env):
        compression = self._compression

        def read(path):
            try:
                raw = open(path, "rb")  # noqa: SIM115 - closed by open_tf_records
            except FileNotFoundError:
                raise errors.NotFoundError(
                    None, None, f"{path}; No such file or directory") from None
            return (data for _, data in tfrecord.open_tf_records(raw, compression))
        return pl._Records(_names(env[self._filenames]), read)


class FixedLengthRecordDataset(Dataset):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before
    ``footer_bytes`` of each file."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None):
        with name_scope("FixedLengthRecordDataset"):
            self._filenames = _filenames(filenames)
        self._sizes = (int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0))
        self._compression = (compression_type or "").upper()
        self._structure = st.Spec(dtypes.string, [])

    def _captures(self):
        return [self._filenames]

    def _make_iterator(self, state, env):
        record, header, footer = self._sizes
        compression = self._compression

        def read(path):
            data = _read_bytes(path, compression)
            body = data[header:len(data) - footer if footer else len(data)]
            n = len(body) // record
            return [body[i * record:(i + 1) * record] for i in range(n)]
        return pl._Records(_names(env[self._filenames]), read)


# ── transformations ──────────────────────────────────────────────────────────────────
def _node_id():
    """A number for a dataset node, the same each time a program builds its graph: keys
    the run-time tables (a shuffle's pass count, a cache's elements) saved with an
    iterator's position."""
    graph = get_default_graph()
    n = getattr(graph, "_dataset_nodes", 0)
    graph._dataset_nodes = n + 1
    return n


class _Unary(Dataset):
    def __init__(self, input_dataset):
        self._id = _node_id()
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a Dataset, got {type(input_dataset).__name__}")
        self._input = input_dataset
        self._structure = input_dataset._structure

    def _captures(self):
        return self._input._captures()


class _Map(_Unary):
    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = TracedFunction(fn, input_dataset._structure, "MapDataset")
        self._structure = self._fn.output_structure

    def _captures(self):
        return _unique(self._input._captures() + self._fn.captures)

    def _make_iterator(self, state, env):
        return pl._Map(self._input._make_iterator(state, env), self._fn.caller(state, env))


class _Filter(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = TracedFunction(predicate, input_dataset._structure, "FilterDataset")
        spec = self._fn.output_structure
        if not isinstance(spec, st.Spec) or spec.dtype != dtypes.bool or \
                spec.shape.ndims not in (None, 0):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean "
                             f"tensor. Was {spec}.")

    def _captures(self):
        return _unique(self._input._captures() + self._fn.captures)

    def _make_iterator(self, state, env):
        return pl._Filter(self._input._make_iterator(state, env), self._fn.caller(state, env))


class _FlatMap(_Unary):
    _label = "FlatMapDataset"

    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = TracedFunction(fn, input_dataset._structure, self._label,
                                  allow_dataset=True)
        if not isinstance(self._fn.output, Dataset):
            raise TypeError("`map_func` must return a `Dataset` object. Got "
                            f"{type(self._fn.output).__name__}.")
        self._structure = self._fn.output._structure

    def _captures(self):
        nested = [t for t in self._fn.output._captures()
                  if t._op._cf_context is not self._fn.context]
        return _unique(self._input._captures() + self._fn.captures + nested)

    def _make_iterator(self, state, env):
        return pl._FlatMap(self._input._make_iterator(state, env),
                           self._fn.dataset_caller(state, env))


class _Interleave(_FlatMap):
    _label = "InterleaveDataset"

    def __init__(self, input_dataset, fn, cycle_length, block_length):
        super().__init__(input_dataset, fn)
        self._cycle = int(cycle_length) if cycle_length not in (None, AUTOTUNE) else 1
        self._block = int(block_length) if block_length is not None else 1

    def _make_iterator(self, state, env):
        return pl._Interleave(self._input._make_iterator(state, env),
                              self._fn.dataset_caller(state, env), self._cycle, self._block)


class _Batch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder, padded=None):
        super().__init__(input_dataset)
        self._size = _static_int(batch_size, "batch_size")
        if self._size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                               "zero.")
        self._drop = bool(drop_remainder)
        lead = self._size if self._drop else None
        self._pad = None
        if padded is not None:
            shapes, values = padded
            specs = st.specs(input_dataset._structure)
            if shapes is None:
                shapes = [s.shape for s in specs]
            else:
                shapes = [as_shape(s) for s in
                          _flatten_up_to(input_dataset._structure, shapes)]
            if values is None:
                values = [b"" if s.dtype == dtypes.string else 0 for s in specs]
            else:
                values = [_static_value(v) for v in
                          _flatten_up_to(input_dataset._structure, values)]
            self._pad = ([s.as_list() if s.ndims is not None else None for s in shapes],
                         values)
            leaves = [st.Spec(s.dtype, TensorShape([lead]).concatenate(shape))
                      for s, shape in zip(specs, shapes)]
        else:
            leaves = [st.Spec(s.dtype, TensorShape([lead]).concatenate(s.shape))
                      for s in st.specs(input_dataset._structure)]
        self._structure = _structure_like(input_dataset._structure, leaves)

    def _make_iterator(self, state, env):
        return pl._Batch(self._input._make_iterator(state, env), self._size, self._drop,
                         self._pad)


class _Unbatch(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self._structure = _structure_like(input_dataset._structure, [
            st.Spec(s.dtype, s.shape[1:] if s.shape.ndims else None)
            for s in st.specs(input_dataset._structure)])

    def _make_iterator(self, state, env):
        return pl._Unbatch(self._input._make_iterator(state, env))


def _static_value(value):
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise NotImplementedError("tf.data: padding values computed at run time")
        return v
    return value


def _static_int(value, name):
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise NotImplementedError(f"tf.data: a {name} computed at run time")
        return int(v)
    return int(value)


def _dataset_seeds(seed):
    """TF's ``data.util.random_seed.get_seed``: the (seed, seed2) pair a dataset op gets;
    (0, 0), when neither a graph nor an op seed is set, means "seed from the OS"."""
    if isinstance(seed, Tensor):
        seed = _static_int(seed, "shuffle seed")
    graph_seed, op_seed = get_seed(seed)
    if graph_seed is None:
        return 0, 0
    return int(graph_seed), int(op_seed)


class _Shuffle(_Unary):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration,
                 buffer_all=False):
        super().__init__(input_dataset)
        # buffer_all: list_files's buffer, as large as the list it shuffles
        self._buffer = 2**62 if buffer_all else _static_int(buffer_size, "buffer_size")
        if self._buffer <= 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than "
                                               "zero.")
        self._seeds = _dataset_seeds(seed)
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)

    def _make_iterator(self, state, env):
        # TF's seed generator lives as long as the dataset an initialization makes: every
        # pass over it (a repeat) takes the next pair of its Philox samples when
        # reshuffle_each_iteration (RandomSeedGenerator), the seeds themselves otherwise
        # (FixedSeedGenerator). Re-initializing starts it again: the same orders.
        # table: [seed, seed2, samples drawn], saved with the iterator's position.
        table = env.get(("shuffle_pass", self._id))
        if table is None:
            seeds = self._seeds if self._seeds != (0, 0) else pl.os_seeds()
            table = env[("shuffle_pass", self._id)] = [seeds[0], seeds[1], 0]
        if self._reshuffle:
            gen = pl.PhiloxWords(table[0], table[1], drawn=table[2])
            pair = (gen.next(), gen.next())
            table[2] = gen.drawn
        else:
            pair = (table[0], table[1])
        return pl._Shuffle(self._input._make_iterator(state, env), self._buffer, pair, table)


class _Counted(_Unary):
    """A transformation with a count (repeat, take, skip): static, or a tensor whose value
    is taken when the iterator starts."""

    def __init__(self, input_dataset, count, default=None):
        super().__init__(input_dataset)
        self._count_tensor = None
        if count is None:
            self._count = default
            return
        value = constant_value(count) if isinstance(count, Tensor) else count
        if value is None:
            self._count_tensor = count
            self._count = None
        else:
            self._count = int(value)

    def _captures(self):
        extra = [self._count_tensor] if self._count_tensor is not None else []
        return _unique(self._input._captures() + extra)

    def _count_in(self, env):
        return int(env[self._count_tensor]) if self._count_tensor is not None else self._count


class _Repeat(_Counted):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset, count, default=-1)

    def _make_iterator(self, state, env):
        inner = self._input
        return pl._Repeat(lambda: inner._make_iterator(state, env), self._count_in(env))


class _Take(_Counted):
    def _make_iterator(self, state, env):
        return pl._Take(self._input._make_iterator(state, env), self._count_in(env))


class _Skip(_Counted):
    def _make_iterator(self, state, env):
        return pl._Skip(self._input._make_iterator(state, env), self._count_in(env))


class _Shard(_Unary):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        # static values, or tensors whose values are taken when the iterator starts
        self._args = [_Counted(input_dataset, num_shards), _Counted(input_dataset, index)]

    def _captures(self):
        extra = [a._count_tensor for a in self._args if a._count_tensor is not None]
        return _unique(self._input._captures() + extra)

    def _make_iterator(self, state, env):
        n, i = (a._count_in(env) for a in self._args)
        # TF checks these when the iterator is made (ShardDatasetOp), with these words
        if n <= 0:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater "
                                              f"than zero (currently num_shards = {n}).")
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(None, None, f"Index must be between 0 and "
                                              f"{n - 1} (currently index = {i}).")
        return _ShardIterator(self._input._make_iterator(state, env), n, i)


class _ShardIterator(pl.PyIterator):
    def __init__(self, inner, num_shards, index):
        self.inner, self.num_shards, self.index, self.position = inner, num_shards, index, 0

    def next(self):
        while True:
            element = self.inner.next()  # End passes through: the input ran out
            position = self.position
            self.position += 1
            if position % self.num_shards == self.index:
                return element

    def get_state(self):
        return {"inner": self.inner.get_state(), "position": self.position}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.position = int(state["position"])


class _Concatenate(_Unary):
    def __init__(self, input_dataset, other):
        super().__init__(input_dataset)
        if not isinstance(other, Dataset):
            raise TypeError(f"Expected a Dataset, got {type(other).__name__}")
        a, b = st.specs(input_dataset._structure), st.specs(other._structure)
        if len(a) != len(b) or any(x.dtype != y.dtype for x, y in zip(a, b)):
            raise TypeError(f"Incompatible dataset elements:\n  {input_dataset.output_types}"
                            f" vs.   {other.output_types}")
        self._other = other
        self._structure = _structure_like(input_dataset._structure, [
            st.Spec(x.dtype, st.unify_shapes(x.shape, y.shape)) for x, y in zip(a, b)])

    def _captures(self):
        return _unique(self._input._captures() + self._other._captures())

    def _make_iterator(self, state, env):
        first, second = self._input, self._other
        return pl._Concat([lambda: first._make_iterator(state, env),
                           lambda: second._make_iterator(state, env)])


class _Prefetch(_Unary):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        size = _static_int(buffer_size, "buffer_size")
        self._size = 2 if size == AUTOTUNE else size

    def _make_iterator(self, state, env):
        if self._size == 0:
            return self._input._make_iterator(state, env)
        it = pl._Prefetch(self._input._make_iterator(state, env), self._size)
        env.setdefault(("prefetchers", -1), []).append(it)  # stopped with their iterator
        return it


class _Cache(_Unary):
    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")

    def _captures(self):
        return _unique(self._input._captures() + [self._filename])

    def _make_iterator(self, state, env):
        inner = self._input
        filename = np.asarray(env[self._filename], dtype=object).reshape(-1)[0]
        filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        if filename:
            it = pl._FileCache(lambda: inner._make_iterator(state, env), filename,
                               len(st.specs(self._structure)))
            if it.reader is None:   # a writer: its lock goes when re-initialized or closed
                env.setdefault(("closers", -1), []).append(it)
            return it
        store = env.setdefault(("cache", self._id), {})
        return pl._Cache(lambda: inner._make_iterator(state, env), store)
