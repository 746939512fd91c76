"""TF 1.15's feature columns (``tf.compat.v1.feature_column``) on scopeflow's ops.

A feature column describes how one entry of a features dict (a dense Tensor or a
SparseTensor, as ``tf.parse_example`` gives) becomes model input. Categorical columns turn
their feature into a SparseTensor of ids (plus optional weights); dense columns
(``numeric_column``, ``indicator_column``, ``embedding_column``) turn it into a float Tensor
that ``input_layer`` concatenates, in the order of the columns' names, under TF's scopes.
``linear_model`` builds TF1's per-column ``weights`` and one ``bias_weights``. Variable
names, shapes, initializers (and so, under a graph seed, initial values) are TF's.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from scopeflow.feature_column.utils import sequence_length_from_sparse_tensor
from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import indexing_ops, layout_ops, shape_ops, slicing_ops
from scopeflow.ops.array.indexing_ops import one_hot
from scopeflow.ops.array.scatter_nd_ops import gather_nd, scatter_nd
from scopeflow.ops.io.parsing_ops import FixedLenFeature, VarLenFeature
from scopeflow.ops.logging import check_ops
from scopeflow.ops.lookup.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    TextFileIndex,
    TextFileInitializer,
)
from scopeflow.ops.math import arithmetic_ops, matmul_ops, reduction_ops
from scopeflow.ops.math.bucketize_ops import bucketize
from scopeflow.ops.nn.conv_ops import bias_add
from scopeflow.ops.sparse import sparse_layout_ops, sparse_ops
from scopeflow.ops.sparse.sparse_cross_ops import sparse_cross_hashed
from scopeflow.ops.sparse.sparse_ops import embedding_lookup_sparse
from scopeflow.ops.state.init_ops import truncated_normal_initializer, zeros_initializer
from scopeflow.ops.strings.hash_ops import string_to_hash_bucket_fast
from scopeflow.ops.strings.string_ops import as_string
from scopeflow.state.variable_scope import get_variable, variable_scope

__all__ = ["numeric_column", "bucketized_column", "crossed_column",
           "categorical_column_with_identity",
           "categorical_column_with_hash_bucket", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "indicator_column", "embedding_column",
           "weighted_categorical_column", "input_layer", "linear_model",
           "make_parse_example_spec", "shared_embedding_columns"]

IdWeightPair = collections.namedtuple("IdWeightPair", ("id_tensor", "weight_tensor"))


# ── reading features ─────────────────────────────────────────────────────────────────
class _Features:
    """The features dict, each key's input converted (and a rank-1 input made rank 2) once,
    as TF's ``_LazyBuilder`` does, so that columns sharing a key share its ops."""

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key, state_manager=None):
        """``key``'s input; a column as key gets its transformed feature (TF's
        ``FeatureTransformationCache.get``), made once."""
        if key in self._cache:
            return self._cache[key]
        if not isinstance(key, str):
            value = key.transform_feature(self, state_manager)
            self._cache[key] = value
            return value
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        value = self._features[key]
        if not isinstance(value, SparseTensor):
            value = convert_to_tensor(value)
        value = _maybe_expand_dim(value)
        self._cache[key] = value
        return value


def _maybe_expand_dim(value):
    """A rank-1 batch of scalars becomes a [batch, 1] input (TF's ``_maybe_expand_dim``)."""
    if isinstance(value, SparseTensor):
        rank = value.dense_shape.shape.as_list()[0] if value.dense_shape.shape.rank else None
        if rank == 1:
            return sparse_layout_ops.sparse_reshape(value, [-1, 1])
        return value
    if value.shape.rank is None:
        raise ValueError(f"Feature (key: ...) cannot have rank 0 or unknown rank: {value}")
    if value.shape.rank == 0:
        raise ValueError(f"Feature {value} cannot have rank 0. Give it shape [batch_size, 1].")
    if value.shape.rank == 1:
        return shape_ops.expand_dims(value, -1)
    return value


def _to_sparse_input(value, ignore_value=None):
    """A dense categorical input becomes a SparseTensor of its entries other than
    ``ignore_value`` ('' for strings, -1 for integers), as TF drops them."""
    if isinstance(value, SparseTensor):
        return value
    with name_scope(None, "to_sparse_input", [value]):
        if ignore_value is None:
            ignore_value = "" if value.dtype == dtypes.string else -1
        ignore = convert_to_tensor(ignore_value, dtype=value.dtype, name="ignore_value")
        indices = reduction_ops.where(arithmetic_ops.not_equal(value, ignore), name="indices")
        return SparseTensor(indices=indices,
                            values=gather_nd(value, indices, name="values"),
                            dense_shape=shape_ops.shape(value, out_type=dtypes.int64,
                                                        name="dense_shape"))


