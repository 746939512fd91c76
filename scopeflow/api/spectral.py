"""``tf.spectral``: TF1's older home of the FFT and DCT ops (the same functions as tf.signal)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.signal.dct_ops import dct, idct
from scopeflow.ops.signal.fft_ops import (
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

__all__: list[str] = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft",
                      "rfft2d", "irfft2d", "rfft3d", "irfft3d", "dct", "idct"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
