"""tf.summary.SummaryDescription, get_summary_description, all_v2_summary_ops against
TF 2.21 (compat.v1); the checks below the TF one need no TensorFlow."""

import json
import textwrap

import pytest
from google.protobuf import json_format

import scopeflow as tf

PROGRAM = textwrap.dedent('''
def run_cases(tf):
    out = {}
    graph_def = tf.GraphDef()
    node = graph_def.node.add()
    node.name, node.op = "s", "TensorSummary"
    node.attr["description"].s = b'{"type_hint": "image"}'
    other = graph_def.node.add()
    other.name, other.op = "c", "Const"
    empty = graph_def.node.add()
    empty.name, empty.op = "e", "TensorSummary"
    d = tf.summary.get_summary_description(node)
    out["desc"] = [type(d).__name__, d.DESCRIPTOR.full_name, d.type_hint,
                   d.SerializeToString().hex(),
                   [f.name for f in tf.summary.SummaryDescription.DESCRIPTOR.fields]]
    out["made"] = tf.summary.SummaryDescription(type_hint="scalar").SerializeToString().hex()
    for key, case in {"const": lambda: tf.summary.get_summary_description(other),
                      "empty": lambda: tf.summary.get_summary_description(empty)}.items():
        try:
            case()
            out[key] = None
        except Exception as e:  # noqa: BLE001 - the class (and text) are compared
            out[key] = [type(e).__name__, str(e) if key == "const" else ""]
    g = tf.Graph()
    with g.as_default():
        out["before"] = tf.summary.all_v2_summary_ops()
        tf.summary.scalar("loss", tf.constant(1.0))
        out["after_v1_scalar"] = tf.summary.all_v2_summary_ops()
        op = tf.no_op(name="mine")
        tf.add_to_collection("_SUMMARY_V2", op)
        out["registered"] = [o.name for o in tf.summary.all_v2_summary_ops()]
    return out
''')


def _ours():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 (the program shared with the TF run)
    return json.loads(json.dumps(scope["run_cases"](tf)))


def test_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + PROGRAM +
                 "\nprint(json.dumps(run_cases(tf)))\n")
    assert _ours() == theirs


def test_without_tf():
    got = _ours()
    assert got["desc"][1:3] == ["tensorflow.SummaryDescription", "image"]
    assert got["const"] == ["ValueError", "Can't get_summary_description on Const"]
    assert got["empty"][0] == json_format.ParseError.__name__
    assert got["before"] == [] and got["after_v1_scalar"] == []
    assert got["registered"] == ["mine"]
    with pytest.raises(ValueError, match="on Const"):
        tf.summary.get_summary_description(tf.constant(1.0).op.node_def)
