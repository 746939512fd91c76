"""Op-table rows for the signal ops: complex numbers, FFTs (scopeflow/ops/signal/).

Complex-valued results are checked through their real and imaginary parts, so the numeric
gradient check (float inputs, float outputs) runs through Complex, the transform, and
Real/Imag together.
"""

from __future__ import annotations

import io
import wave

import numpy as np

from .op_table import OpCase, rand

f32, f64 = np.float32, np.float64


def _parts(build):
    """``[Re, Im]`` of the complex result ``build(tf, z)`` of ``z = complex(x, y)``."""
    def fn(tf, x, y):
        out = build(tf, tf.complex(x, y))
        return [tf.real(out), tf.imag(out)]
    return fn


def _ref_parts(fn):
    def ref(x, y):
        out = fn(x.astype(np.complex128) + 1j * y)
        return [out.real.astype(x.dtype), out.imag.astype(x.dtype)]
    return ref


def _xy(*shape):
    return [rand(*shape), rand(*shape, seed=3)]


def _wav_bytes(audio, rate):
    """A 16-bit PCM WAV file written by the standard library's ``wave`` (the reference)."""
    pcm = np.clip(np.round(audio.astype(np.float64) * 32768), -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(audio.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


_AUDIO = (rand(6, 2) / 2.5).astype(f32)


def _check_wav(got):
    """EncodeWav's bytes are exactly what ``wave`` writes for the same samples."""
    assert bytes(np.asarray(got).item()) == _wav_bytes(_AUDIO, 8000)


def _fftn(rank, inverse=False):
    axes = tuple(range(-rank, 0))
    return (lambda z: np.fft.ifftn(z, axes=axes)) if inverse else \
        (lambda z: np.fft.fftn(z, axes=axes))


ROWS = [
    OpCase("Complex", lambda tf, x, y: [tf.real(tf.complex(x, y)), tf.imag(tf.complex(x, y))],
           lambda x, y: [x, y], _xy(2, 3)),
    OpCase("Complex", lambda tf, x, y: tf.imag(tf.complex(x, y)),
           lambda x, y: np.broadcast_to(y, (2, 3)), [rand(2, 3), rand(3, seed=5)],
           id="Complex-broadcast"),
    OpCase("Real", lambda tf, x, y: tf.real(tf.complex(x, y) * tf.complex(y, x)),
           lambda x, y: x * y - y * x, _xy(4), atol=1e-5),
    OpCase("Imag", lambda tf, x, y: tf.math.imag(tf.complex(x, y) * tf.complex(y, x)),
           lambda x, y: x * x + y * y, _xy(4), rtol=1e-5),
    OpCase("Angle", lambda tf, x, y: tf.angle(tf.complex(x, y)),
           lambda x, y: np.arctan2(y, x), _xy(5), rtol=1e-5),
    OpCase("ComplexAbs", lambda tf, x, y: tf.abs(tf.complex(x, y)),
           lambda x, y: np.hypot(x, y), _xy(2, 3), rtol=1e-5),
    OpCase("FFT", _parts(lambda tf, z: tf.fft(z)), _ref_parts(_fftn(1)), _xy(2, 5),
           rtol=1e-5, atol=1e-5),
    OpCase("IFFT", _parts(lambda tf, z: tf.ifft(z)), _ref_parts(_fftn(1, True)), _xy(3, 4),
           rtol=1e-5, atol=1e-5),
    OpCase("FFT2D", _parts(lambda tf, z: tf.fft2d(z)), _ref_parts(_fftn(2)), _xy(2, 3, 4),
           rtol=1e-5, atol=1e-5),
    OpCase("IFFT2D", _parts(lambda tf, z: tf.signal.ifft2d(z)), _ref_parts(_fftn(2, True)),
           _xy(3, 3), rtol=1e-5, atol=1e-5),
    OpCase("FFT3D", _parts(lambda tf, z: tf.spectral.fft3d(z)), _ref_parts(_fftn(3)),
           _xy(2, 2, 3, 2), rtol=1e-5, atol=1e-5),
    OpCase("IFFT3D", _parts(lambda tf, z: tf.ifft3d(z)), _ref_parts(_fftn(3, True)),
           _xy(2, 3, 2), rtol=1e-5, atol=1e-5),
    OpCase("RFFT", lambda tf, x: [tf.real(tf.signal.rfft(x)), tf.imag(tf.signal.rfft(x))],
           lambda x: [np.fft.rfft(x).real, np.fft.rfft(x).imag], [rand(3, 6)],
           rtol=1e-5, atol=1e-5),
    OpCase("RFFT", lambda tf, x: tf.abs(tf.signal.rfft(x, [7])),
           lambda x: np.abs(np.fft.rfft(x, 7)), [rand(2, 5)], rtol=1e-5, atol=1e-5,
           id="RFFT-padded-odd"),
    OpCase("IRFFT", lambda tf, x, y: tf.signal.irfft(tf.complex(x, y), [6]),
           lambda x, y: np.fft.irfft(x + 1j * y, 6), _xy(2, 4), rtol=1e-5, atol=1e-5),
    OpCase("IRFFT", lambda tf, x, y: tf.signal.irfft(tf.complex(x, y), [5]),
           lambda x, y: np.fft.irfft(x + 1j * y, 5), _xy(3), rtol=1e-5, atol=1e-5,
           id="IRFFT-odd"),
    OpCase("RFFT2D", lambda tf, x: [tf.real(tf.signal.rfft2d(x)), tf.imag(tf.signal.rfft2d(x))],
           lambda x: [np.fft.rfft2(x).real, np.fft.rfft2(x).imag], [rand(2, 3, 4)],
           rtol=1e-5, atol=1e-5),
    OpCase("IRFFT2D", lambda tf, x, y: tf.signal.irfft2d(tf.complex(x, y), [3, 5]),
           lambda x, y: np.fft.irfft2(x + 1j * y, (3, 5)), _xy(2, 3, 3),
           rtol=1e-5, atol=1e-5),
    OpCase("RFFT3D", lambda tf, x: tf.abs(tf.signal.rfft3d(x)),
           lambda x: np.abs(np.fft.rfftn(x, axes=(-3, -2, -1))), [rand(2, 3, 4)],
           rtol=1e-5, atol=1e-5),
    OpCase("IRFFT3D", lambda tf, x, y: tf.spectral.irfft3d(tf.complex(x, y), [2, 3, 4]),
           lambda x, y: np.fft.irfftn(x + 1j * y, (2, 3, 4), axes=(-3, -2, -1)), _xy(2, 3, 3),
           rtol=1e-5, atol=1e-5),
    OpCase("EncodeWav", lambda tf, x: tf.audio.encode_wav(x, 8000), _check_wav, [_AUDIO],
           check_values=False),
    OpCase("DecodeWav", lambda tf, x: list(tf.audio.decode_wav(tf.audio.encode_wav(x, 11025))),
           lambda x: [np.round(x * 32768) / 32768, np.int32(11025)], [_AUDIO]),
    OpCase("DecodeWav", lambda tf, x: tf.audio.decode_wav(tf.audio.encode_wav(x, 8000), 3, 8)[0],
           lambda x: np.pad(np.round(x[:, [0, 1, 1]] * 32768) / 32768, [(0, 2), (0, 0)]),
           [_AUDIO], id="DecodeWav-desired"),
]