# ── column classes ───────────────────────────────────────────────────────────────────
class _FeatureColumn:
    """What every column has: a name (its scope name by default) and a parse spec."""

    @property
    def _var_scope_name(self):
        return self.name

    def __repr__(self):
        return f"{type(self).__name__.lstrip('_')}(name={self.name!r})"


class _DenseColumn(_FeatureColumn):
    """A column ``input_layer`` reads: ``_get_dense_tensor`` gives [batch, ...shape]."""


class _CategoricalColumn(_FeatureColumn):
    """A column of ids in ``[0, _num_buckets)``: ``_get_sparse_tensors`` gives them."""


class _SequenceCategoricalColumn(_CategoricalColumn):
    """A categorical column over sequences: its ids are [batch, steps, ids per step].
    Embedding and indicator columns over one give per-step tensors through
    ``_get_sequence_dense_tensor`` and refuse ``_get_dense_tensor`` (``input_layer``), as
    in TF (sequence_feature_column.py has the columns)."""


def _check_sequence(column, kind, sequence):
    """TF's errors for a sequence column where a dense one is read and the reverse."""
    inner = column.categorical_column
    if sequence and not isinstance(inner, _SequenceCategoricalColumn):
        seq_type = "_SequenceCategoricalColumn" if kind == "indicator" else \
            "SequenceCategoricalColumn"
        raise ValueError(f"In {kind}_column: {column.name}. categorical_column must be of "
                         f"type {seq_type} to use SequenceFeatures. Suggested fix: Use one "
                         f"of sequence_categorical_column_with_*. Given (type "
                         f"{type(inner)}): {inner}")
    if not sequence and isinstance(inner, _SequenceCategoricalColumn):
        raise ValueError(f"In {kind}_column: {column.name}. categorical_column must not be "
                         f"of type _SequenceCategoricalColumn. Suggested fix A: If you wish "
                         f"to use DenseFeatures, use a non-sequence categorical_column_with_*."
                         f" Suggested fix B: If you wish to create sequence input, use "
                         f"SequenceFeatures instead of DenseFeatures. Given (type "
                         f"{type(inner)}): {inner}")


TensorSequenceLengthPair = collections.namedtuple(
    "TensorSequenceLengthPair", ("dense_tensor", "sequence_length"))


