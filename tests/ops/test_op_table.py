"""Runs every row of the op table; fails when a registered op type has no row."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import REGISTRY

from .op_table import OpCase, all_exemptions, all_rows

ROWS = all_rows()


def _ids(case: OpCase):
    return case.id or case.op_type


def _build(case: OpCase):
    g = tf.Graph()
    with g.as_default():
        if case.as_constants:
            ins = [tf.constant(a) for a in case.inputs]
            feeds = {}
        else:
            ins = [tf.placeholder(tf.as_dtype(a.dtype), a.shape, name=f"in{i}")
                   for i, a in enumerate(case.inputs)]
            feeds = dict(zip(ins, case.inputs))
        out = case.build(tf, *ins)
    return g, ins, feeds, out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize("case", ROWS, ids=_ids)
def test_forward_and_static_shapes(case: OpCase):
    g, ins, feeds, out = _build(case)
    assert case.op_type in {op.type for op in g.get_operations()}, \
        f"row for {case.op_type} did not build an op of that type"
    outs = _as_list(out)
    with tf.Session(graph=g) as sess:
        got = _as_list(sess.run(outs, feeds))
    for t, v in zip(outs, got):
        v = np.asarray(v)
        assert t.dtype.base_dtype.as_numpy_dtype == v.dtype or t.dtype.base_dtype == tf.string, \
            f"{t.name}: static dtype {t.dtype.name}, runtime {v.dtype}"
        assert t.shape.is_compatible_with(v.shape), \
            f"{t.name}: static shape {t.shape}, runtime {v.shape}"
    if case.check_values:
        want = _as_list(case.ref(*case.inputs))
        assert len(want) == len(got)
        for w, v in zip(want, got):
            np.testing.assert_allclose(np.asarray(v), np.asarray(w), rtol=case.rtol,
                                       atol=case.atol)
    else:
        case.ref(*got)


@pytest.mark.parametrize("case", [c for c in ROWS if not c.as_constants], ids=_ids)
def test_unknown_input_shapes(case: OpCase):
    """With every input dimension unknown, the static shape stays compatible and runs."""
    g = tf.Graph()
    with g.as_default():
        ins = [tf.placeholder(tf.as_dtype(a.dtype), [None] * a.ndim) for a in case.inputs]
        try:
            out = case.build(tf, *ins)
        except (ValueError, TypeError) as e:
            pytest.skip(f"needs static shapes: {e}")
    outs = _as_list(out)
    with tf.Session(graph=g) as sess:
        got = _as_list(sess.run(outs, dict(zip(ins, case.inputs))))
    for t, v in zip(outs, got):
        assert t.shape.is_compatible_with(np.shape(v)), f"{t.name}: {t.shape} vs {np.shape(v)}"


@pytest.mark.parametrize("case", [c for c in ROWS if c.check_values], ids=_ids)
def test_kernel_aliasing_is_declared(case: OpCase):
    """A kernel may return (a view of) an input only when its OpDef says aliases=True."""
    g, ins, feeds, out = _build(case)
    sess = tf.Session(graph=g)
    for op in g.get_operations():
        od = op.op_def
        if od.stateful or od.aliases or od.kernel is None or not op.inputs:
            continue
        in_vals = sess.run(list(op.inputs), feeds)
        in_vals = [np.asarray(v) for v in in_vals]
        result = od.kernel(*in_vals, **op.attrs)
        for r in _as_list(result):
            for v in in_vals:
                assert not np.shares_memory(np.asarray(r), v), \
                    f"{op.type} kernel returned memory shared with an input; declare aliases=True"


def test_every_registered_op_has_a_row():
    covered = {c.op_type for c in ROWS}
    exempt = all_exemptions()
    missing = sorted(t for t in REGISTRY if t not in covered and t not in exempt)
    assert not missing, f"op types without a row in tests/ops/rows_*.py: {missing}"
    for t, why in exempt.items():
        assert why and len(why) > 10, f"exemption for {t} needs a reason"
