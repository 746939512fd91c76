"""``HistogramFixedWidth``: counts of values in equal-width bins over a value range.

Values below ``value_range[0]`` fall in the first bin and values at or above
``value_range[1]`` in the last, as TF's kernel clamps them; bin indices are computed in
float64 as TF does, so values on a bin edge land where TF puts them. Not differentiable
(TF registers no gradient).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import reshape, shape
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math.arithmetic_ops import cast, greater, truediv
from scopeflow.ops.math.elementwise_ops import clip_by_value, floor

__all__ = ["histogram_fixed_width", "histogram_fixed_width_bins"]

_HISTOGRAM_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


# ── HistogramFixedWidth ──────────────────────────────────────────────────────────────
def _histogram_shape(values, value_range, nbins, *, dtype):
    value_range.shape.with_rank(1)
    nbins.shape.with_rank(0)
    n = constant_value(nbins)
    if n is None:
        return TensorShape([None])
    if int(n) <= 0:
        raise ValueError(f"Requires nbins > 0: {int(n)}")
    return TensorShape([int(n)])


def _histogram_dtype(values, value_range, nbins, *, dtype):
    check_dtype(values, _HISTOGRAM_TYPES, "values")
    if value_range != values:
        raise TypeError(f"Input 'value_range' of 'HistogramFixedWidth' Op has type "
                        f"{value_range.name} that does not match type {values.name} of "
                        "argument 'values'.")
    check_dtype(nbins, (dtypes.int32,), "nbins")
    return check_dtype(dtype, INDEX, "dtype")


def _histogram_kernel(values, value_range, nbins, *, dtype):
    nbins = int(nbins)
    lo, hi = (np.asarray(value_range).reshape(-1).tolist() + [None, None])[:2]
    if nbins <= 0:
        raise InvalidArgumentError(None, None, f"nbins should be a positive number, but got "
                                   f"'{nbins}'")
    if not lo < hi:
        raise InvalidArgumentError(None, None, f"value_range should satisfy value_range[0] < "
                                   f"value_range[1], but got '[{lo:g}, {hi:g}]'")
    step = (float(hi) - float(lo)) / nbins
    shifted = np.maximum(np.asarray(values, np.float64).reshape(-1), lo) - float(lo)
    index = np.minimum(np.floor(shifted / step), nbins - 1).astype(np.int64)
    return np.bincount(index, minlength=nbins).astype(dtype.as_numpy_dtype)


histogram_fixed_width_op = OpDef(
    "HistogramFixedWidth", shape=from_tensors(_histogram_shape), dtype=_histogram_dtype,
    kernel=_histogram_kernel, attrs={"dtype": dtypes.int32}, grad=NO_GRADIENT,
    input_names=("values", "value_range", "nbins"))


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32,
                          name=None) -> Tensor:
    """How many of ``values`` fall in each of ``nbins`` equal bins of ``value_range``.

    >>> tf.Session().run(tf.histogram_fixed_width([0., 1., 2., 5., -1.], [0., 5.], 5))
    array([2, 1, 1, 0, 1], dtype=int32)
    """
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        values = convert_to_tensor(values, name="values")
        value_range = convert_to_tensor(value_range, name="value_range",
                                        dtype=values.dtype.base_dtype)
        nbins = convert_to_tensor(nbins, name="nbins", dtype=dtypes.int32)
        return histogram_fixed_width_op.bind(values, value_range, nbins,
                                             dtype=dtypes.as_dtype(dtype), name=scope)


# ── histogram_fixed_width_bins (a composite, as TF builds it) ────────────────────────
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32,
                               name=None) -> Tensor:
    """The bin index of each of ``values`` among ``nbins`` equal bins of ``value_range``
    (clamped to the first and last bin), shaped as ``values``. Always int32: TF ignores
    ``dtype``.

    >>> tf.Session().run(tf.histogram_fixed_width_bins([-1., 0., 0.5, 5., 10.], [0., 5.], 5))
    array([0, 0, 0, 4, 4], dtype=int32)
    """
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        values_shape = shape(values)
        values = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        check = Assert(greater(nbins, 0), [f"nbins {nbins} must > 0"])
        nbins = with_dependencies([check], nbins)
        nbins_float = cast(nbins, values.dtype)
        scaled_values = truediv(values - value_range[0], value_range[1] - value_range[0],
                                name="scaled_values")
        indices = floor(nbins_float * scaled_values, name="indices")
        indices = cast(clip_by_value(indices, 0, nbins_float - 1), dtypes.int32)
        return reshape(indices, values_shape)
