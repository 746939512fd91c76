"""Image codecs: ``DecodeJpeg``, ``DecodePng``, ``DecodeGif``, ``DecodeBmp``,
``DecodeImage`` and ``EncodePng``, ``EncodeJpeg`` (``tf.image.decode_*``/``encode_*``).

As in TF 2's kernels (decode_image_op.cc), every decoder recognises the format by its
magic bytes (JPEG ``FF D8 FF``, PNG ``89 P N G``, GIF ``GIF8``, BMP ``BM``), so
``decode_png`` also reads a JPEG; bad data raises TF's ``InvalidArgumentError`` messages.

Decoding never allocates from a size the file cannot back: headers are read first
(image_formats.py) and checked by TF's and its libraries' limits (PNG: libpng's 1,000,000
per side and TF's ``width * height < 2**29``, and IDAT data enough for the declared rows;
JPEG: TF's ``2**29`` pixels; BMP: TF's header checks, rows the file holds; GIF: each
frame's LZW data enough for the frame), and only then does a native decoder allocate the
declared output. Pillow's own decompression-bomb limit is not used (an image TF decodes,
a 400-megapixel PNG say, decodes here): its readers are called directly, not through
``Image.open``, and no global setting is changed.

PNG is lossless and exact: scopeflow writes PNG itself (zlib, filter None), and reads
8-bit, palette and 16-bit gray PNGs with Pillow, converting channels as TF's libpng
settings do (gray from RGB with libpng's integer weights 9797/19234/3737 over 2**15,
truncated for 8 bits and rounded for 16; an opaque alpha added; 8-bit samples widened by
257 and 16-bit ones narrowed to their high byte). 16-bit RGB(A) PNGs, which Pillow
narrows to 8 bits, are read by libspng through the optional ``pyspng`` (interlaced ones
too), or without it by a vectorised NumPy unfilter; 16-bit gray+alpha ones by Pillow
with the pixels relabelled as 8-bit RGBA (the same 4 bytes a pixel).
GIF frames are decoded by Pillow's LZW decoder one frame at a time and composited as TF's
gif_io.cc does: [frames, tallest frame, widest frame, 3], never the logical screen.
JPEG goes through Pillow's libjpeg, whose IDCT and upsampling may differ from TF's
libjpeg-turbo by a unit or two per pixel. Pillow and pyspng are optional: ``pip install
scopeflow[image]``; without Pillow the decoders and the JPEG encoder raise ``ImportError``
saying so.
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import math_ops
from scopeflow.ops.image import image_formats

__all__ = ["decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image",
           "encode_png", "encode_jpeg"]

_INSTALL_HINT = ("tf.image's image decoders and JPEG encoder need Pillow: "
                 "pip install scopeflow[image]")


def _pillow():
    """Pillow's ``Image`` module, or an ImportError naming the extra to install."""
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(_INSTALL_HINT) from e
    return Image


# ── shared rules ─────────────────────────────────────────────────────────────────────
_invalid = image_formats.invalid


def _format_of(data: bytes) -> str:
    if not data:
        raise _invalid("Input is empty.")
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:4] == b"\x89PNG":
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                   "required.")


def _contents_bytes(contents) -> bytes:
    arr = np.asarray(contents, dtype=object)
    if arr.ndim != 0:
        raise _invalid(f"contents must be scalar, got shape {list(arr.shape)}")
    value = arr.item()
    return value.encode() if isinstance(value, str) else bytes(value)


def _check_scalar(shape, what="contents"):
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims} ({what})")


def _check_channels(channels, allowed=(0, 1, 3, 4)):
    if channels not in allowed:
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")


def _max_of(dtype) -> int:
    return 65535 if dtype == np.uint16 else 255


