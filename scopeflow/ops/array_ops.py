"""TF1's ``array_ops``: the array ops' builders and OpDefs, re-exported from their families.

The ops are declared in the op-family modules (docs/ARCHITECTURE.md, "One op, one block"),
which import only downward: ``op_helpers`` -> ``shape_ops`` -> ``arithmetic_ops`` ->
``layout_ops`` -> ``reduction_ops`` -> ``elementwise_ops`` -> ``slicing_ops`` ->
``indexing_ops`` -> ``statistics_ops``, ``matmul_ops``. This module only re-exports the
array side (``array_ops.reshape``, ``array_ops.fill_op``...) for TF1 code and scopeflow's own
modules; ``layout_ops`` installs the auto-packing conversion of lists that contain tensors
(``[t, 2.0]`` -> ``Pack``).
"""

from __future__ import annotations

from scopeflow.ops.array.grid_ops import (  # noqa: F401 - re-exported
    einsum,
    einsum_op,
    ensure_shape,
    ensure_shape_op,
    meshgrid,
    parallel_concat_op,
    parallel_stack,
    roll,
    roll_op,
    sequence_mask,
    unravel_index,
    unravel_index_op,
)
from scopeflow.ops.array.indexing_ops import (  # noqa: F401 - re-exported
    boolean_mask,
    gather,
    gather_op,
    newaxis,
    one_hot,
    one_hot_op,
    slice_helper,
    strided_slice,
    strided_slice_grad,
    strided_slice_grad_op,
    strided_slice_op,
)
from scopeflow.ops.array.layout_ops import (  # noqa: F401 - re-exported
    invert_permutation,
    invert_permutation_op,
    pack_op,
    stack,
    transpose,
    transpose_op,
    unpack_op,
    unstack,
)
from scopeflow.ops.array.quantize_ops import (  # noqa: F401 - re-exported
    dequantize,
    dequantize_op,
    quantize,
    quantize_v2,
    quantize_v2_op,
    quantized_concat,
    quantized_concat_op,
)
from scopeflow.ops.array.reverse_ops import (  # noqa: F401 - re-exported
    reverse,
    reverse_op,
    reverse_sequence,
    reverse_sequence_op,
    reverse_v2,
)
from scopeflow.ops.array.scatter_nd_ops import (  # noqa: F401 - re-exported
    gather_nd,
    gather_nd_op,
    scatter_nd,
    scatter_nd_op,
    tensor_scatter_add,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    tensor_scatter_sub,
    tensor_scatter_update,
)
from scopeflow.ops.array.shape_ops import (  # noqa: F401 - re-exported
    broadcast_args_op,
    broadcast_dynamic_shape,
    broadcast_gradient_args,
    broadcast_gradient_args_op,
    expand_dims,
    expand_dims_op,
    identity,
    identity_n,
    identity_n_op,
    identity_op,
    placeholder,
    placeholder_op,
    placeholder_with_default,
    placeholder_with_default_op,
    rank,
    rank_op,
    reshape,
    reshape_op,
    shape,
    shape_n,
    shape_n_op,
    shape_op,
    size,
    size_op,
    squeeze,
    squeeze_op,
    stop_gradient,
    stop_gradient_op,
)
from scopeflow.ops.array.slicing_ops import (  # noqa: F401 - re-exported
    concat,
    concat_offset,
    concat_offset_op,
    concat_op,
    mirror_pad_grad,
    mirror_pad_grad_op,
    mirror_pad_op,
    pad,
    pad_op,
    pad_v2_op,
    slice,
    slice_op,
    split,
    split_op,
    split_v_op,
)
from scopeflow.ops.array.space_ops import (  # noqa: F401 - re-exported
    batch_to_space,
    batch_to_space_nd,
    batch_to_space_nd_op,
    depth_to_space,
    depth_to_space_op,
    space_to_batch,
    space_to_batch_nd,
    space_to_batch_nd_op,
    space_to_depth,
    space_to_depth_op,
)
from scopeflow.ops.math.linspace_ops import (  # noqa: F401 - re-exported
    lin_space,
    lin_space_op,
    linspace,
)
from scopeflow.ops.math.reduction_ops import (  # noqa: F401 - re-exported
    broadcast_to,
    broadcast_to_op,
    fill,
    fill_op,
    ones,
    ones_like,
    ones_like_op,
    tile,
    tile_op,
    zeros,
    zeros_like,
    zeros_like_op,
)
from scopeflow.ops.op_helpers import (  # noqa: F401 - re-exported
    _partial_dims,
)

__all__ = [
    "identity_n", "linspace", "lin_space", "broadcast_dynamic_shape", "broadcast_to",
    "placeholder", "placeholder_with_default", "identity", "stop_gradient", "reshape",
    "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile", "pad",
    "slice", "strided_slice", "gather", "one_hot", "shape", "shape_n", "size", "rank", "fill",
    "zeros",
    "ones", "zeros_like", "ones_like", "boolean_mask", "newaxis", "invert_permutation",
    "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
    "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub", "space_to_depth",
    "depth_to_space", "space_to_batch_nd", "batch_to_space_nd", "space_to_batch",
    "batch_to_space", "roll", "unravel_index", "ensure_shape", "parallel_stack", "einsum",
    "sequence_mask", "meshgrid", "quantize", "quantize_v2", "dequantize", "quantized_concat",
]