class _NumericColumn(_DenseColumn):
    def __init__(self, key, shape, default_value, dtype, normalizer_fn):
        self.key, self.shape, self.default_value = key, shape, default_value
        self.dtype, self.normalizer_fn = dtype, normalizer_fn

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def _variable_shape(self):
        return TensorShape(self.shape)

    def _get_dense_tensor(self, features, weight_collections=None, trainable=None):
        value = features.get(self.key)
        if isinstance(value, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return arithmetic_ops.cast(value, dtypes.float32)


class _BucketizedColumn(_DenseColumn, _CategoricalColumn):
    """A numeric column's values as bucket ids among ``boundaries``: dense, a one-hot per
    value; categorical, id ``bucket + i * (len(boundaries) + 1)`` for the i-th value."""

    def __init__(self, source_column, boundaries):
        self.source_column, self.boundaries = source_column, boundaries

    name = property(lambda self: f"{self.source_column.name}_bucketized")
    _parse_example_spec = property(lambda self: self.source_column._parse_example_spec)
    _variable_shape = property(
        lambda self: TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,)))
    _num_buckets = property(lambda self: int(np.prod(self.source_column.shape))
                            * (len(self.boundaries) + 1))

    def _buckets(self, features):
        source = self.source_column._get_dense_tensor(features)
        return bucketize(source, boundaries=self.boundaries)

    def _get_dense_tensor(self, features, weight_collections=None, trainable=None):
        buckets = self._buckets(features)
        return one_hot(arithmetic_ops.cast(buckets, dtypes.int64),
                       depth=len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        buckets = self._buckets(features)
        batch_size = shape_ops.shape(buckets)[0]
        source_dims = int(np.prod(self.source_column.shape))
        rows = shape_ops.reshape(
            reduction_ops.tile(shape_ops.expand_dims(arithmetic_ops.range(0, batch_size), 1),
                               [1, source_dims]), (-1,))
        cols = reduction_ops.tile(arithmetic_ops.range(0, source_dims),
                                  layout_ops.stack([batch_size]))
        ids = arithmetic_ops.add(shape_ops.reshape(buckets, (-1,)),
                                 arithmetic_ops.multiply(len(self.boundaries) + 1, cols))
        indices = arithmetic_ops.cast(layout_ops.transpose(layout_ops.stack((rows, cols))),
                                      dtypes.int64)
        dense_shape = arithmetic_ops.cast(layout_ops.stack([batch_size, source_dims]),
                                          dtypes.int64)
        return IdWeightPair(SparseTensor(indices, arithmetic_ops.cast(ids, dtypes.int64),
                                         dense_shape), None)


class _IdentityCategoricalColumn(_CategoricalColumn):
    def __init__(self, key, num_buckets, default_value):
        self.key, self.num_buckets, self.default_value = key, num_buckets, default_value

    name = property(lambda self: self.key)
    _num_buckets = property(lambda self: self.num_buckets)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(dtypes.int64)})

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        value = _to_sparse_input(features.get(self.key))
        if not value.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {value.dtype}")
        values = arithmetic_ops.cast(value.values, dtypes.int64, name="values")
        num_buckets = convert_to_tensor(self.num_buckets, dtypes.int64, name="num_buckets")
        zero = convert_to_tensor(0, dtypes.int64, name="zero")
        if self.default_value is None:
            # Out-of-range ids are an error at run time, as in TF.
            less = check_ops.assert_less(values, num_buckets, data=(values, num_buckets),
                                         name="assert_less_than_num_buckets")
            greater = check_ops.assert_greater_equal(values, zero, data=(values,),
                                                     name="assert_greater_or_equal_0")
            with control_dependencies((less, greater)):
                values = shape_ops.identity(values)
        else:
            bad = arithmetic_ops.logical_or(arithmetic_ops.less(values, zero),
                                            arithmetic_ops.greater_equal(values, num_buckets))
            values = reduction_ops.where(
                bad, reduction_ops.fill(shape_ops.shape(values),
                                    convert_to_tensor(self.default_value, dtypes.int64)),
                values)
        return IdWeightPair(SparseTensor(value.indices, values, value.dense_shape), None)


class _HashedCategoricalColumn(_CategoricalColumn):
    def __init__(self, key, hash_bucket_size, dtype):
        self.key, self.hash_bucket_size, self.dtype = key, hash_bucket_size, dtype

    name = property(lambda self: self.key)
    _num_buckets = property(lambda self: self.hash_bucket_size)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        value = _to_sparse_input(features.get(self.key))
        if not (value.dtype == dtypes.string or value.dtype.is_integer):
            raise ValueError("Only integer and string are supported; got "
                             f"{value.dtype}; key: {self.key}")
        strings = value.values
        if value.dtype != dtypes.string:
            strings = as_string(strings)
        ids = string_to_hash_bucket_fast(strings, self.hash_bucket_size, name="lookup")
        return IdWeightPair(SparseTensor(value.indices, ids, value.dense_shape), None)


