"""tf.profiler: options, flops rules, and the scope/op reports against TF 2.21's tfprof.

The live cases build the same graphs under TensorFlow and scopeflow, run ``profile`` with
many option sets, and compare the printed report (stdout), the stderr line about incomplete
shapes, and the returned proto's text, exactly.
"""

import contextlib
import io
import os

import pytest

import scopeflow as tf
from scopeflow.profiler import _tfprof_nodes, flops_registry, tfprof_logger

P = tf.profiler.ProfileOptionBuilder

# Shared by both sides: ``tf`` is TensorFlow (compat.v1) or scopeflow.
GRAPHS = '''
def mlp():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    with tf.variable_scope("layer1"):
        w = tf.get_variable("w", [4, 3])
        b = tf.get_variable("b", [3])
        h = tf.nn.relu(tf.matmul(x, w) + b)
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable("w", [3, 2])
        b2 = tf.get_variable("b", [2], trainable=False)
        tf.nn.bias_add(tf.matmul(h, w2), b2)
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    d = tf.matmul(c, c, name="mm2")
    tf.reduce_sum(d * d)

def cnn():
    x = tf.placeholder(tf.float32, [2, 8, 8, 3], name="images")
    with tf.variable_scope("conv1"):
        k = tf.get_variable("kernel", [3, 3, 3, 4])
        bias = tf.get_variable("bias", [4], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), bias))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with tf.variable_scope("conv2"):
        k2 = tf.get_variable("kernel", [3, 3, 4, 5])
        h2 = tf.nn.conv2d(h, k2, [1, 2, 2, 1], "SAME")
        h2 = tf.nn.avg_pool(h2, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        dw = tf.get_variable("dw", [2, 2, 5, 1])
        h2 = tf.nn.depthwise_conv2d_native(h2, dw, [1, 1, 1, 1], "SAME")
    with tf.variable_scope("fc"):
        flat = tf.reshape(h2, [2, 5])
        w = tf.get_variable("w", [5, 10])
        logits = tf.matmul(flat, w)
    probs = tf.nn.softmax(logits)
    loss = tf.reduce_mean(tf.squared_difference(probs, 0.1)) + tf.nn.l2_loss(w)
    tf.add_n([logits, logits, logits], name="sum3")
    tf.math.rsqrt(tf.abs(logits) + 1.0)
    tf.math.reciprocal(probs)
    tf.argmax(logits, 1)
    tf.maximum(probs, tf.square(probs))
    tf.matmul(tf.ones([3, 2, 4]), tf.ones([3, 4, 5]))
    tf.reduce_mean(tf.log(probs + 1.0), name="mean_log")
    tf.pow(probs, 2.0) - tf.negative(probs)
    global_step = tf.Variable(0, trainable=False, name="global_step")
    tf.assign_add(global_step, 1)
    return loss

def run_profile(graph, cmd, opts):
    """(stdout, stderr, proto text) of one profile() call, captured at the fd level."""
    import os, sys, tempfile
    sys.stdout.flush(); sys.stderr.flush()
    files, saved = [], []
    for fd in (1, 2):
        f = tempfile.TemporaryFile(mode="w+")
        saved.append(os.dup(fd)); os.dup2(f.fileno(), fd); files.append(f)
    try:
        result = tf.profiler.profile(graph, cmd=cmd, options=opts)
    finally:
        sys.stdout.flush(); sys.stderr.flush()
        for fd, old in zip((1, 2), saved):
            os.dup2(old, fd); os.close(old)
    texts = []
    for f in files:
        f.seek(0); texts.append(f.read()); f.close()
    return [texts[0], texts[1], str(result)]
'''


