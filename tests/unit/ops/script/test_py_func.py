"""tf.py_func, tf.numpy_function and tf.py_function: TF's ops, attrs, conversions and error
classes (checked against real TF 2.21 by running one program under both)."""

import textwrap

import numpy as np
import pytest

import scopeflow as tf

PROGRAM = textwrap.dedent('''
    x = tf.placeholder(tf.float32, [None, 3])
    out = {}
    def raiser(e):
        def f(a):
            raise e
        return f
    cases = {"type": TypeError("t"), "value": ValueError("v"), "stop": StopIteration(),
             "ni": NotImplementedError("n"), "mem": MemoryError("m"), "key": KeyError("k")}
    y = tf.py_func(lambda a: a * 2, [x], tf.float32)
    z = tf.py_func(lambda a: (a, np.int32(3)), [x], [tf.float32, tf.int32], stateful=False,
                   name="pp")
    w = tf.numpy_function(lambda a: a + 1, [x], tf.float32)
    v = tf.py_function(lambda a: a.numpy().sum(), [x], tf.float32)
    out["ops"] = [[t.name, t.op.type, tf.compat.as_str(t.op.get_attr("token"))[:7], str(t.shape)]
                  for t in (y, z[0], z[1], w, v)]
    out["grad"] = [g is None for g in tf.gradients(y, x)]
    with tf.Session() as s:
        for k, e in cases.items():
            try:
                s.run(tf.py_func(raiser(e), [x], tf.float32), {x: np.ones((2, 3))})
            except Exception as err:
                out[k] = type(err).__name__
        r = s.run([y, z, w, v,
                   tf.py_func(lambda a: [1.0, np.float32(2.0)], [x], [tf.float64, tf.float32]),
                   tf.py_func(lambda a: np.array([b"ab", b"c"]), [x], tf.string),
                   tf.py_func(lambda a: ["ab", "c"], [x], [tf.string, tf.string]),
                   tf.py_func(lambda: np.float32(1.5), [], tf.float32),
                   tf.py_func(lambda a: 3, [x], tf.int64)], {x: np.ones((2, 3))})
        out["vals"] = [repr([np.asarray(e).tolist() for e in v] if isinstance(v, list)
                            else np.asarray(v).tolist()) for v in r]
        out["dtypes"] = [str(np.asarray(v).dtype) for v in r[4:]]
        for key, fn, tout in [("f2i", lambda a: 3.5, tf.int64), ("list1", lambda a: [1, 2], tf.int32),
                              ("i64", lambda a: 3, tf.int32)]:
            try:
                s.run(tf.py_func(fn, [x], tout), {x: np.ones((2, 3))})
                out[key] = "ok"
            except Exception as err:
                out[key] = type(err).__name__ + ": " + str(err).split("\\n")[0]
        op = tf.py_func(lambda: None, [], [])
        out["noout"] = type(op).__name__ + " " + op.type
        s.run(op)
    print(json.dumps(out, default=repr))
''')


def test_py_func_runs_and_converts_as_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["ops"][0] == ["PyFunc:0", "PyFunc", "pyfunc_", "<unknown>"]
    assert got["ops"][1][:2] == ["pp:0", "PyFuncStateless"]
    assert got["ops"][4][1] == "EagerPyFunc"
    assert got["grad"] == [True]
    assert got["vals"][4] == "[1.0, 2.0]" and got["dtypes"][:1] == ["float64"]
    assert got["i64"].startswith("InvalidArgumentError: 0-th value returned by pyfunc_")
    assert "is int64, but expects int32" in got["i64"]
    assert got["stop"] == "OutOfRangeError" and got["key"] == "UnknownError"


def test_py_func_matches_tf(tf1, scopeflow_run):
    want = tf1(PROGRAM)
    got = scopeflow_run(PROGRAM)
    for key in ("ops", "grad", "type", "value", "stop", "ni", "mem", "key", "vals", "dtypes",
                "noout"):
        assert got[key] == want[key], key
    for key in ("f2i", "i64", "list1"):
        assert got[key].split(":")[0] == want[key].split(":")[0], key


def test_py_function_gradient_is_refused_clearly():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        y = tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32)
        with pytest.raises(LookupError, match="py_function op 'EagerPyFunc'"):
            tf.gradients(y, x)


def test_py_func_token_unknown_in_another_process_is_unknown_error():
    from scopeflow.ops.script import py_func_ops
    with tf.Graph().as_default():
        y = tf.py_func(lambda: np.float32(1), [], tf.float32)
        token = y.op.get_attr("token")
        func = py_func_ops._FUNCS.pop(token)
        try:
            with tf.Session() as s, pytest.raises(tf.errors.UnknownError, match=token):
                s.run(y)
        finally:
            py_func_ops._FUNCS[token] = func
