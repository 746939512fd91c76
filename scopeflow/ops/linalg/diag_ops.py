"""Matrix structure ops: bands, diagonals, transposes and the trace.

MatrixBandPart, MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, Diag and DiagPart, with
the composites TF builds from them (``trace``, ``matrix_transpose``, ``adjoint``). Their
gradients use each other (a band's gradient is a band, a diagonal's gradient sets a
diagonal), so they are declared together; the shared static-shape helpers of the other
linalg modules (``matrix_shape``, ``square_shape``) live here too, first in the chain.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import COMPLEX, INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, first_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.layout_ops import transpose
from scopeflow.ops.array.shape_ops import rank
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.math.arithmetic_ops import range as range_
from scopeflow.ops.math.arithmetic_ops import subtract
from scopeflow.ops.math.reduction_ops import reduce_sum, zeros_like
from scopeflow.ops.op_helpers import _static_ints

__all__ = ["matrix_band_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "diag",
           "diag_part", "trace", "matrix_transpose", "adjoint", "matrix_shape",
           "square_shape", "with_rank_at_least", "LINALG_TYPES"]


# ── static shapes shared by the linalg modules ──────────────────────────────────────
def with_rank_at_least(s: TensorShape, n: int) -> TensorShape:
    """TF's ``WithRankAtLeast``: the message TF's shape functions raise."""
    if s.ndims is not None and s.ndims < n:
        raise ValueError(f"Shape must be at least rank {n} but is rank {s.ndims}")
    return s


def matrix_shape(s: TensorShape):
    """``(batch dims, rows, cols)`` of a shape of rank >= 2, or ``None`` at unknown rank."""
    with_rank_at_least(s, 2)
    dims = s.as_tuple()
    if dims is None:
        return None
    return dims[:-2], dims[-2], dims[-1]


def square_shape(s: TensorShape):
    """As :func:`matrix_shape` for a square matrix (TF merges rows with cols)."""
    parts = matrix_shape(s)
    if parts is None:
        return None
    batch, m, n = parts
    if m is not None and n is not None and m != n:
        raise ValueError(f"Dimensions must be equal, but are {m} and {n}")
    return batch, m if m is not None else n


# The float-or-complex dtypes of the decompositions and solvers, in TF's order (their T).
LINALG_TYPES = (dtypes.float64, dtypes.float32, dtypes.float16, *COMPLEX)


# ── MatrixBandPart ───────────────────────────────────────────────────────────────────
def _band_part_shape(x, num_lower, num_upper):
    with_rank_at_least(x.shape, 2)
    for t in (num_lower, num_upper):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}")
    return x.shape


def _band_part_dtype(t, lower, upper):
    check_dtype(lower, INDEX, "Tindex")
    if upper is not lower:
        raise TypeError(f"Input 'num_upper' of 'MatrixBandPart' Op has type {upper.name} "
                        f"that does not match type {lower.name} of argument 'num_lower'.")
    return t


def _band_part_kernel(x, num_lower, num_upper):
    m, n = x.shape[-2:]
    lo, hi = int(num_lower), int(num_upper)
    if lo > m:
        raise errors.InvalidArgumentError(
            None, None, f"num_lower must be negative or less or equal to number of rows ({m}) "
                        f"got: {lo}")
    if hi > n:
        raise errors.InvalidArgumentError(
            None, None, f"num_upper must be negative or less or equal to number of columns "
                        f"({n}) got: {hi}")
    offset = np.arange(n)[None, :] - np.arange(m)[:, None]  # col - row
    keep = np.ones((m, n), bool)
    if lo >= 0:
        keep &= offset >= -lo
    if hi >= 0:
        keep &= offset <= hi
    if x.size and 4 * np.count_nonzero(keep) < keep.size:
        # A narrow band: copy its entries into zeros (2.5x faster than np.where for the
        # 17 diagonals of 512x512 matrices; profiled in bench/profiles/linalg.md).
        idx = np.flatnonzero(keep)
        flat = x.reshape(-1, m * n)
        out = np.zeros_like(flat)
        out[:, idx] = flat[:, idx]
        return out.reshape(x.shape)
    return np.where(keep, x, np.zeros((), x.dtype))


band_part_op = OpDef("MatrixBandPart", shape=from_tensors(_band_part_shape),
                     dtype=_band_part_dtype, kernel=_band_part_kernel,
                     input_names=("input", "num_lower", "num_upper"))


@band_part_op.def_grad
def _band_part_grad(op, dy):
    """The band of the gradient (the same band keeps what flowed through)."""
    return [matrix_band_part(dy, op.inputs[1], op.inputs[2]), None, None]


def matrix_band_part(input, num_lower, num_upper, name=None) -> Tensor:  # noqa: A002
    """Keeps ``num_lower`` sub- and ``num_upper`` superdiagonals of each innermost matrix
    (a negative count keeps the whole triangle); zeros elsewhere."""
    with name_scope(name, "MatrixBandPart", [input, num_lower, num_upper]) as scope:
        x = convert_to_tensor(input, name="input")
        lower = convert_to_tensor(num_lower, dtype=None if isinstance(num_lower, Tensor)
                                  else dtypes.int64, name="num_lower")
        upper = convert_to_tensor(num_upper, dtype=lower.dtype.base_dtype, name="num_upper")
        return band_part_op.bind(x, lower, upper, name=scope)


# ── the V3 diagonal ops: k, alignment ───────────────────────────────────────────────
_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _k_range(k):
    """``(lower, upper)`` diagonal offsets from ``k`` (a scalar or a pair)."""
    ks = [int(v) for v in np.reshape(k, -1)]
    if not 1 <= len(ks) <= 2:
        raise errors.InvalidArgumentError(
            None, None, f"diag_index must have only one or two elements, received {len(ks)} "
                        "elements.")
    lo, hi = ks[0], ks[-1]
    if lo > hi:
        raise errors.InvalidArgumentError(
            None, None, f"lower_diag_index must not be larger than upper_diag_index: {lo} > "
                        f"{hi}")
    return lo, hi


def _diag_len(m, n, d):
    return min(m + min(d, 0), n - max(d, 0))


def _diag_offset(d, length, max_len, align):
    """Where diagonal ``d``'s entries start in its padded row (TF's alignment)."""
    sup, sub = align.split("_")
    side = sup if d >= 0 else sub
    return max_len - length if side == "RIGHT" else 0


def _diag_coords(m, n, d):
    i = np.arange(_diag_len(m, n, d))
    return (i - min(d, 0), i + max(d, 0))


def _check_align(align):
    if align not in _ALIGNS:
        raise ValueError(f"Attr align has value '{align}' not in list of allowed values: "
                         f"{', '.join(_ALIGNS)}")
    return align


def _k_static(t):
    ks = _static_ints(t)
    if ks is None or not 1 <= len(ks) <= 2:
        return None
    return ks[0], ks[-1]


# ── MatrixDiagV3 ─────────────────────────────────────────────────────────────────────
def _matrix_diag_dims(max_len, lo, hi, rows, cols):
    """TF's output size: the smallest square (or the given sides) holding the diagonals."""
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    return rows, cols


