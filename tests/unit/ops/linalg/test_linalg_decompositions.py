"""tf.linalg's SVD, LU, matrix functions and tridiagonal systems: NumPy references, and one
shared graph-building script run under TF 2.21 and scopeflow (values, gradients, op types,
names, static shapes, dtypes, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

RNG = np.random.default_rng(7)
X34 = RNG.standard_normal((3, 4))
XB = RNG.standard_normal((2, 4, 3))
SPD = XB[0].T @ XB[0] + np.eye(3)
TRI = RNG.standard_normal((2, 3, 4)) + np.array([0, 5, 0])[:, None]
RHS = RNG.standard_normal((2, 4, 2))


def _run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


# ── without TensorFlow ───────────────────────────────────────────────────────────────
def test_svd_matches_numpy_and_orders_outputs_as_tf():
    with tf.Graph().as_default():
        s, u, v = tf.linalg.svd(XB)
        sf, uf, vf = tf.svd(X34, full_matrices=True)
        only = tf.svd(XB, compute_uv=False)
        assert (s.shape.as_list(), u.shape.as_list(), v.shape.as_list()) == \
            ([2, 3], [2, 4, 3], [2, 3, 3])
        assert (uf.shape.as_list(), vf.shape.as_list()) == ([3, 3], [4, 4])
        got = _run(s, u, v, only, uf, vf, sf)
    np.testing.assert_allclose(got[0], np.linalg.svd(XB, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(got[3], got[0], rtol=1e-12)
    rebuilt = np.einsum("bik,bk,bjk->bij", got[1], got[0], got[2])  # u diag(s) v^T: v, not v^H
    np.testing.assert_allclose(rebuilt, XB, atol=1e-12)
    np.testing.assert_allclose(got[4][:, :3] * got[6] @ got[5][:, :3].T, X34, atol=1e-12)
    np.testing.assert_allclose(got[5].T @ got[5], np.eye(4), atol=1e-12)


def test_pinv_rank_norm_expm_sqrtm_lu_tridiagonal_against_numpy():
    rank2 = X34[:2].T @ X34[:2]  # 4x4 of rank 2
    with tf.Graph().as_default():
        lu, p = tf.linalg.lu(XB[0].T @ XB[0])
        outs = [tf.linalg.pinv(XB), tf.linalg.matrix_rank(rank2),
                tf.norm(XB, ord=2, axis=[1, 2]), tf.linalg.normalize(X34, axis=1)[0],
                tf.linalg.sqrtm(SPD), tf.linalg.expm(XB[:, :3] * 3),
                tf.linalg.lu_reconstruct(lu, p), tf.linalg.lu_matrix_inverse(lu, p),
                tf.linalg.tridiagonal_solve(TRI, RHS), tf.linalg.tridiagonal_matmul(TRI, RHS),
                tf.linalg.matvec(XB, X34[0, :3]), tf.linalg.eye(2, 3, batch_shape=[2])]
        got = _run(*outs)
    np.testing.assert_allclose(got[0], np.linalg.pinv(XB), atol=1e-12)
    assert got[1] == 2
    np.testing.assert_allclose(got[2], np.linalg.norm(XB, 2, axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(got[3], X34 / np.linalg.norm(X34, axis=1, keepdims=True))
    np.testing.assert_allclose(got[4] @ got[4], SPD, rtol=1e-12)
    taylor = [sum(np.linalg.matrix_power(m, k) / np.prod(np.arange(1., k + 1)) for k in
                  range(60)) for m in XB[:, :3] * 3]
    np.testing.assert_allclose(got[5], taylor, rtol=1e-10)
    np.testing.assert_allclose(got[6], XB[0].T @ XB[0], atol=1e-12)
    np.testing.assert_allclose(got[7], np.linalg.inv(XB[0].T @ XB[0]), rtol=1e-10)
    dense = np.zeros((2, 4, 4))
    i = np.arange(4)
    dense[:, i, i] = TRI[:, 1]
    dense[:, i[:-1], i[1:]] = TRI[:, 0, :-1]
    dense[:, i[1:], i[:-1]] = TRI[:, 2, 1:]
    np.testing.assert_allclose(got[8], np.linalg.solve(dense, RHS), rtol=1e-10)
    np.testing.assert_allclose(got[9], dense @ RHS, rtol=1e-12)
    np.testing.assert_allclose(got[10], XB @ X34[0, :3])
    np.testing.assert_array_equal(got[11], np.broadcast_to(np.eye(2, 3), (2, 2, 3)))


def test_singular_lu_fails_with_tf_text_and_lu_has_no_gradient():
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
            _run(tf.linalg.lu(np.array([[1., 2], [2, 4]]))[0])
        x = tf.constant(SPD)
        with pytest.raises(LookupError):
            tf.gradients(tf.linalg.lu(x)[0], x)


# ── against TensorFlow ───────────────────────────────────────────────────────────────
BUILD = """
rng = np.random.default_rng(7)
x34 = rng.standard_normal((3, 4)); xb = rng.standard_normal((2, 4, 3))
spd = xb[0].T @ xb[0] + np.eye(3)
tri = rng.standard_normal((2, 3, 4)) + np.array([0, 5, 0])[:, None]
rhs = rng.standard_normal((2, 4, 2))
a = tf.constant(xb); w = tf.constant(x34); c = tf.constant(spd); d = tf.constant(tri)
r = tf.constant(rhs); a32 = tf.constant(xb.astype(np.float32))
s, u, v = tf.linalg.svd(a)
sf, uf, vf = tf.svd(w, full_matrices=True)
lu, perm = tf.linalg.lu(c)
lu64, perm64 = tf.linalg.lu(tf.constant(xb[:, :3]), output_idx_type=tf.int64)
lub, permb = tf.linalg.lu(tf.constant(xb[:, :3]))
outs = [s, tf.abs(u), tf.abs(v), sf, tf.abs(uf), tf.abs(vf), tf.svd(a32, compute_uv=False),
        tf.linalg.pinv(a), tf.linalg.matrix_rank(w), tf.norm(a, ord=2, axis=[-2, -1]),
        tf.norm(a, ord=2, axis=(0, 2), keepdims=True), tf.linalg.normalize(w, ord=1)[0],
        tf.linalg.normalize(w, axis=0)[1], tf.eye(3), tf.eye(2, 4, batch_shape=[2]),
        tf.linalg.eye(3, dtype=tf.float64), tf.linalg.matvec(a, w[0, :3]),
        tf.linalg.sqrtm(c), tf.matrix_square_root(tf.cast(c, tf.float32)),
        tf.linalg.logm(tf.cast(c, tf.complex128)),
        tf.linalg.expm(a[:, :3]), tf.linalg.expm(a32[:, :3] * 4), tf.linalg.expm(c * 3),
        lu, perm, lu64, perm64, tf.linalg.lu_reconstruct(lub, permb),
        tf.linalg.lu_matrix_inverse(lu, perm), tf.linalg.lu_solve(lu, perm, w[:, :2]),
        tf.linalg.lu_solve(lub, permb, r[:, :3]),
        tf.linalg.tridiagonal_solve(d, r), tf.linalg.tridiagonal_solve(d, r[..., 0]),
        tf.linalg.tridiagonal_solve(d, tf.linalg.adjoint(r), transpose_rhs=True),
        tf.linalg.tridiagonal_solve([d[:, 0, :-1], d[:, 1], d[:, 2, 1:]], r,
                                    diagonals_format="sequence"),
        tf.linalg.tridiagonal_solve(tf.linalg.diag(d[:, 1]) + tf.linalg.diag(d[:, 0, :-1], k=1),
                                    r, diagonals_format="matrix"),
        tf.linalg.tridiagonal_matmul(d, r),
        tf.linalg.tridiagonal_matmul(tf.linalg.diag(d[:, 1]), r, diagonals_format="matrix")]
