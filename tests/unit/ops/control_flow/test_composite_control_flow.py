"""Composite tensors (SparseTensor, IndexedSlices, RaggedTensor) through ``tf.cond``,
``tf.case``, ``tf.while_loop`` and ``tf.map_fn``: values, types, output names, static shapes
and errors, against fixed values and against TensorFlow 2.21 (TF1 mode)."""

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf

# One program run under both libraries (``tf`` and ``np`` given); it prints JSON.
CASES = textwrap.dedent('''
out = {}
def rec(k):
    def deco(f):
        with tf.Graph().as_default():
            try:
                out[k] = f()
            except Exception as e:
                out[k] = type(e).__name__ + ": " + str(e).split("\\n")[0]
    return deco

def sp(shape=(3, 4), dt=tf.float32, scale=1):
    return tf.SparseTensor([[0, 1], [2, 3]], tf.constant([scale, 2 * scale], dt), shape)

def P():
    return tf.placeholder(tf.bool, [], name="p")

def sv(v):
    return [v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()]

@rec("cond_sparse")
def _():
    p = P()
    r = tf.cond(p, lambda: sp(), lambda: tf.SparseTensor([[1, 1]], [5.0], [3, 5]))
    with tf.Session() as s:
        return [type(r).__name__, r.indices.name, r.values.name, r.dense_shape.name,
                str(r.shape), str(r.values.shape), sv(s.run(r, {p: False})),
                sv(s.run(r, {p: True}))]

@rec("cond_sparse_vs_dense")
def _():
    tf.cond(P(), lambda: sp(), lambda: tf.zeros([3, 4]))

@rec("cond_sparse_dtypes")
def _():
    tf.cond(P(), lambda: sp(), lambda: sp(dt=tf.int32))

@rec("cond_ragged")
def _():
    p = P()
    r = tf.cond(p, lambda: tf.ragged.constant([[1, 2], [3]]),
                lambda: tf.ragged.constant([[4], [5, 6, 7], [1]]))
    with tf.Session() as s:
        return [type(r).__name__, r.values.name, r.row_splits.name, str(r.shape),
                str(r.row_splits.shape), s.run(r, {p: False}).to_list(),
                s.run(r, {p: True}).to_list()]

@rec("cond_ragged_ranks")
def _():
    tf.cond(P(), lambda: tf.ragged.constant([[1]]), lambda: tf.ragged.constant([[[1]]]))

@rec("cond_tuple_mixed")
def _():
    p = P()
    r = tf.cond(p, lambda: (tf.constant(1.0), sp()), lambda: (tf.constant(2.0), sp(scale=3)))
    with tf.Session() as s:
        a, b = s.run(r, {p: False})
        return [r[0].name, r[1].values.name, float(a), sv(b)]

@rec("cond_indexed_slices")
def _():
    p = P()
    v = tf.get_variable("v", [4, 2], initializer=tf.ones_initializer())
    g = tf.gradients(tf.reduce_sum(tf.gather(v, [1, 3])), v)[0]
    r = tf.cond(p, lambda: g, lambda: g)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        x = s.run(r, {p: True})
        return [type(r).__name__, r.values.name, r.indices.name, x.indices.tolist(),
                x.values.tolist()]

@rec("cond_indexed_slices_vs_dense")
def _():
    v = tf.get_variable("v", [4, 2])
    g = tf.gradients(tf.reduce_sum(tf.gather(v, [1, 3])), v)[0]
    tf.cond(P(), lambda: g, lambda: tf.zeros([4, 2]))

@rec("cond_sparse_gradient")
def _():
    p = P()
    x = tf.constant([1.0, 2.0])
    r = tf.cond(p, lambda: tf.SparseTensor([[0], [1]], x * 3.0, [2]),
                lambda: tf.SparseTensor([[0], [1]], x * x, [2]))
    g = tf.gradients(tf.reduce_sum(r.values), x)[0]
    with tf.Session() as s:
        return [s.run(g, {p: True}).tolist(), s.run(g, {p: False}).tolist()]

@rec("case_sparse")
def _():
    i = tf.placeholder(tf.int32, [])
    r = tf.case([(tf.equal(i, 0), lambda: sp())], default=lambda: sp(scale=2))
    with tf.Session() as s:
        return [type(r).__name__, r.values.name, sv(s.run(r, {i: 1}))]

@rec("while_sparse")
def _():
    def body(i, s):
        return i + 1, tf.SparseTensor(tf.concat([s.indices, s.indices], 0),
                                      tf.concat([s.values, s.values * 2.0], 0), s.dense_shape)
    r = tf.while_loop(lambda i, s: i < 2, body, [0, sp()])
    with tf.Session() as s:
        return [r[0].name, r[1].indices.name, r[1].values.name, r[1].dense_shape.name,
                str(r[1].indices.shape), str(r[1].shape), sv(s.run(r[1]))]

@rec("while_sparse_rank_change")
def _():
    tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.SparseTensor([[0]], [1.0], [3])),
                  [0, sp()])

@rec("while_sparse_bad_invariant")
def _():
    tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s), [0, sp()],
                  shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, None])])

@rec("while_sparse_invariant")
def _():
    r = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s), [0, sp()],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    return [str(r[1].shape), str(r[1].indices.shape)]

@rec("while_sparse_vs_dense")
def _():
    tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.zeros([3, 4])), [0, sp()])

@rec("while_ragged")
def _():
    r = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s.with_values(s.values * 2)),
                      [0, tf.ragged.constant([[1], [2, 3]])])
    with tf.Session() as s:
        return [r[1].values.name, r[1].row_splits.name, str(r[1].shape),
                s.run(r[1]).to_list()]

@rec("map_fn_sparse_out")
def _():
    r = tf.map_fn(lambda x: tf.SparseTensor([[0]], [x], [1]), tf.constant([1.0, 2.0]),
                  dtype=tf.SparseTensorSpec([1], tf.float32))
    with tf.Session() as s:
        return [type(r).__name__, str(r.shape), str(r.indices.shape), sv(s.run(r))]

@rec("map_fn_ragged_out")
def _():
    r = tf.map_fn(lambda x: tf.range(x), tf.constant([1, 3, 0]),
                  fn_output_signature=tf.RaggedTensorSpec([None], tf.int32))
    with tf.Session() as s:
        return [type(r).__name__, str(r.shape), r.ragged_rank, s.run(r).to_list()]

@rec("map_fn_sparse_in")
def _():
    r = tf.map_fn(lambda x: tf.sparse.reduce_sum(x),
                  tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, 4.0, 2.0], [3, 3]),
                  dtype=tf.float32)
    with tf.Session() as s:
        return s.run(r).tolist()

@rec("map_fn_ragged_in")
def _():
    r = tf.map_fn(lambda x: tf.reduce_sum(x), tf.ragged.constant([[1, 2], [3], []]),
                  fn_output_signature=tf.int32)
    with tf.Session() as s:
        return s.run(r).tolist()

@rec("map_fn_ragged_in_out")
def _():
    r = tf.map_fn(lambda x: x * 2, tf.ragged.constant([[1, 2], [3], []]))
    with tf.Session() as s:
        return [type(r).__name__, s.run(r).to_list()]

@rec("map_fn_tensor_spec")
def _():
    r = tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]),
                  fn_output_signature=tf.TensorSpec([], tf.float32))
    with tf.Session() as s:
        return [r.dtype.name, s.run(r).tolist()]

@rec("while_is")
def _():
    v = tf.get_variable("v", [4, 2], initializer=tf.ones_initializer())
    g = tf.gradients(tf.reduce_sum(tf.gather(v, [1, 3])), v)[0]
    r = tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, tf.IndexedSlices(s.values * 2.0, s.indices, s.dense_shape)), [0, g])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer()); x = s.run(r[1])
    return [type(r[1]).__name__, r[1].values.name, str(r[1].values.shape), x.values.tolist()]
@rec("while_grad_sparse")
def _():
    x = tf.constant([1.0, 2.0])
    r = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.SparseTensor(s.indices, s.values * x, s.dense_shape)), [0, tf.SparseTensor([[0], [1]], x, [2])])
    g = tf.gradients(tf.reduce_sum(r[1].values), x)[0]
    with tf.Session() as s: return s.run(g).tolist()
@rec("map_fn_grad_ragged")
def _():
    x = tf.constant([1.0, 2.0, 3.0])
    rt = tf.RaggedTensor.from_row_splits(x, [0, 2, 3])
    r = tf.map_fn(lambda e: tf.reduce_sum(e * e), rt, fn_output_signature=tf.float32)
    g = tf.gradients(tf.reduce_sum(r), x)[0]
    with tf.Session() as s: return s.run(tf.convert_to_tensor(g)).tolist()
@rec("map_fn_dict_sparse")
def _():
    r = tf.map_fn(lambda d: {"a": d["a"] + 1.0, "b": tf.SparseTensor([[0]], [d["a"]], [2])}, {"a": tf.constant([1.0, 2.0])}, fn_output_signature={"a": tf.float32, "b": tf.SparseTensorSpec([2], tf.float32)})
    with tf.Session() as s:
        v = s.run(r)
    return [v["a"].tolist(), v["b"].indices.tolist(), v["b"].dense_shape.tolist()]
print(json.dumps(out))
''')


