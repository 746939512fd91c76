"""``tf.image.adjust_jpeg_quality`` and ``random_jpeg_quality``: an image re-encoded as JPEG
at a (random) quality and decoded again, as TF builds them: ``convert_image_dtype`` to
uint8, ``EncodeJpegVariableQuality`` (the quality a tensor), ``DecodeJpeg`` and back to
the image's type.

The codec is Pillow's libjpeg-turbo (the optional ``image`` extra), with TF's settings
(4:2:0 chroma subsampling, baseline, 300 dpi). TF decodes with libjpeg-turbo's fast
integer IDCT by default, Pillow with the slow one, so pixels can differ from TF's by a
few units (tests/unit/ops/image/test_jpeg_quality.py measures it); the encoded bytes are
TF's for the same pixels. ``random_jpeg_quality`` draws its quality from a seeded
``RandomUniformInt`` in ``[min, max)``, TF's exact stream.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.image.image_codec_ops import _encode_jpeg_kernel, _pillow, decode_jpeg
from scopeflow.ops.image.image_transform_ops import convert_image_dtype
from scopeflow.ops.random import random_ops

__all__ = ["adjust_jpeg_quality", "random_jpeg_quality"]


def _shape(images, quality):
    if images.ndims is not None and images.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {images.ndims}")
    if quality.ndims is not None and quality.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {quality.ndims}")
    return TensorShape([])


def _dtype(images, quality):
    check_dtype(images, (dtypes.uint8,), "images")
    if quality is not dtypes.int32:
        raise TypeError(f"Input 'quality' of 'EncodeJpegVariableQuality' Op has type "
                        f"{quality.name} that does not match expected type of int32.")
    return dtypes.string


def _kernel(images, quality):
    if np.ndim(quality) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"quality must be scalar: {list(np.shape(quality))}")
    # One component: TF's libjpeg setup marks it 1x1 (Pillow's 4:2:0 would write 2x2 in
    # the header; the coded data are the same).
    return _encode_jpeg_kernel(
        images, format="", quality=int(quality), progressive=False, optimize_size=False,
        chroma_downsampling=np.shape(images)[-1] != 1, density_unit="in", x_density=300,
        y_density=300, xmp_metadata="")


encode_jpeg_variable_quality_op = OpDef(
    "EncodeJpegVariableQuality", shape=_shape, dtype=_dtype, kernel=_kernel,
    grad=NO_GRADIENT, input_names=("images", "quality"))


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None) -> Tensor:
    """``image`` (any image type) after a JPEG round trip at ``jpeg_quality`` (0-100)."""
    _pillow()  # the missing extra is reported while the graph is built
    with name_scope(name, "adjust_jpeg_quality"):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1]
        orig_dtype = image.dtype.base_dtype
        image = convert_image_dtype(image, dtypes.uint8, saturate=True)
        if not isinstance(jpeg_quality, Tensor):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        encoded = encode_jpeg_variable_quality_op.bind(image, jpeg_quality)
        image = decode_jpeg(encoded, channels=channels or 0, dct_method=dct_method)
        return convert_image_dtype(image, orig_dtype, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn uniformly from
    ``[min_jpeg_quality, max_jpeg_quality)`` (a seeded int32 ``random_uniform``)."""
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100
            or max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                                        dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)
