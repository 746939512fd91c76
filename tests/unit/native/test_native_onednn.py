"""The oneDNN backend (``scopeflow[fast]``) against the NumPy conv kernels, its reference.

Skipped (with the reason) where ``onednn-cpu-gomp`` is not installed; the fallback tests
at the top run everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow import cli
from scopeflow.native import onednn
from scopeflow.ops.nn import conv_ops, pool_ops

ROOT = Path(__file__).resolve().parents[3]


# ── Without the library: never an import error, NumPy runs ────────────────────────────
def test_missing_distribution_is_a_reason_not_an_error(monkeypatch):
    monkeypatch.setattr(onednn, "DISTRIBUTION", "scopeflow-no-such-distribution")
    with pytest.raises(LookupError, match="scopeflow-no-such-distribution is not installed"):
        onednn._library_path()


def test_switch_off_in_the_environment():
    code = ("from scopeflow.native import onednn; import scopeflow as tf; "
            "print(onednn.backend(), onednn.load_error())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, SCOPEFLOW_NATIVE="0"), cwd=ROOT, check=True)
    assert out.stdout.strip() == "None switched off (SCOPEFLOW_NATIVE=0)"


DNNL = onednn.backend()
if DNNL is None and os.environ.get("SCOPEFLOW_REQUIRE_NATIVE") == "1":  # CI installs it
    raise RuntimeError(f"SCOPEFLOW_REQUIRE_NATIVE=1 but the oneDNN backend is unavailable: "
                       f"{onednn.load_error()}")
needs_dnnl = pytest.mark.skipif(
    DNNL is None, reason=f"oneDNN backend unavailable: {onednn.load_error()}")


@pytest.fixture
def native_off():
    before = onednn.set_enabled(False)
    yield
    onednn.set_enabled(before)


def _attrs(strides=1, padding="SAME", dilations=1):
    padding, explicit = conv_ops._conv_padding(padding, "NHWC")
    return {"strides": [1, strides, strides, 1], "padding": padding,
            "explicit_paddings": explicit, "data_format": "NHWC",
            "dilations": [1, dilations, dilations, 1], "use_cudnn_on_gpu": True}


def _numpy(fn, *args, **attrs):
    before = onednn.set_enabled(False)
    try:
        return fn(*args, **attrs)
    finally:
        onednn.set_enabled(before)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


# (batch, h, w, in, kh, kw, out, stride, padding, dilation)
CASES = [
    (50, 28, 28, 1, 5, 5, 32, 1, "SAME", 1),     # the seed CNN's conv1
    (50, 14, 14, 32, 5, 5, 64, 1, "SAME", 1),    # and conv2
    (1, 7, 9, 3, 3, 3, 4, 1, "SAME", 1),         # batch 1, odd sizes
    (2, 7, 9, 3, 3, 3, 4, 2, "SAME", 1),
    (2, 8, 8, 3, 3, 3, 5, 2, "SAME", 1),
    (3, 9, 11, 2, 3, 2, 3, 3, "VALID", 1),
    (2, 10, 10, 4, 4, 4, 6, 2, "VALID", 1),       # stride 2 VALID leaves a row unread
    (2, 5, 5, 3, 1, 1, 7, 1, "VALID", 1),         # 1x1
    (2, 4, 4, 2, 5, 5, 3, 1, "SAME", 1),          # kernel larger than the image
    (2, 9, 9, 3, 3, 3, 4, 1, "SAME", 2),          # dilated
    (2, 11, 10, 3, 3, 2, 4, 1, "VALID", 2),
    (2, 6, 7, 3, 3, 3, 2, 1, [[0, 0], [1, 0], [2, 1], [0, 0]], 1),   # explicit
    (1, 1, 1, 8, 1, 1, 8, 1, "SAME", 1),
]


def _case_id(c):
    return "x".join(map(str, c[:7])) + f"-s{c[7]}-{c[8] if isinstance(c[8], str) else 'EXP'}" \
        f"-d{c[9]}"


@needs_dnnl
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_three_passes_match_numpy(case):
    n, h, w, c, kh, kw, co, s, padding, d = case
    attrs = _attrs(s, padding, d)
    x, f = _rand(n, h, w, c), _rand(kh, kw, c, co, seed=1)
    plans = len(DNNL._plans)
    want = _numpy(conv_ops._conv2d_kernel, x, f, **attrs)
    got = conv_ops._conv2d_kernel(x, f, **attrs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    dy = _rand(*want.shape, seed=2)
    sizes = np.array(x.shape, np.int32)
    want_dx = _numpy(conv_ops._conv2d_backprop_input_kernel, sizes, f, dy, **attrs)
    got_dx = conv_ops._conv2d_backprop_input_kernel(sizes, f, dy, **attrs)
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-4, atol=1e-4 * np.abs(want_dx).max())
    fsizes = np.array(f.shape, np.int32)
    want_dw = _numpy(conv_ops._conv2d_backprop_filter_kernel, x, fsizes, dy, **attrs)
    got_dw = conv_ops._conv2d_backprop_filter_kernel(x, fsizes, dy, **attrs)
    np.testing.assert_allclose(got_dw, want_dw, rtol=1e-4, atol=1e-4 * np.abs(want_dw).max())
    for got_, want_ in ((got, want), (got_dx, want_dx), (got_dw, want_dw)):
        assert got_.dtype == np.float32 and got_.shape == want_.shape
    # The backend did the work (a plan per pass, unless oneDNN had no fast kernel).
    assert len(DNNL._plans) >= plans


@needs_dnnl
def test_the_seed_shapes_take_the_native_path():
    x, f = _rand(50, 14, 14, 32), _rand(5, 5, 32, 64, seed=1)
    pads = ((2, 2), (2, 2))
    for kind in ("fwd", "bwd_data", "bwd_weights"):
        impl = DNNL.implementation(kind, x.shape, f.shape, (1, 1), pads, (14, 14))
        assert impl and not impl.startswith("ref"), (kind, impl)
    assert DNNL.conv2d(x, f, (1, 1), (1, 1), pads, (14, 14)) is not None


# (batch, h, w, c, kh, kw, multiplier, stride, padding, dilation)
DEPTHWISE_CASES = [
    (32, 28, 28, 64, 3, 3, 1, 2, "SAME", 1),    # MobileNet's (split over the batch)
    (2, 14, 14, 128, 3, 3, 1, 1, "SAME", 1),
    (1, 7, 9, 3, 3, 3, 2, 1, "SAME", 1),         # a channel multiplier
    (3, 9, 11, 4, 3, 2, 3, 2, "VALID", 1),
    (2, 9, 9, 8, 3, 3, 1, 1, "SAME", 2),          # dilated
    (2, 6, 7, 3, 3, 3, 1, 1, [[0, 0], [1, 0], [2, 1], [0, 0]], 1),   # explicit
    (2, 4, 4, 5, 5, 5, 1, 1, "SAME", 1),          # kernel larger than the image
]


@needs_dnnl
@pytest.mark.parametrize("case", DEPTHWISE_CASES,
                         ids=["x".join(map(str, c[:7])) + f"-{c[7]}-{c[9]}"
                              for c in DEPTHWISE_CASES])
def test_depthwise_matches_numpy(case):
    n, h, w, c, kh, kw, m, s, padding, d = case
    attrs = _attrs(s, padding, d)
    del attrs["use_cudnn_on_gpu"]
    x, f = _rand(n, h, w, c), _rand(kh, kw, c, m, seed=1)
    x[0, 1, 2, 0] = np.nan
    want = _numpy(conv_ops._depthwise_kernel, x, f, **attrs)
    plans = len(DNNL._plans)
    got = conv_ops._depthwise_kernel(x, f, **attrs)
    assert len(DNNL._plans) > plans   # oneDNN ran it (a new plan for this geometry)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert (np.isnan(got) == np.isnan(want)).all()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.nanmax(np.abs(want)))


@needs_dnnl
def test_depthwise_takes_a_fast_kernel_and_keeps_tf_errors():
    impl = DNNL.implementation("fwd_depthwise", (32, 112, 112, 64), (3, 3, 64, 1), (2, 2),
                               ((0, 1), (0, 1)), (56, 56))
    assert impl and not impl.startswith("ref"), impl
    x, f = _rand(1, 5, 5, 4), _rand(3, 3, 3, 1, seed=1)
    attrs = _attrs()
    del attrs["use_cudnn_on_gpu"]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input depth must be evenly divisible by filter depth: 4 vs 3"):
        conv_ops._depthwise_kernel(x, f, **attrs)


# (batch, h, w, c, kh, kw, stride h, stride w, padding)
POOL_CASES = [(50, 28, 28, 32, 2, 2, 2, 2, "VALID"),   # the seed CNN's pool1
              (3, 7, 5, 4, 3, 3, 2, 2, "SAME"), (2, 6, 7, 3, 2, 3, 1, 2, "SAME"),
              (2, 5, 5, 8, 3, 3, 3, 3, "VALID"), (1, 4, 4, 1, 5, 5, 1, 1, "SAME")]


@needs_dnnl
@pytest.mark.parametrize("case", POOL_CASES, ids=["x".join(map(str, c)) for c in POOL_CASES])
def test_max_pool_matches_numpy_bitwise(case):
    # NaN, -inf, float32's lowest and signed-zero ties included: oneDNN's kernel starts
    # from the lowest value and takes strictly greater inputs, as TF's and the NumPy path.
    n, h, w, c, kh, kw, sh, sw, padding = case
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, (n, h, w, c)).astype(np.float32)
    picks = rng.integers(0, 8, x.shape)
    x[picks == 0], x[picks == 1], x[picks == 2], x[picks == 3] = (
        np.nan, -np.inf, np.finfo(np.float32).min, -0.0)
    attrs = {"ksize": [1, kh, kw, 1], "strides": [1, sh, sw, 1], "padding": padding,
             "data_format": "NHWC"}
    plans = len(DNNL._plans)
    got = pool_ops._max_pool_kernel(x, **attrs)
    want = _numpy(pool_ops._max_pool_kernel, x, **attrs)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    key = [k for k in DNNL._plans if k[0] == "max_pool" and k[1] == x.shape]
    assert key and DNNL._plans[key[0]] is not None and len(DNNL._plans) >= plans


def _three_passes(x, f, dy, attrs):
    sizes, fsizes = np.array(x.shape, np.int32), np.array(f.shape, np.int32)
    return (conv_ops._conv2d_kernel(x, f, **attrs),
            conv_ops._conv2d_backprop_input_kernel(sizes, f, dy, **attrs),
            conv_ops._conv2d_backprop_filter_kernel(x, fsizes, dy, **attrs))


@needs_dnnl
@pytest.mark.parametrize("batch", [50, 7, 2])
def test_batch_split_matches_the_whole_batch(monkeypatch, batch):
    # The optimisation: with oneDNN on one thread, each pass runs as two halves of the
    # batch on two threads. Compared here with the unsplit path (one call per pass).
    x, f = _rand(batch, 14, 14, 32), _rand(5, 5, 32, 64, seed=1)
    dy = _rand(batch, 14, 14, 64, seed=2)
    attrs = _attrs()
    monkeypatch.setattr(DNNL, "threads", 1)
    calls = []
    for name in ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"):
        method = getattr(DNNL, name)
        monkeypatch.setattr(DNNL, name, lambda *a, _m=method, _n=name, **k: (
            calls.append(_n), _m(*a, **k))[1])
    monkeypatch.setattr(conv_ops, "_NATIVE_SPLIT_FLOPS", float("inf"))
    whole = _three_passes(x, f, dy, attrs)
    assert len(calls) == 3
    monkeypatch.setattr(conv_ops, "_NATIVE_SPLIT_FLOPS", 0.0)
    split = _three_passes(x, f, dy, attrs)
    assert len(calls) == 9, calls  # each pass ran as two halves
    again = _three_passes(x, f, dy, attrs)
    for got, want, repeat in zip(split, whole, again):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
        # The halves are summed in batch order, never in the order the threads finish.
        np.testing.assert_array_equal(got, repeat)
    # (No bitwise split-vs-whole check: oneDNN may pick another kernel for half a batch on
    # another CPU. What must hold everywhere is above: the same shapes give the same bits.)


def _two_bands(task, m, flops, min_flops=0.0):
    """blas.split_rows, always in two halves, one after the other (deterministic)."""
    half = m // 2
    task(0, half)
    task(half, m)


# (h, w, kh, kw, stride, padding, dilation): SAME, VALID leaving rows unread, dilated,
# explicit, a kernel taller than a band.
ROW_CASES = [(14, 14, 5, 5, 1, "SAME", 1), (15, 13, 3, 3, 2, "VALID", 1),
             (16, 16, 3, 3, 2, "SAME", 1), (13, 11, 3, 3, 1, "SAME", 2),
             (9, 8, 3, 2, 1, [[0, 0], [2, 1], [1, 0], [0, 0]], 1), (6, 6, 7, 7, 1, "SAME", 1)]


@needs_dnnl
@pytest.mark.parametrize("case", ROW_CASES, ids=[str(c[:7]) for c in ROW_CASES])
def test_a_batch_of_one_runs_as_two_bands_of_rows(monkeypatch, case):
    # The optimisation: a batch of one (inference) has no batch to split, so a forward
    # pass runs as two bands of output rows, each reading its own input rows. Compared
    # here with one call over the whole image, and with NumPy.
    h, w, kh, kw, s, padding, d = case
    attrs = _attrs(s, padding, d)
    dw_attrs = {k: v for k, v in attrs.items() if k != "use_cudnn_on_gpu"}
    x, f, g = _rand(1, h, w, 8), _rand(kh, kw, 8, 16, seed=1), _rand(kh, kw, 8, 2, seed=2)
    monkeypatch.setattr(DNNL, "threads", 1)
    whole = (conv_ops._conv2d_kernel(x, f, **attrs),
             conv_ops._depthwise_kernel(x, g, **dw_attrs))
    calls = []
    for name in ("conv2d", "depthwise_conv2d"):
        method = getattr(DNNL, name)
        monkeypatch.setattr(DNNL, name, lambda *a, _m=method, **k: (
            calls.append(a[0].shape), _m(*a, **k))[1])
    monkeypatch.setattr(conv_ops, "_split_rows", _two_bands)
    bands = (conv_ops._conv2d_kernel(x, f, **attrs),
             conv_ops._depthwise_kernel(x, g, **dw_attrs))
    assert len(calls) == 4 and all(c[1] < h + 1 for c in calls), calls
    reference = (_numpy(conv_ops._conv2d_kernel, x, f, **attrs),
                 _numpy(conv_ops._depthwise_kernel, x, g, **dw_attrs))
    for got, one_call, want in zip(bands, whole, reference):
        assert got.shape == one_call.shape == want.shape
        np.testing.assert_allclose(got, one_call, rtol=1e-5, atol=1e-5 * np.abs(want).max())
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


@needs_dnnl
def test_no_batch_split_with_a_team_of_openmp_threads(monkeypatch):
    monkeypatch.setattr(DNNL, "threads", 2)
    monkeypatch.setattr(conv_ops, "_NATIVE_SPLIT_FLOPS", 0.0)
    calls = []
    method = DNNL.conv2d
    monkeypatch.setattr(DNNL, "conv2d", lambda *a, **k: (calls.append(1), method(*a, **k))[1])
    conv_ops._conv2d_kernel(_rand(8, 6, 6, 3), _rand(3, 3, 3, 4, seed=1), **_attrs())
    assert calls == [1]


@needs_dnnl
def test_weights_updated_in_place_are_never_read_stale():
    # A variable's buffer is updated in place between runs (as Adam does): every call
    # must see the new values, whatever the backend caches.
    x, f = _rand(4, 10, 10, 8), _rand(3, 3, 8, 16, seed=1)
    attrs = _attrs()
    for step in range(4):
        f *= np.float32(0.5 + step)
        f[0, 0, 0, 0] += step
        got = conv_ops._conv2d_kernel(x, f, **attrs)
        want = _numpy(conv_ops._conv2d_kernel, x, f, **attrs)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
        dy = _rand(*got.shape, seed=step)
        sizes = np.array(x.shape, np.int32)
        np.testing.assert_allclose(
            conv_ops._conv2d_backprop_input_kernel(sizes, f, dy, **attrs),
            _numpy(conv_ops._conv2d_backprop_input_kernel, sizes, f, dy, **attrs),
            rtol=1e-4, atol=1e-3 * (1 + step))


def _train(steps, native):
    before = onednn.set_enabled(native)
    try:
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 12, 12, 3])
            y = tf.placeholder(tf.float32, [None, 10])
            w1 = tf.Variable(tf.truncated_normal([3, 3, 3, 8], stddev=0.1, seed=1))
            w2 = tf.Variable(tf.truncated_normal([3, 3, 8, 4], stddev=0.1, seed=2))
            h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"))
            h = tf.nn.relu(tf.nn.conv2d(h, w2, [1, 2, 2, 1], "SAME"))
            logits = tf.layers.dense(tf.reshape(h, [-1, 6 * 6 * 4]), 10,
                                     kernel_initializer=tf.ones_initializer())
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=y, logits=logits))
            train = tf.train.AdamOptimizer(0.05).minimize(loss)
            rng = np.random.default_rng(3)
            xs = rng.standard_normal((5, 12, 12, 3)).astype(np.float32)
            ys = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 5)]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([train, loss], {x: xs, y: ys})[1] for _ in range(steps)]
                return losses, sess.run([w1, w2])
    finally:
        onednn.set_enabled(before)


@needs_dnnl
def test_adam_training_matches_numpy_over_steps():
    # The in-place trap end to end: Adam rewrites w1/w2's buffers every step and the next
    # step's convs (forward and both gradients) must read the new values.
    losses_native, weights_native = _train(6, True)
    losses_numpy, weights_numpy = _train(6, False)
    np.testing.assert_allclose(losses_native, losses_numpy, rtol=1e-4)
    assert losses_native[-1] < losses_native[0]
    for a, b in zip(weights_native, weights_numpy):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@needs_dnnl
def test_other_dtypes_and_empty_batches_stay_on_numpy(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the native backend was called")

    monkeypatch.setattr(DNNL, "conv2d", refuse)
    attrs = _attrs()
    x64, f64 = _rand(2, 5, 5, 3).astype(np.float64), _rand(3, 3, 3, 2).astype(np.float64)
    assert conv_ops._conv2d_kernel(x64, f64, **attrs).dtype == np.float64
    empty = conv_ops._conv2d_kernel(np.zeros((0, 5, 5, 3), np.float32),
                                    _rand(3, 3, 3, 2), **attrs)
    assert empty.shape == (0, 5, 5, 2)


@needs_dnnl
def test_switched_off_in_process_uses_numpy(native_off, monkeypatch):
    monkeypatch.setattr(DNNL, "conv2d", lambda *a, **k: pytest.fail("native called"))
    assert onednn.backend() is None
    conv_ops._conv2d_kernel(_rand(1, 4, 4, 1), _rand(2, 2, 1, 1), **_attrs())


@needs_dnnl
def test_bad_inputs_keep_tensorflow_errors():
    # The backend is asked only after the NumPy kernel's own checks: TF's messages stay.
    attrs = _attrs()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Size of out_backprop"):
        conv_ops._conv2d_backprop_filter_kernel(_rand(1, 6, 6, 2), np.array([3, 3, 2, 4]),
                                                _rand(1, 5, 5, 4), **attrs)
    with pytest.raises(tf.errors.UnimplementedError, match="grouped convolution"):
        conv_ops._conv2d_kernel(_rand(1, 6, 6, 4), _rand(3, 3, 2, 4), **attrs)


@needs_dnnl
def test_two_threads_share_the_plans():
    x, f = _rand(8, 12, 12, 4), _rand(3, 3, 4, 8, seed=1)
    attrs = _attrs()
    want = _numpy(conv_ops._conv2d_kernel, x, f, **attrs)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(conv_ops._conv2d_kernel(x, f, **attrs))
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 40
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-4)


_FORK = """
import os, numpy as np
from scopeflow.native import onednn
d = onednn.backend()
x, w = np.ones((8, 12, 12, 16), np.float32), np.ones((3, 3, 16, 16), np.float32)
for _ in range(3):
    d.conv2d(x, w, (1, 1), (1, 1), ((1, 1), (1, 1)), (12, 12))
