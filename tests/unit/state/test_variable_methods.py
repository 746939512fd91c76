"""The RefVariable methods TF1 code calls on ``tf.Variable`` besides assign/read: the
scatter family, ``count_up_to``, ``ref()``, ``to_proto`` (the ``VariableDef`` a ``.meta``
stores, with a partitioned part's ``SaveSliceInfoDef``), synchronization and aggregation.
The same program runs under scopeflow and, live, under TF 2.21."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import scopeflow as tf

# Runs with ``tf`` standing for scopeflow or for TF's compat.v1; prints-free, returns JSON.
PROGRAM = '''
def program(tf, np):
    out = {}
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="v")
        d = tf.IndexedSlices(tf.constant([[1., 2., 3.], [4., 5., 6.]]), tf.constant([3, 1]))
        ops = {m: getattr(v, m)(d) for m in (
            "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max",
            "scatter_min", "scatter_update", "batch_scatter_update")}
        ops["scatter_nd_add"] = v.scatter_nd_add([[0, 1], [2, 2]], [10., 20.])
        ops["scatter_nd_sub"] = v.scatter_nd_sub([[1]], [[1., 1., 1.]])
        ops["scatter_nd_update"] = v.scatter_nd_update([[3, 0]], [-5.])
        c = tf.Variable(0, name="c")
        up = c.count_up_to(2)
        out["names"] = {k: [o.name, o.op.type] for k, o in ops.items()}
        out["count_name"] = up.op.type
        with tf.Session() as sess:
            for k, o in ops.items():
                sess.run(v.initializer)
                out[k] = sess.run(o).tolist()
            sess.run(c.initializer)
            out["count"] = [int(sess.run(up)), int(sess.run(up))]
            try:
                sess.run(up)
            except tf.errors.OutOfRangeError as e:
                out["count_error"] = "Reached limit of 2" in e.message
        try:
            v.scatter_add(tf.constant([1.]))
        except TypeError as e:
            out["type_error"] = str(e).split(":")[0]
        out["ref"] = [v.ref() == v.ref(), v.ref() == c.ref(), v.ref().deref() is v,
                      v.experimental_ref() == v.ref(), d.values.ref() == d.values.ref()]
        out["sync"] = [str(v.synchronization), str(v.aggregation)]
        r = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)
        out["on_read_trainable"] = r.trainable
        try:
            tf.Variable(1.0, aggregation="sum", name="w")
        except ValueError as e:
            out["aggregation_error"] = str(e)
        with tf.name_scope("a"):
            u = tf.Variable(2.0, name="u")
        out["proto_scoped"] = base64.b64encode(u.to_proto(export_scope="a")
                                               .SerializeToString()).decode()
        out["proto_outside"] = u.to_proto(export_scope="b") is None
        p = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2))
        out["proto_part"] = [base64.b64encode(x.to_proto().SerializeToString()).decode()
                             for x in p]
        out["meta_part"] = base64.b64encode(tf.train.export_meta_graph().collection_def[
            "variables"].bytes_list.value[-1]).decode()
    return out
'''


def _ours():
    scope = {"base64": base64}
    exec(PROGRAM, scope)
    return scope["program"](tf, np)


def test_scatter_methods_update_the_variable():
    out = _ours()
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    rows, vals = [3, 1], np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
    for method, fn in (("scatter_add", np.add), ("scatter_sub", np.subtract),
                       ("scatter_mul", np.multiply), ("scatter_div", np.divide),
                       ("scatter_max", np.maximum), ("scatter_min", np.minimum)):
        want = base.copy()
        want[rows] = fn(base[rows], vals)
        np.testing.assert_allclose(out[method], want, err_msg=method)
    want = base.copy()
    want[rows] = vals
    assert out["scatter_update"] == want.tolist() == out["batch_scatter_update"]
    want = base.copy()
    want[0, 1] += 10
    want[2, 2] += 20
    assert out["scatter_nd_add"] == want.tolist()
    assert out["count"] == [0, 1] and out["count_error"]
    assert out["type_error"] == "sparse_delta is not IndexedSlices"
    assert out["ref"] == [True, False, True, True, True]
    assert out["on_read_trainable"] is False


def test_sparse_read_is_tf_refvariable_attribute_error():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(AttributeError, match="tf.gather"):
        v.sparse_read([0])
    with pytest.raises(NotImplementedError, match="scatter_nd_max"):
        v.scatter_nd_max([[0]], [3.0])


def test_imported_partitioned_variables_keep_their_slices(tmp_path):
    """A ``.meta``'s VariableDef carries each part's SaveSliceInfoDef, so a Saver built
    after ``import_meta_graph`` saves the parts as one sliced tensor, as TF's does."""
    with tf.Graph().as_default():
        v = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(tf.concat(list(v), 0))
            tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        tf.train.import_meta_graph(str(tmp_path / "m.meta"))
        parts = tf.global_variables()
        assert [p._save_slice_info.var_offset for p in parts] == [[0, 0], [5, 0]]
        saver = tf.train.Saver()  # built from the imported variables' slice infos
        with tf.Session() as sess:
            saver.restore(sess, str(tmp_path / "m"))
            np.testing.assert_array_equal(sess.run(tf.concat(parts, 0)), want)
            saver.save(sess, str(tmp_path / "m2"))
    assert tf.train.list_variables(str(tmp_path / "m2")) == [("emb", [10, 4])]


def test_same_as_tensorflow(tf1):
    theirs = tf1(PROGRAM + """
import base64
tf.disable_v2_behavior()
print(json.dumps(program(tf, np)))
""")
    ours = json.loads(json.dumps(_ours()))
    assert ours == theirs
