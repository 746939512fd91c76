"""scopeflow.tools.optimize_for_inference(_lib): TF's passes give TF's GraphDef, node for node
(the classic models are in tests/unit/saved_model/test_classic_models.py)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.tools import optimize_for_inference_lib as lib

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "classic_models")


def _read(path):
    gd = tf.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    return gd


def _assert_same_graph_def(ours, theirs):
    assert [n.name for n in ours.node] == [n.name for n in theirs.node]
    for a, b in zip(ours.node, theirs.node):
        if a.op == "Const" and a != b:
            np.testing.assert_allclose(lib.values_from_const(a), lib.values_from_const(b),
                                       rtol=1e-6, err_msg=a.name)
            assert a.attr["dtype"] == b.attr["dtype"]
        else:
            assert a == b


def test_command_line_gives_tfs_graph(tmp_path):
    info = json.load(open(os.path.join(FIXTURES, "blocks.json")))
    out = tmp_path / "opt.pb"
    proc = subprocess.run(
        [sys.executable, "-m", "scopeflow.tools.optimize_for_inference",
         f"--input={os.path.join(FIXTURES, 'blocks.pb')}", f"--output={out}",
         f"--input_names={info['input']}", f"--output_names={','.join(info['outputs'])}"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    _assert_same_graph_def(_read(out), _read(os.path.join(FIXTURES, "blocks_optimized.pb")))


def test_command_line_text_graph_and_missing_input(tmp_path, capsys):
    from google.protobuf import text_format

    from scopeflow.tools import optimize_for_inference as cli
    info = json.load(open(os.path.join(FIXTURES, "tf1_ops.json")))
    src = tmp_path / "g.pbtxt"
    src.write_text(text_format.MessageToString(_read(os.path.join(FIXTURES, "tf1_ops.pb"))))
    flags, _ = cli.parse_args([f"--input={src}", f"--output={tmp_path / 'out/o.pbtxt'}",
                               "--frozen_graph=false", f"--input_names={info['input']}",
                               f"--output_names={info['outputs'][0]}"])
    assert cli.main(flags) == 0
    got = text_format.Parse((tmp_path / "out/o.pbtxt").read_text(), tf.GraphDef())
    assert [n.name for n in got.node][-4:] == [n for n in info["optimized_nodes"]
                                               if n != info["outputs"][1]][-4:]
    flags, _ = cli.parse_args(["--input=/nonexistent.pb", "--output=x"])
    assert cli.main(flags) == -1
    assert "Input graph file '/nonexistent.pb' does not exist!" in capsys.readouterr().out


def test_strip_unused_errors_and_placeholder_types():
    gd = _read(os.path.join(FIXTURES, "tf1_ops.pb"))
    with pytest.raises(ValueError, match="Name 'input:0' appears to refer to a Tensor"):
        lib.strip_unused(gd, ["input:0"], ["predictions"], 1)
    with pytest.raises(KeyError, match="input nodes were not found: {'nope'}"):
        lib.strip_unused(gd, ["nope"], ["predictions"], 1)
    out = lib.strip_unused(gd, ["conv1"], ["predictions"], [tf.float16.as_datatype_enum])
    conv1 = next(n for n in out.node if n.name == "conv1")
    assert conv1.op == "Placeholder" and conv1.attr["dtype"].type == tf.float16.as_datatype_enum
    assert "input" not in {n.name for n in out.node}   # only the replaced input fed it


def test_graph_checks():
    gd = tf.GraphDef()
    gd.node.add(name="a", op="Const")
    gd.node.add(name="b", op="Identity", input=["missing:1"])
    with pytest.raises(ValueError, match="not found"):
        lib.ensure_graph_is_valid(gd)
    gd.node.add(name="a", op="Const")
    with pytest.raises(ValueError, match="Duplicate node names"):
        lib.ensure_graph_is_valid(gd)
    assert lib.node_name_from_input("^scope/x:2") == "scope/x"
    with pytest.raises(ValueError, match="not Const"):
        lib.values_from_const(gd.node[1])


def test_placeholders_to_constants(caplog):
    gd = tf.GraphDef()
    for name, dtype in (("keras_learning_phase", tf.bool), ("is_training", tf.bool),
                        ("rate", tf.float32)):
        n = gd.node.add(name=name, op="PlaceholderWithDefault")
        n.attr["dtype"].type = dtype.as_datatype_enum
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        out = lib.convert_placeholder_to_const(gd, ["is_training=True", "rate=1"])
    ops = {n.name: n for n in out.node}
    assert ops["keras_learning_phase"].op == ops["is_training"].op == "Const"
    assert lib.values_from_const(ops["keras_learning_phase"]) == np.False_
    assert lib.values_from_const(ops["is_training"]) == np.True_
    assert ops["rate"].op == "PlaceholderWithDefault"
    assert "Not converting to Const" in caplog.text


def test_passes_match_tf_live(tf1):
    """A graph with each pattern TF's passes rewrite (a conv + BiasAdd + FusedBatchNormV3,
    depthwise + FusedBatchNorm, ResizeBilinear + MirrorPad + Conv2D, a MirrorPad-only and a
    resize-only conv, Identity, keras_learning_phase, an unused branch),
    optimized by TF and by scopeflow from the same GraphDef."""
    out = tf1(textwrap.dedent("""
        from tensorflow.python.tools import optimize_for_inference_lib as lib
        R = tf.raw_ops
        rng = np.random.RandomState(3)
        c = lambda *s: tf.constant(rng.normal(size=s).astype(np.float32))
        u = lambda n: tf.constant(rng.uniform(0.5, 2, n).astype(np.float32))
        x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        lp = tf.placeholder_with_default(False, [], name="keras_learning_phase")
        h = R.Conv2D(input=x, filter=c(3, 3, 3, 4), strides=[1, 1, 1, 1], padding="SAME")
        h = R.BiasAdd(value=h, bias=c(4))
        h = R.FusedBatchNormV3(x=h, scale=u(4), offset=c(4), mean=c(4), variance=u(4),
                               epsilon=0.01, is_training=False, name="bn1")[0]
        h = tf.identity(tf.identity(h), name="ident")
        d = R.DepthwiseConv2dNative(input=h, filter=c(3, 3, 4, 2), strides=[1, 1, 1, 1],
                                    padding="VALID")
        d = R.FusedBatchNorm(x=d, scale=u(8), offset=c(8), mean=c(8), variance=u(8),
                             epsilon=0.001, is_training=False, name="bn2")[0]
        r = R.ResizeBilinear(images=d, size=[12, 12], align_corners=True)
        p = R.MirrorPad(input=r, paddings=[[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        y1 = R.Conv2D(input=p, filter=c(3, 3, 8, 2), strides=[1, 1, 1, 1], padding="VALID",
                      name="y1")
        p2 = R.MirrorPad(input=d, paddings=[[0, 0], [1, 1], [1, 1], [0, 0]],
                         mode="SYMMETRIC")
        y2 = R.Conv2D(input=p2, filter=c(3, 3, 8, 2), strides=[1, 1, 1, 1],
                      padding="VALID", name="y2")
        y3 = R.Conv2D(input=R.ResizeBilinear(images=d, size=[4, 4]), filter=c(1, 1, 8, 2),
                      strides=[1, 1, 1, 1], padding="SAME", name="y3")
        tf.add(y3, tf.cast(lp, tf.float32), name="unused")
        gd = tf.get_default_graph().as_graph_def()
        opt = lib.optimize_for_inference(gd, ["x"], ["y1", "y2", "y3"],
                                         tf.float32.as_datatype_enum)
        toco = lib.optimize_for_inference(gd, ["x"], ["y1", "y2", "y3"],
                                          tf.float32.as_datatype_enum, toco_compatible=True)
        print(json.dumps([g.SerializeToString().hex() for g in (gd, opt, toco)]))
    """))
    gd, want, want_toco = (tf.GraphDef.FromString(bytes.fromhex(h)) for h in out)
    ours = lib.optimize_for_inference(gd, ["x"], ["y1", "y2", "y3"], 1)
    _assert_same_graph_def(ours, want)
    assert {"FusedResizeAndPadConv2D", "FusedPadConv2D"} <= {n.op for n in ours.node}
    toco = lib.optimize_for_inference(gd, ["x"], ["y1", "y2", "y3"], 1, toco_compatible=True)
    _assert_same_graph_def(toco, want_toco)
    x = np.random.RandomState(0).normal(size=(2, 8, 8, 3)).astype(np.float32)
    results = []
    for g in (gd, toco):   # the folded batch norms give the graph's values
        with tf.Graph().as_default(), tf.Session() as sess:
            tf.import_graph_def(g, name="")
            results.append(sess.run(["y1:0", "y2:0", "y3:0"], {"x:0": x}))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