def _matrix_diag_shape(diagonal, k, num_rows, num_cols, padding_value, *, align):
    _check_align(align)
    ks = _k_static(k)
    rows, cols = _static_ints(num_rows), _static_ints(num_cols)
    dims = diagonal.shape.as_tuple()
    if ks is None or rows is None or cols is None or dims is None:
        return TensorShape(None)
    lo, hi = ks
    with_rank_at_least(diagonal.shape, 1 if lo == hi else 2)
    batch = dims[:-1] if lo == hi else dims[:-2]
    if dims[-1] is None:
        return TensorShape(batch + (None, None))
    m, n = _matrix_diag_dims(dims[-1], lo, hi, rows[0], cols[0])
    return TensorShape(batch + (m, n))


def _place_diagonals(out, diagonal, lo, hi, max_len, align):
    """Writes ``diagonal``'s rows (diagonals ``hi`` down to ``lo``, each ``max_len`` long
    and padded per ``align``) onto ``out``'s inner matrices, in place; returns ``out``."""
    m, n = out.shape[-2:]
    for j, d in enumerate(range(hi, lo - 1, -1)):
        length = _diag_len(m, n, d)
        start = _diag_offset(d, length, max_len, align)
        rows, cols = _diag_coords(m, n, d)
        out[..., rows, cols] = diagonal[..., j, start:start + length]
    return out


def _matrix_diag_kernel(diagonal, k, num_rows, num_cols, padding_value, *, align):
    lo, hi = _k_range(k)
    if lo == hi:
        diagonal = diagonal[..., None, :]
    max_len = diagonal.shape[-1]
    m, n = _matrix_diag_dims(max_len, lo, hi, int(num_rows), int(num_cols))
    out = np.full(diagonal.shape[:-2] + (m, n), padding_value, diagonal.dtype)
    return _place_diagonals(out, diagonal, lo, hi, max_len, align)


matrix_diag_op = OpDef("MatrixDiagV3", shape=from_tensors(_matrix_diag_shape),
                       dtype=first_dtype, kernel=_matrix_diag_kernel,
                       attrs={"align": "RIGHT_LEFT"},
                       input_names=("diagonal", "k", "num_rows", "num_cols", "padding_value"))