class _VocabularyColumn(_CategoricalColumn):
    """Ids from a vocabulary (a list or a file, one entry a line): an entry's position,
    else ``default_value`` or, with OOV buckets, ``vocabulary_size + hash % num_oov``
    (TF's ``index_table_from_*`` with its fast string hash)."""

    def __init__(self, key, vocabulary, vocabulary_size, dtype, default_value,
                 num_oov_buckets, from_file):
        self.key, self.dtype, self.default_value = key, dtype, default_value
        self.vocabulary, self.vocabulary_size = vocabulary, vocabulary_size
        self.num_oov_buckets, self._from_file = num_oov_buckets, from_file

    name = property(lambda self: self.key)
    _num_buckets = property(lambda self: self.vocabulary_size + self.num_oov_buckets)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        value = _to_sparse_input(features.get(self.key))
        if self.dtype.is_integer != value.dtype.is_integer:
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                             f"{self.key}, column dtype: {self.dtype}, tensor dtype: "
                             f"{value.dtype}")
        key_dtype = dtypes.int64 if self.dtype.is_integer else dtypes.string
        values = value.values
        if values.dtype != key_dtype:
            values = arithmetic_ops.cast(values, key_dtype)
        with name_scope(None, f"{self.key}_lookup"):
            if self._from_file:
                init = TextFileInitializer(self.vocabulary, key_dtype, TextFileIndex.WHOLE_LINE,
                                           dtypes.int64, TextFileIndex.LINE_NUMBER,
                                           vocab_size=self.vocabulary_size)
            else:
                init = KeyValueTensorInitializer(
                    convert_to_tensor(list(self.vocabulary), key_dtype),
                    np.arange(len(self.vocabulary), dtype=np.int64))
            default = -1 if self.num_oov_buckets else self.default_value
            ids = StaticHashTable(init, default).lookup(values)
            if self.num_oov_buckets:
                strings = values if key_dtype == dtypes.string else as_string(values)
                hashed = arithmetic_ops.add(
                    string_to_hash_bucket_fast(strings, self.num_oov_buckets),
                    convert_to_tensor(self.vocabulary_size, dtypes.int64))
                missing = arithmetic_ops.equal(ids, convert_to_tensor(-1, dtypes.int64))
                ids = reduction_ops.where(missing, hashed, ids)
        return IdWeightPair(SparseTensor(value.indices, ids, value.dense_shape), None)


class _CrossedColumn(_CategoricalColumn):
    """The hashed cross of string features and categorical columns (SparseCross hashed):
    one id per combination of one entry of each, in ``[0, hash_bucket_size)``."""

    def __init__(self, keys, hash_bucket_size, hash_key):
        self.keys, self.hash_bucket_size, self.hash_key = keys, hash_bucket_size, hash_key

    def _leaf_keys(self):
        leaves = []
        for key in self.keys:
            leaves.extend(key._leaf_keys() if isinstance(key, _CrossedColumn) else [key])
        return leaves

    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name
                                 for k in self._leaf_keys()))

    _num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def _parse_example_spec(self):
        spec = {}
        for key in self.keys:
            if isinstance(key, str):
                spec[key] = VarLenFeature(dtypes.string)
            else:
                spec.update(key._parse_example_spec)
        return spec

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        inputs = []
        for key in self._leaf_keys():
            if isinstance(key, str):
                inputs.append(features.get(key))
                continue
            ids, weights = key._get_sparse_tensors(features)
            if weights is not None:
                raise ValueError("crossed_column does not support weight_tensor, but the "
                                 f"given column populates weight_tensor. Given column: "
                                 f"{key.name}")
            inputs.append(ids)
        crossed = sparse_cross_hashed(inputs=inputs, num_buckets=self.hash_bucket_size,
                                      hash_key=self.hash_key)
        return IdWeightPair(crossed, None)


class _WeightedCategoricalColumn(_CategoricalColumn):
    def __init__(self, categorical_column, weight_feature_key, dtype):
        self.categorical_column = categorical_column
        self.weight_feature_key, self.dtype = weight_feature_key, dtype

    name = property(lambda self: f"{self.categorical_column.name}_weighted_by_"
                                 f"{self.weight_feature_key}")
    _num_buckets = property(lambda self: self.categorical_column._num_buckets)

    @property
    def _parse_example_spec(self):
        spec = dict(self.categorical_column._parse_example_spec)
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        ids = self.categorical_column._get_sparse_tensors(features).id_tensor
        weights = features.get(self.weight_feature_key)
        weights = _to_sparse_input(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices,
                                   arithmetic_ops.cast(weights.values, dtypes.float32),
                                   weights.dense_shape)
        return IdWeightPair(ids, weights)


