"""``tf.data``: input pipelines in TF1 graph mode (datasets, iterators, ``experimental``)."""

from __future__ import annotations

# Dataset's sources and transformations register on import (dataset_ops.builds).
from scopeflow.data import (  # noqa: F401
    buffers,
    experimental,
    sources,
    transformations,
    window_reduce,
)
from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.dataset_spec import DatasetSpec
from scopeflow.data.dataset_utils import NumpyIterator
from scopeflow.data.experimental_ops import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from scopeflow.data.iterator_ops import (
    Iterator,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from scopeflow.data.options import Options, ThreadingOptions
from scopeflow.data.sources import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = ["Dataset", "Iterator", "TextLineDataset", "TFRecordDataset",
           "FixedLengthRecordDataset", "experimental", "make_one_shot_iterator",
           "make_initializable_iterator", "get_output_types", "get_output_shapes",
           "get_output_classes", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
           "DatasetSpec",
           "Options", "ThreadingOptions", "NumpyIterator"]

AUTOTUNE = experimental.AUTOTUNE


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes
