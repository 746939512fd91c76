"""What TF's distributions share (tensorflow/python/ops/distributions/util.py, special_math.py):
the ops modules they build on, logits/probs conversion, the seed salt, and the normal CDF
helpers, so each distribution module is TF's graph on scopeflow ops."""

from __future__ import annotations

import hashlib

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, constant_op, math_ops, nn_ops
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.random import random_gamma_ops, random_ops

__all__ = ["array_ops", "constant_op", "reduction_ops", "math_ops", "nn_ops", "check_ops",
           "random_ops", "random_gamma_ops", "dtypes", "np", "name_scope",
           "control_dependencies", "convert_to_tensor", "constant_value",
           "assert_same_float_dtype", "get_logits_and_probs", "gen_new_seed", "ndtr", "log_ndtr",
           "log_cdf_laplace", "batch_shape_concat"]


def assert_same_float_dtype(tensors, dtype=None):
    """TF checks a distribution's parameters share one floating dtype at construction, so a
    mixed float32/float64 pair fails before any op is built."""
    first_name = None
    for t in tensors:
        if dtype is None:
            dtype, first_name = t.dtype, t.name
        elif t.dtype.base_dtype != dtype.base_dtype:
            as_ = f" as {first_name}" if first_name else ""
            raise ValueError(f"{t.name}, type=<dtype: '{t.dtype.name}'>, must be of the same "
                             f"type (<dtype: '{dtype.name}'>){as_}.")
    if dtype is not None and not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got <dtype: '{dtype.name}'>.")
    return dtype


def get_logits_and_probs(logits=None, probs=None, multidimensional=False, validate_args=False,
                         name="get_logits_and_probs", dtype=None):
    """Bernoulli and Categorical keep both parameterisations; the one not given is derived
    with TF's ops (sigmoid/softmax named "probs", or log-odds under "logits")."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                return logits, nn_ops.softmax(logits, name="probs")
            return logits, math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = constant_like(1.0, probs)
                deps = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    tol = constant_like(10 * np.finfo(probs.dtype.as_numpy_dtype).eps, probs)
                    deps.append(check_ops.assert_less_equal(
                        math_ops.abs(math_ops.reduce_sum(probs, -1) - one), tol,
                        message="probs does not sum to 1."))
                else:
                    deps.append(check_ops.assert_less_equal(
                        probs, one, message="probs has components greater than 1."))
                with control_dependencies(deps):
                    probs = array_ops.identity(probs)
        with name_scope("logits"):
            if multidimensional:
                return math_ops.log(probs), probs
            return math_ops.log(probs) - math_ops.log1p(-1.0 * probs), probs


def constant_like(value, tensor):
    """A scalar constant of ``tensor``'s dtype (TF's ``constant(1, dtype=x.dtype)``)."""
    return convert_to_tensor(np.asarray(value, dtype=tensor.dtype.as_numpy_dtype))


def gen_new_seed(seed, salt):
    """TF derives a second sampler's seed from the first by MD5 of ``str(seed) + salt`` so two
    gamma draws (Beta) are independent yet reproducible; None stays None."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


def batch_shape_concat(n, dist):
    """``concat([[n], batch_shape_tensor()], 0)``: the sample shape TF's samplers draw."""
    return array_ops.concat([[n], dist.batch_shape_tensor()], 0)


def _ndtr(x):
    """TF's erf/erfc split of the normal CDF: erf near 0, erfc in the tails, so neither side
    loses precision to cancellation."""
    half_sqrt_2 = constant_op.constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    y = reduction_ops.where_v2(
        math_ops.less(z, half_sqrt_2), 1.0 + math_ops.erf(w),
        reduction_ops.where_v2(math_ops.greater(w, 0.0), 2.0 - math_ops.erfc(z),
                               math_ops.erfc(z)))
    return 0.5 * y


def ndtr(x, name="ndtr"):
    """Normal CDF as TF's special_math.ndtr."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.as_numpy_dtype not in (np.float32, np.float64):
            raise TypeError(f"x.dtype={x.dtype} is not handled, see docstring for supported "
                            "types.")
        return _ndtr(x)


def _double_factorial(n):
    return np.prod(np.arange(n, 1, -2))


def _log_ndtr_lower(x, series_order):
    x_2 = math_ops.square(x)
    log_scale = -0.5 * x_2 - math_ops.log(-x) - 0.5 * np.log(2.0 * np.pi)
    return log_scale + math_ops.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    """1 - 1/x^2 + 3/x^4 - 15/x^6 ...: the tail series of log_ndtr, summed in TF's order."""
    x_2 = math_ops.square(x)
    even_sum = reduction_ops.zeros_like(x)
    odd_sum = reduction_ops.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.asarray(_double_factorial(2 * n - 1), x.dtype.as_numpy_dtype) / x_2n
        if n % 2:
            odd_sum = odd_sum + y
        else:
            even_sum = even_sum + y
        x_2n = x_2n * x_2
    return 1.0 + even_sum - odd_sum


def log_ndtr(x, series_order=3, name="log_ndtr"):
    """log of the normal CDF as TF's special_math.log_ndtr: -ndtr(-x) above the upper segment,
    log(ndtr) in the middle, and the asymptotic series below the lower segment."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.as_numpy_dtype == np.float64:
            lower, upper = -20.0, 8.0
        elif x.dtype.as_numpy_dtype == np.float32:
            lower, upper = -10.0, 5.0
        else:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        return reduction_ops.where_v2(
            math_ops.greater(x, upper), -_ndtr(-x),
            reduction_ops.where_v2(math_ops.greater(x, lower),
                           math_ops.log(_ndtr(math_ops.maximum(x, lower))),
                           _log_ndtr_lower(math_ops.minimum(x, lower), series_order)))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """log of the standard Laplace CDF, stable on both sides (TF's special_math)."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.0) + x
        safe_exp_neg_x = math_ops.exp(-math_ops.abs(x))
        upper_solution = math_ops.log1p(-0.5 * safe_exp_neg_x)
        return reduction_ops.where_v2(math_ops.less(x, 0.0), lower_solution, upper_solution)
