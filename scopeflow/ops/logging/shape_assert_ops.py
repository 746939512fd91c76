"""``tf.debugging.assert_shapes``: shapes and the relations between their dimensions, as
TF1's ``check_ops.assert_shapes`` builds them in a graph.

Each entry pairs a tensor with a symbolic shape: an int is an exact size, a string (``'N'``)
names a size that must agree wherever it appears, ``None`` or ``'.'`` is any size, and a
leading ``...`` or ``'*'`` stands for any number of outer dimensions. A scalar counts as
shape ``(1,)`` and an empty shape as ``(1,)`` (so a scalar matches ``[]`` and ``[1]``, as in
TF). What is known while the graph is built is checked then (``ValueError`` with TF's
words); the rest becomes ``Assert`` ops under the rank assertions, grouped into one op.
"""

from __future__ import annotations

import collections

from scopeflow.framework.graph import control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops.array import shape_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.logging.check_ops import (
    _message_prefix,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
)
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math import arithmetic_ops

__all__ = ["assert_shapes"]

_TensorDimSizes = collections.namedtuple(
    "_TensorDimSizes", ["x", "unspecified_dim", "actual_sizes", "symbolic_sizes"])


def _dimension_sizes(x):
    """Each dimension's size: an int where static, else a tensor (a scalar: ``(1,)``)."""
    dynamic_shape = shape_ops.shape(x)
    rank = x.shape.rank
    if rank == 0:
        return (1,)
    if rank is not None:
        return [int(size) if size is not None else dynamic_shape[i]
                for i, size in enumerate(x.shape.as_list())]
    has_rank_zero = arithmetic_ops.equal(shape_ops.rank(x), 0)
    return cond(has_rank_zero, lambda: constant([1]), lambda: dynamic_shape)


def _has_known_value(size) -> bool:
    if size is None:
        return False
    try:
        int(size)
        return True
    except (ValueError, TypeError):
        return False


def _is_symbol_for_any_size(symbol) -> bool:
    return symbol in [None, "."]


def _tensor_dim_sizes(shape_constraints, message_prefix):
    """Parses each symbolic shape (``...`` only first), with the tensor's sizes."""
    result = []
    for tensor, symbolic_shape in shape_constraints:
        if not (hasattr(symbolic_shape, "__iter__") or hasattr(symbolic_shape, "__getitem__")):
            raise ValueError(
                f"{message_prefix}Tensor {tensor.name}.  Specified shape must be an "
                "iterable.  An iterable has the attribute `__iter__` or `__getitem__`.  "
                f"Received specified shape: {symbolic_shape}")
        symbols = tuple(symbolic_shape)
        innermost = False
        for i, symbol in enumerate(symbols):
            if symbol is not Ellipsis and symbol != "*":
                continue
            if i != 0:
                raise ValueError(
                    f"{message_prefix}Tensor {tensor.name} specified shape index {i}.  "
                    "Symbol `...` or `*` for a variable number of unspecified dimensions is "
                    "only allowed as the first entry")
            innermost = True
        sizes = symbols[1:] if innermost else symbols
        result.append(_TensorDimSizes(tensor, innermost, _dimension_sizes(tensor),
                                      sizes if sizes else (1,)))
    return result


def _rank_assertions(tensor_dim_sizes, data, summarize, message, name):
    assertions = []
    for sizes in tensor_dim_sizes:
        rank = len(sizes.symbolic_sizes)
        if sizes.unspecified_dim:
            if rank in (0, 1):
                continue
            assertions.append(assert_rank_at_least(sizes.x, rank, data=data,
                                                   summarize=summarize, message=message,
                                                   name=name))
        elif rank in (0, 1):
            assertions.append(assert_rank_in(sizes.x, [0, 1], data=data, summarize=summarize,
                                             message=message, name=name))
        else:
            assertions.append(assert_rank(sizes.x, rank, data=data, summarize=summarize,
                                          message=message, name=name))
    return assertions


def _size_assertions(tensor_dim_sizes, rank_assertions, data, summarize, message_prefix):
    """One ``Assert`` per size known only at run time; ``ValueError`` for a static
    mismatch. The first tensor to name a symbol specifies its size."""
    assertions, specified = [], {}
    for sizes in tensor_dim_sizes:
        for i, symbol in enumerate(sizes.symbolic_sizes):
            if _is_symbol_for_any_size(symbol):
                continue
            dim = i - len(sizes.symbolic_sizes) if sizes.unspecified_dim else i
            if not (symbol in specified or _has_known_value(symbol)):
                with control_dependencies(rank_assertions):
                    specified[symbol] = (sizes.actual_sizes[dim], sizes.x, dim)
                continue
            if _has_known_value(symbol):
                size, how = int(symbol), "Specified explicitly"
            else:
                size, by, at = specified[symbol]
                how = f"Specified by tensor {by.name} dimension {at}"
            with control_dependencies(rank_assertions):
                actual = sizes.actual_sizes[dim]
            if _has_known_value(actual) and _has_known_value(size):
                if int(actual) != int(size):
                    raise ValueError(
                        f"{message_prefix}{how}.  Tensor {sizes.x.name} dimension {dim} "
                        f"must have size {int(size)}.  Received size {int(actual)}, shape "
                        f"{sizes.x.shape}")
                continue
            condition = arithmetic_ops.equal(convert_to_tensor(actual), convert_to_tensor(size))
            data_ = data if data is not None else [
                message_prefix, how, f"Tensor {sizes.x.name} dimension", dim,
                "must have size", size, "Received shape: ", shape_ops.shape(sizes.x)]
            assertions.append(Assert(condition, data_, summarize=summarize))
    return assertions


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """An op (a ``group``) that fails the run unless each tensor has its symbolic shape
    and equal symbols name equal sizes; a ``ValueError`` at once when the shapes known
    while building already disagree.

    >>> x, y = tf.zeros([2, 3]), tf.zeros([3])
    >>> tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("Q",))]).type
    'NoOp'
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    message_prefix = _message_prefix(message)
    with name_scope(name, "assert_shapes", [shapes, data]):
        constraints = [(x if isinstance(x, SparseTensor) else convert_to_tensor(x), s)
                       for x, s in shapes if s is not None]
        dim_sizes = _tensor_dim_sizes(constraints, message_prefix)
        rank_assertions = _rank_assertions(dim_sizes, data, summarize, message, name)
        size_assertions = _size_assertions(dim_sizes, rank_assertions, data, summarize,
                                           message_prefix)
    with control_dependencies(rank_assertions):
        return control_flow_ops.group(*size_assertions)
