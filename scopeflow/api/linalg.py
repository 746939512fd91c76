"""``tf.linalg``: the linear-algebra ops under their ``tf.linalg.*`` names (TF's aliases
are the same functions: ``tf.linalg.inv`` is ``tf.matrix_inverse``)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.array.grid_ops import einsum
from scopeflow.ops.linalg import (
    adjoint,
    cholesky,
    cholesky_solve,
    cross,
    eigh_tridiagonal,
    expm,
    eye,
    logdet,
    logm,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_band_part,
    matrix_determinant,
    matrix_diag,
    matrix_diag_part,
    matrix_inverse,
    matrix_rank,
    matrix_set_diag,
    matrix_solve,
    matrix_solve_ls,
    matrix_transpose,
    matrix_triangular_solve,
    matvec,
    norm,
    normalize,
    pinv,
    qr,
    self_adjoint_eig,
    self_adjoint_eigvals,
    slogdet,
    sqrtm,
    svd,
    trace,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from scopeflow.ops.linalg import diag as tensor_diag
from scopeflow.ops.linalg import diag_part as tensor_diag_part
from scopeflow.ops.linalg.linear_operator import (
    LinearOperator,
    LinearOperatorAdjoint,
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
    LinearOperatorComposition,
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorHouseholder,
    LinearOperatorIdentity,
    LinearOperatorInversion,
    LinearOperatorKronecker,
    LinearOperatorLowerTriangular,
    LinearOperatorLowRankUpdate,
    LinearOperatorPermutation,
    LinearOperatorScaledIdentity,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
    LinearOperatorZeros,
)
from scopeflow.ops.math.clip_ops import global_norm
from scopeflow.ops.math.matmul_ops import matmul, tensordot
from scopeflow.ops.nn.nn_composites import l2_normalize

band_part = matrix_band_part
det = matrix_determinant
diag = matrix_diag
diag_part = matrix_diag_part
eigh = self_adjoint_eig
eigvalsh = self_adjoint_eigvals
inv = matrix_inverse
lstsq = matrix_solve_ls
set_diag = matrix_set_diag
solve = matrix_solve
transpose = matrix_transpose
triangular_solve = matrix_triangular_solve

__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular",
           "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix",
           "LinearOperatorHouseholder", "LinearOperatorIdentity", "LinearOperatorInversion",
           "LinearOperatorKronecker", "LinearOperatorLowerTriangular",
           "LinearOperatorLowRankUpdate", "LinearOperatorPermutation",
           "LinearOperatorScaledIdentity", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorZeros", "adjoint", "band_part",
           "cholesky", "cholesky_solve", "cross", "det", "diag",
           "diag_part", "eigh", "eigh_tridiagonal", "eigvalsh", "einsum", "expm", "eye",
           "global_norm", "inv",
           "l2_normalize", "logdet", "logm", "lstsq", "lu", "lu_matrix_inverse",
           "lu_reconstruct", "lu_solve", "matmul", "matrix_rank", "matrix_transpose", "matvec",
           "norm", "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "sqrtm", "svd",
           "tensor_diag", "tensor_diag_part", "tensordot", "trace", "transpose",
           "triangular_solve", "tridiagonal_matmul", "tridiagonal_solve"]
__all__ += ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
