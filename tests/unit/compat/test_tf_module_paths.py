"""TensorFlow's internal module paths (tensorflow.python.*, tensorflow.core.*, tf.contrib's
deeper paths) import as scopeflow.<path> and hold scopeflow's own objects
(scopeflow/python/module_paths.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

import scopeflow as tf
from scopeflow.python import MODULE_PATHS, TFModule, module_name

REQUIRED = [
    "tensorflow.python.framework." + m for m in (
        "ops", "dtypes", "tensor_shape", "constant_op", "graph_util", "graph_io",
        "random_seed", "errors", "sparse_tensor")
] + [
    "tensorflow.python.ops." + m for m in (
        "array_ops", "math_ops", "nn_ops", "nn", "init_ops", "variable_scope", "variables",
        "control_flow_ops", "rnn", "rnn_cell_impl", "rnn_cell", "state_ops", "random_ops",
        "gen_array_ops", "gen_math_ops", "gen_nn_ops")
] + [
    "tensorflow.python.training." + m for m in (
        "saver", "optimizer", "adam", "gradient_descent", "training_util", "moving_averages",
        "learning_rate_decay", "session_run_hook", "monitored_session", "queue_runner",
        "coordinator", "checkpoint_utils")
] + [
    "tensorflow.python.platform." + m for m in ("gfile", "tf_logging", "app", "flags", "test")
] + [
    "tensorflow.python.client.device_lib", "tensorflow.python.client.session",
    "tensorflow.python.client.timeline", "tensorflow.python.util.nest",
    "tensorflow.python.tools.inspect_checkpoint", "tensorflow.python.tools.freeze_graph",
    "tensorflow.core.framework.graph_pb2", "tensorflow.core.framework.summary_pb2",
    "tensorflow.core.protobuf.config_pb2", "tensorflow.core.util.event_pb2",
    "tensorflow.core.framework.tensor_pb2", "tensorflow.core.framework.node_def_pb2",
    "tensorflow.core.framework.attr_value_pb2", "tensorflow.core.protobuf.saver_pb2",
    "tensorflow.core.protobuf.meta_graph_pb2", "tensorflow.contrib.slim",
    "tensorflow.contrib.framework", "tensorflow.contrib.learn.datasets.mnist",
    "tensorflow.contrib.learn.python.learn.datasets.mnist",
    "tensorflow.python.util.deprecation",
]


def _imp(tf_path):
    return importlib.import_module(module_name(tf_path))


@pytest.mark.parametrize("path", REQUIRED)
def test_required_paths_are_mapped_and_import(path):
    assert path in MODULE_PATHS
    module = _imp(path)
    assert module.__name__ == module_name(path)
    assert isinstance(module, TFModule)


@pytest.mark.parametrize("path", list(MODULE_PATHS))
def test_every_path_imports_with_its_listed_names(path):
    module = _imp(path)
    for source in MODULE_PATHS[path]:
        source_module, _, names = source.partition(":")
        origin = importlib.import_module(source_module.strip())
        for name in names.split():
            assert getattr(module, name) is getattr(origin, name), (path, name)
    assert sorted(module.__all__) == module.__all__


@pytest.mark.parametrize("tf_path,name,obj", [
    ("tensorflow.python.framework.ops", "Graph", tf.Graph),
    ("tensorflow.python.framework.ops", "Tensor", tf.Tensor),
    ("tensorflow.python.framework.ops", "get_default_graph", tf.get_default_graph),
    ("tensorflow.python.framework.ops", "convert_to_tensor", tf.convert_to_tensor),
    ("tensorflow.python.framework.ops", "RegisterGradient", tf.RegisterGradient),
    ("tensorflow.python.framework.ops", "GraphKeys", tf.GraphKeys),
    ("tensorflow.python.framework.ops", "reset_default_graph", tf.reset_default_graph),
    ("tensorflow.python.framework.dtypes", "float32", tf.float32),
    ("tensorflow.python.framework.tensor_shape", "TensorShape", tf.TensorShape),
    ("tensorflow.python.framework.constant_op", "constant", tf.constant),
    ("tensorflow.python.framework.random_seed", "set_random_seed", tf.set_random_seed),
    ("tensorflow.python.framework.errors", "NotFoundError", tf.errors.NotFoundError),
    ("tensorflow.python.framework.sparse_tensor", "SparseTensor", tf.SparseTensor),
    ("tensorflow.python.framework.graph_io", "write_graph", tf.train.write_graph),
    ("tensorflow.python.ops.array_ops", "reshape", tf.reshape),
    ("tensorflow.python.ops.array_ops", "placeholder", tf.placeholder),
    ("tensorflow.python.ops.math_ops", "reduce_sum", tf.reduce_sum),
    ("tensorflow.python.ops.nn_ops", "relu", tf.nn.relu),
    ("tensorflow.python.ops.nn_ops", "conv2d", tf.nn.conv2d),
    ("tensorflow.python.ops.nn", "softmax_cross_entropy_with_logits",
     tf.nn.softmax_cross_entropy_with_logits),
    ("tensorflow.python.ops.init_ops", "glorot_uniform_initializer",
     tf.glorot_uniform_initializer),
    ("tensorflow.python.ops.variable_scope", "variable_scope", tf.variable_scope),
    ("tensorflow.python.ops.variable_scope", "get_variable", tf.get_variable),
    ("tensorflow.python.ops.variables", "Variable", tf.Variable),
    ("tensorflow.python.ops.control_flow_ops", "cond", tf.cond),
    ("tensorflow.python.ops.control_flow_ops", "while_loop", tf.while_loop),
    ("tensorflow.python.ops.control_flow_ops", "group", tf.group),
    ("tensorflow.python.ops.rnn", "dynamic_rnn", tf.nn.dynamic_rnn),
    ("tensorflow.python.ops.rnn_cell_impl", "LSTMStateTuple", tf.nn.rnn_cell.LSTMStateTuple),
    ("tensorflow.python.ops.rnn_cell", "BasicLSTMCell", tf.nn.rnn_cell.BasicLSTMCell),
    ("tensorflow.python.ops.state_ops", "assign", tf.assign),
    ("tensorflow.python.ops.random_ops", "random_normal", tf.random_normal),
    ("tensorflow.python.ops.gen_math_ops", "matmul", tf.matmul),
    ("tensorflow.python.training.saver", "Saver", tf.train.Saver),
    ("tensorflow.python.training.saver", "latest_checkpoint", tf.train.latest_checkpoint),
    ("tensorflow.python.training.optimizer", "Optimizer", tf.train.Optimizer),
    ("tensorflow.python.training.adam", "AdamOptimizer", tf.train.AdamOptimizer),
    ("tensorflow.python.training.gradient_descent", "GradientDescentOptimizer",
     tf.train.GradientDescentOptimizer),
    ("tensorflow.python.training.training_util", "get_or_create_global_step",
     tf.train.get_or_create_global_step),
    ("tensorflow.python.training.learning_rate_decay", "exponential_decay",
     tf.train.exponential_decay),
    ("tensorflow.python.training.session_run_hook", "SessionRunHook", tf.train.SessionRunHook),
    ("tensorflow.python.training.monitored_session", "MonitoredTrainingSession",
     tf.train.MonitoredTrainingSession),
    ("tensorflow.python.training.queue_runner", "start_queue_runners",
     tf.train.start_queue_runners),
    ("tensorflow.python.training.coordinator", "Coordinator", tf.train.Coordinator),
    ("tensorflow.python.training.checkpoint_utils", "list_variables", tf.train.list_variables),
    ("tensorflow.python.platform.gfile", "GFile", tf.gfile.GFile),
    ("tensorflow.python.platform.tf_logging", "info", tf.logging.info),
    ("tensorflow.python.platform.app", "run", tf.app.run),
    ("tensorflow.python.platform.flags", "FLAGS", tf.flags.FLAGS),
    ("tensorflow.python.client.session", "Session", tf.Session),
    ("tensorflow.core.framework.graph_pb2", "GraphDef", tf.GraphDef),
    ("tensorflow.core.framework.summary_pb2", "Summary", tf.Summary),
    ("tensorflow.core.protobuf.config_pb2", "ConfigProto", tf.ConfigProto),
    ("tensorflow.core.util.event_pb2", "Event", tf.summary.Event),
    ("tensorflow.contrib.slim", "fully_connected", tf.contrib.layers.fully_connected),
    ("tensorflow.contrib.slim", "conv2d", tf.contrib.layers.conv2d),
    ("tensorflow.contrib.framework", "get_or_create_global_step",
     tf.train.get_or_create_global_step),
    ("tensorflow.contrib.slim", "get_or_create_global_step", tf.train.get_or_create_global_step),
    ("tensorflow.contrib.layers.python.layers", "batch_norm", tf.contrib.layers.batch_norm),
    ("tensorflow.contrib.layers.python.layers.layers", "fully_connected",
     tf.contrib.layers.fully_connected),
    ("tensorflow.contrib.rnn.python.ops.rnn_cell", "LSTMCell", tf.nn.rnn_cell.LSTMCell),
    ("tensorflow.python.pywrap_tensorflow", "NewCheckpointReader",
     tf.train.NewCheckpointReader),
    ("tensorflow.python.ops.metrics_impl", "accuracy", tf.metrics.accuracy),
])
def test_names_are_scopeflows_objects(tf_path, name, obj):
    assert getattr(_imp(tf_path), name) is obj


def test_other_modules_are_scopeflows_own():
    from scopeflow.client import timeline
    from scopeflow.datasets import mnist
    from scopeflow.framework import nest
    from scopeflow.tools import inspect_checkpoint

    assert _imp("tensorflow.python.client.timeline").Timeline is timeline.Timeline
    assert _imp("tensorflow.python.util.nest").flatten is nest.flatten
    assert (_imp("tensorflow.python.tools.inspect_checkpoint").print_tensors_in_checkpoint_file
            is inspect_checkpoint.print_tensors_in_checkpoint_file)
    for path in ("tensorflow.contrib.learn.datasets.mnist",
                 "tensorflow.contrib.learn.python.learn.datasets.mnist"):
        assert _imp(path).read_data_sets is mnist.read_data_sets
    assert tf.contrib.learn.datasets.mnist.read_data_sets is mnist.read_data_sets
    from scopeflow.contrib.rnn import LSTMCell, LSTMStateTuple

    assert LSTMCell is tf.nn.rnn_cell.LSTMCell and LSTMStateTuple is tf.nn.rnn_cell.LSTMStateTuple


def test_from_import_and_attribute_chains():
    import scopeflow.core
    import scopeflow.python
    from scopeflow.python.framework import ops
    from scopeflow.python.ops import gen_nn_ops

    assert scopeflow.python.framework.ops is ops
    assert gen_nn_ops.relu is tf.nn.relu
    assert scopeflow.python.training.saver.Saver is tf.train.Saver
    assert scopeflow.core.protobuf.config_pb2.ConfigProto is tf.ConfigProto
    assert tf.contrib.slim is importlib.import_module("scopeflow.contrib.slim")
    namespace = {}
    exec("from scopeflow.python.ops.variable_scope import *", namespace)
    assert namespace["variable_scope"] is tf.variable_scope


@pytest.mark.parametrize("tf_path,name,why", [
    ("tensorflow.python.framework.ops", "no_such_name", "holds the names of"),
    ("tensorflow.python.util.deprecation", "deprecated", "holds none of TF's names yet"),
    ("tensorflow.contrib.slim", "repeat", "scopeflow.contrib.layers"),
    ("tensorflow.python.ops", "no_such_name", "holds none"),
])
def test_a_lacking_name_raises_not_implemented_naming_the_tf_path(tf_path, name, why):
    module = _imp(tf_path)
    with pytest.raises(NotImplementedError) as info:
        getattr(module, name)
    text = str(info.value)
    assert text.startswith(f"{tf_path}.{name} is not implemented by scopeflow (")
    assert why in text and text.endswith("see docs/API.md)")
    assert isinstance(info.value, AttributeError)  # hasattr() reads it as absent
    assert not hasattr(module, name) and getattr(module, name, 7) == 7
    with pytest.raises(AttributeError):
        module._private_probe  # noqa: B018


@pytest.mark.parametrize("name,says", [
    ("scopeflow.python.no_such_module", "No module named 'tensorflow.python.no_such_module'"),
    ("scopeflow.python.framework.no_such_module",
     "No module named 'tensorflow.python.framework.no_such_module'"),
    ("scopeflow.core.framework.no_such_pb2", "No module named 'tensorflow.core.framework."),
    ("scopeflow.contrib.bayesflow", "tf.contrib was removed"),
])
def test_an_unknown_path_raises_module_not_found_naming_it(name, says):
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(name)
    assert says in str(info.value) and "docs/API.md" in str(info.value)


def test_real_modules_still_win():
    import scopeflow.contrib.layers as layers_module

    assert layers_module is tf.contrib.layers and not isinstance(layers_module, TFModule)


def test_sources_stay_at_or_below_the_api_layer():
    """The table imports by name, which the import-layer test cannot see: its sources must
    sit at the api layer or below (the layer of scopeflow/python/)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    try:
        from test_import_layers import LAYERS
    finally:
        sys.path.pop(0)
    rank = {prefix: i for i, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes}
    api = next(i for i, (layer, _) in enumerate(LAYERS) if layer == "api")

    def layer_of(module):
        best = max((p for p in rank if module == p or module.startswith(p + ".")), key=len)
        return rank[best]
    for path, sources in MODULE_PATHS.items():
        for source in sources:
            module = source.partition(":")[0].strip()
            assert layer_of(module) <= api, (path, module)


