"""Stride-1 depthwise convolution and its two backprops as GEMMs over column bands.

Why: the per-tap kernel (``out += x_tap[..., None] * w[i, j]``) broadcasts over tiny
trailing channel axes, which NumPy runs element by element: at SSIM's size (16x128x128x3,
an 11x11 window) that is ~40 ms a tap, seconds an op. Here each channel's zero-padded plane
is cut into bands of ``B`` output columns, a band reading ``L = B + kw - 1`` input columns;
``cols`` holds, for every (image, output row, band), the ``kh`` input rows of that band as
one row of a contiguous ``(R, kh * L)`` matrix. The filter becomes a banded Toeplitz
matrix ``T`` of shape ``(kh * L, B * M)``, so

* forward: ``cols @ T``;
* filter gradient: ``cols.T @ dy``, whose diagonals (tap column ``j`` = input column minus
  output column) sum to each tap;
* input gradient: the forward correlation of ``dy``, padded by ``k - 1 - pad``, with the
  filter flipped, summed over the multiplier.

The Toeplitz's zeros would turn an Inf or NaN outside a window into NaN, so callers use
these only for finite operands (and stride 1, dilation 1, float32/float64) and keep the
per-tap kernel, which touches only the taps of each window, for the rest.
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.math.blas import gemm

__all__ = ["fast_ok", "depthwise_forward", "depthwise_input_grad", "depthwise_filter_grad"]


def fast_ok(attrs, *arrays):
    """Whether the banded-GEMM path computes what the per-tap kernel would: stride and
    dilation 1, float32/float64, non-empty, all values finite."""
    if tuple(attrs["strides"][1:3]) != (1, 1):
        return False
    if tuple(attrs.get("dilations", (1, 1, 1, 1))[1:3]) != (1, 1):
        return False
    for a in arrays:
        if a.dtype not in (np.float32, np.float64) or a.size == 0:
            return False
    return all(np.isfinite(a).all() for a in arrays)


def _band(kw, ow):
    """Band width ``B``: wide enough that the Toeplitz's zeros (``(kw - 1) / B`` of each
    row) stay a modest overhead, narrow enough not to pad ``ow`` far."""
    b = 16 if kw <= 5 else 32
    return max(1, min(b, ow))


def _planes(x, top, left, height, width):
    """NHWC ``x`` as zero-padded channel planes ``(C, N, height, width)``, ``x`` placed at
    row ``top``, column ``left``."""
    n, h, w, c = x.shape
    out = np.zeros((c, n, height, width), x.dtype)
    out[:, :, top:top + h, left:left + w] = x.transpose(3, 0, 1, 2)
    return out


def _cols(plane, kh, oh, nblk, b, band):
    """``(N * oh * nblk, kh * band)``: each (image, output row, band)'s ``kh`` input rows
    of the band's ``band`` columns (one strided view, copied once)."""
    s0, s1, s2 = plane.strides
    view = np.lib.stride_tricks.as_strided(
        plane, (plane.shape[0], oh, nblk, kh, band), (s0, s1, b * s2, s1, s2),
        writeable=False)
    return view.reshape(-1, kh * band)


def _toeplitz(wc, b):
    """``(kh * L, B * M)``: output column ``x`` of a band takes input column ``x + j``
    times tap ``j`` (``wc`` is one channel's ``(kh, kw, M)`` filter)."""
    kh, kw, m = wc.shape
    band = b + kw - 1
    t = np.zeros((kh, band, b, m), wc.dtype)
    x = np.arange(b)
    for j in range(kw):
        t[:, x + j, x, :] = wc[:, j, None, :]
    return t.reshape(kh * band, b * m)


def _correlate(planes, w, oh, ow, b):
    """``(N, oh, nblk * B, G, M)``: each plane ``g`` of ``planes`` ``(G, N, Hq, Wq)``
    correlated with ``w[:, :, g, :]`` (valid windows, stride 1)."""
    kh, kw, g, m = w.shape
    nblk = -(-ow // b)
    n = planes.shape[1]
    dtype = np.result_type(planes, w)
    out = np.empty((n, oh, nblk * b, g, m), dtype)
    for ch in range(g):
        res = gemm(_cols(planes[ch], kh, oh, nblk, b, b + kw - 1), _toeplitz(w[:, :, ch, :], b))
        out[:, :, :, ch, :] = res.reshape(n, oh, nblk * b, m)
    return out


def depthwise_forward(x, w, ph, pw):
    """``DepthwiseConv2dNative`` (stride 1) of NHWC ``x`` padded by ``ph``/``pw``."""
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    oh, ow = h + ph[0] + ph[1] - kh + 1, wd + pw[0] + pw[1] - kw + 1
    b = _band(kw, ow)
    width = -(-ow // b) * b + kw - 1
    planes = _planes(x, ph[0], pw[0], h + ph[0] + ph[1], width)
    out = _correlate(planes, w, oh, ow, b)[:, :, :ow]
    return np.ascontiguousarray(out).reshape(n, oh, ow, c * m)


def depthwise_input_grad(in_shape, w, dy, ph, pw):
    """``DepthwiseConv2dNativeBackpropInput`` (stride 1); ``None`` where a padding exceeds
    the filter (explicit paddings), for the per-tap kernel to take."""
    n, h, wd, c = in_shape
    kh, kw, _, m = w.shape
    top, left = kh - 1 - ph[0], kw - 1 - pw[0]
    if min(top, left, kh - 1 - ph[1], kw - 1 - pw[1]) < 0:
        return None
    b = _band(kw, wd)
    width = -(-wd // b) * b + kw - 1
    planes = _planes(dy, top, left, h + kh - 1, width)  # (C * M, ...)
    flipped = w[::-1, ::-1].reshape(kh, kw, c * m, 1)
    dx = _correlate(planes, flipped, h, wd, b)[:, :, :wd]
    return np.ascontiguousarray(dx.reshape(n, h, wd, c, m).sum(axis=-1)).astype(dy.dtype,
                                                                                   copy=False)


def depthwise_filter_grad(x, dy, kh, kw, ph, pw):
    """``DepthwiseConv2dNativeBackpropFilter`` (stride 1): ``(kh, kw, C, M)``."""
    n, h, wd, c = x.shape
    _, oh, ow, cm = dy.shape
    m = cm // c
    b = _band(kw, ow)
    nblk = -(-ow // b)
    band = b + kw - 1
    planes = _planes(x, ph[0], pw[0], h + ph[0] + ph[1], nblk * b + kw - 1)
    dyq = np.zeros((n, oh, nblk * b, c, m), dy.dtype)
    dyq[:, :, :ow] = dy.reshape(n, oh, ow, c, m)
    dw = np.empty((kh, kw, c, m), np.result_type(x, dy))
    xi = np.arange(b)
    lidx = np.arange(kw)[:, None] + xi  # the input column of tap j for output column x
    for ch in range(c):
        g = gemm(_cols(planes[ch], kh, oh, nblk, b, band).T,
                 dyq[:, :, :, ch, :].reshape(-1, b * m))
        dw[:, :, ch, :] = g.reshape(kh, band, b, m)[:, lidx, xi].sum(axis=2)
    return dw
