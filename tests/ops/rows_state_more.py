"""Op table: the scatter ops on variable refs (scopeflow/ops/state/scatter_ops.py), the
ops that call user Python (scopeflow/ops/script/) and the serialization ops
(scopeflow/ops/io/serialization_ops.py); all are checked elsewhere."""

from __future__ import annotations

ROWS: list = []

_SCATTER = ("stateful in-place update of variable refs; values vs TF 2.21 in "
            "tests/unit/ops/state/test_scatter_ops.py")
_SCRIPT = "calls a user Python function; vs TF 2.21 in tests/unit/ops/script/test_py_func.py"
EXEMPT = {
    **{op: _SCATTER for op in ["ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
                               "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"]},
    **{op: _SCRIPT for op in ["PyFunc", "PyFuncStateless", "EagerPyFunc"]},
}

_SERIALIZATION = ("byte-level conversions (TF's bytes, errors) checked against TF 2.21 in "
                  "tests/unit/ops/io/test_serialization_ops.py")
EXEMPT.update({op: _SERIALIZATION for op in ["SerializeTensor", "ParseTensor",
                                             "DecodeCompressed", "DecodeJSONExample"]})
