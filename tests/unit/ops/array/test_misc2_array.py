"""tf.required_space_to_batch_paddings and tf.ragged_fill_empty_rows(_grad) against
TF 2.21: values, graphs (op names and types), static shapes, errors and gradients."""

from __future__ import annotations

import pytest

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
S = tf.Session
P = tf.placeholder
def ops():
    return [(o.name, o.type) for o in tf.get_default_graph().get_operations()]
def rs(*a):
    p, c = tf.required_space_to_batch_paddings(*a)
    return {"v": S().run([p, c]), "names": [p.name, c.name], "ops": ops()}
rec("rs_const", lambda: rs([5, 7], [2, 3], [[1, 0], [2, 2]]))
rec("rs_plain", lambda: rs([4, 9, 1], [4, 3, 2]))
rec("rs_empty", lambda: rs([], []))
def rs_fed():
    ph = P(tf.int32, [2])
    p, c = tf.required_space_to_batch_paddings(ph, [2, 3], name="r")
    return {"v": S().run([p, c], {ph: [5, 7]}), "n": len(ops()), "shape": sh(p)}
rec("rs_fed", rs_fed)
rec("rs_bad_len", lambda: rs([1, 2, 3], [2, 3]))
rec("rs_unknown_block", lambda: rs([1, 2], P(tf.int32, [None])))
rec("rs_bad_base", lambda: rs([1, 2], [2, 2], [[1, 2, 3]]))
def fill(*a):
    r = tf.ragged_fill_empty_rows(*a)
    return {"v": list(S().run(r)), "shapes": [sh(t) for t in r], "names": [t.name for t in r],
            "ops": ops(), "fields": list(type(r)._fields)}
rec("fill", lambda: fill([0, 0, 2, 4], [1., 2., 3., 4.], 6, -1.))
rec("fill_unsorted", lambda: fill([0, 2, 1], [1., 2., 3.], 4, 0.))
rec("fill_none", lambda: fill(np.zeros([0], np.int64), np.zeros([0], np.float32), 3, 7.))
rec("fill_str", lambda: fill([0, 2], ["a", "b"], 4, "z"))
rec("fill_int", lambda: fill([1], [5], 3, 9))
rec("fill_shapes", lambda: [sh(t) for t in tf.ragged_fill_empty_rows(
    P(tf.int64, [None]), P(tf.float32, [3]), 5, 0.)] + [sh(t) for t in
    tf.ragged_fill_empty_rows(P(tf.int64), P(tf.float32), P(tf.int64), P(tf.float32))])
for key, a in [("dims", ([0, 1], [1., 2., 3.], 4, 0.)), ("nrows_rank", ([0], [1.], [5], 0.)),
               ("default_rank", ([0], [1.], 5, [0.])), ("rowids_rank", ([[0]], [1.], 5, 0.)),
               ("values_rank", ([0], [[1.]], 5, 0.)), ("oob", ([0, 5], [1., 2.], 4, 0.)),
               ("neg", ([0, -1], [1., 2.], 3, 0.)), ("nrows_neg", ([0, 1], [1., 2.], -1, 0.))]:
    rec("fill_" + key, lambda: fill(*a))
rec("fill_i32", lambda: fill(tf.constant([0, 1]), [1., 2.], 3, 0.))
def fill_grad():
    v = tf.constant([1., 2., 3.])
    d = tf.constant(0.)
    r = tf.ragged_fill_empty_rows([1, 1, 3], v, 5, d)
    g = tf.gradients(r.output_values * np.arange(1., 7., dtype=np.float32), [v, d])
    return {"g": S().run(g), "types": [t.op.type for t in g], "names": [t.name for t in g]}
rec("fill_grad", fill_grad)
def fg(*a):
    r = tf.ragged_fill_empty_rows_grad(*a)
    return {"v": list(S().run(r)), "shapes": [sh(t) for t in r], "fields": list(type(r)._fields)}
rec("fg", lambda: fg([0, 1, 3], [1., 2., 3., 4., 5.]))
rec("fg_shapes", lambda: [sh(t) for t in tf.ragged_fill_empty_rows_grad(P(tf.int64, [4]),
                                                                      P(tf.float32))])
rec("fg_rank", lambda: fg(P(tf.int64, [None]), P(tf.float32, [None, 2])))
rec("fg_oob", lambda: fg([0, 5], [1., 2., 3.]))
rec("fg_neg", lambda: fg([0, -1], [1., 2., 3.]))
def fg_grad():
    r = tf.ragged_fill_empty_rows_grad([0, 1], tf.constant([1., 2., 3.]))
    return tf.gradients(r.d_values, [r.d_values.op.inputs[1]])
rec("fg_grad", fg_grad)
'''


def test_misc2_array_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    assert_same(ours, theirs)


def test_ragged_fill_without_tf():
    with tf.Graph().as_default():
        r = tf.ragged_fill_empty_rows([3, 0, 3], [1., 2., 3.], 5, -1.)
        rowids, values, empty, rev = tf.Session().run(r)
    assert rowids.tolist() == [0, 1, 2, 3, 3, 4]
    assert values.tolist() == [2., -1., -1., 1., 3., -1.]
    assert empty.tolist() == [False, True, True, False, True]
    assert rev.tolist() == [3, 0, 4]
    with tf.Graph().as_default():
        p, c = tf.required_space_to_batch_paddings([5], [4], [[1, 1]])
        assert tf.Session().run([p, c])[0].tolist() == [[1, 2]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="reverse index"):
            tf.Session().run(tf.ragged_fill_empty_rows_grad([3], [1., 2.]).d_values)