# gradients of sign-invariant functions of the factors
seeds = [tf.reduce_sum(s * s * np.arange(3.)), tf.reduce_sum(u[..., 0] ** 2 * np.arange(4.)),
         tf.reduce_sum(tf.abs(v[..., 1]) * np.arange(3.))]
grads = tf.gradients(tf.add_n(seeds), a)
grads += tf.gradients(tf.reduce_sum(sf) + tf.reduce_sum(uf[:, 0] ** 2 * [1., 2, 3])
                      + tf.reduce_sum(vf[1:, :3] ** 2), w)
grads += tf.gradients(tf.reduce_sum(tf.linalg.pinv(a) * np.arange(12.).reshape(3, 4)), a)
grads += tf.gradients(tf.reduce_sum(tf.linalg.sqrtm(c) * np.arange(9.).reshape(3, 3)), c)
grads += tf.gradients(tf.reduce_sum(tf.norm(a, ord=2, axis=[-2, -1])), a)
ts = tf.linalg.tridiagonal_solve(d, r)
tm = tf.linalg.tridiagonal_matmul(d, r)
grads += tf.gradients(tf.reduce_sum(ts * ts) + tf.reduce_sum(tm * np.arange(2.)), [d, r])
grads += tf.gradients(tf.reduce_sum(tf.linalg.lu_solve(lu, perm, w[:, :2]) * [1., 2]), w)
grads += tf.gradients(tf.reduce_sum(tf.linalg.expm(a[:, :3] * 0.5) * np.arange(9.).reshape(3, 3)), a)
grads += tf.gradients(tf.reduce_sum(tf.linalg.svd(a32, compute_uv=False)), a32)
"""

SHAPES = """
p = tf.placeholder(tf.float32, [None, 4, 3]); q = tf.placeholder(tf.float64)
n = tf.placeholder(tf.int32, [])
sym = [*tf.linalg.svd(p), *tf.linalg.svd(p, full_matrices=True), *tf.svd(q),
       tf.svd(p, compute_uv=False), *tf.linalg.svd(p, compute_uv=False).op.outputs,
       tf.linalg.pinv(p), tf.linalg.matrix_rank(p), tf.norm(p, ord=2, axis=[1, 2]),
       *tf.linalg.normalize(p, axis=[1, 2]), tf.eye(n), tf.eye(3, n), tf.eye(2, batch_shape=[n]),
       tf.linalg.matvec(p, tf.placeholder(tf.float32, [None, 3])),
       tf.linalg.sqrtm(tf.placeholder(tf.float64, [5, None, 3])),
       tf.linalg.logm(tf.placeholder(tf.complex64, [None, 2, 2])), tf.linalg.expm(q),
       tf.linalg.expm(tf.placeholder(tf.float32, [None, 3, 3])),
       *tf.linalg.lu(tf.placeholder(tf.float64, [None, 3, None])),
       *tf.linalg.lu(q, output_idx_type=tf.int64),
       tf.linalg.tridiagonal_solve(tf.placeholder(tf.float32, [None, 3, 5]),
                                   tf.placeholder(tf.float32, [None, 5, 2])),
       tf.linalg.tridiagonal_matmul(tf.placeholder(tf.float32, [None, 3, 5]),
                                    tf.placeholder(tf.float32, [7, 5, None])),
       tf.linalg.lu_solve(tf.placeholder(tf.float32, [None, 3, 3]),
                          tf.placeholder(tf.int32, [None, 3]),
                          tf.placeholder(tf.float32, [None, 3, 2])),
       tf.linalg.lu_reconstruct(tf.placeholder(tf.float32, [2, 3, 3]),
                                tf.placeholder(tf.int32, [2, 3]))]
