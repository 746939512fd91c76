"""The container side of tf.image's decoders (image_codec_ops.py): sizes checked before
anything is allocated, TF's refusals and messages, and the decoders that need more than
Pillow.

PNG: the IHDR is checked as libpng (its default 1,000,000-pixel limits on width and
height, valid depth and colour type, CRC) and TF (``width * height < 2**29``) check it,
and the IDAT chunks must be able to hold the declared rows: deflate expands at most
1032-fold, so a file whose compressed data is too short for its rows is refused before
any pixel buffer exists. 16-bit RGB(A) PNGs (which Pillow narrows to 8 bits) are decoded
by libspng through the optional ``pyspng``; without it, by a NumPy unfilter that walks
the image's anti-diagonals (one vectorised step per diagonal, so Average and Paeth rows
cost ``width + height`` NumPy steps, not a Python step per byte: about 2x libspng's time
at 1500 x 1500, 5x at 9000 x 9000). 16-bit gray+alpha PNGs go through Pillow relabelled
as 8-bit RGBA (both are 4 bytes a pixel, so their filtered bytes are the same).

BMP: TF's header checks, among them that the file holds every declared row.

GIF: the file's blocks are walked here, as giflib's ``DGifSlurp`` reads them, and each
frame's LZW data is decoded by Pillow's decoder into a buffer of that frame's own size;
frames are then composited as TF's gif_io.cc does: the output is [frames, tallest frame,
widest frame, 3], never the logical screen (which TF ignores), each frame starts from
the previous one, a transparent index keeps the pixel below, and frames are clipped.
A frame that fails after at least one good frame ends the animation there (TF keeps the
good frames); a failing first frame is an error.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from scopeflow.framework import errors

LIBPNG_MAX_DIM = 1_000_000          # libpng's default png_set_user_limits
TF_MAX_PIXELS = 1 << 29             # decode_image_op.cc (PNG) and jpeg_mem.cc (JPEG)
DEFLATE_MAX_RATIO = 1032            # 258 bytes per 2-bit length/distance pair
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
          (1, 0, 2, 2), (0, 1, 1, 2))  # (x0, y0, dx, dy) of each pass


def invalid(msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, msg)


def out_of_memory(shape, dtype) -> errors.ResourceExhaustedError:
    return errors.out_of_memory(shape, np.dtype(dtype).name)


def allocate(shape, dtype) -> np.ndarray:
    """np.empty, with TF's ResourceExhaustedError where the memory is not there."""
    try:
        return np.empty(shape, dtype)
    except MemoryError:
        raise out_of_memory(shape, dtype) from None


# ── PNG ──────────────────────────────────────────────────────────────────────────────
def png_header(data: bytes) -> tuple[int, int, int, int, int]:
    """(width, height, depth, colour type, interlace) from a PNG's IHDR, checked as libpng
    and TF check it: InvalidArgumentError where TF refuses the file before decoding."""
    if len(data) < 33 or data[8:16] != b"\0\0\0\rIHDR" or \
            zlib.crc32(data[12:29]) != struct.unpack_from(">I", data, 29)[0]:
        raise invalid("Invalid PNG. Failed to initialize decoder.")
    width, height, depth, color_type, compression, filtering, interlace = \
        struct.unpack_from(">IIBBBBB", data, 16)
    if not (0 < width <= LIBPNG_MAX_DIM and 0 < height <= LIBPNG_MAX_DIM) or \
            depth not in _PNG_DEPTHS.get(color_type, ()) or compression or filtering or \
            interlace > 1:
        raise invalid("Invalid PNG. Failed to initialize decoder.")
    if width * height >= TF_MAX_PIXELS:
        raise invalid(f"PNG size too large for int: {width} by {height}")
    return width, height, depth, color_type, interlace


