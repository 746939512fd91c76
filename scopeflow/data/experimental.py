"""``tf.data.experimental``: the transformations TF1 programs use through ``apply``."""

from __future__ import annotations

from scopeflow.data.csv_datasets import make_csv_dataset
from scopeflow.data.dataset_ops import AUTOTUNE
from scopeflow.data.dataset_spec import DatasetSpec as DatasetStructure
from scopeflow.data.dataset_spec import (
    RaggedTensorStructure,
    SparseTensorStructure,
    TensorArrayStructure,
    TensorStructure,
)
from scopeflow.data.dataset_utils import SHARD_HINT, get_model_proto, pad_to_cardinality
from scopeflow.data.example_datasets import make_batched_features_dataset, parse_example_dataset
from scopeflow.data.experimental_ops import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Counter,
    assert_cardinality,
    cardinality,
    choose_from_datasets,
    copy_to_device,
    enable_debug_mode,
    enumerate_dataset,
    from_list,
    get_single_element,
    get_structure,
    ignore_errors,
    map_and_batch_with_legacy_function,
    prefetch_to_device,
    scan,
    take_while,
    unique,
)
from scopeflow.data.grouping import (
    Reducer,
    bucket_by_sequence_length,
    group_by_reducer,
    group_by_window,
)
from scopeflow.data.io_datasets import CsvDataset, SqlDataset, TFRecordWriter
from scopeflow.data.iterator_ops import make_saveable_from_iterator
from scopeflow.data.optional_ops import Optional, get_next_as_optional
from scopeflow.data.optional_ops import OptionalSpec as OptionalStructure
from scopeflow.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)
from scopeflow.data.sampling_ops import RandomDataset, rejection_resample, sample_from_datasets
from scopeflow.data.snapshot_ops import snapshot
from scopeflow.data.table_ops import (
    DatasetInitializer,
    index_table_from_dataset,
    table_from_dataset,
)
from scopeflow.framework.type_spec import TypeSpec as Structure

__all__ = ["AUTOTUNE", "make_saveable_from_iterator", "shuffle_and_repeat", "map_and_batch",
           "Structure", "TensorStructure", "SparseTensorStructure", "RaggedTensorStructure",
           "TensorArrayStructure", "DatasetStructure", "OptionalStructure", "Optional",
           "get_next_as_optional",
           "unbatch", "parallel_interleave", "AutoShardPolicy", "AutotuneAlgorithm",
           "AutotuneOptions", "DistributeOptions", "ExternalStatePolicy",
           "OptimizationOptions", "ThreadingOptions", "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY", "take_while", "scan", "unique", "enumerate_dataset",
           "ignore_errors", "choose_from_datasets", "Counter", "get_single_element",
           "cardinality", "get_structure", "copy_to_device", "prefetch_to_device",
           "enable_debug_mode", "from_list", "assert_cardinality",
           "map_and_batch_with_legacy_function", "Reducer", "bucket_by_sequence_length",
           "group_by_reducer", "group_by_window", "SqlDataset", "TFRecordWriter",
           "CsvDataset", "RandomDataset", "sample_from_datasets", "rejection_resample",
           "SHARD_HINT", "get_model_proto", "pad_to_cardinality", "DatasetInitializer",
           "table_from_dataset", "index_table_from_dataset", "make_csv_dataset",
           "parse_example_dataset", "make_batched_features_dataset", "snapshot"]


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``dataset.shuffle(buffer_size, seed).repeat(count)``, for ``Dataset.apply``."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """``dataset.map(map_func).batch(batch_size, drop_remainder)``."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def unbatch():
    return lambda dataset: dataset.unbatch()


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``dataset.interleave(map_func, cycle_length, block_length)`` (in order: ``sloppy``
    changes nothing here)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)
