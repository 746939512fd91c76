"""tf.linalg: values, errors and gradients against NumPy, and graphs against TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

A = np.array([[4., 1, 0], [1, 3, 1], [0, 1, 2]])


def _run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


def test_singular_inverse_and_solve_fail_with_tf_text():
    z = np.zeros((2, 2), np.float32)
    for build, text in [(tf.matrix_inverse, "Input is not invertible."),
                        (lambda m: tf.matrix_solve(m, m), "Input matrix is not invertible.")]:
        with tf.Graph().as_default():
            with pytest.raises(tf.errors.InvalidArgumentError, match=text):
                _run(build(z))


def test_decompositions_reconstruct_and_norms():
    with tf.Graph().as_default():
        q, r = tf.qr(A)
        e, v = tf.self_adjoint_eig(A)
        got = _run(tf.matmul(q, r), tf.matmul(v * e[None, :], v, transpose_b=True),
                   tf.linalg.logdet(A), tf.norm(A, ord=1, axis=[0, 1]),
                   tf.norm(A, ord=np.inf, axis=(-2, -1)), tf.norm(A[0], ord=3))
    np.testing.assert_allclose(got[0], A, atol=1e-12)
    np.testing.assert_allclose(got[1], A, atol=1e-12)
    assert got[2] == pytest.approx(np.log(np.linalg.det(A)))
    assert got[3] == pytest.approx(np.linalg.norm(A, 1))
    assert got[4] == pytest.approx(np.linalg.norm(A, np.inf))
    assert got[5] == pytest.approx(np.linalg.norm(A[0], 3))


def test_static_shapes_and_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 3])
        assert tf.matrix_determinant(x).shape.as_list() == [None]
        assert tf.matrix_diag_part(tf.zeros([2, 3, 4])).shape.as_list() == [2, 3]
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.matrix_inverse(tf.zeros([2, 3]))
        with pytest.raises(ValueError, match="at least rank 2"):
            tf.cholesky(tf.zeros([3]))
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.matrix_inverse(tf.zeros([2, 2], tf.int32))


def test_cholesky_gradient_is_symmetric_and_matches_inverse_rule():
    """d/dA sum(log diag chol(A)) * 2 = A^-1 for SPD A (logdet's gradient)."""
    with tf.Graph().as_default():
        a = tf.constant(A)
        g, = tf.gradients(tf.linalg.logdet(a), a)
        got, = _run(g)
    np.testing.assert_allclose(got, np.linalg.inv(A), atol=1e-12)


def test_graph_and_values_match_tensorflow(tf1):
    code = """
import json, numpy as np
a = np.array([[4., 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)
x = tf.constant(a)
outs = [tf.matrix_inverse(x), tf.matrix_determinant(x), tf.linalg.slogdet(x)[1],
        tf.linalg.logdet(x), tf.cholesky(x), tf.matrix_solve(x, x),
        tf.matrix_triangular_solve(x, x), tf.cholesky_solve(tf.cholesky(x), x),
        tf.matrix_band_part(x, 1, 0), tf.matrix_diag(x[0]), tf.matrix_diag_part(x),
        tf.matrix_set_diag(x, x[1]), tf.trace(x), tf.norm(x), tf.cross(x[0], x[1]),
        tf.self_adjoint_eigvals(x), tf.linalg.adjoint(x)]
grads = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), x)
vals = tf.Session().run(outs + grads)
print(json.dumps({"names": [o.name for o in outs], "types": [o.op.type for o in outs],
                  "vals": [np.asarray(v, np.float64).tolist() for v in vals]}))
"""
    want = tf1(code)
    with tf.Graph().as_default():
        x = tf.constant(A.astype(np.float32))
        outs = [tf.matrix_inverse(x), tf.matrix_determinant(x), tf.linalg.slogdet(x)[1],
                tf.linalg.logdet(x), tf.cholesky(x), tf.matrix_solve(x, x),
                tf.matrix_triangular_solve(x, x), tf.cholesky_solve(tf.cholesky(x), x),
                tf.matrix_band_part(x, 1, 0), tf.matrix_diag(x[0]), tf.matrix_diag_part(x),
                tf.matrix_set_diag(x, x[1]), tf.trace(x), tf.norm(x), tf.cross(x[0], x[1]),
                tf.self_adjoint_eigvals(x), tf.linalg.adjoint(x)]
        grads = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), x)
        vals = _run(*(outs + grads))
        assert [o.op.type for o in outs] == want["types"]
        assert [o.name for o in outs] == want["names"]
    for got, ref in zip(vals, want["vals"]):
        np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=1e-4, atol=1e-4)