def _run_scopeflow():
    """CASES under scopeflow, in this process; returns its JSON."""
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(CASES, {"tf": tf, "np": np, "json": json})
    return json.loads(buf.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def ours():
    return _run_scopeflow()


def test_cond_of_sparse_tensors_picks_a_branch_and_keeps_the_true_branch_spec(ours):
    r = ours["cond_sparse"]
    assert r[:5] == ["SparseTensor", "cond/Merge:0", "cond/Merge_1:0", "cond/Merge_2:0",
                     "(3, 4)"]
    assert r[6] == [[[1, 1]], [5.0], [3, 5]]
    assert r[7] == [[[0, 1], [2, 3]], [1.0, 2.0], [3, 4]]


def test_cond_of_ragged_and_indexed_slices_keeps_their_types(ours):
    assert ours["cond_ragged"][0] == "RaggedTensor"
    assert ours["cond_ragged"][3:] == ["(2, ?)", "(3,)", [[4], [5, 6, 7], [1]], [[1, 2], [3]]]
    r = ours["cond_indexed_slices"]
    assert r[0] == "IndexedSlices" and r[3] == [1, 3] and r[4] == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("key", ["cond_sparse_vs_dense", "cond_sparse_dtypes",
                                 "cond_ragged_ranks", "cond_indexed_slices_vs_dense"])
def test_mismatched_composite_branches_are_tf_errors(ours, key):
    assert ours[key].startswith(
        "ValueError: Incompatible return values of 'true_fn' and 'false_fn': The two "
        "structures don't have the same nested structure.")


def test_gradients_flow_through_sparse_values_of_a_cond(ours):
    assert ours["cond_sparse_gradient"] == [[3.0, 3.0], [2.0, 4.0]]


def test_while_loop_carries_a_sparse_tensor_of_growing_length(ours):
    r = ours["while_sparse"]
    assert r[:6] == ["while/Exit:0", "while/Exit_1:0", "while/Exit_2:0", "while/Exit_3:0",
                     "(?, 2)", "(?, ?)"]
    assert r[6][1] == [1.0, 2.0, 2.0, 4.0, 2.0, 4.0, 4.0, 8.0]
    assert r[6][2] == [3, 4]
    assert ours["while_ragged"][3] == [[8], [16, 24]]


def test_map_fn_batches_composite_results_and_slices_composite_elements(ours):
    assert ours["map_fn_sparse_out"] == ["SparseTensor", "(2, 1)", "(?, 2)",
                                         [[[0, 0], [1, 0]], [1.0, 2.0], [2, 1]]]
    assert ours["map_fn_ragged_out"] == ["RaggedTensor", "(3, ?)", 1, [[0], [0, 1, 2], []]]
    assert ours["map_fn_sparse_in"] == [1.0, 6.0, 0.0]
    assert ours["map_fn_ragged_in"] == [3, 3, 0]
    assert ours["map_fn_ragged_in_out"] == ["RaggedTensor", [[2, 4], [6], []]]


def test_indexed_slices_loop_variables_and_gradients_through_composites(ours):
    assert ours["while_is"] == ["IndexedSlices", "while/Exit_1:0", "(2, 2)",
                                [[4.0, 4.0], [4.0, 4.0]]]
    assert ours["while_grad_sparse"] == [4.0, 32.0]  # d/dx of x * x**3
    assert ours["map_fn_grad_ragged"] == [2.0, 4.0, 6.0]
    assert ours["map_fn_dict_sparse"] == [[2.0, 3.0], [[0, 0], [1, 0]], [2, 2]]


# Outputs named after TF's variant encode/decode ops, which scopeflow's map_fn does not
# build (it gathers the components in the loop): compared without names.
_NAMES_DIFFER = {"map_fn_sparse_out", "map_fn_ragged_out"}


def test_composites_in_control_flow_match_tensorflow(tf1, ours):
    theirs = tf1("tf.disable_v2_behavior()\n" + CASES)
    assert set(theirs) == set(ours)
    differ = []
    for key in sorted(theirs):
        mine, tfs = ours[key], theirs[key]
        if isinstance(tfs, str) and "Error" in tfs:
            # messages show tensors as each library prints them: compare the words before
            mine, tfs = mine.split(" str=")[0], tfs.split(" str=")[0]
        elif key in _NAMES_DIFFER:
            mine, tfs = _unnamed(mine), _unnamed(tfs)
        if mine != tfs:
            differ.append((key, mine, tfs))
    assert not differ


def _unnamed(values):
    return [v for v in values if not (isinstance(v, str) and ":" in v)]
