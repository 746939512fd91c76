"""``tf.test``: ``TestCase`` (api/testing_case.py), the test helpers (api/testing_support.py) and
numeric gradient checking (``compute_gradient``, ``compute_gradient_error``).

``check_gradients`` is scopeflow's one-call version: it raises with the worst element when
the analytic and numeric Jacobians disagree.
"""

from __future__ import annotations

import numpy as np

from scopeflow.api.testing_case import TestCase
from scopeflow.api.testing_support import *  # noqa: F403
from scopeflow.api.testing_support import __all__ as _support_all
from scopeflow.autodiff.gradients import gradients
from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops import array_ops
from scopeflow.runtime.session import Session

__all__ = ["compute_gradient", "compute_gradient_error", "check_gradients",
           "is_gpu_available", "is_built_with_cuda", "gpu_device_name", "TestCase",
           *_support_all]


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """False: scopeflow runs on the CPU."""
    return False


def is_built_with_cuda() -> bool:
    return False


def gpu_device_name() -> str:
    """``""``, as TF says when it has no GPU."""
    return ""


def _session():
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session (use `with "
                         "tf.Session().as_default():` or tf.InteractiveSession())")
    return sess


def _jacobians(sess, x, x_shape, y, y_shape, x_value, delta, feeds):
    x_size = int(np.prod(x_shape))
    y_size = int(np.prod(y_shape))
    x_value = np.asarray(x_value, dtype=x.dtype.base_dtype.as_numpy_dtype).reshape(x_shape)
    with name_scope("compute_gradient"):
        dy = array_ops.placeholder(y.dtype.base_dtype, y_shape)
        dx = gradients(y, x, grad_ys=dy)[0]
    theoretical = np.zeros((x_size, y_size))
    if dx is not None:
        dx = convert_to_tensor(dx)  # densify IndexedSlices
        dy_value = np.zeros(y_shape, dtype=y.dtype.base_dtype.as_numpy_dtype)
        for j in range(y_size):
            dy_value.flat[j] = 1
            theoretical[:, j] = np.reshape(sess.run(dx, {**feeds, x: x_value, dy: dy_value}),
                                           -1)
            dy_value.flat[j] = 0
    numerical = np.zeros((x_size, y_size))
    for i in range(x_size):
        plus, minus = x_value.copy(), x_value.copy()
        plus.flat[i] += delta
        minus.flat[i] -= delta
        yp = np.asarray(sess.run(y, {**feeds, x: plus}), np.float64)
        ym = np.asarray(sess.run(y, {**feeds, x: minus}), np.float64)
        numerical[i, :] = np.reshape((yp - ym) / (2 * delta), -1)
    return theoretical, numerical


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """TF1's Jacobians of ``y`` w.r.t. ``x``: ``(theoretical, numerical)``, each x-by-y.

    ``x`` may be a list (with lists of shapes and init values): then a list of pairs.
    """
    sess = _session()
    if init_targets is not None:
        sess.run(init_targets)
    feeds = dict(extra_feed_dict or {})
    if isinstance(x, (list, tuple)):
        inits = x_init_value or [None] * len(x)
        return [compute_gradient(xi, si, y, y_shape, vi, delta, None, extra_feed_dict)
                for xi, si, vi in zip(x, x_shape, inits)]
    if x_init_value is None:
        rng = np.random.default_rng(0)
        x_init_value = rng.uniform(-1, 1, size=x_shape)
    return _jacobians(sess, x, list(x_shape), y, list(y_shape), x_init_value, delta, feeds)


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None) -> float:
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    result = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                              extra_feed_dict)
    pairs = result if isinstance(result, list) else [result]
    return max(float(np.max(np.abs(t - n))) if t.size else 0.0 for t, n in pairs)


def check_gradients(y: Tensor, xs, x_values, feed_dict=None, delta=1e-6, rtol=1e-4, atol=1e-6):
    """Asserts that tf.gradients of ``y`` matches central differences at ``x_values``.

    Runs in the default session (or a new one on ``y``'s graph). Raises AssertionError
    naming the input and element with the worst disagreement.
    """
    sess = get_default_session() or Session(graph=y.graph)
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    x_values = list(x_values) if isinstance(x_values, (list, tuple)) else [x_values]
    feeds = dict(feed_dict or {})
    y_shape = list(np.shape(sess.run(y, {**feeds, **dict(zip(xs, x_values))})))
    for x, value in zip(xs, x_values):
        others = {**feeds, **{o: v for o, v in zip(xs, x_values) if o is not x}}
        theo, num = _jacobians(sess, x, list(np.shape(value)), y, y_shape, value, delta, others)
        err = np.abs(theo - num) - (atol + rtol * np.abs(num))
        if err.size and err.max() > 0:
            i, j = np.unravel_index(np.argmax(err), err.shape)
            raise AssertionError(
                f"gradient of {y.name} w.r.t. {x.name} disagrees at x[{i}], y[{j}]: analytic "
                f"{theo[i, j]:.6g}, numeric {num[i, j]:.6g}")
