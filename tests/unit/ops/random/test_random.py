"""Random ops: seeding semantics, per-session streams, and bit-exact parity with TensorFlow.

The fixtures in tests/fixtures/tf_random/ were recorded from TF 2.21's CPU kernels by
``make_fixtures.py`` (run it under ../shared/tools/tf1 to refresh them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.random import philox

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "tests" / "fixtures" / "tf_random"


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_random_cases",
                                                  FIXTURES / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    records = json.loads((FIXTURES / "streams.json").read_text())["cases"]
    return mod, [(c, records[c["id"]]) for c in mod.CASES]


FIXTURE_MOD, FIXTURE_CASES = _load_cases()


def _bits(value):
    return FIXTURE_MOD.bits(np.asarray(value))


# ── Bit-exact parity with TensorFlow ─────────────────────────────────────────────────
@pytest.mark.bitexact
@pytest.mark.parametrize("case,record", FIXTURE_CASES, ids=[c["id"] for c, _ in FIXTURE_CASES])
def test_streams_match_tensorflow(case, record):
    """Given TF's (seed, seed2) attrs, every run is TF's, bit for bit."""
    forced = dict(case, graph_seed=record["seed"], op_seed=record["seed2"])
    out = FIXTURE_MOD.build(tf, forced)
    op = FIXTURE_MOD.random_op(tf.get_default_graph())
    assert (op.get_attr("seed"), op.get_attr("seed2")) == (record["seed"], record["seed2"])
    with tf.Session() as sess:
        runs = [_bits(sess.run(out)), _bits(sess.run(out))]
    with tf.Session() as sess:
        runs.append(_bits(sess.run(out)))
    assert out.dtype.name == record["dtype"]
    for i, (got, want) in enumerate(zip(runs, record["runs"])):
        assert got == want, f"run {i}: first difference at element " \
            f"{next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)}"


@pytest.mark.parametrize("case,record", FIXTURE_CASES, ids=[c["id"] for c, _ in FIXTURE_CASES])
def test_seed_attrs_match_tensorflow(case, record):
    FIXTURE_MOD.build(tf, case)
    op = FIXTURE_MOD.random_op(tf.get_default_graph())
    assert (op.get_attr("seed"), op.get_attr("seed2")) == (record["seed"], record["seed2"])
    assert op.name == record["op"]


def _libm():
    name = ctypes.util.find_library("m")
    if name is None or not sys.platform.startswith("linux"):
        pytest.skip("needs glibc's libm")
    lib = ctypes.CDLL(name)
    lib.logf.restype = ctypes.c_float
    lib.logf.argtypes = [ctypes.c_float]
    lib.sincosf.restype = None
    lib.sincosf.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_float),
                            ctypes.POINTER(ctypes.c_float)]
    return lib


@pytest.mark.bitexact
def test_box_muller_math_matches_glibc():
    """philox.logf/sincosf replay glibc on the inputs Box-Muller can produce."""
    lib = _libm()
    rng = np.random.default_rng(0)
    words = np.concatenate([rng.integers(0, 2**23, 20000), np.arange(64),
                            2**23 - 1 - np.arange(64)]).astype(np.uint32)
    u = philox._uint32_to_float(words)
    u1 = np.maximum(u, np.float32(1e-7))
    v1 = (2.0 * np.pi * u.astype(np.float64)).astype(np.float32)
    got_log = philox.logf(u1)
    got_sin, got_cos = philox.sincosf(v1)
    s, c = ctypes.c_float(), ctypes.c_float()
    want_log = np.array([lib.logf(float(x)) for x in u1], np.float32)
    want_sin, want_cos = [], []
    for x in v1:
        lib.sincosf(float(x), ctypes.byref(s), ctypes.byref(c))
        want_sin.append(s.value)
        want_cos.append(c.value)
    np.testing.assert_array_equal(got_log, want_log)
    np.testing.assert_array_equal(got_sin, np.array(want_sin, np.float32))
    np.testing.assert_array_equal(got_cos, np.array(want_cos, np.float32))


@pytest.mark.bitexact
def test_philox_known_answer():
    """Philox4x32-10 known-answer vectors (Random123's kat_vectors)."""
    assert philox.philox4x32(0, 0, 1)[0].tolist() == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                      0x9B00DBD8]
    key = 0x299F31D0_A4093822
    counter = 0x03707344_13198A2E_85A308D3_243F6A88
    assert philox.philox4x32(key, counter, 1)[0].tolist() == [0xD16CFE09, 0x94FDCCEB,
                                                              0x5001E420, 0x24126EA1]


