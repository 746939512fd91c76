"""tf.image's decoders on hostile and heavy images: time, memory and TF's answers.

``tests/fixtures/tf_image_codecs/bombs.json`` (written by ``make_bomb_fixtures.py`` under
real TF 2.21) records what TF returns for each file that module builds with zlib and
struct: small 16-bit PNGs with Sub, Average, Paeth and mixed row filters (interlaced
too), GIFs whose frames are tiny, offset, transparent, short or cut, and PNG, GIF and BMP
headers that declare far more pixels than the file holds. scopeflow must give the same
pixels or the same InvalidArgumentError message; the hostile ones must do so without
allocating what the header declares (checked in a subprocess under an address-space
limit), the 16-bit ones fast (a 1500 x 1500 one took 15 to 18 s before), and an image
past Pillow's decompression-bomb limit that TF decodes must decode.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_image_codecs"
BOMBS = json.loads((FIXTURES / "bombs.json").read_text())

HAVE_PIL = importlib.util.find_spec("PIL") is not None
HAVE_SPNG = importlib.util.find_spec("pyspng") is not None
pytestmark = pytest.mark.skipif(not HAVE_PIL, reason="Pillow not installed "
                                "(pip install scopeflow[image])")


def _load_builders():
    spec = importlib.util.spec_from_file_location("tf_image_bomb_cases",
                                                  FIXTURES / "make_bomb_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_builders()
OPS = {"image": tf.image.decode_image, "png": tf.image.decode_png, "gif": tf.image.decode_gif}


@pytest.fixture(params=["pyspng", "numpy"])
def png16_backend(request, monkeypatch):
    """16-bit RGB(A) PNGs through libspng (pyspng) and through the NumPy fallback."""
    if request.param == "pyspng" and not HAVE_SPNG:
        pytest.skip("pyspng not installed (pip install scopeflow[image])")
    if request.param == "numpy":
        monkeypatch.setitem(sys.modules, "pyspng", None)  # import pyspng -> ImportError
    return request.param


def _decode(key):
    op, kwargs, build = CASES.CASES[key]
    kw = {k: tf.as_dtype(v) if k == "dtype" else v for k, v in kwargs.items()}
    with tf.Session() as sess:
        return sess.run(OPS[op](build(), **kw))


def _check_like_tf(key, got=None, error=None):
    want = BOMBS[key]
    if "error" in want:
        # (scopeflow, like TF, appends the failing node on a line of its own)
        assert error is not None and error.split("\n")[0] == want["error"], \
            (key, error, got.shape if got is not None else None)
        return
    assert error is None, (key, error)
    assert list(got.shape) == want["shape"] and got.dtype.name == want["dtype"], key
    if want["values"] is not None:
        np.testing.assert_array_equal(got.reshape(-1), want["values"], err_msg=key)


# ── every recorded case, against TF ──────────────────────────────────────────────────
PNG16 = [k for k in BOMBS if k.startswith("png16_") and "error" not in BOMBS[k]]
OTHERS = [k for k in BOMBS if k not in PNG16]


@pytest.mark.parametrize("key", PNG16)
def test_png16_filters_match_tf(key, png16_backend):
    """Sub, Average, Paeth and mixed rows, plain and Adam7-interlaced (an interlaced
    16-bit PNG was narrowed to 8 bits before), in RGB, RGBA and gray+alpha."""
    _check_like_tf(key, _decode(key))


@pytest.mark.parametrize("key", OTHERS)
def test_hostile_and_odd_files_match_tf(key):
    try:
        got, error = _decode(key), None
    except tf.errors.InvalidArgumentError as e:
        got, error = None, e.message
    _check_like_tf(key, got, error)


# ── time: 16-bit filtered rows ───────────────────────────────────────────────────────
def test_png16_1500_square_decodes_fast_and_exact(png16_backend):
    """A 1500 x 1500 RGB16 PNG whose rows cycle through Paeth, Average and Sub: 15-18 s
    with the old per-byte Python loop, TF 0.06 s; the reference is the image itself
    (the test filters it forwards, sharing no code with the decoder)."""
    image = CASES.pixels16((1500, 1500, 3), seed=7)
    data = CASES.png16(image, [4, 3, 1], level=1)
    contents = tf.placeholder(tf.string, [])
    decoded = tf.image.decode_png(contents, dtype=tf.uint16)
    with tf.Session() as sess:
        start = time.perf_counter()
        got = sess.run(decoded, {contents: data})
        elapsed = time.perf_counter() - start
    np.testing.assert_array_equal(got, image)
    assert elapsed < 5.0, f"{png16_backend}: {elapsed:.2f} s"


# ── memory: headers that declare far more than the file holds ────────────────────────
HOSTILE = ["gif_tiny_frames_huge_screen", "gif_frame_2g_little_data", "png_huge_ihdr",
           "png_rgba16_little_data", "png_rgba8_little_data", "bmp_huge", "bmp_rows_missing"]
HEADROOM = 200 << 20  # address space the decoding may add to what the imports took


def test_hostile_headers_allocate_nothing_large():
    """Each file declares 0.5 to 3 GB of pixels (the GIF: 200 frames of a 2000 x 2000
    screen; before, 2.4 GB and a MemoryError after 10 s) in a few KB. Decoded in a
    subprocess whose address space is capped at 200 MB over what the imports took, each
    must give TF's answer, in well under a second."""
    script = textwrap.dedent(f"""
        import importlib.util, json, re, resource, sys, time
        import scopeflow as tf
        spec = importlib.util.spec_from_file_location(
            "cases", {str(FIXTURES / "make_bomb_fixtures.py")!r})
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        ops = {{"image": tf.image.decode_image, "png": tf.image.decode_png,
               "gif": tf.image.decode_gif}}
        built = {{}}
        for key in {HOSTILE!r}:
            op, kwargs, build = cases.CASES[key]
            kw = {{k: tf.as_dtype(v) if k == "dtype" else v for k, v in kwargs.items()}}
            built[key] = ops[op](build(), **kw)
        sess = tf.Session()
        used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read())[1])
        resource.setrlimit(resource.RLIMIT_AS, (used * 1024 + {HEADROOM}, -1))
        out = {{}}
        for key, tensor in built.items():
            start = time.perf_counter()
            try:
                value = sess.run(tensor)
                out[key] = {{"shape": list(value.shape), "values": value.reshape(-1).tolist()}}
            except tf.errors.InvalidArgumentError as e:
                out[key] = {{"error": e.message}}
            except (MemoryError, tf.errors.ResourceExhaustedError) as e:
                out[key] = {{"memory": repr(e)}}
            out[key]["seconds"] = time.perf_counter() - start
        print(json.dumps(out))
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in HOSTILE:
        got = results[key]
        assert "memory" not in got, (key, got)
        if "error" in got:
            _check_like_tf(key, error=got["error"])
        else:
            _check_like_tf(key, np.array(got["values"], np.uint8).reshape(got["shape"]))
        assert got["seconds"] < 1.0, (key, got["seconds"])


# ── Pillow's decompression-bomb limit is not TF's ────────────────────────────────────
def test_png_past_pillows_bomb_limit_decodes():
    """13,400 x 13,400 = 179.6 megapixels: over twice Pillow's MAX_IMAGE_PIXELS, where
    Image.open raises DecompressionBombError (reported before as "Failed to initialize
    decoder"), well under TF's 2**29. TF decodes it, so scopeflow must; Pillow's global
    limit must be left as it was."""
    from PIL import Image

    side = 13400
    limit = Image.MAX_IMAGE_PIXELS
    assert limit is not None and side * side > 2 * limit
    pattern = (np.arange(side) % 251).astype(np.uint8)
    squeeze = zlib.compressobj(6)
    row = b"\0" + pattern.tobytes()  # filter None
    idat = b"".join([squeeze.compress(row) for _ in range(side)] + [squeeze.flush()])
    data = CASES.png(side, side, 8, 0, b"")
    data = data[:33] + CASES.chunk(b"IDAT", idat) + CASES.chunk(b"IEND", b"")
    got = tf.Session().run(tf.image.decode_png(data))
    assert got.shape == (side, side, 1) and got.dtype == np.uint8
    for y in (0, side // 2, side - 1):
        np.testing.assert_array_equal(got[y, :, 0], pattern)
    assert Image.MAX_IMAGE_PIXELS == limit