class _IndicatorColumn(_DenseColumn):
    def __init__(self, categorical_column):
        self.categorical_column = categorical_column

    name = property(lambda self: f"{self.categorical_column.name}_indicator")
    _parse_example_spec = property(lambda self: self.categorical_column._parse_example_spec)
    _variable_shape = property(
        lambda self: TensorShape([1, self.categorical_column._num_buckets]))

    def _get_dense_tensor(self, features, weight_collections=None, trainable=None):
        _check_sequence(self, "indicator", sequence=False)
        return self._multi_hot(self.categorical_column._get_sparse_tensors(features))

    def _get_sequence_dense_tensor(self, features, weight_collections=None, trainable=None):
        """[batch, steps, num_buckets] multi-hot steps and each example's step count."""
        _check_sequence(self, "indicator", sequence=True)
        pair = self.categorical_column._get_sparse_tensors(features)
        return TensorSequenceLengthPair(
            self._multi_hot(pair), sequence_length_from_sparse_tensor(pair.id_tensor))

    def _multi_hot(self, pair):
        ids, weights = pair
        depth = self.categorical_column._num_buckets
        if weights is not None:
            # Each row's weights summed per id: a scatter into [batch, depth].
            rows = indexing_ops.strided_slice(ids.indices, [0, 0], [0, 1], [1, 1],
                                             begin_mask=1, end_mask=1)
            idx = slicing_ops.concat([rows, shape_ops.expand_dims(ids.values, 1)], 1)
            batch = indexing_ops.strided_slice(ids.dense_shape, [0], [1], [1])
            dense_shape = slicing_ops.concat(
                [batch, convert_to_tensor([depth], dtypes.int64)], 0)
            return scatter_nd(idx, weights.values, dense_shape)
        dense_ids = sparse_ops.sparse_tensor_to_dense(ids, default_value=-1)
        onehot = one_hot(dense_ids, depth=depth, on_value=1.0, off_value=0.0)
        return reduction_ops.reduce_sum(onehot, axis=[-2])



def _safe_embedding_lookup_sparse(params, sp_ids, sp_weights=None, combiner="mean",
                                  name=None, max_norm=None):
    """TF's ``safe_embedding_lookup_sparse``: ids < 0 are dropped (and weights <= 0 unless
    the combiner is "sum"), rows left empty embed to zeros, and inputs of rank > 2 keep
    their leading dimensions; the graph follows TF's (flatten, prune, fill, combine)."""
    dim = params.shape.as_list()[-1]
    with name_scope(name, "embedding_lookup", [params, sp_ids]) as scope:
        original_shape = sp_ids.dense_shape
        rank = (original_shape.shape.as_list()[0] if original_shape.shape.rank
                else None)
        rank_t = rank if rank is not None else shape_ops.size(original_shape)
        new_shape = [reduction_ops.reduce_prod(
                         slicing_ops.slice(original_shape, [0], [rank_t - 1])),
                     indexing_ops.gather(original_shape, rank_t - 1)]
        sp_ids = sparse_layout_ops.sparse_reshape(sp_ids, new_shape)
        if sp_weights is not None:
            sp_weights = sparse_layout_ops.sparse_reshape(sp_weights, new_shape)
        valid = arithmetic_ops.greater_equal(sp_ids.values,
                                             convert_to_tensor(0, sp_ids.dtype))
        if combiner != "sum" and sp_weights is not None:
            valid = arithmetic_ops.logical_and(
                valid, arithmetic_ops.greater(sp_weights.values,
                                              convert_to_tensor(0, sp_weights.dtype)))
        sp_ids = sparse_layout_ops.sparse_retain(sp_ids, valid)
        if sp_weights is not None:
            sp_weights = sparse_layout_ops.sparse_retain(sp_weights, valid)
        sp_ids, is_row_empty = sparse_layout_ops.sparse_fill_empty_rows(sp_ids, 0)
        if sp_weights is not None:
            sp_weights, _ = sparse_layout_ops.sparse_fill_empty_rows(sp_weights, 1.0)
        result = embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=combiner,
                                         max_norm=max_norm)
        empty = reduction_ops.tile(
            shape_ops.reshape(is_row_empty, [-1, 1]),
            layout_ops.stack([1, shape_ops.shape(result)[1]]))
        result = reduction_ops.where(empty, reduction_ops.zeros_like(result), result,
                                     name=scope)
        out_shape = slicing_ops.concat(
            [slicing_ops.slice(arithmetic_ops.cast(original_shape, dtypes.int32), [0],
                               [rank_t - 1]),
             slicing_ops.slice(shape_ops.shape(result), [1], [-1])], 0)
        result = shape_ops.reshape(result, out_shape)
        if rank is not None:
            result.set_shape(TensorShape([None] * (rank - 1) + [dim]))
        return result


