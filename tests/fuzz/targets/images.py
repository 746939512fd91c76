"""Image decoders: ``tf.image.decode_png``/``decode_jpeg``/``decode_gif``/``decode_bmp``
and ``decode_image``, run in a session on the fed bytes.

Seeds: the PNGs and JPEGs TF encoded in ``tests/fixtures/tf_image_codecs`` (8- and 16-bit,
gray to RGBA), scopeflow's own ``encode_png``/``encode_jpeg`` output (a 1024x1024 image of
each checks that a normal decode fits the memory limit; it is not mutated), and GIFs and
BMPs Pillow writes (scopeflow has no GIF or BMP encoder, nor has TF): palettes, an
animation with transparency and frames of different sizes, 1- to 32-bit BMPs, a top-down
BMP. The PNG fix-up recomputes every chunk's CRC so the damage reaches the decoder.

Accepted: ``InvalidArgumentError`` -- TF's class for every image it cannot decode ("Invalid
PNG data", "Invalid JPEG data or crop window", "Invalid GIF data", "PNG size too large
for int", ...); ``ResourceExhaustedError`` -- TF's class when the declared image cannot
be allocated ("OOM when allocating tensor").
"""

from __future__ import annotations

import base64
import io
import json
import struct
import zlib

import numpy as np

from .base import FIXTURES, Accept, Hostile, Seed, Target


def _smooth(h, w, c, dtype=np.uint8):
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 7 + y * 3 + k * 50) % 256 for k in range(c)], -1)
    if dtype == np.uint16:
        img = img * 257
    return img.astype(dtype)


def _pillow(image, fmt, **options) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


# ── PNG structure ────────────────────────────────────────────────────────────────────
def png_chunks(data: bytes):
    """``(offset, type, body)`` of each chunk (lenient: stops where the framing breaks)."""
    pos = 8
    while pos + 8 <= len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        kind = data[pos + 4:pos + 8]
        yield pos, kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def fix_png_crcs(data: bytes) -> bytes:
    out = bytearray(data)
    for pos, kind, body in png_chunks(data):
        end = pos + 8 + len(body)
        if end + 4 <= len(out):
            out[end:end + 4] = struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return bytes(out)


def png(width, height, depth, color, rows: bytes, extra=b"", interlace=0) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra +
            png_chunk(b"IDAT", rows) + png_chunk(b"IEND", b""))


def zeros_deflated(size: int, prefix: bytes = b"") -> bytes:
    """A zlib stream of ``prefix`` and ``size`` zeros (whole MiBs; about 1 KiB a MiB)."""
    from .records import bomb

    return bomb("ZLIB", size, prefix)


class _Image(Target):
    owner = "scopeflow/ops/image/image_codec_ops.py, ops/image/image_formats.py"
    known: dict = {}   # seed label -> {probe: error class TF raises on it too}
    timeout_s = 20.0

    def __init__(self, workdir):
        super().__init__(workdir)
        from scopeflow.framework import errors

        self.accepts = (
            Accept(errors.InvalidArgumentError, "TF's class for an image it cannot decode"),
            Accept(errors.ResourceExhaustedError, "TF's class for an image too large to "
                   "allocate"),
        )

    def prepare(self):
        import scopeflow as tf

        self.graph = tf.Graph()
        with self.graph.as_default():
            self.contents = tf.placeholder(tf.string, [])
            self.ops = self.decoders(tf, self.contents)
        self.sess = tf.Session(graph=self.graph)
        self.seeds = [Seed(label, data, self.boundaries(data), mutate=mutate,
                           known=self.known.get(label, {}))
                      for label, data, mutate in self.make_seeds()]

    def decoders(self, tf, contents):
        raise NotImplementedError

    def make_seeds(self):
        raise NotImplementedError

    def boundaries(self, data):
        return []

    def install(self, seed, data, fix):
        return data

    def probes(self):
        def run(op):
            def probe(seed, data):
                self.sess.run(op, {self.contents: data})
            return probe
        return [(name, run(op)) for name, op in self.ops]


def _tf_fixture(kind):
    cases = json.loads((FIXTURES / "tf_image_codecs" / "expected.json").read_text())[kind]
    return [(f"tf {name}", base64.b64decode(case[kind]), True) for name, case in cases.items()]


