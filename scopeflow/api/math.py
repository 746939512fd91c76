"""``tf.math``: the math ops under their ``tf.math.*`` names."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops import math_ops
from scopeflow.ops.math.segment_ops import (
    segment_sum,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
)
from scopeflow.ops.math_ops import *  # noqa: F403
from scopeflow.ops.nn.nn_top_k_ops import in_top_k, top_k

__all__ = math_ops.__all__ + [
    "segment_sum", "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
    "top_k", "in_top_k"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
