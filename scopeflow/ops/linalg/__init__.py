"""The linear-algebra ops (TF's ``linalg_ops``/``linalg_impl``): bands and diagonals
(``diag_ops``), inverses and solves (``solve_ops``), determinants and decompositions
(``decomposition_ops``), norms and the cross product (``norm_ops``), the SVD and what is built
on it (``svd_ops``), LU (``lu_ops``), identities and matrix functions (``eye``, ``sqrtm``,
``logm``, ``expm``: ``matrix_function_ops``), tridiagonal systems (``tridiagonal_ops``).

``__all__`` is their TF1 top-level names (``tf.matrix_inverse``, ``tf.cholesky``, ...);
``scopeflow/api/linalg.py`` is ``tf.linalg``.
"""

from scopeflow.ops.linalg.decomposition_ops import (
    cholesky,
    logdet,  # noqa: F401 - tf.linalg only
    matrix_determinant,
    matrix_solve_ls,
    qr,
    self_adjoint_eig,
    self_adjoint_eigvals,
    slogdet,  # noqa: F401 - tf.linalg only
)
from scopeflow.ops.linalg.diag_ops import (
    adjoint,  # noqa: F401 - tf.linalg only
    diag,
    diag_part,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    matrix_transpose,
    trace,
)
from scopeflow.ops.linalg.lu_ops import (  # noqa: F401 - tf.linalg only
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
)
from scopeflow.ops.linalg.matrix_function_ops import (
    expm,  # noqa: F401 - tf.linalg only
    eye,
    logm,  # noqa: F401 - tf.linalg only
    matrix_square_root,
    matvec,  # noqa: F401 - tf.linalg only
    sqrtm,  # noqa: F401 - tf.linalg only
)
from scopeflow.ops.linalg.norm_ops import (
    cross,
    norm,
    normalize,  # noqa: F401 - tf.linalg only
)
from scopeflow.ops.linalg.solve_ops import (
    cholesky_solve,
    matrix_inverse,
    matrix_solve,
    matrix_triangular_solve,
)
from scopeflow.ops.linalg.svd_ops import (  # noqa: F401 - tf.linalg only: pinv, matrix_rank
    matrix_rank,
    pinv,
    svd,
)
from scopeflow.ops.linalg.tridiagonal_ops import (  # noqa: F401 - tf.linalg only
    eigh_tridiagonal,
    tridiagonal_matmul,
    tridiagonal_solve,
)

# TF1's top-level names (tf.*); the names marked "tf.linalg only" are tf.linalg's only.
__all__ = ["cholesky", "cholesky_solve", "cross", "diag", "diag_part", "eye",
           "matrix_band_part", "matrix_determinant", "matrix_diag", "matrix_diag_part",
           "matrix_inverse", "matrix_set_diag", "matrix_solve", "matrix_solve_ls",
           "matrix_square_root", "matrix_transpose", "matrix_triangular_solve", "norm", "qr",
           "self_adjoint_eig", "self_adjoint_eigvals", "svd", "trace"]
