"""The linear-algebra ops (TF's ``linalg_ops``/``linalg_impl``): bands and diagonals
(``diag_ops``), inverses and solves (``solve_ops``), determinants and decompositions
(``decomposition_ops``), norms and the cross product (``norm_ops``).

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
from scopeflow.ops.linalg.norm_ops import cross, norm
from scopeflow.ops.linalg.solve_ops import (
    cholesky_solve,
    matrix_inverse,
    matrix_solve,
    matrix_triangular_solve,
)

# TF1's top-level names (tf.*); logdet, slogdet and adjoint are tf.linalg's only.
__all__ = ["cholesky", "cholesky_solve", "cross", "diag", "diag_part", "matrix_band_part",
           "matrix_determinant", "matrix_diag", "matrix_diag_part", "matrix_inverse",
           "matrix_set_diag", "matrix_solve", "matrix_solve_ls", "matrix_transpose",
           "matrix_triangular_solve", "norm", "qr", "self_adjoint_eig", "self_adjoint_eigvals",
           "trace"]
