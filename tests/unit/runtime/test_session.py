"""tf.Session as TF1: fetch structures, feeds and their checks, defaults, plans and pruning.

Literals marked "From TF 2.21" were observed with real TensorFlow (TF1 semantics).
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.runtime import plan as plan_module
from scopeflow.runtime import session as session_module


# ── fetches ─────────────────────────────────────────────────────────────────────────
def test_fetch_structures_round_trip():
    a = tf.constant(1.0, name="a")
    b = tf.constant([1, 2], name="b")
    n = tf.no_op(name="n")
    NT = collections.namedtuple("NT", ["x", "y"])
    with tf.Session() as s:
        r = s.run({"a": a, "l": [b, (a, n)], "nt": NT(a, "b:0"), "o": "n"})
        assert sorted(r) == ["a", "l", "nt", "o"]
        assert type(r["l"]) is list and type(r["l"][1]) is tuple and type(r["nt"]) is NT
        assert r["a"] == 1.0 and r["l"][0].tolist() == [1, 2] and r["l"][1][1] is None
        assert r["o"] is None and r["nt"].y.tolist() == [1, 2]
        # From TF 2.21: scalars come back as NumPy scalars (np.float32), not 0-d arrays.
        assert type(r["a"]) is np.float32
        assert s.run([a, n])[1] is None and s.run(n) is None
        assert type(s.run((a,))) is tuple and s.run([]) == [] and s.run({}) == {}
        assert s.run("a:0") == 1.0 and type(s.run("a:0")) is np.float32
        assert [float(x) for x in s.run([a, a, "a:0"])] == [1.0, 1.0, 1.0]


# From TF 2.21 (type and exact text).
FETCH_ERRORS = [
    (None, TypeError, 'Argument `fetch` = None has invalid type "NoneType". Cannot be None'),
    (3, TypeError, 'Argument `fetch` = 3 has invalid type "int" must be a string or Tensor. '
                   "(Can not convert a int into a Tensor or Operation.)"),
    ("nope:0", ValueError, "Argument `fetch` = nope:0 cannot be interpreted as a Tensor. "
                           "(\"The name 'nope:0' refers to a Tensor which does not exist. The "
                           "operation, 'nope', does not exist in the graph.\")"),
    ("nope", ValueError, "Argument `fetch` = nope cannot be interpreted as a Tensor. (\"The name "
                         "'nope' refers to an Operation not in the graph.\")"),
]


@pytest.mark.parametrize("fetch,exc,text", FETCH_ERRORS)
def test_fetch_errors(fetch, exc, text):
    tf.constant(0.0)
    with tf.Session() as s:
        with pytest.raises(exc) as e:
            s.run(fetch)
    assert str(e.value) == text


def test_fetch_from_another_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0, name="c")
    tf.constant(0.0)  # the session's graph is not empty (else TF's "graph is empty" error)
    with tf.Session() as s:
        with pytest.raises(ValueError) as e:
            s.run(c)
    # From TF 2.21.
    assert str(e.value) == ('Argument `fetch` = Tensor("c:0", shape=(), dtype=float32) cannot be '
                            'interpreted as a Tensor. (Tensor Tensor("c:0", shape=(), '
                            'dtype=float32) is not an element of this graph.)')


# ── feeds ───────────────────────────────────────────────────────────────────────────
def test_feed_by_tensor_or_name_and_conversion():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.identity(x, name="y")
    with tf.Session() as s:
        assert s.run("y:0", {"x:0": [1.0, 2.0]}).tolist() == [1.0, 2.0]
        out = s.run(y, feed_dict={x: np.array([3], np.int64)})
        assert out.dtype == np.float32 and out.tolist() == [3.0]  # From TF 2.21


def test_feed_float_into_int_truncates_like_numpy_and_warns_at_the_users_line():
    from scopeflow.runtime.session import FeedTruncationWarning

    x = tf.placeholder(tf.int32, [None], name="x")
    with tf.Session() as s:
        with pytest.warns(FeedTruncationWarning) as caught:
            got = s.run(tf.identity(x), {x: [1.5, 2.7]})  # the warning points here
        assert got.tolist() == [1, 2]  # From TF 2.21
        assert caught[0].filename == __file__
        assert "truncated 2 of 2 values toward zero (1.5 -> 1)" in str(caught[0].message)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # whole floats, ints, int arrays: no warning
            s.run(tf.identity(x), {x: [1.0, 2.0]})
            s.run(tf.identity(x), {x: np.array([3, 4], np.int64)})
            s.run(tf.identity(x), {x: np.array([3, 4], np.int32)})


# From TF 2.21.
FEED_SHAPE_ERRORS = [
    ([None, 3], np.zeros((2, 4)), "Cannot feed value of shape (2, 4) for Tensor x:0, which has "
                                  "shape (?, 3)"),
    ([], [1.0], "Cannot feed value of shape (1,) for Tensor x:0, which has shape ()"),
    ([3], [1.0, 2.0], "Cannot feed value of shape (2,) for Tensor x:0, which has shape (3,)"),
]


@pytest.mark.parametrize("shape,value,text", FEED_SHAPE_ERRORS)
def test_feed_shape_errors(shape, value, text):
    x = tf.placeholder(tf.float32, shape, name="x")
    with tf.Session() as s:
        with pytest.raises(ValueError) as e:
            s.run(tf.identity(x), {x: value})
    assert str(e.value) == text


def test_feed_int_overflow():
    x = tf.placeholder(tf.int32, [], name="x")
    with tf.Session() as s:
        with pytest.raises(TypeError) as e:
            s.run(tf.identity(x), {x: 2 ** 40})
    # From TF 2.21.
    assert str(e.value) == ("Type of feed value 1099511627776 with type <class 'int'> is not "
                            "compatible with Tensor type <class 'numpy.int32'>. Try explicitly "
                            "setting the type of the feed tensor to a larger type (e.g. int64).")


def test_feed_unconvertible_string():
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.Session() as s:
        # From TF 2.21: NumPy's ValueError.
        with pytest.raises(ValueError, match="could not convert string to float"):
            s.run(tf.identity(x), {x: ["a"]})


@pytest.mark.parametrize("key,text", [
    ("nope:0", "Cannot interpret feed_dict key as Tensor: The name 'nope:0' refers to a Tensor "
               "which does not exist. The operation, 'nope', does not exist in the graph."),
])
def test_feed_key_errors(key, text):
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.Session() as s:
        with pytest.raises(TypeError) as e:
            s.run(tf.identity(x), {key: [1.0]})
    assert str(e.value) == text  # From TF 2.21


def test_any_tensor_can_be_fed_and_cuts_the_walk():
    a = tf.constant(2.0, name="a")
    b = tf.identity(a, name="b")
    c = tf.identity(b, name="c")
    with tf.Session() as s:
        # From TF 2.21.
        assert [float(s.run(c)), float(s.run(c, {b: 10.0})), float(s.run(c, {a: 5.0}))] == \
            [2.0, 10.0, 5.0]
    p = tf.placeholder(tf.float32, [], name="p")
    d = tf.identity(p)
    e = tf.identity(d)
    with tf.Session() as s:
        assert s.run(e, {d: 3.0}) == 3.0  # the unfed placeholder behind `d` is pruned


def test_placeholder_with_default():
    pw = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None], name="pw")
    with tf.Session() as s:
        assert s.run(pw).tolist() == [1.0, 2.0]
        assert s.run(pw, {pw: [5.0]}).tolist() == [5.0]
    # From TF 2.21.
    assert [pw.name, str(pw.shape), pw.op.type, [t.name for t in pw.op.inputs]] == \
        ["pw:0", "(?,)", "PlaceholderWithDefault", ["Const:0"]]


def test_placeholders():
    p = tf.placeholder(tf.float32, [None, 3], name="x")
    q = tf.placeholder("float")
    r = tf.placeholder(tf.int32, shape=[])
    # From TF 2.21.
    assert [p.name, str(p.shape), q.name, str(q.shape), q.dtype.name, r.shape.as_list()] == \
        ["x:0", "(?, 3)", "Placeholder:0", "<unknown>", "float32", []]
    assert p.op.type == "Placeholder" and p.op.get_attr("dtype") == tf.float32


# ── returned values never alias session state ───────────────────────────────────────
def test_fetched_values_do_not_alias_state():
    v = tf.Variable([1.0, 2.0], name="v")
    c = tf.constant([1.0, 2.0])
    with tf.Session() as s:
        s.run(v.initializer)
        for t in (v, v.value(), c, tf.identity(v)):
            arr = s.run(t)
            arr[0] = 100.0
        assert s.run(v).tolist() == [1.0, 2.0] and s.run(c).tolist() == [1.0, 2.0]
        x = tf.placeholder(tf.float32, [2])
        fed = np.array([1.0, 2.0], np.float32)
        out = s.run(tf.identity(x), {x: fed})
        out[0] = 7.0
        assert fed[0] == 1.0


# ── lifecycle and default sessions ──────────────────────────────────────────────────
def test_closed_session():
    a = tf.constant(1.0)
    s = tf.Session()
    s.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        s.run(a)


def test_running_on_an_empty_graph_raises_before_reading_the_fetches():
    # As TF: a Session on a graph with no ops refuses any fetch (here a Saver's op name left
    # from the graph before reset_default_graph), and one added later makes it work.
    g = tf.Graph()
    s = tf.Session(graph=g)
    for fetch in ("save/restore_all", "x:0", [], None):
        with pytest.raises(RuntimeError, match=r"^The Session graph is empty\. Add operations "
                           r"to the graph before calling run\(\)\.$"):
            s.run(fetch)
    with g.as_default():
        c = tf.constant(1)
    assert s.run(c) == 1
    s.close()


def test_session_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    s = tf.Session(graph=g)
    assert s.graph is g and s.run(c) == 1.0
    assert tf.Session().graph is tf.get_default_graph()


def test_eval_and_run_need_a_default_session():
    a = tf.constant(1.0, name="a")
    n = tf.no_op(name="n")
    with pytest.raises(ValueError) as e:
        a.eval()
    # From TF 2.21.
    assert str(e.value) == ("Cannot evaluate tensor using `eval()`: No default session is "
                            "registered. Use `with sess.as_default()` or pass an explicit "
                            "session to `eval(session=sess)`")
    with pytest.raises(ValueError) as e:
        n.run()
    assert str(e.value) == ("Cannot execute operation using `run()`: No default session is "
                            "registered. Use `with sess.as_default():` or pass an explicit "
                            "session to `run(session=sess)`")


def test_default_session_stack():
    a = tf.constant(1.0, name="a")
    x = tf.placeholder(tf.float32, [])
    s = tf.Session()
    assert a.eval(session=s) == 1.0
    with s.as_default():
        assert a.eval() == 1.0 and tf.get_default_session() is s
        assert tf.identity(x).eval({x: 3.0}) == 3.0
    assert tf.get_default_session() is None
    with tf.Session() as s2:
        assert tf.get_default_session() is s2
    assert tf.get_default_session() is None


def test_interactive_session_is_default_until_closed():
    a = tf.constant(3.0, name="a")
    n = tf.no_op(name="n")
    s = tf.InteractiveSession()
    try:
        assert a.eval() == 3.0 and n.run() is None and tf.get_default_session() is s
    finally:
        s.close()
    assert tf.get_default_session() is None


def test_make_callable():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.identity(x, name="y")
    n = tf.no_op()
    with tf.Session() as s:
        f = s.make_callable([y, n], feed_list=[x])
        out = f([1.0])
        assert out[0].tolist() == [1.0] and out[1] is None
        assert s.make_callable(y, [x])([2.0]).tolist() == [2.0]
        assert s.make_callable(n)() is None


# ── plans: cached per signature, pruned ─────────────────────────────────────────────
def test_plans_are_compiled_once_per_signature(monkeypatch):
    calls = []
    real = session_module.compile_plan

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(session_module, "compile_plan", counting)
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(x)
    z = tf.identity(y)
    with tf.Session() as s:
        for i in range(5):
            s.run(y, {x: float(i)})
        assert len(calls) == 1
        s.run([y], {x: 1.0})  # another structure of the same elements: same plan
        s.run(z, {x: 1.0})
        s.run(z, {y: 1.0})  # different feeds: a new plan
        assert len(calls) == 3
        f = s.make_callable(z, [x])
        for i in range(3):
            f(float(i))
        assert len(calls) == 3


def test_pruning_runs_only_what_is_needed():
    v = tf.Variable(1.0, name="v")
    a = tf.constant(1.0, name="a")
    b = tf.identity(a, name="b")
    side = v.assign(5.0)  # never needed by b
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(b) == 1.0
        assert s.run(v) == 1.0  # the assign did not run
        p = plan_module.compile_plan([b], [], (), s._state)
        assert [op.name for op in p.ops] == ["a", "b"]
        with tf.control_dependencies([side]):
            c = tf.identity(a, name="c")
        p = plan_module.compile_plan([c], [], (), s._state)
        # Creation order; the assign writes `v` by reference, so VariableV2 itself is not run.
        assert [op.name for op in p.ops] == ["a", "Assign/value", "Assign", "c"]
        assert s.run(c) == 1.0 and s.run(v) == 5.0  # control inputs count


# ── feeds that TF treats specially (results from TF 2.21) ────────────────────────────
def test_a_fetched_fed_tensor_comes_back_as_the_fed_array_even_0d():
    q = tf.placeholder(tf.float32, [])
    r = q * 2.0
    with tf.Session() as s:
        for fetched, feed in ((q, {q: 1.5}), (r, {r: 1.5})):
            got = s.run(fetched, feed)
            assert type(got) is np.ndarray and got.shape == () and got == 1.5
        got_q, got_r = s.run([q, r], {q: 1.5})
        assert type(got_q) is np.ndarray and type(got_r) is np.float32
        fed = np.array([1.0, 2.0], np.float32)
        p = tf.placeholder(tf.float32, [2])
        got = s.run(p, {p: fed})
        got[0] = 9.0  # a copy: the caller's array is not the one returned
        assert fed[0] == 1.0


def test_an_op_whose_outputs_are_all_fed_does_not_run_even_for_a_control_edge():
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.float32, [2])
    first = tf.tuple([v.value(), p])[0]
    with tf.control_dependencies([p]):
        y = tf.constant(2.0) * 3.0
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(first, {p: [3.0, 4.0]}).tolist() == [1.0, 2.0]
        assert s.run(y, {p: [1.0, 1.0]}) == 6.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
            s.run(y)


def test_a_fed_python_str_reaches_kernels_as_utf8_bytes():
    """As TF: ``sess.run(tf.identity(q), {q: "x"})`` is ``b"x"`` (kernels see bytes)."""
    q = tf.placeholder(tf.string)
    p = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        assert sess.run(tf.identity(q), {q: "x"}) == b"x"
        assert sess.run(tf.identity(p), {p: ["a", "é", b"b"]}).tolist() == [
            b"a", "é".encode(), b"b"]


def test_a_kernel_out_of_memory_is_resource_exhausted_naming_the_op():
    # TF: ResourceExhaustedError "OOM when allocating tensor with shape[...] and type
    # float ..."; it was an InvalidArgumentError reading "MemoryError: ...".
    x = tf.placeholder(tf.float32, [None])
    huge = tf.tile(x, [2 ** 43], name="huge")  # 128 TiB: no machine allocates it
    branch = tf.cond(tf.constant(True), lambda: tf.tile(x, [2 ** 43]), lambda: x)
    with tf.Session() as sess:
        for fetch, node in ((huge, "huge"), (branch, "cond/Tile")):
            with pytest.raises(tf.errors.ResourceExhaustedError) as info:
                sess.run(fetch, {x: np.ones(4, np.float32)})
            assert info.value.message.startswith("OOM when allocating tensor with shape[")
            assert "and type float on /job:localhost/replica:0/task:0/device:CPU:0" in \
                info.value.message
            assert f"[[node {node} (Tile) defined at " in info.value.message
