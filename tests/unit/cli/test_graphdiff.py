"""``scopeflow graphdiff A B``: nodes missing, extra and different between two graphs, in
creation order. The TF side is a small graph real TF wrote
(tests/fixtures/graphdiff/make_fixture.py, run under the oracle); the scopeflow side is
the same ``build`` run here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow import cli
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_tensor_proto
from scopeflow.tools import graphdiff

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "graphdiff"
TF_META = FIXTURES / "tf_graph.meta"
TF_PBTXT = FIXTURES / "tf_graph.pbtxt"
sys.path.insert(0, str(FIXTURES))
import make_fixture  # noqa: E402

sys.path.remove(str(FIXTURES))


def _ours(tmp_path, before=None):
    """Our graph of the fixture's ``build`` as .meta and .pbtxt; ``before(tf)`` runs first."""
    with tf.Graph().as_default() as graph:
        if before is not None:
            before(tf)
        make_fixture.build(tf)
        tf.io.write_graph(graph.as_graph_def(), str(tmp_path), "ours.pbtxt", as_text=True)
        tf.train.export_meta_graph(str(tmp_path / "ours.meta"))
    return tmp_path / "ours.meta", tmp_path / "ours.pbtxt"


def _run(capsys, *argv):
    code = cli.main(["graphdiff", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_scopeflow_builds_tfs_graph_of_the_fixture(tmp_path, capsys):
    meta, pbtxt = _ours(tmp_path)
    code, out, _ = _run(capsys, TF_META, meta)
    assert out == [f"{TF_META}: 22 nodes, {meta}: 22 nodes; 0 only in {TF_META}, "
                   f"0 only in {meta}, 0 different"]
    assert code == 0
    code, out, _ = _run(capsys, TF_PBTXT, pbtxt)
    assert code == 0 and out[-1].endswith("0 different")


def test_reads_text_and_binary_of_both_kinds(tmp_path):
    meta_nodes = graphdiff.load_nodes(TF_META)
    text_nodes = graphdiff.load_nodes(TF_PBTXT)   # TF 2.21's text has experimental_type
    assert [n.name for n in meta_nodes] == [n.name for n in text_nodes]
    assert meta_nodes[0].name == "x" and meta_nodes[-1].op == "SelectV2"
    binary = tmp_path / "g.pb"
    gd = protos.GraphDef()
    gd.node.extend(text_nodes)
    binary.write_bytes(gd.SerializeToString())
    assert [n.name for n in graphdiff.load_nodes(binary)] == [n.name for n in text_nodes]


def test_meta_export_adds_output_shapes(capsys):
    # TF's export_meta_graph records _output_shapes; its GraphDef does not
    code, out, _ = _run(capsys, TF_META, TF_PBTXT)
    assert code == 1
    assert out[:2] == ["~ x (Placeholder)",
                       "    attr _output_shapes: list { shape { dim { size: -1 } dim { size: 3 } "
                       "} } -> (none)"]
    assert out[-1].endswith("0 only in " + str(TF_PBTXT) + ", 22 different")
    code, out, _ = _run(capsys, "--ignore-attr", "_output_shapes", TF_META, TF_PBTXT)
    assert code == 0


def test_an_earlier_random_op_moves_every_seed_after_it(tmp_path, capsys):
    def before(tf):
        tf.set_random_seed(1)
        tf.random_uniform([])
    _, pbtxt = _ours(tmp_path, before)
    code, out, _ = _run(capsys, TF_PBTXT, pbtxt)
    assert code == 1
    assert out == [
        "+ random_uniform/shape (Const)",
        "+ random_uniform/RandomUniform (RandomUniform)",
        "~ random_normal/RandomStandardNormal (RandomStandardNormal)",
        "    attr seed2: i: 0 -> i: 1",
        "~ dropout/random_uniform/RandomUniform (RandomUniform)",
        "    attr seed2: i: 1 -> i: 2",
        f"{TF_PBTXT}: 22 nodes, {pbtxt}: 24 nodes; 0 only in {TF_PBTXT}, 2 only in {pbtxt}, "
        "2 different"]


def test_missing_extra_and_changed_nodes_in_creation_order(tmp_path, capsys):
    nodes = graphdiff.load_nodes(TF_PBTXT)
    gd = protos.GraphDef()
    for n in nodes:
        if n.name == "MatMul":
            continue                                  # missing
        m = gd.node.add()
        m.CopyFrom(n)
        if n.name == "y":
            m.op = "Sigmoid"                          # another op type
        if n.name == "add":
            m.input[0] = "x"                          # another input
            extra = gd.node.add()                     # extra, right after add
            extra.name, extra.op = "extra", "NoOp"
            extra.input.append("^add")
        if n.name == "dropout/Mul":
            m.device = "/device:CPU:0"
    b = tmp_path / "b.pbtxt"
    tf.io.write_graph(gd, str(tmp_path), "b.pbtxt", as_text=True)
    code, out, _ = _run(capsys, TF_PBTXT, b)
    assert code == 1
    assert out[:-1] == [
        "- MatMul (MatMul)",
        "~ add (AddV2)",
        "    input 0: MatMul -> x",
        "+ extra (NoOp)",
        "~ y (Softmax)",
        "    op: Softmax -> Sigmoid",
        "~ dropout/Mul (Mul)",
        "    device: (none) -> /device:CPU:0"]
    code, out, _ = _run(capsys, "--ignore-device", "--json", TF_PBTXT, b)
    doc = json.loads("\n".join(out))
    assert code == 1
    assert (doc["a_nodes"], doc["b_nodes"], doc["missing"], doc["extra"], doc["different"]) \
        == (22, 22, 1, 1, 2)
    assert doc["nodes"][2] == {"kind": "extra", "name": "extra", "op": "NoOp"}
    assert doc["nodes"][3]["changes"] == [{"what": "op", "a": "Softmax", "b": "Sigmoid"}]


def test_tensor_attrs_are_compared_by_value():
    def const(proto):
        n = protos.NodeDef(name="c", op="Const")
        n.attr["value"].tensor.CopyFrom(proto)
        n.attr["dtype"].type = proto.dtype
        return n

    packed = make_tensor_proto(np.array([1.0, 2.0], np.float32))
    listed = protos.TensorProto(dtype=packed.dtype, float_val=[1.0, 2.0])
    listed.tensor_shape.CopyFrom(packed.tensor_shape)
    assert packed.SerializeToString() != listed.SerializeToString()
    assert graphdiff.diff_graphs([const(packed)], [const(listed)]).same
    other = make_tensor_proto(np.array([1.0, 3.0], np.float32))
    diff = graphdiff.diff_graphs([const(packed)], [const(other)])
    assert [(e.kind, e.changes) for e in diff.entries] == [
        ("different", [("attr value", "tensor float32[2] [1., 2.]",
                        "tensor float32[2] [1., 3.]")])]


@pytest.mark.parametrize("content, message", [
    (None, "No such file or directory"),
    (b"\xff\x00garbage\x07", "not a GraphDef"),
])
def test_unreadable_inputs_fail_with_one_line(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.pb"
    if content is not None:
        bad.write_bytes(content)
    code, out, err = _run(capsys, TF_PBTXT, bad)
    assert code == 1 and out == []
    assert err.startswith("scopeflow graphdiff: error: ") and message in err
    assert err.count("\n") == 1


def test_usage_mistakes_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["graphdiff", str(TF_PBTXT)])
    assert e.value.code == 2
    assert "the following arguments are required: b" in capsys.readouterr().err
