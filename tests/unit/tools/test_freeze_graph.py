"""scopeflow.tools.freeze_graph: TF's freeze_graph tool (flags and Python function), from a
GraphDef + checkpoint, a MetaGraphDef, or a SavedModel; checked live against TF's tool."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.tools import freeze_graph as fg
from scopeflow.tools.optimize_for_inference_lib import values_from_const

X = [[1.0, 2.0], [3.0, -1.0]]


def _model(d):
    """Writes graph.pbtxt, graph.pb, model.meta and the checkpoint ``model`` under ``d``:
    y = relu(x @ w + b) * s, a counter that an initializer sets, and a global step."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0, -2.0], [0.5, 1.0]], name="w")
        b = tf.Variable([0.1, 0.2], name="b")
        s = tf.Variable(3.0, name="s")
        tf.train.get_or_create_global_step()
        y = tf.multiply(tf.nn.relu(tf.matmul(x, w) + b), s, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign([[2.0, -1.0], [1.0, 1.5]]), s.assign(0.5)])
            tf.train.Saver().save(sess, os.path.join(d, "model"))
            want = sess.run(y, {x: X})
        tf.io.write_graph(g.as_graph_def(), d, "graph.pbtxt")
        tf.io.write_graph(g.as_graph_def(), d, "graph.pb", as_text=False)
    return want


def _run(graph_def, feeds=None):
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.import_graph_def(graph_def, name="")
        return sess.run("y:0", {"x:0": X, **(feeds or {})})


def _ops(graph_def):
    return {n.name: n.op for n in graph_def.node}


def test_freezes_text_graph_and_checkpoint(tmp_path):
    want = _model(str(tmp_path))
    out = str(tmp_path / "frozen.pb")
    gd = fg.freeze_graph(str(tmp_path / "graph.pbtxt"), "", False, str(tmp_path / "model"),
                         "y", "save/restore_all", "save/Const:0", out, True, "")
    ops = _ops(gd)
    assert ops["w"] == ops["b"] == ops["s"] == "Const" and "global_step" not in ops
    assert not any(n.startswith("save/") for n in ops)
    np.testing.assert_allclose(values_from_const(next(n for n in gd.node if n.name == "w")),
                               [[2.0, -1.0], [1.0, 1.5]])
    written = tf.GraphDef()
    with open(out, "rb") as f:
        written.ParseFromString(f.read())
    assert written == gd
    np.testing.assert_allclose(_run(written), want)


def test_command_line_with_blacklist(tmp_path):
    _model(str(tmp_path))
    out = tmp_path / "frozen.pb"
    proc = subprocess.run(
        [sys.executable, "-m", "scopeflow.tools.freeze_graph",
         f"--input_graph={tmp_path / 'graph.pb'}", "--input_binary=true",
         f"--input_checkpoint={tmp_path / 'model'}", "--output_node_names=y",
         f"--output_graph={out}", "--variable_names_blacklist=s"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    gd = tf.GraphDef()
    gd.ParseFromString(out.read_bytes())
    ops = _ops(gd)
    assert (ops["w"], ops["b"], ops["s"]) == ("Const", "Const", "VariableV2")
    with pytest.raises(tf.errors.FailedPreconditionError, match="s"):
        _run(gd)   # the blacklisted variable stays a variable, and nothing initializes it


def test_whitelist_and_denylist_keyword(tmp_path):
    _model(str(tmp_path))
    common = (str(tmp_path / "graph.pbtxt"), "", False, str(tmp_path / "model"), "y", "", "",
              "", True, "")
    ops = _ops(fg.freeze_graph(*common, variable_names_whitelist="w"))
    assert (ops["w"], ops["b"], ops["s"]) == ("Const", "VariableV2", "VariableV2")
    ops = _ops(fg.freeze_graph(*common, variable_names_denylist="w, b"))
    assert (ops["w"], ops["b"], ops["s"]) == ("VariableV2", "VariableV2", "Const")


def test_meta_graph_with_initializer_nodes(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0, 0.0], [0.0, 1.0]], name="w")
        extra = tf.Variable(0.0, name="extra", trainable=False,
                            collections=[tf.GraphKeys.LOCAL_VARIABLES])
        tf.add(tf.matmul(x, w), extra, name="y")
        tf.group(extra.assign(10.0), name="init_extra")
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, os.path.join(d, "model"))   # writes model.meta
    gd = fg.freeze_graph("", "", True, os.path.join(d, "model"), "y", "", "", "", True,
                         "init_extra", input_meta_graph=os.path.join(d, "model.meta"))
    assert _ops(gd)["extra"] == "Const" and _ops(gd)["w"] == "Const"
    np.testing.assert_allclose(_run(gd), np.array(X) + 10.0)


