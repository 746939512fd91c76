"""JPEG helpers of ``tf.image``/``tf.io``: ``is_jpeg`` (TF's ``Substr`` + ``Equal``
composite), ``ExtractJpegShape`` (the header's height, width and components, no pixels
decoded) and ``DecodeAndCropJpeg`` (a window ``[y, x, height, width]`` of the decoded
image). Pixels come from the project's JPEG path (image_codec_ops.py: Pillow's libjpeg),
which may differ from TF's libjpeg-turbo by a unit or two per pixel; TF's own partial
decode of a crop can differ from its full decode the same way. Neither op has a gradient.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import math_ops
from scopeflow.ops.image import image_codec_ops, image_formats
from scopeflow.ops.op_helpers import _partial_dims
from scopeflow.ops.strings.string_ops import substr

__all__ = ["is_jpeg", "extract_jpeg_shape", "decode_and_crop_jpeg"]

_JPEG_MAGIC = b"\xff\xd8\xff"
_CROP_FAILED = "jpeg::Uncompress failed. Invalid JPEG data or crop window."
_COMPONENTS = {"L": 1, "RGB": 3, "YCbCr": 3, "CMYK": 4}


def is_jpeg(contents, name=None) -> Tensor:
    """Whether the bytes start with JPEG's magic ``FF D8 FF`` (a bool tensor)."""
    with name_scope(name, "is_jpeg"):
        sub = substr(contents, 0, 3)
        return math_ops.equal(sub, _JPEG_MAGIC, name=name)


# ── ExtractJpegShape ─────────────────────────────────────────────────────────────────
def _jpeg_shape_shape(contents, *, output_type):
    if contents.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {contents.ndims}")
    return TensorShape([3])


def _jpeg_shape_dtype(contents, *, output_type):
    check_dtype(contents, (dtypes.string,), "contents")
    return check_dtype(dtypes.as_dtype(output_type), (dtypes.int32, dtypes.int64),
                       "output_type")


extract_jpeg_shape_op = OpDef(
    "ExtractJpegShape", shape=_jpeg_shape_shape, dtype=_jpeg_shape_dtype,
    attrs={"output_type": dtypes.int32}, input_names=("contents",), grad=NO_GRADIENT)


def _jpeg_header(data: bytes, message: str):
    """Pillow's lazy JPEG reader (the header read, no pixels); TF's message if not JPEG."""
    if not data.startswith(_JPEG_MAGIC):
        raise image_formats.invalid(message)
    image_codec_ops._pillow()
    try:
        return image_formats.pillow_open(data, "jpeg")
    except MemoryError:
        raise
    except Exception as e:  # Pillow raises OSError, SyntaxError by cause
        raise image_formats.invalid(message) from e


@extract_jpeg_shape_op.def_kernel
def _extract_jpeg_shape_kernel(contents, *, output_type):
    data = image_codec_ops._contents_bytes(contents)
    image = _jpeg_header(data, f"Invalid JPEG data, size {len(data)}")
    components = _COMPONENTS.get(image.mode, len(image.getbands()))
    return np.array([image.height, image.width, components],
                    dtypes.as_dtype(output_type).as_numpy_dtype)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None) -> Tensor:
    """``[height, width, channels]`` of a JPEG, read from its header."""
    return extract_jpeg_shape_op.bind(convert_to_tensor(contents, dtype=dtypes.string),
                                      output_type=dtypes.as_dtype(output_type), name=name)


# ── DecodeAndCropJpeg ────────────────────────────────────────────────────────────────
def _crop_jpeg_shape(contents, crop_window, *, channels, **attrs):
    if contents.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {contents.shape.ndims}")
    if crop_window.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {crop_window.shape.ndims}")
    dims = _partial_dims(crop_window)
    h = w = None
    if dims is not None and len(dims) == 4:
        h, w = (d if d is not None and d >= 0 else None for d in dims[2:])
    return TensorShape([h, w, channels or None])


def _crop_jpeg_dtype(contents, crop_window, **attrs):
    check_dtype(contents, (dtypes.string,), "contents")
    check_dtype(crop_window, (dtypes.int32,), "crop_window")
    return dtypes.uint8


decode_and_crop_jpeg_op = OpDef(
    "DecodeAndCropJpeg", shape=from_tensors(_crop_jpeg_shape), dtype=_crop_jpeg_dtype,
    attrs={"channels": 0, "ratio": 1, "fancy_upscaling": True, "try_recover_truncated": False,
           "acceptable_fraction": 1.0, "dct_method": ""},
    input_names=("contents", "crop_window"), grad=NO_GRADIENT)


@decode_and_crop_jpeg_op.def_kernel
def _decode_and_crop_jpeg_kernel(contents, crop_window, *, channels, ratio, fancy_upscaling,
                                 try_recover_truncated, acceptable_fraction, dct_method):
    window = np.asarray(crop_window)
    if window.shape != (4,):
        raise image_formats.invalid(
            f"crop_window must be 1-D with 4 elements, got shape {list(window.shape)}")
    pixels = image_codec_ops._decode_jpeg_kernel(
        contents, channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
        try_recover_truncated=try_recover_truncated, acceptable_fraction=acceptable_fraction,
        dct_method=dct_method)
    y, x, h, w = (int(v) for v in window)
    height, width = pixels.shape[:2]
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > height or x + w > width:
        raise image_formats.invalid(_CROP_FAILED)
    return np.ascontiguousarray(pixels[y:y + h, x:x + w])


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None) -> Tensor:
    """The window ``crop_window`` = ``[y, x, height, width]`` of a decoded JPEG (uint8)."""
    image_codec_ops._pillow()
    return decode_and_crop_jpeg_op.bind(
        convert_to_tensor(contents, dtype=dtypes.string), crop_window, channels=channels,
        ratio=ratio, fancy_upscaling=fancy_upscaling,
        try_recover_truncated=try_recover_truncated,
        acceptable_fraction=float(acceptable_fraction), dct_method=dct_method, name=name)