errors = []
for f in [lambda: tf.svd(tf.zeros([3])), lambda: tf.svd(tf.zeros([3, 3], tf.int32)),
          lambda: tf.linalg.lu(tf.zeros([3, 4])), lambda: tf.linalg.logm(tf.zeros([2, 2])),
          lambda: tf.linalg.sqrtm(tf.zeros([2, 3])),
          lambda: tf.linalg.tridiagonal_solve(tf.zeros([4, 5]), tf.zeros([5, 1])),
          lambda: tf.linalg.tridiagonal_solve(tf.zeros([3, 5]), tf.zeros([4, 1])),
          lambda: tf.linalg.tridiagonal_solve(tf.zeros([3, 5]), tf.zeros([5, 1]),
                                              diagonals_format="bad"),
          lambda: tf.linalg.lu_solve(tf.zeros([3, 3]), tf.zeros([3], tf.int32), tf.zeros([4, 1])),
          lambda: tf.linalg.lu_reconstruct(tf.zeros([3, 3]), tf.zeros([2, 3], tf.int32)),
          lambda: tf.eye(2.5), lambda: tf.linalg.pinv(tf.zeros([3]))]:
    try:
        f()
        errors.append("no error")
    except Exception as e:  # noqa: BLE001
        errors.append(type(e).__name__ + ": " + str(e).split(" for '")[0].split(" (op '")[0])
"""


def _report(tf_mod, code):
    env = {"tf": tf_mod, "np": np}
    exec(code, env)  # noqa: S102 - the shared graph-building script
    return env


def test_values_gradients_and_graphs_match_tensorflow(tf1):
    want = tf1(BUILD + """
