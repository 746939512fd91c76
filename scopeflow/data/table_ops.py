"""Lookup tables filled from a dataset: ``tf.data.experimental.DatasetInitializer``,
``table_from_dataset`` and ``index_table_from_dataset``.

The tables are ``tf.lookup``'s (``scopeflow.ops.lookup``); what is new here is TF's
``InitializeTableFromDataset`` op, whose kernel reads the dataset to its end (a fresh
iterator of it, with the values it captured as they are when the op runs) and fills the
table with the ``(key, value)`` pairs, as ``LookupTableImportV2`` would with two tensors.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.experimental_ops import assert_cardinality, enumerate_dataset
from scopeflow.data.iterator_ops import _captured_env
from scopeflow.data.pipeline import End
from scopeflow.framework import dtypes
from scopeflow.framework.graph import GraphKeys, Tensor, add_to_collection, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.ops import math_ops
from scopeflow.ops.lookup.lookup_ops import (
    StaticHashTable,
    TableInitializerBase,
    _check_table_dtypes,
    _check_table_types,
    _table_of,
)
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.strings.hash_ops import string_to_hash_bucket_fast
from scopeflow.ops.strings.string_ops import as_string

__all__ = ["DatasetInitializer", "table_from_dataset", "index_table_from_dataset",
           "HasherSpec", "FastHashSpec"]

# TF's lookup_ops.HasherSpec: how out-of-vocabulary keys are hashed into buckets.
HasherSpec = collections.namedtuple("HasherSpec", ["hasher", "key"])
FastHashSpec = HasherSpec("fasthash", None)


def _check_element_spec(spec):
    """TF's check: the elements are ``(key, value)`` pairs of scalar tensors."""
    base = ("Datasets used to initialize lookup tables must produce elements in the form "
            "(key, value), where the keys and values are scalar tensors. ")
    if isinstance(spec, st.Spec):  # TF takes len() of the element spec, a TensorSpec
        raise TypeError("object of type 'TensorSpec' has no len()")
    if not isinstance(spec, (tuple, list)) or len(spec) != 2:
        n = len(spec) if isinstance(spec, (tuple, list, dict)) else 1
        raise ValueError(base + f"However, the given dataset produces {n} components "
                         "instead of two (key, value) components. Full dataset element "
                         f"spec: {spec}.")
    for what, s in zip(("key", "value"), spec):
        if not isinstance(s, st.Spec):
            raise ValueError(base + f"However, the given dataset produces non-Tensor "
                             f"{what}s of type {type(s)}.")
        if s.shape.ndims not in (None, 0):
            raise ValueError(base + f"However, the given dataset produces non-scalar {what} "
                             f"Tensors of rank {s.shape.ndims}.")


# ── InitializeTableFromDataset ───────────────────────────────────────────────────────
def _init_from_dataset_kernel(run, handle, *captured, dataset):
    table = _table_of(handle)
    key_spec, value_spec = st.flatten(dataset._structure)
    _check_table_types(table, key_spec.dtype, value_spec.dtype)
    it = dataset._make_iterator(run.state, _captured_env(dataset, captured))
    keys, values = [], []
    while True:
        try:
            k, v = it.next()
        except End:
            break
        keys.append(np.asarray(k)[()])  # the scalars, not 0-d arrays (object ones nest)
        values.append(np.asarray(v)[()])
    table.initialize(keys, values)


def _no_outputs(*args, **attrs):
    return []


initialize_table_from_dataset_op = OpDef(
    "InitializeTableFromDataset", shape=_no_outputs, dtype=_no_outputs,
    kernel=_init_from_dataset_kernel, attrs={"dataset": None}, num_outputs=0,
    stateful=True, grad=NO_GRADIENT, input_names=("table_handle",))


class DatasetInitializer(TableInitializerBase):
    """A table initializer reading ``(key, value)`` scalar pairs from a dataset.

    >>> ds = tf.data.Dataset.zip((tf.data.Dataset.range(3),
    ...                           tf.data.Dataset.range(3).map(lambda x: x * 10)))
    >>> table = tf.lookup.StaticHashTable(tf.data.experimental.DatasetInitializer(ds), -1)
    """

    def __init__(self, dataset):
        self.dataset = dataset
        spec = dataset._structure
        _check_element_spec(spec)
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        """The ``InitializeTableFromDataset`` op filling ``table`` (in
        ``TABLE_INITIALIZERS``)."""
        _check_table_dtypes(table, self._key_dtype, self._value_dtype)
        init_op = initialize_table_from_dataset_op.create(
            [table.resource_handle, *self.dataset._captures()], {"dataset": self.dataset},
            "InitializeTableFromDataset")
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


