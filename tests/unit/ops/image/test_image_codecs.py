"""tf.image's codecs against TensorFlow.

``tests/fixtures/tf_image_codecs/expected.json`` (written by ``make_fixtures.py`` under
real TF 2.21) holds tiny PNGs and JPEGs as TF encodes them and the pixels TF decodes from
them. PNG decoding must match TF exactly, for every ``channels`` (0, 1, 3, 4) and dtype
(uint8, uint16, float32). JPEG pixels depend on the libjpeg build (IDCT and chroma
upsampling): Pillow's and TF's libjpeg-turbo may differ by a unit or two, so JPEG is
compared with a tolerance of 2 (``JPEG_ATOL``). Live tests (the ``tf1`` fixture) have
TF decode what scopeflow encodes, and compare GIF and BMP decoding.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.image import image_codec_ops

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_image_codecs"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
JPEG_ATOL = 2   # Pillow's libjpeg vs TF's libjpeg-turbo, per pixel (measured: at most 2)

HAVE_PIL = importlib.util.find_spec("PIL") is not None
needs_pil = pytest.mark.skipif(not HAVE_PIL, reason="Pillow not installed "
                               "(pip install scopeflow[image])")


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_image_codec_cases",
                                                  FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def _pil_encode(image, fmt, **kw) -> bytes:
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, fmt, **kw)
    return out.getvalue()


# ── PNG: exact ───────────────────────────────────────────────────────────────────────
PNG_DECODES = [(key, what) for key, case in EXPECTED["png"].items()
               for what in case["decoded"]]


@needs_pil
@pytest.mark.parametrize("key,what", PNG_DECODES, ids=[f"{k}-{w}" for k, w in PNG_DECODES])
def test_decode_png_matches_tf_exactly(key, what):
    case = EXPECTED["png"][key]
    png = base64.b64decode(case["png"])
    if what == "image_float32":
        out = tf.image.decode_image(png, dtype=tf.float32)
        want = np.array(case["decoded"][what], np.float32)
    else:
        channels, dtype = what.split("_")
        out = tf.image.decode_png(png, channels=int(channels), dtype=dtype)
        want = np.array(case["decoded"][what], dtype)
        assert out.shape.as_list() == [None, None, int(channels) or None]
    got = _run(out)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@needs_pil
@pytest.mark.parametrize("key", list(CASES.PNG_IMAGES))
def test_encode_png_round_trips_losslessly(key):
    shape, dtype = CASES.PNG_IMAGES[key]
    image = CASES.pixels(shape, np.dtype(dtype), seed=len(key))
    pngs = [tf.image.encode_png(image, compression=c) for c in (-1, 0, 9)]
    decoded = [tf.image.decode_png(png, dtype=dtype) for png in pngs]
    with tf.Session() as sess:
        files, images = sess.run([pngs, decoded])
    for png, back in zip(files, images):
        assert isinstance(png, bytes) and png.startswith(b"\x89PNG")
        np.testing.assert_array_equal(back, image)


def test_encode_png_static_shape_and_errors():
    png = tf.image.encode_png(tf.zeros([2, 2, 3], tf.uint8))
    assert png.dtype == tf.string and png.shape.as_list() == []
    assert png.op.type == "EncodePng" and png.op.get_attr("compression") == -1
    with pytest.raises(TypeError):
        tf.image.encode_png(tf.zeros([2, 2, 3], tf.float32))
    with pytest.raises(ValueError, match="rank 3"):
        tf.image.encode_png(tf.zeros([2, 2], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="image must have 1, 2, 3, or 4 channels, got 5"):
        _run(tf.image.encode_png(tf.zeros([2, 2, 5], tf.uint8)))


# ── JPEG: within libjpeg's rounding ──────────────────────────────────────────────────
JPEG_DECODES = [(key, what) for key, case in EXPECTED["jpeg"].items()
                for what in case["decoded"]]


@needs_pil
@pytest.mark.parametrize("key,what", JPEG_DECODES, ids=[f"{k}-{w}" for k, w in JPEG_DECODES])
def test_decode_jpeg_close_to_tf(key, what):
    jpeg = base64.b64decode(EXPECTED["jpeg"][key]["jpeg"])
    want = np.array(EXPECTED["jpeg"][key]["decoded"][what], np.uint8)
    out = tf.image.decode_jpeg(jpeg, ratio=2) if what == "ratio2" else \
        tf.image.decode_jpeg(jpeg, channels=int(what))
    got = _run(out)
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_allclose(got.astype(int), want.astype(int), atol=JPEG_ATOL)


@needs_pil
def test_encode_jpeg_round_trip_and_attrs():
    image = CASES.smooth((8, 8, 3))
    data = tf.image.encode_jpeg(image, quality=95)
    assert data.op.type == "EncodeJpeg" and data.op.get_attr("quality") == 95
    assert data.op.get_attr("chroma_downsampling") is True
    jpeg = _run(data)
    assert jpeg[:3] == b"\xff\xd8\xff"
    np.testing.assert_allclose(_run(tf.image.decode_jpeg(jpeg)).astype(int), image, atol=6)
    gray = _run(tf.image.encode_jpeg(image[..., :1], format="grayscale"))
    assert _run(tf.image.decode_jpeg(gray)).shape == (8, 8, 1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"image must have 1 or 3 channels, got \[2,2,2\]"):
        _run(tf.image.encode_jpeg(tf.zeros([2, 2, 2], tf.uint8)))


# ── decode_image, GIF, BMP ───────────────────────────────────────────────────────────
@needs_pil
def test_decode_image_dispatches_by_magic_bytes():
    rgb = CASES.pixels((3, 4, 3), np.uint8, seed=5)
    png = _run(tf.image.encode_png(rgb))
    bmp = _pil_encode(rgb, "BMP")
    gif = _pil_encode(np.full((3, 4, 3), [0, 255, 0], np.uint8), "GIF")
    jpeg = _run(tf.image.encode_jpeg(CASES.smooth((8, 8, 3))))
    contents = tf.placeholder(tf.string, [])
    image = tf.image.decode_image(contents)
    assert image.op.type == "DecodeImage" and image.shape.ndims is None
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(image, {contents: png}), rgb)
        np.testing.assert_array_equal(sess.run(image, {contents: bmp}), rgb)
        assert sess.run(image, {contents: gif}).shape == (1, 3, 4, 3)
        assert sess.run(image, {contents: jpeg}).shape == (8, 8, 3)
    still = tf.image.decode_image(gif, expand_animations=False, channels=3)
    assert still.shape.as_list() == [None, None, 3]
    np.testing.assert_array_equal(_run(still), np.full((3, 4, 3), [0, 255, 0]))
    # decode_png and decode_jpeg read any format too, as TF 2's kernels
    np.testing.assert_array_equal(_run(tf.image.decode_jpeg(png)), rgb)
    assert _run(tf.image.decode_gif(png)).shape == (1, 3, 4, 3)


@needs_pil
def test_decode_image_other_dtypes_convert_from_uint16():
    rgb16 = CASES.pixels((2, 3, 3), np.uint16, seed=9)
    png = _run(tf.image.encode_png(rgb16))
    got = _run(tf.image.decode_image(png, dtype=tf.int32))
    np.testing.assert_array_equal(got, rgb16.astype(np.int64) * 32768)
    got = _run(tf.image.decode_image(png, dtype=tf.uint8))
    np.testing.assert_array_equal(got, (rgb16 >> 8).astype(np.uint8))


def test_static_shapes_and_attrs():
    s = tf.placeholder(tf.string)
    assert tf.image.decode_png(s, channels=3).shape.as_list() == [None, None, 3]
    assert tf.image.decode_png(s, dtype=tf.uint16).dtype == tf.uint16
    assert tf.image.decode_jpeg(s).shape.as_list() == [None, None, None]
    assert tf.image.decode_gif(s).shape.as_list() == [None, None, None, 3]
    assert tf.image.decode_bmp(s, channels=4).shape.as_list() == [None, None, 4]
    op = tf.image.decode_jpeg(s).op
    assert (op.get_attr("ratio"), op.get_attr("dct_method")) == (1, "")
    with pytest.raises(TypeError):
        tf.image.decode_png(s, dtype=tf.float32)
    with pytest.raises(ValueError, match="rank 0"):
        tf.image.decode_png(tf.placeholder(tf.string, [2]))


@needs_pil
@pytest.mark.parametrize("build,data,message", [
    (tf.image.decode_png, b"", "Input is empty."),
    (tf.image.decode_jpeg, b"abcdefgh", "Unknown image file format. One of JPEG"),
    (tf.image.decode_image, b"abcdefgh", "Unknown image file format. One of JPEG"),
    (tf.image.decode_gif, b"", "Input is empty."),
    (tf.image.decode_bmp, b"\x89PNG\r\n\x1a\n", "Trying to decode PNG format using DecodeBmp"),
    (tf.image.decode_png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "Invalid PNG"),
    (tf.image.decode_jpeg, b"\xff\xd8\xff\xe0garbage", "Invalid JPEG data or crop window"),
    (lambda s: tf.image.decode_png(s, channels=2), b"\x89PNG",
     "`channels` must be 0, 1, 3 or 4 but got 2"),
    (lambda s: tf.image.decode_jpeg(s, channels=4), b"\xff\xd8\xff",
     "JPEG does not support 4 channels"),
    (lambda s: tf.image.decode_jpeg(s, ratio=3), b"\xff\xd8\xff",
     "ratio must be 1, 2, 4, or 8, got 3"),
])
def test_bad_data_raises_tfs_errors(build, data, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("[", r"\[")):
        _run(build(data))


def test_missing_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"pip install scopeflow\[image\]"):
        image_codec_ops._pillow()
    png = _run(tf.image.encode_png(np.zeros((1, 1, 1), np.uint8)))  # no Pillow needed
    assert png.startswith(b"\x89PNG")
    for build in (tf.image.decode_jpeg, tf.image.decode_png, tf.image.decode_image):
        with pytest.raises(ImportError, match=r"pip install scopeflow\[image\]"):
            build(png)
    with pytest.raises(ImportError, match=r"pip install scopeflow\[image\]"):
        tf.image.encode_jpeg(np.zeros((1, 1, 3), np.uint8))


# ── live: TF decodes scopeflow's files, and both decode Pillow's GIF and BMP ─────────
@needs_pil
@pytest.mark.tf
def test_tf_decodes_scopeflow_files_and_gif_bmp_agree(tf1):
    rgb = CASES.pixels((3, 4, 3), np.uint8, seed=11)
    rgba16 = CASES.pixels((2, 3, 4), np.uint16, seed=12)
    files = {
        "png8": _run(tf.image.encode_png(rgb)),
        "png16": _run(tf.image.encode_png(rgba16)),
        "jpeg": _run(tf.image.encode_jpeg(CASES.smooth((8, 8, 3)))),
        "bmp": _pil_encode(rgb, "BMP"),
        "bmpa": _pil_encode(CASES.pixels((2, 3, 4), np.uint8, seed=4), "BMP"),
        "gif": _pil_encode(np.repeat(np.arange(0, 240, 20, dtype=np.uint8), 3)
                           .reshape(3, 4, 3), "GIF"),
    }
    encoded = {k: base64.b64encode(v).decode() for k, v in files.items()}
    got = tf1(f"""
        import base64
        files = {{k: base64.b64decode(v) for k, v in {encoded!r}.items()}}
        s = tf.Session()
        out = {{}}
        for key, data in files.items():
            dtype = tf.uint16 if key == "png16" else tf.uint8
            out[key] = s.run(tf.image.decode_image(data, dtype=dtype)).tolist()
        out["gif_frames"] = s.run(tf.image.decode_gif(files["gif"])).tolist()
        print(json.dumps(out))
    """)
    np.testing.assert_array_equal(np.array(got["png8"]), rgb)
    np.testing.assert_array_equal(np.array(got["png16"]), rgba16)
    assert np.abs(np.array(got["jpeg"]) - CASES.smooth((8, 8, 3)).astype(int)).max() <= 6
    keys = ("bmp", "bmpa", "gif")
    mine = _run([tf.image.decode_image(files[key]) for key in keys] +  # built once
                [tf.image.decode_gif(files["gif"])])
    for key, value in zip(keys, mine):
        np.testing.assert_array_equal(value, np.array(got[key]), err_msg=key)
    np.testing.assert_array_equal(mine[-1], np.array(got["gif_frames"]))


@needs_pil
@pytest.mark.tf
def test_palette_and_low_depth_pngs_match_tf(tf1):
    """PNG kinds TF cannot write, written by Pillow: palettes (with and without a tRNS
    alpha) and 1-bit gray; TF's odd alpha for low depths included."""
    from PIL import Image

    def save(image, **kw):
        out = io.BytesIO()
        image.save(out, "PNG", **kw)
        return out.getvalue()

    rgb = CASES.pixels((3, 4, 3), np.uint8, seed=21)
    bits = CASES.pixels((3, 9), np.uint8, seed=22) > 127
    files = {"palette": save(Image.fromarray(rgb).quantize(5)),
             "palette_trns": save(Image.fromarray(rgb).quantize(5), transparency=2),
             "bit1": save(Image.fromarray(bits))}
    encoded = {k: base64.b64encode(v).decode() for k, v in files.items()}
    want = tf1(f"""
        import base64
        s = tf.Session()
        out = {{}}
        for key, data in {encoded!r}.items():
            for c in (0, 1, 3, 4):
                image = tf.image.decode_png(base64.b64decode(data), channels=c)
                out[f"{{key}}{{c}}"] = s.run(image).tolist()
        print(json.dumps(out))
    """)
    contents = tf.placeholder(tf.string, [])
    outs = {c: tf.image.decode_png(contents, channels=c) for c in (0, 1, 3, 4)}
    with tf.Session() as sess:
        for key, data in files.items():
            for c, out in outs.items():
                np.testing.assert_array_equal(sess.run(out, {contents: data}),
                                              np.array(want[f"{key}{c}"]), err_msg=f"{key}{c}")