def _cases(P):
    """(graph, cmd, options) cases; ``P`` is either side's ProfileOptionBuilder."""
    tv, fl = P.trainable_variables_parameter(), P.float_operation()
    everything = ["params", "float_ops", "occurrence", "input_shapes", "op_types", "device"]
    return [
        ("mlp", "scope", tv), ("mlp", "scope", fl), ("mlp", "op", tv), ("mlp", "op", fl),
        ("mlp", "scope", P(tv).with_accounted_types([".*"]).select(everything).build()),
        ("mlp", "scope", P().build()),
        ("mlp", "scope", P(tv).with_node_names(start_name_regexes=["layer2.*"]).build()),
        ("mlp", "scope", P(fl).with_node_names(hide_name_regexes=[".*sub"],
                                               trim_name_regexes=["mm2"]).build()),
        ("mlp", "scope", P(tv).with_accounted_types([".*"]).with_max_depth(1).build()),
        ("mlp", "scope", P(fl).account_displayed_op_only(False).with_min_float_operations(0)
         .with_node_names(show_name_regexes=["layer1.*"]).build()),
        ("mlp", "scope", P.time_and_memory()),
        ("mlp", "op", P(tv).with_accounted_types([".*"]).select(everything).build()),
        ("cnn", "scope", tv), ("cnn", "scope", fl), ("cnn", "op", fl),
        ("cnn", "scope", P(fl).order_by("name").with_min_parameters(0).build()),
        ("cnn", "scope", P(tv).order_by("params").select(["params", "float_ops"]).build()),
        ("cnn", "op", P(fl).with_min_occurrence(2).select(["float_ops", "occurrence"]).build()),
        ("cnn", "op", P(fl).with_node_names(start_name_regexes=["Mul"]).with_max_depth(2)
         .account_displayed_op_only(False).build()),
        ("cnn", "op", P(tv).select(["params", "micros", "bytes"]).build()),
        ("cnn", "scope", P(tv).with_file_output("OUTFILE").build()),
        ("cnn", "op", P(fl).with_empty_output().build()),
        ("mlp", "scope", dict(tv, output="file")),
        ("mlp", "scope", dict(tv, output="stdout:outfile=x")),
        ("mlp", "op", P(fl).with_pprof_output("unused.pb.gz").build()),
        ("mlp", "graph", tv), ("mlp", "graph", fl), ("cnn", "graph", fl),
        ("cnn", "graph", P(tv).with_accounted_types([".*"]).select(everything).build()),
        ("cnn", "graph", P(fl).with_node_names(start_name_regexes=["fc/.*"]).with_max_depth(4)
         .account_displayed_op_only(False).build()),
    ]


def _run_scopeflow_cases():
    namespace = {"tf": tf}
    exec(GRAPHS, namespace)
    results = []
    for graph_name, cmd, opts in _cases(P):
        graph = tf.Graph()
        with graph.as_default():
            namespace[graph_name]()
        out = io.StringIO()
        err = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            proto = tf.profiler.profile(graph, cmd=cmd, options=opts)
        results.append([out.getvalue(), err.getvalue(), str(proto)])
    return results


def _outfile_cases(cases, path):
    for _, _, opts in cases:
        if opts.get("output") == "file:outfile=OUTFILE":
            opts["output"] = "file:outfile=" + path


def test_profile_reports_match_tensorflow(tf1, tmp_path, monkeypatch):
    ours_file, theirs_file = str(tmp_path / "ours.txt"), str(tmp_path / "theirs.txt")
    monkeypatch.setattr(tf.profiler.ProfileOptionBuilder, "with_file_output",
                        lambda self, outfile: (self._options.__setitem__(
                            "output", "file:outfile=" + ours_file), self)[1])
    ours = _run_scopeflow_cases()
    cases_src = _cases_source()
    theirs = tf1(GRAPHS + cases_src + f'''
tf.disable_v2_behavior()
P = tf.profiler.ProfileOptionBuilder
results = []
for graph_name, cmd, opts in _cases(P):
    if opts.get("output") == "file:outfile=OUTFILE":
        opts["output"] = "file:outfile={theirs_file}"
    graph = tf.Graph()
    with graph.as_default():
        globals()[graph_name]()
    results.append(run_profile(graph, cmd, opts))
print(json.dumps(results))
''')
    assert len(ours) == len(theirs)
    for i, (mine, ref) in enumerate(zip(ours, theirs)):
        assert mine[0] == ref[0], f"case {i}: stdout"
        assert mine[1].strip() == ref[1].strip(), f"case {i}: stderr"
        assert mine[2] == ref[2], f"case {i}: proto"
    with open(ours_file) as a, open(theirs_file) as b:
        assert a.read() == b.read()


def _cases_source():
    import inspect
    return "\n" + inspect.getsource(_cases) + "\n"