@pytest.mark.bitexact
@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    code = """
    tf.set_random_seed(3)
    a = tf.random_uniform([5], -2, 2, seed=1)
    b = tf.random_normal([3, 3], seed=2)
    c = tf.truncated_normal([11], stddev=0.5, seed=3)
    with tf.Session() as s:
        r1 = s.run([a, b, c]); r2 = s.run([a, b, c])
    print(json.dumps([x.reshape(-1).view(np.uint32).tolist() for x in r1 + r2]))
    """
    want = tf1(code)
    tf.set_random_seed(3)
    a = tf.random_uniform([5], -2, 2, seed=1)
    b = tf.random_normal([3, 3], seed=2)
    c = tf.truncated_normal([11], stddev=0.5, seed=3)
    with tf.Session() as s:
        got = s.run([a, b, c]) + s.run([a, b, c])
    assert [np.asarray(x).reshape(-1).view(np.uint32).tolist() for x in got] == want


# ── Seeding semantics ────────────────────────────────────────────────────────────────
SEED_EXAMPLE = """
import scopeflow as tf
tf.set_random_seed(2)
c = tf.random_uniform([], -10, 10)
d = tf.random_uniform([], -10, 10)
with tf.Session() as sess:
    print(sess.run(c)); print(sess.run(d))
"""


def _run_python(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_graph_seed_program_is_reproducible_across_processes():
    first, second = _run_python(SEED_EXAMPLE), _run_python(SEED_EXAMPLE)
    assert first == second
    c, d = (float(x) for x in first.split())
    assert c != d and -10 <= c < 10 and -10 <= d < 10


def test_no_seed_program_differs_across_processes():
    code = "import scopeflow as tf\nprint(tf.Session().run(tf.random_uniform([4])).tolist())"
    assert _run_python(code) != _run_python(code)


def test_new_session_replays_and_runs_continue():
    tf.set_random_seed(7)
    x = tf.random_normal([6])
    with tf.Session() as s1:
        a1, a2 = s1.run(x), s1.run(x)
    with tf.Session() as s2:
        b1, b2 = s2.run(x), s2.run(x)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)


def test_streams_are_independent_of_fetch_structure():
    """One op's stream is per session, whatever plan runs it."""
    x = tf.random_uniform([3], seed=4)
    y = tf.multiply(x, 2.0)
    with tf.Session() as s:
        first = s.run(x)
        second = s.run(y) / 2.0
    with tf.Session() as s:
        replay = [s.run(x), s.run(x)]
    np.testing.assert_array_equal(first, replay[0])
    np.testing.assert_allclose(second, replay[1])


def test_op_seed_alone_is_deterministic():
    x = tf.random_uniform([4], seed=123)
    with tf.Session() as s:
        a = s.run(x)
    g = tf.Graph()
    with g.as_default():
        tf.random_normal([10])                # unrelated op first
        y = tf.random_uniform([4], seed=123)
    with tf.Session(graph=g) as s:
        b = s.run(y)
    np.testing.assert_array_equal(a, b)


def test_no_seed_differs_per_session():
    x = tf.random_uniform([8])
    assert (x.op.get_attr("seed"), x.op.get_attr("seed2")) == (0, 0)
    with tf.Session() as s1, tf.Session() as s2:
        assert not np.array_equal(s1.run(x), s2.run(x))


def test_distinct_ops_get_distinct_streams():
    tf.set_random_seed(1)
    a = tf.random_uniform([5])
    b = tf.random_uniform([5])
    with tf.Session() as s:
        va, vb = s.run([a, b])
    assert not np.array_equal(va, vb)


def test_seed_zero_pair_is_not_random():
    tf.set_random_seed(0)
    x = tf.random_uniform([3], seed=0)
    op = x.op
    assert (op.get_attr("seed"), op.get_attr("seed2")) == (0, 2**31 - 1)
    with tf.Session() as s1, tf.Session() as s2:
        np.testing.assert_array_equal(s1.run(x), s2.run(x))


# ── Graph structure, shapes, errors ──────────────────────────────────────────────────
def _ops():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


def test_random_uniform_graph_matches_tf():
    tf.random_uniform([2, 3])
    tf.random_uniform([], -10, 10)
    tf.random_uniform([4], 0, 5)
    tf.random_uniform([3], 0, 10, dtype=tf.int32)
    assert _ops() == [
        ("random_uniform/shape", "Const"), ("random_uniform/RandomUniform", "RandomUniform"),
        ("random_uniform_1/shape", "Const"), ("random_uniform_1/min", "Const"),
        ("random_uniform_1/max", "Const"), ("random_uniform_1/RandomUniform", "RandomUniform"),
        ("random_uniform_1/sub", "Sub"), ("random_uniform_1/mul", "Mul"),
        ("random_uniform_1", "AddV2"),
        ("random_uniform_2/shape", "Const"), ("random_uniform_2/min", "Const"),
        ("random_uniform_2/max", "Const"), ("random_uniform_2/RandomUniform", "RandomUniform"),
        ("random_uniform_2/Mul", "Mul"),
        ("random_uniform_3/shape", "Const"), ("random_uniform_3/min", "Const"),
        ("random_uniform_3/max", "Const"), ("random_uniform_3", "RandomUniformInt")]


