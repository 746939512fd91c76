"""Max pooling that also returns where each maximum came from: ``MaxPoolWithArgmax``
(``tf.nn.max_pool_with_argmax``) and its gradient op ``MaxPoolGradWithArgmax`` (which, as
in TF, has no gradient registered).

The argmax is TF's flat index ``(y * width + x) * channels + c`` (with
``include_batch_in_index``: ``((b * height + y) * width + x) * channels + c``), of the first
maximal in-image tap in scan order, as TF's CPU kernel; the gradient scatters into those
positions. NHWC only, as TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import NUMERIC
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.nn.conv_geometry import get_sequence, out_and_pads

__all__ = ["max_pool_with_argmax"]

_ATTRS = {"ksize": None, "strides": None, "padding": None, "include_batch_in_index": False}


def _out_shape(x, ksize, strides, padding):
    x = x.with_rank(4) if x.ndims is not None else TensorShape([None] * 4)
    n, h, w, c = x.as_tuple()
    oh = out_and_pads(h, ksize[1], strides[1], 1, padding)[0]
    ow = out_and_pads(w, ksize[2], strides[2], 1, padding)[0]
    return TensorShape([n, oh, ow, c])


def _argmax_shape(x, *, ksize, strides, padding, Targmax, include_batch_in_index):  # noqa: N803
    if len(ksize) != 4 or len(strides) != 4:
        raise ValueError("MaxPoolWithArgmax requires ksize and strides of 4 values")
    out = _out_shape(x, ksize, strides, padding)
    return [out, out]


def _argmax_dtype(x, *, Targmax, **attrs):  # noqa: N803
    check_dtype(x, NUMERIC, "input")
    return [x, Targmax]


def _windows(x, ksize, strides, padding):
    """The running first maximum over the window taps and its flat input index."""
    n, h, w, c = x.shape
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    oh, pt, _ = out_and_pads(h, kh, sh, 1, padding)
    ow, pl, _ = out_and_pads(w, kw, sw, 1, padding)
    ys = np.arange(oh) * sh - pt
    xs = np.arange(ow) * sw - pl
    best = np.zeros((n, oh, ow, c), x.dtype)
    idx = np.full((n, oh, ow, c), -1, np.int64)
    cs = np.arange(c)
    for i in range(kh):
        for j in range(kw):
            r, q = ys + i, xs + j
            okr, okq = (r >= 0) & (r < h), (q >= 0) & (q < w)
            val = x[:, np.clip(r, 0, h - 1)][:, :, np.clip(q, 0, w - 1)]
            ok = (okr[:, None] & okq[None, :])[None, :, :, None]
            better = ok & ((idx < 0) | (val > best))
            best = np.where(better, val, best)
            flat = ((r[:, None, None] * w + q[None, :, None]) * c + cs)[None]
            idx = np.where(better, flat, idx)
    return best, idx


def _batch_offsets(shape):
    n, h, w, c = shape
    return (np.arange(n, dtype=np.int64) * (h * w * c))[:, None, None, None]


def _argmax_kernel(x, *, ksize, strides, padding, Targmax, include_batch_in_index):  # noqa: N803
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the "
                                        "batch dimension.")
    out, idx = _windows(x, ksize, strides, padding)
    if include_batch_in_index:
        idx = idx + _batch_offsets(x.shape)
    return out, idx.astype(Targmax.as_numpy_dtype)


max_pool_with_argmax_op = OpDef(
    "MaxPoolWithArgmax", shape=_argmax_shape, dtype=_argmax_dtype, kernel=_argmax_kernel,
    num_outputs=2, attrs={**_ATTRS, "Targmax": dtypes.int64}, input_names=("input",))


def _grad_attrs(op):
    return {k: op.get_attr(k) for k in _ATTRS}


@max_pool_with_argmax_op.def_grad
def _max_pool_with_argmax_grad(op, grad, _unused_argmax_grad):
    return [max_pool_grad_with_argmax_op.bind(op.inputs[0], grad, op.outputs[1],
                                              **_grad_attrs(op))]


def _flat_targets(argmax, shape, include_batch_in_index):
    flat = argmax.astype(np.int64)
    if not include_batch_in_index:
        flat = flat + _batch_offsets(shape)
    size = int(np.prod(shape))
    if flat.size and (flat.min() < 0 or flat.max() >= size):
        raise errors.InvalidArgumentError(None, None, "Invalid argmax index: out of range")
    return flat


def _grad_kernel(x, grad, argmax, *, ksize, strides, padding, include_batch_in_index):
    flat = _flat_targets(argmax, x.shape, include_batch_in_index)
    out = np.zeros(x.size, grad.dtype)
    np.add.at(out, flat.ravel(), grad.ravel())
    return out.reshape(x.shape)


def _grad_shape(x, grad, argmax, **attrs):
    return x


def _grad_dtype(x, grad, argmax, **attrs):
    check_dtype(argmax, (dtypes.int32, dtypes.int64), "argmax")
    return same_dtype(x, grad)


max_pool_grad_with_argmax_op = OpDef(
    "MaxPoolGradWithArgmax", shape=_grad_shape, dtype=_grad_dtype, kernel=_grad_kernel,
    attrs=_ATTRS, grad=NO_GRADIENT, input_names=("input", "grad", "argmax"))


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,  # noqa: N803
                         include_batch_in_index=False):
    """Max pooling (NHWC) and the flat input index of each maximum: ``(output, argmax)``.

    >>> out, arg = max_pool_with_argmax(tf.ones([1, 4, 4, 1]), 2, 2, "VALID")
    >>> out.op.type, arg.dtype.name
    ('MaxPoolWithArgmax', 'int64')
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    if output_dtype is not None:
        if Targmax is not None:
            raise ValueError("Cannot specify both 'Targmax' and 'output_dtype'")
        Targmax = output_dtype  # noqa: N806
    Targmax = dtypes.as_dtype(Targmax if Targmax is not None else dtypes.int64)  # noqa: N806
    return max_pool_with_argmax_op.bind(
        input, name=name, ksize=get_sequence(ksize, 2, 3, "ksize"),
        strides=get_sequence(strides, 2, 3, "strides"), padding=padding, Targmax=Targmax,
        include_batch_in_index=bool(include_batch_in_index))
