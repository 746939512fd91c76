"""Runs every row of the op table; fails when a registered op type has no row."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.dtypes import storage_dtype
from scopeflow.framework.opdef import REGISTRY
from scopeflow.runtime.passes import pass_through

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
        # storage_dtype: the quantized types run as their plain integers (as TF's fetches)
        assert storage_dtype(t.dtype) == v.dtype or t.dtype.base_dtype == tf.string, \
            f"{t.name}: static dtype {t.dtype.name}, runtime {v.dtype}"
        assert t.shape.is_compatible_with(v.shape), \
            f"{t.name}: static shape {t.shape}, runtime {v.shape}"
    if case.check_values:
        want = _as_list(case.ref(*case.inputs))
        assert len(want) == len(got)
        for w, v in zip(want, got):
            v, w = np.asarray(v), np.asarray(w)
            if v.dtype.kind in "OSU" or w.dtype.kind in "OSU":  # strings: equal, not close
                np.testing.assert_array_equal(v, w)
            else:
                np.testing.assert_allclose(v, w, rtol=case.rtol, atol=case.atol)
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
        if any(t.dtype.base_dtype == tf.variant for t in list(op.inputs) + op.outputs):
            continue  # a TensorArray's flow is a list holding its elements, not an array
        if op._cf_context is not None:
            continue  # inside a cond branch or loop body: its inputs are not fetchable
        in_vals = sess.run(list(op.inputs), feeds)
        in_vals = [np.asarray(v) for v in in_vals]
        result = od.kernel(*in_vals, **op.attrs)
        for r in _as_list(result):
            for v in in_vals:
                assert not np.shares_memory(np.asarray(r), v), \
                    f"{op.type} kernel returned memory shared with an input; declare aliases=True"


def test_ops_said_to_forward_their_input_return_it():
    """Where ``pass_through``'s rules name an input (plans then skip the op),
    the kernel's result is that input's shape, dtype and bits, and its memory where the op
    declares ``aliases``: every such op in the table's graphs is checked, with the values
    of its ``Const`` inputs as the plan has them."""
    checked = set()
    for case in ROWS:
        if not case.check_values:
            continue
        g, ins, feeds, out = _build(case)
        sess = tf.Session(graph=g)
        for op in g.get_operations():
            od = op.op_def
            if od.type not in pass_through.RULES or op._cf_context is not None:
                continue  # (inside a branch/body: not fetchable)
            consts = {t: t.op.get_attr("value") for t in op.inputs if t.op.type == "Const"}
            kept = pass_through.forwarded_input(op, consts)
            if kept is None:
                continue
            in_vals = [np.asarray(v) for v in sess.run(list(op.inputs), feeds)]
            result = np.asarray(od.kernel(*in_vals, **op.attrs))
            x = in_vals[kept]
            assert result.shape == x.shape and result.dtype == x.dtype, _ids(case)
            assert result.tobytes() == x.tobytes(), _ids(case)
            if od.aliases:
                assert np.shares_memory(result, x), _ids(case)
            checked.add(op.type)
    assert {"Identity", "StopGradient", "Reshape", "Mul"} <= checked


def test_every_registered_op_has_a_row():
    covered = {c.op_type for c in ROWS}
    exempt = all_exemptions()
    missing = sorted(t for t in REGISTRY if t not in covered and t not in exempt)
    assert not missing, f"op types without a row in tests/ops/rows_*.py: {missing}"
    for t, why in exempt.items():
        assert why and len(why) > 10, f"exemption for {t} needs a reason"


def _has_grad_rule(case: OpCase) -> bool:
    grad = REGISTRY[case.op_type].grad
    return callable(grad)


def _float_inputs(case):
    return [i for i, a in enumerate(case.inputs) if np.asarray(a).dtype.kind == "f"]


GRAD_ROWS = [c for c in ROWS if c.check_grad and not c.as_constants and _float_inputs(c)]


def _build_for_grad(case, dtype):
    g = tf.Graph()
    with g.as_default():
        values = [a.astype(dtype) if a.dtype.kind == "f" else a for a in case.inputs]
        ins = [tf.placeholder(tf.as_dtype(a.dtype), a.shape, name=f"in{i}")
               for i, a in enumerate(values)]
        outs = [t for t in _as_list(case.build(tf, *ins))
                if t.dtype.base_dtype.is_floating]
    return g, ins, values, outs


@pytest.mark.parametrize("case", GRAD_ROWS, ids=_ids)
def test_gradients_match_numeric(case: OpCase):
    """tf.gradients against central differences, for every row whose op has a gradient."""
    if not _has_grad_rule(case):
        pytest.skip(f"{case.op_type} has no gradient rule (grad is "
                    f"{'None' if REGISTRY[case.op_type].grad is None else 'unset'})")
    try:
        g, ins, values, outs = _build_for_grad(case, np.float64)
    except (TypeError, ValueError):
        g, ins, values, outs = _build_for_grad(case, np.float32)
    if not outs:
        pytest.skip("no floating outputs")
    feeds = dict(zip(ins, values))
    rng = np.random.default_rng(1)
    with g.as_default():
        sess = tf.Session(graph=g)
        out_vals = sess.run(outs, feeds)
        weights = [tf.constant(rng.uniform(0.5, 1.5, np.shape(v)).astype(v.dtype))
                   for v in out_vals]
        loss = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outs, weights)])
        wrt = [ins[i] for i in _float_inputs(case)]
        grads = [tf.convert_to_tensor(d) if d is not None else tf.zeros_like(x)
                 for d, x in zip(tf.gradients(loss, wrt), wrt)]
    got = sess.run(grads, feeds)
    eps = 1e-6 if values[0].dtype == np.float64 else 1e-3
    for x, analytic in zip(wrt, got):
        base = feeds[x]
        numeric = np.zeros(base.shape, np.float64)
        flat_idx = range(base.size) if base.size <= 64 else rng.choice(base.size, 24, False)
        for k in flat_idx:
            idx = np.unravel_index(k, base.shape)
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            lp = sess.run(loss, {**feeds, x: plus})
            lm = sess.run(loss, {**feeds, x: minus})
            numeric[idx] = (lp - lm) / (2 * eps)
            np.testing.assert_allclose(
                np.asarray(analytic)[idx], numeric[idx], rtol=case.grad_tol,
                atol=case.grad_tol * max(1.0, np.abs(numeric).max()),
                err_msg=f"d loss / d {x.name}{list(idx)}")


def test_every_registered_op_declares_its_gradient():
    """STYLE: a gradient rule, or an explicit grad=None ("not differentiable"), never unset."""
    from scopeflow.framework.opdef import _UNSET
    unset = sorted(t for t, od in REGISTRY.items() if od.grad is _UNSET)
    assert not unset, f"op types with neither a gradient rule nor grad=None: {unset}"