pid = os.fork()
if pid == 0:
    y = d.conv2d(x, w, (1, 1), (1, 1), ((1, 1), (1, 1)), (12, 12))
    print("child", float(y[0, 5, 5, 0]), d.threads, flush=True)
    os._exit(0)
os.waitpid(pid, 0)
print("parent", float(d.conv2d(x, w, (1, 1), (1, 1), ((1, 1), (1, 1)), (12, 12))[0, 5, 5, 0]))
"""


@needs_dnnl
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_can_still_convolve():
    # libgomp's thread pool does not survive fork: without the at-fork reset the child's
    # first multi-threaded conv hangs forever.
    out = subprocess.run([sys.executable, "-c", _FORK], capture_output=True, text=True,
                         cwd=ROOT, timeout=120,
                         env=dict(os.environ, SCOPEFLOW_NATIVE_THREADS="2"))
    assert out.stdout.split("\n")[:2] == ["child 144.0 1", "parent 144.0"], out


@pytest.mark.parametrize("native", ["1", "0"])
def test_op_table_conv_rows_pass_with_the_backend_on_and_off(native):
    if native == "1" and DNNL is None:
        pytest.skip(f"oneDNN backend unavailable: {onednn.load_error()}")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         "tests/ops/test_op_table.py", "-k", "Conv2D"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
        env=dict(os.environ, SCOPEFLOW_NATIVE=native))
    # 0: every selected row passed (5 would mean none was selected)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


# ── scopeflow info ─────────────────────────────────────────────────────────────────────
def test_info_reports_each_ops_backend(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool"):
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(op + ":"))
        assert ("onednn" if DNNL is not None else "numpy") in line, line
    assert "oneDNN" in out


def test_info_json(capsys):
    import json
    assert cli.main(["info", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["ops"]) >= {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                               "MaxPool"}
    if DNNL is not None:
        assert doc["onednn"]["version"].startswith("3.")
        assert doc["onednn"]["threads"] >= 1