def test_normal_and_truncated_and_shuffle_graphs_match_tf():
    tf.random_normal([2, 2])
    tf.truncated_normal([5], seed=7)
    tf.random_shuffle([1, 2, 3])
    assert _ops() == [
        ("random_normal/shape", "Const"), ("random_normal/mean", "Const"),
        ("random_normal/stddev", "Const"),
        ("random_normal/RandomStandardNormal", "RandomStandardNormal"),
        ("random_normal/mul", "Mul"), ("random_normal", "AddV2"),
        ("truncated_normal/shape", "Const"), ("truncated_normal/mean", "Const"),
        ("truncated_normal/stddev", "Const"),
        ("truncated_normal/TruncatedNormal", "TruncatedNormal"),
        ("truncated_normal/mul", "Mul"), ("truncated_normal", "AddV2"),
        ("RandomShuffle/value", "Const"), ("RandomShuffle", "RandomShuffle")]


def test_static_shapes_and_dtypes():
    assert tf.random_uniform([2, 3]).shape.as_list() == [2, 3]
    assert tf.random_normal([], dtype=tf.float64).dtype == tf.float64
    assert tf.random_uniform([4], maxval=3, dtype=tf.int64).dtype == tf.int64
    n = tf.placeholder(tf.int32, [2])
    x = tf.random_uniform(n)
    assert x.shape.as_list() == [None, None]
    with tf.Session() as s:
        assert s.run(x, {n: [3, 2]}).shape == (3, 2)
    assert tf.random_shuffle(tf.placeholder(tf.float32, [None, 3])).shape.as_list() == [None, 3]
    m = tf.placeholder(tf.int32, [])
    y = tf.random_normal([m, 3])
    assert y.shape.as_list() == [None, 3]
    packed = y.op.inputs[0].op.inputs[0].op.inputs[0].op
    assert (packed.name, packed.type) == ("random_normal_1/shape", "Pack")
    with tf.Session() as s:
        assert s.run(y, {m: 2}).shape == (2, 3)


def test_errors():
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random_normal([2], dtype=tf.int32)
    x = tf.random_uniform([2], 5, 5, dtype=tf.int32)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="minval"):
        s.run(x)


def test_not_differentiable():
    tf.random_uniform([1])
    tf.random_uniform([1], maxval=3)
    tf.random_normal([1])
    tf.truncated_normal([1])
    tf.random_shuffle([1, 2])
    random_types = {"RandomUniform", "RandomUniformInt", "RandomStandardNormal",
                    "TruncatedNormal", "RandomShuffle"}
    ops = [op for op in tf.get_default_graph().get_operations() if op.type in random_types]
    assert {op.type for op in ops} == random_types - {"RandomUniformInt"}
    for op in ops:
        assert op.op_def.stateful and op.op_def.has_grad_rule and op.op_def.grad is None


@pytest.mark.bitexact
def test_seed_example_prints_tensorflows_numbers():
    """Seed 000's a.py: with tf.set_random_seed(2), TF 2.21 prints 6.5812798 and -5.2316904."""
    tf.set_random_seed(2)
    c = tf.random_uniform([], -10, 10)
    d = tf.random_uniform([], -10, 10)
    with tf.Session() as sess:
        assert (sess.run(c), sess.run(d)) == (np.float32(6.5812798), np.float32(-5.2316904))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("kind", ["uniform", "normal", "truncated_normal"])
def test_generated_in_chunks_as_in_one_pass(monkeypatch, kind, dtype):
    # Large outputs are generated a chunk of blocks at a time (bounded temporaries): the
    # values are those of one pass, whatever the chunk boundaries.
    draw = getattr(philox, kind)
    whole = draw(philox.PhiloxStream(7, 9), 1001, dtype)
    monkeypatch.setattr(philox, "_CHUNK_BLOCKS", 6)
    chunked = draw(philox.PhiloxStream(7, 9), 1001, dtype)
    assert chunked.shape == whole.shape == (1001,) and chunked.dtype == whole.dtype
    np.testing.assert_array_equal(chunked.view(np.uint8), whole.view(np.uint8))
