"""Hostile GraphDefs and .meta files: what import_graph_def / import_meta_graph may allocate,
and the malformed ones TF refuses (bad constants, duplicate names, inputs naming nothing).

A Const's TensorProto may list one value for a shape of 2**28 floats (a *splat*: TF's
``tf.zeros``/``tf.ones`` constants are written that way, readers fill the rest with the last
value). Such a 60-byte file must import without allocating the 1 GiB it declares: the
value stays a zero-stride view until a session fetches it or an op computes from it. The
messages are TF 2.21's (checked live by ``test_tensorflow_says_the_same``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import dtypes
from scopeflow.io import protos

FLOAT = dtypes.float32.as_datatype_enum


def _tensor(dtype, shape, **fields):
    proto = protos.TensorProto(dtype=dtype.as_datatype_enum, **fields)
    for d in shape:
        proto.tensor_shape.dim.add(size=d)
    return proto


def _graph_def(*consts):
    """A GraphDef of Const nodes ``(name, TensorProto)``."""
    gd = protos.GraphDef()
    for name, proto in consts:
        node = gd.node.add(name=name, op="Const")
        node.attr["dtype"].type = proto.dtype
        node.attr["value"].tensor.CopyFrom(proto)
    return gd


def _hostile_meta(float_vals) -> bytes:
    meta = protos.MetaGraphDef()
    meta.graph_def.CopyFrom(_graph_def(("c", _tensor(dtypes.float32, [2 ** 28],
                                                     float_val=float_vals))))
    return meta.SerializeToString()


# ── A splat constant stays compact ───────────────────────────────────────────────────
# Run in a child process whose address space is capped at 1 GiB: importing scopeflow takes
# about 150 MB of it, materialising the constant would take 1 GiB more.
_CHILD = """
import resource, sys
limit = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import numpy as np
import scopeflow as tf
path, case = sys.argv[1], sys.argv[2]
if case == "one value":
    tf.train.import_meta_graph(path)
    c = tf.get_default_graph().get_tensor_by_name("c:0")
    head = tf.slice(c, [0], [4]) * 2.0       # an op that reads 4 of its 2**28 elements
    with tf.Session() as sess:
        got = sess.run(head).tolist()
    exported = [n.ByteSize() for n in tf.get_default_graph().as_graph_def().node
                if n.name == "c"][0]
    with tf.Graph().as_default():               # and through import_graph_def
        from scopeflow.io import protos
        with open(path, "rb") as f:
            tf.import_graph_def(protos.MetaGraphDef.FromString(f.read()).graph_def)
    print(json.dumps({"shape": c.shape.as_list(), "head": got, "exported": exported}))
else:
    try:
        tf.train.import_meta_graph(path)
        print(json.dumps({"imported": True}))
    except ValueError as e:
        print(json.dumps({"error": str(e)}))