import json
vals = tf.Session().run(outs + grads)
def out(v):
    v = np.asarray(v)
    return v.real.astype(np.float64).tolist() if v.dtype.kind in "fc" else v.tolist()
print(json.dumps({"types": [o.op.type for o in outs], "names": [o.name for o in outs],
                  "dtypes": [o.dtype.name for o in outs + grads],
                  "shapes": [str(o.shape) for o in outs + grads],
                  "vals": [out(v) for v in vals]}))
""")
    with tf.Graph().as_default():
        env = _report(tf, BUILD)
        outs, grads = env["outs"], env["grads"]
        vals = _run(*(outs + grads))
        assert [o.op.type for o in outs] == want["types"]
        assert [o.name for o in outs] == want["names"]
        assert [o.dtype.name for o in outs + grads] == want["dtypes"]
        assert [str(o.shape) for o in outs] == want["shapes"][:len(outs)]
        # TF sets each input's gradient to the input's static shape; scopeflow's tf.gradients
        # does not for the matrix 2-norm's computed-permutation Transpose: compatible only.
        for g, ref in zip(grads, want["shapes"][len(outs):]):
            assert g.shape.is_compatible_with(tf.TensorShape(eval(ref.replace("?", "None"))
                                                             if ref != "<unknown>" else None))
    for i, (got, ref) in enumerate(zip(vals, want["vals"])):
        got = np.real(np.asarray(got)).astype(np.float64)
        single = (outs + grads)[i].dtype.base_dtype in (tf.float32, tf.complex64)
        rtol, atol = (1e-5, 1e-5) if single else (1e-10, 1e-10)
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=str(i))


def test_static_shapes_and_errors_match_tensorflow(tf1):
    want = tf1(SHAPES + """
import json
print(json.dumps({"shapes": [str(t.shape) for t in sym], "dtypes": [t.dtype.name for t in sym],
                  "errors": errors}))
""")
    with tf.Graph().as_default():
        env = _report(tf, SHAPES)
        assert [str(t.shape) for t in env["sym"]] == want["shapes"]
        assert [t.dtype.name for t in env["sym"]] == want["dtypes"]
        assert env["errors"] == want["errors"]


EIGH_TRIDIAGONAL = """
rng = np.random.default_rng(5)
al = rng.standard_normal(5); be = rng.standard_normal(4)
A = tf.constant(al); B = tf.constant(be)
e_all = tf.linalg.eigh_tridiagonal(A, B)
e_i = tf.linalg.eigh_tridiagonal(A, B, select="i", select_range=[1, 3])
e_v = tf.linalg.eigh_tridiagonal(A, B, select="v", select_range=[-0.5, 1.0])
ev, vv = tf.linalg.eigh_tridiagonal(A, B, eigvals_only=False)
e32 = tf.linalg.eigh_tridiagonal(tf.constant(al.astype(np.float32)), tf.constant(be.astype(np.float32)))
ec = tf.linalg.eigh_tridiagonal(tf.constant(al.astype(np.complex128)), tf.constant(be + 1j * rng.standard_normal(4)))
one = tf.linalg.eigh_tridiagonal(tf.constant([2.0]), tf.constant(np.zeros(0, np.float32)))
eouts = [e_all, e_i, e_v, ev, tf.abs(vv), e32, ec, one]
"""


def test_eigh_tridiagonal_matches_tensorflow(tf1):
    """All, by index and by value; eigenvectors up to sign; float32, complex, n = 1."""
    want = tf1(EIGH_TRIDIAGONAL + """
import json
v = tf.Session().run(eouts)
print(json.dumps({"v": [np.real(np.asarray(x)).astype(float).tolist() for x in v],
                  "s": [str(o.shape) for o in eouts], "d": [o.dtype.name for o in eouts]}))
""")
    with tf.Graph().as_default():
        env = _report(tf, EIGH_TRIDIAGONAL)
        outs = env["eouts"]
        assert [str(o.shape) for o in outs] == want["s"]
        assert [o.dtype.name for o in outs] == want["d"]
        got = _run(*outs)
    for i, (g, w) in enumerate(zip(got, want["v"])):
        tol = 1e-5 if outs[i].dtype == tf.float32 else 1e-10
        np.testing.assert_allclose(np.real(g), w, rtol=tol, atol=tol, err_msg=str(i))
