"""Convolution and pooling compared with real TensorFlow (TF 2.21, TF1 semantics).

``tests/fixtures/tf_conv/make_fixtures.py`` defines the cases (shapes, SAME/VALID/explicit
padding, strides 1-3, dilations, even/odd sizes, max-pool ties, depthwise multipliers,
conv2d_transpose output shapes) and stored TF's values and gradients in ``expected.json``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.nn import pool_ops

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_conv"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_conv_cases",
                                                  FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def _close(got, want, what):
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6 * scale, err_msg=what)


@pytest.mark.parametrize("case_id", sorted(CASES.CASES))
def test_values_and_gradients_match_tf(case_id):
    want = EXPECTED["cases"][case_id]
    got = CASES.run_case(tf, case_id)
    _close(got["y"], want["y"], f"{case_id}: forward")
    if want["grads"] is None:  # TF's CPU refuses it (dilated backprop): check numerically
        return
    for k, (g, w) in enumerate(zip(got["grads"], want["grads"])):
        _close(g, w, f"{case_id}: gradient of input {k}")


def test_dilated_conv_gradients_are_numerically_right():
    """TF's CPU has no dilated Conv2DBackpropFilter; ours is checked by finite differences."""
    x = CASES.inputs_for("conv-SAME-s2d2-10x9")
    xs = [a.astype(np.float64) for a in x]
    ins = [tf.placeholder(tf.float64, a.shape) for a in xs]
    y = CASES.build(tf, "conv-SAME-s2d2-10x9", ins)
    loss = tf.reduce_sum(y * y)
    grads = tf.gradients(loss, ins)
    with tf.Session() as sess:
        feeds = dict(zip(ins, xs))
        got = sess.run(grads, feeds)
        for k, base in enumerate(xs):
            for idx in [(0,) * base.ndim, tuple(d - 1 for d in base.shape)]:
                plus, minus = base.copy(), base.copy()
                plus[idx] += 1e-6
                minus[idx] -= 1e-6
                num = (sess.run(loss, {**feeds, ins[k]: plus})
                       - sess.run(loss, {**feeds, ins[k]: minus})) / 2e-6
                assert abs(num - got[k][idx]) < 1e-5 * max(1, abs(num))


def test_graph_names_match_tf():
    """Op names and types of a conv+bias+pool model and of its gradient graph."""
    assert CASES.graph_names(tf) == EXPECTED["graph_names"]


def test_static_shapes():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.nn.conv2d(x, tf.ones([5, 5, 1, 32]), [1, 1, 1, 1], "SAME")
    assert y.shape.as_list() == [None, 28, 28, 32]
    p = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    assert p.shape.as_list() == [None, 14, 14, 32]
    v = tf.nn.conv2d(tf.placeholder(tf.float32, [None, None, 9, 3]), tf.ones([3, 3, 3, 4]),
                     [1, 2, 2, 1], "VALID")
    assert v.shape.as_list() == [None, None, 4, 4]
    u = tf.nn.conv2d(tf.placeholder(tf.float32), tf.ones([3, 3, 3, 4]), 1, "SAME")
    assert u.shape.as_list() == [None, None, None, 4]
    t = tf.nn.conv2d_transpose(v, tf.ones([3, 3, 5, 4]), [tf.shape(v)[0], 8, 9, 5],
                               [1, 2, 2, 1], "VALID")
    assert t.shape.as_list() == [None, 8, 9, 5]
    d = tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 1, 4]), [1, 2, 2, 1], "SAME")
    assert d.shape.as_list() == [None, 14, 14, 4]
    e = tf.nn.conv2d(x, tf.ones([3, 3, 1, 2]), 1, [[0, 0], [1, 2], [0, 1], [0, 0]])
    assert e.shape.as_list() == [None, 29, 27, 2]


def test_shape_errors_name_the_op():
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    with pytest.raises(ValueError, match=r"Depth of input \(3\) is not a multiple of input "
                                         r"depth of filter \(2\).*Conv2D"):
        tf.nn.conv2d(x, tf.ones([3, 3, 2, 4]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 9 "
                                         "from 8"):
        tf.nn.conv2d(x, tf.ones([9, 9, 3, 4]), [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="Attr 'padding' of 'Conv2D' Op passed string 'FOO'"):
        tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), [1, 1, 1, 1], "FOO")
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.bias_add(x, tf.ones([4]))
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.nn.avg_pool(tf.placeholder(tf.int32, [1, 4, 4, 1]), 2, 2, "VALID")


