"""Graphs: a serialized ``GraphDef`` (``tf.import_graph_def``) and a ``.meta`` file
(``tf.train.import_meta_graph``), each imported into a fresh graph whose constants are
then evaluated (a ``Const`` holds a ``TensorProto``, the untrusted part that reaches
NumPy).

Seeds: GraphDefs scopeflow's ``as_graph_def`` writes (constants of every dtype, strings,
splat constants as TF makes them, placeholders, a variable, a conv net) and the two TF
wrote in ``tests/fixtures/tf_summaries``; the ``.meta`` of a scopeflow Saver and TF's in
``tests/fixtures/tf_meta_graph``.

Accepted errors:

* ``ValueError`` raised by scopeflow: TF's ``import_graph_def`` turns every invalid-graph
  error of its C importer into ``ValueError`` (unknown op, bad input, missing attr, bad
  dtype or shape, a cycle, a too-new version), and ``import_meta_graph`` lets it through.
* ``NotFoundError``: TF 2.21's ``import_graph_def`` raises it for an op type it does not
  know ("Op type not registered 'NoSuchOp'").
* ``KeyError`` raised by scopeflow (``.meta`` only): TF's ``Graph.as_graph_element``,
  which ``import_meta_graph`` calls for every name a collection lists, raises
  ``KeyError`` for a name the graph lacks.
* ``InvalidArgumentError``: a ``Const`` whose ``TensorProto`` cannot become a tensor
  (TF's kernel: "Cannot parse tensor from proto"), or that TF rejects at import.
* ``ResourceExhaustedError``: TF's class for a constant too large to allocate -- raised
  on purpose, or by the session for a ``Const`` kernel's ``MemoryError`` (TF's ``Const``
  kernel allocates the declared tensor too, so its OOM error is the expected outcome of a
  huge splat constant; the one target family where a kernel's MemoryError is accepted).
* ``DataLossError`` (``.meta`` only): a file that is neither a binary nor a text
  ``MetaGraphDef`` -- TF raises ``IOError("Cannot parse file ...")``, scopeflow its
  data-loss class with the same words.
* A ``GraphDef`` that protobuf itself cannot parse is counted as ``ok:not-a-GraphDef``:
  the caller's ``GraphDef.FromString`` raises protobuf's ``DecodeError`` before any
  scopeflow code runs (as in TF).
"""

from __future__ import annotations

import numpy as np

from .base import FIXTURES, Accept, Hostile, Seed, Target


def _accepts(meta=False):
    from scopeflow.framework import errors

    rules = [Accept(ValueError, "TF's import_graph_def raises ValueError for an invalid graph"),
             Accept(errors.InvalidArgumentError, "a Const whose TensorProto cannot become a "
                    "tensor (TF: 'Cannot parse tensor from proto')"),
             Accept(errors.ResourceExhaustedError, "TF's class for a constant too large to "
                    "allocate"),
             Accept(errors.NotFoundError, "TF 2.21's import_graph_def: 'Op type not "
                    "registered' for an unknown op")]
    if meta:
        rules += [Accept(KeyError, "TF's as_graph_element raises KeyError for a collection "
                         "entry naming a tensor or op the graph lacks"),
                  Accept(errors.DataLossError, "a file that is no MetaGraphDef (TF: IOError "
                         "'Cannot parse file')")]
    return tuple(rules)


def scopeflow_graph():
    """A graph with constants of every dtype, splat constants, strings and a small net."""
    import scopeflow as tf

    graph = tf.Graph()
    with graph.as_default():
        for dtype in (np.float32, np.float64, np.float16, np.int8, np.int16, np.int32,
                      np.int64, np.uint8, np.uint16, np.complex64, np.complex128, np.bool_):
            tf.constant(np.arange(6).reshape(2, 3).astype(dtype), name=f"c_{np.dtype(dtype).name}")
        tf.constant(np.array([b"a", b"", b"x" * 200], dtype=object), name="strings")
        tf.constant(3.5, name="scalar")
        tf.zeros([64, 64], name="splat_zeros")
        tf.constant(7, shape=[3, 4], name="splat_seven")
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
        w = tf.Variable(tf.ones([3, 3, 1, 2]), name="w")
        y = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
        tf.reduce_mean(tf.reshape(y, [-1, 128]), axis=1, name="out")
        tf.fill(tf.constant([2, 3]), 1.5, name="filled")
    return graph


