"""Op-table rows for scopeflow/ops/image/image_codec_ops.py and image_transform_ops.py.

The codec rows round-trip tiny images (PNG exactly, JPEG within libjpeg's rounding);
TF's own bytes and pixels are checked in tests/unit/ops/image/test_image_codecs.py. The decoders
need Pillow (the ``image`` extra): without it their rows are exempt.
"""

from __future__ import annotations

import importlib.util
import io

import numpy as np

from scopeflow.ops.image import image_codec_ops, image_transform_ops

from .op_table import OpCase, rand

HAVE_PIL = importlib.util.find_spec("PIL") is not None

_RGB = (np.arange(2 * 3 * 3).reshape(2, 3, 3) * 14).astype(np.uint8)
_RGB16 = (np.arange(2 * 3 * 4).reshape(2, 3, 4) * 2749).astype(np.uint16)


def _png(image) -> np.ndarray:
    """PNG bytes, written by scopeflow's own encoder kernel (no Pillow)."""
    return image_codec_ops._encode_png_kernel(image, compression=-1, T=None)


def _pil_bytes(image, fmt, **kw) -> np.ndarray:
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, fmt, **kw)
    return np.array(out.getvalue(), dtype=object)


def _expect(want, atol=0):
    def check(*got):
        assert len(got) == 1
        got = np.asarray(got[0])
        assert got.shape == np.shape(want), (got.shape, np.shape(want))
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64),
                                   atol=atol)
    return check


def _decodes_to(image):
    """EncodePng's output is a PNG whose pixels are ``image`` (checked with Pillow when
    it is installed, else by the signature)."""
    def check(*got):
        data = np.asarray(got[0], dtype=object).item()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        if HAVE_PIL:
            back = image_codec_ops._read_png(data)
            np.testing.assert_array_equal(back, image)
    return check


def _contrast_ref(x, factor):
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float64)
    return ((x - mean) * factor + mean).astype(np.float32)


ROWS = [
    OpCase("EncodePng", lambda tf, x: image_codec_ops.encode_png(x), _decodes_to(_RGB),
           [_RGB], check_values=False),
    OpCase("EncodePng", lambda tf, x: image_codec_ops.encode_png(x), _decodes_to(_RGB16),
           [_RGB16], check_values=False, id="uint16_rgba"),
    OpCase("AdjustContrastv2",
           lambda tf, x, f: image_transform_ops.adjust_contrastv2_op.bind(x, f),
           _contrast_ref, [rand(2, 3, 4, 2), np.array(1.7, np.float32)], rtol=1e-5,
           atol=1e-5),
]

EXEMPT = {}
_NEEDS_PIL = "needs Pillow (pip install scopeflow[image]), which is not installed here"
if HAVE_PIL:
    ROWS += [
        OpCase("DecodePng", lambda tf, s: image_codec_ops.decode_png(s, channels=4),
               _expect(np.concatenate([_RGB, np.full((2, 3, 1), 255, np.uint8)], -1)),
               [_png(_RGB)], check_values=False),
        OpCase("DecodePng", lambda tf, s: image_codec_ops.decode_png(s, dtype=tf.uint16),
               _expect(_RGB16), [_png(_RGB16)], check_values=False, id="uint16"),
        OpCase("DecodeImage", lambda tf, s: image_codec_ops.decode_image(s, dtype=tf.float32),
               _expect(_RGB / np.float32(255)), [_png(_RGB)], check_values=False),
        OpCase("DecodeJpeg", lambda tf, s: image_codec_ops.decode_jpeg(s),
               _expect(np.full((8, 8, 3), [200, 100, 50]), atol=3),
               [_pil_bytes(np.full((8, 8, 3), [200, 100, 50], np.uint8), "JPEG", quality=95)],
               check_values=False),
        OpCase("DecodeBmp", lambda tf, s: image_codec_ops.decode_bmp(s), _expect(_RGB),
               [_pil_bytes(_RGB, "BMP")], check_values=False),
        OpCase("DecodeGif", lambda tf, s: image_codec_ops.decode_gif(s),
               _expect(np.full((1, 2, 3, 3), [255, 0, 0])),
               [_pil_bytes(np.full((2, 3, 3), [255, 0, 0], np.uint8), "GIF")],
               check_values=False),
        OpCase("EncodeJpeg", lambda tf, x: image_codec_ops.encode_jpeg(x),
               lambda data: _expect(_RGB, atol=40)(image_codec_ops._read_jpeg(
                   np.asarray(data, dtype=object).item(), 0, 1)),
               [_RGB], check_values=False),
    ]
else:  # pragma: no cover - depends on the environment
    EXEMPT.update({op: _NEEDS_PIL for op in ("DecodePng", "DecodeImage", "DecodeJpeg",
                                             "DecodeBmp", "DecodeGif", "EncodeJpeg")})
