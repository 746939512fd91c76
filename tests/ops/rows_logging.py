"""Op-table rows for the logging ops: ``Print`` (an identity of its first input that also
writes to stderr), ``StringFormat`` and ``CheckNumerics`` (an identity that fails the run on
NaN or Inf); TF's exact texts are in tests/unit/ops/logging/test_logging_ops.py and
tests/unit/test_error_sites.py."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.logging.logging_ops import string_format

from .op_table import OpCase, rand

EXEMPT = {
    "Assert": "no outputs (fails the run or not); covered by tests/unit/ops/logging/test_logging_ops.py",
    "PrintV2": "no outputs (writes a stream); covered by tests/unit/ops/logging/test_logging_ops.py",
}

_X = rand(2, 3)


def _check_format(s):
    # TF 2.21: tf.strings.format("x={}", [[1, 2, 3], [4, 5, 6]]) over an int32 tensor
    assert (s.item() if isinstance(s, np.ndarray) else s) == b"x=[[1 2 3]\n [4 5 6]]"


ROWS = [
    OpCase("Print", lambda tf, x: tf.Print(x, [x], message="x: "), lambda x: x, [_X]),
    OpCase("Print", lambda tf, x: tf.Print(x * 2.0, [x, "s"], first_n=1), lambda x: x * 2.0,
           [_X], id="Print-expr"),
    OpCase("StringFormat", lambda tf, x: string_format("x={}", [x]), _check_format,
           [np.array([[1, 2, 3], [4, 5, 6]], np.int32)], check_values=False),
    OpCase("CheckNumerics", lambda tf, x: tf.check_numerics(x, "x"), lambda x: x, [_X]),
    OpCase("CheckNumerics", lambda tf, x: tf.check_numerics(x * 2.0, "2x"),
           lambda x: x * 2.0, [rand(3, dtype=np.float64)], id="CheckNumerics-f64"),
    OpCase("CheckNumerics", lambda tf, x: tf.check_numerics(x, "h"), lambda x: x,
           [rand(4, dtype=np.float16)], id="CheckNumerics-f16", check_grad=False),
]
