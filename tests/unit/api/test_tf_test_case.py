"""tf.test.TestCase and the rest of tf.test: a TF1-style test file runs under scopeflow as
under TF 2.21 (same passes and failures, same seeds), plus the helpers on their own."""

import os
import textwrap

import numpy as np
import pytest

import scopeflow as tf

# A TF1 test module: some tests pass, some fail on purpose; the runner's verdicts and the
# seeded values must be TF's.
TEST_MODULE = textwrap.dedent('''
    import json, sys, unittest
    import numpy as np

    class T(tf.test.TestCase):
        def test_seeded_graph(self):
            x = tf.random_uniform([3])
            with self.cached_session() as sess:
                RESULTS["seeded"] = sess.run(x).tolist()
                self.assertIs(sess, tf.get_default_session())

        def test_evaluate_nested(self):
            out = self.evaluate({"a": tf.constant([1, 2]), "b": (tf.constant(3.0),)})
            self.assertAllEqual(out["a"], [1, 2])
            self.assertAllClose(out["b"], (3.0,))

        def test_close_and_equal(self):
            self.assertAllClose([1.0, 2.0], np.array([1.0, 2.0 + 1e-7]))
            self.assertAllClose({"x": [1.0]}, {"x": tf.constant([1.0])})
            self.assertNotAllClose([1.0], [1.1])
            self.assertAllEqual(tf.constant([[1, 2]]), [[1, 2]])
            self.assertNotAllEqual([1, 2], [1, 3])
            self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
            self.assertAllInRange([1, 2, 3], 1, 3)
            self.assertAllInSet([1, 2, 2], {1, 2})
            self.assertAllGreater([2, 3], 1)
            self.assertAllLessEqual([2, 3], 3)
            self.assertDTypeEqual(np.float32([1]), tf.float32)
            self.assertShapeEqual(np.zeros((2, 3)), tf.zeros([2, 3]))
            self.assertNear(1.0, 1.05, 0.1)
            self.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.1)
            self.assertStartsWith("abc", "ab")
            self.assertDeviceEqual("/cpu:0", "/device:CPU:0")
            self.assertProtoEquals("producer: 5", tf.GraphDef().versions.__class__(producer=5))

        def test_close_fails(self):
            self.assertAllClose([1.0, 2.0], [1.0, 2.1])

        def test_equal_shape_fails(self):
            self.assertAllEqual([1, 2], [[1, 2]])

        def test_in_range_fails(self):
            self.assertAllInRange([1, 5], 1, 3)

        def test_op_error(self):
            with self.assertRaisesOpError("Incompatible shapes|must be equal"):
                p = tf.placeholder(tf.float32)
                with self.cached_session() as sess:
                    sess.run(p + [1.0, 2.0], {p: [1.0, 2.0, 3.0]})

        def test_predicate_match(self):
            with self.assertRaisesWithPredicateMatch(ValueError, "bad"):
                raise ValueError("a bad value")

        def test_session_graphs(self):
            g = tf.Graph()
            with g.as_default():
                c = tf.constant(2)
            with self.session(graph=g) as sess:
                self.assertEqual(sess.run(c), 2)
            self.assertTrue(tf.test.get_temp_dir())
            self.assertTrue(self.get_temp_dir())

        def test_threads(self):
            done = []
            t = self.checkedThread(target=lambda: done.append(1))
            t.start(); t.join()
            self.assertEqual(done, [1])

    RESULTS = {}
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(suite)
    RESULTS["failures"] = sorted(t.id().split(".")[-1] for t, _ in result.failures)
    RESULTS["errors"] = sorted(t.id().split(".")[-1] for t, _ in result.errors)
    RESULTS["run"] = result.testsRun
    print(json.dumps(RESULTS))
''')


def test_test_case_verdicts(scopeflow_run):
    got = scopeflow_run(TEST_MODULE)
    assert got["failures"] == ["test_close_fails", "test_equal_shape_fails",
                                "test_in_range_fails"]
    assert got["errors"] == [] and got["run"] == 11


def test_test_case_matches_tf(tf1, scopeflow_run):
    want = tf1("tf.disable_v2_behavior()\n" + TEST_MODULE)
    got = scopeflow_run(TEST_MODULE)
    assert got["failures"] == want["failures"] and got["errors"] == want["errors"]
    np.testing.assert_allclose(got["seeded"], want["seeded"], rtol=1e-6)


def test_helpers():
    assert not tf.test.is_built_with_gpu_support() and not tf.test.is_built_with_xla()
    config = tf.test.benchmark_config()
    assert config.graph_options.rewrite_options.dependency_optimization == 2

    class Obj:
        x = 1
    with tf.test.StubOutForTesting() as stubs:
        stubs.Set(Obj, "x", 2)
        assert Obj.x == 2
    assert Obj.x == 1


def test_assert_equal_graph_def():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        tf.constant(1.0, name="a")
    with g2.as_default():
        tf.constant(1.0, name="a")
    tf.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())
    with g2.as_default():
        tf.constant(2.0, name="b")
    with pytest.raises(AssertionError, match="only in expected"):
        tf.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())


def test_run_op_benchmark(capsys):
    class B(tf.test.Benchmark):
        def benchmarkAdd(self):  # noqa: N802 - TF's naming
            with tf.Session() as sess:
                return self.run_op_benchmark(sess, tf.constant(1) + 1, min_iters=3)
    entry = B().benchmarkAdd()
    assert entry["name"] == "B.benchmarkAdd" and entry["iters"] == 3
    assert "entries" in capsys.readouterr().out


def test_src_dir_path_needs_bazel(monkeypatch):
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    with pytest.raises(KeyError):
        tf.test.test_src_dir_path("python")
    monkeypatch.setenv("TEST_SRCDIR", "/r")
    monkeypatch.setenv("TEST_WORKSPACE", "w")
    assert tf.test.test_src_dir_path("python") == os.path.join("/r", "w", "tensorflow",
                                                               "python")