class PngTarget(_Image):
    name = "png"

    def decoders(self, tf, contents):
        return [("decode_png", tf.image.decode_png(contents)),
                ("decode_png uint16 rgba", tf.image.decode_png(contents, channels=4,
                                                               dtype=tf.uint16)),
                ("decode_image", tf.image.decode_image(contents))]

    def make_seeds(self):
        import PIL.Image

        import scopeflow as tf

        with tf.Graph().as_default(), tf.Session() as sess:
            ours = [(f"scopeflow {label}", sess.run(tf.image.encode_png(img)), True)
                    for label, img in [("gray8", _smooth(9, 7, 1)), ("rgb8", _smooth(8, 8, 3)),
                                       ("rgba16", _smooth(5, 6, 4, np.uint16)),
                                       ("graya8", _smooth(4, 5, 2))]]
            big = sess.run(tf.image.encode_png(_smooth(1024, 1024, 3)))
        palette = PIL.Image.fromarray(_smooth(6, 6, 3)).quantize(8)
        palette.info["transparency"] = 0
        return (_tf_fixture("png") + ours +
                [("pillow palette+tRNS", _pillow(palette, "PNG"), True),
                 ("scopeflow 1024x1024 rgb", big, False)])

    def boundaries(self, data):
        marks = [8]
        for pos, _, body in png_chunks(data):
            marks += [pos, pos + 4, pos + 8, pos + 8 + len(body), pos + 12 + len(body)]
            if body[:2] in (b"x\x9c", b"x\x01", b"x\xda", b"x^"):
                marks.append(pos + 10)
        return marks

    def fixup(self, seed, data):
        return fix_png_crcs(data)

    def hostile(self, long):
        row = b"\x00" + b"\x7f" * 4
        rows = zlib.compress(row * 4)
        out = [Hostile(label, data) for label, data in [
            ("100000x100000, 4 rows of data", png(100000, 100000, 8, 0, rows)),
            ("2**31-1 x 1", png(2**31 - 1, 1, 8, 0, rows)),
            ("2**32-1 x 2**32-1", png(2**32 - 1, 2**32 - 1, 8, 6, rows)),
            ("0 x 0", png(0, 0, 8, 0, rows)),
            ("1000001 x 1", png(1000001, 1, 8, 0, rows)),
            ("20000x20000 rgba16, 64 MiB of zeros", png(20000, 20000, 16, 6,
                                                         zeros_deflated(64 << 20))),
            ("4x4 gray, then 64 MiB more zeros", png(4, 4, 8, 0,
                                                     zeros_deflated(64 << 20, row * 4))),
            ("4x4 rgba16, then 64 MiB more zeros", png(4, 4, 16, 6, zeros_deflated(
                64 << 20, (b"\x00" + bytes(32)) * 4))),
            ("bit depth 3", png(4, 4, 3, 0, rows)),
            ("color type 5", png(4, 4, 8, 5, rows)),
            ("interlace method 2", png(4, 4, 8, 0, rows, interlace=2)),
            ("filter type 9 rows", png(4, 4, 8, 0, zlib.compress(b"\x09" + b"\x7f" * 4) * 4)),
            ("Adam7, short data", png(64, 64, 16, 6, zlib.compress(b"\x00" * 100), interlace=1)),
            ("palette image, no PLTE", png(4, 4, 8, 3, rows)),
            ("palette index past PLTE", png(4, 4, 8, 3, rows, png_chunk(b"PLTE", b"\0\0\0"))),
            ("PLTE of 1000 entries", png(4, 4, 8, 3, rows, png_chunk(b"PLTE", bytes(3000)))),
            ("tRNS longer than PLTE", png(4, 4, 8, 3, rows, png_chunk(b"PLTE", bytes(6)) +
                                          png_chunk(b"tRNS", bytes(300)))),
            ("10000 empty IDATs", png(4, 4, 8, 0, b"", png_chunk(b"IDAT", b"") * 10000)),
            ("unknown critical chunk", png(4, 4, 8, 0, rows, png_chunk(b"ABCD", b"x"))),
            ("chunk length 2**31-1", b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 2**31 - 1) +
             b"IHDR" + bytes(13)),
            ("signature only", b"\x89PNG\r\n\x1a\n"),
            ("no IEND", png(4, 4, 8, 0, rows)[:-12]),
        ]]
        if long:
            # An honest 16-bit image of 2**28 pixels (TF decodes it: 2 GiB of output).
            out.append(Hostile("16384x16384 gray16, honest zeros", png(
                16384, 16384, 16, 0, zeros_deflated(((16384 * 32769 >> 20) + 1) << 20)),
                long_only=True))
        return out