@pytest.mark.parametrize("build, message", [
    (lambda x: tf.nn.conv2d(x, tf.ones([1, 1, 8, 2]), [1, 1, 1, 1], "SAME",
                            data_format="NCHW"),
     "The Conv2D op currently only supports the NHWC tensor format on the CPU"),
    (lambda x: tf.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW"),
     "Default MaxPoolingOp only supports NHWC on device type CPU"),
    (lambda x: tf.nn.avg_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW"),
     "Default AvgPoolingOp only supports NHWC on device type CPU"),
    (lambda x: tf.nn.conv2d(x, tf.ones([1, 1, 8, 2]), [2, 1, 1, 1], "SAME"),
     "does not yet support strides in the batch and depth dimensions"),
    (lambda x: tf.nn.max_pool(x, [2, 2, 2, 1], [1, 2, 2, 1], "VALID"),
     "Pooling is not yet supported on the batch dimension"),
])
def test_cpu_runtime_errors_as_tf(build, message):
    x = tf.constant(np.ones((1, 8, 8, 8), np.float32))
    with tf.Session() as sess, pytest.raises(tf.errors.OpError, match=message):
        sess.run(build(x))


def test_bias_add_nchw_runs():
    x = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    with tf.Session() as sess:
        got = sess.run(tf.nn.bias_add(x, [1.0, 2.0, 3.0], data_format="NCHW"))
    np.testing.assert_array_equal(got, x + np.array([1, 2, 3], np.float32)[:, None, None])


def test_conv2d_transpose_output_shape_mismatch_at_run_time():
    y = tf.nn.conv2d_transpose(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 5, 2]), [1, 9, 9, 5],
                               [1, 2, 2, 1], "SAME")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="Size of out_backprop doesn't match"):
        sess.run(y)


def test_float32_stays_float32_and_kernels_are_pure():
    """Repeated runs give identical results (scratch buffers never leak into outputs)."""
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    w = tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 3, 4))
    y = tf.nn.max_pool(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), 2, 2, "SAME")
    gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
    a = np.linspace(0, 1, 2 * 8 * 8 * 3, dtype=np.float32).reshape(2, 8, 8, 3)
    with tf.Session() as sess:
        first = sess.run([y, gx, gw], {x: a})
        sess.run([y, gx, gw], {x: a[::-1].copy()})
        again = sess.run([y, gx, gw], {x: a})
    for f, g in zip(first, again):
        assert f.dtype == np.float32
        np.testing.assert_array_equal(f, g)


def _called_op_types(sess):
    """The op types whose kernels the session's plans call."""
    called = set()
    for plan in sess._plans.values():
        names = set(re.findall(r"(_k\d+)\(", plan.source))
        called |= {op.type for k, op in enumerate(plan.ops) if f"_k{k}" in names}
    return called


def test_first_layer_input_gradient_is_not_computed():
    """Training needs only the variables' gradients: the input's is built (as TF builds it,
    and the optimizer's GATE_OP gate waits for it) but never computed."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    w = tf.Variable(tf.ones([3, 3, 1, 2]))
    loss = tf.reduce_sum(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
    (gw,) = tf.gradients(loss, [w])
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    graph_types = {op.type for op in tf.get_default_graph().get_operations()}
    assert "Conv2DBackpropInput" in graph_types  # built, as TF does
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(gw, {x: np.ones((1, 8, 8, 1), np.float32)})
        sess.run(train, {x: np.ones((1, 8, 8, 1), np.float32)})
        called = _called_op_types(sess)
    assert {"Conv2DBackpropFilter", "ApplyGradientDescent"} <= called
    assert "Conv2DBackpropInput" not in called


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    """Re-runs a few cases and the graph-name model under real TF right now."""
    names = ["conv-SAME-s2-8x6", "transpose-SAME-out7", "max_pool-ties-k3s2-SAME",
             "avg_pool-SAME-k3s2-7x5", "depthwise-m2-VALID"]
    live = tf1(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("cases",
                                                      {str(FIXTURES / "make_fixtures.py")!r})
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        out = {{n: cases.run_case(tf, n) for n in {names!r}}}
        out["graph_names"] = cases.graph_names(tf)
        print(json.dumps(out))
    """)
    assert CASES.graph_names(tf) == live["graph_names"]
    for name in names:
        got = CASES.run_case(tf, name)
        _close(got["y"], live[name]["y"], name)
        for g, w in zip(got["grads"], live[name]["grads"]):
            _close(g, w, f"{name} gradient")


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_grad_adds_dy_into_zeros_as_tf(dtype):
    # TF's CPU MaxPoolGrad adds dy into a zeroed dx at each window's first max: a NaN or
    # infinite dy stays in its place (the window's other places are +0.0), and a -0.0
    # arrives as +0.0. Values from TF 2.21 (tests/unit/ops/nn/test_conv_ops.py's program, run live).
    x = tf.constant(np.arange(16, dtype=dtype).reshape(1, 4, 4, 1))
    y = tf.nn.max_pool(x, 2, 2, "VALID")
    dy = tf.constant(np.array([np.nan, -0.0, -np.inf, 2.0], dtype).reshape(1, 2, 2, 1))
    (g,) = tf.gradients(y, x, dy)
    with tf.Session() as sess:
        got = sess.run(g).reshape(4, 4)
    want = np.zeros((4, 4), dtype)
    want[1, 1], want[3, 1], want[3, 3] = np.nan, -np.inf, 2.0
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[np.isfinite(got)]).any()