def _set_channels(pixels: np.ndarray, channels: int, gray_from_rgb,
                  filler: int | None = None) -> np.ndarray:
    """[h, w, c] pixels with ``channels`` channels (0: as stored), as libpng converts; an
    added alpha channel is ``filler`` (default: opaque)."""
    c = pixels.shape[-1]
    if channels == 0 or channels == c:
        return pixels
    color = pixels[..., :3] if c >= 3 else np.repeat(pixels[..., :1], 3, axis=-1)
    if channels == 1:
        return gray_from_rgb(color) if c >= 3 else pixels[..., :1]
    if channels == 3:
        return color
    if filler is None:
        filler = _max_of(pixels.dtype)
    alpha = pixels[..., -1:] if c in (2, 4) else \
        np.full(pixels.shape[:-1] + (1,), filler, pixels.dtype)
    return np.concatenate([color, alpha], axis=-1)


def _libpng_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's ``png_do_rgb_to_gray`` without gamma (TF: weights 0.299, 0.587)."""
    wide = rgb.astype(np.int64)
    total = wide[..., 0] * 9797 + wide[..., 1] * 19234 + wide[..., 2] * 3737
    gray = (total + 16384) >> 15 if rgb.dtype == np.uint16 else total >> 15
    same = (wide[..., 0] == wide[..., 1]) & (wide[..., 0] == wide[..., 2])
    return np.where(same, wide[..., 0], gray).astype(rgb.dtype)[..., None]


def _luma_gray(rgb: np.ndarray) -> np.ndarray:
    """Gray from RGB for JPEG, GIF and BMP (ITU-R 601 luma, rounded)."""
    wide = rgb.astype(np.int64)
    total = wide[..., 0] * 19595 + wide[..., 1] * 38470 + wide[..., 2] * 7471
    return ((total + 32768) >> 16).astype(rgb.dtype)[..., None]


def _to_dtype(pixels: np.ndarray, dtype) -> np.ndarray:
    """uint8 or uint16 pixels as ``dtype`` (uint8, uint16 or float32 in [0, 1])."""
    want = dtypes.as_dtype(dtype).as_numpy_dtype
    if pixels.dtype == want:
        return pixels
    if want == np.float32:
        # As TF's kernels round: 8-bit samples divided by 255, 16-bit ones times 1/65535.
        if pixels.dtype == np.uint16:
            return pixels.astype(np.float32) * np.float32(1.0 / 65535)
        return pixels.astype(np.float32) / np.float32(255)
    if want == np.uint16:
        return pixels.astype(np.uint16) * np.uint16(257)
    return (pixels >> 8).astype(np.uint8)


# ── PNG reading ───────────────────────────────────────────────────────────────────────
def _read_png(data: bytes, channels: int = 0) -> np.ndarray:
    """A PNG's pixels as stored: [h, w, c] uint8 or uint16, palettes expanded; with
    ``channels=4``, a gray or RGB image's tRNS colour gets alpha 0 (libpng's tRNS to
    alpha, as TF asks for it), the other pixels the maximum."""
    header = image_formats.png_header(data)
    compressed = image_formats.png_image_data(data, header)
    depth, color_type = header[2], header[3]
    data, key = image_formats.png_transparency(data, header)
    pixels = image_formats.read_png16(data, header, compressed) \
        if depth == 16 and color_type in (2, 4, 6) else _read_png_pillow(data, depth)
    if channels == 4 and key is not None and depth in (8, 16):
        see_through = np.all(pixels == np.asarray(key, pixels.dtype), axis=-1, keepdims=True)
        alpha = np.where(see_through, 0, _max_of(pixels.dtype)).astype(pixels.dtype)
        pixels = np.concatenate([np.repeat(pixels, 3, axis=-1) if pixels.shape[-1] == 1
                                 else pixels, alpha], axis=-1)
    return pixels


def _read_png_pillow(data: bytes, depth: int) -> np.ndarray:
    image = _load(_open(data, "png"), data, "png")
    try:  # Pillow's buffer and NumPy's copy of it are both alive here, for a moment
        mode = image.mode
        if mode == "P":
            image = image.convert("RGBA" if "transparency" in image.info else "RGB")
        elif mode in ("1",) or (mode == "L" and depth < 8):
            image = image.convert("L")
        elif mode in ("I;16", "I;16B", "I"):
            return np.asarray(image).astype(np.uint16, copy=False)[..., None]
        arr = np.asarray(image)
    except MemoryError:
        raise image_formats.out_of_memory(image.size[::-1], np.uint16 if depth == 16
                                          else np.uint8) from None
    return arr[..., None] if arr.ndim == 2 else arr


