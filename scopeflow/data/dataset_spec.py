"""``tf.data.DatasetSpec`` (``tf.data.experimental.DatasetStructure``): a dataset's type,
its element's specs and the shape of a batch of datasets (``()`` for one); and TF1's
``tf.data.experimental.*Structure`` constructors of the other specs (dtype first).

A scopeflow dataset is a description of its pipeline, not a ``variant`` tensor as in TF, so
a dataset is its own (one) component.
"""

from __future__ import annotations

from scopeflow.data.dataset_ops import Dataset
from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import (
    BatchableTypeSpec,
    SparseTensorSpec,
    TensorSpec,
    register_type_spec_from_value_converter,
)
from scopeflow.ops.control_flow.tensor_array_spec import TensorArraySpec
from scopeflow.ragged.ragged_tensor_spec import RaggedTensorSpec

__all__ = ["DatasetSpec", "TensorStructure", "SparseTensorStructure",
           "RaggedTensorStructure", "TensorArrayStructure"]


class DatasetSpec(BatchableTypeSpec):
    """``tf.data.DatasetSpec(element_spec, dataset_shape=())``.

    >>> tf.data.DatasetSpec(tf.TensorSpec([3]))
    DatasetSpec(TensorSpec(shape=(3,), dtype=tf.float32, name=None), TensorShape([]))
    """

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    value_type = property(lambda self: Dataset)
    element_spec = property(lambda self: self._element_spec, doc="The element's specs.")

    def _serialize(self):
        return (self._element_spec, self._dataset_shape)

    _component_specs = property(
        lambda self: TensorSpec(self._dataset_shape, dtypes.variant))

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    @staticmethod
    def from_value(value):
        """The spec of a dataset: ``DatasetSpec(value.element_spec)``."""
        return DatasetSpec(value.element_spec)

    def _batch(self, batch_size):
        return DatasetSpec(self._element_spec,
                           TensorShape([batch_size]).concatenate(self._dataset_shape))

    def _unbatch(self):
        if self._dataset_shape.ndims == 0:
            raise ValueError("Slicing dataset elements is not supported for rank 0.")
        return DatasetSpec(self._element_spec, self._dataset_shape[1:])

    def _to_legacy_output_types(self):
        return self

    def _to_legacy_output_shapes(self):
        return self

    def _to_legacy_output_classes(self):
        return self


register_type_spec_from_value_converter(Dataset, DatasetSpec.from_value, allow_subclass=True)


# ── TF1's tf.data.experimental.*Structure: the specs, dtype first ─────────────────────
def TensorStructure(dtype, shape):  # noqa: N802 - TF's name
    """``tf.TensorSpec(shape, dtype)``."""
    return TensorSpec(shape, dtype)


def SparseTensorStructure(dtype, shape):  # noqa: N802 - TF's name
    """``tf.SparseTensorSpec(shape, dtype)``."""
    return SparseTensorSpec(shape, dtype)


def RaggedTensorStructure(dtype, shape, ragged_rank):  # noqa: N802 - TF's name
    """``tf.RaggedTensorSpec(shape, dtype, ragged_rank)``."""
    return RaggedTensorSpec(shape, dtype, ragged_rank)


def TensorArrayStructure(dtype, element_shape, dynamic_size, infer_shape):  # noqa: N802
    """``tf.TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)``."""
    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)