"""


def _run_capped(tmp_path, data, case):
    path = tmp_path / "hostile.meta"
    path.write_bytes(data)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", "import json\n" + textwrap.dedent(_CHILD),
                          str(path), case], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def test_sixty_byte_meta_declaring_a_gigabyte_splat_imports_in_little_memory(tmp_path):
    data = _hostile_meta([1.5])
    assert len(data) <= 64
    got = _run_capped(tmp_path, data, "one value")
    assert got["shape"] == [2 ** 28]
    assert got["head"] == [3.0, 3.0, 3.0, 3.0]
    assert got["exported"] < 64  # re-exported as TF wrote it: one float_val


def test_splat_of_two_values_is_padded_only_within_the_import_allowance(tmp_path):
    # [1.5, 2.5, 2.5, ...] is no strided view: filling it would take 1 GiB, which the import
    # refuses (64 MiB in all) before allocating anything.
    got = _run_capped(tmp_path, _hostile_meta([1.5, 2.5]), "two values")
    assert "float_val: <2 values>" in got["error"]
    assert "would take 1073741824 bytes" in got["error"]
    assert "{{node c}}" in got["error"]


def test_import_allocates_no_splat_and_its_value_is_right_when_used():
    n = 4096  # 64 MiB of float32, declared in a few bytes
    gd = _graph_def(("big", _tensor(dtypes.float32, [n, n], float_val=[2.0])),
                    ("small", _tensor(dtypes.float32, [3, 2], float_val=[1.5])),
                    ("ints", _tensor(dtypes.int64, [4], int64_val=[7])),
                    ("flags", _tensor(dtypes.bool_, [2, 2], bool_val=[True])),
                    ("words", _tensor(dtypes.string, [3], string_val=[b"ab"])),
                    ("none", _tensor(dtypes.float32, [3])),              # no value: zeros
                    ("padded", _tensor(dtypes.int32, [5], int_val=[1, 2])))
    tracemalloc.start()
    try:
        tf.import_graph_def(gd, name="")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak
    g = tf.get_default_graph()
    big = g.get_tensor_by_name("big:0")
    value = g.get_operation_by_name("big").get_attr("value")
    assert value.shape == (n, n) and not value.flags.writeable
    x = tf.placeholder(tf.float32, [n, n])
    total = tf.add(big, x)
    scaled = tf.reduce_sum(big * 0.5)
    with tf.Session() as sess:
        xs = np.arange(n * n, dtype=np.float32).reshape(n, n)
        np.testing.assert_array_equal(sess.run(total, {x: xs}), xs + 2.0)
        assert sess.run(scaled) == n * n
        small, ints, flags, words, none, padded = sess.run(
            ["small:0", "ints:0", "flags:0", "words:0", "none:0", "padded:0"])
    np.testing.assert_array_equal(small, np.full((3, 2), 1.5, np.float32))
    assert small.flags.writeable and small.flags.c_contiguous  # a fetch is the caller's own
    np.testing.assert_array_equal(ints, [7, 7, 7, 7])
    assert flags.tolist() == [[True, True], [True, True]]
    assert words.tolist() == [b"ab", b"ab", b"ab"]
    np.testing.assert_array_equal(none, [0.0, 0.0, 0.0])
    assert padded.tolist() == [1, 2, 2, 2, 2]


def test_a_huge_declared_placeholder_shape_allocates_nothing():
    gd = protos.GraphDef()
    node = gd.node.add(name="x", op="Placeholder")
    node.attr["dtype"].type = FLOAT
    for d in (2 ** 40, 2 ** 20):
        node.attr["shape"].shape.dim.add(size=d)
    tf.import_graph_def(gd, name="")
    assert tf.get_default_graph().get_tensor_by_name("x:0").shape.as_list() == [2 ** 40, 2 ** 20]


# ── Values as TF's runtime reads them ────────────────────────────────────────────────
def _imported_value(proto):
    tf.import_graph_def(_graph_def(("c", proto)), name="")
    with tf.Session() as sess:
        return sess.run("c:0")


def test_more_values_than_the_shape_holds_are_cut_as_tf_cuts_them():
    # TF's Tensor::FromProto takes the first n (tf.make_ndarray would fail instead).
    assert _imported_value(_tensor(dtypes.float32, [2], float_val=[1, 2, 3])).tolist() == \
        [1.0, 2.0]
    tf.reset_default_graph()
    assert _imported_value(_tensor(dtypes.string, [2], string_val=[b"a", b"b", b"c"])
                           ).tolist() == [b"a", b"b"]


def test_values_in_another_dtypes_field_are_ignored_as_tf_ignores_them():
    # A float tensor reads float_val only: its int_val is not its value (TF gives zeros).
    assert _imported_value(_tensor(dtypes.float32, [2], int_val=[1, 2])).tolist() == [0, 0]


@pytest.mark.parametrize("content", [b"\0" * 12, b"\0" * 20, b"\0" * 9],
                         ids=["short", "long", "ragged"])
def test_tensor_content_of_another_size_than_the_shape_is_refused(content):
    proto = _tensor(dtypes.float32, [4], tensor_content=content)
    with pytest.raises(ValueError) as e:
        tf.import_graph_def(_graph_def(("c", proto)), name="")
    message = str(e.value)
    assert message.startswith("Cannot parse tensor from proto: dtype: DT_FLOAT tensor_shape "
                              f"{{ dim {{ size: 4 }} }} tensor_content: <{len(content)} bytes>")
    assert message.endswith("[[{{node c}}]]")


@pytest.mark.parametrize("dims, shown, what", [
    ([-1], "[?]", "is not fully defined"),
    ([3, -2], "[3,-2]", "is not fully defined"),
    ([2 ** 32, 2 ** 32], "[4294967296,4294967296]", "is too large (more than 2**63 - 1 entries)"),
])
def test_a_shape_tf_refuses_is_refused_in_its_words(dims, shown, what):
    with pytest.raises(ValueError, match=r"^Shape " + re.escape(f"{shown} {what} for '{{{{node c}}}} = "
                                                          "Const[value=<TensorProto: ")):
        tf.import_graph_def(_graph_def(("c", _tensor(dtypes.float32, dims, float_val=[1]))),
                            name="")


def test_a_value_of_another_dtype_than_the_node_is_refused():
    gd = _graph_def(("c", _tensor(dtypes.int32, [2], int_val=[7])))
    gd.node[0].attr["dtype"].type = FLOAT
    with pytest.raises(ValueError, match=re.escape("Type mismatch between value (int32) and dtype "
                                             "(float)\n\t [[{{node c}}]]")):
        tf.import_graph_def(gd, name="")


def test_a_const_without_its_value_is_refused():
    gd = protos.GraphDef()
    gd.node.add(name="c", op="Const").attr["dtype"].type = FLOAT
    with pytest.raises(ValueError, match=re.escape("NodeDef missing attr 'value' from Op<name=Const;")):
        tf.import_graph_def(gd, name="")


# ── Duplicate node names ─────────────────────────────────────────────────────────────
def _duplicated():
    one = _tensor(dtypes.float32, [], float_val=[1.0])
    two = _tensor(dtypes.float32, [], float_val=[2.0])
    gd = _graph_def(("b", one), ("a", one), ("a", two))
    node = gd.node.add(name="s", op="AddV2", input=["a", "b"])
    node.attr["T"].type = FLOAT
    return gd


@pytest.mark.parametrize("prefix", ["", None, "scope"])
def test_import_graph_def_refuses_two_nodes_of_one_name(prefix):
    with pytest.raises(ValueError, match=r"^Node 'a' is not unique$"):
        tf.import_graph_def(_duplicated(), name=prefix)
    assert tf.get_default_graph().get_operations() == []  # refused before importing any


def test_import_graph_def_checks_names_before_op_types():
    gd = _duplicated()
    gd.node.add(name="z", op="NoSuchOp")
    with pytest.raises(ValueError, match=r"^Node 'a' is not unique$"):
        tf.import_graph_def(gd, name="")


@pytest.mark.parametrize("scope", [None, "imported"])
def test_import_meta_graph_refuses_two_nodes_of_one_name(tmp_path, scope):
    meta = protos.MetaGraphDef()
    meta.graph_def.CopyFrom(_duplicated())
    path = tmp_path / "dup.meta"
    path.write_bytes(meta.SerializeToString())
    with pytest.raises(ValueError, match=r"^Node 'a' is not unique$"):
        tf.train.import_meta_graph(str(path), import_scope=scope)
    assert tf.get_default_graph().get_operations() == []


# ── Inputs and attrs a hostile GraphDef may hold ─────────────────────────────────────
def _with_identity(*inputs):
    gd = _graph_def(("scalar", _tensor(dtypes.float32, [], float_val=[1.0])))
    node = gd.node.add(name="i", op="Identity", input=list(inputs))
    node.attr["T"].type = FLOAT
    return gd


@pytest.mark.parametrize("spec, message", [
    # TF's ParseTensorName: an index is the digits after the last ':' (and fits int32);
    # anything else is part of the node's name, which the graph_def lacks.
    ("scalar:-1", "Node 'i': input 'scalar:-1' is not in the graph_def"),
    ("scalar:1180591620717411303424",
     "Node 'i': input 'scalar:1180591620717411303424' is not in the graph_def"),
    ("scalar:5", "Node 'i': Connecting to invalid output 5 of source node scalar which has 1 "
                 "outputs."),
], ids=["minus one", "past int32", "output 5"])
def test_an_input_naming_no_output_of_its_node_is_refused(spec, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        tf.import_graph_def(_with_identity(spec), name="")


def test_a_control_input_naming_no_node_is_refused():
    with pytest.raises(ValueError, match=re.escape("Node 'i': input '^nowhere' is not in")):
        tf.import_graph_def(_with_identity("scalar", "^nowhere"), name="")


@pytest.mark.parametrize("enum, shown", [(24, "24"), (99, "99")])  # 24: TF's float8_e5m2
def test_a_dtype_attr_scopeflow_lacks_is_refused_naming_the_node(enum, shown):
    gd = protos.GraphDef()
    gd.node.add(name="p", op="Placeholder").attr["dtype"].type = enum
    with pytest.raises(ValueError, match=re.escape(f"Node 'p': attr 'dtype' is DataType {shown}")):
        tf.import_graph_def(gd, name="")


# ── TF says the same ─────────────────────────────────────────────────────────────────
@pytest.mark.tf
def test_tensorflow_says_the_same(tf1):
    cases = {
        "dup": _duplicated(),
        "neg": _graph_def(("c", _tensor(dtypes.float32, [-1], float_val=[1]))),
        "large": _graph_def(("c", _tensor(dtypes.float32, [2 ** 32, 2 ** 32], float_val=[1]))),
        "content": _graph_def(("c", _tensor(dtypes.float32, [4], tensor_content=b"\0" * 12))),
        "cut": _graph_def(("c", _tensor(dtypes.float32, [2], float_val=[1, 2, 3]))),
        "field": _graph_def(("c", _tensor(dtypes.float32, [2], int_val=[1, 2]))),
        "splat": _graph_def(("c", _tensor(dtypes.int32, [5], int_val=[1, 2]))),
        "minus one": _with_identity("scalar:-1"),
        "past int32": _with_identity("scalar:1180591620717411303424"),
        "output 5": _with_identity("scalar:5"),
    }
    mismatch = _graph_def(("c", _tensor(dtypes.int32, [2], int_val=[7])))
    mismatch.node[0].attr["dtype"].type = FLOAT
    cases["dtype"] = mismatch
    got = tf1(f"""
        out = {{}}
        for key, hexed in {json.dumps({k: v.SerializeToString().hex()
                                       for k, v in cases.items()})}.items():
            with tf.Graph().as_default():
                try:
                    tf.import_graph_def(tf.GraphDef.FromString(bytes.fromhex(hexed)), name="")
                except ValueError as e:
                    out[key] = ["import", str(e)]
                    continue
                try:
                    with tf.Session() as sess:
                        out[key] = ["value", sess.run("c:0").tolist()]
                except tf.errors.InvalidArgumentError as e:
                    out[key] = ["run", e.message]
        print(json.dumps(out))
    """)
    assert got["dup"] == ["import", "Node 'a' is not unique"]
    assert got["neg"][1].startswith("Shape [?] is not fully defined for '{{node c}} = Const[")
    assert got["large"][1].startswith("Shape [4294967296,4294967296] is too large (more than "
                                      "2**63 - 1 entries) for '{{node c}} = Const[")
    assert got["content"][0] == "run" and "Cannot parse tensor from proto" in got["content"][1]
    assert got["dtype"][0] == "run" and \
        "Type mismatch between value (int32) and dtype (float)" in got["dtype"][1]
    assert got["cut"] == ["value", [1.0, 2.0]]
    assert got["field"] == ["value", [0.0, 0.0]]
    assert got["splat"] == ["value", [1, 2, 2, 2, 2]]
    assert got["minus one"] == ["import", "Node 'i': Unknown input node 'scalar:-1'"]
    assert got["past int32"] == ["import", "Node 'i': Unknown input node "
                                           "'scalar:1180591620717411303424'"]
    assert got["output 5"] == ["import", "Node 'i': Connecting to invalid output 5 of source "
                                         "node scalar which has 1 outputs."]


# ── Shape-like inputs: never listed from a huge constant ─────────────────────────────
_SHAPE_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
import scopeflow as tf
from scopeflow.io import protos
gd = protos.GraphDef.FromString(open(sys.argv[1], "rb").read())
tf.import_graph_def(gd, name="")
print(json.dumps({"rank": tf.get_default_graph().get_tensor_by_name("r:0").shape.ndims}))
"""