def test_option_builder_dicts_match_tensorflow(tf1):
    def built(P):
        b = P(P.float_operation())
        chained = (P().with_max_depth(3).with_min_memory(1, 2, 3, 4)
                   .with_min_execution_time(5, 6, 7).with_min_parameters(8)
                   .with_min_occurrence(9).with_min_float_operations(10)
                   .with_accounted_types(["a"]).with_node_names(["s"], ["sh"], ["h"], ["t"])
                   .account_displayed_op_only(True).order_by("params").select(["bytes"])
                   .with_step(2).with_timeline_output("t.json").build())
        return [P().build(), P.trainable_variables_parameter(), P.float_operation(),
                P.time_and_memory(), P.time_and_memory(3, 4, 5, 6, 7, 8, 9),
                b.with_file_output("f").build(), b.with_pprof_output("p").build(),
                b.with_stdout_output().build(), b.with_empty_output().build(), chained]
    import inspect
    theirs = tf1(inspect.getsource(built).replace("    def built", "def built") + """
print(json.dumps(built(tf.profiler.ProfileOptionBuilder)))
""")
    ours = built(P)
    assert ours == theirs
    assert [list(d) for d in ours] == [list(d) for d in theirs]  # key order too


def test_op_log_flops_match_tensorflow(tf1, tmp_path):
    """Every op's registered flops (write_op_log's entries) equals TF's."""
    namespace = {"tf": tf}
    exec(GRAPHS, namespace)
    ours = {}
    for name in ("mlp", "cnn"):
        graph = tf.Graph()
        with graph.as_default():
            namespace[name]()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            tf.profiler.write_op_log(graph, str(tmp_path), add_trace=False)
        log = tf.profiler.OpLogProto()
        with open(os.path.join(tmp_path, "tfprof_log"), "rb") as f:
            log.ParseFromString(f.read())
        ours[name] = {e.name: [e.float_ops, list(e.types)] for e in log.log_entries}
    theirs = tf1(GRAPHS + """
tf.disable_v2_behavior()
from tensorflow.python.profiler import tfprof_logger
out = {}
for name in ("mlp", "cnn"):
    graph = tf.Graph()
    with graph.as_default():
        globals()[name]()
    log = tfprof_logger.merge_default_with_oplog(graph, add_trace=False)
    out[name] = {e.name: [e.float_ops, list(e.types)] for e in log.log_entries}
print(json.dumps(out))
""")
    assert ours == theirs
    assert ours["cnn"]["conv1/Conv2D"][0] == 2 * 8 * 8 * 4 * 3 * 3 * 3 * 2


def test_advise_matches_tensorflow(tf1):
    def build():
        x = tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")
        with tf.variable_scope("BatchNorm"):
            _ = x - tf.reduce_mean(x, axis=[0, 1, 2])
    theirs = tf1("""
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")
with tf.variable_scope("BatchNorm"):
    _ = x - tf.reduce_mean(x, axis=[0, 1, 2])
a = tf.profiler.advise(tf.get_default_graph())
b = tf.profiler.advise(tf.get_default_graph(), options={"OperationChecker": {}})
print(json.dumps([{k: list(v.reports) for k, v in p.checkers.items()} for p in (a, b)]))
""")
    graph = tf.Graph()
    with graph.as_default():
        build()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        a = tf.profiler.advise(graph)
        b = tf.profiler.advise(graph, options={"OperationChecker": {}})
    assert [{k: list(v.reports) for k, v in p.checkers.items()} for p in (a, b)] == theirs
    assert "\nOperationChecker:\nMaybe use faster FusedBatchNorm instead of BatchNorm\n" in \
        out.getvalue()
    assert "Missing RunMetadata info. Skip ExpensiveOperationChecker" in err.getvalue()


def test_format_helpers_without_tensorflow():
    assert [_tfprof_nodes.format_number(n) for n in (999, 1000, 1234567, 2 * 10**9)] == \
        ["999", "1.00k", "1.23m", "2.00b"]
    assert _tfprof_nodes.format_time(1500) == "1.50ms"
    assert _tfprof_nodes.format_memory(999) == "999B"
    with pytest.raises(ValueError, match="Unknown output type: bad"):
        _tfprof_nodes.parse_output("bad")
    with pytest.raises(ValueError, match="Missing required output_options for file"):
        _tfprof_nodes.parse_output("file")
    assert _tfprof_nodes.parse_output("file:outfile=a=b") == ("file", {"outfile": "a=b"})


