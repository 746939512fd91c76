"""Array ops: placeholders, identity, shapes, reshaping, slicing, joining, gathering."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import OpDef, first_dtype, same_shape
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.runtime.plan import OpRunContext  # noqa: F401 - kernels' context type

__all__ = ["placeholder", "placeholder_with_default", "identity", "stop_gradient"]


# ── Placeholder ──────────────────────────────────────────────────────────────────────
def _placeholder_kernel(*, dtype, shape):
    # Never reached: plans refuse to compile when a needed placeholder is not fed.
    raise AssertionError("unfed placeholder")


placeholder_op = OpDef("Placeholder", shape=lambda *, dtype, shape: shape,
                       dtype=lambda *, dtype, shape: dtype, kernel=_placeholder_kernel,
                       attrs={"dtype": None, "shape": TensorShape(None)}, grad=None)


def placeholder(dtype, shape=None, name=None) -> Tensor:
    """A tensor whose value must be fed to ``Session.run`` (``None`` dims: any size).

    >>> placeholder("float", [None, 784]).shape.as_list()
    [None, 784]
    """
    return placeholder_op.bind(dtype=dtypes.as_dtype(dtype).base_dtype,
                               shape=TensorShape(None) if shape is None else as_shape(shape),
                               name=name)


# ── PlaceholderWithDefault ───────────────────────────────────────────────────────────
def _placeholder_with_default_shape(x, *, dtype, shape):
    if not shape.is_compatible_with(x):
        raise ValueError(f"Shapes {shape} and {x} are incompatible")
    return shape


placeholder_with_default_op = OpDef(
    "PlaceholderWithDefault", shape=_placeholder_with_default_shape,
    dtype=lambda x, *, dtype, shape: x, kernel=lambda x, *, dtype, shape: x,
    attrs={"dtype": None, "shape": TensorShape(None)}, aliases=True, input_names=("input",))
placeholder_with_default_op.def_grad(lambda op, dy: [dy])


def placeholder_with_default(input, shape, name=None) -> Tensor:  # noqa: A002 - TF's name
    """A placeholder that yields ``input`` when it is not fed."""
    x = convert_to_tensor(input)
    return placeholder_with_default_op.bind(x, dtype=x.dtype, shape=as_shape(shape), name=name)


# ── Identity ─────────────────────────────────────────────────────────────────────────
identity_op = OpDef("Identity", shape=same_shape, dtype=first_dtype, kernel=lambda x: x,
                    aliases=True, input_names=("input",))
identity_op.def_grad(lambda op, dy: [dy])


def identity(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The same value as ``input``, as a new tensor (reads a variable's current value)."""
    return identity_op.bind(input, name=name)


# ── StopGradient ─────────────────────────────────────────────────────────────────────
stop_gradient_op = OpDef("StopGradient", shape=same_shape, dtype=first_dtype,
                         kernel=lambda x: x, aliases=True, grad=None, input_names=("input",))


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Passes ``input`` through; autodiff treats it as a constant."""
    return stop_gradient_op.bind(input, name=name)


_np = np  # kept for the kernels below
