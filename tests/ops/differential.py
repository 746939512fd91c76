"""The differential op test's harness: runs one op-table row (tests/ops/rows_*.py) under a
given ``tf`` module — real TensorFlow when ``tests/fixtures/tf_op_table/make_fixture.py``
records its results, scopeflow when ``test_op_table_tf.py`` compares with them.

Every row is run four ways, the same under both frameworks:

* ``forward``: the row's inputs fed to placeholders (constants for ``as_constants`` rows);
  the outputs' static dtypes and shapes and, for rows whose values are deterministic
  (``check_values``), their values;
* ``unknown``: the same build with every input dimension unknown (``[None] * rank``): the
  static shapes TF's shape functions give then;
* ``grad``: ``tf.gradients`` of ``sum(output * w)`` over the float outputs (``w`` fixed
  pseudo-random weights) with respect to each float input: TF's registered gradient, or
  which error it raises, or ``None`` where no gradient flows;
* ``nonfinite``: the float inputs with NaN, +Inf and -Inf written into them: the values,
  or the error class the run raises.

Only the public API is used (the rows' ``build(tf, *inputs)``), so both frameworks build
the same program; a row whose build uses a scopeflow-only helper fails under TF and is
recorded as such (``oracle_error``).
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from pathlib import Path

import numpy as np

FLOAT_KINDS = ("float16", "float32", "float64")


def keyed_rows():
    """``(key, case)`` for every row, keyed ``rows_module/id#n`` (n counts equal ids)."""
    here = Path(__file__).parent
    out, seen = [], {}
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda i: i.name):
        if not info.name.startswith("rows_"):
            continue
        mod = importlib.import_module(f"ops.{info.name}")
        for case in mod.ROWS:
            base = f"{info.name}/{case.id or case.op_type}"
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.append((f"{base}#{n}", case))
    return out


def fingerprint(case) -> str:
    """A hash of the row's inputs (dtypes, shapes, bytes): a changed row needs a new record."""
    h = hashlib.sha256(case.op_type.encode())
    for a in case.inputs:
        a = np.asarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        # Strings by length only: serialized protos (Examples' feature maps) may order their
        # fields differently under TF's protobuf, with the same meaning.
        h.update(a.tobytes() if a.dtype.kind != "O" else
                 repr([len(v) for v in a.reshape(-1)]).encode())
    return h.hexdigest()[:16]


def as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def static_shape(t):
    shape = t.shape
    if shape.dims is None:
        return None
    return [None if d is None else int(d) for d in shape.as_list()]


def dtype_name(t) -> str:
    return t.dtype.base_dtype.name


def _inputs(tf, case, unknown=False):
    if case.as_constants and not unknown:
        return [tf.constant(a) for a in case.inputs], {}
    ins = [tf.placeholder(tf.as_dtype(np.asarray(a).dtype),
                          [None] * np.ndim(a) if unknown else np.shape(a), name=f"in{i}")
           for i, a in enumerate(case.inputs)]
    return ins, dict(zip(ins, case.inputs))


def error_name(e: BaseException) -> str:
    return type(e).__name__


def run_forward(tf, case, inputs=None):
    """``(outs_meta, values)``: static dtype/shape per output and the run's values."""
    case_inputs = case.inputs if inputs is None else inputs
    g = tf.Graph()
    with g.as_default():
        ins, _ = _inputs(tf, case)
        feeds = {} if case.as_constants else dict(zip(ins, case_inputs))
        outs = as_list(case.build(tf, *ins))
        meta = [{"dtype": dtype_name(t), "shape": static_shape(t)} for t in outs]
        with tf.Session(graph=g) as sess:
            values = as_list(sess.run(outs, feeds))
    return meta, [np.asarray(v) for v in values]


def unknown_shapes(tf, case):
    """The outputs' static shapes with every input dimension unknown."""
    if case.as_constants:
        return None
    g = tf.Graph()
    with g.as_default():
        ins, _ = _inputs(tf, case, unknown=True)
        return [static_shape(t) for t in as_list(case.build(tf, *ins))]


def grad_weights(shape, dtype):
    rng = np.random.default_rng(7 + int(np.prod(shape, dtype=np.int64)))
    return rng.uniform(0.5, 1.5, size=shape).astype(dtype)


def run_grads(tf, case):
    """Per input: None (not a float input), "none" (no gradient flows) or the gradient; or
    the error class name when ``tf.gradients`` raises."""
    if case.as_constants:
        return None
    g = tf.Graph()
    with g.as_default():
        ins, feeds = _inputs(tf, case)
        outs = [t for t in as_list(case.build(tf, *ins)) if dtype_name(t) in FLOAT_KINDS]
        float_ins = [t for t in ins if dtype_name(t) in FLOAT_KINDS]
        if not outs or not float_ins:
            return None
        with tf.Session(graph=g) as sess:
            values = sess.run(outs, feeds)
            loss = tf.add_n([tf.reduce_sum(t * grad_weights(np.shape(v), t.dtype.as_numpy_dtype))
                             for t, v in zip(outs, values)])
            try:
                grads = tf.gradients(loss, float_ins)
            except Exception as e:  # noqa: BLE001 — which error TF raises is the record
                return error_name(e)
            live = [gr for gr in grads if gr is not None]
            got = iter(sess.run(live, feeds)) if live else iter(())
    result, k = [], 0
    for t in ins:
        if dtype_name(t) not in FLOAT_KINDS:
            result.append(None)
            continue
        gr = grads[k]
        k += 1
        result.append("none" if gr is None else np.asarray(_dense(next(got))))
    return result


def _dense(value):
    """IndexedSlices' values come back as (values, indices, dense_shape): densify them."""
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):
        out = np.zeros(value.dense_shape, value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return value


def nonfinite_inputs(case):
    """The row's inputs with NaN, +Inf, -Inf written into the float ones (None: no float
    input to write into)."""
    out, changed = [], False
    for a in case.inputs:
        a = np.array(a, copy=True)
        if a.dtype.name in FLOAT_KINDS and a.size:
            flat = a.reshape(-1)
            for pos, v in zip((0, a.size - 1, a.size // 2), (np.nan, np.inf, -np.inf)):
                flat[pos] = v
            changed = True
        out.append(a)
    return out if changed else None
