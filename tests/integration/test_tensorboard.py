"""TensorBoard 2.21 reads scopeflow's event files as it reads TensorFlow's.

The same seed program (word2vec with ``embed``/``loss`` name scopes and the seed's
summaries; tests/fixtures/tf_summaries/models.py) runs 5 steps under scopeflow; its run is
compared with the run TensorFlow 2.21 wrote (fixtures) through TensorBoard's own readers:
the legacy and plugin ``EventAccumulator``, ``tensorboard --inspect``, and a real
TensorBoard server whose graph plugin serves the graph the UI draws (grouping by name
scope, data/reference/control edges, computed here exactly as TensorBoard's JS does).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import plugin_event_accumulator  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa
from tensorboard.compat.proto import graph_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_summaries"
sys.path.insert(0, str(FIXTURES))
import models  # noqa: E402

# TensorBoard's reference-edge whitelist ("<op type> <input index>", tf_graph_common).
REF_EDGES = {"Assign 0", "AssignAdd 0", "AssignSub 0", "ScatterAdd 0", "ScatterSub 0",
             "ScatterUpdate 0", "assign 0", "assign_add 0", "assign_sub 0", "count_up_to 0",
             "scatter_add 0", "scatter_sub 0", "scatter_update 0"}
FORWARD_GROUPS = ["data", "embed", "loss", "summaries", "embed_matrix", "nce_weight",
                  "nce_bias", "global_step"]
# Graph-builder differences (not the export's): see tests/unit/framework/test_graph_def.py.
KNOWN_NAME_DIFFS = {"loss/sampled_losses/mul", "loss/sampled_losses/sub",
                    "loss/sampled_losses/Mul", "loss/sampled_losses/Sub"}


def write_scopeflow_run(logdir):
    """The seed's loop: run the merged summary with the train op, add_summary per step."""
    tf.reset_default_graph()
    (center, target), loss, train_op, summary_op, global_step = models.build_word2vec(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(str(logdir), sess.graph)
        for c, t in models.word2vec_batches(5):
            _, _, summary = sess.run([loss, train_op, summary_op], {center: c, target: t})
            writer.add_summary(summary, global_step=int(sess.run(global_step)))
        writer.close()


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    shutil.copytree(FIXTURES / "events" / "word2vec", root / "tensorflow")
    write_scopeflow_run(root / "scopeflow")
    tf.reset_default_graph()
    return root


def _accumulator(path):
    ea = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0})
    ea.Reload()
    return ea


def test_event_accumulator_same_tags_steps_values(logdir):
    ours, theirs = _accumulator(logdir / "scopeflow"), _accumulator(logdir / "tensorflow")
    assert ours.Tags() == theirs.Tags()
    assert ours.Tags()["scalars"] == ["summaries/loss"]
    assert ours.Tags()["histograms"] == ["summaries/histogram_loss"]
    assert ours.Tags()["graph"] and ours.Tags()["meta_graph"]
    a, b = ours.Scalars("summaries/loss"), theirs.Scalars("summaries/loss")
    assert [e.step for e in a] == [e.step for e in b] == [1, 2, 3, 4, 5]
    np.testing.assert_allclose([e.value for e in a], [e.value for e in b], rtol=1e-5)
    ha, hb = ours.Histograms("summaries/histogram_loss"), \
        theirs.Histograms("summaries/histogram_loss")
    assert [e.step for e in ha] == [e.step for e in hb]
    for x, y in zip(ha, hb):
        x, y = x.histogram_value, y.histogram_value
        assert x.num == y.num == 1.0
        np.testing.assert_allclose([x.min, x.max, x.sum], [y.min, y.max, y.sum], rtol=1e-5)
        assert len(x.bucket) == len(y.bucket) and x.bucket == y.bucket
    assert len(ours.Graph().node) > 250


def test_plugin_event_accumulator_as_the_server_reads(logdir):
    tags = []
    for run in ("scopeflow", "tensorflow"):
        acc = plugin_event_accumulator.EventAccumulator(str(logdir / run),
                                                        size_guidance={"tensors": 0})
        acc.Reload()
        tags.append(acc.Tags())
        hist = acc.Tensors("summaries/histogram_loss")
        assert [e.step for e in hist] == [1, 2, 3, 4, 5]
        # TB converts each TF1 histogram into [left, right, count] rows: one value per step
        assert all(tensor_util.make_ndarray(e.tensor_proto)[:, 2].sum() == 1.0 for e in hist)
    assert tags[0] == tags[1]
    assert set(tags[0]["tensors"]) == {"__run_graph__", "summaries/loss",
                                       "summaries/histogram_loss"}


