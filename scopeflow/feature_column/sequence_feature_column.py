"""TF's sequence feature columns (``tf.feature_column.sequence_*``).

A sequence column reads a VarLenFeature whose second dimension is time: example ``b``'s
step ``t`` holds the values at ``[b, t, ...]``. The categorical ones wrap a plain
categorical column and give ids of rank 3 ([batch, steps, ids per step]) so that an
``embedding_column`` or ``indicator_column`` over them keeps one vector per step
(``_get_sequence_dense_tensor``: [batch, steps, d] and each example's step count) instead of
combining a whole example; ``input_layer`` refuses them, as TF does (TF's reader of sequence
columns, ``SequenceFeatures``, is a tf.keras layer). ``linear_model`` takes them as any
categorical column (all of an example's ids count towards its one row).

``sequence_numeric_column`` is, as in TF, a column of TF2's interface only
(``get_sequence_dense_tensor(transformation_cache, state_manager)``): TF1's
``input_layer`` and ``make_parse_example_spec`` reject it.
"""

from __future__ import annotations

import collections

from scopeflow.feature_column import feature_column as fc
from scopeflow.feature_column.utils import sequence_length_from_sparse_tensor
from scopeflow.framework import dtypes
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import layout_ops, shape_ops, slicing_ops
from scopeflow.ops.io.parsing_ops import VarLenFeature
from scopeflow.ops.math import arithmetic_ops, reduction_ops
from scopeflow.ops.sparse import sparse_layout_ops, sparse_ops

__all__ = ["SequenceCategoricalColumn", "SequenceNumericColumn",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column"]


class SequenceCategoricalColumn(fc._SequenceCategoricalColumn):
    """``categorical_column``'s ids as [batch, steps, ids per step] (a step's ids are not
    combined with its neighbours')."""

    def __init__(self, categorical_column):
        self.categorical_column = categorical_column

    name = property(lambda self: self.categorical_column.name)
    num_buckets = property(lambda self: self.categorical_column._num_buckets)
    _num_buckets = num_buckets
    _parse_example_spec = property(lambda self: self.categorical_column._parse_example_spec)

    def __repr__(self):
        return f"SequenceCategoricalColumn(categorical_column={self.categorical_column!r})"

    def _get_sparse_tensors(self, features, weight_collections=None, trainable=None):
        ids, weights = self.categorical_column._get_sparse_tensors(features)
        # The third dimension is computed (not -1) so that an empty batch reshapes too.
        shape = arithmetic_ops.cast(ids.dense_shape, dtypes.int32, name="Shape/Cast")
        target = [shape[0], shape[1], reduction_ops.reduce_prod(shape[2:])]
        target = arithmetic_ops.cast(layout_ops.stack(target, name="Cast/x"), dtypes.int64)
        ids = sparse_layout_ops.sparse_reshape(ids, target)
        if weights is not None:
            weights = sparse_layout_ops.sparse_reshape(weights, target)
        return fc.IdWeightPair(ids, weights)


class SequenceNumericColumn(collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """Sequences of ``shape``-shaped numbers: each example's values, ``shape``'s size of
    them a step, padded with ``default_value`` to the longest example."""

    TensorSequenceLengthPair = fc.TensorSequenceLengthPair

    name = property(lambda self: self.key)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})
    variable_shape = property(lambda self: TensorShape(self.shape))
    parents = property(lambda self: [self.key])

    def transform_feature(self, transformation_cache, state_manager):
        """The raw SparseTensor, through ``normalizer_fn`` when there is one."""
        value = transformation_cache.get(self.key, state_manager)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return value

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        """[batch, steps, *shape] values and each example's number of steps.

        ``transformation_cache`` gives features by key or column (scopeflow's
        ``feature_column._Features``, TF's ``FeatureTransformationCache``).
        """
        sp_tensor = transformation_cache.get(self, state_manager)
        if not isinstance(sp_tensor, SparseTensor):
            raise TypeError("Input must be a SparseTensor.")
        dense = sparse_ops.sparse_tensor_to_dense(sp_tensor, default_value=self.default_value)
        dense_shape = slicing_ops.concat(
            [shape_ops.shape(dense)[:1], [-1], self.variable_shape.as_list()], axis=0)
        dense = shape_ops.reshape(dense, shape=dense_shape)
        rank = sp_tensor.dense_shape.shape.as_list()[0]
        num_elements = self.variable_shape.num_elements() if rank == 2 else 1
        return fc.TensorSequenceLengthPair(
            dense, sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements))


def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """Sequences of integer ids in ``[0, num_buckets)`` (see
    ``categorical_column_with_identity``)."""
    return SequenceCategoricalColumn(fc.categorical_column_with_identity(
        key=key, num_buckets=num_buckets, default_value=default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Sequences of terms hashed into ``hash_bucket_size`` ids."""
    return SequenceCategoricalColumn(fc.categorical_column_with_hash_bucket(
        key=key, hash_bucket_size=hash_bucket_size, dtype=dtype))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file,
                                                     vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=dtypes.string):
    """Sequences of terms whose ids are their line numbers in ``vocabulary_file``."""
    return SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_file(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=num_oov_buckets, default_value=default_value, dtype=dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    """Sequences of terms whose ids are their positions in ``vocabulary_list``."""
    return SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_list(
        key=key, vocabulary_list=vocabulary_list, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))


def sequence_numeric_column(key, shape=(1,), default_value=0., dtype=dtypes.float32,
                            normalizer_fn=None):
    """Sequences of numbers, ``shape`` of them a step (a SequenceNumericColumn)."""
    shape = _check_shape(shape, key)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)


def _check_shape(shape, key):
    """``shape`` as a tuple of positive ints, with TF's errors (TF's ``_check_shape``)."""
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    for dim in shape:
        if not isinstance(dim, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dim < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return shape
