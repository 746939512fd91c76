"""Derived cases of the differential op test: every op-table row rerun with its inputs
changed systematically, the same under real TensorFlow (``make_fixture.py`` records them)
and scopeflow (``test_op_table_tf.py`` compares). Derived from the rows automatically, so
a new row gets its sweeps without writing them:

* ``dtype-<name>``: float32 inputs as float64 and float16; int32 inputs as int64 (and, in
  rows whose inputs are all int32, as uint8 and int8, wrapping as NumPy's cast does);
* ``empty-first`` / ``empty-last``: one input's first (last) dimension set to 0, and every
  input of the same shape with it;
* ``overflow``: the integer inputs of integer arithmetic rows moved next to their dtype's
  maximum (non-negative values) or minimum (negative ones), so sums and products wrap;
* ``broadcast``: of two inputs of the same shape, the second cut to size 1 along axis 0;
* ``negaxis``: a small integer input whose values could be axes of the data input (all in
  ``[0, rank)``) given as the equal negative axes.

Each derived case records the outputs' static dtypes and shapes and values, or where the
build or the run raised, and which error class: a dtype or shape TF rejects must be
rejected by scopeflow at the same stage with the same class.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from . import differential as d

# Rows of these modules drive queues, files, sessions' state or whole programs: their
# inputs are not data an op sweeps over (and an empty queue would block a run forever).
SKIPPED_MODULES = frozenset({
    "rows_accumulators", "rows_batch_function", "rows_control_flow", "rows_data",
    "rows_data_experimental", "rows_data_tables", "rows_distributed", "rows_feature_column",
    "rows_image_codecs", "rows_io", "rows_logging", "rows_lookup", "rows_optional",
    "rows_parsing", "rows_queues", "rows_rng_state", "rows_sdca", "rows_session_handles",
    "rows_state", "rows_state_more", "rows_summary", "rows_training", "rows_training_more"})

# Integer rows whose integer inputs are data an arithmetic kernel combines (so values next
# to the dtype's limits must wrap as TF's): not indices, counts or shapes, which would
# make the op allocate by them. Segment ops: only their data input (0) is moved.
OVERFLOW_OPS = frozenset({
    "Abs", "AddN", "AddV2", "ArgMax", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Cast",
    "Cumsum", "Equal", "EuclideanNorm", "FloorDiv", "FloorMod", "Invert", "LeftShift",
    "Less", "LessEqual", "MatMul", "Max", "MaxPool", "Maximum", "Mean", "Mul", "Neg",
    "Pow", "Prod", "RealDiv", "Relu", "RightShift", "Sign", "Square", "Sub", "Sum",
    "TopKV2", "TruncateDiv", "TruncateMod", "Unique", "UniqueWithCounts", "ListDiff",
    "Where", "OnesLike", "ConcatV2", "Pack", "SegmentMean", "UnsortedSegmentSum",
    "UnsortedSegmentMin"})
_DATA_ONLY = frozenset({"SegmentMean", "UnsortedSegmentSum", "UnsortedSegmentMin"})

KINDS = ("dtype", "empty", "overflow", "broadcast", "negaxis")


def _arrays(case):
    return [np.asarray(a) for a in case.inputs]


def _dtype_variants(arrays):
    names = {a.dtype.name for a in arrays}
    out = []
    if "float32" in names:
        for to in ("float64", "float16"):
            out.append((f"dtype-{to}", [a.astype(to) if a.dtype.name == "float32" else a
                                        for a in arrays]))
    if "int32" in names:
        targets = ("int64", "uint8", "int8") if names == {"int32"} else ("int64",)
        for to in targets:
            out.append((f"dtype-{to}", [a.astype(to) if a.dtype.name == "int32" else a
                                        for a in arrays]))
    return out


def _empty_variants(arrays):
    """The first float input of rank >= 1 (else the first of rank >= 1) with a 0 dim."""
    ranked = [i for i, a in enumerate(arrays) if a.ndim >= 1]
    floats = [i for i in ranked if arrays[i].dtype.kind in "fc"]
    if not ranked:
        return []
    pick = (floats or ranked)[0]
    shape = arrays[pick].shape
    out = []
    for name, axis in (("empty-first", 0), ("empty-last", len(shape) - 1)):
        if name == "empty-last" and len(shape) < 2:
            continue
        out.append((name, [np.take(a, np.arange(0), axis=axis) if a.shape == shape else a
                           for a in arrays]))
    return out


def _near_limits(a):
    info = np.iinfo(a.dtype)
    wide = a.astype(np.int64)
    near_max = info.max - np.abs(wide) % 4
    near_min = info.min + np.abs(wide) % 4
    return np.where(wide >= 0, near_max, near_min).astype(a.dtype)


def _overflow_variants(case, arrays):
    if case.op_type not in OVERFLOW_OPS:
        return []
    moved = [i for i, a in enumerate(arrays) if a.dtype.kind in "iu" and a.size
             and (case.op_type not in _DATA_ONLY or i == 0)]
    if not moved:
        return []
    return [("overflow", [_near_limits(a) if i in moved else a
                          for i, a in enumerate(arrays)])]


def _broadcast_variants(arrays):
    numeric = [i for i, a in enumerate(arrays) if a.dtype.kind in "fciu" and a.ndim >= 1
               and a.shape[0] > 1]
    for n, i in enumerate(numeric):
        for j in numeric[n + 1:]:
            if arrays[i].shape == arrays[j].shape:
                return [("broadcast", [a[:1] if k == j else a for k, a in enumerate(arrays)])]
    return []


def _negaxis_variants(arrays):
    data = [a for a in arrays if a.dtype.kind in "fciub" and a.ndim >= 1]
    if not data:
        return []
    rank = max(a.ndim for a in data)
    axes = [i for i, a in enumerate(arrays) if a.dtype.kind == "i" and a.ndim <= 1
            and 0 < a.size <= rank
            and (a >= 0).all() and (a < rank).all()]
    if len(axes) != 1:
        return []
    i = axes[0]
    return [("negaxis", [a - rank if k == i else a for k, a in enumerate(arrays)])]


def variants(key, case):
    """``[(name, inputs)]``: the row's derived cases (none for skipped modules)."""
    if key.split("/")[0] in SKIPPED_MODULES:
        return []
    arrays = _arrays(case)
    if any(a.dtype.kind == "O" for a in arrays):
        return _empty_variants(arrays)
    return (_dtype_variants(arrays) + _empty_variants(arrays) + _overflow_variants(case, arrays)
            + _broadcast_variants(arrays) + _negaxis_variants(arrays))


