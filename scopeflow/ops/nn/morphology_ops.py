"""Grayscale morphology: the ``Dilation2D`` op and its two gradient ops
(``Dilation2DBackpropInput``, ``Dilation2DBackpropFilter``), ``tf.nn.dilation2d`` and
``tf.nn.erosion2d`` (TF's dual: ``-dilation2d(-x, reverse(kernel))``).

``out[b, y, x, c] = max over (i, j) of in[b, y*s + i*r - pad, x*s + j*r - pad, c] +
filter[i, j, c]``, out-of-image taps skipped. The kernels loop over the filter taps only
(each a strided NumPy view of the padded input); a gradient goes to the first maximal tap in
scan order, as TF's CPU kernels. TF registers no gradient for the two backprop ops.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.dtype_groups import NUMERIC
from scopeflow.framework.graph import name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.nn.conv_geometry import out_and_pads

__all__ = ["dilation2d", "erosion2d"]

_ATTRS = {"strides": None, "rates": None, "padding": None}


def _check_attrs(strides, rates, padding):
    if len(strides) != 4 or len(rates) != 4:
        raise ValueError("Dilation2D requires the stride and rate attributes to contain 4 "
                         "values")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be SAME or VALID, got {padding!r}")


def _geometry(in_h, in_w, kh, kw, strides, rates, padding):
    """(out_h, pad_top, out_w, pad_left) with the effective (dilated) filter size."""
    oh, pt, _ = out_and_pads(in_h, kh, strides[1], rates[1], padding)
    ow, pl, _ = out_and_pads(in_w, kw, strides[2], rates[2], padding)
    return oh, pt, ow, pl


def _dilation_shape(x, w, *, strides, rates, padding):
    _check_attrs(strides, rates, padding)
    x = x.with_rank(4) if x.ndims is not None else TensorShape([None] * 4)
    w = w.with_rank(3) if w.ndims is not None else TensorShape([None] * 3)
    n, h, wd, c = x.as_tuple()
    kh, kw, fc = w.as_tuple()
    if c is not None and fc is not None and c != fc:
        raise ValueError(f"Dimensions must be equal, but are {c} and {fc}")
    c = c if c is not None else fc
    if None in (h, wd, kh, kw):
        return TensorShape([n, None, None, c])
    oh, _, ow, _ = _geometry(h, wd, kh, kw, strides, rates, padding)
    return TensorShape([n, oh, ow, c])


def _dilation_dtype(x, w, **attrs):
    check_dtype(x, NUMERIC, "input")
    return same_dtype(x, w)


def _taps(x, kh, kw, strides, rates, padding):
    """Yields ``(i, j, view)``: the ``[n, oh, ow, c]`` input values under tap (i, j), with
    ``-inf``-like fill where the tap falls outside the image; and the geometry."""
    n, h, w, c = x.shape
    oh, pt, ow, pl = _geometry(h, w, kh, kw, strides, rates, padding)
    sh, sw, rh, rw = strides[1], strides[2], rates[1], rates[2]
    need_h = (oh - 1) * sh + (kh - 1) * rh + 1
    need_w = (ow - 1) * sw + (kw - 1) * rw + 1
    pb, pr = max(need_h - h - pt, 0), max(need_w - w - pl, 0)
    valid = np.zeros((h + pt + pb, w + pl + pr), bool)
    valid[pt:pt + h, pl:pl + w] = True
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c), x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    geo = (oh, ow, pt, pl, valid.shape)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * rh, i * rh + (oh - 1) * sh + 1, sh)
            cols = slice(j * rw, j * rw + (ow - 1) * sw + 1, sw)
            yield i, j, xp[:, rows, cols], valid[rows, cols], (rows, cols), geo


def _argmax_taps(x, w, strides, rates, padding):
    """The running max over the taps and the first maximal tap's index (-1: none)."""
    kh, kw = w.shape[:2]
    best = arg = geo = None
    slices = []
    for i, j, view, ok, sl, tap_geo in _taps(x, kh, kw, strides, rates, padding):
        geo = tap_geo
        val = view + w[i, j]
        if best is None:
            best = np.full(val.shape, -np.inf)
            arg = np.full(val.shape, -1, np.int64)
        better = ok[None, :, :, None] & (val > best)
        best = np.where(better, val, best)
        arg = np.where(better, i * kw + j, arg)
        slices.append(sl)
    return best, arg, slices, geo


