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


def _rank_one(w):
    """Per channel ``(u, v)`` with ``w[:, :, c, 0] ~ outer(u[c], v[c])``, or None: where
    every channel's window is rank one to within its dtype's rounding (SSIM's Gaussian,
    a box filter), two 1-D passes do ``kh + kw`` taps per output instead of ``kh * kw``;
    the result differs from the 2-D sum by rounding only (the dropped singular values are
    below ``2 eps`` of the first)."""
    kh, kw, c, m = w.shape
    if m != 1 or min(kh, kw) < 3:
        return None
    u, s, vt = np.linalg.svd(w[:, :, :, 0].transpose(2, 0, 1).astype(np.float64))
    if not (s[:, 1:] <= 2 * np.finfo(w.dtype).eps * s[:, :1]).all():
        return None
    root = np.sqrt(s[:, 0])
    return (u[:, :, 0] * root[:, None]).astype(w.dtype), (vt[:, 0] * root[:, None]).astype(
        w.dtype)


def _row_pass(planes, taps, out_len, b):
    """``(G, R, out_len)``: each row of plane ``g`` (``(G, R, Wq)``, ``Wq`` at least
    ``nblk * b + k - 1``) correlated with ``taps[g]`` (``k`` taps), one banded GEMM each."""
    g, r, _ = planes.shape
    k = taps.shape[1]
    nblk = -(-out_len // b)
    band = b + k - 1
    out = np.empty((g, r, out_len), np.result_type(planes, taps))
    for ch in range(g):
        s0, s1 = planes[ch].strides
        cols = np.lib.stride_tricks.as_strided(planes[ch], (r, nblk, band), (s0, b * s1, s1),
                                               writeable=False).reshape(r * nblk, band)
        res = gemm(cols, _toeplitz(taps[ch][None, :, None], b)).reshape(r, nblk * b)
        out[ch] = res[:, :out_len]
    return out


def _separable_forward(x, factors, kh, kw, ph, pw):
    """Stride-1 depthwise (multiplier 1) with rank-one windows: along rows, then columns
    (the planes transposed so both passes run along contiguous rows)."""
    n, h, wd, c = x.shape
    u, v = factors
    hp = h + ph[0] + ph[1]
    oh, ow = hp - kh + 1, wd + pw[0] + pw[1] - kw + 1
    b = _band(kw, ow)
    planes = _planes(x, ph[0], pw[0], hp, -(-ow // b) * b + kw - 1)
    rows = _row_pass(planes.reshape(c, n * hp, -1), v, ow, b).reshape(c, n, hp, ow)
    b = _band(kh, oh)
    cols = np.zeros((c, n, ow, -(-oh // b) * b + kh - 1), rows.dtype)
    cols[..., :hp] = rows.transpose(0, 1, 3, 2)
    out = _row_pass(cols.reshape(c, n * ow, -1), u, oh, b).reshape(c, n, ow, oh)
    return np.ascontiguousarray(out.transpose(1, 3, 2, 0))


def depthwise_forward(x, w, ph, pw):
    """``DepthwiseConv2dNative`` (stride 1) of NHWC ``x`` padded by ``ph``/``pw``."""
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    factors = _rank_one(w)
    if factors is not None:
        return _separable_forward(x, factors, kh, kw, ph, pw)
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
    bottom, right = kh - 1 - ph[1], kw - 1 - pw[1]
    if min(top, left, bottom, right) < 0:
        return None
    flipped = w[::-1, ::-1]
    if m == 1:  # the forward correlation of dy itself (separable where w is)
        return depthwise_forward(dy, np.ascontiguousarray(flipped), (top, bottom),
                                 (left, right)).astype(dy.dtype, copy=False)
    b = _band(kw, wd)
    width = -(-wd // b) * b + kw - 1
    planes = _planes(dy, top, left, h + kh - 1, width)  # (C * M, ...)
    dx = _correlate(planes, flipped.reshape(kh, kw, c * m, 1), h, wd, b)[:, :, :wd]
    dx = dx.reshape(n, h, wd, c, m)
    out = dx[..., 0].copy()  # the multiplier's sum as m - 1 adds (a sum over a tiny
    for k in range(1, m):    # trailing axis runs element by element in NumPy)
        out += dx[..., k]
    return out.astype(dy.dtype, copy=False)


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
