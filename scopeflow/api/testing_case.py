"""``tf.test.TestCase``: TF1's test base class, so TF1 test files run unchanged.

As TF's ``TensorFlowTestCase`` in graph mode: every test starts with a fresh default graph
whose seed is TF's ``DEFAULT_GRAPH_SEED`` (and Python's and NumPy's generators seeded with
it), ``session()``/``cached_session()`` give sessions on the default graph, ``evaluate()``
runs tensors (nested structures too), and the ``assertAll*`` helpers accept tensors,
nested structures and NumPy values with TF's tolerances and messages. absl's extra
assertions that TF1 tests lean on (``assertLen``, ``assertBetween``, ``assertItemsEqual``,
...) are here too, since TF's base class is absl's.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import re
import tempfile
import threading
import unittest

import numpy as np
from google.protobuf import text_format

from scopeflow.framework import dtypes, errors
from scopeflow.framework import nest as _nest
from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import Tensor, get_default_graph, reset_default_graph
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.random_seed import DEFAULT_GRAPH_SEED, set_random_seed
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.runtime.session import Session

__all__ = ["TestCase"]


def _is_symbolic(x) -> bool:
    return (isinstance(x, Tensor | SparseTensor | IndexedSlices)
            or hasattr(x, "_as_graph_element"))


class _CheckedThread:
    """A thread whose exception fails the test at ``join()`` (TF's ``checkedThread``)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase = testcase
        self._target = target
        self._args = () if args is None else args
        self._kwargs = {} if kwargs is None else kwargs
        self._thread = threading.Thread(target=self._protected_run)
        self._exception = None
        self._is_thread_joined = False

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported at join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        self._is_thread_joined = True
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if self._is_thread_joined:
            if self.is_alive():
                raise RuntimeError("Thread was not joined with main thread, and is still "
                                   "running when the test finished.")
        else:
            self._testcase.fail("A checked thread was not joined.")


class TestCase(unittest.TestCase):
    """Base class for TF1 tests: fresh seeded graph per test, sessions, ``assertAll*``."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._threads: list = []
        self._tempdir = None
        self._cached_session = None
        self._cached_graph = None

    # -- per-test state --------------------------------------------------------------
    def setUp(self):
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        reset_default_graph()
        set_random_seed(DEFAULT_GRAPH_SEED)

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
        self._cached_session = None
        self._cached_graph = None

    def get_temp_dir(self) -> str:
        """A directory unique to this test (made on first use)."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        return self._tempdir

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TF's name
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # -- sessions --------------------------------------------------------------------
    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new ``Session`` on ``graph`` (default: the default graph), as the default."""
        if force_gpu:
            self.skipTest("force_gpu=True: scopeflow runs on the CPU only")
        graph = get_default_graph() if graph is None else graph
        with Session(graph=graph, config=config) as sess, sess.as_default(), \
                graph.as_default():
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """One session per test (made on first use), reused while the graph is the same."""
        if force_gpu:
            self.skipTest("force_gpu=True: scopeflow runs on the CPU only")
        graph = get_default_graph() if graph is None else graph
        if self._cached_session is None or self._cached_graph is not graph:
            self._clear_cached_session()
            self._cached_session = Session(graph=graph, config=config)
            self._cached_graph = graph
        with self._cached_session.as_default(), graph.as_default():
            yield self._cached_session

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """TF's deprecated name: the cached session for the default graph, else a new one."""
        manager = (self.cached_session if graph is None else self.session)
        with manager(graph, config, use_gpu, force_gpu) as sess:
            yield sess

    def evaluate(self, tensors):
        """The values of ``tensors`` (any nested structure) in the default session, or in
        the cached one."""
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.cached_session() as sess:
            return sess.run(tensors)

    # -- values ----------------------------------------------------------------------
    def _value(self, x):
        if _is_symbolic(x):
            return self.evaluate(x)
        return x

    def evaluate_if_both_tensors(self, a, b):
        if _is_symbolic(a) and _is_symbolic(b):
            return self.evaluate((a, b))
        return a, b

    def _array(self, x):
        x = self._value(x)
        if isinstance(x, list | tuple) and x and any(_is_symbolic(e) for e in _nest.flatten(x)):
            x = self.evaluate(x)
        return np.asarray(x) if not isinstance(x, np.ndarray) else x

    # -- near / close ------------------------------------------------------------------
    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802 - TF's name
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        f"{f1:f} != {f2:f} +/- {err:f}{' (' + msg + ')' if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) <= err, msg=msg)

    def _assert_all_close_rec(self, a, b, rtol, atol, path, msg):
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                raise AssertionError(f"{a!r} and {b!r} are not both dicts: path {path}")
            self.assertEqual(set(a), set(b), f"mismatched keys: a{path} has keys {set(a)}, "
                             f"but b{path} has keys {set(b)}")
            for k in a:
                self._assert_all_close_rec(a[k], b[k], rtol, atol, path + [str(k)], msg)
            return
        if isinstance(a, list | tuple) and not _is_array_like_numbers(a) or (
                isinstance(b, list | tuple) and not _is_array_like_numbers(b)):
            self.assertEqual(len(a), len(b), f"Length of a{path} is {len(a)} but length of "
                             f"b{path} is {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                self._assert_all_close_rec(x, y, rtol, atol, path + [str(i)], msg)
            return
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        self._assert_array_like_all_close(a_arr, b_arr, rtol, atol, path, msg)

    def _assert_array_like_all_close(self, a, b, rtol, atol, path, msg):
        if a.shape != b.shape and a.size and b.size:
            raise AssertionError(f"Shape mismatch: expected {a.shape}, got {b.shape} with "
                                 f"contents {b}{' at path ' + str(path) if path else ''}.")
        if a.dtype.kind in "OSU" or b.dtype.kind in "OSU":
            np.testing.assert_array_equal(a, b, err_msg=msg or "")
            return
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            where = f"\nnot close where = {np.where(~np.isclose(a, b, rtol, atol, True))}"
            np.testing.assert_allclose(
                a, b, rtol=rtol, atol=atol, equal_nan=True,
                err_msg="\n".join(filter(None, [msg, f"Mismatched value: a is different from "
                                                     f"b. \nnot close where = {where}" if
                                                 False else None,
                                                 f"path: {path}" if path else None])))

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """``a`` and ``b`` (tensors, arrays or nested structures of them) agree within
        ``atol + rtol * |b|`` everywhere (NaNs in the same places)."""
        a, b = self._value(a), self._value(b)
        self._assert_all_close_rec(_evaluated(self, a), _evaluated(self, b), rtol, atol, [],
                                   msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """``assertAllClose`` with the tolerance of the less precise dtype."""
        a, b = self._array(a), self._array(b)
        if a.dtype == np.float32 or b.dtype == np.float32 or \
                a.dtype == np.complex64 or b.dtype == np.complex64:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if "bfloat16" in (a.dtype.name, b.dtype.name):
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    # -- equality ----------------------------------------------------------------------
    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Same shape (after broadcasting a scalar) and equal elements."""
        a, b = self._array(a), self._array(b)
        if a.shape != b.shape and not (a.size == 1 or b.size == 1):
            raise AssertionError(f"Shape mismatch: expected {a.shape}, got {b.shape} with "
                                 f"contents {b}. {msg or ''}")
        same = a == b
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self.assertGreater(np.min(self._array(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self.assertLess(np.max(self._array(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self.assertGreaterEqual(np.min(self._array(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self.assertLessEqual(np.max(self._array(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound,  # noqa: N802
                         open_lower_bound=False, open_upper_bound=False):
        """Every element within the bounds (open or closed); NaNs fail."""
        target = self._array(target)
        if not np.issubdtype(target.dtype, np.number):
            raise AssertionError(f"{target.dtype} is not a numeric type")
        bad = np.isnan(target) if target.dtype.kind in "fc" else np.zeros(target.shape, bool)
        bad |= (target <= lower_bound) if open_lower_bound else (target < lower_bound)
        bad |= (target >= upper_bound) if open_upper_bound else (target > upper_bound)
        if np.any(bad):
            lo = "(" if open_lower_bound else "["
            hi = ")" if open_upper_bound else "]"
            raise AssertionError(f"{np.count_nonzero(bad)} of the {target.size} element(s) "
                                 f"are outside the range {lo}{lower_bound}, {upper_bound}{hi}. "
                                 f"Subscript(s) and value(s) of the offending elements:\n"
                                 f"{np.argwhere(bad).tolist()}: {target[bad].tolist()}")

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        values = set(np.unique(self._array(target)).tolist())
        extra = values - set(expected_set)
        if extra:
            raise AssertionError(f"{len(extra)} unique element(s) are not in the set "
                                 f"{expected_set}: {sorted(extra)}")

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        target = self._array(target)
        want = dtypes.as_dtype(expected_dtype).as_numpy_dtype
        self.assertEqual(target.dtype, want)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """A NumPy array's shape equals a tensor's static shape."""
        if not isinstance(input_a, np.ndarray):
            raise TypeError("input_a must be a Numpy ndarray.")
        if not isinstance(input_b, Tensor):
            raise TypeError("input_b must be a Tensor.")
        self.assertAllEqual(input_a.shape, input_b.get_shape().as_list(), msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        self.assertEqual(_canonical_device(device1), _canonical_device(device2),
                         f"Devices {device1} and {device2} are not equal. {msg or ''}")

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r} {msg or ''}")

    def assertProtoEquals(self, expected_message_maybe_ascii, message,  # noqa: N802
                          msg=None):
        """``message`` equals the expected proto (a message or its text format)."""
        if isinstance(expected_message_maybe_ascii, str | bytes):
            expected = type(message)()
            text_format.Merge(expected_message_maybe_ascii, expected)
        else:
            expected = expected_message_maybe_ascii
        self.assertEqual(text_format.MessageToString(expected),
                         text_format.MessageToString(message), msg)

    # -- errors ----------------------------------------------------------------------
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type,  # noqa: N802
                                       expected_err_re_or_predicate):
        """The block raises ``exception_type`` whose message matches the regex (or the
        predicate returns True for the exception)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, errors.OpError) else str(e)
                return re.search(expected_err_re_or_predicate, text) is not None
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - checked below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(errors.OpError,
                                                   expected_err_re_or_predicate)

    # -- absl's assertions, which TF's base class inherits -------------------------------
    def assertLen(self, container, expected_len, msg=None):  # noqa: N802
        if len(container) != expected_len:
            self.fail(msg or f"{container!r} has length of {len(container)}, expected "
                             f"{expected_len}.")

    def assertEmpty(self, container, msg=None):  # noqa: N802
        self.assertLen(container, 0, msg)

    def assertNotEmpty(self, container, msg=None):  # noqa: N802
        if not len(container):
            self.fail(msg or f"{container!r} has length of 0.")

    def assertBetween(self, value, minv, maxv, msg=None):  # noqa: N802
        if not minv <= value <= maxv:
            self.fail(msg or f"{value!r} is not between {minv!r} and {maxv!r}")

    def assertItemsEqual(self, first, second, msg=None):  # noqa: N802
        self.assertCountEqual(first, second, msg)

    def assertSameElements(self, expected_seq, actual_seq, msg=None):  # noqa: N802
        self.assertEqual(set(expected_seq), set(actual_seq), msg)

    def assertContainsSubset(self, expected_subset, actual_set, msg=None):  # noqa: N802
        missing = set(expected_subset) - set(actual_set)
        if missing:
            self.fail(msg or f"Missing elements {missing}")


def _is_array_like_numbers(x) -> bool:
    """A list of numbers (or of such lists): compared as one array, not element by element."""
    try:
        arr = np.asarray(x)
    except ValueError:
        return False
    return arr.dtype != object


def _evaluated(testcase, x):
    if isinstance(x, list | tuple | dict) and any(_is_symbolic(e) for e in _nest.flatten(x)):
        return testcase.evaluate(x)
    return x


def _canonical_device(device) -> str:
    text = device.to_string() if hasattr(device, "to_string") else str(device or "")
    return text.replace("/device:CPU:", "/cpu:").replace("/device:GPU:", "/gpu:").lower()
