"""Op-table rows for FFTND, IFFTND, RFFTND, IRFFTND (scopeflow/ops/signal/fftnd_ops.py):
NumPy's ``fft.*n`` over the given axes; TF registers no gradient for them."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

_C = (rand(2, 3, 4) + 1j * rand(2, 3, 4, seed=1)).astype(np.complex64)
_R = rand(2, 3, 4)

ROWS = [
    OpCase("FFTND", lambda tf, x: tf.signal.fftnd(x, fft_length=[3, 4], axes=[1, 2]),
           lambda x: np.fft.fftn(x, axes=[1, 2]), [_C], rtol=1e-5, atol=1e-5),
    OpCase("FFTND", lambda tf, x: tf.signal.fftnd(x, fft_length=[2, 6], axes=[0, 2]),
           lambda x: np.fft.fftn(x, s=[2, 6], axes=[0, 2]), [_C], rtol=1e-5, atol=1e-5,
           id="FFTND-crop-pad"),
    OpCase("IFFTND", lambda tf, x: tf.signal.ifftnd(x, fft_length=[2, 3, 4], axes=[0, 1, 2]),
           lambda x: np.fft.ifftn(x), [_C], rtol=1e-5, atol=1e-5),
    OpCase("RFFTND", lambda tf, x: tf.signal.rfftnd(x, fft_length=[3, 4], axes=[1, 2]),
           lambda x: np.fft.rfftn(x, axes=[1, 2]), [_R], rtol=1e-5, atol=1e-5),
    OpCase("IRFFTND", lambda tf, x: tf.signal.irfftnd(x, fft_length=[3, 6], axes=[1, 2]),
           lambda x: np.fft.irfftn(x, s=[3, 6], axes=[1, 2]), [_C], rtol=1e-5, atol=1e-5),
]
