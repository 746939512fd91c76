"""tf.linalg.LinearOperator and its subclasses: NumPy references, and one script run under
TF 2.21 and scopeflow comparing 29 batched operators' dense matrix, products, solves,
determinants, diagonals, traces, static shapes and hints, the errors of contradictory
hints, and gradients through a low-rank update's solve and determinant."""

from __future__ import annotations

import re

import numpy as np
import pytest

import scopeflow as tf

LO = tf.linalg


def _run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


def test_structured_operators_match_their_dense_numpy_matrices():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    d = rng.standard_normal(3) + 3
    u = rng.standard_normal((3, 2))
    x = rng.standard_normal((3, 2))
    dense_update = np.diag(d) + u @ np.diag([2.0, 0.5]) @ u.T
    with tf.Graph().as_default():
        cases = [(LO.LinearOperatorDiag(d), np.diag(d)),
                 (LO.LinearOperatorLowerTriangular(m), np.tril(m)),
                 (LO.LinearOperatorScaledIdentity(3, np.float64(2.5)), 2.5 * np.eye(3)),
                 (LO.LinearOperatorComposition([LO.LinearOperatorFullMatrix(m),
                                                LO.LinearOperatorDiag(d)]), m @ np.diag(d)),
                 (LO.LinearOperatorBlockDiag([LO.LinearOperatorFullMatrix(m[:2, :2]),
                                              LO.LinearOperatorDiag(d[:1])]),
                  np.block([[m[:2, :2], np.zeros((2, 1))], [np.zeros((1, 2)), d[:1, None]]])),
                 (LO.LinearOperatorKronecker([LO.LinearOperatorFullMatrix(m[:1, :1] + 0),
                                              LO.LinearOperatorFullMatrix(m)]), m[0, 0] * m),
                 (LO.LinearOperatorLowRankUpdate(LO.LinearOperatorDiag(d), u,
                                                 diag_update=np.array([2.0, 0.5])), dense_update),
                 (LO.LinearOperatorInversion(LO.LinearOperatorFullMatrix(m)), np.linalg.inv(m)),
                 (LO.LinearOperatorAdjoint(LO.LinearOperatorFullMatrix(m)), m.T),
                 (LO.LinearOperatorBlockLowerTriangular(
                     [[LO.LinearOperatorFullMatrix(m[:2, :2])],
                      [LO.LinearOperatorFullMatrix(u[:1]), LO.LinearOperatorDiag(d[:1])]]),
                  np.block([[m[:2, :2], np.zeros((2, 1))], [u[:1], d[:1, None]]])),
                 (LO.LinearOperatorPermutation(np.array([2, 0, 1], np.int32),
                                               dtype=tf.float64), np.eye(3)[[2, 0, 1]]),
                 (LO.LinearOperatorHouseholder(u[:, 0]),
                  np.eye(3) - 2 * np.outer(u[:, 0], u[:, 0]) / (u[:, 0] @ u[:, 0]))]
        fetched = []
        for op, _ in cases:
            fetched += [op.to_dense(), op.matmul(x), op.solve(x), op.determinant(),
                        op.log_abs_determinant(), op.trace()]
        got = _run(*fetched)
    for i, (_, ref) in enumerate(cases):
        dense, mm, solve, det, lad, trace = got[6 * i:6 * i + 6]
        np.testing.assert_allclose(dense, ref, atol=1e-12, err_msg=str(i))
        np.testing.assert_allclose(mm, ref @ x, atol=1e-12, err_msg=str(i))
        np.testing.assert_allclose(solve, np.linalg.solve(ref, x), rtol=1e-10, err_msg=str(i))
        np.testing.assert_allclose(det, np.linalg.det(ref), rtol=1e-10, err_msg=str(i))
        np.testing.assert_allclose(lad, np.linalg.slogdet(ref)[1], rtol=1e-10, atol=1e-12,
                                   err_msg=str(i))
        np.testing.assert_allclose(trace, np.trace(ref), rtol=1e-10, err_msg=str(i))


def test_hints_and_errors():
    with tf.Graph().as_default():
        zeros = LO.LinearOperatorZeros(2)
        with pytest.raises(NotImplementedError, match="expected to be singular"):
            zeros.solve(np.ones((2, 1), np.float32))
        with pytest.raises(ValueError, match="always self adjoint"):
            LO.LinearOperatorDiag([1.0, 2.0], is_self_adjoint=False)
        with pytest.raises(ValueError, match="always non-singular"):
            LO.LinearOperator(tf.float32, is_positive_definite=True, is_non_singular=False)
        ident = LO.LinearOperatorIdentity(3)
        assert ident.inverse() is ident and ident.adjoint() is ident
        assert LO.LinearOperatorFullMatrix(np.ones((2, 3))).is_square is False


