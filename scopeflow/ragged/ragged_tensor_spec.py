"""``tf.RaggedTensorSpec``: a RaggedTensor's type (static shape with ``None`` for the ragged
dims, dtype, ragged rank, row-splits dtype), beside the RaggedTensor it describes.

Its components are the flat values and then each level's row splits, outermost first (TF's
order); ``ragged_rank=0`` describes a plain Tensor. ``type_spec_from_value`` finds it for
RaggedTensors and RaggedTensorValues (registered here, as TF's ragged module does).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import (
    BatchableTypeSpec,
    TensorSpec,
    register_type_spec_from_value_converter,
)
from scopeflow.ragged.ragged_tensor import RaggedTensor, RaggedTensorValue

__all__ = ["RaggedTensorSpec"]


class RaggedTensorSpec(BatchableTypeSpec):
    """``tf.RaggedTensorSpec(shape=None, dtype=tf.float32, ragged_rank=None,
    row_splits_dtype=tf.int64, flat_values_spec=None)``; ``ragged_rank`` defaults to
    ``rank - 1``.

    >>> tf.RaggedTensorSpec([2, None])
    RaggedTensorSpec(TensorShape([Dimension(2), Dimension(None)]), tf.float32, 1, tf.int64)
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype",
                 "_flat_values_spec")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            if dtype is None:
                dtype = flat_values_spec.dtype
            elif dtype != flat_values_spec.dtype:
                raise ValueError("dtype must be the same as flat_values_spec.dtype")
        elif dtype is None:
            raise ValueError("At least one of dtype or flat_values_spec must be provided")
        self._dtype = dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank

    dtype = property(lambda self: self._dtype, doc="The values' ``DType``.")
    shape = property(lambda self: self._shape, doc="Static shape, ragged dims ``None``.")
    ragged_rank = property(lambda self: self._ragged_rank,
                           doc="How many times the flat values are partitioned.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec,
                                doc="The flat values' spec when given, else None.")

    @property
    def value_type(self):
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def is_compatible_with(self, spec_or_value) -> bool:
        """A ``ragged_rank=0`` spec also takes a Tensor or TensorSpec of its shape."""
        if self._ragged_rank == 0:
            if self._flat_values_spec is None:
                if isinstance(spec_or_value, (Tensor, TensorSpec)):
                    return TensorSpec(self._shape, self._dtype).is_compatible_with(
                        spec_or_value)
            elif not isinstance(spec_or_value, (RaggedTensor, RaggedTensorSpec)):
                return self._flat_values_spec.is_compatible_with(spec_or_value)
        return super().is_compatible_with(spec_or_value)

    def _serialize(self):
        head = (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return head if self._flat_values_spec is None else head + (self._flat_values_spec,)

    @property
    def _component_specs(self):
        if self._ragged_rank <= 0:
            return [self._flat_values_spec if self._flat_values_spec is not None
                    else TensorSpec(self._shape, self._dtype)]
        flat = self._flat_values_spec
        if flat is None:
            flat = TensorSpec(TensorShape([None]).concatenate(
                self._shape[self._ragged_rank + 1:]), self._dtype)
        outer = self._shape[0].value
        return ([flat, TensorSpec([None if outer is None else outer + 1],
                                  self._row_splits_dtype)]
                + [TensorSpec([None], self._row_splits_dtype)
                   for _ in range(self._ragged_rank - 1)])

    def _to_components(self, value):
        if isinstance(value, (RaggedTensor, RaggedTensorValue)):
            return [value.flat_values] + list(value.nested_row_splits)
        return [value]

    def _from_components(self, components):
        """Arrays make a RaggedTensorValue (TF1's fetched form); tensors a RaggedTensor."""
        result = components[0]
        if all(isinstance(t, np.ndarray) for t in components):
            for splits in reversed(components[1:]):
                result = RaggedTensorValue(result, splits)
            return result
        parts = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in components]
        result = parts[0]
        for splits in reversed(parts[1:]):
            result = RaggedTensor(result, splits, internal=True)
        if isinstance(result, Tensor) and self._shape.ndims is not None:
            result.set_shape(self._shape)
        return result

    def _batch(self, batch_size):
        if self._flat_values_spec is not None:
            raise ValueError("Customized value_type is not supported.")
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape),
                                self._dtype, self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        if self._flat_values_spec is not None:
            raise ValueError("Customized value_type is not supported.")
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1,
                                self._row_splits_dtype)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        return self._shape

    def _to_legacy_output_classes(self):
        return self

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor or RaggedTensorValue."""
        if isinstance(value, RaggedTensorValue):
            return cls(shape=value.shape, dtype=value.values.dtype,
                       ragged_rank=value.ragged_rank, row_splits_dtype=value.row_splits.dtype)
        return cls(shape=value.shape, dtype=value.dtype, ragged_rank=value.ragged_rank,
                   row_splits_dtype=value.row_splits.dtype)


register_type_spec_from_value_converter(RaggedTensor, RaggedTensorSpec.from_value)
register_type_spec_from_value_converter(RaggedTensorValue, RaggedTensorSpec.from_value)