def test_tensorboard_inspect(logdir):
    outs = []
    for run in ("scopeflow", "tensorflow"):
        out = subprocess.run([sys.executable, "-m", "tensorboard.main", "--inspect",
                              "--logdir", str(logdir / run)], capture_output=True, text=True,
                             timeout=300).stdout
        outs.append([ln.strip() for ln in out.splitlines()
                     if ln.strip() and str(logdir) not in ln])
    assert {"graph", "histograms", "summaries/loss", "summaries/histogram_loss"} <= set(outs[0])
    assert outs[0] == outs[1]


# ── the graph view, from a real TensorBoard server ───────────────────────────────────
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


@pytest.fixture(scope="module")
def served_graphs(logdir):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir),
                             "--host", "127.0.0.1", "--port", str(port), "--load_fast=false",
                             "--reload_interval", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                if all(r in _get(base + "/data/plugin/graphs/info")
                       for r in ('"scopeflow"', '"tensorflow"')):
                    break
            except OSError:
                pass
            if time.time() > deadline or proc.poll() is not None:
                pytest.fail("TensorBoard did not serve both runs' graphs within 120 s")
            time.sleep(0.5)
        graphs = {}
        from google.protobuf import text_format
        for run in ("scopeflow", "tensorflow"):
            text = _get(f"{base}/data/plugin/graphs/graph?run={run}&limit_attr_size=1024"
                        "&large_attrs_key=_too_large_attrs")
            graphs[run] = text_format.Parse(text, graph_pb2.GraphDef())
        yield graphs
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _hierarchy(graph_def):
    """TensorBoard's grouping: every proper ``/`` prefix of a node name is a group."""
    groups: dict = {}
    for node in graph_def.node:
        parts = node.name.split("/")
        for i in range(1, len(parts)):
            groups.setdefault("/".join(parts[:i]), set()).add(node.name)
    return groups


def _edges(graph_def):
    """(src, dst, kind) as TensorBoard classifies them (consecutive repeats merged)."""
    ops = {n.name: n.op for n in graph_def.node}
    edges = set()
    for node in graph_def.node:
        inputs = []
        for inp in node.input:
            if not inputs or inputs[-1] != inp:
                inputs.append(inp)
        for i, inp in enumerate(inputs):
            if inp.startswith("^"):
                edges.add((inp[1:], node.name, "control"))
                continue
            src = inp.rsplit(":", 1)[0] if ":" in inp else inp
            assert src in ops, f"{node.name} reads a missing node {inp}"
            kind = "reference" if f"{node.op} {i}" in REF_EDGES else "data"
            edges.add((src, node.name, kind))
    return edges


def test_graph_view_groups_name_scopes_like_tensorflow(served_graphs):
    ours, theirs = _hierarchy(served_graphs["scopeflow"]), _hierarchy(served_graphs["tensorflow"])
    for group in FORWARD_GROUPS:
        assert group in ours, f"no {group!r} group in the graph view"
        assert ours[group] ^ theirs[group] <= KNOWN_NAME_DIFFS | {"loss/sampled_losses"}, group
    assert "embed/embedding" in ours["embed"]
    assert {"loss/nce_loss", "loss/sampled_losses"} <= set(ours)  # nested groups
    assert "loss/loss" in ours["loss"]


def test_graph_view_has_the_three_edge_kinds_like_tensorflow(served_graphs):
    ours, theirs = _edges(served_graphs["scopeflow"]), _edges(served_graphs["tensorflow"])
    refs = {e for e in ours if e[2] == "reference"}
    assert refs == {e for e in theirs if e[2] == "reference"}
    assert ("embed_matrix", "embed_matrix/Assign", "reference") in refs
    assert ("global_step", "GradientDescent", "reference") in refs
    controls = {e for e in theirs if e[2] == "control" and not e[1].startswith("gradients/")}
    assert ("GradientDescent/update", "GradientDescent/value", "control") in controls
    assert controls <= ours
    forward = {e for e in theirs if e[2] == "data" and not e[1].startswith(
        ("gradients/", "GradientDescent")) and not (set(e[:2]) & KNOWN_NAME_DIFFS)
        and e[1] != "loss/sampled_losses"}
    assert forward <= ours


def test_graph_view_shapes_and_attr_limit(served_graphs):
    nodes = {n.name: n for n in served_graphs["scopeflow"].node}
    shape = nodes["embed/embedding"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [models.BATCH_SIZE, models.EMBED_SIZE]
    assert nodes["embed_matrix/read"].attr["_class"].list.s == [b"loc:@embed_matrix"]
