"""``LinearOperatorCirculant`` (and its 2-D and 3-D block forms): the operator
diagonalised by the DFT, given by its ``spectrum``, as TF computes with it.

``matmul`` is ``ifft(spectrum * fft(x))`` over the block dims of ``x``'s columns (x cast
to the spectrum's complex type), ``solve`` divides by the spectrum; results are cast to
the operator's ``input_output_dtype`` (default complex64: a real type keeps the real
part). ``determinant`` is the product of the spectrum, ``log_abs_determinant`` the sum of
``log|spectrum|``, the trace the sum of the spectrum, the diagonal ``trace / N``, each cast
to that dtype; ``eigvals`` is the flattened spectrum in its own dtype. A real spectrum
makes the operator self-adjoint (its ``adjoint()`` is itself). scopeflow needs the
spectrum's block dims statically known.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.ops.array.layout_ops import transpose
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.linear_operator.core import LinearOperator
from scopeflow.ops.linalg.linear_operator.helpers import _adjoint_if, _broadcast_batch
from scopeflow.ops.math.arithmetic_ops import cast, conj, divide, multiply
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import log
from scopeflow.ops.math.reduction_ops import (
    ones,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from scopeflow.ops.signal import fft_ops
from scopeflow.ops.signal.complex_ops import complex as complex_
from scopeflow.ops.signal.complex_ops import imag, real

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D",
           "LinearOperatorCirculant3D"]

_FFT = {1: fft_ops.fft, 2: fft_ops.fft2d, 3: fft_ops.fft3d}
_IFFT = {1: fft_ops.ifft, 2: fft_ops.ifft2d, 3: fft_ops.ifft3d}


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    return cast(x, dtypes.complex128 if x.dtype.base_dtype == dtypes.float64
                else dtypes.complex64)


def _rotate(x, shift):
    """TF's ``rotate_transpose``: the axes rolled right by ``shift``."""
    rank = x.shape.ndims
    return transpose(x, np.roll(np.arange(rank), shift).astype(np.int32))


