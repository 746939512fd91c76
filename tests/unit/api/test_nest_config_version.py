"""tf.nest, tf.config, tf.version, tf.sysconfig and tf.resource_loader: the same answers
as TF 2.21 on a CPU-only machine (one program run under both)."""

import textwrap

import pytest

import scopeflow as tf

NEST = textwrap.dedent('''
    import collections
    N = collections.namedtuple("N", "a b")
    out = {}
    out["flat"] = [tf.nest.flatten({"b": 1, "a": [2, (3, None)]}), tf.nest.flatten(5),
                   tf.nest.flatten(None),
                   tf.nest.flatten(collections.OrderedDict([("b", 1), ("a", 2)]))]
    out["nested"] = [tf.nest.is_nested(v) for v in ([1], "ab", {}, N(1, 2), None)]
    out["map"] = repr(tf.nest.map_structure(lambda x, y: x + y, (1, [2]), (3, [4])))
    out["pack"] = repr(tf.nest.pack_sequence_as(N(1, [2, 3]), [4, 5, 6]))
    errs = []
    for a, b, kw in [([1], (1,), {}), ([1], (1,), {"check_types": False}), ([1, 2], [1], {}),
                     ({"a": 1}, {"b": 1}, {}), (N(1, 2), (1, 2), {}), ([1, [2]], [1, 2], {})]:
        try:
            tf.nest.assert_same_structure(a, b, **kw)
            errs.append("ok")
        except Exception as e:
            errs.append(type(e).__name__ + ": " + str(e))
    for fn in (lambda: tf.nest.pack_sequence_as([1, 2], [1]),
               lambda: tf.nest.map_structure(lambda x: x, [1], check_types=False, foo=1)):
        try:
            fn()
        except Exception as e:
            errs.append(type(e).__name__ + ": " + str(e))
    out["errors"] = errs
    sp = tf.SparseTensor([[0]], [1.], [2])
    out["composite"] = [len(tf.nest.flatten(sp)),
                        len(tf.nest.flatten(sp, expand_composites=True)),
                        type(tf.nest.map_structure(lambda t: t, sp,
                                                   expand_composites=True)).__name__]
    print(json.dumps(out))
''')

CONFIG = textwrap.dedent('''
    c = tf.config
    out = {}
    out["devices"] = [repr(c.list_physical_devices()), repr(c.list_physical_devices("GPU")),
                      repr(c.get_visible_devices())]
    out["defaults"] = [c.threading.get_inter_op_parallelism_threads(),
                       c.threading.get_intra_op_parallelism_threads(),
                       c.optimizer.get_jit(), c.optimizer.get_experimental_options(),
                       c.get_soft_device_placement(), c.functions_run_eagerly(),
                       tf.debugging.get_log_device_placement()]
    c.threading.set_inter_op_parallelism_threads(2)
    c.optimizer.set_jit(True)
    c.optimizer.set_experimental_options({"constant_folding": False})
    c.set_soft_device_placement(True)
    tf.debugging.set_log_device_placement(True)
    d = c.list_physical_devices("CPU")[0]
    c.set_visible_devices([d])
    out["set"] = [c.threading.get_inter_op_parallelism_threads(), c.optimizer.get_jit(),
                  c.optimizer.get_experimental_options(), c.get_soft_device_placement(),
                  tf.debugging.get_log_device_placement(), repr(c.get_visible_devices("CPU")),
                  repr(c.get_logical_device_configuration(d)),
                  repr(c.LogicalDeviceConfiguration(memory_limit=10))]
    c.set_logical_device_configuration(d, [c.LogicalDeviceConfiguration()] * 2)
    out["logical"] = repr(c.list_logical_devices("CPU"))
    refused = []
    for fn in (lambda: c.set_logical_device_configuration(d, [c.LogicalDeviceConfiguration()]),
               lambda: c.threading.set_intra_op_parallelism_threads(3)):
        try:
            fn()
            refused.append("ok")
        except Exception as e:
            refused.append(type(e).__name__ + ": " + str(e))
    out["refused"] = refused
    out["version"] = [tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER,
                      tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER, tf.CXX11_ABI_FLAG,
                      tf.CXX_VERSION, tf.MONOLITHIC_BUILD,
                      tf.sysconfig.get_build_info()["is_cuda_build"] is not None,
                      tf.resource_loader.readahead_file_path("x")]
    print(json.dumps(out))
''')


def test_nest_without_tf(scopeflow_run):
    got = scopeflow_run(NEST)
    assert got["flat"][0] == [2, 3, None, 1]
    assert got["errors"][0].startswith("TypeError: The two structures don't have the same")
    assert got["errors"][1] == "ok"
    assert got["composite"] == [1, 3, "SparseTensor"]


@pytest.mark.parametrize("program", [NEST, CONFIG], ids=["nest", "config"])
def test_matches_tf(tf1, program, scopeflow_run):
    assert scopeflow_run(program) == tf1(program)


def test_versions_are_scopeflows_and_the_graph_def_version_written():
    assert tf.VERSION == tf.__version__ == tf.version.VERSION
    assert tf.GRAPH_DEF_VERSION == tf.Graph().as_graph_def().versions.producer


def test_data_files_path_is_the_callers_directory():
    import os
    assert tf.resource_loader.get_data_files_path() == os.path.dirname(__file__)
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(
        os.path.dirname(__file__), "x.txt")


def test_sysconfig_flags_are_not_planned():
    with pytest.raises(NotImplementedError, match="C\\+\\+ extensions"):
        tf.sysconfig.get_include()
