"""tf.linalg.LinearOperatorCirculant, ...2D, ...3D: TF's values and dtypes for matmul,
solve (adjoint and adjoint_arg too), to_dense, determinant, log_abs_determinant, trace,
diag_part, eigvals, convolution_kernel, with real and complex spectra and real and
complex input_output_dtype."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

_CODE = """
def build(tf):
    rng = np.random.RandomState(5)
    cases = []
    specs = [
        (tf.linalg.LinearOperatorCirculant, (rng.rand(4) + 1).astype(np.float32), {}),
        (tf.linalg.LinearOperatorCirculant, (rng.rand(2, 5) + 1).astype(np.float64),
         {"input_output_dtype": tf.float64}),
        (tf.linalg.LinearOperatorCirculant,
         (rng.randn(3) + 1j * rng.randn(3) + 2).astype(np.complex64), {}),
        (tf.linalg.LinearOperatorCirculant, np.fft.fft(rng.randn(6)).astype(np.complex128),
         {"input_output_dtype": tf.float64}),
        (tf.linalg.LinearOperatorCirculant2D, (rng.rand(2, 3) + 1).astype(np.float32), {}),
        (tf.linalg.LinearOperatorCirculant2D,
         np.fft.fft2(rng.randn(2, 3, 4)).astype(np.complex64),
         {"input_output_dtype": tf.float32}),
        (tf.linalg.LinearOperatorCirculant3D, (rng.rand(2, 2, 3) + 1).astype(np.float32),
         {"input_output_dtype": tf.float32}),
    ]
    out = []
    for cls, spectrum, kw in specs:
        op = cls(tf.constant(spectrum), **kw)
        n = op.shape.as_list()[-1]
        batch = op.shape.as_list()[:-2]
        dt = op.dtype
        x = rng.randn(*(batch + [n, 2]))
        if dt.is_complex:
            x = x + 1j * rng.randn(*(batch + [n, 2]))
        x = tf.constant(x.astype(dt.as_numpy_dtype))
        tensors = [op.to_dense(), op.matmul(x), op.matmul(x, adjoint=True),
                   op.solve(x), op.solve(x, adjoint=True), op.determinant(),
                   op.log_abs_determinant(), op.trace(), op.diag_part(),
                   op.convolution_kernel(), op.matvec(x[..., 0])]
        if op.is_self_adjoint:
            tensors.append(op.eigvals())
        out.append((cls.__name__, op.name, op.shape.as_list(), dt.name,
                    op.is_self_adjoint, tensors))
    return out


def run(tf, built):
    with tf.Session() as sess:
        vals = sess.run([b[-1] for b in built])
    res = []
    for b, v in zip(built, vals):
        res.append(list(b[:-1]) + [[t.dtype.name for t in b[-1]],
                                   [t.shape.as_list() for t in b[-1]],
                                   [[np.real(a).tolist(), np.imag(a).tolist()] for a in v]])
    return res
"""


def _ours():
    scope = {"np": np}
    exec(_CODE, scope)
    with tf.Graph().as_default():
        return scope["run"](tf, scope["build"](tf))


def test_dense_matches_numpy():
    with tf.Graph().as_default():
        col = np.array([1.0, 2.0, 3.0, 5.0])
        op = tf.linalg.LinearOperatorCirculant(np.fft.fft(col).astype(np.complex128),
                                               input_output_dtype=tf.float64)
        dense = tf.Session().run(op.to_dense())
    want = np.array([[col[(i - j) % 4] for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(dense, want, atol=1e-12)
    with pytest.raises(ValueError, match="A real spectrum always corresponds"):
        tf.linalg.LinearOperatorCirculant([1.0, 2.0], is_self_adjoint=False)
    with pytest.raises(NotImplementedError, match="Only self-adjoint"):
        tf.linalg.LinearOperatorCirculant(np.complex64([1 + 1j, 2])).eigvals()
    with pytest.raises(ValueError, match="must have at least 2 dimensions"):
        tf.linalg.LinearOperatorCirculant2D([1.0, 2.0])


def test_matches_tf(tf1):
    want = tf1(_CODE + """
tf.disable_v2_behavior()
print(json.dumps(run(tf, build(tf))))
""")
    got = _ours()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g[:5] == w[:5]
        assert g[5] == w[5] and g[6] == w[6]        # dtypes and static shapes
        for a, b in zip(g[7], w[7]):
            np.testing.assert_allclose(np.array(a[0]) + 1j * np.array(a[1]),
                                       np.array(b[0]) + 1j * np.array(b[1]),
                                       rtol=2e-5, atol=2e-5)
