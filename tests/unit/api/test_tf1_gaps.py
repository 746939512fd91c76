"""TF1 APIs seen in tutorial and course code (issue 17, "small gaps"), against TF's values.

Values, names and messages marked "TF 2.21:" were observed under TensorFlow 2.21 with TF1
semantics (``tensorflow.compat.v1`` with ``disable_v2_behavior()``).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.random import philox


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ── arg_max / arg_min ────────────────────────────────────────────────────────────────
def test_arg_max_arg_min_are_the_raw_ops():
    x = tf.constant([[1, 5], [7, 2]])
    a = tf.arg_max(x, 1)
    b = tf.arg_min(x, dimension=0)
    c = tf.arg_max(x, 1, output_type=tf.int32)
    d = tf.arg_min([1.0, 2.0], 0, name="am")
    # TF 2.21: ArgMax:0 (2,) int64, ArgMin:0 (2,) int64, ArgMax_1:0 int32, am:0
    assert (a.name, a.dtype, a.shape.as_list()) == ("ArgMax:0", tf.int64, [2])
    assert (b.name, b.dtype) == ("ArgMin:0", tf.int64)
    assert (c.name, c.dtype) == ("ArgMax_1:0", tf.int32)
    assert d.name == "am:0"
    with tf.Session() as sess:
        va, vb, vc = sess.run([a, b, c])
    # TF 2.21: [1, 0], [0, 1], [1, 0] (int32)
    np.testing.assert_array_equal(va, [1, 0])
    np.testing.assert_array_equal(vb, [0, 1])
    assert vc.dtype == np.int32 and vc.tolist() == [1, 0]


def test_arg_max_takes_no_axis_keyword():
    # TF 2.21: TypeError arg_max() got an unexpected keyword argument 'axis'
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        tf.arg_max([1.0, 2.0], axis=0)


def test_arg_max_is_not_differentiable():
    x = tf.constant([1.0, 3.0])
    assert tf.gradients(tf.cast(tf.arg_max(x, 0), tf.float32), x) == [None]


# ── truncatediv / truncatemod / floor_div ────────────────────────────────────────────
def _signs(dtype=tf.int32):
    return tf.constant([-7, 7, -7, 7], dtype), tf.constant([2, 2, -2, -2], dtype)


def test_truncatediv_floor_div_truncatemod_values_and_names():
    x, y = _signs()
    d, e, f = tf.truncatediv(x, y), tf.floor_div(x, y), tf.truncatemod(x, y)
    # TF 2.21: TruncateDiv:0, FloorDiv:0, TruncateMod:0, all int32 (4,)
    assert [t.name for t in (d, e, f)] == ["TruncateDiv:0", "FloorDiv:0", "TruncateMod:0"]
    assert [t.op.type for t in (d, e, f)] == ["TruncateDiv", "FloorDiv", "TruncateMod"]
    assert all(t.dtype == tf.int32 and t.shape.as_list() == [4] for t in (d, e, f))
    assert tf.truncatediv(1, 2, name="foo").name == "foo:0"
    g = tf.truncatediv(tf.constant([-7.0, 7.5, 1.0, -1.0, 0.0]),
                       tf.constant([2.0, 2.0, 0.0, 0.0, 0.0]))
    h = tf.truncatemod(tf.constant([-7.0, 7.5, 5.0, -0.0]), tf.constant([2.0, -2.0, 0.0, 3.0]))
    fd = tf.floor_div(tf.constant([-7.0, 7.5]), tf.constant([2.0, 2.0]))
    with tf.Session() as sess:
        vd, ve, vf, vg, vh, vfd = sess.run([d, e, f, g, h, fd])
        # TF 2.21: [-3 3 3 -3], [-4 3 3 -4], [-1 1 -1 1]
        assert vd.tolist() == [-3, 3, 3, -3]
        assert ve.tolist() == [-4, 3, 3, -4]
        assert vf.tolist() == [-1, 1, -1, 1]
        # TF 2.21: [-3. 3. inf -inf nan], [-1. 1.5 nan -0.], [-4. 3.]
        np.testing.assert_array_equal(vg, np.array([-3, 3, np.inf, -np.inf, np.nan], np.float32))
        np.testing.assert_array_equal(vh, np.array([-1, 1.5, np.nan, -0.0], np.float32))
        assert np.signbit(vh[3])
        assert vfd.tolist() == [-4.0, 3.0]
        # TF 2.21: int64 [-3 3]; uint8 [125 3]; int32 INT_MIN / -1 -> INT_MIN, mod -> 0
        assert sess.run(tf.truncatediv(*_signs(tf.int64))).tolist() == [-3, 3, 3, -3]
        assert sess.run(tf.truncatediv(tf.constant([250, 7], tf.uint8),
                                       tf.constant([2, 2], tf.uint8))).tolist() == [125, 3]
        int_min = tf.constant([-2 ** 31], tf.int32)
        assert sess.run(tf.truncatediv(int_min, -1)).tolist() == [-2 ** 31]
        assert sess.run(tf.truncatemod(int_min, -1)).tolist() == [0]


@pytest.mark.parametrize("fn,op_type", [(tf.truncatediv, "TruncateDiv"),
                                        (tf.truncatemod, "TruncateMod")])
def test_integer_truncate_by_zero_is_an_internal_error(fn, op_type):
    t = fn(tf.constant([1, 2]), tf.constant([1, 0]))
    with tf.Session() as sess:
        # TF 2.21: InternalError "Unexpected error in binary operator (only integer div and
        # mod should have errors)" (FloorDiv's is InvalidArgumentError "Integer division by
        # zero")
        with pytest.raises(tf.errors.InternalError,
                           match=r"^Unexpected error in binary operator \(only integer div "
                                 r"and mod should have errors\)"):
            sess.run(t)
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Integer division by zero"):
            sess.run(tf.floor_div(tf.constant([1, 2]), tf.constant([1, 0])))


def test_truncate_ops_build_errors():
    # TF 2.21: TypeError Input 'y' of 'TruncateDiv' Op has type float32 that does not match
    # type int32 of argument 'x'.
    with pytest.raises(TypeError, match="Input 'y' of 'TruncateDiv' Op has type float32 that "
                                        "does not match type int32 of argument 'x'"):
        tf.truncatediv(tf.constant([1]), tf.constant([1.0]))
    # TF 2.21: ValueError Dimensions must be equal, but are 2 and 3 for ...
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.truncatemod(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    # TF 2.21: TruncateMod's T: int32, int64, bfloat16, float16, float32, float64 (no bool, no
    # unsigned types); TruncateDiv's: every number type
    with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType bool not "
                                        "in list of allowed values: int32, int64, float16"):
        tf.truncatemod(tf.constant([True]), tf.constant([True]))
    with pytest.raises(TypeError, match="DataType uint8 not in list"):
        tf.truncatemod(tf.constant([1], tf.uint8), tf.constant([1], tf.uint8))
    with pytest.raises(TypeError, match="DataType bool not in list"):
        tf.truncatediv(tf.constant([True]), tf.constant([True]))


def test_truncatediv_complex_builds_but_has_no_kernel():
    t = tf.truncatediv(tf.constant([-7 + 1j]), tf.constant([2 + 0j]))
    assert t.dtype == tf.complex128
    with tf.Session() as sess:
        # TF 2.21: InvalidArgumentError No OpKernel was registered to support Op
        # 'TruncateDiv' used by {{node TruncateDiv_3}} with these attrs: [T=DT_COMPLEX128]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"No OpKernel was registered to support Op 'TruncateDiv'.*"
                                 r"\[T=DT_COMPLEX128\]"):
            sess.run(t)


def test_truncate_ops_gradients_as_tf():
    x = tf.constant([1.0, 2.0])
    # TF 2.21: TruncateDiv's and FloorDiv's registered gradients return None
    assert tf.gradients(tf.truncatediv(x, 2.0), x) == [None]
    assert tf.gradients(tf.floor_div(x, 2.0), x) == [None]
    # TF 2.21: LookupError No gradient defined for operation'TruncateMod_1' (op type:
    # TruncateMod)
    with pytest.raises(LookupError, match=r"No gradient defined for operation.*"
                                          r"\(op type: TruncateMod\)"):
        tf.gradients(tf.truncatemod(x, 2.0), x)


# ── nn.top_k's named tuple ───────────────────────────────────────────────────────────
def test_top_k_returns_tf_named_tuple():
    r = tf.nn.top_k([1.0, 3.0, 2.0], 2)
    # TF 2.21: type TopKV2, a tuple with _fields ('values', 'indices'); repr
    # TopKV2(values=<tf.Tensor 'TopKV2:0' shape=(2,) dtype=float32>, indices=<tf.Tensor
    # 'TopKV2:1' shape=(2,) dtype=int32>)
    assert type(r).__name__ == "TopKV2" and isinstance(r, tuple)
    assert r._fields == ("values", "indices")
    assert repr(r) == ("TopKV2(values=<tf.Tensor 'TopKV2:0' shape=(2,) dtype=float32>, "
                       "indices=<tf.Tensor 'TopKV2:1' shape=(2,) dtype=int32>)")
    assert r.values is r[0] and r.indices is r[1]
    values, indices = r
    assert (values.name, indices.name, indices.dtype) == ("TopKV2:0", "TopKV2:1", tf.int32)
    assert type(tf.nn.top_k([1.0, 2.0])) is type(r)
    # TF 2.21: tf.math.top_k is tf.nn.top_k, tf.math.in_top_k is tf.nn.in_top_k
    assert tf.math.top_k is tf.nn.top_k and tf.math.in_top_k is tf.nn.in_top_k
    with tf.Session() as sess:
        out = sess.run(r)
    # TF 2.21: TopKV2(values=array([3., 2.], dtype=float32), indices=array([1, 2],
    # dtype=int32))
    assert type(out).__name__ == "TopKV2"
    assert out.values.tolist() == [3.0, 2.0] and out.indices.tolist() == [1, 2]
    assert out.indices.dtype == np.int32


# ── multinomial / random.categorical ─────────────────────────────────────────────────
def _md5(v):
    return hashlib.md5(np.ascontiguousarray(v).tobytes()).hexdigest()[:10]


def test_multinomial_names_attrs_and_tf_values():
    logits = tf.constant([[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]])
    m = tf.multinomial(logits, 5, seed=7)
    c = tf.random.categorical(logits, 4, dtype=tf.int32, seed=3)
    # TF 2.21: multinomial/Multinomial:0 (2, 5) int64; categorical/Multinomial:0 (2, 4) int32;
    # ops Const, multinomial/Multinomial/num_samples, multinomial/Multinomial, ...; attrs
    # seed=87654321 seed2=7 T=float32 output_dtype=int64
    assert (m.name, m.shape.as_list(), m.dtype) == ("multinomial/Multinomial:0", [2, 5],
                                                    tf.int64)
    assert (c.name, c.shape.as_list(), c.dtype) == ("categorical/Multinomial:0", [2, 4],
                                                    tf.int32)
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "Const", "multinomial/Multinomial/num_samples", "multinomial/Multinomial",
        "categorical/Multinomial/num_samples", "categorical/Multinomial"]
    assert (m.op.get_attr("seed"), m.op.get_attr("seed2")) == (87654321, 7)
    assert m.op.get_attr("T") == tf.float32 and m.op.get_attr("output_dtype") == tf.int64
    assert tf.random.multinomial is tf.multinomial
    with tf.Session() as sess:
        # TF 2.21: [[2,0,2,2,1],[0,0,0,0,0]], then [[2,2,2,2,2],[1,0,0,0,0]] (the stream
        # continues); categorical [[1,2,0,2],[0,0,0,0]]
        assert sess.run(m).tolist() == [[2, 0, 2, 2, 1], [0, 0, 0, 0, 0]]
        assert sess.run(m).tolist() == [[2, 2, 2, 2, 2], [1, 0, 0, 0, 0]]
        assert sess.run(c).tolist() == [[1, 2, 0, 2], [0, 0, 0, 0]]
    with tf.Session() as sess:  # TF 2.21: a new session replays the stream
        assert sess.run(m).tolist() == [[2, 0, 2, 2, 1], [0, 0, 0, 0, 0]]


def test_multinomial_graph_seed_non_finite_and_dtypes():
    tf.set_random_seed(5)
    m2 = tf.multinomial(tf.constant([[0.5, 0.2, 0.1, -0.3, 1.0, 0.0, 0.0, 2.0]]), 11)
    m3 = tf.multinomial(tf.constant([[0.5, np.inf], [np.nan, 0.0], [-np.inf, 1.0]]), 6,
                        seed=2)
    m4 = tf.multinomial(tf.constant(np.log(np.arange(1, 11, dtype=np.float64))[None]), 3,
                        seed=2)
    p, n = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.int32)
    fed = tf.multinomial(p, n, seed=1)
    with tf.Session() as sess:
        # TF 2.21: [[5,4,2,7,4,3,7,7,7,7,6]]; non-finite logits add nothing: [[0]*6, [1]*6,
        # [1]*6]; float64 [[3,3,3]]
        assert sess.run(m2).tolist() == [[5, 4, 2, 7, 4, 3, 7, 7, 7, 7, 6]]
        assert sess.run(m3).tolist() == [[0] * 6, [1] * 6, [1] * 6]
        assert sess.run(m4).tolist() == [[3, 3, 3]]
        # TF 2.21: a row with no finite logit gives num_classes: [[2,2,2]] for -inf and NaN;
        # huge logits [[1e30,-1e30,0]] -> [[0,0,0]]; empty outputs have shape (0,3), (2,0)
        assert sess.run(fed, {p: [[-np.inf, -np.inf]], n: 3}).tolist() == [[2, 2, 2]]
        assert sess.run(fed, {p: [[np.nan, np.nan]], n: 3}).tolist() == [[2, 2, 2]]
        assert sess.run(fed, {p: [[1e30, -1e30, 0]], n: 3}).tolist() == [[0, 0, 0]]
        assert sess.run(fed, {p: np.zeros((0, 2)), n: 3}).shape == (0, 3)
        assert sess.run(fed, {p: np.zeros((2, 2)), n: 0}).shape == (2, 0)
        # TF 2.21: InvalidArgumentError "num_samples should be non-negative, got -1",
        # "num_classes should be positive, got 0"
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^num_samples should be non-negative, got -1"):
            sess.run(fed, {p: [[1.0, 2.0]], n: -1})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^num_classes should be positive, got 0"):
            sess.run(fed, {p: np.zeros((2, 0)), n: 0})
    with tf.Graph().as_default():  # no graph seed: seeds (87654321, 4)
        half = tf.multinomial(tf.constant([[1.0, 2.0, 3.0]], tf.float16), 6, seed=4)
        with tf.Session() as sess:
            # TF 2.21: float16 logits [[2,2,1,2,2,1]]
            assert sess.run(half).tolist() == [[2, 2, 1, 2, 2, 1]]


def _sharded_cases():
    rng = np.random.RandomState(0)
    rng.randn(20, 50)
    first = [(rng.randn(64, 50).astype(np.float32), 8, 11)]
    rng = np.random.RandomState(1)
    return first + [(rng.randn(b, c).astype(np.float32), s, 21)
                    for b, c, s in [(13, 400, 1), (300, 1000, 1), (50, 30, 40), (9, 5000, 3)]]


def test_multinomial_replays_tfs_shards(monkeypatch):
    """Large calls: TF's Shard splits the rows by its cost estimate and thread count (TF's
    values below were taken on a 2-CPU machine)."""
    monkeypatch.setattr(philox, "intra_op_threads", lambda: 2)
    rng = np.random.RandomState(0)
    small = tf.multinomial(rng.randn(20, 50).astype(np.float32), 8, seed=11)
    ts = [tf.multinomial(x, s, seed=seed) for x, s, seed in _sharded_cases()]
    with tf.Session() as sess:
        got = [_md5(sess.run(t)) for t in [small] + ts]
    # TF 2.21 (2 CPUs): md5 prefixes of the int64 outputs
    assert got == ["4da3c61621", "faf5677fd0", "ff4bd7ea05", "54b8dec2cf", "47343e2b6e",
                   "262b6545ad"]


def test_multinomial_shards_follow_the_thread_count(monkeypatch):
    x, s, seed = _sharded_cases()[0]
    t = tf.multinomial(x, s, seed=seed)
    monkeypatch.setattr(philox, "intra_op_threads", lambda: 1)
    with tf.Session() as sess:  # one thread: one shard, so not TF's 2-CPU values
        assert _md5(sess.run(t)) != "faf5677fd0"
    # Eigen's parallelFor blocks: 13 rows of 20432 cycles on 2 threads -> blocks of 4
    assert philox._parallel_for_blocks(13, 20432, 2) == [(0, 4), (4, 8), (8, 12), (12, 13)]
    assert philox._parallel_for_blocks(20, 4757, 2) == [(0, 20)]
    assert philox._parallel_for_blocks(64, 4757, 2) == [(i, i + 8) for i in range(0, 64, 8)]
    assert philox._parallel_for_blocks(64, 4757, 1) == [(0, 64)]


def test_multinomial_distribution_without_seed():
    probs = np.array([0.2, 0.3, 0.5])
    t = tf.multinomial(np.log(probs)[None], 20000)
    with tf.Session() as sess:
        a = sess.run(t)
    with tf.Session() as sess:
        b = sess.run(t)
    assert not np.array_equal(a, b)  # no seed: a fresh stream per session
    np.testing.assert_allclose(np.bincount(a[0], minlength=3) / a.size, probs, atol=0.015)


def test_multinomial_build_errors_and_gradient():
    # TF 2.21: ValueError Shape must be rank 2 but is rank 1 for ... ; Shape must be rank 0
    # but is rank 1; ValueError Argument `dtype` got invalid value <dtype: 'float32'>.
    # Accepted dtypes are (tf.int32, tf.int64).; TypeError Expected int32 passed to
    # parameter 'num_samples' of op 'Multinomial', got 3.0 of type 'float' instead. Error:
    # Expected int32, but got 3.0 of type 'float'.; TypeError Input 'num_samples' of
    # 'Multinomial' Op has type int64 that does not match expected type of int32.
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.multinomial([1.0, 2.0], 3)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.multinomial([[1.0, 2.0]], [3])
    with pytest.raises(ValueError, match=r"^Argument `dtype` got invalid value <dtype: "
                                         r"'float32'>\. Accepted dtypes are \(tf\.int32, "
                                         r"tf\.int64\)\.$"):
        tf.multinomial([[1.0, 2.0]], 3, output_dtype=tf.float32)
    with pytest.raises(TypeError, match=r"^Expected int32 passed to parameter 'num_samples' "
                                        r"of op 'Multinomial', got 3\.0 of type 'float' "
                                        r"instead\. Error: Expected int32, but got 3\.0 of "
                                        r"type 'float'\.$"):
        tf.multinomial([[1.0, 2.0]], 3.0)
    with pytest.raises(TypeError, match="Input 'num_samples' of 'Multinomial' Op has type "
                                        "int64 that does not match expected type of int32"):
        tf.multinomial([[1.0, 2.0]], tf.constant(4, tf.int64))
    with pytest.raises(TypeError, match="parameter 'logits' has DataType bool"):
        tf.multinomial([[True, False]], 3)
    p = tf.placeholder(tf.float32, [None, None])
    # TF 2.21: (?, ?) with a fed num_samples, (?, 4) with a constant one
    assert tf.multinomial(p, tf.placeholder(tf.int32)).shape.as_list() == [None, None]
    assert tf.multinomial(p, 4).shape.as_list() == [None, 4]
    x = tf.constant([[1.0, 2.0]])
    # TF 2.21: NotDifferentiable("Multinomial"): [None]
    assert tf.gradients(tf.cast(tf.multinomial(x, 2), tf.float32), x) == [None]
    ints = tf.multinomial(tf.constant([[1, 2, 3]], tf.int32), 6, seed=4)
    assert ints.dtype == tf.int64
    with tf.Session() as sess:
        # TF 2.21: No OpKernel was registered to support Op 'Multinomial' used by {{node
        # multinomial/Multinomial}} with these attrs: [seed=87654321, seed2=4, T=DT_INT32,
        # output_dtype=DT_INT64]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"No OpKernel was registered to support Op 'Multinomial'.*"
                                 r"\[seed=87654321, seed2=4, T=DT_INT32, "
                                 r"output_dtype=DT_INT64\]"):
            sess.run(ints)


# ── top-level error aliases ──────────────────────────────────────────────────────────
def test_top_level_error_aliases_as_tf1():
    # TF 2.21: the only exception class at tf.compat.v1's top level is OpError, the same
    # class as tf.errors.OpError; the specific errors are only under tf.errors
    assert tf.OpError is tf.errors.OpError
    assert issubclass(tf.errors.InvalidArgumentError, tf.OpError)
    for name in ["InvalidArgumentError", "NotFoundError", "OutOfRangeError"]:
        assert not hasattr(tf, name)
    with pytest.raises(tf.OpError):
        with tf.Session() as sess:
            sess.run(tf.floor_div(tf.constant([1]), tf.constant([0])))


# ── ConfigProto, device placement ────────────────────────────────────────────────────
_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def _runs(fetch, expected, config=None):
    with tf.Session(config=config) as sess:
        assert sess.run(fetch).tolist() == expected


def test_gpu_request_runs_on_the_cpu_as_with_soft_placement():
    c = tf.constant(3.0, name="c")
    with tf.device("/gpu:0"):
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.add(a, 1.0, name="b")
    # TF 2.21: the request is kept on the op
    assert (a.device, b.op.device) == ("/device:GPU:0", "/device:GPU:0")
    # TF 2.21 on a CPU-only machine: [2. 3.] with allow_soft_placement=True; without it every
    # run fails ("Cannot assign a device for operation b: ..."). scopeflow has no GPU and
    # always places softly (docs/MIGRATION.md: tf.device is recorded, not enforced).
    _runs(b, [2.0, 3.0])
    _runs(c, 3.0)
    _runs(b, [2.0, 3.0], tf.ConfigProto(allow_soft_placement=True))
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False,
                            gpu_options=tf.GPUOptions(allow_growth=True,
                                                      per_process_gpu_memory_fraction=0.5))
    _runs(b, [2.0, 3.0], config)


@pytest.mark.parametrize("device", [
    "/gpu:0", "/device:GPU:1", "/cpu:1", "/gpu:*", "/device:TPU:0",
    "/job:localhost/replica:0/task:0/device:GPU:0", "/job:worker/task:1/device:CPU:0",
    "/replica:1", "/cpu:0", "/device:CPU:*", "/job:localhost", "/task:0/cpu:0",
    "/job:localhost/replica:0/task:0", ""])
def test_every_device_request_runs(device):
    with tf.device(device):
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.identity(a, name="b")
    _runs(b, [1.0, 2.0])
    _runs(b, [1.0, 2.0], tf.ConfigProto(allow_soft_placement=True))


def test_variable_on_gpu():
    with tf.device("/device:GPU:1"):
        v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 1.0


def test_log_device_placement_names_the_cpus_device_count_adds(capfd):
    with tf.device("/cpu:1"):
        b = tf.identity(tf.constant([1.0, 2.0], name="c"), name="b")
    with tf.device("/cpu:2"):
        d = tf.identity(tf.constant([1.0], name="e"), name="d")
    config = tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=True)
    with tf.Session(config=config) as sess:
        sess.run([b, d])
    # TF 2.21 (allow_soft_placement=True): /cpu:1 is a device with device_count CPU 2; /cpu:2
    # is not, and is placed on CPU:0
    assert capfd.readouterr().err.splitlines() == [
        f"b: (Identity): {_CPU0[:-1]}1", f"d: (Identity): {_CPU0}",
        f"c: (Const): {_CPU0[:-1]}1", f"e: (Const): {_CPU0}"]


def test_log_device_placement_prints_tfs_lines(capfd):
    with tf.device("/gpu:0"):
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
    x = w + 1
    init = tf.global_variables_initializer()
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(init)
        capfd.readouterr()
        sess.run(x)  # placed already: nothing more
        assert capfd.readouterr().err == ""
        y = tf.multiply(x, 2.0, name="y")
        assert sess.run(y).tolist() == [2.0, 2.0]
        grown = capfd.readouterr().err
    # TF 2.21: the whole graph again after it grew, generators (constants) last
    assert grown.splitlines() == [f"{n}: ({t}): {_CPU0}" for n, t in [
        ("w", "VariableV2"), ("w/Assign", "Assign"), ("w/read", "Identity"), ("add", "AddV2"),
        ("init", "NoOp"), ("y", "Mul"), ("w/Initializer/zeros", "Const"), ("add/y", "Const"),
        ("y/y", "Const")]]


# ── get_variable ─────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("shape", [None, [None, 3]])
def test_get_variable_invalid_initializer_message_is_tfs(shape):
    # TF 2.21, for both shapes: ValueError "The initializer passed is not valid. It should be
    # a callable with no arguments and the shape should not be provided or an instance of
    # `tf.keras.initializers.*' and `shape` should be fully defined."; scopeflow then names
    # the variable and the shape
    tf_text = ("The initializer passed is not valid. It should be a callable with no arguments "
               "and the shape should not be provided or an instance of "
               "`tf.keras.initializers.*' and `shape` should be fully defined.")
    with pytest.raises(ValueError) as info:
        tf.get_variable("f4", shape=shape, initializer=tf.zeros_initializer())
    assert str(info.value).startswith(tf_text)
    assert "variable f4" in str(info.value)


def test_string_constants_keep_trailing_nul_bytes():
    # TF keeps every byte; NumPy's fixed-width bytes arrays would drop the trailing NULs.
    values = tf.Session().run([tf.constant([b"a\x00\x00", b"b"]), tf.constant(b"a\x00")])
    assert values[0].tolist() == [b"a\x00\x00", b"b"] and values[1] == b"a\x00"
