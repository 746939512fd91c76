"""Parsing ops: ``tf.train.Example`` protos (``ParseExampleV2``) and ``SequenceExample``
protos (``ParseSequenceExampleV2``). TF's ``parsing_ops`` also holds ``decode_raw``,
``decode_csv`` and ``string_to_number``, so they are reachable here too; their ops are in
:mod:`scopeflow.ops.io.decode_ops`.

``parse_example`` and ``parse_single_example`` build one ``ParseExampleV2`` op as TF1 does
(``ParseExample/ParseExampleV2`` with its key constants): its kernel decodes each serialized
``Example`` with the protobuf classes of :mod:`scopeflow.io.protos` and fills the dense
outputs (``FixedLenFeature``, ``FixedLenSequenceFeature``) and the sparse ones
(``VarLenFeature`` -> ``SparseTensor``). Errors are TF's, word for word: a required feature
missing, a type or a value count that does not match.
"""

from __future__ import annotations

import collections
import math

import numpy as np
from google.protobuf.message import DecodeError

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.io import protos
from scopeflow.ops.array import layout_ops, shape_ops, slicing_ops
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.io.decode_ops import (
    as_bytes,
    as_text,
    decode_csv,
    decode_raw,
    string_input,
    string_to_number,
)
from scopeflow.ops.math import arithmetic_ops
from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "SparseFeature",
           "parse_example", "parse_single_example", "parse_sequence_example",
           "parse_single_sequence_example", "decode_raw", "decode_csv",
           "string_to_number"]


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of ``shape`` values in every example (``default_value`` where missing;
    ``None``: required)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values, parsed into a ``SparseTensor``."""


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Any number of rows of ``shape`` values, padded to the longest example with
    ``default_value`` (a scalar); ``allow_missing`` must be True."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A ``SparseTensor`` built from index features (``index_key``: one name, or one per
    dimension) and a value feature (``value_key``) of each example: entry ``i`` of an
    example sits at ``[example] + [index_key_d[i] for each d]`` with value
    ``value_key[i]``; the dense shape is ``[batch] + size``. Entries are sorted by index
    unless ``already_sorted``."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


# The dtypes an Example feature holds, and TF's names of them in messages.
_FEATURE_DTYPES = (_dtypes.float32, _dtypes.int64, _dtypes.string)
_KIND = {_dtypes.float32: "float_list", _dtypes.int64: "int64_list",
         _dtypes.string: "bytes_list"}
_KIND_DTYPE = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_TF_NAME = {_dtypes.float32: "float", _dtypes.int64: "int64", _dtypes.string: "string"}




def _keys(keys) -> np.ndarray:
    """A list of feature keys as a string vector (an empty list too, which would otherwise
    convert to float32)."""
    out = np.empty(len(keys), dtype=object)
    out[:] = [as_bytes(k) for k in keys]
    return out


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"



# ── ParseExampleV2 ───────────────────────────────────────────────────────────────────
def _parse_example_shape(serialized, names, sparse_keys, dense_keys, ragged_keys,
                         *dense_defaults, Tdense, num_sparse, sparse_types, ragged_value_types,
                         ragged_split_types, dense_shapes):
    rank = serialized.ndims
    if rank is not None and rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {rank}")
    batch = [] if rank == 0 else [serialized[0] if rank == 1 else None]
    index_rank = None if rank is None else rank + 1
    return ([TensorShape([None, index_rank])] * num_sparse +
            [TensorShape([None])] * num_sparse +
            [TensorShape([index_rank])] * num_sparse +
            [TensorShape(batch + list(s.as_list())) if rank is not None else TensorShape(None)
             for s in dense_shapes])


def _parse_example_dtype(serialized, names, sparse_keys, dense_keys, ragged_keys,
                         *dense_defaults, Tdense, num_sparse, sparse_types, ragged_value_types,
                         ragged_split_types, dense_shapes):
    for d in dense_defaults:
        check_dtype(d, _FEATURE_DTYPES, "dense_defaults")
    for d in sparse_types:
        check_dtype(d, _FEATURE_DTYPES, "sparse_types")
    return ([_dtypes.int64] * num_sparse + list(sparse_types) + [_dtypes.int64] * num_sparse +
            list(dense_defaults))


def _feature_values(feature, dtype):
    """The values of a feature as a NumPy array of ``dtype``."""
    values = getattr(feature, _KIND[dtype]).value
    if dtype is _dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    return np.array(values, dtype=dtype.as_numpy_dtype)


class _ExampleParser:
    """One run of ``ParseExampleV2``: the decoded examples and TF's messages about them
    (an example in a batch is named ``Name: <name>, Key: <key>, Index: <i>``; the single
    example of a scalar input by its key alone)."""

    def __init__(self, serialized, names):
        self.single = np.ndim(serialized) == 0
        self.names = [as_text(n) for n in np.asarray(names).reshape(-1)]
        if self.names and np.shape(names) != np.shape(serialized):
            raise errors.InvalidArgumentError(
                None, None, "Expected names have the same shape as serialized: "
                f"name.shape={_dims(np.shape(names))}, serialized.shape="
                f"{_dims(np.shape(serialized))}")
        self.examples = []
        for s in np.asarray(serialized).reshape(-1):
            try:
                self.examples.append(protos.Example.FromString(as_bytes(s)))
            except DecodeError:
                raise errors.InvalidArgumentError(
                    None, None, f"Could not parse example input, value: '{as_text(s)}'") from None

    def name(self, i):
        return self.names[i] if i < len(self.names) else "<unknown>"

    def where(self, key, i):
        return f"Key: {key}." if self.single else f"Name: {self.name(i)}, Key: {key}, Index: {i}."

    def feature(self, i, key, dtype, sparse):
        """The values of feature ``key`` of example ``i``, or None when it is missing."""
        fmap = self.examples[i].features.feature
        if key not in fmap:
            return None
        feature = fmap[key]
        kind = feature.WhichOneof("kind")
        if kind is None:
            return None
        if kind != _KIND[dtype]:
            if sparse:
                detail = f"Expected type: {_TF_NAME[dtype]}, Actual type: {_KIND_DTYPE[kind]}"
            else:
                detail = f"Data type: {_KIND_DTYPE[kind]} but expected type: {_TF_NAME[dtype]}"
            raise errors.InvalidArgumentError(
                None, None, f"{self.where(key, i)}  Data types don't match. {detail}")
        return _feature_values(feature, dtype)

    def missing(self, i, key, dtype):
        prefix = "" if self.single else f"Name: {self.name(i)}, "
        return errors.InvalidArgumentError(
            None, None, f"{prefix}Feature: {key} (data type: {_TF_NAME[dtype]}) is required "
            "but could not be found.")

    def sparse(self, key, dtype):
        rows = [self.feature(i, key, dtype, True) for i in range(len(self.examples))]
        rows = [np.empty(0, dtype.as_numpy_dtype) if r is None else r for r in rows]
        counts = [len(r) for r in rows]
        values = (np.concatenate(rows) if rows else np.empty(0, dtype.as_numpy_dtype))
        if dtype is _dtypes.string and values.dtype != object:
            values = values.astype(object)
        cols = np.concatenate([np.arange(c, dtype=np.int64) for c in counts]) if rows else \
            np.empty(0, np.int64)
        longest = max(counts, default=0)
        if self.single:
            return cols.reshape(-1, 1), values, np.array([longest], np.int64)
        batch = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
        return (np.stack([batch, cols], axis=1), values,
                np.array([len(rows), longest], np.int64))

    def dense(self, key, dtype, shape, default):
        dims = shape.as_list()
        if dims and dims[0] is None:
            return self._dense_rows(key, dtype, dims[1:], default)
        size = math.prod(dims)
        out = []
        for i in range(len(self.examples)):
            values = self.feature(i, key, dtype, False)
            if values is None:
                if np.size(default) == 0:
                    raise self.missing(i, key, dtype)
                values = np.asarray(default).reshape(-1)
            elif len(values) != size:
                raise self._count_error(i, key, dtype, len(values), dims)
            out.append(values.reshape(dims))
        return self._stack(out, dtype, dims)

    def _count_error(self, i, key, dtype, got, dims):
        kind = _KIND[dtype]
        if self.single:
            return errors.InvalidArgumentError(
                None, None, f"Key: {key}.  Can't parse serialized Example: Some {kind} slice "
                "was not parsed.")
        if got > math.prod(dims):  # TF's parser stops at the expected count
            return errors.InvalidArgumentError(
                None, None, f"{self.where(key, i)}  Can't parse serialized Example.")
        what = "bytes" if dtype is _dtypes.string else _TF_NAME[dtype]
        return errors.InvalidArgumentError(
            None, None, f"{self.where(key, i)}  Number of {what} values != "
            f"expected.  Values size: {got} but output shape: [{','.join(map(str, dims))}]")

    def _dense_rows(self, key, dtype, inner, default):
        """A ``FixedLenSequenceFeature``: each example's rows, padded to the longest."""
        stride = math.prod(inner)
        rows = []
        for i in range(len(self.examples)):
            values = self.feature(i, key, dtype, False)
            if values is None:
                values = np.empty(0, dtype.as_numpy_dtype)
            if (stride == 0 or len(values) % stride) and self.single:
                raise errors.InvalidArgumentError(
                    None, None, f"Error while parsing feature with key {key}: number of "
                    f"elements should be divisible by {stride}, found {len(values)} instead")
            if stride == 0 or len(values) % stride:
                shape = ",".join(["?"] + [str(d) for d in inner])
                raise errors.InvalidArgumentError(
                    None, None, f"{self.where(key, i)}  Number of {_TF_NAME[dtype]} values is "
                    f"not a multiple of stride length. Saw {len(values)} values but output "
                    f"shape is: [{shape}]")
            rows.append(values.reshape([len(values) // stride] + inner))
        longest = max((len(r) for r in rows), default=0)
        if np.size(default):
            pad = np.asarray(default).reshape(-1)[0]
        else:
            pad = b"" if dtype is _dtypes.string else 0
        out = []
        for r in rows:
            full = np.full([longest] + inner, pad, dtype=dtype.as_numpy_dtype)
            full[:len(r)] = r
            out.append(full)
        return self._stack(out, dtype, [longest] + inner)

    def _stack(self, arrays, dtype, dims):
        if self.single:
            return arrays[0]
        if not arrays:
            return np.empty([0] + dims, dtype=dtype.as_numpy_dtype)
        return np.stack(arrays)


def _parse_example_kernel(serialized, names, sparse_keys, dense_keys, ragged_keys,
                          *dense_defaults, Tdense, num_sparse, sparse_types, ragged_value_types,
                          ragged_split_types, dense_shapes):
    parser = _ExampleParser(serialized, names)
    sparse = [parser.sparse(as_text(k), t)
              for k, t in zip(np.asarray(sparse_keys).reshape(-1), sparse_types)]
    dense = [parser.dense(as_text(k), t, s, d) for k, t, s, d in
             zip(np.asarray(dense_keys).reshape(-1), Tdense, dense_shapes, dense_defaults)]
    return _kernel_outputs([s[0] for s in sparse] + [s[1] for s in sparse] +
                           [s[2] for s in sparse] + dense)


def _kernel_outputs(values):
    """What a parsing kernel returns: its outputs as a tuple, or the one array alone when
    there is one, as the runtime takes a one-output kernel's result (a lone
    ``FixedLenFeature``'s 1-tuple reached its consumers as a tuple)."""
    return values[0] if len(values) == 1 else tuple(values)


def _parse_example_num_outputs(attrs, n_inputs):
    return 3 * attrs["num_sparse"] + len(attrs["dense_shapes"])


parse_example_v2_op = OpDef(
    "ParseExampleV2", shape=_parse_example_shape, dtype=_parse_example_dtype,
    kernel=_parse_example_kernel,
    attrs={"Tdense": (), "num_sparse": 0, "sparse_types": (), "ragged_value_types": (),
           "ragged_split_types": (), "dense_shapes": ()}, num_outputs=_parse_example_num_outputs,
    grad=NO_GRADIENT,
    input_names=("serialized", "names", "sparse_keys", "dense_keys", "ragged_keys",
                 "dense_defaults"))


def _check_features(features):
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    for key, f in features.items():
        if isinstance(f, FixedLenFeature) and f.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={f}.")
        if isinstance(f, FixedLenSequenceFeature) and not f.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to "
                             "be True.")
        if isinstance(f, SparseFeature):
            if not f.index_key:
                raise ValueError(f"Missing index_key for SparseFeature {f}.")
            if not f.value_key:
                raise ValueError(f"Missing value_key for SparseFeature {f}.")
            if not f.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={f}.")
        elif not isinstance(f, (FixedLenFeature, VarLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"Unsupported feature type: {type(f).__name__} (scopeflow "
                             "parses FixedLenFeature, VarLenFeature, SparseFeature and "
                             "FixedLenSequenceFeature)")


def _dense_default(key, feature, dtype, shape):
    """The ``dense_defaults`` input of one dense feature: its default reshaped to its shape
    (a scalar for a sequence feature), or an empty tensor for a required feature."""
    if feature.default_value is None:
        return convert_to_tensor(np.empty(0, dtype.as_numpy_dtype), dtype=dtype, name="Const")
    sequence = isinstance(feature, FixedLenSequenceFeature)
    default = convert_to_tensor(feature.default_value, dtype=dtype,
                                name=f"{'padding' if sequence else 'key'}_{key}")
    target = [] if sequence else shape.as_list()
    return reshape(default, target)


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized ``Example`` protos into a dict of tensors: each
    ``FixedLenFeature`` a dense ``[batch] + shape`` tensor, each
    ``FixedLenSequenceFeature`` ``[batch, longest] + shape``, each ``VarLenFeature`` a
    ``SparseTensor``."""
    _check_features(features)
    sparse = _sparse_keys(features)
    sparse_keys = list(sparse)
    dense_keys = [k for k in sorted(features)
                  if isinstance(features[k], (FixedLenFeature, FixedLenSequenceFeature))]
    with name_scope(name, "ParseExample", [serialized, example_names]):
        serialized = string_input(serialized, "serialized")
        dense_shapes, defaults, dense_types = [], [], []
        for k in dense_keys:
            f = features[k]
            dtype = _dtypes.as_dtype(f.dtype)
            check_dtype(dtype, _FEATURE_DTYPES, "dense_defaults")
            shape = as_shape(f.shape)
            defaults.append(_dense_default(k, f, dtype, shape))
            if isinstance(f, FixedLenSequenceFeature):
                shape = TensorShape([None]).concatenate(shape)
            dense_shapes.append(shape)
            dense_types.append(dtype)
        sparse_types = list(sparse.values())
        names = example_names if isinstance(example_names, Tensor) else \
            _keys([] if example_names is None else list(example_names))
        op = parse_example_v2_op.create(
            [serialized, names, _keys(sparse_keys), _keys(dense_keys), _keys([])] + defaults,
            {"Tdense": dense_types, "num_sparse": len(sparse_keys),
             "sparse_types": sparse_types, "ragged_value_types": [],
             "ragged_split_types": [], "dense_shapes": dense_shapes},
            name=name or "ParseExampleV2")
    outs, n = op.outputs, len(sparse_keys)
    result = {k: SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
              for i, k in enumerate(sparse_keys)}
    result.update({k: outs[3 * n + i] for i, k in enumerate(dense_keys)})
    return _with_sparse_features(features, result)


def _sparse_keys(features) -> dict:
    """TF's sparse keys and dtypes, in its order: each VarLenFeature's key, each
    SparseFeature's index keys (int64, sorted) then its value key, shared keys once."""
    keys: dict = {}

    def add(key, dtype):
        dtype = _dtypes.as_dtype(dtype)
        if key in keys and keys[key] != dtype:
            raise ValueError(f"Conflicting type {keys[key]} vs {dtype} for feature {key}.")
        keys.setdefault(key, dtype)

    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            add(key, f.dtype)
        elif isinstance(f, SparseFeature):
            index_keys = [f.index_key] if isinstance(f.index_key, str) else f.index_key
            for index_key in sorted(index_keys):
                add(index_key, _dtypes.int64)
            add(f.value_key, f.dtype)
    return keys


def _with_sparse_features(features, parsed):
    """Builds each SparseFeature's tensor from its parsed index and value features (TF's
    ``sparse_merge``), and drops the parsed features no key of ``features`` asked for."""
    updates = {}
    for key in sorted(features):
        f = features[key]
        if isinstance(f, SparseFeature):
            many = not isinstance(f.index_key, str)
            ids = [parsed[k] for k in f.index_key] if many else [parsed[f.index_key]]
            sizes = list(f.size) if many else [f.size]
            updates[key] = _sparse_merge(ids, parsed[f.value_key], sizes, f.already_sorted)
    parsed.update(updates)
    return {k: v for k, v in parsed.items() if k in features}


def _sparse_merge(sp_ids, sp_values, sizes, already_sorted):
    """TF's ``sparse_merge_impl``: the ids' positions but their last column replaced by
    the ids (one column per index feature), the values' values, shape ``[...] + sizes``."""
    with name_scope(None, "SparseMerge"):
        ids = [shape_ops.expand_dims(sp.values, axis=1) for sp in sp_ids]
        sizes = [arithmetic_ops.cast(s, _dtypes.int64) for s in sizes]
        indices = slicing_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        shape = slicing_ops.concat([sp_ids[0].dense_shape[:-1], layout_ops.stack(sizes)], 0)
        result = SparseTensor(indices, sp_values.values, shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, shape)


def parse_single_example(serialized, features, name=None, example_names=None):
    """``parse_example`` of one serialized ``Example`` (a scalar): no batch dimension."""
    _check_features(features)
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = string_input(serialized, "serialized")
        if serialized.shape.ndims not in (None, 0):
            raise ValueError("Input serialized must be a scalar")
        if example_names is not None and not isinstance(example_names, Tensor):
            example_names = convert_to_tensor(example_names, dtype=_dtypes.string,
                                              name="example_names")
        return parse_example(serialized, features, example_names=example_names)


# ── ParseSequenceExampleV2 ───────────────────────────────────────────────────────────
# One serialized SequenceExample (a scalar: ``parse_single_sequence_example``) or a batch
# (a vector: ``parse_sequence_example``, which adds the batch dimension in front and pads
# feature lists to the longest example's, with their lengths).
_SEQ_ATTRS = ("Ncontext_sparse", "Tcontext_dense", "Nfeature_list_dense",
              "Nfeature_list_sparse", "context_sparse_types", "context_ragged_value_types",
              "context_ragged_split_types", "feature_list_dense_types",
              "feature_list_sparse_types", "feature_list_ragged_value_types",
              "feature_list_ragged_split_types", "context_dense_shapes",
              "feature_list_dense_shapes")


def _parse_sequence_example_shape(serialized, debug_name, *rest, **attrs):
    if serialized.ndims not in (None, 0, 1):
        raise ValueError("ParseSequenceExampleV2: serialized must be a scalar or a vector, "
                         f"not rank {serialized.ndims}")
    batch = [] if serialized.ndims == 0 else [serialized[0] if serialized.ndims else None]
    r = len(batch)
    ncs, nfs = attrs["Ncontext_sparse"], attrs["Nfeature_list_sparse"]
    return ([TensorShape([None, 1 + r])] * ncs + [TensorShape([None])] * ncs +
            [TensorShape([1 + r])] * ncs +
            [TensorShape(batch).concatenate(as_shape(s))
             for s in attrs["context_dense_shapes"]] +
            [TensorShape([None, 2 + r])] * nfs + [TensorShape([None])] * nfs +
            [TensorShape([2 + r])] * nfs +
            [TensorShape(batch + [None]).concatenate(s)
             for s in attrs["feature_list_dense_shapes"]] +
            [TensorShape(batch)] * attrs["Nfeature_list_dense"])


def _parse_sequence_example_dtype(serialized, debug_name, *rest, **attrs):
    for d in list(attrs["Tcontext_dense"]) + list(attrs["context_sparse_types"]) + \
            list(attrs["feature_list_dense_types"]) + list(attrs["feature_list_sparse_types"]):
        check_dtype(d, _FEATURE_DTYPES, "Tcontext_dense")
    ncs, nfs = attrs["Ncontext_sparse"], attrs["Nfeature_list_sparse"]
    return ([_dtypes.int64] * ncs + list(attrs["context_sparse_types"]) + [_dtypes.int64] * ncs +
            list(attrs["Tcontext_dense"]) + [_dtypes.int64] * nfs +
            list(attrs["feature_list_sparse_types"]) + [_dtypes.int64] * nfs +
            list(attrs["feature_list_dense_types"]) +
            [_dtypes.int64] * attrs["Nfeature_list_dense"])


class _SequenceParser:
    """One ``SequenceExample`` and TF's messages about it."""

    def __init__(self, serialized, debug_name):
        names = [as_text(n) for n in np.asarray(debug_name).reshape(-1)]
        self.name = names[0] if names and names[0] else "<unknown>"
        try:
            self.proto = protos.SequenceExample.FromString(as_bytes(np.asarray(serialized).item()))
        except DecodeError:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid protocol message input, example id: {self.name}") \
                from None

    def context(self, key, dtype):
        fmap = self.proto.context.feature
        if key not in fmap or fmap[key].WhichOneof("kind") is None:
            return None
        kind = fmap[key].WhichOneof("kind")
        if kind != _KIND[dtype]:
            raise errors.InvalidArgumentError(
                None, None, f"Name: {self.name}, Context feature: {key}.  Data types don't "
                f"match. Expected type: {_TF_NAME[dtype]}")
        return _feature_values(fmap[key], dtype)

    def context_dense(self, key, dtype, shape, default):
        dims = as_shape(shape).as_list()
        values = self.context(key, dtype)
        if values is None and np.size(default):
            return np.asarray(default).reshape(dims)
        got = 0 if values is None else len(values)
        if got != math.prod(dims):
            raise errors.InvalidArgumentError(
                None, None, f"Inconsistent max number of elements for feature {key}: expected "
                f"{math.prod(dims)}, but found {got}")
        return values.reshape(dims)

    def context_sparse(self, key, dtype):
        values = self.context(key, dtype)
        if values is None:
            values = np.empty(0, dtype=dtype.as_numpy_dtype)
        n = len(values)
        return np.arange(n, dtype=np.int64).reshape(-1, 1), values, np.array([n], np.int64)

    def feature_list(self, key, dtype):
        """The values of each step of feature list ``key``, or None when it is missing."""
        lists = self.proto.feature_lists.feature_list
        if key not in lists:
            return None
        steps = []
        for t, feature in enumerate(lists[key].feature):
            kind = feature.WhichOneof("kind")
            if kind is not None and kind != _KIND[dtype]:
                raise errors.InvalidArgumentError(
                    None, None, f"Name: {self.name}, Feature list: {key}, Index: {t}.  Data "
                    f"types don't match. Expected type: {_TF_NAME[dtype]}")
            steps.append(_feature_values(feature, dtype))
        return steps

    def list_dense(self, key, dtype, shape, allow_missing):
        dims = as_shape(shape).as_list()
        steps = self.feature_list(key, dtype)
        if steps is None:
            if not allow_missing:
                raise errors.InvalidArgumentError(
                    None, None, f"Name: {self.name}, Feature list '{key}' is required but "
                    "could not be found.  Did you mean to include it in "
                    "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
            steps = []
        for t, values in enumerate(steps):
            if len(values) != math.prod(dims):
                raise errors.InvalidArgumentError(
                    None, None, f"Name: {self.name}, Key: {key}, Index: {t}.  Number of values "
                    f"!= expected.  values size: {len(values)} but output shape: "
                    f"{_dims(dims)}")
        out = np.empty([len(steps)] + dims, dtype=dtype.as_numpy_dtype)
        for t, values in enumerate(steps):
            out[t] = values.reshape(dims)
        return out, np.array(len(steps), np.int64)

    def list_sparse(self, key, dtype):
        steps = self.feature_list(key, dtype) or []
        counts = [len(v) for v in steps]
        values = np.empty(sum(counts), dtype=dtype.as_numpy_dtype)
        if steps:
            values[:] = np.concatenate(steps)
        indices = np.array([[t, j] for t, c in enumerate(counts) for j in range(c)],
                           dtype=np.int64).reshape(-1, 2)
        return indices, values, np.array([len(steps), max(counts, default=0)], np.int64)


def _parse_one_sequence(serialized, debug_name, keys, context_defaults, attrs):
    """One SequenceExample's outputs, as lists: context sparse and dense, feature-list
    sparse and dense (each dense one with its length)."""
    parser = _SequenceParser(serialized, debug_name)
    ctx_keys, ctx_dense_keys, fl_keys, fl_dense_keys, missing_ok = keys
    ctx_sparse = [parser.context_sparse(k, t) for k, t in
                  zip(ctx_keys, attrs["context_sparse_types"])]
    ctx_dense = [parser.context_dense(k, t, s, d) for k, t, s, d in
                 zip(ctx_dense_keys, attrs["Tcontext_dense"],
                     attrs["context_dense_shapes"], context_defaults)]
    fl_sparse = [parser.list_sparse(k, t) for k, t in
                 zip(fl_keys, attrs["feature_list_sparse_types"])]
    fl_dense = [parser.list_dense(k, t, s, bool(m)) for k, t, s, m in
                zip(fl_dense_keys, attrs["feature_list_dense_types"],
                    attrs["feature_list_dense_shapes"], missing_ok)]
    return ctx_sparse, ctx_dense, fl_sparse, fl_dense


def _batch_sparse(parts):
    """Per-example (indices, values, shape) as one batch: the example's position in front
    of each index, the dense shape the largest of each dimension."""
    indices = [np.concatenate([np.full((len(ix), 1), b, np.int64), ix], axis=1)
               for b, (ix, _, _) in enumerate(parts)]
    rank = len(parts[0][2]) if parts else 0
    shape = np.max([p[2] for p in parts], axis=0) if parts else np.zeros(rank, np.int64)
    return (np.concatenate(indices).reshape(-1, rank + 1) if indices
            else np.zeros((0, rank + 1), np.int64),
            np.concatenate([p[1] for p in parts]) if parts else np.empty(0),
            np.concatenate([[len(parts)], shape]).astype(np.int64))


def _batch_list_dense(parts, dtype, shape):
    """Feature-list values ``[steps] + shape`` of each example, padded (zeros, b"") to the
    longest: ``[batch, longest] + shape``, and each one's length."""
    lengths = np.array([len(values) for values, _ in parts], np.int64)
    longest = int(lengths.max()) if len(parts) else 0
    out = np.zeros([len(parts), longest] + as_shape(shape).as_list(), dtype.as_numpy_dtype)
    if dtype == _dtypes.string:
        out.fill(b"")
    for b, (values, _) in enumerate(parts):
        out[b, :len(values)] = values
    return out, lengths


def _columns(rows, n):
    """The rows' first items, then their second items, ...: the order of TF's outputs for
    a group of sparse (indices, values, shapes) or list dense (values, lengths) features."""
    return [row[j] for j in range(n) for row in rows]


def _batch_sequences(examples, attrs):
    """The op's outputs for a batch, from each example's ``_parse_one_sequence`` lists."""
    sparse = []
    for part, types in ((0, attrs["context_sparse_types"]),
                        (2, attrs["feature_list_sparse_types"])):
        merged = [_batch_sparse([e[part][i] for e in examples]) for i in range(len(types))]
        sparse.append(_columns([(ix, v.astype(t.as_numpy_dtype), sh)
                                for (ix, v, sh), t in zip(merged, types)], 3))
    ctx_dense = [np.stack([e[1][i] for e in examples]) if examples else
                 np.zeros([0] + as_shape(s).as_list(), t.as_numpy_dtype)
                 for i, (t, s) in enumerate(zip(attrs["Tcontext_dense"],
                                                attrs["context_dense_shapes"]))]
    fl_dense = [_batch_list_dense([e[3][i] for e in examples], t, s)
                for i, (t, s) in enumerate(zip(attrs["feature_list_dense_types"],
                                               attrs["feature_list_dense_shapes"]))]
    return _kernel_outputs(sparse[0] + ctx_dense + sparse[1] + _columns(fl_dense, 2))


def _parse_sequence_example_kernel(serialized, debug_name, context_sparse_keys,
                                   context_dense_keys, context_ragged_keys,
                                   feature_list_sparse_keys, feature_list_dense_keys,
                                   feature_list_ragged_keys,
                                   feature_list_dense_missing_assumed_empty, *context_defaults,
                                   **attrs):
    def names(k):
        return [as_text(x) for x in np.asarray(k).reshape(-1)]

    keys = (names(context_sparse_keys), names(context_dense_keys),
            names(feature_list_sparse_keys), names(feature_list_dense_keys),
            np.asarray(feature_list_dense_missing_assumed_empty).reshape(-1))
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim == 0:
        cs, cd, fs, fd = _parse_one_sequence(serialized, debug_name, keys, context_defaults,
                                             attrs)
        return _kernel_outputs(_columns(cs, 3) + cd + _columns(fs, 3) + _columns(fd, 2))
    debug = np.asarray(debug_name, dtype=object).reshape(-1)
    # (each as a 0-d object array: NumPy's bytes scalars drop trailing NULs)
    examples = [_parse_one_sequence(serialized[b:b + 1].reshape(()), debug[b:b + 1], keys,
                                    context_defaults, attrs)
                for b in range(len(serialized))]
    return _batch_sequences(examples, attrs)


def _parse_sequence_example_num_outputs(attrs, n_inputs):
    return (3 * attrs["Ncontext_sparse"] + len(attrs["Tcontext_dense"]) +
            3 * attrs["Nfeature_list_sparse"] + 2 * attrs["Nfeature_list_dense"])


parse_sequence_example_v2_op = OpDef(
    "ParseSequenceExampleV2", shape=_parse_sequence_example_shape,
    dtype=_parse_sequence_example_dtype, kernel=_parse_sequence_example_kernel,
    attrs={name: (0 if name.startswith("N") else ()) for name in _SEQ_ATTRS},
    num_outputs=_parse_sequence_example_num_outputs, grad=NO_GRADIENT,
    input_names=("serialized", "debug_name", "context_sparse_keys", "context_dense_keys",
                 "context_ragged_keys", "feature_list_sparse_keys", "feature_list_dense_keys",
                 "feature_list_ragged_keys", "feature_list_dense_missing_assumed_empty",
                 "context_dense_defaults"))


def _sequence_feature_keys(context_features, sequence_features):
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    for key, f in context_features.items():
        if not isinstance(f, (FixedLenFeature, VarLenFeature)):
            raise ValueError(f"Unsupported context feature type for {key}: {type(f).__name__}")
    for key, f in sequence_features.items():
        if not isinstance(f, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(f"Unsupported sequence feature type for {key}: "
                             f"{type(f).__name__}")
        if isinstance(f, FixedLenSequenceFeature) and f.default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
    return context_features, sequence_features


def _parse_sequence(serialized, context_features, sequence_features, debug_name):
    """Builds the ParseSequenceExampleV2 op (in the current name scope) and returns its
    outputs as TF's three dicts: context, feature lists, feature-list lengths."""
    ctx_keys = sorted(context_features)
    ctx_sparse = [k for k in ctx_keys if isinstance(context_features[k], VarLenFeature)]
    ctx_dense = [k for k in ctx_keys if k not in ctx_sparse]
    fl_keys = sorted(sequence_features)
    fl_sparse = [k for k in fl_keys if isinstance(sequence_features[k], VarLenFeature)]
    fl_dense = [k for k in fl_keys if k not in fl_sparse]
    defaults, shapes = [], []
    for k in ctx_dense:
        f = context_features[k]
        dtype = _dtypes.as_dtype(f.dtype)
        shapes.append(as_shape(f.shape))
        defaults.append(_dense_default(k, f, dtype, shapes[-1]))
    op = parse_sequence_example_v2_op.create(
        [serialized, debug_name, _keys(ctx_sparse), _keys(ctx_dense),
         _keys([]), _keys(fl_sparse), _keys(fl_dense), _keys([]),
         np.array([bool(sequence_features[k].allow_missing) for k in fl_dense],
                  dtype=bool)] + defaults,
        {"Ncontext_sparse": len(ctx_sparse),
         "Tcontext_dense": [_dtypes.as_dtype(context_features[k].dtype) for k in ctx_dense],
         "Nfeature_list_dense": len(fl_dense), "Nfeature_list_sparse": len(fl_sparse),
         "context_sparse_types": [_dtypes.as_dtype(context_features[k].dtype)
                                  for k in ctx_sparse],
         "context_ragged_value_types": [], "context_ragged_split_types": [],
         "feature_list_dense_types": [_dtypes.as_dtype(sequence_features[k].dtype)
                                      for k in fl_dense],
         "feature_list_sparse_types": [_dtypes.as_dtype(sequence_features[k].dtype)
                                       for k in fl_sparse],
         "feature_list_ragged_value_types": [], "feature_list_ragged_split_types": [],
         "context_dense_shapes": shapes,
         "feature_list_dense_shapes": [as_shape(sequence_features[k].shape)
                                       for k in fl_dense]},
        name="ParseSequenceExampleV2")
    outs = list(op.outputs)
    ncs, ncd, nfs, nfd = len(ctx_sparse), len(ctx_dense), len(fl_sparse), len(fl_dense)
    context = {k: SparseTensor(outs[i], outs[ncs + i], outs[2 * ncs + i])
               for i, k in enumerate(ctx_sparse)}
    context.update({k: outs[3 * ncs + i] for i, k in enumerate(ctx_dense)})
    base = 3 * ncs + ncd
    lists = {k: SparseTensor(outs[base + i], outs[base + nfs + i], outs[base + 2 * nfs + i])
             for i, k in enumerate(fl_sparse)}
    lists.update({k: outs[base + 3 * nfs + i] for i, k in enumerate(fl_dense)})
    lengths = {k: outs[base + 3 * nfs + nfd + i] for i, k in enumerate(fl_dense)}
    return context, lists, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one serialized ``SequenceExample``: returns ``(context, feature_lists)``, two
    dicts of tensors. Context features are parsed as ``parse_single_example``'s; a
    ``FixedLenSequenceFeature`` of a feature list is a ``[steps] + shape`` tensor (required
    unless ``allow_missing``), a ``VarLenFeature`` a ``SparseTensor`` ``[steps, longest]``."""
    if not context_features and not sequence_features:
        raise ValueError("Both context_features and sequence_features are None, but at least "
                         "one should have values.")
    context_features, sequence_features = _sequence_feature_keys(context_features,
                                                                 sequence_features)
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        serialized = string_input(serialized, "serialized")
        if serialized.shape.ndims not in (None, 0):
            raise ValueError("Input serialized must be a scalar")
        with name_scope(None, "ParseSequenceExample"):
            context, lists, _ = _parse_sequence(serialized, context_features,
                                                sequence_features, example_name or "")
    return context, lists


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a batch (a vector) of serialized ``SequenceExample`` protos: returns
    ``(context, feature_lists, lengths)``. Each tensor has the batch dimension first; a
    ``FixedLenSequenceFeature`` is ``[batch, longest] + shape``, padded with zeros (``b""``),
    and ``lengths[key]`` (int64 ``[batch]``) gives each example's number of steps; a
    ``VarLenFeature`` of a feature list is a ``SparseTensor`` ``[batch, steps, values]``.

    >>> import scopeflow as tf
    >>> T = tf.train
    >>> ex = T.SequenceExample(feature_lists=T.FeatureLists(feature_list={"x": T.FeatureList(
    ...     feature=[T.Feature(int64_list=T.Int64List(value=[4]))] * 2)}))
    >>> _, lists, lengths = parse_sequence_example(
    ...     [ex.SerializeToString()] * 2, sequence_features={
    ...         "x": tf.FixedLenSequenceFeature([], tf.int64)})
    >>> tf.Session().run(lengths["x"]).tolist()
    [2, 2]
    """
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, "
                         "but at least one should have values.")
    context_features, sequence_features = _sequence_feature_keys(context_features,
                                                                 sequence_features)
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        with name_scope(name, "ParseSequenceExample", [serialized]):
            debug = [] if example_names is None else example_names
            debug = debug if isinstance(debug, Tensor) else _keys(list(debug))
            serialized = string_input(serialized, "serialized")
            return _parse_sequence(serialized, context_features, sequence_features, debug)
