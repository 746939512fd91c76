"""``DecodeWebP`` (``tf.io.decode_webp``, ``tf.image.decode_webp``): a WebP image as a uint8
``[frames, height, width, channels]`` tensor, as TF's kernel shapes it.

Always 4-D, one frame for a still image. ``channels=0`` keeps the file's channels (4 when
it has alpha, else 3); 3 or 4 must equal them ("Number of channels requested does not
match input"); 1 is refused ("WebP only supports 3 or 4 channels"). An animated WebP gives
its frames composited on the canvas as RGBA, as libwebp's animation decoder renders them
(TF 2.21's CPU build crashes the process on the animated files tried here, so those
values are libwebp's, not checked against TF). Decoding is Pillow's libwebp (the optional
``image`` extra); lossless files decode to their exact pixels. TF registers no gradient.
"""

from __future__ import annotations

import io

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.image.image_codec_ops import (
    _check_channels,
    _check_scalar,
    _contents_bytes,
    _invalid,
    _pillow,
)

__all__ = ["decode_webp"]


def _shape(contents, *, channels, dtype):
    _check_scalar(contents)
    return TensorShape([None, None, None, channels or None])


def _dtype(contents, *, channels, dtype):
    check_dtype(contents, (dtypes.string,), "contents")
    return check_dtype(dtype, (dtypes.uint8,), "dtype")


def _frames(data: bytes):
    """The file's frames as arrays (RGB or RGBA) and whether it has alpha."""
    image_mod = _pillow()
    try:
        image = image_mod.open(io.BytesIO(data), formats=["WEBP"])
        frames = []
        for i in range(getattr(image, "n_frames", 1)):
            image.seek(i)
            frame = image.convert("RGBA" if image.mode in ("RGBA", "LA", "PA") or
                                  getattr(image, "is_animated", False) else "RGB")
            frames.append(np.asarray(frame))
    except MemoryError:
        raise
    except Exception as e:  # Pillow raises OSError, SyntaxError, ValueError
        raise _invalid("Failed to decode WebP image.") from e
    return np.stack(frames)


def _kernel(contents, *, channels, dtype):
    _check_channels(channels)
    if channels == 1:
        raise _invalid("WebP only supports 3 or 4 channels")
    data = _contents_bytes(contents)
    if not data:
        raise _invalid("Input is empty.")
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, "
                       "WebP required.")
    frames = _frames(data)
    if channels and channels != frames.shape[-1]:
        raise _invalid("Number of channels requested does not match input")
    return frames


decode_webp_op = OpDef("DecodeWebP", shape=_shape, dtype=_dtype, kernel=_kernel,
                       attrs={"channels": 0, "dtype": dtypes.uint8}, grad=NO_GRADIENT,
                       input_names=("contents",))


def decode_webp(contents, channels=0, dtype=dtypes.uint8, name=None) -> Tensor:
    """Decodes a WebP image to uint8 ``[frames, height, width, channels]``."""
    _pillow()  # the missing extra is reported while the graph is built
    if not isinstance(contents, Tensor):   # converted in the op's scope: DecodeWebP/contents
        contents = np.asarray(contents, dtype=object)
    return decode_webp_op.bind(contents, channels=int(channels),
                               dtype=dtypes.as_dtype(dtype), name=name)
