"""``ApproxTopK``: ``tf.math.approx_max_k`` / ``approx_min_k`` (also under ``tf.nn``).

On CPU TF runs the op exactly, as a sorted top-k (ties: the lower index first; NaN counts
as the largest), and only where TF registers a CPU kernel: ``is_max_k`` true and
``reduction_dimension == -1``. Anything else (every ``approx_min_k``, an explicit
non-negative dimension) fails at run time with TF's "No OpKernel was registered" error,
as in TF. ``recall_target``, ``reduction_input_size_override`` and ``aggregate_to_topk``
are only recorded. The indices are int32. The gradient is TF's: ``dy`` scattered to the
selected positions with ``ScatterNd``.
"""

from __future__ import annotations

import collections
import functools
import operator

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.scatter_nd_ops import scatter_nd
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.math.arithmetic_ops import range as tf_range
from scopeflow.ops.math.reduction_ops import broadcast_to

__all__ = ["approx_max_k", "approx_min_k", "approx_top_k", "ApproxTopK"]

_APPROX_TOP_K_TYPES = (dtypes.float16, dtypes.float32)   # TF's T (and bfloat16)
_ATTRS = {"k": None, "reduction_dimension": -1, "recall_target": 0.95, "is_max_k": True,
          "reduction_input_size_override": -1, "aggregate_to_topk": True}


def _approx_top_k_shape(x, **attrs):
    k, dim = attrs["k"], attrs["reduction_dimension"]
    if x.ndims is None:
        return [TensorShape(None)] * 2
    dims = list(x.as_tuple())
    axis = dim % len(dims) if dims else 0
    size = dims[axis] if dims else None
    if size is None or size < k:
        raise ValueError(f"input must have last dimension >= k = {k} but was "
                         f"{-1 if size is None else size}")
    if attrs["aggregate_to_topk"]:
        dims[axis] = k
    elif size > (1024 if len(dims) == 1 else 128):
        # XLA's reduced size of a large input (an approximation's length); TF's kernel on
        # CPU still returns k values, so the static length is left unknown here
        dims[axis] = None
    # else: unaggregated, a small input keeps its length (XLA's reduction output size),
    # though TF's CPU kernel returns k values
    return [TensorShape(dims)] * 2


def _approx_top_k_dtype(x, **attrs):
    return [check_dtype(x, _APPROX_TOP_K_TYPES, "input"), dtypes.int32]


def _approx_top_k_kernel(x, **attrs):
    k, dim, is_max_k = attrs["k"], attrs["reduction_dimension"], attrs["is_max_k"]
    if not is_max_k or dim != -1:
        listed = ", ".join(f"{n}={_attr_text(v)}" for n, v in attrs.items())
        raise InvalidArgumentError(
            None, None, "No OpKernel was registered to support Op 'ApproxTopK' with these "
            f"attrs: [{listed}, T={dtypes.as_dtype(x.dtype).name}]; CPU kernels: "
            "reduction_dimension in [-1]; is_max_k in [true]")
    key = np.where(np.isnan(x), -np.inf, -x.astype(np.float64))   # NaN first, as TF
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def _attr_text(v):
    return str(v).lower() if isinstance(v, bool) else str(v)


approx_top_k_op = OpDef("ApproxTopK", shape=_approx_top_k_shape, dtype=_approx_top_k_dtype,
                        kernel=_approx_top_k_kernel, num_outputs=2, attrs=_ATTRS,
                        input_names=("input",))


@approx_top_k_op.def_grad
def _approx_top_k_grad(op, dy, _unused):
    """TF's _ApproxTopKGradient: each output position's (lifted) index into the input,
    built from the indices along the reduction dimension and iotas along the others, then
    ``ScatterNd`` of ``dy`` into the input's (static) shape."""
    idx_shape = op.outputs[1].shape
    lifted_idx_shape = idx_shape.concatenate([1])
    flat_len = functools.reduce(operator.mul, idx_shape.as_list(), 1)
    rank = idx_shape.ndims
    reduction_dim = op.get_attr("reduction_dimension")
    if reduction_dim < 0:
        reduction_dim += rank

    def lifted(d):
        if d == reduction_dim:
            return reshape(op.outputs[1], lifted_idx_shape.as_list())
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = idx_shape.as_list()[d]
        iota = reshape(tf_range(idx_shape.as_list()[d]), iota_shape)
        return broadcast_to(iota, lifted_idx_shape.as_list())

    lifted_idx = concat([lifted(d) for d in range(rank)], axis=rank)
    flat_idx = reshape(lifted_idx, [flat_len, rank])
    flat_grad = reshape(dy, [flat_len])
    return [scatter_nd(flat_idx, flat_grad, op.inputs[0].shape.as_list())]


ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
ApproxTopK.__doc__ = "``approx_max_k``'s result, as TF's: a named tuple (values, indices)."


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k,
                  reduction_input_size_override, aggregate_to_topk, name):
    values, indices = approx_top_k_op.bind(
        operand, k=int(k), reduction_dimension=int(reduction_dimension),
        recall_target=float(recall_target), is_max_k=is_max_k,
        reduction_input_size_override=int(reduction_input_size_override),
        aggregate_to_topk=bool(aggregate_to_topk), name=name)
    return ApproxTopK(values, indices)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> ApproxTopK:
    """The ``k`` largest entries along ``reduction_dimension`` and their int32 indices (on
    CPU exact, sorted, as TF's kernel).

    >>> tf.Session().run(tf.math.approx_max_k([[1., 5., 3.]], 2)).indices
    array([[1, 2]], dtype=int32)
    """
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> ApproxTopK:
    """The ``k`` smallest entries along ``reduction_dimension``: TF builds the op, but has
    no CPU kernel for it, so running it fails as in TF."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk, name)


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95,  # noqa: A002
                 is_max_k=True, reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> ApproxTopK:
    """TF's raw ``ApproxTopK`` (``tf.approx_top_k``): ``approx_max_k`` or, with
    ``is_max_k=False``, ``approx_min_k`` (which has no CPU kernel in TF).

    >>> tf.Session().run(tf.approx_top_k([[1., 5., 3.]], 2)).values
    array([[5., 3.]], dtype=float32)
    """
    return _approx_top_k(input, k, reduction_dimension, recall_target, bool(is_max_k),
                         reduction_input_size_override, aggregate_to_topk, name)
