"""TF1's ``math_ops``: the math ops' builders and OpDefs, re-exported from their families.

The ops are declared in the op-family modules (docs/ARCHITECTURE.md, "One op, one block"),
which import only downward: ``op_helpers`` -> ``shape_ops`` -> ``arithmetic_ops`` ->
``layout_ops`` -> ``reduction_ops`` -> ``elementwise_ops`` -> ``slicing_ops`` ->
``indexing_ops`` -> ``statistics_ops``, ``matmul_ops``. This module only re-exports the
math side (``math_ops.reduce_sum``, ``math_ops.mul_op``...) for TF1 code and scopeflow's own
modules; ``scopeflow/operators.py`` installs them as ``Tensor``'s operators.
"""

from __future__ import annotations

from scopeflow.ops.arithmetic_ops import (  # noqa: F401 - re-exported
    add,
    add_n,
    add_n_op,
    add_op,
    cast,
    cast_op,
    conj,
    conj_op,
    div,
    div_no_nan,
    div_no_nan_op,
    divide,
    equal,
    equal_op,
    floordiv,
    floordiv_op,
    floormod,
    floormod_op,
    greater,
    greater_equal,
    greater_equal_op,
    greater_op,
    less,
    less_equal,
    less_equal_op,
    less_op,
    logical_and,
    logical_and_op,
    logical_not,
    logical_not_op,
    logical_or,
    logical_or_op,
    logical_xor,
    mod,
    mul_op,
    multiply,
    neg_op,
    negative,
    not_equal,
    not_equal_op,
    range,
    range_op,
    realdiv,
    realdiv_op,
    scalar_mul,
    squared_difference,
    squared_difference_op,
    sub_op,
    subtract,
    to_double,
    to_float,
    to_int32,
    to_int64,
    truediv,
)
from scopeflow.ops.elementwise_ops import (  # noqa: F401 - re-exported
    abs,
    abs_op,
    ceil,
    ceil_op,
    clip_by_value,
    clip_by_value_op,
    cos,
    cos_op,
    exp,
    exp_op,
    floor,
    floor_op,
    log,
    log1p,
    log1p_op,
    log_op,
    pow,
    pow_op,
    reciprocal,
    reciprocal_op,
    round,
    round_op,
    rsqrt,
    rsqrt_op,
    saturate_cast,
    sigmoid,
    sigmoid_op,
    sign,
    sign_op,
    sin,
    sin_op,
    sqrt,
    sqrt_op,
    square,
    square_op,
    tanh,
    tanh_op,
)
from scopeflow.ops.indexing_ops import (  # noqa: F401 - re-exported
    unsorted_segment_sum,
    unsorted_segment_sum_op,
)
from scopeflow.ops.matmul_ops import (  # noqa: F401 - re-exported
    batch_matmul_op,
    matmul,
    matmul_op,
    tensordot,
)
from scopeflow.ops.op_helpers import (  # noqa: F401 - re-exported
    _const_like,
    _deprecated_lookup,
)
from scopeflow.ops.reduction_ops import (  # noqa: F401 - re-exported
    all_op,
    any_op,
    max_op,
    maximum,
    maximum_op,
    min_op,
    minimum,
    minimum_op,
    prod_op,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
    select_op,
    select_v2_op,
    sum_op,
    where,
    where_op,
    where_v2,
)
from scopeflow.ops.statistics_ops import (  # noqa: F401 - re-exported
    argmax,
    argmax_op,
    argmin,
    argmin_op,
    mean_op,
    reduce_logsumexp,
    reduce_mean,
)

__all__ = [
    "where_v2", "div_no_nan",
    # elementwise binary
    "add", "subtract", "multiply", "div", "truediv", "divide", "realdiv", "floordiv",
    "floormod", "mod", "pow", "maximum", "minimum", "squared_difference", "add_n",
    "scalar_mul", "clip_by_value",
    # elementwise unary
    "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos",
    "tanh", "sigmoid", "reciprocal", "round", "floor", "ceil", "conj",
    # comparisons, logic, selection
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "where",
    # reductions
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "reduce_logsumexp", "argmax", "argmin",
    # segments
    "unsorted_segment_sum",
    # linear algebra
    "matmul", "tensordot",
    # casts and sequences
    "cast", "to_float", "to_double", "to_int32", "to_int64", "saturate_cast", "range",
]