# Max pooling of NaN, -inf, the dtype's lowest value and signed zeros, as TF 2.21's CPU
# kernels. 2-D: the forward starts from the lowest value and takes strictly greater inputs
# (NaN never is); the gradient's argmax starts at a window's first real input (a NaN there
# keeps the place) and ignores ``orig_output``. 3-D follows other rules (conv3d_ops).
_POOL_SPECIALS_PROGRAM = """
def pool_specials(tf, dtype, shape, ksize, stride, padding, seed):
    rng = np.random.default_rng(seed)
    low = np.finfo(dtype).min
    x = rng.integers(-3, 4, shape).astype(dtype)          # ties are common
    picks = rng.integers(0, 8, shape)
    x[picks == 0] = np.nan
    x[picks == 1] = -np.inf
    x[picks == 2] = low
    x[picks == 3] = -0.0
    xt = tf.constant(x)
    pool = tf.nn.max_pool3d if len(shape) == 5 else tf.nn.max_pool
    y = pool(xt, ksize, stride, padding)
    dy = rng.standard_normal(y.shape.as_list()).astype(dtype)
    dy[rng.integers(0, 6, dy.shape) == 0] = -0.0
    (g,) = tf.gradients(y, xt, tf.constant(dy))
    with tf.Session() as sess:
        yv, gv = sess.run([y, g])
    bits = "u%d" % np.dtype(dtype).itemsize
    return {"y": yv.view(bits).ravel().tolist(), "g": gv.view(bits).ravel().tolist()}

POOL_SPECIAL_CASES = [(np.float32, (2, 4, 6, 3), 2, 2, "VALID", 1),
                      (np.float64, (1, 4, 4, 2), 2, 2, "VALID", 2),
                      (np.float32, (2, 7, 5, 2), 3, 2, "SAME", 3),
                      (np.float32, (1, 5, 6, 2), 2, 1, "SAME", 4),
                      (np.float64, (1, 5, 5, 1), 3, 3, "SAME", 5),
                      (np.float32, (1, 6, 4, 2), [2, 3], [2, 1], "VALID", 6),
                      (np.float32, (2, 2, 4, 4, 2), 2, 2, "VALID", 7),
                      (np.float32, (1, 3, 5, 4, 2), 3, 2, "SAME", 8),
                      (np.float32, (1, 3, 4, 5, 1), 2, 1, "SAME", 9)]
"""
_pool_specials_ns: dict = {"np": np}
exec(_POOL_SPECIALS_PROGRAM, _pool_specials_ns)  # noqa: S102 - the test's own program


@pytest.mark.bitexact
def test_max_pool_special_values_as_tf():
    # Windows (row-major) of one 2x2 pooling and the place of dy; values from TF 2.21.
    windows = [[np.nan, 1, 2, 3], [1, np.nan, 3, 2], [3, 2, 1, np.nan], [np.nan] * 4,
               [1, 5, 5, 2], [-np.inf] * 4, [np.nan, 5, np.nan, 5]]
    places = [0, 2, 0, 0, 1, 0, 0]
    for dtype in (np.float32, np.float64):
        low = np.finfo(dtype).min
        x = np.zeros((1, 2, 2 * len(windows), 1), dtype)
        for k, win in enumerate(windows):
            x[0, :, 2 * k:2 * k + 2, 0] = np.reshape(win, (2, 2))
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, 2, 2, "VALID")
        dy = np.arange(1, len(windows) + 1, dtype=dtype).reshape(1, 1, -1, 1)
        (g,) = tf.gradients(y, xt, tf.constant(dy))
        with tf.Session() as sess:
            yv, gv = sess.run([y, g])
        np.testing.assert_array_equal(yv.ravel(), [3, 3, 3, low, 5, low, 5])
        for k, place in enumerate(places):
            want = np.zeros(4, dtype)
            want[place] = k + 1
            np.testing.assert_array_equal(gv[0, :, 2 * k:2 * k + 2, 0].ravel(), want)


