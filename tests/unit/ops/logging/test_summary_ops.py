"""Summary ops against TensorFlow 2.21's serialized Summaries (tests/fixtures/tf_summaries)."""

from __future__ import annotations

import json
import struct
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.logging.summary_ops import TF_HISTOGRAM_LIMITS, histogram_proto

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_summaries"
sys.path.insert(0, str(FIXTURES))
import make_fixtures  # noqa: E402

EXPECTED = json.loads((FIXTURES / "summaries.json").read_text())
_PIXELS_ONLY = {"image_gray_u8", "image_rgb_f32", "image_rgba_u8", "image_pos_f32"}


def decode_png(data: bytes) -> np.ndarray:
    """8-bit non-interlaced PNG -> [h, w, c] (all five row filters)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color_type, _, _, interlace = header
    assert depth == 8 and interlace == 0
    c = {0: 1, 4: 2, 2: 3, 6: 4}[color_type]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * c)
    out = np.zeros((h, w * c), np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        prev = out[y - 1] if y else np.zeros(w * c, np.int32)
        row = np.zeros(w * c, np.int32)
        for x in range(w * c):
            a = row[x - c] if x >= c else 0
            b, cc = prev[x], (prev[x - c] if x >= c else 0)
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                p = a + b - cc
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
            row[x] = (line[x] + pred) & 0xFF
        out[y] = row
    return out.reshape(h, w, c).astype(np.uint8)


def _run(build):
    with tf.Graph().as_default():
        t = build(tf)
        return t, tf.Session().run(t)


@pytest.mark.parametrize("case_id", sorted(make_fixtures.SUMMARY_CASES))
def test_summary_matches_tensorflow(case_id):
    t, got = _run(make_fixtures.SUMMARY_CASES[case_id])
    want = EXPECTED["cases"][case_id]
    assert (t.op.name, t.op.type) == (want["name"], want["type"])
    assert isinstance(got, bytes)
    if case_id not in _PIXELS_ONLY:
        assert got.hex() == want["hex"]
        return
    # PNG bytes depend on libpng's filter choice and zlib settings; pixels must be equal.
    ours, theirs = tf.Summary.FromString(got), tf.Summary.FromString(bytes.fromhex(want["hex"]))
    assert [v.tag for v in ours.value] == [v.tag for v in theirs.value]
    for a, b in zip(ours.value, theirs.value):
        assert (a.image.height, a.image.width, a.image.colorspace) == \
            (b.image.height, b.image.width, b.image.colorspace)
        np.testing.assert_array_equal(decode_png(a.image.encoded_image_string),
                                      decode_png(b.image.encoded_image_string))


def test_names_tags_and_collections_as_tensorflow():
    want = EXPECTED["names"]
    with tf.Graph().as_default():
        with tf.name_scope("summaries"):
            s = [tf.summary.scalar("loss", tf.constant(1.0)),
                 tf.summary.scalar("loss", tf.constant(2.0)),
                 tf.summary.histogram("histogram loss", tf.constant(1.0)),
                 tf.summary.scalar("x", tf.constant(1.0), family="fam")]
        s.append(tf.summary.scalar("top", tf.constant(1.0)))
        m = tf.summary.merge_all()
        assert [[t.op.name, t.op.type] for t in s] + [[m.op.name, m.op.type]] == want["ops"]
        assert [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)] == want["collection"]
        merged = tf.Summary.FromString(tf.Session().run(m))
        assert [v.tag for v in merged.value] == want["tags"]
        assert repr(tf.summary.merge_all("no_such_key")) == want["merge_all_empty"]
        scoped = tf.Session().run(tf.summary.merge_all(scope="summaries"))
        assert len(tf.Summary.FromString(scoped).value) == want["merge_all_scope"]
        assert tf.get_default_graph().get_operation_by_name("summaries/loss/tags").type == \
            "Const"


def test_duplicate_tag_in_merge_fails_as_tensorflow():
    want = EXPECTED["names"]
    with tf.Graph().as_default():
        a = tf.summary.scalar("same", tf.constant(1.0))
        with tf.name_scope("other"):
            pass
        tf.summary.scalar("same", tf.constant(2.0), collections=["mine"])
        m = tf.summary.merge([a, tf.identity(a)])
        assert [t.name for t in tf.get_collection("mine")] == want["custom_collection"]
        assert [t.name for t in tf.get_collection("summaries")] == want["default_collection"]
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.Session().run(m)
    assert want["duplicate_error"][0] == "InvalidArgumentError"
    assert "Duplicate tag same found in summary inputs" in want["duplicate_error"][1]
    assert "Duplicate tag same found in summary inputs" in info.value.message
    assert "Merge/MergeSummary" in info.value.message


def test_histogram_limits_are_tf1_default_edges():
    lim = TF_HISTOGRAM_LIMITS
    assert lim.size == 1551 and lim[775] == 0.0 and lim[776] == 1e-12
    assert lim[-1] == np.finfo(np.float64).max and np.all(np.diff(lim) > 0)
    np.testing.assert_array_equal(lim[:775], -lim[776:][::-1])


def test_histogram_nan_inf_fails_the_run_as_tf():
    """TF 2.21: the first non-finite value (in element order) decides the wording, and the
    op's name is given (not the tag: with a family the two differ)."""
    x = tf.placeholder(tf.float32, [None])
    h = tf.summary.histogram("h", x, family="fam")
    values = np.array([1.0, np.nan, 2.0, np.inf, -np.inf, np.nan, 3.0], np.float32)
    sess = tf.Session()
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(h, {x: values})
    assert str(info.value).startswith("Nan in summary histogram for: fam/h\n\t [[node fam/h "
                                      "(HistogramSummary) defined at ")
    assert info.value.op is h.op and __file__ in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Infinity in Histogram for: fam/h\n"):
        sess.run(h, {x: values[3:]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Infinity in Histogram for"):
        sess.run(h, {x: values[4:5]})  # -Inf too


def test_histogram_nonfinite_policy_warn_and_ignore():
    x = tf.placeholder(tf.float32, [None])
    h = tf.summary.histogram("h", x)
    values = np.array([1.0, np.nan, 2.0, np.inf, -np.inf, np.nan, 3.0], np.float32)
    old = tf.summary.set_nonfinite_histogram_policy("warn")
    try:
        with pytest.warns(tf.summary.NonFiniteHistogramWarning,
                          match=r"'h': 2 NaN, 1 \+Inf and 1 -Inf values of 7"):
            out = tf.Session().run(h, {x: values})
        (v,) = tf.Summary.FromString(out).value
        assert v.histo == histogram_proto([1.0, 2.0, 3.0])
        tf.summary.set_nonfinite_histogram_policy("ignore")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert tf.Session().run(h, {x: values}) == out
    finally:
        assert tf.summary.set_nonfinite_histogram_policy(old) == "ignore"
    assert old == "raise"  # the default
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.Session().run(h, {x: values[:1]})  # finite: no warning, no error


def test_histogram_is_vectorised_and_fast():
    import time
    x = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    start = time.perf_counter()
    h = histogram_proto(x)
    assert time.perf_counter() - start < 2.0
    assert h.num == 1e6 and sum(h.bucket) == 1e6


def test_image_float_nonfinite_pixels_get_bad_color():
    img = np.zeros((1, 2, 2, 3), np.float32)
    img[0, 0, 0] = [1.0, 0.5, 0.0]
    img[0, 1, 1, 2] = np.nan
    s = tf.Session().run(tf.summary.image("im", tf.constant(img)))
    (v,) = tf.Summary.FromString(s).value
    px = decode_png(v.image.encoded_image_string)
    np.testing.assert_array_equal(px[0, 0], [255, 127, 0])
    np.testing.assert_array_equal(px[1, 1], [255, 0, 0])
    assert v.tag == "im/image/0"


def test_scalar_summary_shape_errors():
    s = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="tags and values are not the same "
                       "shape"):
        tf.Session().run(s)
    with pytest.raises(TypeError):
        tf.summary.scalar("s", tf.constant("text"))
    with pytest.raises(ValueError, match="Expected tensor .* to have dtype string"):
        tf.summary.text("t", tf.constant(1.0))


def test_summary_message_api():
    s = tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.5)])
    assert s.SerializeToString().hex() == "0a080a0161150000c03f"
    e = tf.Event(wall_time=1.0, step=3, summary=s)
    assert tf.Event.FromString(e.SerializeToString()).summary.value[0].simple_value == 1.5
    assert tf.SessionLog.START == 1 and tf.SessionLog(status=tf.SessionLog.START).status == 1
    assert isinstance(tf.get_default_graph().as_graph_def(), tf.GraphDef)


def test_bucket_index_equals_binary_search_everywhere():
    from scopeflow.ops.logging.summary_ops import _bucket_index
    lim = TF_HISTOGRAM_LIMITS
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):
        edges = np.concatenate([lim, -lim, np.nextafter(lim, np.inf), np.nextafter(lim, -np.inf),
                                [0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300]])
    for x in [rng.standard_normal(50_000) * s for s in (1e-14, 1e-6, 1, 1e10, 1e30, 1e300)] + \
            [edges]:
        x = x[np.isfinite(x)]
        np.testing.assert_array_equal(_bucket_index(x), np.searchsorted(lim, x, side="right"))