class GraphDefTarget(Target):
    name = "graph_def"
    kernel_oom_is_tf_oom = True   # a Const's declared tensor is allocated, as TF's kernel does
    owner = "scopeflow/framework/graph_import.py, io/tensor_proto.py, ops/constant_op.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _accepts()

    def prepare(self):
        ours = scopeflow_graph().as_graph_def().SerializeToString()
        self.seeds = [Seed("scopeflow graph", ours)]
        for name in ("cnn", "word2vec"):
            data = (FIXTURES / "tf_summaries" / f"{name}.graphdef.pb").read_bytes()
            self.seeds.append(Seed(f"tf {name}", data))
        self.path = self.workdir / "graph.pb"

    def probes(self):
        from google.protobuf.message import DecodeError

        import scopeflow as tf

        state = {}

        def import_(seed, path):
            state.clear()
            try:
                graph_def = tf.GraphDef.FromString(path.read_bytes())
            except DecodeError:
                return "not-a-GraphDef"
            graph = tf.Graph()
            with graph.as_default():
                tf.import_graph_def(graph_def, name="")
            state["graph"] = graph
            return None
        return [("import_graph_def", import_), ("run consts", lambda s, p: _run_consts(state))]

    def hostile(self, long):
        return graph_hostile(self.seeds[0].data, long)


_SELF_CONTAINED_SOURCES = frozenset({"Const", "NoOp"})


def _runnable_consts(graph):
    """The graph's constants that run without feeds or state: every op they depend on
    (data and control inputs, transitively) starts from Consts and NoOps only, not from a
    placeholder or a variable. Walked without recursion: a damaged graph may be deep."""
    ok: dict = {}    # op -> True/False once known; None while its inputs are walked
    for root in graph.get_operations():
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            deps = [t.op for t in op.inputs] + list(op.control_inputs)
            if expanded:     # its inputs are known (or on the path: a cycle, not runnable)
                ok[op] = all(ok.get(d) is True for d in deps) if deps else \
                    op.type in _SELF_CONTAINED_SOURCES
            elif op not in ok:
                ok[op] = None
                stack.append((op, True))
                stack.extend((d, False) for d in deps if d not in ok)
    return [op.outputs[0] for op in graph.get_operations() if op.type == "Const" and ok[op]]


def _run_consts(state):
    import scopeflow as tf

    graph = state.get("graph")
    if graph is None:
        return "skipped"
    consts = _runnable_consts(graph)
    if not consts:
        return "no consts"
    with tf.Session(graph=graph) as sess:
        sess.run(consts)
    return None