class JpegTarget(_Image):
    name = "jpeg"

    def decoders(self, tf, contents):
        return [("decode_jpeg", tf.image.decode_jpeg(contents)),
                ("decode_jpeg ratio 2 gray", tf.image.decode_jpeg(contents, channels=1,
                                                                  ratio=2)),
                ("decode_image", tf.image.decode_image(contents))]

    def make_seeds(self):
        import PIL.Image

        import scopeflow as tf

        with tf.Graph().as_default(), tf.Session() as sess:
            ours = [("scopeflow rgb q90", sess.run(tf.image.encode_jpeg(_smooth(16, 24, 3),
                                                                       quality=90)), True),
                    ("scopeflow gray progressive", sess.run(tf.image.encode_jpeg(
                        _smooth(17, 9, 1), progressive=True)), True)]
            big = sess.run(tf.image.encode_jpeg(_smooth(1024, 1024, 3)))
        cmyk = _pillow(PIL.Image.fromarray(_smooth(8, 8, 3)).convert("CMYK"), "JPEG")
        return _tf_fixture("jpeg") + ours + [("pillow cmyk", cmyk, True),
                                             ("scopeflow 1024x1024", big, False)]

    def boundaries(self, data):
        return [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] != 0][:200]

    def hostile(self, long):
        base = self.seeds[0].data
        sof = next((i for i in range(len(base) - 1) if base[i] == 0xFF and base[i + 1] in
                    (0xC0, 0xC1, 0xC2)), None)
        out = []
        if sof is not None:
            for h, w in ((65500, 65500), (16384, 16384), (0, 0), (1, 65535)):
                bad = bytearray(base)
                bad[sof + 5:sof + 9] = struct.pack(">HH", h, w)
                out.append(Hostile(f"SOF {h}x{w}", bytes(bad), long_only=h == 16384))
            bad = bytearray(base)
            bad[sof + 4] = 12
            out.append(Hostile("12-bit precision", bytes(bad)))
            bad = bytearray(base)
            bad[sof + 9] = 0
            out.append(Hostile("0 components", bytes(bad)))
        prog = self.seeds[[s.label for s in self.seeds].index("scopeflow gray progressive")].data
        sos = [i for i in range(len(prog) - 1) if prog[i] == 0xFF and prog[i + 1] == 0xDA]
        if sos:
            last = prog[sos[-1]:-2]
            out.append(Hostile("progressive, last scan repeated 2000 times",
                               prog[:-2] + last * 2000 + b"\xff\xd9"))
        out += [Hostile("SOI only", b"\xff\xd8"), Hostile("SOI+EOI", b"\xff\xd8\xff\xd9"),
                Hostile("markers of 0xff", b"\xff\xd8" + b"\xff" * 100000),
                Hostile("10000 APP1 segments", b"\xff\xd8" + b"\xff\xe1\x00\x04ab" * 10000 +
                        base[2:])]
        return out


class GifTarget(_Image):
    name = "gif"

    def decoders(self, tf, contents):
        return [("decode_gif", tf.image.decode_gif(contents)),
                ("decode_image", tf.image.decode_image(contents))]

    def make_seeds(self):
        import PIL.Image

        still = PIL.Image.fromarray(_smooth(10, 12, 3)).quantize(16)
        frames = [PIL.Image.fromarray(_smooth(h, w, 3)).quantize(8)
                  for h, w in ((8, 8), (8, 8), (8, 8))]
        anim = _pillow(frames[0], "GIF", save_all=True, append_images=frames[1:],
                       duration=10, loop=0, transparency=0, disposal=2)
        return [("pillow still", _pillow(still, "GIF"), True),
                ("pillow interlaced", _pillow(still, "GIF", interlace=True), True),
                ("pillow animation", anim, True),
                ("pillow gray", _pillow(PIL.Image.fromarray(_smooth(5, 5, 1)[..., 0]), "GIF"),
                 True)]

    def boundaries(self, data):
        return [0, 6, 10, 11, 13] + [i for i, b in enumerate(data) if b in (0x2C, 0x21)][:100]

    def hostile(self, long):
        import PIL.Image

        solid = _pillow(PIL.Image.new("P", (500, 500), 1), "GIF")
        head, frame = _gif_split(solid)
        tiny_head, tiny = _gif_split(_pillow(PIL.Image.new("P", (1, 1), 1), "GIF"))
        many = 20000 if long else 2000
        out = [
            Hostile("logical screen 65535x65535, 1x1 frame",
                    tiny_head[:6] + b"\xff\xff\xff\xff" + tiny_head[10:] + tiny + b";"),
            Hostile("frame 65535x65535, tiny data",
                    tiny_head + tiny[:5] + b"\xff\xff\xff\xff" + tiny[9:] + b";"),
            Hostile("frame at 65000,65000", tiny_head + tiny[:1] + b"\xe8\xfd\xe8\xfd" +
                    tiny[5:] + b";"),
            Hostile("300 frames of 500x500", head + frame * 300 + b";", long_only=True),
            Hostile("20 frames of 500x500", head + frame * 20 + b";"),
            Hostile(f"{many} frames of 1x1", tiny_head + tiny * many + b";"),
            Hostile("LZW min code size 12", tiny_head + tiny[:10] + b"\x0c" + tiny[11:] + b";"),
            Hostile("no frames", tiny_head + b";"), Hostile("header only", b"GIF89a"),
            Hostile("no trailer", tiny_head + tiny),
            Hostile("extension of 100000 sub-blocks", tiny_head + b"\x21\xfe" +
                    b"\xff" + b"x" * 255 + (b"\xff" + b"x" * 255) * 100000 + b"\x00" + tiny + b";"),
        ]
        if long:
            out.append(Hostile("2000 frames of 500x500 (1.5 GB decoded)",
                               head + frame * 2000 + b";", long_only=True))
        return out


