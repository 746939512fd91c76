"""``tf.sparse``: SparseTensor ops and helpers under their ``tf.sparse.*`` names."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.ops.data_flow.accumulator_ops import SparseConditionalAccumulator
from scopeflow.ops.math.segment_ops import sparse_segment_mean as segment_mean
from scopeflow.ops.math.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from scopeflow.ops.math.segment_ops import sparse_segment_sum as segment_sum
from scopeflow.ops.sparse.sparse_count_ops import sparse_bincount as bincount
from scopeflow.ops.sparse.sparse_cross_ops import sparse_cross as cross
from scopeflow.ops.sparse.sparse_cross_ops import sparse_cross_hashed as cross_hashed
from scopeflow.ops.sparse.sparse_layout_ops import from_dense
from scopeflow.ops.sparse.sparse_layout_ops import sparse_concat as concat
from scopeflow.ops.sparse.sparse_layout_ops import sparse_expand_dims as expand_dims
from scopeflow.ops.sparse.sparse_layout_ops import sparse_eye as eye
from scopeflow.ops.sparse.sparse_layout_ops import sparse_fill_empty_rows as fill_empty_rows
from scopeflow.ops.sparse.sparse_layout_ops import sparse_mask as mask
from scopeflow.ops.sparse.sparse_layout_ops import sparse_merge as merge
from scopeflow.ops.sparse.sparse_layout_ops import sparse_reset_shape as reset_shape
from scopeflow.ops.sparse.sparse_layout_ops import sparse_reshape as reshape
from scopeflow.ops.sparse.sparse_layout_ops import sparse_retain as retain
from scopeflow.ops.sparse.sparse_layout_ops import sparse_slice as slice  # noqa: A004
from scopeflow.ops.sparse.sparse_layout_ops import sparse_split as split
from scopeflow.ops.sparse.sparse_layout_ops import sparse_to_indicator as to_indicator
from scopeflow.ops.sparse.sparse_layout_ops import sparse_transpose as transpose
from scopeflow.ops.sparse.sparse_math_ops import sparse_add as add
from scopeflow.ops.sparse.sparse_math_ops import sparse_maximum as maximum
from scopeflow.ops.sparse.sparse_math_ops import sparse_minimum as minimum
from scopeflow.ops.sparse.sparse_math_ops import sparse_reduce_max as reduce_max
from scopeflow.ops.sparse.sparse_math_ops import sparse_reduce_max_sparse as reduce_max_sparse
from scopeflow.ops.sparse.sparse_math_ops import sparse_reduce_sum as reduce_sum
from scopeflow.ops.sparse.sparse_math_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from scopeflow.ops.sparse.sparse_math_ops import sparse_softmax as softmax
from scopeflow.ops.sparse.sparse_math_ops import sparse_tensor_dense_matmul as matmul
from scopeflow.ops.sparse.sparse_math_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from scopeflow.ops.sparse.sparse_ops import sparse_placeholder as placeholder
from scopeflow.ops.sparse.sparse_ops import sparse_tensor_to_dense as to_dense
from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder as reorder

__all__ = ["SparseTensor", "SparseTensorValue", "SparseConditionalAccumulator", "add",
           "bincount", "concat", "cross", "cross_hashed", "expand_dims", "eye",
           "fill_empty_rows", "from_dense", "mask", "matmul", "maximum", "merge", "minimum",
           "placeholder", "reduce_max", "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse",
           "reorder", "reset_shape", "reshape", "retain", "segment_mean", "segment_sqrt_n",
           "segment_sum", "slice", "softmax", "sparse_dense_matmul", "split", "to_dense",
           "to_indicator", "transpose"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
