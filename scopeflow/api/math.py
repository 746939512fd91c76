"""``tf.math``: the math ops under their ``tf.math.*`` names."""

from scopeflow.api import special  # noqa: F401 - tf.math.special
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops import math_ops
from scopeflow.ops.array.layout_ops import invert_permutation
from scopeflow.ops.math import cwise_grad_ops as _cwise_grad_ops  # noqa: F401 - TanhGrad &c.
from scopeflow.ops.math.approx_topk_ops import approx_max_k, approx_min_k
from scopeflow.ops.math.bessel_ops import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
from scopeflow.ops.math.count_ops import bincount, confusion_matrix, zero_fraction
from scopeflow.ops.math.gamma_ops import betainc, igamma, igammac
from scopeflow.ops.math.scan_ops import cumprod, cumsum, cumulative_logsumexp
from scopeflow.ops.math.segment_ops import (
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
)
from scopeflow.ops.math.sequence_ops import is_non_decreasing, is_strictly_increasing
from scopeflow.ops.math.sobol_ops import sobol_sample
from scopeflow.ops.math.special_ops import (
    divide_no_nan,
    erfcinv,
    erfinv,
    multiply_no_nan,
    ndtri,
    nextafter,
    reciprocal_no_nan,
    xdivy,
    xlog1py,
    xlogy,
)
from scopeflow.ops.math.statistics_ops import (
    accumulate_n,
    count_nonzero,
    polyval,
    reduce_euclidean_norm,
    reduce_std,
    reduce_variance,
)
from scopeflow.ops.math_ops import *  # noqa: F403
from scopeflow.ops.nn.nn_activation_ops import log_softmax, softmax, softplus, softsign
from scopeflow.ops.nn.nn_composites import l2_normalize
from scopeflow.ops.nn.nn_top_k_ops import in_top_k, top_k
from scopeflow.ops.signal.complex_ops import angle, imag, real

__all__ = math_ops.__all__ + [
    "segment_sum", "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
    "top_k", "in_top_k",
    "cumsum", "cumprod", "cumulative_logsumexp", "segment_max", "segment_mean", "segment_min",
    "segment_prod", "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
    "unsorted_segment_prod", "unsorted_segment_sqrt_n", "accumulate_n", "count_nonzero",
    "polyval", "reduce_euclidean_norm", "reduce_std", "reduce_variance",
    "divide_no_nan", "erfcinv", "erfinv", "multiply_no_nan", "ndtri", "nextafter",
    "reciprocal_no_nan", "xdivy", "xlog1py", "xlogy", "angle", "imag", "real",
    # tf.nn's functions that TF also exports as tf.math.* (the same functions)
    "invert_permutation", "l2_normalize", "log_softmax", "softmax", "softplus", "softsign",
    "bincount", "confusion_matrix", "zero_fraction", "is_non_decreasing",
    "is_strictly_increasing", "approx_max_k", "approx_min_k", "sobol_sample",
    "betainc", "igamma", "igammac", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
