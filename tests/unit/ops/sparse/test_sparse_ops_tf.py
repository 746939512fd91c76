"""tf.sparse's ops, tf.sets and edit_distance against NumPy references, and against
TensorFlow 2.21 (tf.compat.v1) live: one program builds every case under both libraries and
compares values, dtypes, static shapes of each SparseTensor component (unknown dimensions
included), gradients and the errors bad inputs raise."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

# One program for both libraries: ``CASES(tf)`` returns name -> what to fetch (a Tensor,
# a SparseTensor, or a list of them); ``RUN`` fetches each in its own session and records
# values, dtypes and static shapes, or the error's class and message.
PROGRAM = r'''
def CASES(tf):
    f32 = np.float32
    a = tf.SparseTensor([[0, 0], [1, 2], [2, 1], [2, 3]], f32([1.5, -2.0, 0.5, 3.0]), [3, 4])
    b = tf.SparseTensor([[0, 1], [1, 2], [2, 3]], f32([4.0, 2.0, -3.0]), [3, 4])
    c3 = tf.SparseTensor([[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 2], [1, 1, 1]],
                         f32([1., 2., 3., 4., 5.]), [2, 2, 3])
    d = tf.constant(np.arange(20, dtype=f32).reshape(4, 5) / 7)
    pu = tf.sparse_placeholder(tf.float32)
    ps = tf.sparse_placeholder(tf.float32, shape=[3, None])
    v_ph = tf.placeholder(tf.float32, [None])
    i_ph = tf.placeholder(tf.int64, [None, 2])
    dyn = tf.SparseTensor(i_ph, v_ph, [3, 4])
    out = {}
    out["add"] = tf.sparse.add(a, b)
    out["add_thresh"] = tf.sparse_add(a, b, threshold=1.8)
    out["add_dense"] = tf.sparse.add(a, tf.ones([3, 4]))
    out["add_dense_rev"] = tf.sparse.add(tf.ones([3, 4]), a)
    out["add_unknown"] = tf.sparse.add(pu, pu)
    out["add_int"] = tf.sparse.add(tf.SparseTensor([[0], [2]], [1, 2], [3]),
                                   tf.SparseTensor([[1], [2]], [5, -2], [3]))
    out["matmul"] = tf.sparse.matmul(a, d)
    out["matmul_adj"] = tf.sparse_tensor_dense_matmul(a, tf.transpose(d[:3]), adjoint_a=True,
                                                      adjoint_b=True)
    out["matmul_unknown"] = tf.sparse.sparse_dense_matmul(pu, d)
    out["matmul_sparse_b"] = tf.sparse.matmul(tf.transpose(d[:3, :2]), a)
    out["reduce_sum_all"] = tf.sparse.reduce_sum(a)
    out["reduce_sum_1"] = tf.sparse.reduce_sum(c3, 1)
    out["reduce_sum_neg_keep"] = tf.sparse_reduce_sum(c3, [-1, 0], keepdims=True)
    out["reduce_sum_unknown"] = tf.sparse.reduce_sum(pu, 1)
    out["reduce_sum_sparse"] = tf.sparse.reduce_sum_sparse(c3, 2)
    out["reduce_sum_sparse_keep"] = tf.sparse_reduce_sum_sparse(c3, 1, keep_dims=True)
    out["reduce_max"] = tf.sparse.reduce_max(c3, [0, 2])
    out["reduce_max_empty_row"] = tf.sparse.reduce_max(a, 0)
    out["reduce_max_sparse"] = tf.sparse.reduce_max_sparse(c3, 0)
    out["reduce_max_int"] = tf.sparse_reduce_max(
        tf.SparseTensor([[0, 1], [1, 1]], [-4, -7], [3, 2]), 1)
    out["softmax"] = tf.sparse.softmax(c3)
    out["softmax64"] = tf.sparse_softmax(tf.SparseTensor([[0, 0], [0, 3], [2, 2]],
                                                         np.float64([1, 3, -2]), [3, 4]))
    out["maximum"] = tf.sparse.maximum(a, b)
    out["minimum"] = tf.sparse_minimum(a, b)
    out["sparse_matmul"] = tf.sparse_matmul(d, tf.transpose(d), a_is_sparse=True)
    out["reshape"] = tf.sparse.reshape(c3, [-1, 4])
    out["reshape_unknown"] = tf.sparse_reshape(pu, [2, -1])
    out["reshape_partial"] = tf.sparse.reshape(ps, [-1])
    out["slice"] = tf.sparse.slice(c3, [0, 1, 1], [2, 5, 2])
    out["concat"] = tf.sparse.concat(1, [a, b])
    out["concat_0"] = tf.sparse_concat(0, [a, b, a])
    out["concat_expand"] = tf.sparse.concat(1, [a, tf.SparseTensor([[4, 0]], f32([9.]), [5, 2])],
                                            expand_nonconcat_dim=True)
    out["concat_partial"] = tf.sparse.concat(-1, [ps, a])
    out["split"] = tf.sparse.split(sp_input=c3, num_split=2, axis=2)
    out["split_0"] = tf.sparse_split(sp_input=a, num_split=3, axis=0)
    out["fill"] = list(tf.sparse.fill_empty_rows(a, -1.0))
    out["fill_dyn"] = list(tf.sparse_fill_empty_rows(tf.SparseTensor(
        [[1, 0], [3, 2]], [1, 2], [5, 3]), 7))
    out["retain"] = tf.sparse.retain(a, [True, False, False, True])
    out["reset_shape"] = tf.sparse.reset_shape(a)
    out["reset_shape_new"] = tf.sparse_reset_shape(a, [4, 6])
    out["transpose"] = tf.sparse.transpose(c3)
    out["transpose_perm"] = tf.sparse_transpose(c3, [1, 0, 2])
    out["expand_dims"] = tf.sparse.expand_dims(a, 1)
    out["expand_dims_neg"] = tf.sparse.expand_dims(c3, -1)
    out["eye"] = tf.sparse.eye(3, 5, dtype=tf.int32)
    out["from_dense"] = tf.sparse.from_dense([[0., 1.5], [-2., 0.]])
    out["to_indicator"] = tf.sparse.to_indicator(
        tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [4, 1, 2], [2, 2]), 6)
    out["merge"] = tf.sparse.merge(
        tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 0, 2], tf.int64), [2, 2]),
        tf.SparseTensor([[0, 0], [0, 1], [1, 0]], f32([1., 2., 3.]), [2, 2]), 4)
    out["reorder"] = tf.sparse_reorder(tf.SparseTensor([[2, 1], [0, 3], [1, 0]],
                                                       f32([1, 2, 3]), [3, 4]))
    out["reorder_partial"] = tf.sparse.reorder(ps)
    m = tf.sparse.mask(tf.IndexedSlices(tf.reshape(tf.range(9.), [3, 3]),
                                        tf.constant([0, 2, 5]), tf.constant([6, 3])),
                       tf.constant([2]))
    out["mask"] = [m.values, m.indices]
    out["to_dense"] = tf.sparse.to_dense(tf.sparse.add(a, b))
    out["ctt"] = tf.convert_to_tensor_or_sparse_tensor([1, 2])
    # tf.sets: dense/dense, dense/sparse, sparse/sparse (flipped for sparse/dense), strings
    sa = tf.constant([[1, 2, 2, 3], [4, 5, 6, 6]])
    sb = tf.constant([[3, 1, 9, 9], [7, 8, 9, 9]])
    ssp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 7, 6], [2, 2])
    s3 = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 1, 0]], tf.constant([5, 2, 5], tf.int64),
                         [2, 2, 3])
    d3 = tf.constant(np.int64([[[2, 5], [1, 1]], [[0, 5], [5, 7]]]))
    out["sets_intersection"] = tf.sets.intersection(sa, sb)
    out["sets_union"] = tf.sets.union(sa, sb)
    out["sets_difference"] = tf.sets.difference(sa, sb)
    out["sets_difference_ba"] = tf.sets.set_difference(sa, sb, aminusb=False)
    out["sets_dense_sparse"] = tf.sets.union(sa, ssp)
    out["sets_sparse_dense_flip"] = tf.sets.difference(ssp, sa)
    out["sets_sparse_sparse"] = tf.sets.set_intersection(ssp, ssp)
    out["sets_3d"] = tf.sets.union(d3, s3)
    out["sets_3d_diff"] = tf.sets.difference(s3, s3)
    out["sets_strings"] = tf.sets.union(tf.constant([["b", "a"], ["c", "c"]]),
                                        tf.constant([["a", "z"], ["", "c"]]))
    out["sets_size"] = tf.sets.size(ssp)
    out["sets_size_3d"] = tf.sets.set_size(s3)
    out["sets_unknown"] = tf.sets.intersection(tf.placeholder_with_default(sa, None), sb)
    out["err_sets_order"] = tf.sets.size(tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2]))
    # edit_distance
    h = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [3, 1]], ["a", "b", "c", "x", "q"],
                        [4, 2])
    t = tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]], ["a", "c", "d", "q"], [4, 2])
    out["edit_distance"] = tf.edit_distance(h, t)
    out["edit_distance_raw"] = tf.edit_distance(h, t, normalize=False)
    h3 = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0]], [1, 2, 3, 4], [2, 1, 3])
    t3 = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [1, 0, 0]],
                         [2, 2, 3, 1, 4], [2, 1, 4])
    out["edit_distance_3d"] = tf.edit_distance(h3, t3)
    out["edit_distance_unknown"] = tf.edit_distance(pu, pu)
    # serialization: TF's exact bytes (compared as hex below)
    sb_ = tf.SparseTensor([[0, 1], [2, 0], [2, 3]], ["x", "", "yy"], [3, 4])
    empty = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [2, 5])
    out["serialize"] = tf.serialize_sparse(a)
    out["serialize_str"] = tf.io.serialize_sparse(sb_)
    out["serialize_empty"] = tf.serialize_sparse(empty)
    out["serialize_many"] = tf.serialize_many_sparse(c3)
    out["serialize_many_str"] = tf.io.serialize_many_sparse(sb_)
    out["deserialize_many"] = tf.deserialize_many_sparse(tf.serialize_many_sparse(c3),
                                                         tf.float32, rank=3)
    out["deserialize_many_str"] = tf.io.deserialize_many_sparse(
        tf.serialize_many_sparse(sb_), tf.string)
    out["deserialize_many_empty"] = tf.deserialize_many_sparse(
        tf.serialize_many_sparse(empty), tf.int32)
    out["err_deserialize_dtype"] = tf.deserialize_many_sparse(tf.serialize_many_sparse(c3),
                                                              tf.int32)
    # feature crosses: strings, and farmhash FingerprintCat64 hashes
    xa = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    xb = tf.constant([["d", "e"], ["f", "g"]])
    xc = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 2, 3], tf.int64), [2, 3])
    xi = tf.constant([[7], [-9]])
    out["cross"] = tf.sparse.cross([xa, xb, xc])
    out["cross_sep"] = tf.sparse.cross([xb, xa], separator="|")
    out["cross_int32"] = tf.sparse.cross([xi, xc])
    out["cross_hashed"] = tf.sparse.cross_hashed([xa, xb, xc])
    out["cross_hashed_buckets"] = tf.sparse.cross_hashed([xa, xc, xi], num_buckets=100,
                                                         hash_key=7)
    out["cross_hashed_strings"] = tf.sparse.cross_hashed([xb, xa], num_buckets=1000)
    # tf.sparse.bincount
    cv = tf.constant([[1, 3, 3, 0], [5, 1, 1, 1]])
    csp = tf.SparseTensor([[0, 1], [0, 3], [2, 0], [2, 2]], tf.constant([4, 2, 4, 4], tf.int64),
                          [3, 5])
    out["bincount"] = tf.sparse.bincount(cv)
    out["bincount_rows"] = tf.sparse.bincount(cv, axis=-1, minlength=8)
    out["bincount_max"] = tf.sparse.bincount(cv, axis=-1, maxlength=3)
    out["bincount_binary"] = tf.sparse.bincount(cv, axis=-1, binary_output=True)
    out["bincount_weights"] = tf.sparse.bincount(cv, weights=tf.constant([[.5, 1, 2, 3],
                                                                          [1, 1, 1, 1.5]]))
    out["bincount_sparse"] = tf.sparse.bincount(csp)
    out["bincount_sparse_rows"] = tf.sparse.bincount(csp, axis=-1, weights=tf.SparseTensor(
        csp.indices, [1., 2., 3., 4.], csp.dense_shape))
    # gradients (TF's registered rules)
    av, bv = a.values, b.values
    loss_mm = tf.reduce_sum(tf.sparse.matmul(a, d) * tf.sin(d[:3]))
    out["grad_matmul"] = tf.gradients(loss_mm, [av, d])
    for adj_a in (False, True):
        for adj_b in (False, True):
            k = 3 if adj_a else 4
            bb = d[:2, :k] if adj_b else d[:k, :2]
            prod = tf.sparse.matmul(a, bb, adjoint_a=adj_a, adjoint_b=adj_b)
            out["grad_matmul_%d%d" % (adj_a, adj_b)] = tf.gradients(
                tf.reduce_sum(prod * tf.cos(prod)), [av, bb])
    out["grad_add"] = tf.gradients(tf.reduce_sum(tf.sparse.add(a, b).values *
                                                 [1., 2., 3., 4., 5.]), [av, bv])
    out["grad_add_dense"] = tf.gradients(tf.reduce_sum(tf.sparse.add(a, d[:3, :4]) ** 2),
                                         [av, d])
    out["grad_reduce_sum"] = tf.gradients(tf.reduce_sum(tf.sparse.reduce_sum(c3, [1]) *
                                                        tf.constant([[1., 2., 3.], [4., 5., 6.]])),
                                          [c3.values])
    out["grad_softmax"] = tf.gradients(tf.reduce_sum(tf.sparse.softmax(c3).values *
                                                     [1., -2., 3., 4., 5.]), [c3.values])
    out["grad_slice"] = tf.gradients(tf.reduce_sum(tf.sparse.slice(c3, [0, 0, 1], [2, 2, 2])
                                                   .values * 3.), [c3.values])
    out["grad_fill"] = tf.gradients(tf.reduce_sum(tf.sparse.fill_empty_rows(
        tf.SparseTensor([[1, 0], [3, 1]], av[:2], [5, 2]), av[2])[0].values *
        [1., 2., 3., 4., 5.]), [av])
    out["grad_reorder"] = tf.gradients(tf.reduce_sum(tf.sparse.reorder(tf.SparseTensor(
        [[2, 1], [0, 3], [1, 0]], av[:3], [3, 4])).values * [1., 2., 3.]), [av])
    out["grad_sparse_matmul"] = tf.gradients(tf.reduce_sum(
        tf.sparse_matmul(d, d[:, :2], transpose_a=True)), [d])
    out["grad_reshape"] = tf.gradients(tf.reduce_sum(tf.sparse.reshape(a, [-1]).values * 2.),
                                       [av])
    # errors
    late = lambda v: tf.placeholder_with_default(tf.constant(v, tf.int64), [None])  # noqa: E731
    out["err_add_shape"] = tf.sparse.add(a, tf.SparseTensor([[0, 0]], f32([1.]), late([3, 5])))
    out["err_add_rank"] = tf.sparse.add(a, tf.SparseTensor([[0, 0, 0]], f32([1.]),
                                                           late([3, 4, 1])))
    out["err_reshape"] = tf.sparse.reshape(dyn, tf.placeholder_with_default(
        tf.constant([5, -1], tf.int64), [2]))
    out["err_matmul_oob"] = tf.sparse.matmul(tf.SparseTensor(i_ph, v_ph, [3, 4]), d)
    out["err_reduce_axis"] = tf.sparse.reduce_sum(dyn, tf.placeholder_with_default(3, []))
    out["err_concat"] = tf.sparse.concat(1, [dyn, tf.SparseTensor(i_ph, v_ph, [4, 4])])
    feed = {pu: tf.SparseTensorValue([[0, 1], [1, 0], [1, 2]], f32([1., 2., 3.]), [2, 4]),
            ps: tf.SparseTensorValue([[0, 1], [2, 0]], f32([5., 6.]), [3, 2]),
            i_ph: [[0, 5], [1, 1]], v_ph: f32([1., 2.])}
    return out, feed


def describe(tf, x):
    shape = lambda s: None if s.ndims is None else [d if d is None else int(d)  # noqa: E731
                                                    for d in s.as_list()]
    if isinstance(x, tf.SparseTensor):
        return {"sparse": [describe(tf, t) for t in (x.indices, x.values, x.dense_shape)],
                "shape": shape(x.get_shape())}
    if isinstance(x, (list, tuple)):
        return [describe(tf, t) for t in x]
    return {"dtype": x.dtype.name, "shape": shape(x.get_shape())}


def _num(x):
    return str(float(x)) if not np.isfinite(x) else round(float(x), 5)


def to_json(v):
    if isinstance(v, (list, tuple)) and not hasattr(v, "indices"):
        return [to_json(x) for x in v]
    if hasattr(v, "dense_shape"):
        return [to_json(x) for x in tuple(v)]
    v = np.asarray(v)
    if v.dtype.kind in "OSU":
        return [x.hex() if isinstance(x, bytes) else str(x) for x in v.reshape(-1)]
    if v.dtype.kind == "f":
        return [_num(x) for x in v.reshape(-1)] if v.ndim else _num(v)
    return v.tolist()


def RUN(tf):
    tf.reset_default_graph()
    out, feed = CASES(tf)
    result = {}
    with tf.Session() as sess:
        for name, x in sorted(out.items()):
            entry = {"static": describe(tf, x)}
            try:
                entry["value"] = to_json(sess.run(x, feed))
            except Exception as e:  # noqa: BLE001 - the error is what the case records
                lines = (getattr(e, "message", None) or str(e)).split("\n")
                for i, line in enumerate(lines):  # TF's message follows "Node: '...'"
                    if line.startswith("Node: "):
                        lines = lines[i + 1:]
                        break
                entry["error"] = [type(e).__name__, lines[0][:160]]
            result[name] = entry
    return result
'''


def _run_here():
    ns = {"np": np}
    exec(PROGRAM, ns)  # noqa: S102 - the same program runs under TensorFlow
    return ns["RUN"](tf)


@pytest.fixture(scope="module")
def ours():
    return _run_here()


def test_values_without_tensorflow(ours):
    """NumPy references for a few cases (they run without the oracle)."""
    add = ours["add"]["value"]
    assert add[0] == [[0, 0], [0, 1], [1, 2], [2, 1], [2, 3]]
    assert add[1] == [1.5, 4.0, 0.0, 0.5, 0.0]
    assert ours["add_thresh"]["value"][0] == [[0, 0], [0, 1], [1, 2], [2, 1], [2, 3]][:2] + \
        [[2, 1]]
    dense_a = np.zeros((3, 4), np.float32)
    dense_a[[0, 1, 2, 2], [0, 2, 1, 3]] = [1.5, -2.0, 0.5, 3.0]
    d = np.arange(20, dtype=np.float32).reshape(4, 5) / 7
    np.testing.assert_allclose(np.reshape(ours["matmul"]["value"], (3, 5)), dense_a @ d, atol=1e-5,
                               rtol=1e-5)
    assert ours["fill"]["value"][1] == [False, False, False]
    assert ours["fill_dyn"]["value"][0][0] == [[0, 0], [1, 0], [2, 0], [3, 2], [4, 0]]
    assert ours["split"]["value"][1][2] == [2, 2, 1]
    assert ours["err_add_shape"]["error"][0] == "InvalidArgumentError"


@pytest.mark.parametrize("unused", [0])
def test_against_tensorflow(tf1, ours, unused):
    theirs = tf1("tf.disable_v2_behavior()\n" + PROGRAM +
                 "\nprint(json.dumps(RUN(tf)))\n")
    assert set(theirs) == set(ours)
    bad = []
    for name in sorted(theirs):
        t, o = theirs[name], ours[name]
        if t["static"] != o["static"]:
            bad.append(f"{name}: static {o['static']} != TF's {t['static']}")
        if "error" in t or "error" in o:
            if t.get("error") != o.get("error"):
                bad.append(f"{name}: error {o.get('error')} != TF's {t.get('error')}")
            continue
        if not _close(t["value"], o["value"]):
            bad.append(f"{name}: value {o['value']} != TF's {t['value']}")
    assert not bad, "\n".join(bad)


def _close(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return np.isclose(a, b, rtol=1e-4, atol=1e-5)
    return a == b