_INIT_FAILED = {"png": "Invalid PNG. Failed to initialize decoder.",
                "jpeg": "jpeg::Uncompress failed. Invalid JPEG data or crop window.",
                "bmp": "Invalid BMP. Failed to initialize decoder."}


def _open(data: bytes, kind: str):
    """Pillow's reader for ``kind`` on ``data``, pixels not read yet (see the module doc:
    no decompression-bomb limit, the callers check sizes first)."""
    _pillow()
    try:
        return image_formats.pillow_open(data, kind)
    except MemoryError:
        raise
    except Exception as e:  # Pillow raises OSError, SyntaxError, ValueError by format
        raise _invalid(_INIT_FAILED[kind]) from e


def _load(image, data: bytes, kind: str):
    """``image`` with its pixels read; TF's message for the format where that fails."""
    try:
        image.load()
    except MemoryError:
        raise image_formats.out_of_memory(image.size[::-1], np.uint8) from None
    except Exception as e:
        raise _invalid(f"Invalid PNG data, size {len(data)}" if kind == "png"
                       else _INIT_FAILED[kind]) from e
    return image


# ── JPEG, GIF and BMP reading ─────────────────────────────────────────────────────────
def _read_jpeg(data: bytes, channels: int, ratio: int) -> np.ndarray:
    if channels == 4:
        raise _invalid("JPEG does not support 4 channels")
    image = _open(data, "jpeg")
    height, width = -(-image.height // ratio), -(-image.width // ratio)
    if height * width >= image_formats.TF_MAX_PIXELS:  # jpeg_mem.cc's limit
        raise _invalid(_INIT_FAILED["jpeg"])
    if ratio != 1:
        image.draft(image.mode, (width, height))
    image = _load(image, data, "jpeg")
    if channels == 1 and image.mode != "L":
        image = image.convert("L")
    elif image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    arr = np.asarray(image)
    arr = arr[..., None] if arr.ndim == 2 else arr
    return _set_channels(arr, channels, _luma_gray)


def _read_bmp32(data: bytes) -> np.ndarray | None:
    """An uncompressed 32-bit BMP's BGRA pixels as RGBA (Pillow drops the alpha); the
    sizes were checked by image_formats.bmp_check."""
    if len(data) < 34:
        return None
    offset, = struct.unpack("<I", data[10:14])
    width, height, _, bits, compression = struct.unpack("<iiHHI", data[18:34])
    if bits != 32 or compression != 0 or width <= 0 or height == 0:
        return None
    size = width * abs(height) * 4
    bgra = np.frombuffer(data, np.uint8, size, offset).reshape(abs(height), width, 4)
    rgba = bgra[..., [2, 1, 0, 3]]
    return rgba[::-1].copy() if height > 0 else rgba.copy()


def _read_bmp(data: bytes, channels: int) -> np.ndarray:
    image_formats.bmp_check(data)
    rgba = _read_bmp32(data)
    if rgba is not None:
        return _set_channels(rgba, channels, _luma_gray)
    image = _load(_open(data, "bmp"), data, "bmp")
    if image.mode not in ("L", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.mode else "RGB")
    arr = np.asarray(image)
    arr = arr[..., None] if arr.ndim == 2 else arr
    return _set_channels(arr, channels, _luma_gray)


def _decode(data: bytes, channels: int, frames: str, ratio: int = 1):
    """Any supported image as TF's DecodeImage reads it (before the dtype cast). A GIF's
    ``frames``: "all" ([frames, h, w, 3]: decode_gif, decode_image), "first" ([h, w, 3]:
    decode_image without expand_animations) or "one" (decode_png and decode_jpeg: an
    animated GIF is an error)."""
    kind = _format_of(data)
    if kind == "png":
        # NOTE: TF asks libpng for an alpha of (1 << bit_depth) - 1, the file's depth: a
        # palette or gray PNG of 1, 2 or 4 bits gets a nearly transparent alpha (1, 3, 15).
        depth = data[24] if len(data) > 24 else 8
        filler = (1 << depth) - 1 if depth < 8 else None
        return _set_channels(_read_png(data, channels), channels, _libpng_gray, filler)
    if kind == "jpeg":
        return _read_jpeg(data, channels, ratio)
    if kind == "bmp":
        return _read_bmp(data, channels)
    if channels not in (0, 3):
        raise _invalid(f"channels must be 0 or 3 for GIF, got {channels}")
    out = image_formats.read_gif(data, _pillow(), frames)
    return out if frames == "all" else out[0]


def _decoded_shape(contents, *, channels, **attrs):
    _check_scalar(contents)
    return TensorShape([None, None, channels or None])


def _decode_uint8_dtype(contents, **attrs):
    check_dtype(contents, (dtypes.string,), "contents")
    return dtypes.uint8


# ── DecodeJpeg ────────────────────────────────────────────────────────────────────────
def _decode_jpeg_kernel(contents, *, channels, ratio, fancy_upscaling, try_recover_truncated,
                        acceptable_fraction, dct_method):
    _check_channels(channels)
    if ratio not in (1, 2, 4, 8):
        raise _invalid(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    data = _contents_bytes(contents)
    image = _decode(data, channels, "one", ratio=ratio)
    return _to_dtype(image, dtypes.uint8)


decode_jpeg_op = OpDef(
    "DecodeJpeg", shape=_decoded_shape, dtype=_decode_uint8_dtype, kernel=_decode_jpeg_kernel,
    attrs={"channels": 0, "ratio": 1, "fancy_upscaling": True, "try_recover_truncated": False,
           "acceptable_fraction": 1.0, "dct_method": ""},
    grad=NO_GRADIENT, input_names=("contents",))


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None) -> Tensor:
    """Decodes a JPEG image to a uint8 tensor [height, width, channels].

    Pixel values follow Pillow's libjpeg, which may differ from TF's by a unit or two.
    """
    _pillow()  # the missing extra is reported while the graph is built
    return decode_jpeg_op.bind(
        convert_to_tensor(contents, dtype=dtypes.string), channels=channels, ratio=ratio,
        fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
        acceptable_fraction=float(acceptable_fraction), dct_method=dct_method, name=name)


# ── DecodePng ─────────────────────────────────────────────────────────────────────────
def _decode_png_dtype(contents, *, channels, dtype):
    check_dtype(contents, (dtypes.string,), "contents")
    return check_dtype(dtype, (dtypes.uint8, dtypes.uint16), "dtype")


def _decode_png_kernel(contents, *, channels, dtype):
    _check_channels(channels)
    image = _decode(_contents_bytes(contents), channels, "one")
    return _to_dtype(image, dtype)


decode_png_op = OpDef(
    "DecodePng", shape=_decoded_shape, dtype=_decode_png_dtype, kernel=_decode_png_kernel,
    attrs={"channels": 0, "dtype": dtypes.uint8}, grad=NO_GRADIENT, input_names=("contents",))


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None) -> Tensor:
    """Decodes a PNG image to a uint8 or uint16 tensor [height, width, channels], exactly.

    >>> import scopeflow as tf
    >>> png = encode_png(tf.constant([[[0], [255]]], tf.uint8))
    >>> tf.Session().run(decode_png(png, channels=3)).tolist()
    [[[0, 0, 0], [255, 255, 255]]]
    """
    _pillow()  # the missing extra is reported while the graph is built
    return decode_png_op.bind(convert_to_tensor(contents, dtype=dtypes.string),
                              channels=channels, dtype=dtypes.as_dtype(dtype), name=name)


