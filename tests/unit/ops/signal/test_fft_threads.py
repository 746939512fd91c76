"""Large batches of FFTs run in two halves on two threads: the same bits as one
``numpy.fft`` call, in the input's precision."""

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.ops.signal.fft_ops import _complex_fft, _irfft, _rfft

RNG = np.random.default_rng(0)


def test_split_batches_same_bits():
    x = (RNG.standard_normal((515, 1024)) + 1j * RNG.standard_normal((515, 1024)))
    x = x.astype(np.complex64)
    got = _complex_fft(x, 1, np.fft.fftn)
    assert got.dtype == np.complex64
    assert got.tobytes() == np.fft.fftn(x, axes=(-1,)).astype(np.complex64).tobytes()
    got = _complex_fft(x.reshape(5, 103, 1024), 2, np.fft.ifftn)
    want = np.fft.ifftn(x.reshape(5, 103, 1024), axes=(-2, -1)).astype(np.complex64)
    assert got.tobytes() == want.tobytes()
    real = x.real.copy()
    lengths = np.array([1000], np.int32)
    got = _rfft(real, lengths, dtypes.complex64, 1)
    assert got.shape == (515, 501)
    assert got.tobytes() == np.fft.rfftn(real, s=[1000], axes=(-1,)).tobytes()
    got = _irfft(x, lengths, dtypes.float32, 1)
    assert got.dtype == np.float32 and got.shape == (515, 1000)
    assert got.tobytes() == np.fft.irfftn(x, s=[1000], axes=(-1,)).astype(np.float32).tobytes()
