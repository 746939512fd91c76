"""``tf.sparse``: SparseTensor helpers under their ``tf.sparse.*`` names."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401
from scopeflow.ops.math.segment_ops import sparse_segment_mean as segment_mean  # noqa: F401
from scopeflow.ops.math.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n  # noqa: F401
from scopeflow.ops.math.segment_ops import sparse_segment_sum as segment_sum  # noqa: F401
from scopeflow.ops.sparse.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from scopeflow.ops.sparse.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
