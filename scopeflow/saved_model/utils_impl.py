"""``tf.saved_model.utils``: ``TensorInfo`` protos for tensors, and tensors back from them.

A ``TensorInfo`` names a graph tensor by its encoding: ``name`` for a dense tensor (or a
variable: its ``dtype`` is then the ``_ref`` type, as in TF), ``coo_sparse`` for a
``SparseTensor`` (the names of its values, indices and dense_shape tensors). TF2's
``composite_tensor`` encoding (a ``RaggedTensor``, a ``TypeSpecProto`` with components) is
not supported: scopeflow has no TypeSpec serialization.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import get_default_graph
from scopeflow.framework.scope_names import prepend_name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.io import protos
from scopeflow.io.tensor_proto import shape_proto
from scopeflow.ragged.ragged_tensor import RaggedTensor

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info", "build_tensor_info_from_op",
           "get_element_from_tensor_info", "prepend_name_scope", "is_composite"]


def build_tensor_info(tensor):
    """The ``TensorInfo`` of ``tensor`` (a Tensor, Variable or SparseTensor): its dtype, its
    static shape, and its name or its sparse components' names.

    >>> import scopeflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 3], name="x")
    ...     print(build_tensor_info(x))
    name: "x:0"
    dtype: DT_FLOAT
    tensor_shape {
      dim {
        size: -1
      }
      dim {
        size: 3
      }
    }
    <BLANKLINE>
    """
    if isinstance(tensor, RaggedTensor):
        raise NotImplementedError(
            f"build_tensor_info({type(tensor).__name__}): TensorInfo's composite_tensor "
            "encoding (TF2's TypeSpec serialization) is not supported by scopeflow")
    info = protos.TensorInfo(dtype=dtypes.as_dtype(tensor.dtype).as_datatype_enum)
    shape_proto(tensor.get_shape(), info.tensor_shape)
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def build_tensor_info_from_op(op):
    """The ``TensorInfo`` TF's builder stores for an init or train op: its name, no dtype."""
    info = protos.TensorInfo(dtype=0, name=op.name)
    info.tensor_shape.unknown_rank = True
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor (or ``SparseTensor``) of ``graph`` that ``tensor_info`` names, its names
    read under ``import_scope`` (the scope a SavedModel was loaded into).

    Raises KeyError when the graph lacks a named tensor, and ValueError (TF's message) when
    the ``TensorInfo`` has no encoding.
    """
    graph = graph or get_default_graph()

    def tensor(name):
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(tensor(coo.indices_tensor_name), tensor(coo.values_tensor_name),
                            tensor(coo.dense_shape_tensor_name))
    if is_composite(tensor_info):
        raise NotImplementedError(
            "get_tensor_from_tensor_info: TensorInfo's composite_tensor encoding (a TF2 "
            "RaggedTensor or other CompositeTensor) is not supported by scopeflow")
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}. Expected `coo_sparse`, "
                     "`composite_tensor`, or `name` for a dense tensor.")


_COMPOSITE_TENSOR_FIELD = 5  # TensorInfo.composite_tensor, not in scopeflow's protos


def is_composite(tensor_info) -> bool:
    """Whether ``tensor_info`` (read from TF's bytes) uses the ``composite_tensor``
    encoding: the runtime keeps that field as an unknown one, so its tag is looked for in
    the message's top-level fields."""
    return _COMPOSITE_TENSOR_FIELD in _field_numbers(tensor_info.SerializeToString())


def _field_numbers(data: bytes) -> set:
    """The field numbers at the top level of a serialized message."""
    numbers, pos = set(), 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        numbers.add(key >> 3)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            pos += size
        else:  # fixed64 (1) or fixed32 (5); TensorInfo has no groups
            pos += 8 if wire == 1 else 4
    return numbers


def _varint(data: bytes, pos: int):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def get_element_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The op or tensor ``tensor_info.name`` names (an init op stored as a signature)."""
    graph = graph or get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope))
