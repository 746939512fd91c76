"""TF's ``_WithSpaceToBatch`` machinery, shared by the dilated convolutions and poolings
(``convolution``, ``pool``, ``with_space_to_batch``, ``separable_conv2d``): the op runs
VALID on ``SpaceToBatchND`` of the input (blocks of the dilation rate) and
``BatchToSpaceND`` crops the result, with TF's ``required_space_to_batch_paddings``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Tensor
from scopeflow.ops import array_ops
from scopeflow.ops.array.space_ops import batch_to_space_nd, space_to_batch_nd

__all__ = ["space_to_batch_call", "base_paddings"]


def _required_paddings(spatial, base, rate):
    """TF's ``required_space_to_batch_paddings``: pad each spatial dim to a multiple of the
    block (NumPy when the spatial sizes are static, ops otherwise); crops undo the extra."""
    if not isinstance(spatial, Tensor):
        spatial = np.asarray(spatial, np.int32)
        full = spatial + base[:, 0] + base[:, 1]
        extra = (rate - full % rate) % rate
        paddings = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
        crops = np.stack([np.zeros_like(extra), extra], 1).astype(np.int32)
        return paddings, crops
    full = spatial + base[:, 0] + base[:, 1]
    extra = (rate - full % rate) % rate
    paddings = array_ops.stack([base[:, 0], base[:, 1] + extra], 1)
    crops = array_ops.stack([array_ops.zeros_like(extra), extra], 1)
    return paddings, crops


def _adjust(orig, fill_value, spatial_dims):
    """TF's ``_with_space_to_batch_adjust``: per-dim rows for dims 1.. (fill where not
    spatial), so that the block covers exactly ``spatial_dims``."""
    is_tensor = isinstance(orig, Tensor)
    fill_dims = list(orig.shape[1:]) if not is_tensor else orig.shape.as_list()[1:]
    dtype = np.int32
    parts, prev, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev, *fill_dims], fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(orig[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    if not is_tensor:
        return np.concatenate(parts)
    return array_ops.concat(parts, 0)


def space_to_batch_call(input, rate, padding, base_paddings, spatial_dims, build,  # noqa: A002
                         data_format, filter=None):  # noqa: A002
    """Wraps ``build(num_spatial_dims, padding)`` as TF's ``_WithSpaceToBatch`` does."""
    n = len(rate)
    if np.all(rate == 1):
        return build(n, padding)(input, filter)
    shape = input.shape
    spatial = None
    if shape.ndims is not None:
        dims = shape.as_list()
        spatial = [dims[i] for i in spatial_dims]
    if spatial is None or None in spatial:
        shape_t = array_ops.shape(input)
        spatial = array_ops.stack([shape_t[i] for i in spatial_dims])
    paddings, crops = _required_paddings(spatial, base_paddings, rate)
    block = _adjust(rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = space_to_batch_nd(input, block, paddings)
    result = build(n, "VALID")(converted, filter)
    result = batch_to_space_nd(result, block, crops)
    if data_format is not None and data_format.startswith("NC") and filter is not None \
            and result.shape.ndims is not None and result.shape.as_list()[1] is None:
        dims = result.shape.as_list()
        dims[1] = filter.shape.as_list()[-1] if filter.shape.ndims is not None else None
        result.set_shape(dims)
    return result


def base_paddings(padding, filter_shape, rate, n, what="filter_shape"):
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(f"`filter_shape` must be specified for `padding='SAME'`. Received: "
                             f"filter_shape={filter_shape} and padding={padding}")
        extra = (np.asarray(filter_shape[:n], np.int32) - 1) * rate
        start = extra // 2
        return np.stack([start, extra - start], 1).astype(np.int32)
    if padding == "VALID":
        return np.zeros([n, 2], np.int32)
    raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