class _BaseCirculant(LinearOperator):
    """The shared body; ``block_depth`` is 1, 2 or 3."""

    _block_depth = 1

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant"):
        parameters = {"spectrum": spectrum, "input_output_dtype": input_output_dtype,
                      "is_non_singular": is_non_singular, "is_self_adjoint": is_self_adjoint,
                      "is_positive_definite": is_positive_definite, "is_square": is_square,
                      "name": name}
        depth = self._block_depth
        with name_scope(name):
            self._spectrum = convert_to_tensor(spectrum, name="spectrum")
        ndims = self._spectrum.shape.ndims
        if ndims is not None and ndims < depth:
            raise ValueError(f"Argument `spectrum` must have at least {depth} dimensions. "
                             f"Received: {self._spectrum}.")
        if not self._spectrum.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError(
                    "A real spectrum always corresponds to a self-adjoint operator. Expected "
                    "argument `is_self_adjoint` to be True when `spectrum.dtype.is_complex` "
                    f"= True. Received: {is_self_adjoint}.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("A [[nested] block] circulant operator is always square. "
                             f"Expected argument `is_square` to be True. Received: "
                             f"{is_square}.")
        super().__init__(dtypes.as_dtype(input_output_dtype), is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters=parameters)

    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_depth(self):
        return self._block_depth

    @property
    def block_shape(self):
        return self._spectrum.shape[-self._block_depth:]

    def block_shape_tensor(self):
        return shape_of(self._spectrum)[-self._block_depth:]

    def _shape(self):
        s = self._spectrum.shape
        trailing = s[-self._block_depth:]
        n = int(np.prod(trailing.as_list())) if trailing.is_fully_defined() else None
        return s[:-self._block_depth].concatenate([n, n])

    def _shape_tensor(self):
        s = shape_of(self._spectrum)
        n = reduce_prod(s[-self._block_depth:], keepdims=True)
        return concat([s[:-self._block_depth], n, n], 0)

    def _block_dims(self):
        if not self.block_shape.is_fully_defined():
            raise NotImplementedError(f"scopeflow's {type(self).__name__} needs the "
                                      "spectrum's block shape statically known")
        return self.block_shape.as_list()

    def _apply(self, x, adjoint, adjoint_arg, solve):
        """``ifft(spectrum * fft(x))`` (``/`` for ``solve``) on x's columns."""
        block = self._block_dims()
        x = _adjoint_if(x, adjoint_arg)
        spectrum = _to_complex(self._spectrum)
        if adjoint:
            spectrum = conj(spectrum)
        x = cast(x, spectrum.dtype)
        batch = shape_of(spectrum)[:-self._block_depth]
        spec_mat = reshape(spectrum, concat([batch, [-1, 1]], 0))
        x, spec_mat = _broadcast_batch(x, spec_mat)
        spectrum = reshape(spec_mat, concat([shape_of(x)[:-2], block], 0))
        vec = _rotate(x, 1)
        blocks = reshape(vec, concat([shape_of(vec)[:-1], block], 0))
        fft_x = _FFT[self._block_depth](_to_complex(blocks))
        mixed = divide(fft_x, spectrum) if solve else multiply(spectrum, fft_x)
        out = _IFFT[self._block_depth](mixed)
        flat = reshape(out, concat([shape_of(out)[:-self._block_depth],
                                    [int(np.prod(block))]], 0))
        return cast(_rotate(flat, -1), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, adjoint, adjoint_arg, solve=False)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, adjoint, adjoint_arg, solve=True)

    def _axes(self):
        return [-(i + 1) for i in range(self._block_depth)]

    def _determinant(self):
        return cast(reduce_prod(self._spectrum, axis=self._axes()), self.dtype)

    def _log_abs_determinant(self):
        return cast(reduce_sum(log(abs_(self._spectrum)), axis=self._axes()), self.dtype)

    def _trace(self):
        axes = self._axes()
        re = reduce_sum(real(self._spectrum), axis=axes)
        if not self.dtype.is_complex:
            return cast(re, self.dtype)
        im = (re * 0 if self.is_self_adjoint
              else reduce_sum(imag(self._spectrum), axis=axes))
        return cast(complex_(re, im), self.dtype)

    def _diag_part(self):
        n = int(np.prod(self._block_dims()))
        value = divide(self.trace(), cast(n, self.dtype))
        batch = shape_of(self._spectrum)[:-self._block_depth]
        return multiply(value[..., None], ones(concat([batch, [n]], 0), dtype=self.dtype))

    def _unblockify(self, x):
        return reshape(x, concat([shape_of(x)[:-self._block_depth],
                                  [int(np.prod(self._block_dims()))]], 0))

    def eigvals(self, name="eigvals"):
        """The spectrum, flattened over its block dims (its own dtype, as TF); TF allows
        it only for operators hinted self-adjoint."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._unblockify(self._spectrum)

    def cond(self, name="cond"):
        """``max |spectrum| / min |spectrum|``."""
        with self._name_scope(name):
            values = abs_(self._unblockify(self._spectrum))
            return divide(reduce_max(values, axis=-1), reduce_min(values, axis=-1))

    def convolution_kernel(self, name="convolution_kernel"):
        """``ifft(spectrum)`` cast to the operator's dtype."""
        with self._name_scope(name):
            return cast(_IFFT[self._block_depth](_to_complex(self._spectrum)), self.dtype)

    def adjoint(self, name="adjoint"):
        """Itself when self-adjoint, else the circulant of the conjugate spectrum (with
        the default complex64 dtype, as TF's registration builds it)."""
        if self.is_self_adjoint is True:
            return self
        spectrum = conj(self._spectrum) if self._spectrum.dtype.is_complex else self._spectrum
        return type(self)(spectrum, is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    H = property(adjoint, None)

    def inverse(self, name="inverse"):
        """The circulant of ``1 / spectrum``, in this operator's dtype."""
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return type(self)(divide(1.0, self._spectrum), input_output_dtype=self.dtype,
                          is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)



class LinearOperatorCirculant(_BaseCirculant):
    """A (batch of) circulant ``N x N`` operators from ``spectrum`` ``[..., N]``."""

    _block_depth = 1


class LinearOperatorCirculant2D(_BaseCirculant):
    """Block circulant with circulant blocks, from ``spectrum`` ``[..., N0, N1]``."""

    _block_depth = 2

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant2D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


class LinearOperatorCirculant3D(_BaseCirculant):
    """Nested block circulant (three levels), from ``spectrum`` ``[..., N0, N1, N2]``."""

    _block_depth = 3

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant3D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)
