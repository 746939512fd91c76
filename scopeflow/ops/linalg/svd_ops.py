"""The singular value decomposition (the Svd op, TF's ``(s, u, v)`` with ``v`` itself, not
``v^H``) and what TF builds on it: ``pinv``, ``matrix_rank`` and the matrix 2-norm.

The kernel is LAPACK's gesdd through ``numpy.linalg.svd``; singular vectors are unique only
up to the phases LAPACK picks, as TF's. The gradient is TF's ``_SvdGrad`` (Giles; Townsend
for the thin case), which is NaN at repeated singular values, as TF's is.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import REGISTRY, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import expand_dims
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    adjoint,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    matrix_shape,
    matrix_transpose,
)
from scopeflow.ops.linalg.solve_ops import (
    adjoint_np,
    lapack_call,
    nan_where,
    nonfinite_matrices,
)
from scopeflow.ops.math.arithmetic_ops import add, cast, greater, multiply, subtract, truediv
from scopeflow.ops.math.elementwise_ops import reciprocal, square
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import maximum, reduce_max, reduce_sum, where_v2, zeros_like
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["svd", "pinv", "matrix_rank"]

_linalg_dtype = _same_dtype_in(LINALG_TYPES, "input")


def _svd_shape(x, *, compute_uv, full_matrices):
    parts = matrix_shape(x)
    if parts is None:
        return [TensorShape(None)] * 3
    batch, m, n = parts
    k = None if m is None or n is None else min(m, n)
    s = TensorShape(batch + (k,))
    if not compute_uv:
        return [s, TensorShape([0]), TensorShape([0])]
    if full_matrices:
        return [s, TensorShape(batch + (m, m)), TensorShape(batch + (n, n))]
    return [s, TensorShape(batch + (m, k)), TensorShape(batch + (n, k))]


def _svd_dtype(t, **attrs):
    t = _linalg_dtype(t)
    return [t, t, t]


def _svd_kernel(x, *, compute_uv, full_matrices):
    """A matrix holding NaN/Inf gives all-NaN ``s``, ``u``, ``v`` (TF's Eigen SVD); LAPACK
    would fail to converge, so such matrices are decomposed as zeros and then masked."""
    bad = nonfinite_matrices(x)
    if bad is None:
        return _svd_finite(x, compute_uv=compute_uv, full_matrices=full_matrices)
    work = np.where(bad[..., None, None], np.zeros((), x.dtype), x)
    s, u, v = _svd_finite(work, compute_uv=compute_uv, full_matrices=full_matrices)
    if not compute_uv:
        return nan_where(bad, s)[0], u, v
    return tuple(nan_where(bad, s, u, v))


def _svd_finite(x, *, compute_uv, full_matrices):
    if not compute_uv:
        s = lapack_call(lambda m: np.linalg.svd(m, compute_uv=False), x) if x.size else \
            np.zeros(x.shape[:-2] + (min(x.shape[-2:]),), x.real.dtype)
        empty = np.zeros([0], x.dtype)
        return s.astype(x.dtype), empty, empty
    u, s, vh = lapack_call(lambda m: tuple(np.linalg.svd(m, full_matrices=full_matrices)), x)
    return (s.astype(x.dtype), u.astype(x.dtype, copy=False),
            adjoint_np(vh).astype(x.dtype, copy=False))


svd_op = OpDef("Svd", shape=_svd_shape, dtype=_svd_dtype, kernel=_svd_kernel, num_outputs=3,
               attrs={"compute_uv": True, "full_matrices": False}, input_names=("input",))


def _safe_reciprocal(x, epsilon=1e-20):
    """TF's ``x / (x² + ε)``: a finite stand-in for ``1/x`` at ``x = 0``."""
    return multiply(x, reciprocal(add(multiply(x, x), epsilon)))


@svd_op.def_grad
def _svd_grad(op, grad_s, grad_u, grad_v):
    """TF's ``_SvdGrad``: for ``m > n`` the rule for ``A^H`` (u and v swapped), transposed
    back; ``full_matrices`` only when ``|m - n| <= 1``; unknown rows/cols raise."""
    a = op.inputs[0]
    grad_s = cast(grad_s, a.dtype)
    grad_s_mat = matrix_diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = svd_op.bind(a, compute_uv=True, full_matrices=False, name="Svd")
        return [matmul(u, matmul(grad_s_mat, v, adjoint_b=True))]
    full = op.get_attr("full_matrices")
    m, n = _svd_inner_dims(a, grad_u, grad_v)
    s, u, v = op.outputs
    s = cast(s, a.dtype)
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    with control_dependencies([grad_s, grad_u, grad_v]):
        if full and abs(m - n) > 1:
            raise NotImplementedError(
                "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is "
                f"True. Received: m={m} and n={n} from op input={a} with shape={a.shape}.")
        grad = _svd_grad_not_tall(a, s, u, v, grad_s_mat, grad_u, grad_v, m, n, full)
        if use_adjoint:
            grad = matrix_transpose(grad, conjugate=True)
        return [grad]


def _svd_inner_dims(a, grad_u, grad_v):
    """``a``'s rows and columns, from the gradients of ``u`` and ``v`` where ``a``'s
    static shape lacks them: the rule needs both statically."""
    dims = a.shape.as_list() if a.shape.ndims is not None else None
    m = dims[-2] if dims else None
    n = dims[-1] if dims else None
    if m is None and grad_u.shape.ndims is not None:
        m = grad_u.shape.as_list()[-2]
    if n is None and grad_v.shape.ndims is not None:
        n = grad_v.shape.as_list()[-2]
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    return m, n


def _svd_grad_not_tall(a, s, u, v, grad_s_mat, grad_u, grad_v, m, n, full):
    """TF's ``_SvdGrad`` body for an ``m x n`` matrix with ``m <= n`` (``a`` itself, or its
    adjoint with the factors and their gradients swapped by the caller)."""
    s_mat = matrix_diag(s)
    s2 = square(s)
    f = matrix_set_diag(_safe_reciprocal(subtract(expand_dims(s2, -2),
                                                  expand_dims(s2, -1))), zeros_like(s))
    s_inv_mat = matrix_diag(_safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u = multiply(f, u_gu)
    f_v = multiply(f, v_gv)
    term1_nouv = add(add(grad_s_mat, matmul(add(f_u, adjoint(f_u)), s_mat)),
                     matmul(s_mat, add(f_v, adjoint(f_v))))
    grad = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = matrix_transpose(grad_v1, conjugate=True)
        term2_nous = subtract(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full:
            v2 = v[..., :, m:n]
            v1t_gv2 = matmul(v1, grad_v[..., :, m:n], adjoint_a=True)
            term2_nous = subtract(term2_nous, matmul(v1t_gv2, v2, adjoint_b=True))
        grad = add(grad, matmul(matmul(u, s_inv_mat), term2_nous))
    if a.dtype.is_complex:
        diag_vgv = matrix_diag(matrix_diag_part(v_gv))
        term3 = matmul(s_inv_mat, subtract(adjoint(diag_vgv), diag_vgv))
        grad = add(grad, multiply(0.5, matmul(u, matmul(term3, v1, adjoint_b=True))))
    return grad

def real_part(x):
    """TF's ``math_ops.real`` (the ``Real`` op, looked up by type: tf.math's complex ops
    live above this module); a real tensor is returned as it is."""
    if not x.dtype.is_complex:
        return x
    real_dtype = dtypes.float32 if x.dtype.base_dtype == dtypes.complex64 else dtypes.float64
    if "Real" not in REGISTRY:
        raise NotImplementedError("tf.linalg.svd of complex matrices needs tf.math.real")
    with name_scope(None, "Real", [x]) as scope:
        return REGISTRY["Real"].bind(x, Tout=real_dtype, name=scope)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``(s, u, v)`` with ``tensor = u @ diag(s) @ adjoint(v)`` (or ``s`` alone without
    ``compute_uv``): singular values descending, real even for complex input."""
    s, u, v = svd_op.bind(tensor, compute_uv=bool(compute_uv),
                          full_matrices=bool(full_matrices), name=name)
    if s.dtype.is_complex:
        s = real_part(s)
    return (s, u, v) if compute_uv else s


def _static_or_dynamic_dim(a, axis):
    dims = a.shape.as_list() if a.shape.ndims is not None else None
    if dims is not None and dims[axis] is not None:
        return dims[axis]
    return shape_of(a)[axis]


def _validate_matrix(a):
    if not a.dtype.is_floating and not a.dtype.is_complex:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.ndims is not None and a.shape.ndims < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.ndims}).")


def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The number of singular values above ``tol`` (default ``eps * max(m, n) * s_max``),
    as int32."""
    with name_scope(name or "matrix_rank", None, [a]):
        a = convert_to_tensor(a, name="a", dtype_hint=dtypes.float32)
        _validate_matrix(a)
        s = svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape.as_list() if a.shape.ndims is not None else None
            if dims is not None and None not in dims[-2:]:
                m = int(np.max(dims[-2:]))
            else:
                m = reduce_max(shape_of(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = multiply(multiply(eps, cast(m, a.dtype)),
                           reduce_max(s, axis=-1, keepdims=True))
        return reduce_sum(cast(greater(s, tol), dtypes.int32), axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    ``rcond * s_max`` (default ``10 * max(m, n) * eps``) count as zero."""
    with name_scope(name or "pinv", None, [a]):
        a = convert_to_tensor(a, name="a")
        _validate_matrix(a)
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            rows, cols = _static_or_dynamic_dim(a, -2), _static_or_dynamic_dim(a, -1)
            if isinstance(rows, int) and isinstance(cols, int):
                most = float(max(rows, cols))
            else:
                most = cast(maximum(rows, cols), a.dtype)
            rcond = multiply(10.0 * np.finfo(dtype).eps, most) \
                if isinstance(most, Tensor) else 10.0 * most * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype.base_dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = multiply(rcond, reduce_max(s, axis=-1))
        s = where_v2(greater(s, expand_dims(cutoff, -1)), s, np.array(np.inf, dtype))
        out = matmul(truediv(v, expand_dims(s, -2)), u, adjoint_b=True)
        parts = matrix_shape(a.shape)
        if parts is not None:
            out.set_shape(TensorShape(parts[0] + (parts[2], parts[1])))
        return out