def graph_hostile(seed: bytes, long: bool) -> list[Hostile]:
    from scopeflow.io import protos

    out = []

    def with_nodes(label, *nodes, base=seed, edit=None):
        g = protos.GraphDef.FromString(base)
        g.node.extend(nodes)
        if edit is not None:
            edit(g)
        out.append(Hostile(label, g.SerializeToString()))

    def const(name, dtype, dims, **values):
        t = protos.TensorProto(dtype=dtype, **values)
        for d in dims:
            t.tensor_shape.dim.add(size=d)
        node = protos.NodeDef(name=name, op="Const")
        node.attr["dtype"].type = dtype if 0 < dtype < 100 else 1
        node.attr["value"].tensor.CopyFrom(t)
        return node

    with_nodes("splat float [2**40, 2**40]", const("h", 1, [1 << 40, 1 << 40], float_val=[1.0]))
    with_nodes("splat float [2**31]", const("h", 1, [1 << 31], float_val=[1.0]))
    with_nodes("splat int64 [2**34]", const("h", 9, [1 << 34], int64_val=[7]))
    with_nodes("splat bool [2**33]", const("h", 10, [1 << 33], bool_val=[True]))
    with_nodes("splat string [2**30]", const("h", 7, [1 << 30], string_val=[b"x"]))
    with_nodes("splat string [2**24]", const("h", 7, [1 << 24], string_val=[b"x"]))
    with_nodes("splat float [2**26] (256 MiB, allowed)", const("h", 1, [1 << 26], float_val=[1.0]))
    with_nodes("shape [-5]", const("h", 1, [-5], float_val=[1.0]))
    with_nodes("shape of 1000 ones", const("h", 1, [1] * 1000, float_val=[1.0]))
    with_nodes("content too short", const("h", 1, [4], tensor_content=b"\0" * 7))
    with_nodes("content for 2**40 elements", const("h", 1, [1 << 40], tensor_content=b"\0" * 8))
    with_nodes("too many values", const("h", 1, [2], float_val=[1.0] * 10))
    with_nodes("dtype 99", const("h", 99, [1], tensor_content=b"\0" * 4))
    with_nodes("dtype variant", const("h", 21, [1]))
    with_nodes("dtype resource", const("h", 20, [1]))
    with_nodes("dtype bfloat16", const("h", 14, [2], half_val=[1, 2]))
    with_nodes("dtype attr float, tensor int", const("h", 3, [2], int_val=[1, 2]),
               edit=lambda g: g.node[-1].attr["dtype"].__setattr__("type", 1))
    with_nodes("half_val 2**31", const("h", 19, [1], half_val=[2**31 - 1]))
    with_nodes("complex, odd values", const("h", 8, [2], scomplex_val=[1.0, 2.0, 3.0]))
    with_nodes("string content bytes", const("h", 7, [2], tensor_content=b"ab"))
    # Structure: cycles, missing and absurd inputs, huge names, version lies.
    ident = lambda name, *inputs: protos.NodeDef(name=name, op="Identity", input=list(inputs),  # noqa: E731
                                                 attr={"T": protos.AttrValue(type=1)})
    with_nodes("a cycle", ident("cyc_a", "cyc_b"), ident("cyc_b", "cyc_a"))
    with_nodes("self loop", ident("loop", "loop"))
    with_nodes("input index 2**70", ident("i", "scalar:1180591620717411303424"))
    with_nodes("input index -1", ident("i", "scalar:-1"))
    with_nodes("input missing", ident("i", "nowhere"))
    with_nodes("control input on itself", protos.NodeDef(name="n", op="NoOp", input=["^n"]))
    with_nodes("empty name", ident("", "scalar"))
    with_nodes("duplicate name", ident("scalar", "scalar"))
    with_nodes("1 MiB name", ident("n" * (1 << 20), "scalar"))
    with_nodes("unknown op", protos.NodeDef(name="u", op="NoSuchOp"))
    with_nodes("op without attrs", protos.NodeDef(name="u", op="Conv2D", input=["x", "w"]))
    with_nodes("AddN N=-1", protos.NodeDef(name="u", op="AddN", input=["scalar"],
                                           attr={"N": protos.AttrValue(i=-1),
                                                 "T": protos.AttrValue(type=1)}))
    with_nodes("AddN of 20000 inputs", protos.NodeDef(
        name="u", op="AddN", input=["scalar"] * 20000,
        attr={"N": protos.AttrValue(i=20000), "T": protos.AttrValue(type=1)}))
    chain = [protos.NodeDef(name="k0", op="Const", attr={
        "dtype": protos.AttrValue(type=1),
        "value": protos.AttrValue(tensor=protos.TensorProto(dtype=1, float_val=[1.0]))})]
    depth = 5000 if long else 1000
    for i in range(1, depth):  # Consts chained by control inputs: an order that deep
        node = protos.NodeDef()
        node.CopyFrom(chain[0])
        node.name, node.input[:] = f"k{i}", [f"^k{i - 1}"]
        chain.append(node)
    with_nodes(f"{depth} consts chained by control inputs", *chain)
    with_nodes("Fill of [2**40, 2**40]", const("dims", 3, [2], int_val=[1 << 30, 1 << 30]),
               protos.NodeDef(name="fill", op="Fill", input=["dims", "scalar"],
                              attr={"T": protos.AttrValue(type=1),
                                    "index_type": protos.AttrValue(type=3)}))
    # Found by the fuzzers (kept as regressions): a Conv2D whose dilations list is empty,
    # a Shape without its input, a type attr present but holding no value.
    floats = dict(dtype=protos.AttrValue(type=1))
    with_nodes("Conv2D with dilations []", protos.NodeDef(name="cx", op="Placeholder", attr=floats),
               protos.NodeDef(name="cw", op="Placeholder", attr=floats),
               protos.NodeDef(name="conv", op="Conv2D", input=["cx", "cw"], attr={
                   "T": protos.AttrValue(type=1), "padding": protos.AttrValue(s=b"SAME"),
                   "strides": protos.AttrValue(list=protos.AttrValue.ListValue(i=[1, 1, 1, 1])),
                   "dilations": protos.AttrValue(list=protos.AttrValue.ListValue())}))
    with_nodes("Shape without its input", protos.NodeDef(name="shp", op="Shape",
                                                         attr={"T": protos.AttrValue(type=1)}))
    with_nodes("RandomUniform with an empty dtype attr",
               const("rshape", 3, [2], int_val=[4, 2]),
               protos.NodeDef(name="rnd", op="RandomUniform", input=["rshape"], attr={
                   "T": protos.AttrValue(type=3), "dtype": protos.AttrValue()}))
    with_nodes("Placeholder of shape [2**62]", protos.NodeDef(
        name="p", op="Placeholder", attr={"dtype": protos.AttrValue(type=1),
                                          "shape": protos.AttrValue(shape=protos.TensorShapeProto(
                                              dim=[protos.TensorShapeProto.Dim(size=1 << 62)]))}))

    def versions(producer, min_consumer, bad=()):
        def edit(g):
            g.versions.producer, g.versions.min_consumer = producer, min_consumer
            g.versions.bad_consumers[:] = list(bad)
        return edit
    with_nodes("min_consumer 99999", edit=versions(27, 99999))
    with_nodes("producer -1", edit=versions(-1, 0))
    with_nodes("all consumers bad", edit=versions(27, 0, range(0, 2000)))
    # Deep nesting: AttrValue.func -> NameAttrList.attr -> map entry -> AttrValue ...,
    # three message levels a step (protobuf refuses past 100 levels), built as bytes.
    for depth in (30, 5000):
        attr = protos.AttrValue(s=b"leaf").SerializeToString()
        for _ in range(depth):
            attr = _field(10, _field(1, b"f") + _field(2, _field(1, b"a") + _field(2, attr)))
        node = _field(1, b"deep") + _field(2, b"NoOp") + _field(5, _field(1, b"_deep") +
                                                            _field(2, attr))
        out.append(Hostile(f"attr nested {depth} deep", seed + _field(1, node)))
    lists = protos.AttrValue()
    lists.list.tensor.extend([protos.TensorProto(dtype=1, float_val=[1.0],
                                                 tensor_shape=protos.TensorShapeProto(
                                                     dim=[protos.TensorShapeProto.Dim(size=1 << 40)]))])
    with_nodes("attr list of a splat tensor", protos.NodeDef(name="l", op="NoOp",
                                                             attr={"_l": lists}))
    many = 20000 if long else 2000
    out.append(Hostile(f"{many} NoOps", protos.GraphDef(node=[
        protos.NodeDef(name=f"n{i}", op="NoOp") for i in range(many)]).SerializeToString()))
    out.append(Hostile("empty", b""))
    return out


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (appending one to a message's bytes adds it)."""
    from scopeflow.io.sstable import encode_varint

    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload


class MetaGraphTarget(Target):
    name = "meta_graph"
    kernel_oom_is_tf_oom = True   # as GraphDefTarget
    owner = "scopeflow/train/meta_graph_import.py, framework/graph_import.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _accepts(meta=True)

    def prepare(self):
        import scopeflow as tf

        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            w = tf.get_variable("w", [4, 2])
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w)), name="loss")
            step = tf.train.get_or_create_global_step()
            train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
            tf.add_to_collection("train_op", train)
            tf.summary.scalar("loss", loss)
            tf.constant(np.arange(6, dtype=np.float32), name="table")
            saver = tf.train.Saver()
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                saver.save(sess, str(self.workdir / "model"))
        ours = (self.workdir / "model.meta").read_bytes()
        theirs = (FIXTURES / "tf_meta_graph" / "model.ckpt.meta").read_bytes()
        self.seeds = [Seed("scopeflow saver", ours), Seed("tf cnn", theirs)]
        self.path = self.workdir / "fuzzed.meta"

    def probes(self):
        import scopeflow as tf

        state = {}

        def import_(seed, path):
            state.clear()
            graph = tf.Graph()
            with graph.as_default():
                tf.train.import_meta_graph(str(path))
            state["graph"] = graph
        return [("import_meta_graph", import_), ("run consts", lambda s, p: _run_consts(state))]

    def hostile(self, long):
        from scopeflow.io import protos

        base = protos.MetaGraphDef.FromString(self.seeds[0].data)
        out = []

        def meta(label, edit):
            m = protos.MetaGraphDef()
            m.CopyFrom(base)
            edit(m)
            out.append(Hostile(label, m.SerializeToString()))

        def collection(key, kind, values):
            def edit(m):
                getattr(m.collection_def[key], kind).value[:] = values
            return edit
        meta("trainable_variables: junk VariableDef",
             collection("trainable_variables", "bytes_list", [b"\xff\xff\xff"]))
        meta("trainable_variables: VariableDef of a missing op", collection(
            "trainable_variables", "bytes_list",
            [protos.VariableDef(variable_name="missing:0", initializer_name="missing/Assign",
                                snapshot_name="missing/read:0").SerializeToString()]))
        meta("trainable_variables: VariableDef naming a Const", collection(
            "trainable_variables", "bytes_list",
            [protos.VariableDef(variable_name="table:0", initializer_name="table",
                                snapshot_name="table:0").SerializeToString()]))
        meta("node_list naming a missing node", collection("train_op", "node_list", ["nope"]))
        meta("node_list naming 'x:99'", collection("train_op", "node_list", ["x:99"]))
        meta("node_list naming ''", collection("train_op", "node_list", [""]))
        meta("node_list naming 'a:b:c'", collection("train_op", "node_list", ["a:b:c"]))
        meta("summaries naming a variable", collection("summaries", "node_list", ["w"]))
        meta("saver_def naming missing ops", lambda m: (
            m.saver_def.__setattr__("restore_op_name", "nope"),
            m.saver_def.__setattr__("filename_tensor_name", "nope:0")))
        meta("saver_def max_to_keep -1", lambda m: m.saver_def.__setattr__("max_to_keep", -1))
        meta("saver_def version 99", lambda m: m.saver_def.__setattr__("version", 99))
        meta("collection of 100000 ints", collection("ints", "int64_list", list(range(100000))))
        for h in graph_hostile(base.graph_def.SerializeToString(), False)[:24]:
            graph_def = protos.GraphDef.FromString(h.data)
            meta(f"graph: {h.label}", lambda m, g=graph_def: m.graph_def.CopyFrom(g))
        from google.protobuf import text_format

        out.append(Hostile("text format", text_format.MessageToString(base).encode()))
        out.append(Hostile("text format, cut", text_format.MessageToString(base).encode()[:500]))
        out.append(Hostile("not UTF-8, not a proto", b"\xff\xfe\xfd" * 100))
        out.append(Hostile("text nested 100000 deep", b"graph_def {" * 100000))
        out.append(Hostile("empty", b""))
        return out


TARGETS = {t.name: t for t in (GraphDefTarget, MetaGraphTarget)}