SCRIPT = """
rng = np.random.default_rng(3)
def r(*s):
    return rng.standard_normal(s)
m = r(2, 3, 3) + 3 * np.eye(3)
spd = m @ np.swapaxes(m, -1, -2) + np.eye(3)
dg = r(2, 3) + 3.0
x = r(2, 3, 2); xv = r(2, 3)
full = tf.linalg.LinearOperatorFullMatrix(m)
ops = {
  "full": full,
  "full_spd": tf.linalg.LinearOperatorFullMatrix(spd, is_self_adjoint=True, is_positive_definite=True),
  "rect": tf.linalg.LinearOperatorFullMatrix(r(2, 3, 4)),
  "diag": tf.linalg.LinearOperatorDiag(dg),
  "ident": tf.linalg.LinearOperatorIdentity(3, dtype=tf.float64),
  "ident_b": tf.linalg.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64),
  "scaled": tf.linalg.LinearOperatorScaledIdentity(3, np.array([2.0, -1.5])),
  "tril": tf.linalg.LinearOperatorLowerTriangular(m),
  "zeros": tf.linalg.LinearOperatorZeros(3, batch_shape=[2], dtype=tf.float64),
  "zeros_rect": tf.linalg.LinearOperatorZeros(3, 4, dtype=tf.float64, is_square=False, is_self_adjoint=False),
  "comp": tf.linalg.LinearOperatorComposition([full, tf.linalg.LinearOperatorDiag(dg)]),
  "adj": tf.linalg.LinearOperatorAdjoint(full),
  "inv": tf.linalg.LinearOperatorInversion(full),
  "block": tf.linalg.LinearOperatorBlockDiag([full, tf.linalg.LinearOperatorDiag(dg[:, :2])]),
  "kron": tf.linalg.LinearOperatorKronecker([tf.linalg.LinearOperatorFullMatrix(m[:, :2, :2]),
                                             tf.linalg.LinearOperatorFullMatrix(m[0, 1:, 1:])]),
  "lowrank": tf.linalg.LinearOperatorLowRankUpdate(tf.linalg.LinearOperatorDiag(dg), r(2, 3, 2),
                                                   diag_update=np.array([1.5, 2.0])),
  "lowrank_uv": tf.linalg.LinearOperatorLowRankUpdate(full, r(2, 3, 1), v=r(2, 3, 1)),
  "lowrank_spd": tf.linalg.LinearOperatorLowRankUpdate(
      tf.linalg.LinearOperatorDiag(dg, is_positive_definite=True), r(3, 2)),
  "perm": tf.linalg.LinearOperatorPermutation(np.array([[2, 0, 1], [0, 2, 1]], np.int32), dtype=tf.float64),
  "house": tf.linalg.LinearOperatorHouseholder(r(2, 3)),
  "toeplitz": tf.linalg.LinearOperatorToeplitz(r(2, 3) + np.array([4.0, 0, 0]), r(2, 3)),
  "tridiag": tf.linalg.LinearOperatorTridiag(r(2, 3, 3) + np.array([0, 5.0, 0])[:, None]),
  "tridiag_seq": tf.linalg.LinearOperatorTridiag([r(2, 3), r(2, 3) + 5, r(2, 3)], diagonals_format="sequence"),
  "tridiag_mat": tf.linalg.LinearOperatorTridiag(m, diagonals_format="matrix"),
  "blt": tf.linalg.LinearOperatorBlockLowerTriangular(
      [[full], [tf.linalg.LinearOperatorFullMatrix(r(2, 2, 3)), tf.linalg.LinearOperatorDiag(dg[:, :2])]]),
}
ops["adj_H"] = ops["tril"].H
ops["inv_m"] = ops["diag"].inverse()
ops["chol"] = ops["full_spd"].cholesky()
ops["matmul_op"] = ops["full"].matmul(ops["diag"])
info = {}
tensors = []
for k, op in ops.items():
    d = {"shape": str(op.shape), "batch": str(op.batch_shape), "dom": str(op.domain_dimension),
         "rng": str(op.range_dimension), "rank": op.tensor_rank, "sq": op.is_square,
         "sa": op.is_self_adjoint, "pd": op.is_positive_definite, "ns": op.is_non_singular,
         "dtype": op.dtype.name, "type": type(op).__name__}
    n = op.domain_dimension if isinstance(op.domain_dimension, int) else op.domain_dimension.value
    mm = op.range_dimension if isinstance(op.range_dimension, int) else op.range_dimension.value
    xs = r(2, n, 2)
    ts = {"dense": op.to_dense(), "mm": op.matmul(xs), "mmadj": op.matmul(r(2, mm, 2), adjoint=True),
          "mmarg": op.matmul(r(2, 2, n), adjoint_arg=True), "mv": op.matvec(r(2, n)),
          "shape_t": op.shape_tensor(),
          "diag": op.diag_part(), "trace": op.trace()}
    if not k.startswith("zeros"):
        ts["add"] = op.add_to_tensor(r(2, mm, n))
    if op.is_square is not False:
        ts["det"] = op.determinant(); ts["lad"] = op.log_abs_determinant()
    if op.is_square is not False and op.is_non_singular is not False:
        ts["solve"] = op.solve(r(2, n, 2)); ts["solve_adj"] = op.solve(r(2, n, 2), adjoint=True)
        ts["solvevec"] = op.solvevec(r(2, n))
    d["keys"] = sorted(ts)
    d["static"] = {kk: str(v.shape) for kk, v in ts.items()}
    info[k] = d
    tensors += [ts[kk] for kk in sorted(ts)]
errs = []
for f in [lambda: ops["zeros"].solve(x), lambda: ops["rect"].determinant(),
          lambda: tf.linalg.LinearOperatorDiag(dg, is_self_adjoint=False),
          lambda: tf.linalg.LinearOperatorIdentity(3, is_non_singular=False),
          lambda: tf.linalg.LinearOperatorInversion(ops["zeros"]),
          lambda: ops["rect"].inverse(), lambda: full.cholesky(),
          lambda: full.matmul(x.astype(np.float32)),
          lambda: tf.linalg.LinearOperatorFullMatrix(np.ones((2, 2), np.int32)),
          lambda: tf.linalg.LinearOperatorFullMatrix(np.ones(3)),
          lambda: tf.linalg.LinearOperatorComposition([full, tf.linalg.LinearOperatorDiag(dg.astype(np.float32))]),
          lambda: tf.linalg.LinearOperatorFullMatrix(m, is_positive_definite=True, is_non_singular=False)]:
    try:
        f(); errs.append("no error")
    except Exception as e:
        errs.append(type(e).__name__ + ": " + str(e))
# unknown dims
p = tf.placeholder(tf.float32, [None, 3, None]); pd = tf.placeholder(tf.float32, [None, 4])
unk = [tf.linalg.LinearOperatorFullMatrix(p), tf.linalg.LinearOperatorDiag(pd),
       tf.linalg.LinearOperatorLowerTriangular(tf.placeholder(tf.float32))]
unk_info = [[str(o.shape), str(o.batch_shape), o.is_square, o.tensor_rank,
             str(o.to_dense().shape), str(o.matmul(tf.placeholder(tf.float32, [None, None, 2])).shape)]
            for o in unk]
gx = tf.constant(m)
gop = tf.linalg.LinearOperatorLowRankUpdate(tf.linalg.LinearOperatorFullMatrix(gx), r(2, 3, 1))
grads = tf.gradients(tf.reduce_sum(gop.solve(x)) + tf.reduce_sum(gop.log_abs_determinant())
                     + tf.reduce_sum(tf.linalg.LinearOperatorLowerTriangular(gx).solve(x)), gx)
"""


def _normalise(text):
    """Error texts without the graph's name counters (``matmul_40`` vs ``matmul_10``)."""
    return re.sub(r"_\d+(?=[/:])", "", text)


def test_operators_match_tensorflow(tf1):
    want = tf1(SCRIPT + """
import json
vals = tf.Session().run(tensors + grads)
print(json.dumps({"info": info, "errs": errs, "unk": unk_info,
                  "vals": [np.asarray(v, np.float64).tolist() for v in vals]}))
""")
    with tf.Graph().as_default():
        env = {"tf": tf, "np": np}
        exec(SCRIPT, env)  # noqa: S102 - the shared graph-building script
        vals = _run(*(env["tensors"] + env["grads"]))
    assert env["info"] == want["info"]
    assert [_normalise(e) for e in env["errs"]] == [_normalise(e) for e in want["errs"]]
    assert env["unk_info"] == [list(u) for u in want["unk"]]
    names = [(k, kk) for k, d in env["info"].items() for kk in d["keys"]] + [("grad", "")]
    assert len(vals) == len(want["vals"])
    for name, got, ref in zip(names, vals, want["vals"]):
        np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=1e-10, atol=1e-10,
                                   err_msg=str(name))
