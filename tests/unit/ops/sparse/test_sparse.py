"""SparseTensor, sparse placeholders/feeds/fetches, segment ops and embedding_lookup_sparse.

Literal expectations were printed by TensorFlow 2.21 (TF1 mode); ``test_matches_tf_live``
re-derives them from the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

IDS = dict(indices=[[0, 0], [0, 1], [1, 0], [2, 0]], dense_shape=[3, 2])
WEIGHTS = [0.1, 1.0, 0.5, 2.0]

# TF 2.21: embedding_lookup_sparse over params = arange(12).reshape(6, 2), ids [0, 1, 3, 1].
TF_VALUES = {
    "sum": [[2.0, 4.0], [6.0, 7.0], [2.0, 3.0]],
    "sum_w": [[2.0, 3.0999999046325684], [3.0, 3.5], [4.0, 6.0]],
    "mean": [[1.0, 2.0], [6.0, 7.0], [2.0, 3.0]],
    "mean_w": [[1.8181817531585693, 2.8181817531585693], [6.0, 7.0], [2.0, 3.0]],
    "sqrtn": [[1.4142135381698608, 2.8284270763397217], [6.0, 7.0], [2.0, 3.0]],
    "sqrtn_w": [[1.9900742769241333, 3.0846149921417236], [6.0, 7.0], [2.0, 3.0]],
}
TF_OPS_WEIGHTED = [
    "strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2", "strided_slice",
    "Unique", "embedding_lookup/axis", "embedding_lookup", "embedding_lookup/Identity", "Cast",
    "GatherV2/axis", "GatherV2", "Rank", "sub/y", "sub", "ExpandDims/dim", "ExpandDims",
    "Shape", "ones/Const", "ones", "concat/axis", "concat", "Reshape", "mul", ""]

PROGRAM = """
p = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
ids = tf.SparseTensor(values=tf.constant([0, 1, 3, 1], tf.int64), **IDS)
w = tf.SparseTensor(values=WEIGHTS, **IDS)
outs = {}
for comb in ["sum", "mean", "sqrtn"]:
    outs[comb] = tf.nn.embedding_lookup_sparse(p, ids, None, combiner=comb)
    outs[comb + "_w"] = tf.nn.embedding_lookup_sparse(p, ids, w, combiner=comb)
weighted = [op.name for op in tf.get_default_graph().get_operations()
            if op.name.startswith("embedding_lookup_sparse_1")]
g = tf.gradients(outs["mean"], p)[0]
gw = tf.gradients(outs["sqrtn_w"], p)[0]
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    vals = {k: v.tolist() for k, v in s.run(outs).items()}
    gv, gwv = s.run([g, gw])
result = {"values": vals, "weighted_ops": weighted, "grad_type": type(g).__name__,
          "grad": [gv.values.tolist(), gv.indices.tolist(), gv.dense_shape.tolist()],
          "grad_w": [gwv.values.tolist(), gwv.indices.tolist()],
          "grad_ops": [g.values.op.type, g.dense_shape.name]}