def test_params_and_flops_without_tensorflow():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [5, 4])
        with tf.variable_scope("dense"):
            w = tf.get_variable("w", [4, 3])
            tf.get_variable("frozen", [7], trainable=False)
        y = tf.matmul(x, w, name="mm")
        tf.matmul(tf.placeholder(tf.float32, [None, 4]), w, name="unknown")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        log = tfprof_logger.merge_default_with_oplog(graph, add_trace=False)
    entries = {e.name: e for e in log.log_entries}
    assert entries["mm"].float_ops == 2 * 4 * 5 * 3
    assert list(entries["dense/w"].types) == ["_trainable_variables"]
    assert "dense/frozen" not in entries
    assert err.getvalue() == "1 ops no flops stats due to incomplete shapes.\n"
    with pytest.raises(ValueError):
        flops_registry.node_flops(graph, graph.as_graph_def().node[-1])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        root = tf.profiler.profile(graph)
    assert root.total_parameters == 12
    assert [c.name for c in root.children] == ["dense"]
    assert root.children[0].children[0].name == "dense/w"
    assert "    dense/w (4x3, 12/12 params)\n" in out.getvalue()
    assert y.shape.as_list() == [5, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown cmd: nope"):
        tf.profiler.profile(graph, cmd="nope")
    with pytest.raises(NotImplementedError, match="cmd='code'"):
        tf.profiler.profile(graph, cmd="code")


def test_profiler_class_matches_tensorflow(tf1):
    """Profiler's three views and its advise, on one graph, print and return TF's."""
    def calls(tf, P, graph):
        profiler = tf.profiler.Profiler(graph)
        return [(lambda: profiler.profile_name_scope(P.trainable_variables_parameter())),
                (lambda: profiler.profile_operations(P.float_operation())),
                (lambda: profiler.profile_graph(
                    P(P.float_operation()).with_min_float_operations(5).build())),
                (lambda: profiler.advise({"OperationChecker": {}}))]
    import inspect
    theirs = tf1(GRAPHS + inspect.getsource(calls).replace("    def calls", "def calls") + """
tf.disable_v2_behavior()
import os, sys, tempfile
graph = tf.Graph()
with graph.as_default():
    cnn()
out = []
for call in calls(tf, tf.profiler.ProfileOptionBuilder, graph):
    sys.stdout.flush()
    f = tempfile.TemporaryFile(mode="w+"); saved = os.dup(1); os.dup2(f.fileno(), 1)
    result = call()
    sys.stdout.flush(); os.dup2(saved, 1); os.close(saved); f.seek(0)
    out.append([f.read(), str(result)])
print(json.dumps(out))
""")
    namespace = {"tf": tf}
    exec(GRAPHS, namespace)
    graph = tf.Graph()
    with graph.as_default():
        namespace["cnn"]()
    ours = []
    with contextlib.redirect_stderr(io.StringIO()):
        for call in calls(tf, P, graph):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                result = call()
            ours.append([out.getvalue(), str(result)])
    assert ours == theirs


def test_profiler_add_step_keeps_constructor_op_log():
    """A step's op log adds to the constructor's (TF's AddOpLogProto), not replaces it."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.get_variable("w", [4, 3])
        y = tf.matmul(x, w, name="mm")
        init = tf.global_variables_initializer()
    log = tf.profiler.OpLogProto()
    entry = log.log_entries.add()
    entry.name, entry.float_ops = "mm", 5
    entry.types.append("mine")
    with contextlib.redirect_stderr(io.StringIO()):
        profiler = tf.profiler.Profiler(graph, op_log=log)
    run_meta = tf.RunMetadata()
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        sess.run(y, {x: [[1, 2, 3, 4]]}, run_metadata=run_meta,
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    profiler.add_step(0, run_meta)
    opts = P(P.float_operation()).with_accounted_types(["mine"]).with_empty_output().build()
    root = profiler.profile_name_scope(opts)
    assert [(c.name, c.float_ops) for c in root.children] == [("mm", 5)]


GRAD_GRAPH = '''
def grads():
    x = tf.constant(np.arange(2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3) / 50)
    k = tf.constant(np.ones((3, 3, 3, 4), np.float32) / 9)
    b = tf.constant(np.ones(4, np.float32))
    h = tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 2, 2, 1], "SAME"), b)
    p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    q = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    r = tf.math.rsqrt(tf.reduce_sum(p * p) + tf.reduce_sum(q) + 1.0)
    d = tf.nn.dilation2d(x, tf.ones([2, 2, 3]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    c3 = tf.nn.conv3d(tf.ones([1, 4, 4, 4, 2]), tf.ones([2, 2, 2, 2, 3]), [1] * 5, "VALID")
    extra = [tf.argmin(x, 3), tf.less(x, 1.0), tf.less_equal(x, 1.0), tf.greater(x, 1.0),
             tf.greater_equal(x, 1.0), tf.equal(x, 1.0), tf.not_equal(x, 1.0),
             tf.minimum(x, 1.0), tf.realdiv(x, 2.0), tf.add(x, x), tf.reduce_sum(d),
             tf.reduce_sum(c3)]
    v = tf.Variable(tf.zeros([3]), name="v")
    extra.append(tf.assign_sub(v, tf.ones([3])))
    return tf.gradients(r, [x, k, b]), extra

def flops_by_name(graph):
    from collections import Counter
    log = LOG(graph)
    flops = {e.name: e.float_ops for e in log.log_entries}
    out = Counter()
    for op in graph.get_operations():
        out[op.type + ":" + str(flops.get(op.name, 0))] += 1
    return dict(out)
'''


def test_gradient_op_flops_match_tensorflow(tf1):
    """The gradient ops' rules (conv/pool backprops, BiasAddGrad) and the rest.

    (scopeflow's rsqrt gradient builds no RsqrtGrad op, so that rule is not reached here.)

    Compared as counts of (op type, flops) pairs, so the comparison does not depend on the
    names the two gradient builders give their ops.
    """
    theirs = tf1(GRAD_GRAPH + """
tf.disable_v2_behavior()
from tensorflow.python.profiler import tfprof_logger
LOG = lambda g: tfprof_logger.merge_default_with_oplog(g, add_trace=False)
graph = tf.Graph()
with graph.as_default():
    grads()
print(json.dumps(flops_by_name(graph)))
""")
    import numpy as np
    namespace = {"tf": tf, "np": np,
                 "LOG": lambda g: tfprof_logger.merge_default_with_oplog(g, add_trace=False)}
    exec(GRAD_GRAPH, namespace)
    graph = tf.Graph()
    with graph.as_default():
        namespace["grads"]()
    with contextlib.redirect_stderr(io.StringIO()):
        ours = namespace["flops_by_name"](graph)
    wanted = ("Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad",
              "BiasAddGrad", "Dilation2D", "Conv3D", "ArgMin", "AssignSub")
    for op_type in wanted:
        mine = {k: v for k, v in ours.items() if k.startswith(op_type + ":")}
        ref = {k: v for k, v in theirs.items() if k.startswith(op_type + ":")}
        assert mine == ref and ref, op_type
    for op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                    "Minimum", "RealDiv", "Rsqrt", "MaxPool", "AvgPool", "Conv2D", "BiasAdd"):
        # Forward ops only: the two gradient builders differ in their Mul/Sum/AddV2 helpers.
        assert {k for k in ours if k.startswith(op_type + ":")} == \
            {k for k in theirs if k.startswith(op_type + ":")}, op_type


def test_dump_to_file_option(tmp_path):
    """TF's deprecated 'dump_to_file' key: a stderr notice, then the report goes to the file."""
    graph = tf.Graph()
    with graph.as_default():
        tf.get_variable("w", [4, 3])
    path = str(tmp_path / "dump.txt")
    opts = dict(P.trainable_variables_parameter(), dump_to_file=path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        root = tf.profiler.profile(graph, options=opts)
    assert out.getvalue() == ""
    assert err.getvalue().endswith(
        f"-output stdout is overwritten with -output file:outfile={path}\n")
    with open(path) as f:
        assert f.read().endswith("_TFProfRoot (--/12 params)\n  w (4x3, 12/12 params)\n")
    assert root.total_parameters == 12


def test_timeline_output_as_tensorflow(tmp_path):
    """TF 2.21 without run metadata: the scope view writes the root's event to
    '<outfile>_<step>' (text recorded from TF); graph view returns nothing; op view refuses."""
    graph = tf.Graph()
    with graph.as_default():
        tf.get_variable("w", [4, 3])
    base = str(tmp_path / "tl")
    opts = P(P.trainable_variables_parameter()).with_timeline_output(base).build()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        scope = tf.profiler.profile(graph, cmd="scope", options=opts)
        graph_root = tf.profiler.profile(graph, cmd="graph", options=opts)
        op_root = tf.profiler.profile(graph, cmd="op", options=opts)
    with open(base + "_-1") as f:
        assert f.read() == (
            '{"traceEvents":[{"args":{"name":"Scope:0"},"name":"process_name","ph":"M",'
            '"pid":0},{"args":{"name":"_TFProfRoot","op":"_TFProfRoot"},"cat":"Op","dur":0,'
            '"name":"_TFProfRoot","ph":"X","pid":0,"tid":0,"ts":0}]}\n')
    assert f"Timeline file is written to {base}_-1.\n" in out.getvalue()
    assert scope.total_parameters == 12
    assert str(graph_root) == ""
    assert str(op_root) == 'name: "_TFProfRoot"\n'
    assert "op view doesn't support timeline yet." in err.getvalue()