@matrix_diag_op.def_grad
def _matrix_diag_grad(op, dy):
    """The diagonals of the gradient: what each diagonal entry was placed at."""
    d = matrix_diag_part(dy, k=op.inputs[1], align=op.get_attr("align"))
    return [d, None, None, None, None]


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
                align="RIGHT_LEFT") -> Tensor:
    """A batch of matrices with ``diagonal`` on diagonal ``k`` (or diagonals ``k[0]`` to
    ``k[1]``, aligned as ``align`` says), ``padding_value`` elsewhere."""
    with name_scope(name, "diag", [diagonal]) as scope:
        diagonal = convert_to_tensor(diagonal, name="diagonal")
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        rows = convert_to_tensor(num_rows, dtype=dtypes.int32, name="num_rows")
        cols = convert_to_tensor(num_cols, dtype=dtypes.int32, name="num_cols")
        pad = convert_to_tensor(padding_value, dtype=diagonal.dtype.base_dtype,
                                name="padding_value")
        return matrix_diag_op.bind(diagonal, k, rows, cols, pad, align=align, name=scope)


# ── MatrixDiagPartV3 ─────────────────────────────────────────────────────────────────
def _diag_part_v3_shape(x, k, padding_value, *, align):
    _check_align(align)
    parts = matrix_shape(x.shape)
    ks = _k_static(k)
    if parts is None or ks is None:
        return TensorShape(None)
    batch, m, n = parts
    lo, hi = ks
    if m is None or n is None:
        max_len = None
    else:
        max_len = min(m + min(hi, 0), n - max(lo, 0))
    return TensorShape(batch + ((max_len,) if lo == hi else (hi - lo + 1, max_len)))


def _diag_part_v3_kernel(x, k, padding_value, *, align):
    lo, hi = _k_range(k)
    m, n = x.shape[-2:]
    if not (-m < lo <= n or lo == 0) or not (-m < hi <= n or hi == 0):
        raise errors.InvalidArgumentError(
            None, None, f"Diagonal index ({lo}, {hi}) is out of bounds for a {m}x{n} matrix")
    max_len = min(m + min(hi, 0), n - max(lo, 0))
    out = np.full(x.shape[:-2] + (hi - lo + 1, max_len), padding_value, x.dtype)
    for j, d in enumerate(range(hi, lo - 1, -1)):
        length = _diag_len(m, n, d)
        start = _diag_offset(d, length, max_len, align)
        rows, cols = _diag_coords(m, n, d)
        out[..., j, start:start + length] = x[..., rows, cols]
    return out[..., 0, :] if lo == hi else out


matrix_diag_part_op = OpDef("MatrixDiagPartV3", shape=from_tensors(_diag_part_v3_shape),
                            dtype=first_dtype, kernel=_diag_part_v3_kernel,
                            attrs={"align": "RIGHT_LEFT"},
                            input_names=("input", "k", "padding_value"))


@matrix_diag_part_op.def_grad
def _matrix_diag_part_grad(op, dy):
    """The gradient on the diagonals, zeros elsewhere."""
    x = op.inputs[0]
    return [matrix_set_diag(zeros_like(x), dy, k=op.inputs[1], align=op.get_attr("align")),
            None, None]


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
                     align="RIGHT_LEFT") -> Tensor:
    """Diagonal ``k`` (or diagonals ``k[0]`` to ``k[1]``) of each innermost matrix."""
    with name_scope(name, "diag_part", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        pad = convert_to_tensor(padding_value, dtype=x.dtype.base_dtype, name="padding_value")
        return matrix_diag_part_op.bind(x, k, pad, align=align, name=scope)


# ── MatrixSetDiagV3 ──────────────────────────────────────────────────────────────────
def _set_diag_shape(x, diagonal, k, *, align):
    _check_align(align)
    matrix_shape(x.shape)
    return x.shape


def _set_diag_kernel(x, diagonal, k, *, align):
    lo, hi = _k_range(k)
    m, n = x.shape[-2:]
    if lo == hi:
        diagonal = diagonal[..., None, :]
    max_len = min(m + min(hi, 0), n - max(lo, 0))
    want = x.shape[:-2] + (hi - lo + 1, max_len)
    if diagonal.shape != want:
        shown = (lambda s: list(s)) if lo != hi else (lambda s: list(s[:-2] + s[-1:]))
        raise errors.InvalidArgumentError(
            None, None, f"diagonal must be at least 1-dim and of shape {shown(want)}, "
                        f"received {shown(diagonal.shape)}")
    out = np.array(x, copy=True)
    return _place_diagonals(out, diagonal, lo, hi, max_len, align)


matrix_set_diag_op = OpDef("MatrixSetDiagV3", shape=from_tensors(_set_diag_shape),
                           dtype=first_dtype, kernel=_set_diag_kernel,
                           attrs={"align": "RIGHT_LEFT"},
                           input_names=("input", "diagonal", "k"))


@matrix_set_diag_op.def_grad
def _matrix_set_diag_grad(op, dy):
    """The input's gradient with the replaced diagonals zeroed; the diagonals' are read."""
    k, align = op.inputs[2], op.get_attr("align")
    dx = matrix_set_diag(dy, zeros_like(op.inputs[1]), k=k, align=align)
    return [dx, matrix_diag_part(dy, k=k, align=align), None]


def matrix_set_diag(input, diagonal, name="set_diag", k=0,  # noqa: A002
                    align="RIGHT_LEFT") -> Tensor:
    """``input`` with diagonal ``k`` (or diagonals ``k[0]`` to ``k[1]``) replaced."""
    with name_scope(name, "set_diag", [input, diagonal]) as scope:
        x = convert_to_tensor(input, name="input")
        diagonal = convert_to_tensor(diagonal, dtype=x.dtype.base_dtype, name="diagonal")
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        return matrix_set_diag_op.bind(x, diagonal, k, align=align, name=scope)


# ── Diag / DiagPart (tf.diag: a rank-2k tensor from a rank-k one) ───────────────────
_DIAG_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
               *COMPLEX)