def _gif_split(data: bytes):
    """``(header with global palette, one frame's descriptor and data)`` of a one-frame
    GIF (its trailer dropped)."""
    flags = data[10]
    start = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    return data[:start], data[start:-1]


class BmpTarget(_Image):
    name = "bmp"

    def decoders(self, tf, contents):
        return [("decode_bmp", tf.image.decode_bmp(contents)),
                ("decode_image", tf.image.decode_image(contents))]

    def make_seeds(self):
        import PIL.Image

        rgb = _pillow(PIL.Image.fromarray(_smooth(5, 7, 3)), "BMP")
        seeds = [("pillow rgb24", rgb, True),
                 ("pillow rgba32", _pillow(PIL.Image.fromarray(_smooth(4, 3, 4)), "BMP"), True),
                 ("pillow palette8", _pillow(PIL.Image.fromarray(_smooth(6, 5, 3)).quantize(16),
                                             "BMP"), True),
                 ("pillow gray8", _pillow(PIL.Image.fromarray(_smooth(3, 9, 1)[..., 0]), "BMP"),
                  True),
                 ("pillow 1-bit", _pillow(PIL.Image.fromarray(_smooth(8, 8, 1)[..., 0] > 100),
                                          "BMP"), True)]
        seeds.append(("top-down rgb24", _top_down(rgb), True))
        return seeds

    # TF's DecodeBmp reads 8-, 24- and 32-bit pixels only; a 1-bit BMP is refused there too.
    known = {"pillow 1-bit": {"decode_bmp": "InvalidArgumentError",
                              "decode_image": "InvalidArgumentError"}}

    def boundaries(self, data):
        return [0, 2, 6, 10, 14, 18, 22, 26, 28, 30, 34, 38, 46, 50, 54,
                int.from_bytes(data[10:14], "little") if len(data) >= 14 else 0]

    def hostile(self, long):
        base = self.seeds[0].data

        def header(**fields):
            offsets = {"offset": (10, "<I"), "size": (14, "<I"), "width": (18, "<i"),
                       "height": (22, "<i"), "planes": (26, "<H"), "bpp": (28, "<H"),
                       "compression": (30, "<I"), "colors": (46, "<I")}
            bad = bytearray(base)
            for name, value in fields.items():
                pos, fmt = offsets[name]
                struct.pack_into(fmt, bad, pos, value)
            return bytes(bad)
        cases = [("width 2**31-1", header(width=2**31 - 1)), ("width -5", header(width=-5)),
                 ("height -2**31", header(height=-2**31)), ("height 2**31-1", header(height=2**31 - 1)),
                 ("65535 x 65535", header(width=65535, height=65535)),
                 ("0 x 0", header(width=0, height=0)),
                 ("bpp 0", header(bpp=0)), ("bpp 7", header(bpp=7)), ("bpp 64", header(bpp=64)),
                 ("bpp 32 of a 24-bit file", header(bpp=32)), ("bpp 8, no palette", header(bpp=8)),
                 ("RLE8", header(compression=1)), ("bitfields", header(compression=3)),
                 ("compression 99", header(compression=99)),
                 ("colors 2**32-1", header(colors=2**32 - 1)),
                 ("data offset past the end", header(offset=2**31 - 1)),
                 ("data offset 0", header(offset=0)),
                 ("header size 2**31", header(size=2**31)), ("header size 0", header(size=0)),
                 ("file header only", base[:14])]
        return [Hostile(label, data) for label, data in cases]


def _top_down(bmp: bytes) -> bytes:
    """A bottom-up 24-bit BMP rewritten top-down (negative height, rows reversed)."""
    offset = int.from_bytes(bmp[10:14], "little")
    width, height = struct.unpack_from("<ii", bmp, 18)
    stride = (width * 3 + 3) & ~3
    rows = [bmp[offset + i * stride:offset + (i + 1) * stride] for i in range(height)]
    out = bytearray(bmp[:offset] + b"".join(reversed(rows)))
    struct.pack_into("<i", out, 22, -height)
    return bytes(out)


TARGETS = {t.name: t for t in (PngTarget, JpegTarget, GifTarget, BmpTarget)}