"""


def _run_program(tf_module):
    scope = {"tf": tf_module, "np": np, "IDS": IDS, "WEIGHTS": WEIGHTS}
    exec(PROGRAM, scope)
    return scope["result"]


def test_embedding_lookup_sparse_matches_tf_values_names_and_sparse_grads():
    r = _run_program(tf)
    for k, want in TF_VALUES.items():
        np.testing.assert_allclose(r["values"][k], want, rtol=1e-6, err_msg=k)
    assert r["weighted_ops"] == [("embedding_lookup_sparse_1/" + n).rstrip("/")
                                 for n in TF_OPS_WEIGHTED]
    assert r["grad_type"] == "IndexedSlices"
    assert r["grad_ops"] == ["SparseSegmentMeanGradV2",
                            "gradients/embedding_lookup_sparse_2_grad/Shape:0"]
    np.testing.assert_allclose(r["grad"][0], [[0.5, 0.5], [1.5, 1.5], [1.0, 1.0]])
    assert r["grad"][1:] == [[0, 1, 3], [6, 2]]
    np.testing.assert_allclose(r["grad_w"][0], [[0.09950372] * 2, [1.9950371] * 2, [1.0] * 2],
                               rtol=1e-6)
    assert r["grad_w"][1] == [0, 1, 3]


@pytest.mark.tf
def test_matches_tf_live(tf1):
    code = (f"IDS = {IDS!r}\nWEIGHTS = {WEIGHTS!r}\ntf.disable_v2_behavior()\n" + PROGRAM +
            "print(json.dumps(result))")
    theirs = tf1(code)
    ours = _run_program(tf)
    assert ours["weighted_ops"] == theirs["weighted_ops"]
    assert ours["grad_type"] == theirs["grad_type"]
    assert ours["grad_ops"] == theirs["grad_ops"]
    for k in theirs["values"]:
        np.testing.assert_allclose(ours["values"][k], theirs["values"][k], rtol=1e-6)
    np.testing.assert_allclose(ours["grad"][0], theirs["grad"][0], rtol=1e-6)
    assert ours["grad"][1:] == theirs["grad"][1:]


def test_sparse_tensor_constants_shape_and_fetch():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "SparseTensor/indices", "SparseTensor/values", "SparseTensor/dense_shape"]
    assert st.shape.as_list() == [3, 4] and st.dtype == tf.float32
    assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64
    with tf.Session() as sess:
        value = sess.run(st)
        both = sess.run({"sp": st, "dense": tf.sparse.to_dense(st)})
    assert isinstance(value, tf.SparseTensorValue)
    np.testing.assert_array_equal(value.indices, [[0, 0], [1, 2]])
    np.testing.assert_array_equal(value.dense_shape, [3, 4])
    assert isinstance(both["sp"], tf.SparseTensorValue)
    assert both["dense"][1, 2] == 2.0 and both["dense"].sum() == 3.0


def test_sparse_placeholder_names_and_feeds():
    sp = tf.sparse_placeholder(tf.float32)
    named = tf.sparse_placeholder(tf.float32, shape=[3, 4], name="named")
    # TF 2.21's names and order (the dense shape first).
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()] == [
        ("Placeholder", "Placeholder"), ("Placeholder_1", "Placeholder"),
        ("Placeholder_2", "Placeholder"), ("named/shape_default", "Const"),
        ("named/shape", "PlaceholderWithDefault"), ("named/values", "Placeholder"),
        ("named/indices", "Placeholder")]
    assert sp.indices.shape.as_list() == [None, None] and sp.shape.ndims is None
    assert named.shape.as_list() == [3, 4] and named.indices.shape.as_list() == [None, 2]
    dense = tf.sparse.to_dense(sp)
    with tf.Session() as sess:
        a = sess.run(dense, {sp: ([[0, 1]], [5.0], [2, 2])})
        b = sess.run(sp, {sp: tf.SparseTensorValue([[0, 1]], [5.0], [2, 2])})
        c = sess.run(tf.sparse.to_dense(named), {named: ([[2, 3]], [1.5], [3, 4])})
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {sp: np.zeros((2, 2))})
    np.testing.assert_array_equal(a, [[0, 5], [0, 0]])
    assert isinstance(b, tf.SparseTensorValue) and b.values.tolist() == [5.0]
    assert c.shape == (3, 4) and c[2, 3] == 1.5


def test_fetching_indexed_slices_gives_a_value():
    p = tf.Variable(tf.zeros([4, 2]))
    g = tf.gradients(tf.gather(p, [1, 3, 1]), p)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = sess.run(g)
    assert isinstance(v, tf.IndexedSlicesValue)
    assert v.indices.tolist() == [1, 3, 1] and v.values.shape == (3, 2)


def test_segment_errors_name_the_problem():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
            sess.run(tf.math.segment_sum([1.0, 2.0, 3.0], [1, 0, 1]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"bad indices\[1\] = 7"):
            sess.run(tf.sparse.segment_sum([[1.0], [2.0]], [0, 7], [0, 0]))
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        tf.nn.embedding_lookup_sparse(tf.zeros([3, 2]), [0, 1], None)
    with pytest.raises(ValueError, match="combiner must be one of"):
        tf.nn.embedding_lookup_sparse(tf.zeros([3, 2]), tf.SparseTensor([[0, 0]], [1], [1, 1]),
                                      None, combiner="max")


def test_embedding_lookup_sparse_trains_sparsely():
    """An optimizer step through the fast path touches only the looked-up rows."""
    emb = tf.Variable(tf.ones([6, 2]))
    ids = tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1]], values=tf.constant([4, 1, 4],
                                                                             tf.int64),
                          dense_shape=[2, 2])
    loss = tf.reduce_sum(tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="sum"))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        after = sess.run(emb)
    np.testing.assert_allclose(after[:, 0], [1, 0.5, 1, 1, 0, 1])  # row 4 seen twice