class _EmbeddingColumn(_DenseColumn):
    def __init__(self, categorical_column, dimension, combiner, initializer, max_norm,
                 trainable, shared_name=None):
        self.categorical_column, self.dimension = categorical_column, dimension
        self.combiner, self.initializer = combiner, initializer
        self.max_norm, self.trainable = max_norm, trainable
        self.shared_embedding_collection_name = shared_name

    @property
    def name(self):
        suffix = "shared_embedding" if self.shared_embedding_collection_name else "embedding"
        return f"{self.categorical_column.name}_{suffix}"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name or self.name

    _parse_example_spec = property(lambda self: self.categorical_column._parse_example_spec)
    _variable_shape = property(lambda self: TensorShape([self.dimension]))

    def _get_dense_tensor(self, features, weight_collections=None, trainable=None):
        _check_sequence(self, "embedding", sequence=False)
        return self._embed(self.categorical_column._get_sparse_tensors(features),
                           weight_collections, trainable)

    def _get_sequence_dense_tensor(self, features, weight_collections=None, trainable=None):
        """[batch, steps, dimension] embeddings of each step's ids and the step counts."""
        _check_sequence(self, "embedding", sequence=True)
        pair = self.categorical_column._get_sparse_tensors(features)
        return TensorSequenceLengthPair(self._embed(pair, weight_collections, trainable),
                                        sequence_length_from_sparse_tensor(pair.id_tensor))

    def _embed(self, pair, weight_collections, trainable):
        ids, weights = pair
        shape = [self.categorical_column._num_buckets, self.dimension]
        trainable = self.trainable and (trainable is None or trainable)
        if self.shared_embedding_collection_name:
            # The group's columns share the one variable kept in the graph collection of
            # that name (TF's way), created by whichever column runs first.
            with name_scope(None, default_name=self.name):
                found = get_collection(self.shared_embedding_collection_name)
                if len(found) > 1:
                    raise ValueError(f"Collection {found} can only contain one variable.")
                if found:
                    weights_var = found[0]
                    if weights_var.shape != TensorShape(shape):
                        raise ValueError(
                            f"Shared embedding collection "
                            f"{self.shared_embedding_collection_name} contains variable "
                            f"{weights_var} of unexpected shape {weights_var.shape}. "
                            f"Expected shape is {TensorShape(shape)}.")
                else:
                    weights_var = get_variable("embedding_weights", shape=shape,
                                               dtype=dtypes.float32,
                                               initializer=self.initializer,
                                               trainable=trainable,
                                               collections=weight_collections)
                    add_to_collection(self.shared_embedding_collection_name, weights_var)
                return _safe_embedding_lookup_sparse(weights_var, ids, weights,
                                                     combiner=self.combiner,
                                                     name=f"{self.name}_weights",
                                                     max_norm=self.max_norm)
        weights_var = get_variable("embedding_weights", shape=shape, dtype=dtypes.float32,
                                   initializer=self.initializer, trainable=trainable,
                                   collections=weight_collections)
        return _safe_embedding_lookup_sparse(weights_var, ids, weights, combiner=self.combiner,
                                             name=f"{self.name}_weights",
                                             max_norm=self.max_norm)


# ── constructors ─────────────────────────────────────────────────────────────────────
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A dense column of ``key``'s real values, of per-example ``shape``."""
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(d) for d in shape)
    if any(d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                         f"key: {key}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if default_value is not None:
        default_value = tuple(np.broadcast_to(np.asarray(default_value,
                                                         dtype.as_numpy_dtype),
                                              shape).reshape(-1).tolist())
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def bucketized_column(source_column, boundaries):
    """``source_column`` (a numeric column) discretized at the sorted ``boundaries``."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. "
                         f"Given: {source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(float(b) for b in boundaries))


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer ids used as they are; out-of-range ids become ``default_value`` (or an
    error at run time when it is None)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return _IdentityCategoricalColumn(key, int(num_buckets), default_value)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids from hashing the (string form of the) values, as StringToHashBucketFast."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"column_name: {key} dtype must be string or integer. "
                         f"dtype: {dtype}.")
    return _HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


def _check_oov(key, default_value, num_oov_buckets):
    if num_oov_buckets is None or num_oov_buckets < 0:
        raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    if default_value not in (None, -1) and num_oov_buckets != 0:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    """Ids from positions in ``vocabulary_list`` (strings or integers)."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    kind = np.asarray(vocabulary_list)
    vocabulary_dtype = dtypes.string if kind.dtype.kind in "SUO" else dtypes.int64
    if dtype is None:
        dtype = vocabulary_dtype
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer != vocabulary_dtype.is_integer:
        raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not "
                         f"match, column_name: {key}")
    _check_oov(key, default_value, num_oov_buckets)
    return _VocabularyColumn(key, tuple(vocabulary_list), len(vocabulary_list), dtype,
                             default_value, num_oov_buckets, from_file=False)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """Ids from line numbers in ``vocabulary_file`` (its first ``vocabulary_size`` lines;
    all of them when None)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        with open(vocabulary_file, "rb") as handle:
            vocabulary_size = sum(1 for _ in handle)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    _check_oov(key, default_value, num_oov_buckets)
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"Invalid dtype {dtype} in {key}.")
    return _VocabularyColumn(key, vocabulary_file, vocabulary_size, dtype,
                             -1 if default_value is None else default_value,
                             num_oov_buckets, from_file=True)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed cross of ``keys`` (feature names of string features, or categorical
    columns other than hashed ones) into ``hash_bucket_size`` ids."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: "
                         f"{hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except _HashedCategoricalColumn. "
                             f"Given: {key}")
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for "
                             "crossing. Hashing before crossing will increase probability of "
                             "collision. Instead, use the feature name as a string. "
                             f"Given: {key}")
    return _CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column``'s ids, each weighted by ``weight_feature_key``'s value."""
    dtype = dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


