"""Constant filters packed once for oneDNN (scopeflow.native.packed_weights): only filters
that cannot change are cached, a cached filter gives the bits of the per-call reorder, a
filter that changes in place is never read stale, and an entry dies with its filter."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.native import onednn
from scopeflow.native.packed_weights import cacheable

DNNL = onednn.backend()
needs_dnnl = pytest.mark.skipif(
    DNNL is None, reason=f"oneDNN backend unavailable: {onednn.load_error()}")


def _read_only(a):
    a.setflags(write=False)
    return a


def test_only_arrays_that_cannot_change_are_cacheable():
    owner = np.ones((3, 3, 4, 8), np.float32)
    assert not cacheable(owner)                                 # a variable's value
    assert not cacheable(_read_only(owner[:]))                  # a read-only view of it
    assert cacheable(_read_only(np.ones((3, 3, 4, 8), np.float32)))
    frozen = _read_only(np.frombuffer(bytes(3 * 3 * 4 * 8 * 4), np.float32))
    assert cacheable(_read_only(frozen.reshape(3, 3, 4, 8)))   # a GraphDef's tensor_content
    writable_buffer = bytearray(16)
    assert not cacheable(_read_only(np.frombuffer(writable_buffer, np.float32)))
    with tf.Graph().as_default():
        c = tf.constant(np.ones((2, 2), np.float32))
        assert cacheable(c.op.get_attr("value"))


def _conv(x, w):
    return DNNL.conv2d(x, w, (1, 1), (1, 1), ((1, 1), (1, 1)), x.shape[1:3])


@needs_dnnl
def test_packed_once_with_the_per_call_bits():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 14, 14, 32), dtype=np.float32)
    w = _read_only(rng.standard_normal((3, 3, 32, 64), dtype=np.float32))
    plan = DNNL._plan(DNNL._key("fwd", x.shape, 3, 3, 64, (14, 14), (1, 1), (1, 1),
                                ((1, 1), (1, 1))))
    if plan is None or plan.reorder is None:
        pytest.skip("oneDNN takes this filter as it is on this CPU: nothing to pack")
    before = len(DNNL._packed)
    first, second = _conv(x, w), _conv(x, w)
    assert len(DNNL._packed) == before + 1
    per_call = _conv(x, w.copy())             # writable: reordered on the call
    assert first.tobytes() == second.tobytes() == per_call.tobytes()
    del w
    gc.collect()
    assert len(DNNL._packed) == before


@needs_dnnl
def test_a_filter_changed_in_place_is_never_read_stale():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 14, 14, 32), dtype=np.float32)
    owner = rng.standard_normal((3, 3, 32, 64), dtype=np.float32)
    view = _read_only(owner[:])
    first = _conv(x, view)
    owner *= 2
    assert np.allclose(_conv(x, view), 2 * first, rtol=1e-5, atol=1e-5)


@needs_dnnl
def test_a_frozen_graph_gives_the_same_values_run_after_run():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((3, 3, 8, 16), dtype=np.float32)
    x = rng.standard_normal((1, 10, 10, 8), dtype=np.float32)
    with tf.Graph().as_default() as g:
        tf.nn.conv2d(tf.placeholder(tf.float32, x.shape, name="x"), tf.constant(w),
                         [1, 1, 1, 1], "SAME", name="y")
        gd = g.as_graph_def()
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.import_graph_def(gd, name="")
        runs = [sess.run("y:0", {"x:0": x}) for _ in range(3)]
    with tf.Graph().as_default(), tf.Session() as sess:
        want = sess.run(tf.nn.conv2d(x, tf.Variable(w).initialized_value(), [1, 1, 1, 1],
                                     "SAME"))
    assert all(r.tobytes() == want.tobytes() for r in runs)
