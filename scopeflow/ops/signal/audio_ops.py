"""tf.audio's WAV codec: DecodeWav (16-bit PCM WAV bytes to float32 ``[samples,
channels]`` in [-1, 1) and the sample rate) and EncodeWav (the inverse). The RIFF parsing
is TF's wav_io: the same checks, in the same order, with its error messages, so a bad file
fails as it does under TF. Neither op has a gradient (TF registers none)."""

from __future__ import annotations

import collections
import struct

import numpy as np

from scopeflow.compat import as_bytes
from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["decode_wav", "encode_wav"]

_INT32_MAX = 2 ** 31 - 1


def _invalid(message):
    return InvalidArgumentError(None, None, message)


class _Reader:
    """Reads little-endian fields of a WAV file as TF's wav_io does (``Data too short``
    whenever a field runs past the end)."""

    def __init__(self, data):
        self.data, self.offset = data, 0

    def take(self, n):
        if n < 0 or self.offset + n > len(self.data):
            raise _invalid("Data too short when trying to read string")
        out = self.data[self.offset:self.offset + n]
        self.offset += n
        return out

    def value(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def expect(self, text):
        found = self.take(len(text))
        if found != text:
            raise _invalid(f"Header mismatch: Expected {text.decode()} but found "
                           f"{found.decode('latin-1')}")


def _read_fmt_chunk(r):
    """Reads and checks the ``fmt `` chunk (PCM, 16 bits, consistent rates):
    ``(channels, sample_rate, bytes_per_frame)``."""
    fmt_size = r.value("I")
    if fmt_size not in (16, 18):
        raise _invalid(f"Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}")
    audio_format = r.value("H")
    if audio_format != 1:
        raise _invalid(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.value("H")
    if channels < 1:
        raise _invalid(f"Bad number of channels for WAV: Expected at least 1, but got "
                       f"{channels}")
    sample_rate = r.value("I")
    bytes_per_second = r.value("I")
    bytes_per_frame = r.value("H")
    bits = r.value("H")
    if bits != 16:
        raise _invalid(f"Can only read 16-bit WAV files, but received {bits}")
    expected = (bits * channels + 7) // 8
    if bytes_per_frame != expected:
        raise _invalid(f"Bad bytes per sample in WAV header: Expected {expected} but got "
                       f"{bytes_per_frame}")
    if bytes_per_second != bytes_per_frame * sample_rate:
        raise _invalid(f"Bad bytes per second in WAV header: Expected "
                       f"{bytes_per_frame * sample_rate} but got {bytes_per_second} "
                       f"(sample_rate={sample_rate}, bytes_per_sample={bytes_per_frame})")
    if fmt_size == 18:
        r.offset += 2
    return channels, sample_rate, bytes_per_frame


def _read_data_chunk(r, channels, bytes_per_frame):
    """Walks the chunks after ``fmt `` to the end, skipping all but the one ``data``
    chunk: ``(int16 samples [frames * channels], frames)``."""
    samples = None
    frames = 0
    while r.offset < len(r.data):
        chunk_id = r.take(4)
        size = r.value("I")
        if size > _INT32_MAX:
            raise _invalid(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: "
                           f"{size} bytes, but the limit is {_INT32_MAX}")
        if chunk_id == b"data":
            if samples is not None:
                raise _invalid("More than one data chunk found in WAV")
            frames = size // bytes_per_frame
            samples = np.frombuffer(r.take(2 * frames * channels), "<i2")
        else:
            r.offset += size
    if samples is None:
        raise _invalid("No data chunk found in WAV")
    return samples, frames


def _parse_wav(data):
    """``(int16 samples [frames * channels], channels, frames, sample_rate)``."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("I")  # the RIFF size: not checked (TF neither)
    r.expect(b"WAVE")
    r.expect(b"fmt ")
    channels, sample_rate, bytes_per_frame = _read_fmt_chunk(r)
    samples, frames = _read_data_chunk(r, channels, bytes_per_frame)
    return samples, channels, frames, sample_rate


# ── DecodeWav ────────────────────────────────────────────────────────────────────────
def _decode_wav_shape(contents, *, desired_channels, desired_samples):
    contents.with_rank(0)
    return [TensorShape([desired_samples if desired_samples > 0 else None,
                         desired_channels if desired_channels > 0 else None]),
            TensorShape([])]


def _decode_wav_dtype(contents, **attrs):
    check_dtype(contents, (dtypes.string,), "contents")
    return [dtypes.float32, dtypes.int32]


def _decode_wav_kernel(contents, *, desired_channels, desired_samples):
    data = as_bytes(contents.item() if isinstance(contents, np.ndarray) else contents)
    samples, channels, frames, rate = _parse_wav(data)
    audio = (samples.astype(np.float32) * np.float32(1.0 / 32768)).reshape(frames, channels)
    out_frames = desired_samples if desired_samples > 0 else frames
    out_channels = desired_channels if desired_channels > 0 else channels
    # Extra channels repeat the last one; missing samples are zeros (TF's DecodeWavOp).
    source = np.minimum(np.arange(out_channels), channels - 1)
    out = np.zeros((out_frames, out_channels), np.float32)
    n = min(out_frames, frames)
    out[:n] = audio[:n][:, source]
    return out, np.array(rate, np.int32)


decode_wav_op = OpDef("DecodeWav", shape=_decode_wav_shape, dtype=_decode_wav_dtype,
                      kernel=_decode_wav_kernel, num_outputs=2, grad=NO_GRADIENT,
                      attrs={"desired_channels": -1, "desired_samples": -1},
                      input_names=("contents",))

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None) -> DecodeWav:
    """Decodes a 16-bit PCM WAV file: ``(audio, sample_rate)``, audio float32
    ``[samples, channels]`` in [-1, 1). ``desired_channels`` repeats the last channel or
    drops extra ones; ``desired_samples`` zero-pads or truncates."""
    audio, rate = decode_wav_op.bind(contents, desired_channels=int(desired_channels),
                                     desired_samples=int(desired_samples), name=name)
    return DecodeWav(audio, rate)


# ── EncodeWav ────────────────────────────────────────────────────────────────────────
def _encode_wav_shape(audio, sample_rate):
    audio.with_rank(2)
    sample_rate.with_rank(0)
    return TensorShape([])


def _encode_wav_dtype(audio, sample_rate):
    check_dtype(audio, (dtypes.float32,), "audio")
    check_dtype(sample_rate, (dtypes.int32,), "sample_rate")
    return dtypes.string


def _encode_wav_kernel(audio, sample_rate):
    if audio.ndim != 2:
        dims = ",".join(str(d) for d in audio.shape)
        raise _invalid(f"audio must be 2-dimensional[{dims}]")
    if np.ndim(sample_rate) != 0:
        dims = ",".join(str(d) for d in np.shape(sample_rate))
        raise _invalid(f"Input sample_rate should be a scalar tensor, got [{dims}] instead.")
    frames, channels = audio.shape
    rate = int(sample_rate)
    # TF's FloatToInt16Sample: round half away from zero, then clamp to int16.
    scaled = np.clip(np.trunc(audio.astype(np.float32) * np.float32(32768)
                              + np.copysign(np.float32(0.5), audio)), -32768, 32767)
    data = scaled.astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         1, channels, rate, rate * channels * 2, channels * 2, 16, b"data",
                         len(data))
    return np.array(header + data, dtype=object)


encode_wav_op = OpDef("EncodeWav", shape=_encode_wav_shape, dtype=_encode_wav_dtype,
                      kernel=_encode_wav_kernel, grad=NO_GRADIENT,
                      input_names=("audio", "sample_rate"))


def encode_wav(audio, sample_rate, name=None) -> Tensor:
    """Encodes float32 ``[samples, channels]`` audio (clamped to [-1, 1]) as a 16-bit PCM
    WAV file's bytes."""
    return encode_wav_op.bind(audio, sample_rate, name=name)
