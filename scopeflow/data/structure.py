"""Element structures of ``tf.data``: nested tuples/dicts of (dtype, static shape) leaves,
and the conversions between nested values and the flat lists a pipeline passes around."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.framework.nest import flatten, is_sequence, map_structure, pack_sequence_as
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import TensorSpec

__all__ = ["Spec", "ElementDescription", "spec_of", "specs", "output_types", "output_shapes",
           "output_classes", "type_specs", "unify_shapes", "pack", "flatten", "is_sequence",
           "map_structure"]


class Spec:
    """One component of an element: its dtype and (partially known) static shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = as_shape(shape) if shape is not None else TensorShape(None)

    def __repr__(self):
        # as TF prints an element spec (a TensorSpec), which error messages include
        dims = self.shape.as_tuple()
        if dims is None:
            shape = "<unknown>"
        else:
            shape = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
        return f"TensorSpec(shape={shape}, dtype={self.dtype!r}, name=None)"


def spec_of(t: Tensor) -> Spec:
    return Spec(t.dtype, t.shape)


def specs(structure) -> list:
    return flatten(structure)


def output_types(structure):
    return map_structure(lambda s: s.dtype, structure)


def output_shapes(structure):
    return map_structure(lambda s: s.shape, structure)


def output_classes(structure):
    return map_structure(lambda s: Tensor, structure)


class ElementDescription:
    """TF1's description of what an element is, for anything with a ``_structure`` of
    ``Spec``s (datasets and iterators)."""

    _structure = None

    @property
    def output_types(self):
        return output_types(self._structure)

    @property
    def output_shapes(self):
        return output_shapes(self._structure)

    @property
    def output_classes(self):
        return output_classes(self._structure)

    @property
    def element_spec(self):
        """The element's ``tf.TensorSpec``s, nested as the element (TF2's name)."""
        return type_specs(self._structure)


def type_specs(structure):
    """``structure`` with each ``Spec`` as the ``tf.TensorSpec`` TF gives for it."""
    return map_structure(lambda s: TensorSpec(s.shape, s.dtype), structure)


def unify_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit (dims that differ become unknown)."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None or len(da) != len(db):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(da, db)])


def pack(structure, flat):
    """``flat`` values arranged as ``structure`` (a lone leaf stays a leaf)."""
    if not is_sequence(structure):
        return flat[0]
    return pack_sequence_as(structure, list(flat))


def as_array(value, spec: Spec):
    """A run-time component value as the array its spec promises."""
    return np.asarray(value, dtype=spec.dtype.as_numpy_dtype)
