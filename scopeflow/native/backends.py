"""Which kernel backends can run each op type: the one table the kernels choose from and
``scopeflow info`` prints.

Every op runs on NumPy (its OpDef's kernel, the default and the reference). An op listed
in :data:`NATIVE` may also run on a native backend, for the operands that backend takes:
its NumPy kernel asks :func:`native` at each call (a dict lookup and a dtype check), runs
there when given a backend, and runs its own NumPy code when given None, or when the
backend answers None for a case it has no fast implementation of. The plan compiler
never sees the choice, so ``SCOPEFLOW_NATIVE=0`` or ``onednn.set_enabled`` take effect
at the next call.

This module imports only :mod:`scopeflow.native.onednn` (and NumPy), so the op families
can use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scopeflow.native import onednn

__all__ = ["NUMPY", "ONEDNN", "NativeKernel", "NATIVE", "backends", "loaded", "native"]

NUMPY = "numpy"
ONEDNN = "onednn"


@dataclass(frozen=True)
class NativeKernel:
    """One op type's native backend.

    ``takes(*arrays)`` says whether it can run these operands (the NumPy kernel checked
    the attrs and shapes first, so TF's error messages never depend on the backend);
    ``when`` says the same in words. ``probe`` names a case and ``implementation(lib)``
    asks the loaded library which of its kernels would run it, for ``scopeflow info``.
    """

    backend: str
    takes: Callable[..., bool]
    when: str
    probe: str
    implementation: Callable[[onednn.OneDNN], str | None]


def _onednn_takes(*arrays) -> bool:
    """oneDNN gets float32 with no empty dimension; float64/16, int32 or a batch of 0
    stay on NumPy (the bindings describe float32 memory only)."""
    for a in arrays:
        if a.dtype != np.float32 or not a.size:
            return False
    return True


# The seed CNN's conv2 (x, filter, strides, pads, output size) and pool1 (x, window,
# strides, pads, output size): the cases whose implementation names info shows.
_CONV_PROBE = ((50, 14, 14, 32), (5, 5, 32, 64), (1, 1), ((2, 2), (2, 2)), (14, 14))
_POOL_PROBE = ((50, 28, 28, 32), (2, 2), (2, 2), ((0, 0), (0, 0)), (14, 14))
_ONEDNN_WHEN = "float32, NHWC; other dtypes and formats: numpy"
# MobileNet v1's second depthwise layer at batch 32 (x, filter, strides, pads, output size).
_DEPTHWISE_PROBE = ((32, 112, 112, 64), (3, 3, 64, 1), (2, 2), ((0, 1), (0, 1)), (56, 56))


def _onednn_conv(kind: str) -> NativeKernel:
    return NativeKernel(ONEDNN, _onednn_takes, _ONEDNN_WHEN, "seed conv2",
                        lambda lib: lib.implementation(kind, *_CONV_PROBE))


# NOTE: MaxPoolGrad is not here: oneDNN's backward takes its argmax from a workspace whose
# choice differs from TF's where a window starts with NaN (see scopeflow.native.onednn).
NATIVE: dict[str, NativeKernel] = {
    "Conv2D": _onednn_conv("fwd"),
    "Conv2DBackpropInput": _onednn_conv("bwd_data"),
    "Conv2DBackpropFilter": _onednn_conv("bwd_weights"),
    "DepthwiseConv2dNative": NativeKernel(
        ONEDNN, _onednn_takes, _ONEDNN_WHEN, "MobileNet dw2",
        lambda lib: lib.implementation("fwd_depthwise", *_DEPTHWISE_PROBE)),
    "MaxPool": NativeKernel(ONEDNN, _onednn_takes, _ONEDNN_WHEN, "seed pool1",
                            lambda lib: lib.max_pool_implementation(*_POOL_PROBE)),
}


def backends(op_type: str) -> tuple[str, ...]:
    """The backends that can run ``op_type``, NumPy first (whether or not the native one
    is installed)."""
    entry = NATIVE.get(op_type)
    return (NUMPY,) if entry is None else (NUMPY, entry.backend)


def loaded(op_type: str) -> bool:
    """Whether ``op_type``'s native backend is installed and switched on now (for a plan pass
    deciding, when it compiles, whether a native-only rewrite can pay)."""
    return op_type in NATIVE and onednn.backend() is not None


def native(op_type: str, *arrays: np.ndarray) -> onednn.OneDNN | None:
    """The loaded native backend to run ``op_type`` on ``arrays``, or None for NumPy.

    ``op_type`` must be in :data:`NATIVE`: a kernel asking for an op with no native
    kernel is a bug, and raises KeyError.
    """
    if not NATIVE[op_type].takes(*arrays):
        return None
    return onednn.backend()