@pytest.mark.parametrize("op, attr", [("Reshape", "Tshape"), ("Tile", "Tmultiples"),
                                      ("Transpose", "Tperm")])
def test_a_splat_shape_input_is_not_listed_at_import(tmp_path, op, attr):
    # Shape inference listed the 2**28 ints of the second input (MemoryError after 20 s).
    gd = _graph_def(("x", _tensor(dtypes.float32, [1], float_val=[1.0])),
                    ("s", _tensor(dtypes.int32, [2 ** 28], int_val=[1])))
    node = gd.node.add(name="r", op=op, input=["x", "s"])
    node.attr["T"].type = FLOAT
    node.attr[attr].type = dtypes.int32.as_datatype_enum
    path = tmp_path / "g.pb"
    path.write_bytes(gd.SerializeToString())
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _SHAPE_CHILD, str(path)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    rank = json.loads(out.stdout.splitlines()[-1])["rank"]
    assert rank in (None, 1)  # not known statically: the kernel checks it if it runs


def test_a_node_without_an_attr_its_op_requires_is_refused_as_tf():
    # TF 2.21: "NodeDef missing attrs 'padding', 'strides' from Op<name=Conv2D; ...>;
    # NodeDef: {{node c}}" (its signature also lists allowed values and defaults). Before,
    # the shape rule met strides=None: a TypeError from inside conv_ops.
    gd = protos.GraphDef()
    for name in ("x", "w"):
        gd.node.add(name=name, op="Placeholder").attr["dtype"].type = FLOAT
    conv = gd.node.add(name="c", op="Conv2D", input=["x", "w"])
    conv.attr["T"].type = FLOAT
    with pytest.raises(ValueError, match=r"^NodeDef missing attrs 'padding', 'strides' from "
                       r"Op<name=Conv2D; signature=input:T, filter:T -> output:T; attr=T:type; "
                       r"attr=strides:list\(int\).*>; NodeDef: \{\{node c\}\}$"):
        tf.import_graph_def(gd, name="")
    conv.attr["strides"].list.i.extend([1, 1, 1, 1])
    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="^NodeDef missing attr 'padding' from Op<name=Conv2D"):
        tf.import_graph_def(gd, name="")


