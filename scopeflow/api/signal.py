"""``tf.signal``: FFTs, frames, windows, STFTs, mel matrices, MFCCs and DCTs."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.signal.fft_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

__all__: list[str] = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft",
                      "rfft2d", "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
