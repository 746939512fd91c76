"""``clip_by_norm``, ``global_norm``, ``clip_by_global_norm``: values, names (as TF), edges."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.math.clip_ops import clip_by_global_norm, clip_by_norm, global_norm


def run(x):
    with tf.Session() as sess:
        return sess.run(x)


def test_clip_by_norm_values():
    np.testing.assert_allclose(run(clip_by_norm([3.0, 4.0], 1.0)), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(run(clip_by_norm([3.0, 4.0], 10.0)), [3.0, 4.0])
    np.testing.assert_allclose(run(clip_by_norm([0.0, 0.0], 1.0)), [0.0, 0.0])
    x = np.array([[3.0, 0.0], [4.0, 1.0]], np.float32)
    np.testing.assert_allclose(run(clip_by_norm(x, 1.0, axes=[0])),
                               x / np.maximum(np.linalg.norm(x, axis=0), 1.0), rtol=1e-6)


def test_global_norm_and_clip_by_global_norm():
    a = tf.constant([3.0, 4.0])
    b = tf.constant([[12.0]])
    norm = global_norm([a, None, b])
    assert run(norm) == pytest.approx(13.0)
    clipped, n = clip_by_global_norm([a, None, b], 6.5)
    assert clipped[1] is None
    got = run([clipped[0], clipped[2], n])
    np.testing.assert_allclose(got[0], [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], [[6.0]], rtol=1e-6)
    assert got[2] == pytest.approx(13.0)


def test_names_match_tf():
    # TF 2.21: clip_by_global_norm/clip_by_global_norm/_0:0, global_norm/global_norm:0,
    # clip_by_norm:0.
    x = tf.constant([3.0, 4.0])
    y = tf.constant([[1.0, 2.0]])
    c, n = clip_by_global_norm([x, y], 1.0)
    assert [t.name for t in c] == ["clip_by_global_norm/clip_by_global_norm/_0:0",
                                   "clip_by_global_norm/clip_by_global_norm/_1:0"]
    assert n.name == "global_norm/global_norm:0"
    assert clip_by_norm(x, 1.0).name == "clip_by_norm:0"


def test_inf_norm_gives_nan():
    clipped, _ = clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    assert np.isnan(run(clipped[0])).all()


def test_indexed_slices_stay_sparse():
    s = tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([2]), tf.constant([5, 2]))
    c = clip_by_norm(s, 1.0)
    assert isinstance(c, tf.IndexedSlices) and c.indices is s.indices
    np.testing.assert_allclose(run(c.values), [[0.6, 0.8]], rtol=1e-6)
    (g,), _ = clip_by_global_norm([s], 1.0)
    assert isinstance(g, tf.IndexedSlices)


def test_t_list_must_be_a_sequence():
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        global_norm(tf.constant([1.0]))
