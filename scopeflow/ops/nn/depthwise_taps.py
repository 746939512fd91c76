"""DepthwiseConv2dNative with a channel multiplier of 1 (MobileNet's layers) as a sum of
per-tap products over whole rows of channels, in cache-sized blocks on two threads.

Each output block (a few rows of one image, at most ``BLOCK_BYTES``) is zeroed and then
gets its ``kh * kw`` tap products added in the kernel's (i, j) order: the same operations
in the same order as summing whole-tensor products, so the bits are those of the plain
loop (tests/unit/ops/nn/test_depthwise_taps.py holds that loop and checks it), but each
block stays in L2 between its taps instead of streaming the whole output through memory
once per tap (2x at MobileNet's batch 32). The blocks are split over two threads as the
GEMMs are (:func:`scopeflow.ops.math.blas.split_rows`; NumPy releases the GIL).
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.math.blas import split_rows

__all__ = ["depthwise_taps_one_multiplier", "BLOCK_BYTES"]

BLOCK_BYTES = 1 << 18  # an output block and its product scratch stay in a 512 KiB L2
_SPLIT_FLOPS = 4e6  # below this the second thread's hand-off costs more than it gives


def _blocks(n, oh, row_bytes):
    rows = max(1, min(oh, BLOCK_BYTES // max(row_bytes, 1)))
    return [(b, r0, min(oh, r0 + rows)) for b in range(n) for r0 in range(0, oh, rows)]


def _sum_taps(xp, w, out, block, tmp, strides, dilations):
    b, r0, r1 = block
    (sh, sw), (dh, dw) = strides, dilations
    ow = out.shape[2]
    o, t = out[b, r0:r1], tmp[:r1 - r0]
    o.fill(0)
    for i in range(w.shape[0]):
        rows = slice(r0 * sh + i * dh, (r1 - 1) * sh + i * dh + 1, sh)
        for j in range(w.shape[1]):
            cols = slice(j * dw, j * dw + (ow - 1) * sw + 1, sw)
            np.multiply(xp[b, rows, cols], w[i, j, :, 0], out=t)
            o += t


def depthwise_taps_one_multiplier(xp, w, oh, ow, strides, dilations):
    """The depthwise convolution of padded NHWC ``xp`` with ``w`` (``[kh, kw, C, 1]``):
    an ``(N, oh, ow, C)`` array, for ``strides`` and ``dilations`` (each (rows, cols))."""
    n, c = xp.shape[0], w.shape[2]
    dtype = np.result_type(xp, w)
    out = np.empty((n, oh, ow, c), dtype)
    blocks = _blocks(n, oh, ow * c * dtype.itemsize)
    rows = blocks[0][2] - blocks[0][1] if blocks else 0

    def run(lo, hi):
        tmp = np.empty((rows, ow, c), dtype)  # one per thread
        for block in blocks[lo:hi]:
            _sum_taps(xp, w, out, block, tmp, strides, dilations)

    split_rows(run, len(blocks), flops=2.0 * out.size * w.shape[0] * w.shape[1],
               min_flops=_SPLIT_FLOPS)
    return out