# ── DecodeGif ─────────────────────────────────────────────────────────────────────────
def _decode_gif_shape(contents):
    _check_scalar(contents)
    return TensorShape([None, None, None, 3])


def _decode_gif_kernel(contents):
    image = _decode(_contents_bytes(contents), 0, "all")
    return image if image.ndim == 4 else image[None]  # a still image: one frame


decode_gif_op = OpDef(
    "DecodeGif", shape=_decode_gif_shape, dtype=_decode_uint8_dtype, kernel=_decode_gif_kernel,
    grad=NO_GRADIENT, input_names=("contents",))


def decode_gif(contents, name=None) -> Tensor:
    """Decodes a GIF's frames to a uint8 tensor [frames, height, width, 3]."""
    _pillow()  # the missing extra is reported while the graph is built
    return decode_gif_op.bind(convert_to_tensor(contents, dtype=dtypes.string), name=name)


# ── DecodeBmp ─────────────────────────────────────────────────────────────────────────
def _decode_bmp_kernel(contents, *, channels):
    _check_channels(channels, (0, 1, 3, 4))
    data = _contents_bytes(contents)
    kind = _format_of(data)
    if kind != "bmp":
        raise _invalid(f"Trying to decode {kind.upper()} format using DecodeBmp op. Use "
                       f"`decode_{kind}` or `decode_image` instead.")
    return _to_dtype(_decode(data, channels, "one"), dtypes.uint8)


