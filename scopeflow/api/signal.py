"""``tf.signal``: FFTs, frames, windows, STFTs, mel matrices, MFCCs and DCTs."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.signal.dct_ops import dct, idct
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
from scopeflow.ops.signal.fftnd_ops import fftnd, ifftnd, irfftnd, rfftnd
from scopeflow.ops.signal.frame_ops import frame, overlap_and_add
from scopeflow.ops.signal.mel_ops import (
    linear_to_mel_weight_matrix,
    mfccs_from_log_mel_spectrograms,
)
from scopeflow.ops.signal.spectral_ops import (
    inverse_mdct,
    inverse_stft,
    inverse_stft_window_fn,
    mdct,
    stft,
)
from scopeflow.ops.signal.window_ops import (
    hamming_window,
    hann_window,
    kaiser_bessel_derived_window,
    kaiser_window,
    vorbis_window,
)

__all__: list[str] = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft",
                      "rfft2d", "irfft2d", "rfft3d", "irfft3d", "fftnd", "ifftnd",
                      "rfftnd", "irfftnd", "fftshift", "ifftshift", "dct",
                      "idct", "frame", "overlap_and_add", "linear_to_mel_weight_matrix",
                      "mfccs_from_log_mel_spectrograms", "stft", "inverse_stft",
                      "inverse_stft_window_fn", "mdct", "inverse_mdct", "hann_window",
                      "hamming_window", "vorbis_window", "kaiser_window",
                      "kaiser_bessel_derived_window"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
