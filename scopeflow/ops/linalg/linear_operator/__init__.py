"""``tf.linalg.LinearOperator`` and its common subclasses, as pure Python over the linalg
ops: an operator is a (batch of) matrices ``A`` known by what it does (``matmul``,
``solve``, ``determinant``, ...), so structured ones (diagonal, identity, triangular,
products, block diagonals, Kronecker products, low-rank updates) never form the dense
matrix unless asked to (``to_dense``).

Each method builds its ops under ``<operator name>/<method>/``, as TF's. The hints
(``is_non_singular``, ``is_self_adjoint``, ``is_positive_definite``, ``is_square``) are
TF's: contradictory ones raise ``ValueError`` when the operator is built, and a method an
operator's hints rule out (``solve`` of a singular one, ``determinant`` of a non-square
one) raises ``NotImplementedError`` with TF's text. Batch dimensions broadcast between an
operator and its argument, and between the operators a composite holds.

The package's modules: ``core`` (the base class and the operators its methods build:
adjoint, inversion, lower triangular, composition, diagonal, identity), ``full_matrix``,
``scaled_identity`` (scaled identity and zeros), ``block`` (block diagonal and block lower
triangular), ``kronecker_low_rank``, ``structured`` (permutation, Householder, Toeplitz,
tridiagonal), ``circulant`` (circulant, 2-D and 3-D block circulant), and ``helpers``
(what they share). This module is their one import path.
"""

from scopeflow.ops.linalg.linear_operator.block import (
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
)
from scopeflow.ops.linalg.linear_operator.circulant import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
)
from scopeflow.ops.linalg.linear_operator.core import (
    LinearOperator,
    LinearOperatorAdjoint,
    LinearOperatorComposition,
    LinearOperatorDiag,
    LinearOperatorIdentity,
    LinearOperatorInversion,
    LinearOperatorLowerTriangular,
)
from scopeflow.ops.linalg.linear_operator.full_matrix import LinearOperatorFullMatrix
from scopeflow.ops.linalg.linear_operator.kronecker_low_rank import (
    LinearOperatorKronecker,
    LinearOperatorLowRankUpdate,
)
from scopeflow.ops.linalg.linear_operator.scaled_identity import (
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from scopeflow.ops.linalg.linear_operator.structured import (
    LinearOperatorHouseholder,
    LinearOperatorPermutation,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
)

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
           "LinearOperatorPermutation", "LinearOperatorHouseholder", "LinearOperatorToeplitz",
           "LinearOperatorTridiag", "LinearOperatorBlockLowerTriangular", "LinearOperator",
           "LinearOperatorFullMatrix", "LinearOperatorDiag",
           "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
           "LinearOperatorLowerTriangular", "LinearOperatorZeros",
           "LinearOperatorComposition", "LinearOperatorAdjoint", "LinearOperatorInversion",
           "LinearOperatorBlockDiag", "LinearOperatorKronecker",
           "LinearOperatorLowRankUpdate"]