@pytest.mark.bitexact
def test_max_pool3d_special_values_as_tf():
    # Windows (row-major, one plane) of a 2x2 MaxPool3D, the pooled value and where dy
    # lands; values from TF 2.21: its running max keeps a NaN until a later input, and
    # its gradient goes to every input within 1e-5 of the output (near-ties too).
    windows = [([np.nan, 1, 2, 3], 3, [0, 0, 0, 1]), ([3, 2, 1, np.nan], np.nan, [0] * 4),
               ([-np.inf] * 4, -np.inf, [0] * 4), ([np.nan, 5, np.nan, 5], 5, [0, 1, 0, 1]),
               ([0.0, -0.0, -1, -2], -0.0, [1, 1, 0, 0]),
               ([1.0, 1.000001, 0.5, 0.2], np.float32(1.000001), [1, 1, 0, 0])]
    x = np.zeros((1, 1, 2, 2 * len(windows), 1), np.float32)
    for k, (win, _, _) in enumerate(windows):
        x[0, 0, :, 2 * k:2 * k + 2, 0] = np.reshape(win, (2, 2))
    xt = tf.constant(x)
    y = tf.nn.max_pool3d(xt, [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")
    (g,) = tf.gradients(y, xt, tf.constant(np.full((1, 1, 1, len(windows), 1), 3, np.float32)))
    with tf.Session() as sess:
        yv, gv = sess.run([y, g])
    for k, (_, pooled, hits) in enumerate(windows):
        np.testing.assert_array_equal(yv.ravel()[k], np.float32(pooled))
        assert np.signbit(yv.ravel()[k]) == np.signbit(pooled)
        np.testing.assert_array_equal(gv[0, 0, :, 2 * k:2 * k + 2, 0].ravel(),
                                      3 * np.array(hits, np.float32))


@pytest.mark.parametrize("case", range(9))
def test_max_pool_special_values_run(case):
    # The cases of the live test below, on any machine: both paths run and give gradients
    # that are +0.0 except at one place per window.
    dtype, shape, ksize, stride, padding, seed = _pool_specials_ns["POOL_SPECIAL_CASES"][case]
    tf.reset_default_graph()
    got = _pool_specials_ns["pool_specials"](tf, dtype, shape, ksize, stride, padding, seed)
    assert len(got["g"]) == int(np.prod(shape)) and got["y"]


@pytest.mark.bitexact
def test_max_pool_2x2_paths_equal_the_general_paths():
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        x = rng.integers(-2, 3, (3, 6, 4, 5)).astype(dtype)
        picks = rng.integers(0, 6, x.shape)
        x[picks == 0], x[picks == 1], x[picks == 2] = np.nan, -np.inf, -0.0
        general_y = pool_ops._pool_max_into(
            np.full((3, 3, 2, 5), np.finfo(dtype).min, dtype),
            [x[:, i::2, j::2] for i in (0, 1) for j in (0, 1)])
        fast_y = pool_ops._max_pool_2x2(x, 3, 2)
        np.testing.assert_array_equal(fast_y.view(np.uint8), general_y.view(np.uint8))
        assert np.signbit(fast_y[fast_y == 0]).any()  # the -0.0 fix-up ran
        dy = rng.standard_normal((3, 3, 2, 5)).astype(dtype)
        dy[rng.integers(0, 4, dy.shape) == 0] = -0.0
        fast = pool_ops._max_pool_grad_2x2(x, dy, 3, 2)
        general = pool_ops._max_pool_grad_windows(x, dy, 2, 2, (3, (0, 0), 2), (2, (0, 0), 2))
        np.testing.assert_array_equal(fast.view(np.uint8), general.view(np.uint8))


@pytest.mark.tf
@pytest.mark.bitexact
def test_live_max_pool_special_values(tf1):
    live = tf1(_POOL_SPECIALS_PROGRAM + """
tf.disable_eager_execution()
out = []
for case in POOL_SPECIAL_CASES:
    tf.reset_default_graph()
    out.append(pool_specials(tf, *case))
print(json.dumps(out))
""")
    for case, want in zip(_pool_specials_ns["POOL_SPECIAL_CASES"], live):
        tf.reset_default_graph()
        got = _pool_specials_ns["pool_specials"](tf, *case)
        assert got["y"] == want["y"], f"max_pool forward bits differ from TF's: {case}"
        assert got["g"] == want["g"], f"max_pool gradient bits differ from TF's: {case}"
