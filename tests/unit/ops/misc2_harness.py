"""Runs one snippet under scopeflow and under real TensorFlow and returns both records, for
the misc2 tests (tests/unit/ops/*/test_*misc2*.py).

The snippet uses ``tf`` (TF1 API) and calls ``rec(key, fn)``: ``fn()`` builds and runs
graphs in a fresh default graph and returns a JSON-able summary; an exception is recorded
as its class name and message. The same text runs on both sides, so a difference is in the
library, not in the test.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np

import scopeflow

PRELUDE = '''
out = {}
def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        if a.dtype == object:
            return [x.decode() if isinstance(x, bytes) else x for x in a.ravel().tolist()]
        return {"dtype": str(a.dtype), "shape": list(a.shape),
                "__v": np.where(np.isfinite(a), a, 0).astype(np.float64).ravel().tolist()
                if a.dtype.kind in "fc" else a.astype(np.float64).ravel().tolist()}
    if isinstance(v, bytes):
        return v.decode()
    return v
def rec(key, fn):
    g = tf.Graph()
    try:
        with g.as_default():
            out[key] = _plain(fn())
    except Exception as e:
        msg = getattr(e, "message", str(e))
        lines = [ln for ln in str(msg).split("\\n") if ln.strip() and not ln.startswith(" ")
                 and not ln.startswith("\\t") and "Graph execution error" not in ln
                 and "Detected at node" not in ln and not ln.startswith("Node:")]
        first = lines[0] if lines else ""
        out[key] = {"error": type(e).__name__, "msg": first.split(" for '")[0]}
def sh(t):
    return None if t.shape.ndims is None else [d if d is None else int(d)
                                               for d in t.shape.as_list()]
'''


def run_both(tf1, code):
    """(scopeflow's record, TF's record) of ``code``."""
    code = textwrap.dedent(code)
    ns = {"tf": scopeflow, "np": np}
    exec(PRELUDE + code, ns)   # noqa: S102 - the test's own snippet
    ours = json.loads(json.dumps(ns["out"]))
    theirs = tf1("tf.disable_v2_behavior()\n" + PRELUDE + code +
                 "\nprint(json.dumps(out))")
    return ours, theirs


def assert_same(ours, theirs, rtol=1e-5, atol=1e-5):
    """Records equal: errors by class and message, numbers within tolerance."""
    assert ours.keys() == theirs.keys()
    for k in theirs:
        _same(ours[k], theirs[k], k, rtol, atol)


def _same(a, b, where, rtol, atol):
    if isinstance(b, dict) and "__v" in b:
        assert isinstance(a, dict) and a["dtype"] == b["dtype"] and a["shape"] == b["shape"], \
            (where, a, b)
        np.testing.assert_allclose(a["__v"], b["__v"], rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), (where, a, b)
        for k in b:
            _same(a[k], b[k], f"{where}.{k}", rtol, atol)
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), (where, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]", rtol, atol)
    elif isinstance(b, float):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(b, str) and where.endswith(".msg"):
        assert _msg(a) == _msg(b), (where, a, b)
    else:
        assert a == b, (where, a, b)


def _msg(m):
    """A message without the parts scopeflow words differently everywhere: the op named at
    the end, a missing gradient's advice, and bfloat16 (which scopeflow lacks) among the allowed dtypes."""
    if m.startswith("No gradient defined for operation"):   # the op named, worded apart
        return "No gradient defined for operation"
    return m.split(" (op '")[0].replace("bfloat16, ", "")