def indicator_column(categorical_column):
    """A multi-hot [batch, num_buckets] encoding of a categorical column (weights summed
    for a weighted column)."""
    return _IndicatorColumn(categorical_column)


def _default_initializer(dimension):
    return truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True):
    """A dense [batch, dimension] embedding of a categorical column, the ids of a row
    combined by ``combiner``; the table is ``<scope>/<col>_embedding/embedding_weights``."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` "
                         "or none of them.")
    if ckpt_to_load_from is not None:
        raise NotImplementedError("embedding_column: ckpt_to_load_from is not supported")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    return _EmbeddingColumn(categorical_column, dimension, combiner,
                            initializer or _default_initializer(dimension), max_norm, trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True,
                             use_safe_embedding_lookup=True):
    """Embedding columns, one per categorical column (of one kind and bucket count), that
    share one table ``<scope>/<collection name>/embedding_weights``."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` "
                         "or none of them.")
    if ckpt_to_load_from is not None:
        raise NotImplementedError("shared_embedding_columns: ckpt_to_load_from is not "
                                  "supported")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    categorical_columns = list(categorical_columns)
    sorted_columns = sorted(categorical_columns, key=lambda c: c.name)
    if not isinstance(sorted_columns[0], _CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. "
                         f"Given: {sorted_columns[0]}, of type: {type(sorted_columns[0])}")
    num_buckets = sorted_columns[0]._num_buckets

    def base(column):
        while isinstance(column, (_WeightedCategoricalColumn, _SequenceCategoricalColumn)):
            column = column.categorical_column
        return column

    first = base(sorted_columns[0])
    for column in sorted_columns[1:]:
        if not isinstance(base(column), type(first)):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same type, or be weighted_categorical_column or "
                             f"sequence column of the same type. Given column: {first} of "
                             f"type: {type(first)} does not match given column: "
                             f"{base(column)} of type: {type(base(column))}")
        if column._num_buckets != num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. ven column: {first} with "
                             f"buckets: {num_buckets} does  not match column: {column} with "
                             f"buckets: {column._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted_columns)
        shared_embedding_collection_name += "_shared_embedding"
    initializer = initializer or _default_initializer(dimension)
    return [_EmbeddingColumn(column, dimension, combiner, initializer, max_norm, trainable,
                             shared_name=shared_embedding_collection_name)
            for column in categorical_columns]


def make_parse_example_spec(feature_columns):
    """The ``tf.parse_example`` features spec the columns need, merged by key."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. "
                             f"Given: {column}")
        for key, value in column._parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key}. Given {value} and {result[key]}")
        result.update(column._parse_example_spec)
    return result


# ── models ───────────────────────────────────────────────────────────────────────────
def _check_columns(feature_columns, kind):
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    names = set()
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            # A TF2-only column (sequence_numeric_column) is not a TF1 column at all.
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. "
                             f"Given (type {type(column)}): {column}.")
        if not isinstance(column, kind):
            raise ValueError(f"Items of feature_columns must be a {kind.__name__.lstrip('_')}. "
                             f"Given (type {type(column)}): {column}.")
        if column.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: {column}.")
        names.add(column.name)
    return sorted(feature_columns, key=lambda c: c.name)


def _weight_collections(weight_collections):
    """The collections a model's variables join: the given ones, global and model."""
    collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def _rows_flat(sparse):
    """``sparse`` as [batch, -1], as TF's linear model reshapes a column's ids."""
    batch = arithmetic_ops.cast(sparse.dense_shape[0], dtypes.int32)
    return sparse_layout_ops.sparse_reshape(sparse, layout_ops.stack([batch, -1]))