def test_saved_model_dir(tmp_path):
    export = str(tmp_path / "export")
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[2.0], [1.0]], name="w")
        y = tf.matmul(x, w, name="y")
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, export, {"x": x}, {"y": y})
    gd = fg.freeze_graph("", "", True, "", "y", "", "", str(tmp_path / "f.pb"), True, "",
                         input_saved_model_dir=export)
    assert _ops(gd) == {"x": "Placeholder", "w": "Const", "w/read": "Identity", "y": "MatMul"}
    np.testing.assert_allclose(_run(gd), [[4.0], [5.0]])
    with pytest.raises(RuntimeError, match="tag-set train could not be found"):
        fg.freeze_graph("", "", True, "", "y", "", "", "", True, "",
                        input_saved_model_dir=export, saved_model_tags="train")


def test_errors_are_tfs(tmp_path):
    _model(str(tmp_path))
    graph = str(tmp_path / "graph.pbtxt")
    with pytest.raises(ValueError, match="Input checkpoint '.*nope' doesn't exist!"):
        fg.freeze_graph(graph, "", False, str(tmp_path / "nope"), "y", "", "", "", True, "")
    with pytest.raises(ValueError, match="supply the name of a node to --output_node_names"):
        fg.freeze_graph(graph, "", False, str(tmp_path / "model"), "", "", "", "", True, "")
    with pytest.raises(OSError, match="Input graph file '.*missing.pb' does not exist!"):
        fg.freeze_graph(str(tmp_path / "missing.pb"), "", True, str(tmp_path / "model"), "y",
                        "", "", "", True, "")
    frozen = str(tmp_path / "frozen.pb")
    fg.freeze_graph(graph, "", False, str(tmp_path / "model"), "y", "", "", frozen, True, "")
    with pytest.raises(ValueError, match="You cannot freeze a graph twice"):
        fg.freeze_graph(frozen, "", True, str(tmp_path / "model"), "y", "", "", "", True, "")


def test_tf_module_paths():
    """``from tensorflow.python.tools import freeze_graph, optimize_for_inference_lib``
    (and ``framework.graph_util``), as TF1 programs import them."""
    from scopeflow.framework import graph_util
    from scopeflow.python.framework import graph_util as tf_graph_util
    from scopeflow.python.tools import freeze_graph, optimize_for_inference_lib, strip_unused_lib
    from scopeflow.tools import optimize_for_inference_lib as ours
    assert freeze_graph.freeze_graph is fg.freeze_graph
    assert optimize_for_inference_lib.optimize_for_inference is ours.optimize_for_inference
    assert optimize_for_inference_lib.fold_batch_norms is ours.fold_batch_norms
    assert strip_unused_lib.strip_unused is ours.strip_unused
    assert (tf_graph_util.convert_variables_to_constants
            is graph_util.convert_variables_to_constants)


def test_same_frozen_graph_as_tf(tmp_path, tf1):
    """TF writes a graph and checkpoint and freezes them with its tool; scopeflow's tool
    gives the same GraphDef from the same files."""
    d = str(tmp_path)
    tf1(textwrap.dedent(f"""
        from tensorflow.python.tools import freeze_graph
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0, -2.0], [0.5, 1.0]], name="w")
        b = tf.Variable([0.1, 0.2], name="b")
        keep = tf.Variable(2.0, name="keep")
        y = tf.multiply(tf.nn.relu(tf.matmul(x, w) + b), keep, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign([[2.0, -1.0], [1.0, 1.5]]))
            tf.train.Saver().save(sess, {d!r} + "/model")
        tf.io.write_graph(tf.get_default_graph().as_graph_def(), {d!r}, "graph.pbtxt")
        freeze_graph.freeze_graph({d!r} + "/graph.pbtxt", "", False, {d!r} + "/model", "y",
                                  "", "", {d!r} + "/tf_frozen.pb", True, "",
                                  variable_names_denylist="keep")
        print(json.dumps("ok"))
    """))
    ours = fg.freeze_graph(os.path.join(d, "graph.pbtxt"), "", False,
                           os.path.join(d, "model"), "y", "", "", "", True, "",
                           variable_names_blacklist="keep")
    theirs = tf.GraphDef()
    with open(os.path.join(d, "tf_frozen.pb"), "rb") as f:
        theirs.ParseFromString(f.read())
    assert [(n.name, n.op) for n in ours.node] == [(n.name, n.op) for n in theirs.node]
    for a, b in zip(ours.node, theirs.node):
        if a.op == "Const":
            np.testing.assert_array_equal(values_from_const(a), values_from_const(b))
            assert a.attr["dtype"] == b.attr["dtype"]
        else:
            assert list(a.input) == list(b.input), a.name
