"""tf.layers graphs node for node as TF's: names, op types and inputs of every node, in
creation order, against GraphDefs real TF wrote (tests/fixtures/layer_graphs, made by
make_fixtures.py under the oracle). Attrs are not compared here: scopeflow's
``colocate_with`` does not write TF's ``_class`` attr yet."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.tools import graphdiff

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "layer_graphs"
# Loaded under its own name: other tests import their own ``make_fixtures`` modules.
_spec = importlib.util.spec_from_file_location("layer_graphs_make_fixtures",
                                               FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

# Cases whose graphs still differ from TF's, with the reason.
_NO_SWITCH = "scopeflow's cond is one Cond op, not TF's Switch/Merge ops"
DIFFERENT = {
    "bn_fused_placeholder": _NO_SWITCH,
    "bn_plain_placeholder": _NO_SWITCH + " (scopeflow's cond adds an Identity per "
                            "output taken from outside the branch)",
    "layers_dropout_placeholder": _NO_SWITCH,
}


def _nodes(nodes):
    return [(n.name, n.op, list(n.input)) for n in nodes]


def _ours(case, tmp_path):
    with tf.Graph().as_default() as graph:
        getattr(make_fixtures, "build_" + case)(tf)
        tf.io.write_graph(graph.as_graph_def(), str(tmp_path), case + ".pbtxt", as_text=True)
    return graphdiff.load_nodes(tmp_path / (case + ".pbtxt"))


def _cases(known):
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=known[c]))
            if c in known else c for c in make_fixtures.CASES]


@pytest.mark.parametrize("case", _cases(DIFFERENT))
def test_nodes_names_ops_and_inputs_as_tfs(case, tmp_path):
    theirs = _nodes(graphdiff.load_nodes(FIXTURES / (case + ".pbtxt")))
    assert _nodes(_ours(case, tmp_path)) == theirs


# Attrs other than ``_class`` that still differ.
ATTRS_DIFFERENT: dict[str, str] = {}


@pytest.mark.parametrize("case", _cases({**ATTRS_DIFFERENT, **DIFFERENT}))
def test_attrs_as_tfs(case, tmp_path):
    theirs = graphdiff.load_nodes(FIXTURES / (case + ".pbtxt"))
    diff = graphdiff.diff_graphs(theirs, _ours(case, tmp_path), ignore_attrs=("_class",))
    assert diff.same, diff


@pytest.mark.parametrize("shape", [[2, 2, 2, 3], [4, 3]], ids=["fused", "plain"])
def test_batch_norm_moving_average_update_values_as_tfs(shape):
    """TF's fused path computes the decay in float32 (``1.0 - Const(0.99)``), the plain
    path takes the Python ``1.0 - 0.99``; the moving statistics follow each."""
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    with tf.Graph().as_default():
        y = tf.layers.batch_normalization(tf.constant(x), training=True)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([y, updates])
            mean, var = sess.run(tf.global_variables()[2:])
    axes = tuple(range(len(shape) - 1))
    n = x.size // shape[-1]
    batch_mean = x.mean(axes, dtype=np.float64)
    batch_var = x.var(axes, dtype=np.float64) * (n / (n - 1) if len(shape) == 4 else 1)
    decay = (np.float32(1.0) - np.float32(0.99)) if len(shape) == 4 else np.float32(1 - 0.99)
    np.testing.assert_allclose(mean, (0 - batch_mean) * -decay, rtol=1e-5)
    np.testing.assert_allclose(var, 1 - (1 - batch_var) * decay, rtol=1e-6)


@pytest.mark.parametrize("shape", [[2, 2, 2, 3], [4, 3]], ids=["fused", "plain"])
def test_batch_norm_tensor_training_runs_as_the_constant(shape):
    """The cond-built graph of a placeholder ``training`` gives the constant's outputs,
    updates and gradients; fed False, the moving statistics stay."""
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    results = {}
    for feed in (True, False, "fed True", "fed False"):
        with tf.Graph().as_default():
            training = tf.placeholder(tf.bool, []) if isinstance(feed, str) else feed
            y = tf.layers.batch_normalization(tf.constant(x), training=training)
            grads = tf.gradients(tf.reduce_sum(y * y), tf.trainable_variables())
            updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
            fd = {training: feed == "fed True"} if isinstance(feed, str) else {}
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                out, grad, _ = sess.run([y, grads, updates], fd)
                results[feed] = out, grad, sess.run(tf.global_variables()[2:])
    for const, fed in ((True, "fed True"), (False, "fed False")):
        np.testing.assert_array_equal(results[fed][0], results[const][0])
        for a, b in zip(results[fed][1] + results[fed][2], results[const][1] + results[const][2]):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
