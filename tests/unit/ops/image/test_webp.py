"""tf.io.decode_webp / tf.image.decode_webp (DecodeWebP): TF's 4-D output, channels rules,
pixels (lossless and lossy files written by Pillow here) and error messages."""

from __future__ import annotations

import io

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

Image = pytest.importorskip("PIL.Image")


def _files():
    rng = np.random.RandomState(0)
    rgb = rng.randint(0, 256, (5, 7, 3)).astype(np.uint8)
    rgba = rng.randint(0, 256, (6, 4, 4)).astype(np.uint8)
    out = {}
    for name, arr, mode, kw in (("rgb", rgb, "RGB", {"lossless": True}),
                                ("rgba", rgba, "RGBA", {"lossless": True}),
                                ("lossy", rgb, "RGB", {"quality": 80})):
        buf = io.BytesIO()
        Image.fromarray(arr, mode).save(buf, "WEBP", **kw)
        out[name] = buf.getvalue()
    frames = [Image.fromarray(rng.randint(0, 256, (5, 7, 3)).astype(np.uint8), "RGB")
              for _ in range(3)]
    buf = io.BytesIO()
    frames[0].save(buf, "WEBP", save_all=True, append_images=frames[1:], lossless=True,
                   duration=100)
    out["anim"] = buf.getvalue()
    return out, rgb, rgba, np.stack([np.asarray(f) for f in frames])


_CASES = [("rgb", 0), ("rgb", 3), ("rgb", 4), ("rgba", 0), ("rgba", 4), ("rgba", 3),
          ("lossy", 0), ("lossy", 3), ("rgb", 1), ("rgb", 2), ("rgb", 5), ("garbage", 0),
          ("empty", 0), ("truncated", 0)]


def _run(tf_mod, files, message):
    data = dict(files, garbage=b"garbage", empty=b"", truncated=files["rgb"][:30])
    out = []
    for name, ch in _CASES:
        with tf_mod.Graph().as_default():
            r = tf_mod.io.decode_webp(data[name], channels=ch)
            meta = [r.name, r.shape.as_list(), r.dtype.name, r.op.inputs[0].name]
            try:
                with tf_mod.Session() as sess:
                    out.append(meta + [sess.run(r).tolist()])
            except tf_mod.errors.InvalidArgumentError as e:
                out.append(meta + [message(e)])
    return out


def test_without_tf():
    files, rgb, rgba, frames = _files()
    with tf.Graph().as_default():
        assert tf.image.decode_webp is tf.io.decode_webp
        r = tf.io.decode_webp(files["rgb"])
        a = tf.io.decode_webp(files["anim"])
        assert r.shape.as_list() == [None] * 4 and r.op.type == "DecodeWebP"
        with tf.Session() as sess:
            got, anim = sess.run([r, a])
        np.testing.assert_array_equal(got, rgb[None])
        np.testing.assert_array_equal(anim[..., :3], frames)
        assert anim.shape == (3, 5, 7, 4) and (anim[..., 3] == 255).all()
        np.testing.assert_array_equal(
            tf.Session().run(tf.io.decode_webp(files["rgba"], channels=4)), rgba[None])
        with pytest.raises(TypeError, match="parameter 'dtype'"):
            tf.io.decode_webp(files["rgb"], dtype=tf.float32)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.io.decode_webp([files["rgb"], files["rgb"]])
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                 match="does not match input"):
            sess.run(tf.io.decode_webp(files["rgb"], channels=4))


def test_matches_tf(tf1, tmp_path):
    files, *_ = _files()
    for name, data in files.items():
        (tmp_path / f"{name}.webp").write_bytes(data)
    want = tf1(f"""
tf.disable_v2_behavior()
import pathlib
files = {{p.stem: p.read_bytes() for p in pathlib.Path({str(tmp_path)!r}).glob("*.webp")
         if p.stem != "anim"}}   # TF 2.21's CPU build crashes on animated WebP
_CASES = {_CASES!r}
""" + """
def message(e):
    lines = e.message.split("\\n")
    return next(lines[i - 1] for i, ln in enumerate(lines) if ln.startswith("\\t [["))
""" + _run_source() + """
print(json.dumps(_run(tf, files, message)))
""")
    got = _run(tf, {k: v for k, v in files.items() if k != "anim"},
               lambda e: e.message.split("\n")[0])
    assert got == want


def _run_source():
    import inspect
    return inspect.getsource(_run)