def kind_of(name):
    return name.split("-")[0]


def run(tf, case, inputs):
    """What one derived case gives: ``{"outputs": meta, "values": [...]}`` or
    ``{"error": "build:Class"}`` / ``{"error": "run:Class"}``."""
    g = tf.Graph()
    with g.as_default():
        try:
            if case.as_constants:
                ins, feeds = [tf.constant(a) for a in inputs], {}
            else:
                ins = [tf.placeholder(tf.as_dtype(a.dtype), a.shape, name=f"in{i}")
                       for i, a in enumerate(inputs)]
                feeds = dict(zip(ins, inputs))
            outs = d.as_list(case.build(tf, *ins))
            meta = [{"dtype": d.dtype_name(t), "shape": d.static_shape(t)} for t in outs]
        except Exception as e:  # noqa: BLE001 — the error class is what is compared
            return {"error": f"build:{d.error_name(e)}"}
        try:
            with tf.Session(graph=g) as sess:
                values = d.as_list(sess.run(outs, feeds))
        except Exception as e:  # noqa: BLE001 — the error class is what is compared
            return {"error": f"run:{d.error_name(e)}"}
    return {"outputs": meta, "values": [np.asarray(v) for v in values]}


def fingerprint(case, inputs):
    """The derived inputs' hash: a changed derivation needs a new record."""
    return d.fingerprint(SimpleNamespace(op_type=case.op_type, inputs=inputs))
