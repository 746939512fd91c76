"""Array ops: op types, default names, static shapes and messages pinned to real TF.

Every expected value marked "TF 2.21" was observed by running the same code under
TensorFlow 2.21 with TF1 semantics (``../shared/tools/tf1``); they are hard-coded so these
tests run without the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.tensor_util import constant_value


def _desc(t):
    return (t.op.name, t.op.type, t.dtype.name, str(t.shape))


def _input_names(t):
    return [(i.op.name, i.op.type) for i in t.op.inputs]


@pytest.fixture
def xs():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    u = tf.placeholder(tf.float32, [None, 3], name="u")
    ur = tf.placeholder(tf.float32, None, name="ur")
    i = tf.placeholder(tf.int32, [], name="i")
    return x, u, ur, i


XV = np.arange(6, dtype=np.float32).reshape(2, 3)


# ── names, types and static shapes (TF 2.21) ─────────────────────────────────────────
def test_reshape_names_and_shapes(xs):
    x, u, ur, i = xs
    assert _desc(tf.reshape(x, [3, 2])) == ("Reshape", "Reshape", "float32", "(3, 2)")
    assert _input_names(tf.get_default_graph().get_operation_by_name("Reshape").outputs[0]) == \
        [("x", "Placeholder"), ("Reshape/shape", "Const")]
    assert str(tf.reshape(x, [-1]).shape) == "(6,)"
    assert str(tf.reshape(u, [-1, 6]).shape) == "(?, 6)"
    assert str(tf.reshape(u, [3, -1]).shape) == "(3, ?)"
    assert str(tf.reshape(x, tf.shape(u)).shape) == "(2, 3)"   # TF infers the one unknown
    assert str(tf.reshape(ur, [2, -1]).shape) == "(2, ?)"
    packed = tf.reshape(x, [i, 3])
    assert str(packed.shape) == "(2, 3)"
    assert packed.op.inputs[1].op.name == "Reshape_6/shape"
    assert packed.op.inputs[1].op.type == "Pack"
    assert str(tf.reshape(x, [-1, -1]).shape) == "(?, ?)"
    assert str(tf.reshape(x, [tf.shape(u)[1], -1]).shape) == "(3, 2)"


def test_reshape_errors(xs):
    x, u, _, _ = xs
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 6 elements to shape "
                                         r"\[4\] \(4 elements\) for 'Reshape"):
        tf.reshape(x, [4])
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 4 but is 6"):
        tf.reshape(x, [4, -1])
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but is 4"):
        tf.reshape(u, [4])


def test_transpose(xs):
    x, u, ur, _ = xs
    t = tf.transpose(x)
    assert _desc(t) == ("transpose", "Transpose", "float32", "(3, 2)")
    assert _input_names(t)[1] == ("transpose/perm", "Const")
    assert str(tf.transpose(u).shape) == "(3, ?)"
    assert str(tf.transpose(x, [1, 0]).shape) == "(3, 2)"
    t3 = tf.transpose(ur)
    assert t3.op.type == "Transpose" and t3.shape.ndims is None
    with pytest.raises(ValueError, match="Dimension must be 2 but is 1"):
        tf.transpose(x, [0])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(t3, {ur: np.ones((2, 3, 4))}).shape, (4, 3, 2))


def test_expand_dims_and_squeeze(xs):
    x, u, _, i = xs
    assert _desc(tf.expand_dims(x, -1)) == ("ExpandDims", "ExpandDims", "float32", "(2, 3, 1)")
    assert str(tf.expand_dims(x, dim=1).shape) == "(2, 1, 3)"
    assert tf.expand_dims(u, i).shape.ndims is None
    with pytest.raises(ValueError, match=r"dim 3 not in the interval \[-3, 2\]\."):
        tf.expand_dims(x, 3)
    y = tf.placeholder(tf.float32, [1, 3, 1])
    assert _desc(tf.squeeze(y)) == ("Squeeze", "Squeeze", "float32", "(3,)")
    assert str(tf.squeeze(y, [2]).shape) == "(1, 3)"
    assert str(tf.squeeze(y, squeeze_dims=[0]).shape) == "(3, 1)"
    assert str(tf.squeeze(y, axis=-1).shape) == "(1, 3)"
    assert tf.squeeze(u).shape.ndims is None
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\], expected a dimension of 1, "
                                         r"got 3"):
        tf.squeeze(y, [1])
    with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[-2,2\)\."):
        tf.squeeze(x, [2])


def test_concat_and_stack(xs):
    x, u, _, _ = xs
    c = tf.concat([x, x], 0)
    assert _desc(c) == ("concat", "ConcatV2", "float32", "(4, 3)")
    assert _input_names(c)[2] == ("concat/axis", "Const")
    assert str(tf.concat([x, u], 0).shape) == "(?, 3)"
    assert str(tf.concat([x, x], -1).shape) == "(2, 6)"
    one = tf.concat([x], 0)
    assert (one.op.name, one.op.type) == ("concat_3/concat", "Identity")
    y = tf.placeholder(tf.float32, [1, 3, 1])
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
        tf.concat([x, y], 0)
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 "
                                         r"and 3\. Shapes are \[2\] and \[3\]\."):
        tf.concat([x, tf.zeros([3, 3])], 1)
    with pytest.raises(TypeError, match=r"Tensors in list passed to 'values' of 'ConcatV2' Op "
                                        r"have types \[float32, int32\] that don't all match\."):
        tf.concat([x, tf.constant([[1, 2, 3]])], 0)
    s = tf.stack([x, x])
    assert _desc(s) == ("stack", "Pack", "float32", "(2, 2, 3)")
    assert str(tf.stack([x, u], axis=1).shape) == "(2, 2, 3)"
    assert str(tf.stack([x, x], axis=-1).shape) == "(2, 3, 2)"
    assert _desc(tf.stack([1, 2])) == ("stack_3", "Const", "int32", "(2,)")
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 3"):
        tf.stack([x, y])
    with pytest.raises(ValueError, match=r"Argument `axis` = 4 not in range \[-3, 3\)"):
        tf.stack([x, x], axis=4)


def test_autopacking():
    i = tf.placeholder(tf.int32, [], name="i")
    p = tf.convert_to_tensor([i, 2])
    assert _desc(p) == ("packed", "Pack", "int32", "(2,)")
    assert _input_names(p) == [("i", "Placeholder"), ("packed/1", "Const")]
    p2 = tf.convert_to_tensor([[i, 2], [3, 4]])
    assert _desc(p2) == ("packed_1", "Pack", "int32", "(2, 2)")
    assert _input_names(p2) == [("packed_1/0", "Pack"), ("packed_1/1_1", "Const")]
    c = tf.convert_to_tensor([[1, 2], [3, 4]])
    assert c.op.type == "Const"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(p2, {i: 7}), [[7, 2], [3, 4]])
    assert constant_value(tf.convert_to_tensor([tf.constant(3), 4])).tolist() == [3, 4]


def test_unstack_and_split(xs):
    x, u, _, _ = xs
    parts = tf.unstack(x)
    assert [_desc(p) for p in parts] == [("unstack", "Unpack", "float32", "(3,)")] * 2
    assert [str(p.shape) for p in tf.unstack(u, axis=-1)] == ["(?,)"] * 3
    with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape \(\?, 3\)"):
        tf.unstack(u)
    with pytest.raises(ValueError, match=r"Argument `axis` = 2 not in range \[-2, 2\)"):
        tf.unstack(x, axis=2)
    a = tf.split(x, 3, axis=1)
    assert [_desc(t) for t in a] == [("split", "Split", "float32", "(2, 1)")] * 3
    assert _input_names(a[0])[0] == ("split/split_dim", "Const")
    b = tf.split(x, [1, 2], 1)
    assert [str(t.shape) for t in b] == ["(2, 1)", "(2, 2)"]
    assert b[0].op.type == "SplitV"
    assert _input_names(b[0]) == [("x", "Placeholder"), ("Const", "Const"),
                                  ("split_1/split_dim", "Const")]
    assert [str(t.shape) for t in tf.split(x, [1, -1], 1)] == ["(2, 1)", "(2, 2)"]
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 2 but is 3"):
        tf.split(x, 2, axis=1)
    v = tf.placeholder(tf.float32, [None, None, 4])
    assert [str(t.shape) for t in tf.split(v, [1, 3], axis=-1)] == ["(?, ?, 1)", "(?, ?, 3)"]


def test_tile_pad_slice(xs):
    x, u, _, _ = xs
    assert _desc(tf.tile(x, [2, 1])) == ("Tile", "Tile", "float32", "(4, 3)")
    assert str(tf.tile(u, [2, 2]).shape) == "(?, 6)"
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
        tf.tile(x, [1, 2, 3])
    assert _desc(tf.pad(x, [[1, 1], [0, 2]])) == ("Pad", "Pad", "float32", "(4, 5)")
    p2 = tf.pad(x, [[1, 1], [0, 2]], constant_values=3)
    assert _desc(p2) == ("PadV2", "PadV2", "float32", "(4, 5)")
    assert _input_names(p2)[2] == ("PadV2/constant_values", "Const")
    assert _desc(tf.pad(x, [[1, 1], [0, 2]], mode="REFLECT")) == \
        ("MirrorPad", "MirrorPad", "float32", "(4, 5)")
    assert tf.pad(x, [[1, 1], [0, 2]], mode="symmetric").op.get_attr("mode") == "SYMMETRIC"
    with pytest.raises(ValueError, match=r'Value of argument `mode` expected to be one of '
                                         r'"CONSTANT", "REFLECT", or "SYMMETRIC"\. Received '
                                         r'`mode` = FOO'):
        tf.pad(x, [[1, 1], [0, 2]], mode="foo")
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.pad(x, [[1, 1]])
    assert _desc(tf.slice(x, [0, 1], [-1, 2])) == ("Slice", "Slice", "float32", "(2, 2)")
    assert str(tf.slice(u, [0, 1], [-1, 2]).shape) == "(?, 2)"
    assert str(tf.slice(u, [1, 1], [1, -1]).shape) == "(1, 2)"
    with tf.Session() as sess:
        assert sess.run(tf.pad([[1, 2, 3]], [[0, 0], [2, 2]], "REFLECT")).tolist() == \
            [[3, 2, 1, 2, 3, 2, 1]]
        assert sess.run(tf.pad([[1, 2, 3]], [[1, 1], [3, 0]], "SYMMETRIC")).tolist() == \
            [[3, 2, 1, 1, 2, 3]] * 3


def test_gather_and_one_hot(xs):
    x, _, _, _ = xs
    g = tf.gather(x, [1, 0])
    assert _desc(g) == ("GatherV2", "GatherV2", "float32", "(2, 3)")
    assert _input_names(g) == [("x", "Placeholder"), ("GatherV2/indices", "Const"),
                               ("GatherV2/axis", "Const")]
    assert str(tf.gather(x, [[1, 0]], axis=1).shape) == "(2, 1, 2)"
    assert str(tf.gather(x, [1], validate_indices=True).shape) == "(1, 3)"
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.gather(x, [0], axis=2)
    o = tf.one_hot([0, 2], 3)
    assert _desc(o) == ("one_hot", "OneHot", "float32", "(2, 3)")
    assert _input_names(o) == [("one_hot/indices", "Const"), ("one_hot/depth", "Const"),
                               ("one_hot/on_value", "Const"), ("one_hot/off_value", "Const")]
    o2 = tf.one_hot([0, 2], 3, on_value=5, off_value=1)
    assert _desc(o2) == ("one_hot_1", "OneHot", "int32", "(2, 3)")
    assert [n for n, _ in _input_names(o2)[2:]] == ["one_hot_1/Const", "one_hot_1/Const_1"]
    assert str(tf.one_hot([0, 2], 3, axis=0, dtype=tf.float64).shape) == "(3, 2)"
    assert str(tf.one_hot(tf.placeholder(tf.int32, [None, 2]), 5, axis=1).shape) == "(?, 5, 2)"
    with pytest.raises(TypeError, match=r"dtype <dtype: 'float32'> of on_value does not match "
                                        r"dtype parameter <dtype: 'int32'>"):
        tf.one_hot([0], 3, on_value=1.0, dtype=tf.int32)
    with tf.Session() as sess:
        assert sess.run(tf.one_hot([0, 3, -1], 3)).tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]


def test_shape_size_rank(xs):
    x, u, ur, _ = xs
    # TF1 folds fully known shapes into Consts named like the op.
    assert _desc(tf.shape(x)) == ("Shape", "Const", "int32", "(2,)")
    assert _desc(tf.shape(x, out_type=tf.int64)) == ("Shape_1", "Const", "int64", "(2,)")
    assert _desc(tf.size(x)) == ("Size", "Const", "int32", "()")
    assert _desc(tf.rank(x)) == ("Rank", "Const", "int32", "()")
    assert _desc(tf.size(u)) == ("Size_1", "Size", "int32", "()")
    assert _desc(tf.rank(ur)) == ("Rank_1", "Rank", "int32", "()")
    v = tf.placeholder(tf.float32, [None, None, 4])
    assert _desc(tf.shape(v)) == ("Shape_2", "Shape", "int32", "(3,)")
    assert _desc(tf.shape(v)[0]) == ("strided_slice", "StridedSlice", "int32", "()")
    assert constant_value(tf.shape(u)[1]) == 3


def test_fill_zeros_ones(xs):
    x, u, _, i = xs
    f = tf.fill([2, 3], 3.0)
    assert _desc(f) == ("Fill", "Fill", "float32", "(2, 3)")
    assert _input_names(f) == [("Fill/dims", "Const"), ("Fill/value", "Const")]
    assert str(tf.fill(tf.shape(u), 3.0).shape) == "(?, 3)"
    assert str(tf.fill(tf.stack([i, 2]), 1).shape) == "(?, 2)"
    assert _desc(tf.zeros([2, 3])) == ("zeros", "Const", "float32", "(2, 3)")
    assert _desc(tf.zeros([2], tf.int32)) == ("zeros_1", "Const", "int32", "(2,)")
    zt = tf.zeros(tf.shape(u))
    assert _desc(zt) == ("zeros_2", "Fill", "float32", "(?, 3)")
    assert _input_names(zt)[1] == ("zeros_2/Const", "Const")
    zp = tf.zeros([i, 3])
    assert _desc(zp) == ("zeros_3", "Fill", "float32", "(?, 3)")
    assert _input_names(zp)[0] == ("zeros_3/packed", "Pack")
    assert _desc(tf.zeros([10, 100])) == ("zeros_4", "Fill", "float32", "(10, 100)")
    assert _desc(tf.ones([2])) == ("ones", "Const", "float32", "(2,)")
    assert _desc(tf.ones(tf.shape(u))) == ("ones_1", "Fill", "float32", "(?, 3)")
    assert _desc(tf.zeros_like(x)) == ("zeros_like", "Const", "float32", "(2, 3)")
    assert _desc(tf.zeros_like(x, dtype=tf.int32)) == ("zeros_like_1", "Const", "int32",
                                                       "(2, 3)")
    assert _desc(tf.zeros_like(u)) == ("zeros_like_2", "ZerosLike", "float32", "(?, 3)")
    assert _desc(tf.zeros_like(u, dtype=tf.int32)) == ("zeros_like_3", "Fill", "int32", "(?, 3)")
    ol = tf.ones_like(x)
    assert _desc(ol) == ("ones_like", "Fill", "float32", "(2, 3)")
    assert _input_names(ol) == [("ones_like/Shape/shape_as_tensor", "Const"),
                                ("ones_like/Const", "Const")]
    assert _desc(tf.ones_like(u)) == ("ones_like_1", "Fill", "float32", "(?, 3)")
    with tf.Session() as sess:
        got = sess.run([tf.zeros_like(u), tf.ones_like(u, dtype=tf.int32)], {u: XV})
    assert got[0].tolist() == [[0] * 3] * 2 and got[1].dtype == np.int32


def test_boolean_mask_structure(xs):
    x, u, _, _ = xs
    m = tf.placeholder(tf.bool, [2], name="m")
    b = tf.boolean_mask(x, m)
    assert _desc(b) == ("boolean_mask/GatherV2", "GatherV2", "float32", "(?, 3)")
    assert [t for _, t in _input_names(b)] == ["Reshape", "Squeeze", "Const"]
    assert b.op.inputs[1].op.inputs[0].op.type == "Where"
    assert str(tf.boolean_mask(u, tf.placeholder(tf.bool, [None])).shape) == "(?, 3)"
    assert str(tf.boolean_mask(x, [True, False, True], axis=1).shape) == "(2, ?)"
    v = tf.placeholder(tf.float32, [None, None, 4])
    assert str(tf.boolean_mask(v, tf.placeholder(tf.bool, [None, None])).shape) == "(?, 4)"
    with pytest.raises(ValueError, match="mask cannot be scalar."):
        tf.boolean_mask(x, True)
    with tf.Session() as sess:
        assert sess.run(b, {x: XV, m: [False, True]}).tolist() == [[3, 4, 5]]
        got = sess.run(tf.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True]))
    assert got.tolist() == [[1, 2], [5, 6]]


# ── Tensor.__getitem__ ───────────────────────────────────────────────────────────────
def test_getitem_names_and_static_shapes(xs):
    x, u, ur, i = xs
    s = x[0]
    assert _desc(s) == ("strided_slice", "StridedSlice", "float32", "(3,)")
    assert _input_names(s) == [("x", "Placeholder"), ("strided_slice/stack", "Const"),
                               ("strided_slice/stack_1", "Const"),
                               ("strided_slice/stack_2", "Const")]
    assert str(x[1:, ::-1].shape) == "(1, 3)"
    assert str(x[..., None].shape) == "(2, 3, 1)"
    t = x[i]
    assert str(t.shape) == "(3,)"
    assert [ty for _, ty in _input_names(t)] == ["Placeholder", "Pack", "Pack", "Const"]
    assert str(x[:, 1].shape) == "(2,)"
    assert str(u[1:].shape) == "(?, 3)"
    assert str(u[-1, tf.newaxis, 1:].shape) == "(1, 2)"
    assert ur[1:, 2].shape.ndims is None
    v = tf.placeholder(tf.float32, [None, None, 4])
    assert [str(e.shape) for e in (v[:, 1:3], v[..., ::2], v[0, ..., 1], v[:, :, -1:])] == \
        ["(?, ?, 4)", "(?, ?, 2)", "(?,)", "(?, ?, 1)"]
    assert [str(e.shape) for e in (x[5:], x[:, -2:], x[::-1, 1::-1])] == \
        ["(0, 3)", "(2, 2)", "(2, 2)"]
    st = tf.strided_slice(x, [0, 0], [2, 3], [1, 2])
    assert _desc(st) == ("StridedSlice", "StridedSlice", "float32", "(2, 2)")
    assert str(tf.strided_slice(v, [0], [2], [1], new_axis_mask=1, shrink_axis_mask=1).shape) \
        == "(1, ?, ?, 4)"


def test_getitem_missing_bounds_beside_a_tensor_bound_are_consts_of_its_dtype():
    # As TF 2.21's _slice_helper: x[0:t] and x[t:] give Consts for the step and missing bound
    v = tf.constant([5, 6, 7, 8])
    t = tf.constant(2, tf.int64, name="t")
    a, b = v[0:t], v[t:]
    names = [op.name for op in tf.get_default_graph().get_operations()]
    # the names TF 2.21 gives (the int32 begin is cast to the int64 of the bound)
    assert names == [
        "Const", "t", "Const_1", "strided_slice/stack", "strided_slice/stack_1",
        "strided_slice/stack_2", "strided_slice/Cast", "strided_slice", "Const_2", "Const_3",
        "strided_slice_1/stack", "strided_slice_1/stack_1", "strided_slice_1/stack_2",
        "strided_slice_1"]
    assert tf.get_default_graph().get_operation_by_name("Const_1").outputs[0].dtype == \
        tf.int64
    with tf.Session() as s:
        assert s.run(a).tolist() == [5, 6] and s.run(b).tolist() == [7, 8]


def test_getitem_errors(xs):
    x, _, _, _ = xs
    with pytest.raises(ValueError, match=r"slice index 5 of dimension 0 out of bounds\."):
        x[5]
    msg = (r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and "
           r"scalar tf.int32/tf.int64 tensors are valid indices")
    with pytest.raises(TypeError, match=msg):
        x[1.5]
    with pytest.raises(TypeError, match=msg):
        x[tf.constant([1, 2])]


@pytest.mark.parametrize("index", [
    (slice(1, None), slice(None, None, -1), Ellipsis, None),
    (Ellipsis, 1),
    (-1,),
    (slice(None, None, -2), 2),
    (None, slice(-10, 10), slice(3, 0, -1)),
    (1, Ellipsis, None, slice(None, 2)),
    (slice(2, 1),),
    (0, 0, 0),
], ids=str)
def test_getitem_matches_numpy(index):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tf.placeholder(tf.float32, [2, 3, 4])
    y = x[index]
    want = a[index]
    got = tf.Session().run(y, {x: a})
    np.testing.assert_array_equal(got, want)
    assert y.shape.as_list() == list(np.shape(want))


def test_getitem_with_tensor_index_and_errors_at_run_time():
    u = tf.placeholder(tf.float32, [None, 3])
    i = tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(u[i, ::-1], {u: XV, i: 1}), [5, 4, 3])
        np.testing.assert_array_equal(sess.run(u[-1], {u: XV}), [3, 4, 5])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"slice index 5 of dimension 0 out of bounds\."):
            sess.run(u[i], {u: XV, i: 5})


# ── run-time errors (TF 2.21 kernel messages) ────────────────────────────────────────
@pytest.mark.parametrize("build, message", [
    (lambda x: tf.gather(x, [1, 7]), r"indices\[1\] = 7 is not in \[0, 2\)"),
    (lambda x: tf.gather(x, [[0, 1], [5, 0]], axis=1), r"indices\[1,0\] = 5 is not in \[0, 3\)"),
    (lambda x: tf.reshape(x, [4]),
     "Input to reshape is a tensor with 6 values, but the requested shape has 4"),
    (lambda x: tf.reshape(x, [4, -1]),
     "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple "
     "of 4"),
    (lambda x: tf.squeeze(x, [0]), r"Can not squeeze dim\[0\], expected a dimension of 1, got 2"),
    (lambda x: tf.slice(x, [0, 1], [3, 1]), r"Expected size\[0\] in \[0, 2\], but got 3"),
    (lambda x: tf.split(x, 2, axis=1)[0],
     r"Number of ways to split should evenly divide the split dimension, but got split_dim 1 "
     r"\(size = 3\) and num_split 2"),
], ids=["gather", "gather-2d", "reshape", "reshape-1", "squeeze", "slice", "split"])
def test_kernel_errors(build, message):
    x = tf.placeholder(tf.float32, None)
    y = build(x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message) as e:
        sess.run(y, {x: XV})
    assert y.op.name in str(e.value)


# ── values, static values, aliasing ──────────────────────────────────────────────────
def test_values():
    with tf.Session() as sess:
        got = sess.run(tf.split([1, 2, 3, 4, 5], [2, -1, 1]))
        assert [a.tolist() for a in got] == [[1, 2], [3, 4], [5]]
        assert sess.run(tf.transpose([[1, 2, 3]])).tolist() == [[1], [2], [3]]
        assert sess.run(tf.tile([[1, 2]], [2, 2])).tolist() == [[1, 2, 1, 2]] * 2
        assert sess.run(tf.concat([[1], [2, 3]], 0)).tolist() == [1, 2, 3]


def test_static_values_fold_through_array_ops():
    c = tf.constant([[1, 2], [3, 4]])
    assert constant_value(tf.reshape(c, [-1])).tolist() == [1, 2, 3, 4]
    assert constant_value(tf.stack([c[0, 1], 7])).tolist() == [2, 7]
    assert constant_value(tf.concat([tf.shape(c), [5]], 0)).tolist() == [2, 2, 5]
    x = tf.placeholder(tf.float32, [None, 5])
    assert constant_value(tf.reshape(x, [-1])) is None
    assert tf.reshape(tf.zeros([10]), tf.stack([2, tf.constant(5)])).shape.as_list() == [2, 5]


def test_fetched_views_do_not_alias_constants():
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    r = tf.reshape(c, [-1])
    with tf.Session() as sess:
        a = sess.run(r)
        a[0] = 99.0
        assert sess.run(c)[0, 0] == 1.0


def test_shape_n_is_one_op_with_an_output_per_input():
    # TF 2.21: [ShapeN:0 (2,) int32, ShapeN:1 (1,) int32]; out_type int64; a list even for one.
    a, b = tf.zeros([2, 3]), tf.placeholder(tf.float32, [None])
    got = tf.shape_n([a, b])
    assert type(got) is list
    assert [_desc(t) for t in got] == [("ShapeN", "ShapeN", "int32", "(2,)"),
                                       ("ShapeN", "ShapeN", "int32", "(1,)")]
    one = tf.shape_n([a], out_type=tf.int64)
    assert [(t.name, t.dtype.name) for t in one] == [("ShapeN_1:0", "int64")]
    with pytest.raises(TypeError, match="Value passed to parameter 'out_type' has DataType "
                       "float32 not in list of allowed values: int32, int64"):
        tf.shape_n([a], out_type=tf.float32)
    with tf.Session() as sess:
        assert [s.tolist() for s in sess.run(got, {b: [1, 2, 3, 4]})] == [[2, 3], [4]]