decode_bmp_op = OpDef(
    "DecodeBmp", shape=_decoded_shape, dtype=_decode_uint8_dtype, kernel=_decode_bmp_kernel,
    attrs={"channels": 0}, grad=NO_GRADIENT, input_names=("contents",))


def decode_bmp(contents, channels=0, name=None) -> Tensor:
    """Decodes a BMP image to a uint8 tensor [height, width, channels]."""
    _pillow()  # the missing extra is reported while the graph is built
    return decode_bmp_op.bind(convert_to_tensor(contents, dtype=dtypes.string),
                              channels=channels, name=name)


# ── DecodeImage ───────────────────────────────────────────────────────────────────────
def _decode_image_shape(contents, *, channels, dtype, expand_animations):
    _check_scalar(contents)
    if expand_animations:
        return TensorShape(None)
    return TensorShape([None, None, channels or None])


def _decode_image_dtype(contents, *, channels, dtype, expand_animations):
    check_dtype(contents, (dtypes.string,), "contents")
    return check_dtype(dtype, (dtypes.uint8, dtypes.uint16, dtypes.float32), "dtype")


def _decode_image_kernel(contents, *, channels, dtype, expand_animations):
    _check_channels(channels)
    image = _decode(_contents_bytes(contents), channels,
                    "all" if expand_animations else "first")
    return _to_dtype(image, dtype)


decode_image_op = OpDef(
    "DecodeImage", shape=_decode_image_shape, dtype=_decode_image_dtype,
    kernel=_decode_image_kernel,
    attrs={"channels": 0, "dtype": dtypes.uint8, "expand_animations": True}, grad=NO_GRADIENT,
    input_names=("contents",))


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True) -> Tensor:
    """Decodes a JPEG, PNG, GIF or BMP image, recognised by its first bytes.

    uint8, uint16 and float32 (in [0, 1]) decode directly; other dtypes decode as uint16
    and go through ``convert_image_dtype``, as TF.
    """
    _pillow()
    from_dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        decode_dtype = from_dtype if from_dtype in (dtypes.float32, dtypes.uint8,
                                                    dtypes.uint16) else dtypes.uint16
        image = decode_image_op.bind(convert_to_tensor(contents, dtype=dtypes.string),
                                     channels=channels, dtype=decode_dtype,
                                     expand_animations=expand_animations)
        if decode_dtype != from_dtype:
            image = _convert_image_dtype(image, from_dtype)
        return image


