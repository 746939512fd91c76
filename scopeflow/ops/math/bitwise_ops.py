"""``tf.bitwise``: BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift.

Integer tensors of any width, signed or unsigned. Shifts follow TF's kernel, not C's
undefined behaviour: the shift amount is clamped to ``[0, bits - 1]`` (a negative shift
shifts by 0, a shift of ``bits`` or more by ``bits - 1``), left shifts wrap around in the
type, and right shifts of signed values are arithmetic (sign-filling). All six are
``NotDifferentiable`` in TF (no gradient flows, no error).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import INTS
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import OpDef, broadcast_shape, broadcasting, same_shape
from scopeflow.ops.op_helpers import _apply, _same_dtype_in

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _binary(op_type, kernel):
    return OpDef(op_type, shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(INTS),
                 kernel=kernel, grad=None, input_names=("x", "y"))


def _clamped_shift(x, y):
    """TF's shift amount: ``y`` clamped to ``[0, bits - 1]``, in ``x``'s type."""
    bits = np.dtype(x.dtype).itemsize * 8
    if y.dtype.kind == "u":   # a huge uint64 must not wrap negative on the way
        return np.minimum(y, bits - 1).astype(x.dtype)
    return np.clip(y.astype(np.int64), 0, bits - 1).astype(x.dtype)


def _bitwise_and_kernel(x, y):
    return np.bitwise_and(x, y)


def _bitwise_or_kernel(x, y):
    return np.bitwise_or(x, y)


def _bitwise_xor_kernel(x, y):
    return np.bitwise_xor(x, y)


def _left_shift_kernel(x, y):
    return np.left_shift(x, _clamped_shift(x, y))


def _right_shift_kernel(x, y):
    return np.right_shift(x, _clamped_shift(x, y))


def _invert_kernel(x):
    return np.invert(x)


bitwise_and_op = _binary("BitwiseAnd", _bitwise_and_kernel)
bitwise_or_op = _binary("BitwiseOr", _bitwise_or_kernel)
bitwise_xor_op = _binary("BitwiseXor", _bitwise_xor_kernel)
left_shift_op = _binary("LeftShift", _left_shift_kernel)
right_shift_op = _binary("RightShift", _right_shift_kernel)
invert_op = OpDef("Invert", shape=same_shape, dtype=_same_dtype_in(INTS),
                  kernel=_invert_kernel, grad=None, input_names=("x",))


def bitwise_and(x, y, name=None) -> Tensor:
    """Elementwise ``x & y``.

    >>> tf.Session().run(tf.bitwise.bitwise_and(12, 10))
    np.int32(8)
    """
    return _apply(bitwise_and_op, [x, y], name)


def bitwise_or(x, y, name=None) -> Tensor:
    """Elementwise ``x | y``."""
    return _apply(bitwise_or_op, [x, y], name)


def bitwise_xor(x, y, name=None) -> Tensor:
    """Elementwise ``x ^ y``."""
    return _apply(bitwise_xor_op, [x, y], name)


def invert(x, name=None) -> Tensor:
    """Elementwise ``~x`` (all bits flipped)."""
    return _apply(invert_op, [x], name)


def left_shift(x, y, name=None) -> Tensor:
    """Elementwise ``x << y``, ``y`` clamped to ``[0, bits - 1]`` as TF's kernel does."""
    return _apply(left_shift_op, [x, y], name)


def right_shift(x, y, name=None) -> Tensor:
    """Elementwise ``x >> y`` (arithmetic for signed types), ``y`` clamped to
    ``[0, bits - 1]`` as TF's kernel does."""
    return _apply(right_shift_op, [x, y], name)