def _diag_dtype(t):
    return check_dtype(t, _DIAG_TYPES, "T")


def _diag_shape(d):
    dims = d.as_tuple()
    if dims is None:
        return TensorShape(None)
    if not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return TensorShape(dims + dims)


def _diag_kernel(d):
    n = d.size
    out = np.zeros((n, n), d.dtype)
    out[np.arange(n), np.arange(n)] = d.reshape(-1)
    return out.reshape(d.shape + d.shape)


diag_op = OpDef("Diag", shape=_diag_shape, dtype=_diag_dtype, kernel=_diag_kernel,
                input_names=("diagonal",))


@diag_op.def_grad
def _diag_grad(op, dy):
    return [diag_part(dy)]


def diag(diagonal, name=None) -> Tensor:
    """The tensor with ``diagonal`` on its diagonal: ``out[i..., i...] = diagonal[i...]``."""
    return diag_op.bind(diagonal, name=name)


def _diag_part_shape(x):
    dims = x.as_tuple()
    if dims is None:
        return TensorShape(None)
    if len(dims) % 2 or not dims:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {len(dims)}")
    half = len(dims) // 2
    out = []
    for a, b in zip(dims[:half], dims[half:]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        out.append(a if a is not None else b)
    return TensorShape(out)


def _diag_part_kernel(x):
    half = x.ndim // 2
    if x.shape[:half] != x.shape[half:]:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid shape {list(x.shape)}: dimensions {list(x.shape[:half])} "
                        f"and {list(x.shape[half:])} do not match.")
    n = int(np.prod(x.shape[:half], dtype=np.int64))
    return x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(x.shape[:half])


diag_part_op = OpDef("DiagPart", shape=_diag_part_shape, dtype=_diag_dtype,
                     kernel=_diag_part_kernel, input_names=("input",))


@diag_part_op.def_grad
def _diag_part_grad(op, dy):
    return [diag(dy)]


def diag_part(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The diagonal of a rank-2k tensor: ``out[i...] = input[i..., i...]``."""
    return diag_part_op.bind(input, name=name)


# ── composites: trace, matrix_transpose, adjoint ────────────────────────────────────
def trace(x, name=None) -> Tensor:
    """The sum of each innermost matrix's diagonal (TF: ``Sum`` of ``matrix_diag_part``)."""
    with name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return reduce_sum(matrix_diag_part(x), [-1], name=scope)


def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """Swaps the two innermost dimensions (``conjugate``: and conjugates complex values)."""
    with name_scope(name, "matrix_transpose", [a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError("Argument `a` should be a (batch) matrix with rank >= 2.  "
                                 f"Received `a` = {a} with shape: {a.shape}")
            perm = list(range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            r = rank(a)
            perm = concat([range_(r - 2), [r - 1, subtract(r, 2)]], 0)
        return transpose(a, perm=perm, conjugate=conjugate)


def adjoint(matrix, name=None) -> Tensor:
    """The conjugate transpose of each innermost matrix."""
    with name_scope(name, "adjoint", [matrix]):
        matrix = convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)