def test_a_tf1_program_using_internal_paths_runs(tmp_path):
    program = textwrap.dedent(f"""
        import scopeflow as tf
        from scopeflow.python.platform import gfile, tf_logging as logging
        from scopeflow.python.framework import ops

        ops.reset_default_graph()
        logging.set_verbosity(logging.INFO)
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
        y = tf.matmul(x, w, name="y")
        assert ops.get_default_graph() is tf.get_default_graph()
        with ops.name_scope("outer"):
            z = tf.identity(y, name="z")
        path = {str(tmp_path / "out.txt")!r}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(z, {{x: [[1.0, 2.0]]}})
        with gfile.GFile(path, "w") as f:
            f.write("%s %s" % (z.name, value.tolist()))
        print(gfile.Exists(path), gfile.GFile(path).read())
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True outer/z:0 [[3.0]]"


def test_import_scopeflow_makes_no_path_module():
    probe = ("import sys, scopeflow; "
             "print(sorted(m for m in sys.modules if m.startswith(('scopeflow.python.', "
             "'scopeflow.core')) and m != 'scopeflow.python.module_paths'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# Names TF 1.x's modules had and TF 2.21 moved elsewhere (TF1 code uses them there).
TF_1X_ONLY = {
    "tensorflow.python.framework.ops": ["IndexedSlices", "IndexedSlicesValue"],
    "tensorflow.python.ops.control_flow_ops": ["Assert", "case", "cond", "while_loop"],
    "tensorflow.core.protobuf.config_pb2": ["RPCOptions"],
    "tensorflow.python.pywrap_tensorflow": ["CheckpointReader", "NewCheckpointReader"],
}


@pytest.mark.tf
def test_the_mapped_paths_and_listed_names_exist_in_tensorflow(tf1):
    """Every tensorflow.python/.core path of the table is a module of real TensorFlow, and
    every name the table lists for it (beside a source) is one of its names, but for
    TF_1X_ONLY. (TF 2.21 has no tf.contrib and no tensorflow.python.estimator: those paths
    are TF 1.x's; the estimator ones were checked against tensorflow_estimator 2.15.)"""
    listed = {path: sorted({n for s in sources for n in s.partition(":")[2].split()})
              for path, sources in MODULE_PATHS.items() if not path.startswith(
                  ("tensorflow.contrib", "tensorflow.python.estimator"))}
    found = tf1(f"""
        import importlib
        listed = {listed!r}
        out = {{}}
        for path, names in listed.items():
            try:
                module = importlib.import_module(path)
            except ImportError as e:
                out[path] = "cannot import: %s" % e
                continue
            lacking = [n for n in names if not hasattr(module, n)]
            if lacking:
                out[path] = lacking
        print(json.dumps(out))
    """)
    assert found == TF_1X_ONLY
