"""tf.linspace / tf.lin_space (TF 2.21's linspace_nd under TF1 names) and the LinSpace op."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops import array_ops

# TF's values for linspace(0.1, 0.7, 7) in float32, as float64 (from the tf1 oracle).
TF_0P1_0P7_7 = [0.10000000149011612, 0.19999998807907104, 0.29999998211860657,
                0.3999999761581421, 0.4999999701976776, 0.5999999642372131,
                0.699999988079071]

# The ops TF 2.21 builds for tf.linspace(-3.0, 3.0, 32), in order (from the tf1 oracle).
TF_OP_NAMES = (
    "start stop num Cast Cast_1 Shape Shape_1 BroadcastArgs BroadcastTo BroadcastTo_1 "
    "ExpandDims/dim ExpandDims ExpandDims_1/dim ExpandDims_1 Shape_2 Shape_3 "
    "strided_slice/stack strided_slice/stack_1 strided_slice/stack_2 strided_slice add/y add "
    "SelectV2/condition SelectV2/t SelectV2 sub/y sub Maximum/y Maximum sub_1/y sub_1 "
    "Maximum_1/y Maximum_1 sub_2 Cast_2 truediv GreaterEqual/y GreaterEqual SelectV2_1/e "
    "SelectV2_1 range/start range/delta range/Cast range Cast_3 range_1/start range_1/delta "
    "range_1 Equal SelectV2_2/e SelectV2_2 Reshape mul add_1 concat zeros_like Const "
    "strided_slice_1/stack strided_slice_1/stack_1 strided_slice_1/stack_2 strided_slice_1 "
    "Reshape_1/shape Reshape_1 add_2/y add_2 Const_1 Const_2 strided_slice_2/stack "
    "strided_slice_2/stack_1 strided_slice_2/stack_2 strided_slice_2 concat_1/axis concat_1 "
    "Slice").split()


def test_graph_names_shape_and_values():
    t = tf.linspace(0.1, 0.7, 7)
    assert t.op.type == "Slice" and t.name == "linspace/Slice:0"
    assert t.shape.as_list() == [7] and t.dtype == tf.float32
    tf.reset_default_graph()
    tf.linspace(-3.0, 3.0, 32)
    assert [op.name for op in tf.get_default_graph().get_operations()] == \
        ["linspace/" + n for n in TF_OP_NAMES]
    with tf.Session() as s:
        assert s.run(tf.lin_space(0.1, 0.7, 7)).tolist() == TF_0P1_0P7_7


def test_start_plus_i_times_step_in_the_dtype_and_stop_last():
    with tf.Session() as s:
        v = s.run(tf.linspace(-3.0, 3.0, 100))
    step = np.float32(6) / np.float32(99)
    np.testing.assert_array_equal(v[:-1], np.float32(-3) + np.arange(99, dtype=np.float32) * step)
    assert v[-1] == np.float32(3.0)


def test_dynamic_num_ints_broadcasting_and_axis():
    n = tf.placeholder(tf.int32)
    d = tf.linspace(0.0, 1.0, n)
    i = tf.linspace(1, 5, 3)  # integers divide to float64, as TF
    m = tf.linspace([0.0, 1.0], [[1.0], [3.0], [5.0]], 4, axis=1)
    assert d.shape.as_list() == [None] and i.dtype == tf.float64
    assert m.shape.as_list() == [3, 4, 2]
    with tf.Session() as s:
        assert s.run(d, {n: 5}).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
        assert s.run(d, {n: 1}).tolist() == [0.0] and s.run(d, {n: 0}).tolist() == []
        assert s.run(i).tolist() == [1.0, 3.0, 5.0]
        np.testing.assert_allclose(s.run(m)[2, :, 1], [1.0, 7 / 3, 11 / 3, 5.0], rtol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
            s.run(d, {n: -1})


def test_gradient_flows_to_start_and_stop():
    start, stop = tf.constant([1.0, 2.0]), tf.constant(5.0)
    g = tf.gradients(tf.reduce_sum(tf.linspace(start, stop, 5) ** 2), [start, stop])
    with tf.Session() as s:
        gs, gt = s.run(g)
    # d/d start of sum_i (start + (stop - start) i/4)^2 = sum_i 2 v_i (1 - i/4)
    v = np.linspace([1.0, 2.0], 5.0, 5)
    w = 1 - np.arange(5)[:, None] / 4
    np.testing.assert_allclose(gs, (2 * v * w).sum(0), rtol=1e-6)
    np.testing.assert_allclose(gt, (2 * v * (1 - w)).sum(), rtol=1e-6)


def test_lin_space_op_kernel_and_errors():
    op = array_ops.lin_space_op
    n = tf.placeholder(tf.int32)
    t = op.bind(-1.0, 2.0, 4)
    assert t.op.type == "LinSpace" and t.shape.as_list() == [4]
    with tf.Session() as s:
        assert s.run(t).tolist() == [-1.0, 0.0, 1.0, 2.0]
        assert s.run(op.bind(0.1, 0.7, 7)).tolist() == TF_0P1_0P7_7
        with pytest.raises(tf.errors.InvalidArgumentError, match="Requires num > 0: 0"):
            s.run(op.bind(0.0, 1.0, n), {n: 0})
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        op.bind(1, 2, 3)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        op.bind([1.0], [2.0], 3)
    x = tf.constant(1.0)
    assert tf.gradients(op.bind(x, 2.0, 3), x) == [None]  # TF: NotDifferentiable


def test_namespaces():
    assert tf.linspace is tf.lin_space
    assert not hasattr(tf.math, "linspace")  # TF1's tf.math has no linspace


@pytest.mark.tf
def test_values_and_gradients_match_tensorflow(tf1):
    cases = [(-3.0, 3.0, 100), (0.1, 0.7, 7), (1e-3, 7.3, 33), (5.0, -2.5, 13), (2.0, 2.0, 3)]
    code = f"""
    tf.disable_v2_behavior()
    ts = [tf.linspace(a, b, n) for a, b, n in {cases!r}]
    a = tf.constant([1.0, -2.0]); b = tf.constant([[3.0], [0.5]])
    m = tf.linspace(a, b, 6, axis=-1)
    g = tf.gradients(tf.reduce_sum(tf.sin(m)), [a, b])
    with tf.Session() as s:
        vals = s.run(ts + [m] + g)
    print(json.dumps([v.view(np.uint32).tolist() for v in vals[:-3]]
                     + [v.tolist() for v in vals[-3:]] + [m.shape.as_list()]))
    """
    want = tf1(code)
    ts = [tf.linspace(a, b, n) for a, b, n in cases]
    a = tf.constant([1.0, -2.0])
    b = tf.constant([[3.0], [0.5]])
    m = tf.linspace(a, b, 6, axis=-1)
    g = tf.gradients(tf.reduce_sum(tf.sin(m)), [a, b])
    with tf.Session() as s:
        vals = s.run(ts + [m] + g)
    assert [v.view(np.uint32).tolist() for v in vals[:-3]] == want[:len(cases)]
    assert m.shape.as_list() == want[-1]
    for got, exp in zip(vals[-3:], want[len(cases):-1]):
        np.testing.assert_allclose(got, exp, rtol=1e-6)
