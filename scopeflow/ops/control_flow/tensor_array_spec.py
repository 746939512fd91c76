"""``tf.TensorArraySpec``: a TensorArray's type (element shape, dtype, ``dynamic_size``,
``infer_shape``). Its one component is the TensorArray's flow (the ``variant`` scalar that
carries it through ``cond`` and ``while_loop``), so a TensorArray rebuilt from its
components reads and writes the same elements."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import (
    TensorSpec,
    TypeSpec,
    register_type_spec_from_value_converter,
    type_spec_from_value,
)
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray

__all__ = ["TensorArraySpec"]


class TensorArraySpec(TypeSpec):
    """``tf.TensorArraySpec(element_shape=None, dtype=tf.float32, dynamic_size=False,
    infer_shape=True)``.

    >>> tf.TensorArraySpec([3])
    TensorArraySpec(TensorShape([Dimension(3)]), tf.float32, False, True)
    """

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    value_type = property(lambda self: TensorArray)

    def is_subtype_of(self, other) -> bool:
        """TF's rule: same dtype and ``dynamic_size`` (shapes are not compared)."""
        return (isinstance(other, TensorArraySpec) and self._dtype == other._dtype
                and self._dynamic_size == other._dynamic_size)

    def most_specific_common_supertype(self, others):
        """TF 2.21's result: ``False`` when an ``other`` is not a TensorArraySpec, None when
        dtypes or ``dynamic_size`` differ, else this spec's element shape (TF's shape
        supertype sees its generator of other shapes already used up) with ``infer_shape``
        only if all infer shapes."""
        others = list(others)
        if not all(isinstance(o, TensorArraySpec) for o in others):
            return False
        if not all(self._dtype == o._dtype for o in others):
            return None
        if not all(self._dynamic_size == o._dynamic_size for o in others):
            return None
        infer_shape = self._infer_shape and all(o._infer_shape for o in others)
        return TensorArraySpec(self._element_shape, self._dtype, self._dynamic_size,
                               infer_shape)

    def is_compatible_with(self, other) -> bool:
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        return (isinstance(other, TensorArraySpec)
                and self._dtype.is_compatible_with(other._dtype)
                and self._element_shape.is_compatible_with(other._element_shape)
                and self._dynamic_size == other._dynamic_size)

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    _component_specs = property(lambda self: [TensorSpec([], dtypes.variant)])

    def _to_components(self, value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return [value.flow]

    def _from_components(self, components):
        return TensorArray(dtype=self._dtype, flow=components[0],
                           dynamic_size=self._dynamic_size, infer_shape=self._infer_shape,
                           element_shape=self._element_shape
                           if self._element_shape.ndims is not None else None)

    @staticmethod
    def from_value(value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return TensorArraySpec(dtype=value.dtype, element_shape=value.element_shape,
                               dynamic_size=value.dynamic_size,
                               infer_shape=value._infer_shape)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        # TF's (odd) legacy shape: the two flags as dims, then the element shape.
        return TensorShape([self._dynamic_size, self._infer_shape]).concatenate(
            self._element_shape)

    def _to_legacy_output_classes(self):
        return TensorArray


register_type_spec_from_value_converter(TensorArray, TensorArraySpec.from_value,
                                        allow_subclass=True)