def _check_input(x, w, strides, rates):
    if strides[0] != 1 or strides[3] != 1 or rates[0] != 1 or rates[3] != 1:
        raise errors.UnimplementedError(None, None, "Current implementation does not yet "
                                        "support strides or rates in the batch and depth "
                                        "dimensions.")
    if x.ndim != 4 or w.ndim != 3:
        raise errors.InvalidArgumentError(None, None, "input must be 4-dimensional and filter "
                                          "3-dimensional")
    if x.shape[3] != w.shape[2]:
        raise errors.InvalidArgumentError(None, None, f"input and filter must have the same "
                                          f"depth: {x.shape[3]} vs {w.shape[2]}")


def _dilation_kernel(x, w, *, strides, rates, padding):
    _check_input(x, w, strides, rates)
    best, arg, _, _ = _argmax_taps(x, w, strides, rates, padding)
    lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    return np.where(arg >= 0, best, lowest).astype(x.dtype)


dilation2d_op = OpDef("Dilation2D", shape=_dilation_shape, dtype=_dilation_dtype,
                      kernel=_dilation_kernel, attrs=_ATTRS, input_names=("input", "filter"))


def _backprop_attrs(op):
    return {k: op.get_attr(k) for k in ("strides", "rates", "padding")}


@dilation2d_op.def_grad
def _dilation_grad(op, dy):
    """TF's: both backprop ops from the input, the filter and ``dy``."""
    x, w = op.inputs
    attrs = _backprop_attrs(op)
    return [dilation2d_backprop_input_op.bind(x, w, dy, **attrs),
            dilation2d_backprop_filter_op.bind(x, w, dy, **attrs)]


def _backprop_input_kernel(x, w, dy, *, strides, rates, padding):
    _check_input(x, w, strides, rates)
    _, arg, slices, (oh, ow, pt, pl, pshape) = _argmax_taps(x, w, strides, rates, padding)
    gp = np.zeros((x.shape[0], *pshape, x.shape[3]), dy.dtype)
    for tap, (rows, cols) in enumerate(slices):
        gp[:, rows, cols] += np.where(arg == tap, dy, 0)
    h, wd = x.shape[1:3]
    return gp[:, pt:pt + h, pl:pl + wd].astype(x.dtype)


def _backprop_filter_kernel(x, w, dy, *, strides, rates, padding):
    _check_input(x, w, strides, rates)
    _, arg, _, _ = _argmax_taps(x, w, strides, rates, padding)
    kh, kw, c = w.shape
    dw = np.zeros((kh * kw, c), np.float64 if dy.dtype.kind == "f" else dy.dtype)
    for tap in range(kh * kw):
        dw[tap] = np.where(arg == tap, dy, 0).sum(axis=(0, 1, 2))
    return dw.reshape(kh, kw, c).astype(w.dtype)


def _backprop_dtype(x, w, dy, **attrs):
    check_dtype(x, NUMERIC, "input")
    return same_dtype(x, w, dy)


def _input_shape(x, w, dy, **attrs):
    return x


def _filter_shape(x, w, dy, **attrs):
    return w


dilation2d_backprop_input_op = OpDef(
    "Dilation2DBackpropInput", shape=_input_shape, dtype=_backprop_dtype,
    kernel=_backprop_input_kernel, attrs=_ATTRS, grad=NO_GRADIENT,
    input_names=("input", "filter", "out_backprop"))
dilation2d_backprop_filter_op = OpDef(
    "Dilation2DBackpropFilter", shape=_filter_shape, dtype=_backprop_dtype,
    kernel=_backprop_filter_kernel, attrs=_ATTRS, grad=NO_GRADIENT,
    input_names=("input", "filter", "out_backprop"))


def _lookup(new_name, new, old_name, old):
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None,  # noqa: A002
               filters=None, dilations=None):
    """Grayscale dilation of NHWC ``input`` by a ``[kh, kw, depth]`` structuring function
    (a ``Dilation2D``).

    >>> dilation2d(tf.zeros([1, 3, 3, 1]), tf.zeros([2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1],
    ...            "VALID").shape.as_list()
    [1, 2, 2, 1]
    """
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    rates = _lookup("dilations", dilations, "rates", rates)
    return dilation2d_op.bind(input, filter, name=name, strides=[int(s) for s in strides],
                              rates=[int(r) for r in rates], padding=padding)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale erosion: ``-dilation2d(-value, reverse(kernel, [0, 1]))`` (scope
    ``erosion2d``).

    >>> erosion2d(tf.zeros([1, 3, 3, 1]), tf.zeros([2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1],
    ...           "VALID").name
    'erosion2d/Neg_1:0'
    """
    with name_scope(name, "erosion2d", [value, kernel]) as name:
        return math_ops.negative(dilation2d_op.bind(
            math_ops.negative(value), array_ops.reverse_v2(kernel, [0, 1]), name=name,
            strides=[int(s) for s in strides], rates=[int(r) for r in rates],
            padding=padding))
