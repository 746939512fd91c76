"""Inference batch norm (``FusedBatchNormV3`` with ``is_training=False``) over channel-last
float32 in cache-sized blocks on two threads.

``(x - mean) * (inv * scale) + offset`` as three whole-tensor passes streams the output
through memory three times; here each block of rows (at most ``BLOCK_BYTES``) gets the
same three operations in the same order while it is in L2, so the bits are those of the
whole-tensor passes (tests/unit/ops/nn/test_batch_norm_blocks.py checks that), and the
blocks are split over two threads as the GEMMs are (NumPy releases the GIL).
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.math.blas import PARALLEL_ELEMENTWISE_FLOPS, split_rows

__all__ = ["takes", "normalize", "BLOCK_BYTES"]

BLOCK_BYTES = 1 << 18


def takes(x, channel_axis) -> bool:
    """Whether :func:`normalize` runs ``x``: float32, C-contiguous, channels last."""
    return (x.dtype == np.float32 and channel_axis == x.ndim - 1 and x.size > 0
            and x.flags.c_contiguous)


def normalize(x, mean, multiplier, offset):
    """``(x - mean) * multiplier + offset`` along ``x``'s last axis, into a new array."""
    c = x.shape[-1]
    flat = x.reshape(-1, c)
    out = np.empty_like(flat)
    rows = max(1, BLOCK_BYTES // (c * 4))
    starts = range(0, flat.shape[0], rows)

    def run(lo, hi):
        for start in starts[lo:hi]:
            o = out[start:start + rows]
            np.subtract(flat[start:start + rows], mean, out=o)
            o *= multiplier
            o += offset

    split_rows(run, len(starts), flops=3.0 * x.size, min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return out.reshape(x.shape)
