"""``linear_to_mel_weight_matrix`` (HTK mel scale, TF's triangular bands) and
``mfccs_from_log_mel_spectrograms`` (scaled DCT-II), composites built as TF builds them."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import expand_dims, reshape, shape
from scopeflow.ops.array.slicing_ops import pad, split
from scopeflow.ops.math.arithmetic_ops import cast
from scopeflow.ops.math.elementwise_ops import log, rsqrt
from scopeflow.ops.math.linspace_ops import linspace
from scopeflow.ops.math.reduction_ops import maximum, minimum
from scopeflow.ops.signal.dct_ops import dct
from scopeflow.ops.signal.frame_ops import frame

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz, name=None):
    with name_scope(name, "hertz_to_mel", [frequencies_hertz]):
        frequencies_hertz = convert_to_tensor(frequencies_hertz)
        return _MEL_HIGH_FREQUENCY_Q * log(1.0 + (frequencies_hertz
                                                  / _MEL_BREAK_FREQUENCY_HERTZ))


def _validate_arguments(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz,
                        dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                             f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                             f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None) -> Tensor:
    """``[num_spectrogram_bins, num_mel_bins]`` weights taking a linear spectrogram to mel
    bands: triangles between HTK-mel-spaced edges, the DC bin zeroed (TF's formula)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            value = constant_value(sample_rate)
            if value is not None:
                sample_rate = value
        _validate_arguments(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz,
                            dtype)
        sample_rate = cast(sample_rate, dtype, name="sample_rate")
        lower_edge_hertz = convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper_edge_hertz = convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype)
        bands_to_zero = 1
        nyquist_hertz = sample_rate / 2.0
        linear_frequencies = linspace(zero, nyquist_hertz,
                                      num_spectrogram_bins)[bands_to_zero:]
        spectrogram_bins_mel = expand_dims(_hertz_to_mel(linear_frequencies), 1)
        band_edges_mel = frame(linspace(_hertz_to_mel(lower_edge_hertz),
                                        _hertz_to_mel(upper_edge_hertz), num_mel_bins + 2),
                               frame_length=3, frame_step=1)
        lower_edge_mel, center_mel, upper_edge_mel = tuple(
            reshape(t, [1, num_mel_bins]) for t in split(band_edges_mel, 3, axis=1))
        lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
        upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
        weights = maximum(zero, minimum(lower_slopes, upper_slopes))
        return pad(weights, [[bands_to_zero, 0], [0, 0]], name=scope)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """MFCCs: the DCT-II of log-mel spectrograms over the mel axis, scaled by
    ``1/sqrt(2 num_mel_bins)`` (HTK's scaling)."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        x = convert_to_tensor(log_mel_spectrograms)
        if x.shape.ndims and x.shape.as_list()[-1] is not None:
            num_mel_bins = x.shape.as_list()[-1]
            if num_mel_bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {x}")
        else:
            num_mel_bins = shape(x)[-1]
        dct2 = dct(x, type=2)
        return dct2 * rsqrt(cast(num_mel_bins, dct2.dtype) * 2.0)
