"""Element structures of ``tf.data``: nested tuples/dicts of (dtype, static shape) leaves,
and the conversions between nested values and the flat lists a pipeline passes around."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.framework.nest import flatten, is_sequence, map_structure, pack_sequence_as
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.type_spec import NoneTensorSpec, SparseTensorSpec, TensorSpec
from scopeflow.ops.array.layout_ops import stack, unstack
from scopeflow.ops.constant_op import constant
from scopeflow.ragged.ragged_tensor import RaggedTensor, RaggedTensorValue
from scopeflow.ragged.ragged_tensor_spec import RaggedTensorSpec

__all__ = ["Spec", "SparseSpec", "RaggedSpec", "NoneSpec", "ElementDescription", "spec_of",
           "component_specs", "components_of", "leaf_from_tensors", "group_components",
           "pack_tensors", "to_components", "from_components", "specs", "output_types",
           "output_shapes", "output_classes", "type_specs", "unify_shapes", "pack", "flatten",
           "is_sequence", "map_structure"]


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

    def type_spec(self):
        """The ``tf.TypeSpec`` TF gives for this component (``element_spec``)."""
        return TensorSpec(self.shape, self.dtype)


class SparseSpec(Spec):
    """A SparseTensor component (``shape`` is its dense shape). A pipeline carries it as one
    ``SparseTensorValue``; where it enters or leaves the graph (sources, traced functions,
    ``get_next``) it is three tensors: indices, values, dense_shape."""

    __slots__ = ()

    def components(self) -> list:
        rank = self.shape.ndims
        return [Spec(dtypes.int64, [None, rank]), Spec(self.dtype, [None]),
                Spec(dtypes.int64, [rank])]

    def type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def __repr__(self):
        return repr(self.type_spec())


class RaggedSpec(Spec):
    """A RaggedTensor component with ``ragged_rank`` ragged dimensions. A pipeline carries it
    as one ``RaggedTensorValue`` (ragged_rank 0, a row of a ragged rank-1 tensor: a plain
    array, which ``get_next`` gives as a Tensor, as TF's); in the graph it is its flat
    values then its nested row splits (int64)."""

    __slots__ = ("ragged_rank",)

    def __init__(self, dtype, shape, ragged_rank):
        super().__init__(dtype, shape)
        self.ragged_rank = int(ragged_rank)

    def components(self) -> list:
        dims = self.shape.as_tuple()
        flat = None if dims is None else \
            [None if self.ragged_rank else dims[0]] + list(dims[self.ragged_rank + 1:])
        return [Spec(self.dtype, flat)] + [Spec(dtypes.int64, [None])] * self.ragged_rank

    def type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank)

    def __repr__(self):
        return repr(self.type_spec())


class NoneSpec(Spec):
    """A ``None`` component (TF's ``NoneTensorSpec``): no tensors in the graph, ``None``
    at run time; batching and unbatching keep it ``None``."""

    __slots__ = ()
    LEGACY_IS_SPEC = True  # TF1's output_types/shapes/classes are the NoneTensorSpec

    def __init__(self):
        super().__init__(dtypes.variant, None)

    def components(self) -> list:
        return []

    def type_spec(self):
        return NoneTensorSpec()

    def __repr__(self):
        return "NoneTensorSpec()"


def spec_of(t) -> Spec:
    """The leaf spec of a graph value: a Tensor, a SparseTensor, a RaggedTensor, ``None``
    or a batch of datasets."""
    if t is None:
        return NoneSpec()
    data_spec = getattr(t, "_data_spec", None)  # datasets batched (dataset_values)
    if data_spec is not None:
        return data_spec
    if isinstance(t, SparseTensor):
        return SparseSpec(t.dtype, t.shape)
    if isinstance(t, RaggedTensor):
        return RaggedSpec(t.dtype, t.shape, t.ragged_rank)
    return Spec(t.dtype, t.shape)


def _components(spec) -> list:
    return spec.components() if isinstance(spec, (SparseSpec, RaggedSpec, NoneSpec)) \
        else [spec]


def component_specs(structure) -> list:
    """The specs of the tensors ``structure``'s leaves are in the graph, in order."""
    return [c for s in specs(structure) for c in _components(s)]


def components_of(leaf) -> list:
    """The tensors of one graph leaf, in ``component_specs`` order."""
    if isinstance(leaf, SparseTensor):
        return list(leaf.components())
    if isinstance(leaf, RaggedTensor):
        return [leaf.flat_values] + list(leaf.nested_row_splits)
    if leaf is None:
        return []
    tensor = getattr(leaf, "_data_tensor", None)  # datasets batched (dataset_values)
    return [leaf if tensor is None else tensor]


def leaf_from_tensors(spec, parts):
    """One graph leaf of ``spec`` from its component tensors."""
    if isinstance(spec, SparseSpec):
        return _sparse_from_tensors(spec, *parts)
    if isinstance(spec, RaggedSpec) and spec.ragged_rank:
        return spec.type_spec()._from_components(parts)
    if isinstance(spec, NoneSpec):
        return None
    from_tensor = getattr(spec, "graph_value", None)  # a dataset-valued leaf: a Dataset
    return parts[0] if from_tensor is None else from_tensor(parts[0])


def _sparse_from_tensors(spec, indices, values, dense_shape):
    """As TF's ``SparseTensorSpec._from_compatible_tensor_list``: the spec's known dense
    dimensions are constants in ``dense_shape`` (all of it a ``shape`` Const when fully
    known), so shape inference downstream sees them."""
    dims = spec.shape.as_tuple()
    if spec.shape.is_fully_defined():
        dense_shape = constant(list(dims), dtypes.int64, name="shape")
    elif dims is not None and any(d is not None for d in dims):
        pieces = unstack(dense_shape, num=len(dims))
        pieces = [p if d is None else constant(d, dtypes.int64) for p, d in zip(pieces, dims)]
        dense_shape = stack(pieces)
    sp = SparseTensor(indices, values, dense_shape)
    sp._set_static_shape(spec.shape)
    return sp


def group_components(leaf_specs, flat) -> list:
    """``flat`` components cut into one list per leaf of ``leaf_specs``."""
    flat, out = list(flat), []
    for s in leaf_specs:
        n = len(_components(s))
        out.append(flat[:n])
        flat = flat[n:]
    return out


def pack_tensors(structure, tensors):
    """Component tensors (``component_specs`` order) as ``structure``'s graph values:
    SparseTensors and RaggedTensors where its leaves are composite."""
    leaves = specs(structure)
    return pack(structure, [leaf_from_tensors(s, p)
                            for s, p in zip(leaves, group_components(leaves, tensors))])


def to_components(leaf_specs, values) -> list:
    """Run-time leaf values (one per leaf) as their component arrays."""
    out = []
    for s, v in zip(leaf_specs, values):
        if isinstance(s, SparseSpec):
            out += [v.indices, v.values, v.dense_shape]
        elif isinstance(s, RaggedSpec) and s.ragged_rank:
            out += [v.flat_values] + list(v.nested_row_splits)
        elif not isinstance(s, NoneSpec):
            out.append(v)
    return out


def from_components(leaf_specs, arrays) -> list:
    """Component arrays as run-time leaf values (one per leaf)."""
    out = []
    for s, p in zip(leaf_specs, group_components(leaf_specs, arrays)):
        if isinstance(s, SparseSpec):
            out.append(SparseTensorValue(*(np.asarray(x) for x in p)))
        elif isinstance(s, RaggedSpec) and s.ragged_rank:
            v = np.asarray(p[0])
            for splits in reversed(p[1:]):
                v = RaggedTensorValue(v, np.asarray(splits, np.int64))
            out.append(v)
        elif isinstance(s, NoneSpec):
            out.append(None)
        else:
            out.append(p[0])
    return out


def specs(structure) -> list:
    return flatten(structure)


def _legacy(spec, value):
    # TF1's output_types/shapes/classes give a dataset-valued component's DatasetSpec itself
    return spec.type_spec() if getattr(spec, "LEGACY_IS_SPEC", False) else value


def output_types(structure):
    return map_structure(lambda s: _legacy(s, s.dtype), structure)


def output_shapes(structure):
    return map_structure(lambda s: _legacy(s, s.shape), structure)


def _legacy_class(spec):
    # TF1's output_classes: the value class, except a RaggedTensor's spec itself
    if getattr(spec, "LEGACY_IS_SPEC", False):
        return spec.type_spec()
    if isinstance(spec, SparseSpec):
        return SparseTensor
    return spec.type_spec() if isinstance(spec, RaggedSpec) else Tensor


def output_classes(structure):
    return map_structure(_legacy_class, structure)


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
    return map_structure(lambda s: s.type_spec(), structure)


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
