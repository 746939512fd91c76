"""Tridiagonal systems: the TridiagonalSolve and TridiagonalMatMul ops with TF's gradients,
and ``tridiagonal_solve``/``tridiagonal_matmul`` with TF's three diagonal formats
(``compact``: ``[..., 3, M]`` rows superdiagonal, diagonal, subdiagonal, the superdiagonal's
last and the subdiagonal's first entry unused; ``sequence``: the three as a list;
``matrix``: the dense ``[..., M, M]``).

The solve kernel assembles the dense band and solves it with LAPACK's pivoted LU, batched
(a singular system gives NaNs, as TF's CPU kernel does); the product is three shifted
elementwise products. ``eigh_tridiagonal`` goes through the dense band's eigensolver.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.indexing_ops import boolean_mask
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.shape_ops import expand_dims, rank, squeeze
from scopeflow.ops.array.slicing_ops import concat, pad
from scopeflow.ops.constant_op import constant
from scopeflow.ops.linalg.decomposition_ops import self_adjoint_eig, self_adjoint_eigvals
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    matrix_diag,
    matrix_diag_part,
    matrix_transpose,
)
from scopeflow.ops.linalg.svd_ops import real_part
from scopeflow.ops.math.arithmetic_ops import (
    add,
    conj,
    greater,
    less_equal,
    logical_and,
    multiply,
    negative,
)
from scopeflow.ops.math.reduction_ops import reduce_sum, zeros
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["tridiagonal_solve", "tridiagonal_matmul", "eigh_tridiagonal"]

_dtype = _same_dtype_in(LINALG_TYPES, "T")


def _dense(diags):
    """``[..., M, M]`` from compact ``[..., 3, M]`` diagonals."""
    m = diags.shape[-1]
    out = np.zeros(diags.shape[:-2] + (m, m), diags.dtype)
    i = np.arange(m)
    out[..., i, i] = diags[..., 1, :]
    out[..., i[:-1], i[1:]] = diags[..., 0, :-1]
    out[..., i[1:], i[:-1]] = diags[..., 2, 1:]
    return out


# ── TridiagonalSolve ─────────────────────────────────────────────────────────────────
def _solve_shape(diags, rhs, *, partial_pivoting, perturb_singular):
    d = diags.as_tuple()
    if d is not None:
        if len(d) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(d)}")
        if d[-2] is not None and d[-2] != 3:
            raise ValueError(f"Dimension must be 3 but is {d[-2]}")
    return rhs if rhs.as_tuple() is not None else TensorShape(None)


def _solve_dtype(d, r, **attrs):
    _dtype(d)
    return _dtype(r)


def _solve_kernel(diags, rhs, *, partial_pivoting, perturb_singular):
    dense = _dense(diags)
    work = np.float32 if dense.dtype == np.float16 else dense.dtype
    a, b = dense.astype(work), rhs.astype(work)
    try:
        return np.linalg.solve(a, b).astype(rhs.dtype)
    except np.linalg.LinAlgError:
        pass
    flat_a = a.reshape((-1,) + a.shape[-2:])
    flat_b = np.broadcast_to(b, a.shape[:-2] + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    out = np.empty(flat_b.shape, work)
    for i in range(flat_a.shape[0]):
        try:
            out[i] = np.linalg.solve(flat_a[i], flat_b[i])
        except np.linalg.LinAlgError:
            out[i] = np.nan
    return out.reshape(rhs.shape).astype(rhs.dtype)


tridiagonal_solve_op = OpDef("TridiagonalSolve", shape=_solve_shape, dtype=_solve_dtype,
                             kernel=_solve_kernel,
                             attrs={"partial_pivoting": True, "perturb_singular": False},
                             input_names=("diagonals", "rhs"))


def _transpose_tridiagonal(diags):
    """The compact diagonals of the transposed matrix (TF builds them with concat when
    the shape is known, else with pad)."""
    diag = diags[..., 1, :]
    if diags.shape.is_fully_defined():
        z = zeros(diags.shape.as_list()[:-2] + [1], dtype=diags.dtype)
        superdiag = concat((diags[..., 2, 1:], z), axis=-1)
        subdiag = concat((z, diags[..., 0, :-1]), axis=-1)
    else:
        lead = zeros((rank(diags) - 2, 2), dtype="int32")
        superdiag = pad(diags[..., 2, 1:], concat((lead, constant([[0, 1]])), axis=0))
        subdiag = pad(diags[..., 0, :-1], concat((lead, constant([[1, 0]])), axis=0))
    return stack([superdiag, diag, subdiag], axis=-2)


def _shifted(y, up):
    """``y`` moved one row up (``up``) or down along the next-to-last dim, zero-filled."""
    lead = zeros((rank(y) - 2, 2), dtype="int32")
    if up:
        return pad(y[..., 1:, :], concat([lead, constant([[0, 1], [0, 0]])], axis=0))
    return pad(y[..., :-1, :], concat([lead, constant([[1, 0], [0, 0]])], axis=0))


def _matmul_three_diagonals(x, y_tr):
    """The three diagonals of ``x @ y_tr^T`` without forming it (TF's helper)."""
    diag = reduce_sum(multiply(x, y_tr), axis=-1)
    if y_tr.shape.is_fully_defined():
        z = zeros(x.shape.as_list()[:-2] + [1, x.shape.as_list()[-1]], dtype=x.dtype)
        superdiag = reduce_sum(multiply(x, concat((y_tr[..., 1:, :], z), axis=-2)), axis=-1)
        subdiag = reduce_sum(multiply(x, concat((z, y_tr[..., :-1, :]), axis=-2)), axis=-1)
    else:
        superdiag = reduce_sum(multiply(x, _shifted(y_tr, True)), axis=-1)
        subdiag = reduce_sum(multiply(x, _shifted(y_tr, False)), axis=-1)
    return stack([superdiag, diag, subdiag], axis=-2)


@tridiagonal_solve_op.def_grad
def _tridiagonal_solve_grad(op, grad):
    """TF's: ``drhs = solve(A^T, grad)``, ``ddiags = -diags3(drhs @ x^T)``."""
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = tridiagonal_solve_op.bind(
        _transpose_tridiagonal(diags), grad,
        partial_pivoting=op.get_attr("partial_pivoting"),
        perturb_singular=op.get_attr("perturb_singular"), name="TridiagonalSolve")
    return [negative(_matmul_three_diagonals(grad_rhs, x)), grad_rhs]


def _compact_solve(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting,
                   perturb_singular, name):
    d_rank, r_rank = diagonals.shape.ndims, rhs.shape.ndims
    if d_rank:
        if d_rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {d_rank}")
        if r_rank and r_rank not in (d_rank, d_rank - 1):
            raise ValueError(f"Expected the rank of rhs to be {d_rank - 1} or {d_rank}, "
                             f"got {r_rank}")
        if r_rank and not diagonals.shape[:-2].is_compatible_with(rhs.shape[:d_rank - 2]):
            raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and "
                             f"{rhs.shape[:d_rank - 2]} are incompatible")
    d_dims = diagonals.shape.as_list() if d_rank else None
    if d_dims and d_dims[-2] and d_dims[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {d_dims[-2]}")

    def check_sizes(r):
        r_dims = r.shape.as_list() if r.shape.ndims else None
        if d_dims and r_dims and d_dims[-1] and r_dims[-2] and d_dims[-1] != r_dims[-2]:
            raise ValueError("Expected number of left-hand sided and right-hand sides to be "
                             f"equal, got {d_dims[-1]} and {r_dims[-2]}")

    attrs = {"partial_pivoting": bool(partial_pivoting),
             "perturb_singular": bool(perturb_singular)}
    if r_rank and d_rank and r_rank == d_rank - 1:
        if conjugate_rhs:
            rhs = conj(rhs)
        rhs = expand_dims(rhs, -1)
        check_sizes(rhs)
        return squeeze(tridiagonal_solve_op.bind(diagonals, rhs, name=name, **attrs), -1)
    if transpose_rhs:
        rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = conj(rhs)
    check_sizes(rhs)
    return tridiagonal_solve_op.bind(diagonals, rhs, name=name, **attrs)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False) -> Tensor:
    """Solves the tridiagonal systems ``A x = rhs`` (``rhs`` a matrix or, one rank lower
    than ``diagonals``, a vector)."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals)
        rhs = convert_to_tensor(rhs, dtype=diagonals.dtype.base_dtype)
    elif diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        if (not subdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])
                or not superdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])):
            raise ValueError("Tensors representing the three diagonals must have the same "
                             "shape,except for the last dimension, got "
                             f"{subdiag.shape}, {maindiag.shape}, {superdiag.shape}")
        m = maindiag.shape.as_list()[-1]

        def pad_if_necessary(t, what, last):
            n = t.shape.as_list()[-1]
            if not n or n == m:
                return t
            if n == m - 1:
                return pad(t, [[0, 0]] * (t.shape.ndims - 1) + [last])
            raise ValueError(f"Expected {what} to be have length {m} or {m - 1}, got {n}.")

        subdiag = pad_if_necessary(subdiag, "subdiagonal", [1, 0])
        superdiag = pad_if_necessary(superdiag, "superdiagonal", [0, 1])
        diagonals = stack((superdiag, maindiag, subdiag), axis=-2)
        rhs = convert_to_tensor(rhs, dtype=diagonals.dtype.base_dtype)
    elif diagonals_format == "matrix":
        diagonals = convert_to_tensor(diagonals)
        dims = diagonals.shape.as_list() if diagonals.shape.ndims else [None, None]
        if dims[-1] and dims[-2] and dims[-1] != dims[-2]:
            raise ValueError("Expected last two dimensions of diagonals to be same, got "
                             f"{dims[-1]} and {dims[-2]}")
        diagonals = matrix_diag_part(diagonals, k=(-1, 1), padding_value=0.0,
                                     align="LEFT_RIGHT")
        rhs = convert_to_tensor(rhs, dtype=diagonals.dtype.base_dtype)
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    return _compact_solve(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting,
                          perturb_singular, name)


# ── TridiagonalMatMul ────────────────────────────────────────────────────────────────
def _matmul_shape(superdiag, maindiag, subdiag, rhs):
    r = rhs.as_tuple()
    if r is not None and len(r) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(r)}")
    for d in (superdiag, maindiag, subdiag):
        t = d.as_tuple()
        if t is not None and len(t) >= 2 and t[-2] is not None and t[-2] != 1:
            raise ValueError(f"Dimension must be 1 but is {t[-2]}")
    return rhs


def _matmul_dtype(a, b, c, r):
    for t in (a, b, c):
        _dtype(t)
    return _dtype(r)


def _matmul_kernel(superdiag, maindiag, subdiag, rhs):
    sup = np.swapaxes(superdiag, -1, -2)
    mid = np.swapaxes(maindiag, -1, -2)
    sub = np.swapaxes(subdiag, -1, -2)
    out = mid * rhs
    out[..., :-1, :] += sup[..., :-1, :] * rhs[..., 1:, :]
    out[..., 1:, :] += sub[..., 1:, :] * rhs[..., :-1, :]
    return out.astype(rhs.dtype, copy=False)


tridiagonal_matmul_op = OpDef("TridiagonalMatMul", shape=_matmul_shape, dtype=_matmul_dtype,
                              kernel=_matmul_kernel,
                              input_names=("superdiag", "maindiag", "subdiag", "rhs"))


@tridiagonal_matmul_op.def_grad
def _tridiagonal_matmul_grad(op, grad):
    """TF's: each diagonal's gradient the row sums of ``grad`` times the (shifted)
    conjugate ``rhs``; ``rhs``'s the transposed product."""
    sup_c = matrix_transpose(op.inputs[0], conjugate=True)
    main_c = matrix_transpose(op.inputs[1], conjugate=True)
    sub_c = matrix_transpose(op.inputs[2], conjugate=True)
    rhs_c = conj(op.inputs[3])
    sup_g = reduce_sum(multiply(_shifted(rhs_c, True), grad), axis=-1)
    main_g = reduce_sum(multiply(rhs_c, grad), axis=-1)
    sub_g = reduce_sum(multiply(_shifted(rhs_c, False), grad), axis=-1)
    rhs_g = add(add(_shifted(multiply(sup_c, grad), False), multiply(main_c, grad)),
                _shifted(multiply(sub_c, grad), True))
    return [expand_dims(sup_g, -2), expand_dims(main_g, -2), expand_dims(sub_g, -2), rhs_g]


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """``A @ rhs`` for the tridiagonal ``A`` given by its diagonals."""
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals)
        superdiag, maindiag, subdiag = (diagonals[..., 0, :], diagonals[..., 1, :],
                                        diagonals[..., 2, :])
    elif diagonals_format == "sequence":
        superdiag, maindiag, subdiag = diagonals
    elif diagonals_format == "matrix":
        diagonals = convert_to_tensor(diagonals)
        dims = diagonals.shape.as_list() if diagonals.shape.ndims else [None, None]
        if dims[-1] and dims[-2] and dims[-1] != dims[-2]:
            raise ValueError("Expected last two dimensions of diagonals to be same, got "
                             f"{dims[-1]} and {dims[-2]}")
        diags = matrix_diag_part(diagonals, k=(-1, 1), padding_value=0.0, align="LEFT_RIGHT")
        superdiag, maindiag, subdiag = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    superdiag = expand_dims(superdiag, -2)
    maindiag = expand_dims(maindiag, -2)
    subdiag = expand_dims(subdiag, -2)
    return tridiagonal_matmul_op.bind(superdiag, maindiag, subdiag, rhs, name=name)