def _png_passes(width: int, height: int, interlace: int):
    """(x0, y0, dx, dy, pass width, pass height) of each non-empty (Adam7) pass."""
    for x0, y0, dx, dy in (_ADAM7 if interlace else ((0, 0, 1, 1),)):
        w, h = -(-(width - x0) // dx), -(-(height - y0) // dy)
        if w > 0 and h > 0:
            yield x0, y0, dx, dy, w, h


def png_raw_size(width, height, depth, color_type, interlace) -> int:
    """Bytes of filtered rows (a filter byte each) the IDAT stream must inflate to."""
    bits = depth * _PNG_CHANNELS[color_type]
    return sum(h * ((w * bits + 7) // 8 + 1) for *_, w, h in _png_passes(width, height,
                                                                          interlace))


# libpng's rule for a tRNS chunk's length by colour type; 3 (palette) is checked against
# the PLTE chunk before it. Colour types 4 and 6 have an alpha channel: any tRNS is invalid.
_TRNS_LENGTH = {0: 2, 2: 6}


def png_transparency(data: bytes, header) -> tuple[bytes, tuple | None]:
    """``(data, key)``: ``data`` without any tRNS chunk libpng ignores as invalid (a benign
    error TF's decoder does not raise: longer than the palette, empty, the wrong length
    for gray or RGB, in an image with alpha, or a second one), which Pillow would use or
    fail on; and a gray or RGB image's transparent colour from a valid tRNS (the samples
    as stored), which TF's channels=4 turns into alpha 0, or None."""
    color_type, pos, palette, seen, drop, key = header[3], 8, None, False, [], None
    while pos + 12 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = min(pos + 12 + length, len(data))
        if kind == b"PLTE":
            palette = length // 3
        elif kind == b"tRNS":
            if color_type == 3:
                valid = palette is not None and 0 < length <= min(palette, 256)
            else:
                valid = _TRNS_LENGTH.get(color_type) == length and end - pos == length + 12
            if seen or not valid:
                drop.append((pos, end))
            elif color_type in _TRNS_LENGTH:
                key = struct.unpack_from(f">{length // 2}H", data, pos + 8)
            seen = True
        elif kind in (b"IDAT", b"IEND"):
            break
        pos = end
    kept, at = [], 0
    for start, stop in drop:
        kept.append(data[at:start])
        at = stop
    return (b"".join(kept) + data[at:] if drop else data), key


def png_image_data(data: bytes, header) -> bytes:
    """The PNG's concatenated IDAT data, after libpng's chunk checks (critical chunks'
    CRCs, an IDAT, an IEND) and the check that it can inflate to the declared rows."""
    view, pos, idat, ended = memoryview(data), 8, [], False
    while pos + 12 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 12 + length
        if end > len(data):  # cut short: an IDAT's header is enough for png_read_info
            idat += [view[pos + 8:]] if kind == b"IDAT" else []
            break
        body = view[pos + 8:end - 4]
        if kind[0] & 0x20 == 0 and \
                zlib.crc32(body, zlib.crc32(kind)) != struct.unpack_from(">I", data, end - 4)[0]:
            if kind == b"IDAT":
                idat.append(body)  # (libpng meets it while decoding: a data error)
            break  # a critical chunk's CRC error: libpng stops
        if kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            ended = True
            break
        pos = end
    if not idat:  # libpng's png_read_info reads up to the first IDAT
        raise invalid("Invalid PNG. Failed to initialize decoder.")
    compressed = b"".join(idat)
    if not ended or png_raw_size(*header) > DEFLATE_MAX_RATIO * len(compressed):
        raise invalid(f"Invalid PNG data, size {len(data)}")
    return compressed


def _unfilter_diagonals(rows: np.ndarray, out: np.ndarray, bpp: int) -> None:
    """Undo the filters of ``rows`` [h, w * bpp + 1] into ``out`` [h + 1, w + 1, bpp], whose
    first row and column are the zeros PNG assumes outside the image. Pixel (y, x) needs
    its left, upper and upper-left neighbours only, so every pixel of an anti-diagonal
    y + x = t is computed in one vectorised step from diagonals t - 1 and t - 2."""
    h, w = out.shape[0] - 1, out.shape[1] - 1
    kinds = rows[:, 0]
    step, row = out.strides[1], out.strides[0]

    def diag(base):  # diag(view)[t, y] is view[y, t - y] (only 0 <= t - y < w is read)
        return np.lib.stride_tricks.as_strided(
            base, shape=(w + h - 1, h, bpp), strides=(step, row - step, 1), writeable=True)

    # `out` seen from each pixel (cur) and from its three neighbours
    cur, left, up, corner = (diag(out[1:, 1:]), diag(out[1:, :-1]), diag(out[:-1, 1:]),
                             diag(out[:-1, :-1]))
    raw = np.lib.stride_tricks.as_strided(
        rows[:, 1:], shape=(w + h - 1, h, bpp),
        strides=(bpp, rows.strides[0] - bpp, 1))
    masks = {k: (kinds == k)[:, None] for k in range(5) if (kinds == k).any()}
    for t in range(w + h - 1):
        lo, hi = max(0, t - w + 1), min(h, t + 1)
        a = left[t, lo:hi].astype(np.int16)
        b = up[t, lo:hi].astype(np.int16)
        pred = np.zeros_like(a)
        for k, mask in masks.items():
            m = mask[lo:hi]
            if k == 1:
                np.copyto(pred, a, where=m)
            elif k == 2:
                np.copyto(pred, b, where=m)
            elif k == 3:
                np.copyto(pred, (a + b) >> 1, where=m)
            elif k == 4:
                c = corner[t, lo:hi].astype(np.int16)
                pa, pb, pc = np.abs(b - c), np.abs(a - c), np.abs(a + b - 2 * c)
                paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
                np.copyto(pred, paeth, where=m)
        cur[t, lo:hi] = raw[t, lo:hi] + pred.astype(np.uint8)


def _unfilter_rows(rows: np.ndarray, out: np.ndarray, bpp: int) -> None:
    """As _unfilter_diagonals, for images with only None, Sub and Up rows: row by row."""
    w = out.shape[1] - 1
    for y, kind in enumerate(rows[:, 0]):
        line = rows[y, 1:].reshape(w, bpp)
        if kind == 0:
            out[y + 1, 1:] = line
        elif kind == 1:
            np.cumsum(line, axis=0, dtype=np.uint8, out=out[y + 1, 1:])
        else:
            np.add(line, out[y, 1:], out=out[y + 1, 1:])


def unfilter(rows: np.ndarray, width: int, bpp: int) -> np.ndarray:
    """PNG's five row filters undone: [h, width * bpp + 1] filtered rows (whole bytes per
    pixel, as 16-bit samples have) to [h, width, bpp] uint8."""
    kinds = rows[:, 0]
    if kinds.max(initial=0) > 4:
        raise ValueError("bad adaptive filter value")
    out = np.zeros((rows.shape[0] + 1, width + 1, bpp), np.uint8)
    if np.isin(kinds, (3, 4)).any():
        _unfilter_diagonals(rows, out, bpp)
    else:
        _unfilter_rows(rows, out, bpp)
    return out[1:, 1:]


def _read_png16_numpy(data: bytes, header, compressed: bytes) -> np.ndarray:
    width, height, _, color_type, interlace = header
    channels, needed = _PNG_CHANNELS[color_type], png_raw_size(*header)
    try:
        raw = zlib.decompressobj().decompress(compressed, needed)
    except zlib.error as e:
        raise invalid(f"Invalid PNG data, size {len(data)}") from e
    if len(raw) < needed:
        raise invalid(f"Invalid PNG data, size {len(data)}")
    bpp, pos = 2 * channels, 0
    out = allocate((height, width, channels), np.uint16)
    for x0, y0, dx, dy, w, h in _png_passes(width, height, interlace):
        rows = np.frombuffer(raw, np.uint8, h * (w * bpp + 1), pos).reshape(h, w * bpp + 1)
        pos += rows.size
        try:
            pixels = unfilter(rows, w, bpp)
        except ValueError as e:
            raise invalid(f"Invalid PNG data, size {len(data)}") from e
        out[y0::dy, x0::dx] = pixels.view(">u2")
    return out


def pillow_open(data: bytes, kind: str):
    """Pillow's reader for ``kind`` ("png", "jpeg", "bmp") on ``data``, lazily (no pixels
    yet), without Image.open's decompression-bomb limit: the callers check sizes by TF's
    rules instead, before ``load()`` allocates. (Image.MAX_IMAGE_PIXELS is global state;
    nothing here changes it.)"""
    import io

    from PIL import BmpImagePlugin, JpegImagePlugin, PngImagePlugin
    reader = {"png": PngImagePlugin.PngImageFile, "jpeg": JpegImagePlugin.JpegImageFile,
              "bmp": BmpImagePlugin.BmpImageFile}[kind]
    return reader(io.BytesIO(data))


def _read_png16_gray_alpha(data: bytes, header) -> np.ndarray:
    """A 16-bit gray+alpha PNG through Pillow, which has no 16-bit LA mode (and pyspng no
    GA16 output): its pixels are 4 bytes like 8-bit RGBA's, so the same filtered bytes
    relabelled RGBA (same width, same Adam7 passes) decode to the big-endian samples."""
    ihdr = struct.pack(">IIBBBBB", header[0], header[1], 8, 6, 0, 0, header[4])
    relabelled = (data[:16] + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
                  + data[33:])
    try:
        image = pillow_open(relabelled, "png")
        image.load()
    except MemoryError:
        raise out_of_memory((header[1], header[0], 2), np.uint16) from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise invalid(f"Invalid PNG data, size {len(data)}") from e
    return np.asarray(image).view(">u2").astype(np.uint16)


def read_png16(data: bytes, header, compressed: bytes) -> np.ndarray:
    """A 16-bit gray+alpha or RGB(A) PNG's samples, [h, w, c] uint16, exactly."""
    if header[3] == 4:
        return _read_png16_gray_alpha(data, header)
    try:
        import pyspng
    except ImportError:
        return _read_png16_numpy(data, header, compressed)
    channels = _PNG_CHANNELS[header[3]]
    try:
        # pyspng has no RGB16 output format: libspng writes RGBA16 (alpha 65535), sliced
        pixels = pyspng.load(data)
    except MemoryError:
        raise out_of_memory(header[1::-1] + (4,), np.uint16) from None
    except Exception as e:  # libspng's errors arrive as RuntimeError
        raise invalid(f"Invalid PNG data, size {len(data)}") from e
    if pixels.shape[-1] != channels:  # RGB16 as RGBA16: one channel at a time is the
        rgb = allocate(pixels.shape[:-1] + (channels,), np.uint16)  # fastest copy (4x)
        for c in range(channels):
            rgb[..., c] = pixels[..., c]
        pixels = rgb
    return pixels


# ── GIF ──────────────────────────────────────────────────────────────────────────────
_GIF_READ_FAILED = "Failed to read from given file"
_GIF_EOF_TOO_SOON = "Image EOF detected before image complete"
_GIF_DEFECT = "Image is defective, decoding aborted"
_INT_MAX = 2**31 - 1


class _GifFrame:
    __slots__ = ("left", "top", "width", "height", "interlace", "color_map", "transparent",
                 "min_code", "start", "end")

    def __init__(self, **fields):
        for key, value in fields.items():
            setattr(self, key, value)


def _gif_sub_blocks_end(data: bytes, pos: int) -> int | None:
    """The offset after a chain of sub-blocks starting at ``pos``, or None if cut short."""
    size = len(data)
    while pos < size:
        length = data[pos]
        if length == 0:
            return pos + 1
        pos += 1 + length
    return None


def _gif_color_map(data: bytes, pos: int, flags: int):
    """(color map [n, 3] or None, position after it); None position if cut short."""
    if not flags & 0x80:
        return None, pos
    n = 2 << (flags & 7)
    if pos + 3 * n > len(data):
        return None, None
    return np.frombuffer(data, np.uint8, 3 * n, pos).reshape(n, 3), pos + 3 * n


def _gif_frames(data: bytes):
    """The frames giflib's DGifSlurp reads (descriptors and where their LZW data lies), and
    the error that stopped it (None at the trailer)."""
    fail = f"Invalid GIF data (size {len(data)}), "
    global_map, pos = (None, None) if len(data) < 13 else _gif_color_map(data, 13, data[10])
    if pos is None:
        raise invalid(fail + "failed to open gif file: No screen descriptor detected")
    frames, transparent, gce_seen, size = [], None, False, len(data)
    while True:
        if pos >= size:
            return frames, _GIF_READ_FAILED
        record, pos = data[pos], pos + 1
        if record == 0x3B:  # trailer
            return frames, None
        if record == 0x21:  # extension: a label, then sub-blocks
            if pos >= size:
                return frames, _GIF_READ_FAILED
            label, pos = data[pos], pos + 1
            end = _gif_sub_blocks_end(data, pos)
            if end is None:
                return frames, _GIF_READ_FAILED
            # the first graphic control extension before an image is the one giflib uses
            if label == 0xF9 and not gce_seen:
                gce_seen = True
                if data[pos] == 4 and pos + 5 <= size:
                    transparent = data[pos + 4] if data[pos + 1] & 1 else None
            pos = end
            continue
        if record != 0x2C:
            return frames, "Wrong record type detected"
        if pos + 9 > size:
            return frames, _GIF_READ_FAILED
        left, top, width, height, flags = struct.unpack_from("<HHHHB", data, pos)
        color_map, pos = _gif_color_map(data, pos + 9, flags)
        if pos is None or pos >= size or data[pos] > 8:
            return frames, _GIF_READ_FAILED
        min_code, pos = data[pos], pos + 1
        if width == 0 or height == 0 or width > _INT_MAX // height:
            return frames, "Unknown error"
        end = _gif_sub_blocks_end(data, pos)
        if end is None:
            return frames, _GIF_READ_FAILED
        frames.append(_GifFrame(
            left=left, top=top, width=width, height=height, interlace=bool(flags & 0x40),
            color_map=global_map if color_map is None else color_map,
            transparent=transparent, min_code=min_code, start=pos, end=end))
        pos, transparent, gce_seen = end, None, False


def _gif_indices(data: bytes, frame: _GifFrame, image_module) -> np.ndarray | str:
    """A frame's color indices [h, w] (Pillow's LZW decoder), or giflib's error."""
    # Each LZW code is at least min_code + 1 bits and yields at most 4096 pixels: data
    # that cannot fill the frame is refused before its buffer is allocated.
    codes = 8 * (frame.end - frame.start) // (frame.min_code + 1) + 1
    if frame.width * frame.height > 4096 * codes:
        return _GIF_EOF_TOO_SOON
    try:
        image = image_module.frombytes("P", (frame.width, frame.height),
                                       data[frame.start:frame.end], "gif", frame.min_code,
                                       int(frame.interlace))
    except MemoryError:
        raise out_of_memory((frame.height, frame.width), np.uint8) from None
    except ValueError as e:  # "not enough image data" or "cannot decode image data"
        return _GIF_EOF_TOO_SOON if "not enough" in str(e) else _GIF_DEFECT
    return np.asarray(image)


def read_gif(data: bytes, image_module, frames_wanted: str = "all") -> np.ndarray:
    """A GIF as TF's gif::Decode reads it: [frames, h, w, 3] uint8 (h and w the largest
    frame's). ``frames_wanted``: "all", "first" (decode_image without
    expand_animations) or "one" (decode_png and decode_jpeg: more frames are an error)."""
    fail = f"Invalid GIF data (size {len(data)}), "
    frames, error = _gif_frames(data)
    indices = []
    for frame in frames:
        decoded = _gif_indices(data, frame, image_module)
        if isinstance(decoded, str):
            error = decoded
            break
        # (with one frame wanted, later frames are still read: they set the size)
        indices.append(decoded if frames_wanted == "all" or not indices else None)
    frames = frames[:len(indices)]
    if not frames:
        raise invalid(fail + "failed to slurp gif file: "
                      + (error or "No Image Descriptor detected"))
    if frames_wanted == "one" and len(frames) > 1:
        raise invalid(f"Got {len(frames)} frames, but animated gifs can only be decoded by "
                      "tf.io.decode_gif or tf.io.decode_image")
    height = max(f.height for f in frames)
    width = max(f.width for f in frames)
    count = len(frames) if frames_wanted == "all" else 1
    out = allocate((count, height, width, 3), np.uint8)
    for k in range(count):
        frame = frames[k]
        if k > 0:
            out[k] = out[k - 1]
        elif (frame.left, frame.top, frame.width, frame.height) != (0, 0, width, height):
            out[0] = 0
        if frame.color_map is None:
            raise invalid(fail + f"missing color map for frame {k}")
        _paint_gif_frame(out, k, frame, indices[k], fail)
    return out


def _paint_gif_frame(out, k, frame, index, fail):
    """Paint frame ``k``'s color ``index`` array onto ``out[k]`` (clipped to the canvas;
    its transparent pixels show the frame before, or black in the first)."""
    height, width = out.shape[1:3]
    x1, y1 = min(frame.left + frame.width, width), min(frame.top + frame.height, height)
    if x1 <= frame.left or y1 <= frame.top:
        return
    index = index[:y1 - frame.top, :x1 - frame.left]
    keep = index == frame.transparent if frame.transparent is not None else None
    colors = len(frame.color_map)
    bad = index >= colors if keep is None else (index >= colors) & ~keep
    if bad.any():
        raise invalid(fail + f"found color index {index.flat[np.argmax(bad)]} outside "
                      f"of color map range {colors}")
    rgb = frame.color_map[np.minimum(index, colors - 1)]
    region = out[k, frame.top:y1, frame.left:x1]
    if keep is None:
        region[...] = rgb
    else:
        region[~keep] = rgb[~keep]
        if k == 0:
            region[keep] = 0


# ── BMP ──────────────────────────────────────────────────────────────────────────────
def bmp_check(data: bytes) -> None:
    """TF's refusals of a BMP header (decode_image_op.cc), in its order: among them, pixel
    rows that the file does not hold, so no reader allocates more than the file's size."""
    if len(data) < 32:
        raise invalid("Incomplete bmp content, requires at least 32 bytes to find the header "
                      f"size, width, height, and bpp, got {len(data)} bytes")
    header_size, = struct.unpack_from("<i", data, 10)
    width, height = struct.unpack_from("<ii", data, 18)
    bpp, = struct.unpack_from("<h", data, 28)
    channels = int(bpp / 8)  # C's division, toward zero
    if channels not in (1, 3, 4):
        raise invalid(f"Number of channels inherent in the image must be 1, 3 or 4, was "
                      f"{channels}")
    if width <= 0:
        raise invalid("Width must be positive")
    if height == 0:
        raise invalid("Height must be nonzero")
    if header_size < 0:
        raise invalid("header size must be nonnegative")
    if width * abs(height) >= _INT_MAX // 8:
        raise invalid("Total possible pixel bytes must be less than 2^30")
    size_diff = len(data) - header_size - (channels * width + 3) // 4 * 4 * abs(height)
    if size_diff != 0:
        raise invalid("Input size should match (header_size + row_size * abs_height) but "
                      f"they differ by {size_diff}")
