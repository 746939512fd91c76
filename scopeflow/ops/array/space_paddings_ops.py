"""``tf.required_space_to_batch_paddings``: the paddings and crops that make a block shape
divide an input shape, for ``space_to_batch_nd``/``batch_to_space_nd``.

Built as TF builds it: under a ``required_space_to_batch_paddings`` name scope, one
constant per result (``paddings``, ``crops``) when all three arguments have static values,
else the same arithmetic as ops, packed by ``stack``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.math.reduction_ops import zeros

__all__ = ["required_space_to_batch_paddings"]


def _checked_args(input_shape, block_shape, base_paddings):
    """The arguments as int32 tensors, with TF's static shape checks; None for no dims."""
    input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
    block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
    block_shape.shape.assert_is_fully_defined()
    block_shape.shape.assert_has_rank(1)
    n = block_shape.shape.as_list()[0]
    if n == 0:
        return None
    input_shape.shape.assert_is_compatible_with([n])
    if base_paddings is not None:
        base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32,
                                          name="base_paddings")
        base_paddings.shape.assert_is_compatible_with([n, 2])
    else:
        base_paddings = zeros([n, 2], dtypes.int32)
    return n, input_shape, block_shape, base_paddings


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None) -> tuple[Tensor, Tensor]:
    """``(paddings, crops)``, int32 ``[N, 2]``: ``paddings`` starts at ``base_paddings`` and
    pads each dim's end until ``block_shape`` divides it; ``crops`` takes the extra off.

    >>> p, c = tf.required_space_to_batch_paddings([5, 7], [2, 3])
    >>> tf.Session().run(p).tolist()
    [[0, 1], [0, 2]]
    """
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        args = _checked_args(input_shape, block_shape, base_paddings)
        if args is None:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        n, input_shape, block_shape, base_paddings = args
        static = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(v is not None for v in static):
            block_shape, input_shape, base_paddings = (np.asarray(v, np.int32) for v in static)
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(n)], name="paddings")
        crops = stack([[0, pad_end_extra[i]] for i in range(n)], name="crops")
        return paddings, crops