# ── eigh_tridiagonal (composite) ─────────────────────────────────────────────────────
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """Eigenvalues (ascending; and with ``eigvals_only=False`` the eigenvectors as
    columns) of the Hermitian tridiagonal matrix with diagonal ``alpha`` and
    subdiagonal ``beta``. ``select``: ``'a'`` all, ``'i'`` the indices
    ``select_range[0]..select_range[1]``, ``'v'`` those in ``(select_range[0],
    select_range[1]]``.

    TF bisects Sturm sequences and inverse-iterates; here the dense band goes through
    SelfAdjointEigV2 (LAPACK), which agrees within TF's tolerance (eigenvectors up to
    their signs)."""
    with name_scope(name or "eigh_tridiagonal", None, [alpha, beta]):
        alpha = convert_to_tensor(alpha, name="alpha")
        n = alpha.shape.as_list()[0] if alpha.shape.ndims else None
        if n is not None and n <= 1:
            return real_part(alpha)
        beta = convert_to_tensor(beta, name="beta")
        if alpha.dtype != beta.dtype:
            raise ValueError("'alpha' and 'beta' must have the same type.")
        if select not in ("a", "i", "v"):
            raise ValueError(f"Invalid select: {select!r}; expected one of 'a', 'i', 'v'.")
        if select != "a" and select_range is None:
            raise ValueError(f"select_range is required for select={select!r}.")
        dense = add(matrix_diag(alpha), add(matrix_diag(beta, k=-1),
                                            matrix_diag(conj(beta), k=1)))
        if eigvals_only:
            e = self_adjoint_eigvals(dense)
            v = None
        else:
            e, v = self_adjoint_eig(dense)
        if select == "i":
            lo, hi = select_range
            e = e[lo:hi + 1]
            v = None if v is None else v[:, lo:hi + 1]
        elif select == "v":
            lo, hi = select_range
            keep = logical_and(greater(e, lo), less_equal(e, hi))
            e_kept = boolean_mask(e, keep)
            v = None if v is None else boolean_mask(v, keep, axis=1)
            e = e_kept
        return e if eigvals_only else (e, v)
