"""One thread-local context holds all ambient state (framework/context.py)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import scopeflow as tf
from scopeflow.framework.context import CONTEXT

PACKAGE = Path(tf.__file__).resolve().parent


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_scopes_and_defaults_are_per_thread():
    g = tf.Graph()
    with g.as_default(), tf.name_scope("outer"), tf.variable_scope("vs"):
        sess = tf.Session(graph=g)
        with sess.as_default(), tf.control_dependencies([tf.no_op(name="gate")]):
            here = tf.constant(1.0, name="c")
            # Another thread starts from scratch: the global default graph, no scopes,
            # no default session.
            there = _in_thread(lambda: (tf.get_default_graph() is g,
                                        tf.constant(2.0, name="c").op.name,
                                        tf.get_variable_scope().name,
                                        tf.get_default_session()))
    assert here.op.name == "outer/vs/c" and [o.name for o in here.op.control_inputs] == [
        "outer/vs/gate"]
    assert there == (False, "c", "", None)


def test_each_graph_keeps_its_own_scopes_when_the_default_changes():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default(), tf.name_scope("a"), tf.variable_scope("v"):
        with g2.as_default():
            assert tf.constant(0.0, name="x").op.name == "x"
            assert tf.get_variable_scope().name == ""
            with g1.as_default():  # back on g1: its scopes are where they were
                assert tf.constant(0.0, name="x").op.name == "a/v/x"
                assert tf.get_variable_scope().name == "v"
    assert CONTEXT.graphs == [] and CONTEXT.sessions == []


def test_only_the_context_keeps_thread_local_state():
    """Kernels may keep scratch buffers per thread; nothing else keeps ambient state."""
    # conv_geometry: im2col scratch buffers; native/onednn.py: oneDNN streams and memory objects
    allowed = {"framework/context.py", "ops/nn/conv_geometry.py", "native/onednn.py"}
    users = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
             if re.search(r"threading\.local\b", p.read_text())}
    assert users <= allowed, users - allowed