def _convert_image_dtype(image, dtype):
    # NOTE: image_transform_ops builds on this module, so it cannot be imported here; the
    # integer-to-integer and integer-to-float rules of convert_image_dtype, inlined.
    if dtype.is_floating:
        return math_ops.multiply(math_ops.cast(image, dtype), 1.0 / 65535)
    if dtype.max > 65535:
        return math_ops.multiply(math_ops.cast(image, dtype), (dtype.max + 1) // 65536)
    return math_ops.cast(math_ops.floordiv(image, 65536 // (dtype.max + 1)), dtype)


# ── EncodePng ─────────────────────────────────────────────────────────────────────────
def _encoded_shape(image, **attrs):
    if image.ndims not in (None, 3):
        raise ValueError(f"Shape must be rank 3 but is rank {image.ndims} (image)")
    return TensorShape([])


def _encode_png_dtype(image, *, compression, T):
    check_dtype(image, (dtypes.uint8, dtypes.uint16), "T")
    return dtypes.string


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _encode_png_kernel(image, *, compression, T):
    if image.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{list(image.shape)}")
    height, width, channels = image.shape
    if channels not in (1, 2, 3, 4):
        raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if height == 0 or width == 0:
        raise _invalid(f"image must have a non-zero size, got {list(image.shape)}")
    if not -1 <= compression <= 9:
        raise _invalid(f"Invalid compression level {compression}")
    depth = 16 if image.dtype == np.uint16 else 8
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    rows = np.ascontiguousarray(image, dtype=">u2" if depth == 16 else np.uint8)
    rows = rows.view(np.uint8).reshape(height, -1)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    png = (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
           + _png_chunk(b"IDAT", zlib.compress(raw, compression)) + _png_chunk(b"IEND", b""))
    return np.array(png, dtype=object)


encode_png_op = OpDef(
    "EncodePng", shape=_encoded_shape, dtype=_encode_png_dtype, kernel=_encode_png_kernel,
    attrs={"compression": -1, "T": dtypes.uint8}, grad=NO_GRADIENT, input_names=("image",))


def encode_png(image, compression=-1, name=None) -> Tensor:
    """Encodes a uint8 or uint16 image [height, width, channels] (1 to 4) as a PNG string."""
    image = convert_to_tensor(image, name="image")
    return encode_png_op.bind(image, compression=compression, T=image.dtype.base_dtype,
                              name=name)


# ── EncodeJpeg ────────────────────────────────────────────────────────────────────────
def _encode_jpeg_dtype(image, **attrs):
    check_dtype(image, (dtypes.uint8,), "image")
    return dtypes.string


def _encode_jpeg_kernel(image, *, format, quality, progressive, optimize_size,
                        chroma_downsampling, density_unit, x_density, y_density,
                        xmp_metadata):
    if image.ndim != 3 or image.shape[-1] not in (1, 3):
        raise _invalid(f"image must be 3-dimensional{list(image.shape)}" if image.ndim != 3
                       else "image must have 1 or 3 channels, got "
                       f"[{','.join(str(d) for d in image.shape)}]")
    channels = {"grayscale": 1, "rgb": 3, "": image.shape[-1]}[format]
    if channels != image.shape[-1]:
        raise _invalid(f"format {format!r} expects {channels} channels, got "
                       f"{image.shape[-1]}")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    pil = _pillow().fromarray(image[..., 0] if channels == 1 else image,
                              "L" if channels == 1 else "RGB")
    out = io.BytesIO()
    pil.save(out, "JPEG", quality=quality, progressive=progressive, optimize=optimize_size,
             subsampling=2 if chroma_downsampling else 0,
             dpi=(x_density, y_density) if density_unit == "in" else None)
    return np.array(out.getvalue(), dtype=object)


encode_jpeg_op = OpDef(
    "EncodeJpeg", shape=_encoded_shape, dtype=_encode_jpeg_dtype, kernel=_encode_jpeg_kernel,
    attrs={"format": "", "quality": 95, "progressive": False, "optimize_size": False,
           "chroma_downsampling": True, "density_unit": "in", "x_density": 300,
           "y_density": 300, "xmp_metadata": ""},
    grad=NO_GRADIENT, input_names=("image",))


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None) -> Tensor:
    """Encodes a uint8 image [height, width, 1 or 3] as a JPEG string (through Pillow)."""
    _pillow()  # the missing extra is reported while the graph is built
    return encode_jpeg_op.bind(
        image, format=format, quality=quality, progressive=progressive,
        optimize_size=optimize_size, chroma_downsampling=chroma_downsampling,
        density_unit=density_unit, x_density=x_density, y_density=y_density,
        xmp_metadata=xmp_metadata, name=name)
