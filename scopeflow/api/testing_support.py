"""The rest of ``tf.test`` besides ``TestCase``: ``main``, ``get_temp_dir``, ``Benchmark``,
``StubOutForTesting``, ``assert_equal_graph_def``, the build queries (a CPU-only build) and
the test decorators, as TF1's test files use them."""

from __future__ import annotations

import functools
import inspect
import os
import statistics
import sys
import tempfile
import time
import unittest

from google.protobuf import text_format

from scopeflow.framework.context import get_default_session
from scopeflow.io.protos import ConfigProto

__all__ = ["main", "get_temp_dir", "Benchmark", "StubOutForTesting", "assert_equal_graph_def",
           "benchmark_config", "is_built_with_gpu_support", "is_built_with_rocm",
           "is_built_with_xla", "is_cpu_target_available", "test_src_dir_path",
           "disable_with_predicate", "with_eager_op_as_function"]

_TEMP_DIR: list = []


def main(argv=None):
    """Runs the tests of ``__main__`` (unittest's runner; TF's is absl's, same exit codes)."""
    return unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


def get_temp_dir() -> str:
    """One temporary directory for this process (``$TEST_TMPDIR`` when set)."""
    if not _TEMP_DIR:
        _TEMP_DIR.append(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
    return _TEMP_DIR[0]


def is_built_with_gpu_support() -> bool:
    return False


def is_built_with_rocm() -> bool:
    return False


def is_built_with_xla() -> bool:
    return False


def is_cpu_target_available(target) -> bool:
    """scopeflow's kernels are NumPy: any CPU target NumPy runs on is available."""
    return True


def test_src_dir_path(relative_path) -> str:
    """``$TEST_SRCDIR/$TEST_WORKSPACE/tensorflow/<relative_path>`` (Bazel's runfiles; a
    ``KeyError`` outside Bazel, as in TF)."""
    return os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"], "tensorflow",
                        relative_path)


def benchmark_config() -> ConfigProto:
    """A ``ConfigProto`` with the dependency optimizer off (TF's benchmark setting)."""
    config = ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = 2  # RewriterConfig.OFF
    return config


def disable_with_predicate(pred, skip_message):
    """Decorates a test (method or class) to skip it when ``pred()`` is true."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """TF runs the decorated tests again with eager ops as functions; scopeflow has no eager
    mode, so the tests run once, unchanged."""
    if cls is None:
        return lambda c: c
    return cls


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """Raises ``AssertionError`` unless the GraphDefs have the same nodes (in any order) and
    versions. ``checkpoint_v2`` ignores the random suffix of ``save/Const``'s temp name."""
    if type(actual).__name__ != "GraphDef" or type(expected).__name__ != "GraphDef":
        raise TypeError(f"Expected tf.GraphDef for actual, got {type(actual).__name__}"
                        if type(actual).__name__ != "GraphDef" else
                        f"Expected tf.GraphDef for expected, got {type(expected).__name__}")

    def nodes(graph_def):
        out = {}
        for node in graph_def.node:
            node = type(node).FromString(node.SerializeToString())
            if checkpoint_v2 and node.op == "Const" and node.name.endswith("save/Const") \
                    and "value" in node.attr:
                node.attr["value"].tensor.ClearField("string_val")
            if hash_table_shared_name and node.op.endswith("HashTableV2") \
                    and "shared_name" in node.attr:
                node.attr["shared_name"].s = b""
            out[node.name] = node
        return out

    a, e = nodes(actual), nodes(expected)
    if set(a) != set(e):
        raise AssertionError(f"Graph nodes differ: only in actual {sorted(set(a) - set(e))}, "
                             f"only in expected {sorted(set(e) - set(a))}")
    for name in sorted(a):
        if a[name] != e[name]:
            raise AssertionError(f"{name!r} differs:\nactual:\n"
                                 f"{text_format.MessageToString(a[name])}\nexpected:\n"
                                 f"{text_format.MessageToString(e[name])}")
    if actual.versions != expected.versions:
        raise AssertionError(f"Versions differ: {actual.versions} vs {expected.versions}")


class Benchmark:
    """TF's ``tf.test.Benchmark``: ``run_op_benchmark`` times an op in a session (burn-in
    runs, then ``min_iters`` timed ones) and ``report_benchmark`` prints the entry."""

    def _get_name(self, overwrite_name=None):
        if overwrite_name:
            return overwrite_name
        for frame in inspect.stack():
            if frame.function.startswith("benchmark") and \
                    isinstance(frame.frame.f_locals.get("self"), Benchmark):
                return f"{type(self).__name__}.{frame.function}"
        return type(self).__name__

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        entry = {"name": self._get_name(name), "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        print(f"entries {{ {entry} }}")
        return entry

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2,
                         min_iters=10, store_trace=False, store_memory_usage=True, name=None,
                         extras=None, mbs=0):
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        wall_time = statistics.median(deltas) if deltas else -1
        extras = dict(extras or {})
        if mbs and wall_time > 0:
            extras["throughput_mbs"] = mbs / wall_time
        entry = {"iters": min_iters, "wall_time": wall_time, "extras": extras}
        self.report_benchmark(name=name, **entry)
        return {**entry, "name": self._get_name(name)}

    def evaluate(self, tensors):
        """The values of ``tensors`` in the default session."""
        sess = get_default_session()
        if sess is None:
            raise ValueError("evaluate() needs a default session")
        return sess.run(tensors)


class StubOutForTesting:
    """Replaces attributes for a test and puts them back (``Set``, ``SmartSet``,
    ``UnsetAll``/``SmartUnsetAll``, ``CleanUp``), as TF's (and mox's) helper."""

    def __init__(self):
        self.cache = []
        self.stubs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802 - TF's name
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802
        self.stubs.append((obj, attr_name, getattr(obj, attr_name)))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        for obj, attr_name, old in reversed(self.stubs):
            setattr(obj, attr_name, old)
        self.stubs = []

    def Set(self, parent, child_name, new_child):  # noqa: N802
        old = getattr(parent, child_name)
        old_attribute = parent.__dict__.get(child_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            old = staticmethod(old)
        self.cache.append((parent, old, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        for parent, old, child_name in reversed(self.cache):
            setattr(parent, child_name, old)
        self.cache = []