def _flatten(tensor, num_elements):
    batch_size = shape_ops.shape(tensor)[0]
    return shape_ops.reshape(tensor, shape=(batch_size, num_elements))


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense columns' tensors, each flattened to [batch, n], concatenated in the
    order of the columns' names (TF1's ``tf.feature_column.input_layer``)."""
    columns = _check_columns(feature_columns, _DenseColumn)
    weight_collections = _weight_collections(weight_collections)
    builder = _Features(features)
    values = [v for v in dict(features).values() if isinstance(v, Tensor)]
    with variable_scope(None, default_name="input_layer", values=values):
        outputs = []
        for column in columns:
            with variable_scope(None, default_name=column._var_scope_name):
                before = len(get_collection(GraphKeys.GLOBAL_VARIABLES))
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                output = _flatten(tensor, num_elements)
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES)[before:]
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        return slicing_ops.concat(outputs, 1)


def _linear_column_sum(column, builder, units, sparse_combiner, trainable, collections):
    """One column's ``weighted_sum`` in ``linear_model`` and its ``weights`` variable
    (made in the current variable scope)."""
    if isinstance(column, _CategoricalColumn):
        ids, weights = column._get_sparse_tensors(builder)
        # Every id of an example (any rank) counts towards its one row.
        ids = _rows_flat(ids)
        if weights is not None:
            weights = _rows_flat(weights)
        var = get_variable("weights", shape=(column._num_buckets, units),
                           initializer=zeros_initializer(), trainable=trainable,
                           collections=collections)
        total = _safe_embedding_lookup_sparse(var, ids, weights, combiner=sparse_combiner,
                                              name="weighted_sum")
        return total, var
    tensor = column._get_dense_tensor(builder)
    num_elements = column._variable_shape.num_elements()
    tensor = _flatten(tensor, num_elements)
    var = get_variable("weights", shape=(num_elements, units),
                       initializer=zeros_initializer(), trainable=trainable,
                       collections=collections)
    return matmul_ops.matmul(tensor, var, name="weighted_sum"), var


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """TF1's linear model: ``sum(column . linear_model/<col>/weights) + bias_weights``;
    categorical columns combine their rows' weights with ``sparse_combiner``."""
    columns = _check_columns(feature_columns, _FeatureColumn)
    for column in columns:
        if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    collections = _weight_collections(weight_collections)
    # As TF1's keras-style layers: the model's and each column's scope names are made
    # unique where linear_model is called (so a second model over a column uses
    # ``<col>_1``), then opened inside the model's scope.
    with variable_scope(None, default_name="linear_model") as scope:
        model_scope = scope
        model_name = scope.name.rsplit("/", 1)[-1]
    column_names = {}
    for column in columns:
        with variable_scope(None, default_name=column._var_scope_name) as scope:
            column_names[column] = scope.name.rsplit("/", 1)[-1]
    columns = sorted(columns, key=lambda c: column_names[c])
    builder = _Features(features)
    # TF's model layer is called under a name scope of its own name (so ops read
    # ``linear_model_1/linear_model/...`` while variables are ``linear_model/...``);
    # the model's variable scope is re-entered as the scope object (absolute), so
    # inside ``variable_scope('linear')`` variables are ``linear/linear_model/...``.
    with name_scope(model_name), \
            variable_scope(model_scope, auxiliary_name_scope=False), \
            name_scope(model_name):
        sums = []
        for column in columns:
            with variable_scope(column_names[column]):
                total, var = _linear_column_sum(column, builder, units, sparse_combiner,
                                                trainable, collections)
                sums.append(total)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [var]
        no_bias = arithmetic_ops.add_n(sums, name="weighted_sum_no_bias")
        bias = get_variable("bias_weights", shape=[units], initializer=zeros_initializer(),
                            trainable=trainable, collections=collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return bias_add(no_bias, bias, name="weighted_sum")