def _float_placeholder(name):
    node = protos.NodeDef(name=name, op="Placeholder")
    node.attr["dtype"].type = FLOAT
    return node


def _import_nodes(*nodes):
    gd = protos.GraphDef()
    gd.node.extend(nodes)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")


def test_malformed_nodes_the_fuzzers_found_are_tfs_value_errors():
    # Each crashed inside scopeflow before (IndexError, TypeError, AttributeError); the
    # messages are TF 2.21's (its Op<...> signatures also list defaults and allowed values).
    conv = protos.NodeDef(name="conv", op="Conv2D", input=["x", "w"])
    conv.attr["T"].type = FLOAT
    conv.attr["padding"].s = b"SAME"
    conv.attr["strides"].list.i.extend([1, 1, 1, 1])
    conv.attr["dilations"].list.SetInParent()  # an empty list
    with pytest.raises(ValueError, match="^Conv2D requires the dilation attribute to contain "
                                         "4 values, but got: 0"):
        _import_nodes(_float_placeholder("x"), _float_placeholder("w"), conv)
    conv.attr["dilations"].list.i.extend([1, 1, 1, 1])
    conv.attr["padding"].s = b"SAMX"  # an UnboundLocalError in the geometry before
    with pytest.raises(ValueError, match="^Value for attr 'padding' of \"SAMX\" is not in the "
                                         "list of allowed values: \"SAME\", \"VALID\", "
                                         "\"EXPLICIT\""):
        _import_nodes(_float_placeholder("x"), _float_placeholder("w"), conv)
    for inputs in ([], ["x", "x"]):
        shape = protos.NodeDef(name="shp", op="Shape", input=inputs)
        shape.attr["T"].type = FLOAT
        with pytest.raises(ValueError, match=rf"^NodeDef expected inputs 'float' do not match "
                                             rf"{len(inputs)} inputs specified; Op<name=Shape; "
                                             r"signature=input:T -> output:out_type;.*"
                                             r"NodeDef: \{\{node shp\}\}$"):
            _import_nodes(_float_placeholder("x"), shape)
    dims = _graph_def(("dims", _tensor(dtypes.int32, [2], int_val=[4, 2]))).node[0]
    for value, problem in ((protos.AttrValue(), "AttrValue missing value with expected type "
                                                "'type'"),
                           (protos.AttrValue(i=3), "AttrValue had value with type 'int' when "
                                                   "'type' expected")):
        rnd = protos.NodeDef(name="rnd", op="RandomUniform", input=["dims"])
        rnd.attr["T"].type = dtypes.int32.as_datatype_enum
        rnd.attr["dtype"].CopyFrom(value)
        with pytest.raises(ValueError) as info:
            _import_nodes(dims, rnd)
        assert str(info.value).startswith(f"{problem}\n\t for attr 'dtype'\n\t; NodeDef: "
                                          "{{node rnd}}; Op<name=RandomUniform; signature=")