# ── out-of-vocabulary buckets ────────────────────────────────────────────────────────
class _IdTableWithHashBuckets:
    """TF's ``IdTableWithHashBuckets`` over a table: a key the table lacks gets ``size +
    hash(key) % num_oov_buckets`` (integer keys hashed as their decimal strings)."""

    def __init__(self, table, num_oov_buckets, hasher_spec, key_dtype):
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"`hasher_spec` must be of type HasherSpec, got "
                            f"{type(hasher_spec)}.")
        if hasher_spec.hasher != "fasthash":
            raise NotImplementedError(f"hasher {hasher_spec.hasher!r}: only 'fasthash' "
                                      "(StringToHashBucketFast) is available")
        if table.value_dtype != dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`: expected int64 but got "
                            f"{table.value_dtype}.")
        self._table, self._num_oov_buckets = table, num_oov_buckets
        self._key_dtype = table.key_dtype if key_dtype is None else dtypes.as_dtype(key_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: dtypes.int64)
    initializer = property(lambda self: self._table.initializer)
    resource_handle = property(lambda self: self._table.resource_handle)
    name = property(lambda self: f"{self._table.name}-with-oov")

    def size(self, name=None):
        """The table's entries plus the out-of-vocabulary buckets."""
        with name_scope(name, f"{self.name}_Size"):
            return self._table.size() + self._num_oov_buckets

    def lookup(self, keys, name=None):
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        with name_scope(name, f"{self.name}_Lookup", [keys]):
            values = keys
            if self._table.key_dtype == dtypes.int64 and keys.dtype != dtypes.int64:
                values = math_ops.cast(values, dtypes.int64)
            buckets = string_to_hash_bucket_fast(
                as_string(values) if values.dtype != dtypes.string else values,
                num_buckets=self._num_oov_buckets, name="hash_bucket")
            ids = self._table.lookup(values)
            buckets = math_ops.add(buckets, self._table.size())
            known = math_ops.not_equal(ids, self._table.default_value)
            return where_v2(known, ids, buckets)

    def __getitem__(self, keys):
        return self.lookup(keys)


# ── table_from_dataset, index_table_from_dataset ─────────────────────────────────────
def _check_table_args(spec, default_value, num_oov_buckets, vocab_size, key_dtype):
    if default_value is None:
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError("`default_value` must be specified when creating a table from "
                             f"a dataset that produces values of type {spec[1].dtype}.")
        default_value = -1
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater than or equal to 0, got "
                         f"{num_oov_buckets}.")
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError("`key_dtype` must be either an integer or string type, but got "
                        f"{key_dtype}")
    return default_value


def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=FastHashSpec, key_dtype=dtypes.string, name=None):
    """A ``StaticHashTable`` of the ``(key, value)`` pairs of ``dataset`` (its first
    ``vocab_size``, which must be there); with ``num_oov_buckets`` a missing key gets a
    bucket id after the vocabulary instead of ``default_value``."""
    spec = dataset._structure
    _check_element_spec(spec)
    key_dtype = dtypes.as_dtype(key_dtype)
    default_value = _check_table_args(spec, default_value, num_oov_buckets, vocab_size,
                                      key_dtype)
    if vocab_size is not None:
        if isinstance(vocab_size, Tensor):
            vocab_size = math_ops.cast(vocab_size, dtypes.int64)
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    with name_scope(name, "string_to_index"):
        initializer = DatasetInitializer(dataset)
        with name_scope(None, "hash_table"):
            table = StaticHashTable(initializer, default_value)
            if num_oov_buckets:
                table = _IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec,
                                                key_dtype)
            return table


def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=FastHashSpec,
                             key_dtype=dtypes.string, name=None):
    """A table from each element of ``dataset`` (the keys) to its position (int64)."""
    pairs = dataset.apply(enumerate_dataset()).map(lambda v, k: (k, v))
    return table_from_dataset(pairs, num_oov_buckets, vocab_size, default_value,
                              hasher_spec, key_dtype, name)

