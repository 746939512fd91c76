"""Op-table rows for the array ops (the families scopeflow/ops/array_ops.py re-exports)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand


def _ints(*shape, low=0, high=5, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    return rng.integers(low, high, size=shape).astype(np.int32)


def _unknown(tf, x):
    """``x`` behind a PlaceholderWithDefault of unknown dims: no shape shortcuts apply."""
    return tf.placeholder_with_default(x, [None] * x.shape.ndims)


def _mirror_pad_grad_ref(dy, paddings, mode):
    """Adds each padded element of ``dy`` back onto the input element it mirrors."""
    out = dy
    for axis, (a, b) in enumerate(paddings):
        n = out.shape[axis] - a - b
        src = np.pad(np.arange(n), (a, b), mode=mode)
        out = np.stack([np.take(out, np.flatnonzero(src == k), axis).sum(axis)
                        for k in range(n)], axis)
    return out


def _ss_grad_ref(shape, index, dy):
    out = np.zeros(shape, dy.dtype)
    out[index] = dy
    return out


def _one_hot_ref(idx, depth, on=1.0, off=0.0, axis=-1, dtype=np.float32):
    out = np.where(idx[..., None] == np.arange(depth), on, off).astype(dtype)
    return np.moveaxis(out, -1, axis)


def _ts_ref(x, i, u, ufunc):
    out = x.copy()
    if ufunc is None:
        out[tuple(i.T)] = u
    else:
        ufunc.at(out, tuple(i.T), u)
    return out


def _b2s_ref(x, b):
    """BatchToSpace of a square block ``b`` over the two spatial dims (no crops)."""
    n, h, w = x.shape[0] // (b * b), x.shape[1], x.shape[2]
    out = x.reshape(b, b, n, h, w, -1).transpose(2, 3, 0, 4, 1, 5)
    return out.reshape(n, h * b, w * b, -1)


X23 = rand(2, 3)
X234 = rand(2, 3, 4)

ROWS = [
    # ── Reshape ──
    OpCase("BroadcastTo", lambda tf, x: tf.broadcast_to(x, [4, 2, 3]),
           lambda x: np.broadcast_to(x, (4, 2, 3)), [X23]),
    OpCase("BroadcastTo", lambda tf, x: tf.broadcast_to(x, [2, 3]),
           lambda x: np.broadcast_to(x, (2, 3)), [rand(2, 1)], id="BroadcastTo-inner"),
    OpCase("BroadcastArgs", lambda tf, a, b: tf.broadcast_dynamic_shape(a, b),
           lambda a, b: np.array([4, 2, 3], np.int32),
           [np.array([2, 1], np.int32), np.array([4, 1, 3], np.int32)]),
    OpCase("Reshape", lambda tf, x: tf.reshape(x, [3, 2]), lambda x: x.reshape(3, 2), [X23]),
    OpCase("Reshape", lambda tf, x: tf.reshape(x, [-1]), lambda x: x.reshape(-1), [X234],
           id="Reshape-flatten"),
    OpCase("Reshape", lambda tf, x: tf.reshape(x, [4, -1, 2]), lambda x: x.reshape(4, -1, 2),
           [X234], id="Reshape-infer-middle"),
    OpCase("Reshape", lambda tf, x, y: tf.reshape(x, tf.shape(y)), lambda x, y: x.reshape(y.shape),
           [rand(6), rand(3, 2)], id="Reshape-shape-of"),
    OpCase("Reshape", lambda tf, x: tf.reshape(x, []), lambda x: x.reshape(()), [rand(1)],
           id="Reshape-scalar"),
    # ── Transpose ──
    OpCase("Transpose", lambda tf, x: tf.transpose(x), lambda x: x.T, [X234]),
    OpCase("Transpose", lambda tf, x: tf.transpose(x, [1, 2, 0]),
           lambda x: x.transpose(1, 2, 0), [X234], id="Transpose-perm"),
    OpCase("Transpose", lambda tf, x: tf.transpose(x, [0, 1]), lambda x: x, [X23],
           id="Transpose-identity"),
    # ── ExpandDims ──
    OpCase("ExpandDims", lambda tf, x: tf.expand_dims(x, 1), lambda x: x[:, None], [X23]),
    OpCase("ExpandDims", lambda tf, x: tf.expand_dims(x, -1), lambda x: x[..., None], [X23],
           id="ExpandDims-neg"),
    OpCase("ExpandDims", lambda tf, x: tf.expand_dims(x, dim=0), lambda x: x[None], [rand(3)],
           id="ExpandDims-dim-alias"),
    # ── Squeeze ──
    OpCase("Squeeze", lambda tf, x: tf.squeeze(x), lambda x: x.reshape(3), [rand(1, 3, 1)]),
    OpCase("Squeeze", lambda tf, x: tf.squeeze(x, [-1]), lambda x: x.reshape(1, 3),
           [rand(1, 3, 1)], id="Squeeze-neg-axis"),
    OpCase("Squeeze", lambda tf, x: tf.squeeze(x, squeeze_dims=[0]), lambda x: x.reshape(3, 1),
           [rand(1, 3, 1)], id="Squeeze-squeeze_dims"),
    # ── ConcatV2 ──
    OpCase("ConcatV2", lambda tf, x, y: tf.concat([x, y], 0),
           lambda x, y: np.concatenate([x, y], 0), [X23, rand(4, 3)]),
    OpCase("ConcatV2", lambda tf, x, y: tf.concat([x, y, x], -1),
           lambda x, y: np.concatenate([x, y, x], -1), [X23, rand(2, 1)], id="ConcatV2-neg"),
    OpCase("ConcatV2", lambda tf, x: tf.concat([x, [[7, 8]]], 0),
           lambda x: np.concatenate([x, [[7, 8]]], 0), [_ints(3, 2)], id="ConcatV2-python"),
    # ── Pack ──
    OpCase("Pack", lambda tf, x, y: tf.stack([x, y]), lambda x, y: np.stack([x, y]), [X23, X23]),
    OpCase("Pack", lambda tf, x, y: tf.stack([x, y], axis=-1),
           lambda x, y: np.stack([x, y], -1), [X23, rand(2, 3, seed=1)], id="Pack-neg-axis"),
    OpCase("Pack", lambda tf, x: tf.convert_to_tensor([x[0, 0], 2.0, x[1, 2]]),
           lambda x: np.array([x[0, 0], 2.0, x[1, 2]], np.float32), [X23], id="Pack-autopack"),
    OpCase("Pack", lambda tf, x: tf.convert_to_tensor([[x[0], 1], [2, 3]]),
           lambda x: np.array([[x[0], 1], [2, 3]], np.int32), [_ints(2)],
           id="Pack-autopack-nested"),
    # ── Unpack ──
    OpCase("Unpack", lambda tf, x: tf.unstack(x), lambda x: list(x), [X23]),
    OpCase("Unpack", lambda tf, x: tf.unstack(x, axis=-1), lambda x: list(np.moveaxis(x, -1, 0)),
           [X234], id="Unpack-neg-axis"),
    OpCase("Unpack", lambda tf, x: tf.unstack(x, num=1), lambda x: list(x), [rand(1, 4)],
           id="Unpack-one"),
    # ── Split / SplitV ──
    OpCase("Split", lambda tf, x: tf.split(x, 3, axis=1), lambda x: np.split(x, 3, 1), [X23]),
    OpCase("Split", lambda tf, x: tf.split(x, 2, axis=-1), lambda x: np.split(x, 2, -1), [X234],
           id="Split-neg"),
    OpCase("SplitV", lambda tf, x: tf.split(x, [1, 2], 1), lambda x: np.split(x, [1], 1), [X23]),
    OpCase("SplitV", lambda tf, x: tf.split(x, [1, -1, 1], 2), lambda x: np.split(x, [1, 3], 2),
           [X234], id="SplitV-infer"),
    # ── Tile ──
    OpCase("Tile", lambda tf, x: tf.tile(x, [2, 3]), lambda x: np.tile(x, [2, 3]), [X23]),
    OpCase("Tile", lambda tf, x: tf.tile(x, [1, 1]), lambda x: x, [X23], id="Tile-ones"),
    # ── Pad / PadV2 / MirrorPad ──
    OpCase("Pad", lambda tf, x: tf.pad(x, [[1, 0], [2, 1]]), lambda x: np.pad(x, [[1, 0], [2, 1]]),
           [X23]),
    OpCase("PadV2", lambda tf, x: tf.pad(x, [[1, 1], [0, 2]], constant_values=3),
           lambda x: np.pad(x, [[1, 1], [0, 2]], constant_values=3), [X23]),
    OpCase("MirrorPad", lambda tf, x: tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"),
           lambda x: np.pad(x, [[1, 1], [2, 2]], mode="reflect"), [X23]),
    OpCase("MirrorPad", lambda tf, x: tf.pad(x, [[2, 1], [3, 0]], mode="symmetric"),
           lambda x: np.pad(x, [[2, 1], [3, 0]], mode="symmetric"), [X23],
           id="MirrorPad-symmetric"),
    # ── Slice ──
    OpCase("Slice", lambda tf, x: tf.slice(x, [0, 1], [-1, 2]), lambda x: x[:, 1:3], [X23]),
    OpCase("Slice", lambda tf, x: tf.slice(x, [1, 0, 2], [1, 3, -1]), lambda x: x[1:2, :, 2:],
           [X234], id="Slice-3d"),
    # ── StridedSlice (Tensor.__getitem__ and tf.strided_slice) ──
    OpCase("StridedSlice", lambda tf, x: x[0], lambda x: x[0], [X23]),
    OpCase("StridedSlice", lambda tf, x: x[-1, ::-1], lambda x: x[-1, ::-1], [X23],
           id="StridedSlice-neg"),
    OpCase("StridedSlice", lambda tf, x: x[1:, ::-2, ..., None], lambda x: x[1:, ::-2, ..., None],
           [X234], id="StridedSlice-ellipsis-newaxis"),
    OpCase("StridedSlice", lambda tf, x: x[..., 1], lambda x: x[..., 1], [X234],
           id="StridedSlice-ellipsis-shrink"),
    OpCase("StridedSlice", lambda tf, x: x[None, :, tf.newaxis, 2:0:-1],
           lambda x: x[None, :, None, 2:0:-1], [X23], id="StridedSlice-newaxis"),
    OpCase("StridedSlice", lambda tf, x: x[-10:10, 5:], lambda x: x[-10:10, 5:], [X23],
           id="StridedSlice-clamped"),
    OpCase("StridedSlice", lambda tf, x: x[1, 2], lambda x: x[1, 2], [X23],
           id="StridedSlice-scalar"),
    OpCase("StridedSlice", lambda tf, x, i: x[i, 1:], lambda x, i: x[i, 1:],
           [X23, np.array(1, np.int32)], id="StridedSlice-tensor-index"),
    OpCase("StridedSlice",
           lambda tf, x: tf.strided_slice(x, [1, 0, 0], [0, 3, 4], [1, 2, -1], begin_mask=5,
                                          end_mask=5),
           lambda x: x[:, 0:3:2, ::-1], [X234], id="StridedSlice-masks"),
    OpCase("StridedSlice",
           lambda tf, x: tf.strided_slice(x, [1, 0, 2], [0, 3, 4], [1, 2, -1], begin_mask=1,
                                          end_mask=5),
           lambda x: x[:, 0:3:2, 2::-1], [X234], id="StridedSlice-end-mask-neg-stride"),
    OpCase("StridedSlice",
           lambda tf, x: tf.strided_slice(x, [0, 1, 0], [0, 2, 0], [1, 1, 1], ellipsis_mask=1,
                                          new_axis_mask=4, shrink_axis_mask=2),
           lambda x: x[..., 1, None], [X234], id="StridedSlice-ellipsis-mask"),
    # ── GatherV2 ──
    OpCase("GatherV2", lambda tf, x: tf.gather(x, [1, 0, 1]), lambda x: x[[1, 0, 1]], [X23]),
    OpCase("GatherV2", lambda tf, x, i: tf.gather(x, i, axis=2), lambda x, i: np.take(x, i, 2),
           [X234, _ints(2, 2, high=4)], id="GatherV2-axis"),
    OpCase("GatherV2", lambda tf, x, i: tf.gather(x, i, axis=-1), lambda x, i: np.take(x, i, -1),
           [X23, np.array(2, np.int32)], id="GatherV2-scalar-index"),
    OpCase("GatherV2", lambda tf, x, i: tf.gather(x, i, axis=1, batch_dims=1),
           lambda x, i: np.stack([x[b][i[b]] for b in range(2)]),
           [X23, np.array([[0, 2], [1, 1]], np.int32)], id="GatherV2-batch_dims"),
    # ── OneHot ──
    OpCase("OneHot", lambda tf, i: tf.one_hot(i, 4), lambda i: _one_hot_ref(i, 4),
           [np.array([0, 3, 5, -1], np.int32)]),
    OpCase("OneHot", lambda tf, i: tf.one_hot(i, 3, on_value=5, off_value=-1, axis=0),
           lambda i: _one_hot_ref(i, 3, 5, -1, 0, np.int32), [_ints(2, 2, high=3)],
           id="OneHot-axis0"),
    OpCase("OneHot", lambda tf, i: tf.one_hot(i, 2, dtype=tf.float64),
           lambda i: _one_hot_ref(i, 2, dtype=np.float64), [np.array([1, 0], np.int32)],
           id="OneHot-float64"),
    # ── Shape / Size / Rank (unknown shapes: otherwise TF folds them into a Const) ──
    OpCase("Shape", lambda tf, x: tf.shape(_unknown(tf, x)), lambda x: np.array(x.shape, np.int32),
           [X234]),
    OpCase("Shape", lambda tf, x: tf.shape(_unknown(tf, x), out_type=tf.int64),
           lambda x: np.array(x.shape, np.int64), [X23], id="Shape-int64"),
    OpCase("Size", lambda tf, x: tf.size(_unknown(tf, x)), lambda x: np.array(x.size, np.int32),
           [X234]),
    OpCase("Rank", lambda tf, x: tf.rank(tf.placeholder_with_default(x, None)),
           lambda x: np.array(x.ndim, np.int32), [X234]),
    # ── Fill (and zeros/ones of dynamic shapes) ──
    OpCase("Fill", lambda tf: tf.fill([2, 3], 9.0), lambda: np.full([2, 3], 9.0, np.float32)),
    OpCase("Fill", lambda tf, x: tf.zeros(tf.shape(_unknown(tf, x)), tf.int32),
           lambda x: np.zeros(x.shape, np.int32), [X23], id="Fill-zeros"),
    OpCase("Fill", lambda tf, x: tf.ones_like(x), lambda x: np.ones_like(x), [X23],
           id="Fill-ones_like"),
    # ── ZerosLike / OnesLike ──
    OpCase("ZerosLike", lambda tf, x: tf.zeros_like(_unknown(tf, x)), lambda x: np.zeros_like(x),
           [X23]),
    OpCase("OnesLike", lambda tf, x: tf.array_ops.ones_like_op.bind(x), lambda x: np.ones_like(x),
           [_ints(2, 2)]),
    # ── boolean_mask (Reshape, Where, Squeeze, GatherV2) ──
    OpCase("GatherV2", lambda tf, x, m: tf.boolean_mask(x, m), lambda x, m: x[m],
           [X23, np.array([True, False])], id="boolean_mask"),
    OpCase("GatherV2", lambda tf, x, m: tf.boolean_mask(x, m, axis=1), lambda x, m: x[:, m],
           [X234, np.array([True, False, True])], id="boolean_mask-axis"),
    OpCase("GatherV2", lambda tf, x, m: tf.boolean_mask(x, m), lambda x, m: x[m],
           [X234, np.array([[True, False, True], [False, False, True]])],
           id="boolean_mask-2d-mask"),
    # ── Gradient helpers: InvertPermutation / ConcatOffset / StridedSliceGrad / MirrorPadGrad ──
    OpCase("InvertPermutation", lambda tf, p: tf.invert_permutation(p), np.argsort,
           [np.array([2, 0, 3, 1], np.int32)]),
    OpCase("InvertPermutation", lambda tf, p: tf.invert_permutation(p),
           lambda p: np.argsort(p).astype(np.int64), [np.array([0, 1], np.int64)],
           id="InvertPermutation-int64"),
    OpCase("ConcatOffset", lambda tf, a, b, c: tf.array_ops.concat_offset(1, [a, b, c]),
           lambda a, b, c: [np.array(v, np.int32) for v in ([0, 0, 0], [0, 3, 0], [0, 8, 0])],
           [np.array(v, np.int32) for v in ([2, 3, 4], [2, 5, 4], [2, 1, 4])]),
    OpCase("ConcatOffset", lambda tf, a, b: tf.array_ops.concat_offset(-1, [a, b]),
           lambda a, b: [np.array([0, 0], np.int32), np.array([0, 3], np.int32)],
           [np.array([2, 3], np.int32), np.array([2, 4], np.int32)], id="ConcatOffset-neg"),
    OpCase("StridedSliceGrad",
           lambda tf, dy: tf.array_ops.strided_slice_grad([2, 3, 4], [1, 0, 2], [0, 3, 4],
                                                          [1, 2, -1], dy, begin_mask=1,
                                                          end_mask=5),
           lambda dy: _ss_grad_ref((2, 3, 4), np.s_[:, 0:3:2, 2::-1], dy), [rand(2, 2, 3)]),
    OpCase("StridedSliceGrad",
           lambda tf, dy: tf.array_ops.strided_slice_grad([2, 3, 4], [0, 1, 0], [0, 2, 0],
                                                          [1, 1, 1], dy, ellipsis_mask=1,
                                                          new_axis_mask=4, shrink_axis_mask=2),
           lambda dy: _ss_grad_ref((2, 3, 4), np.s_[..., 1, None], dy), [rand(2, 3, 1)],
           id="StridedSliceGrad-ellipsis-newaxis-shrink"),
    OpCase("MirrorPadGrad",
           lambda tf, dy: tf.array_ops.mirror_pad_grad(dy, [[1, 1], [2, 2]], "REFLECT"),
           lambda dy: _mirror_pad_grad_ref(dy, [[1, 1], [2, 2]], "reflect"), [rand(4, 7)],
           rtol=1e-5, atol=1e-5),
    OpCase("MirrorPadGrad",
           lambda tf, dy: tf.array_ops.mirror_pad_grad(dy, [[2, 1], [3, 0]], "SYMMETRIC"),
           lambda dy: _mirror_pad_grad_ref(dy, [[2, 1], [3, 0]], "symmetric"), [rand(5, 6)],
           rtol=1e-5, atol=1e-5, id="MirrorPadGrad-symmetric"),
    # ── Gradient samples: a scalar Fill value, and inputs of unknown shape ──
    OpCase("Fill", lambda tf, v: tf.fill([2, 3], v), lambda v: np.full([2, 3], v),
           [np.array(1.5, np.float32)], id="Fill-value"),
    OpCase("Reshape", lambda tf, x: tf.reshape(_unknown(tf, x), [-1, 2]),
           lambda x: x.reshape(-1, 2), [X234], id="Reshape-unknown"),
    OpCase("Transpose", lambda tf, x: tf.transpose(_unknown(tf, x), [2, 0, 1]),
           lambda x: x.transpose(2, 0, 1), [X234], id="Transpose-unknown"),
    OpCase("Transpose", lambda tf, x: tf.transpose(tf.placeholder_with_default(x, None)),
           lambda x: x.T, [X234], id="Transpose-unknown-rank"),
    OpCase("ExpandDims", lambda tf, x: tf.expand_dims(_unknown(tf, x), 1), lambda x: x[:, None],
           [X23], id="ExpandDims-unknown"),
    OpCase("Squeeze", lambda tf, x: tf.squeeze(_unknown(tf, x), [0, 2]),
           lambda x: x.reshape(3), [rand(1, 3, 1)], id="Squeeze-unknown"),
    OpCase("ConcatV2", lambda tf, x, y: tf.concat([_unknown(tf, x), _unknown(tf, y), x], 1),
           lambda x, y: np.concatenate([x, y, x], 1), [X23, rand(2, 4)], id="ConcatV2-unknown"),
    OpCase("ConcatV2", lambda tf, x, y: tf.concat([x, y], tf.placeholder_with_default(0, [])),
           lambda x, y: np.concatenate([x, y], 0), [X23, rand(1, 3)],
           id="ConcatV2-dynamic-axis"),
    OpCase("Pack", lambda tf, x, y: tf.stack([_unknown(tf, x), y], axis=1),
           lambda x, y: np.stack([x, y], 1), [X23, rand(2, 3, seed=1)], id="Pack-unknown"),
    OpCase("Unpack", lambda tf, x: tf.unstack(_unknown(tf, x), num=3, axis=1),
           lambda x: list(np.moveaxis(x, 1, 0)), [X234], id="Unpack-unknown"),
    OpCase("Split", lambda tf, x: tf.split(_unknown(tf, x), 2, axis=2),
           lambda x: np.split(x, 2, 2), [X234], id="Split-unknown"),
    OpCase("SplitV", lambda tf, x: tf.split(_unknown(tf, x), [2, -1], 2),
           lambda x: np.split(x, [2], 2), [X234], id="SplitV-unknown"),
    OpCase("Tile", lambda tf, x: tf.tile(_unknown(tf, x), [2, 1, 3]),
           lambda x: np.tile(x, [2, 1, 3]), [X234], id="Tile-unknown"),
    OpCase("Pad", lambda tf, x: tf.pad(_unknown(tf, x), [[0, 2], [1, 1]]),
           lambda x: np.pad(x, [[0, 2], [1, 1]]), [X23], id="Pad-unknown"),
    OpCase("MirrorPad", lambda tf, x: tf.pad(_unknown(tf, x), [[1, 1], [2, 0]], mode="REFLECT"),
           lambda x: np.pad(x, [[1, 1], [2, 0]], mode="reflect"), [X23], id="MirrorPad-unknown"),
    OpCase("Slice", lambda tf, x: tf.slice(_unknown(tf, x), [1, 0, 1], [-1, 2, 2]),
           lambda x: x[1:, 0:2, 1:3], [X234], id="Slice-unknown"),
    OpCase("StridedSlice", lambda tf, x: _unknown(tf, x)[::-1, 1:],
           lambda x: x[::-1, 1:], [X234], id="StridedSlice-unknown"),
    OpCase("GatherV2", lambda tf, x, i: tf.gather(_unknown(tf, x), i, axis=1),
           lambda x, i: np.take(x, i, 1), [X234, np.array([2, 0, 2], np.int32)],
           id="GatherV2-unknown-axis"),
    OpCase("GatherV2", lambda tf, x, i: tf.gather(x, i, axis=2, batch_dims=1),
           lambda x, i: np.stack([np.take(x[b], i[b], 1) for b in range(2)]),
           [X234, np.array([[0, 3, 3], [1, 1, 2]], np.int32)], id="GatherV2-batch_dims-axis2"),
    # ── GatherNd / ScatterNd / TensorScatter* (scatter_nd_ops) ──
    OpCase("GatherNd", lambda tf, x, i: tf.gather_nd(x, i),
           lambda x, i: x[tuple(i.T)], [X234, np.array([[1, 0], [0, 2], [1, 0]], np.int32)]),
    OpCase("GatherNd", lambda tf, x, i: tf.gather_nd(x, i), lambda x, i: x[i[:, 0]],
           [X234, np.array([[1], [0], [1]], np.int32)], id="GatherNd-rows"),
    OpCase("GatherNd", lambda tf, x, i: tf.gather_nd(x, i), lambda x, i: x[tuple(i.T)],
           [X234, np.array([[1, 2, 3], [0, 0, 0]], np.int32)], id="GatherNd-scalars"),
    OpCase("ScatterNd", lambda tf, i, u: tf.scatter_nd(i, u, [4, 3]),
           lambda i, u: np.add.at(z := np.zeros((4, 3), np.float32), i[:, 0], u) or z,
           [np.array([[1], [3], [1]], np.int32), rand(3, 3)]),
    OpCase("TensorScatterUpdate", lambda tf, x, i, u: tf.tensor_scatter_nd_update(x, i, u),
           lambda x, i, u: _ts_ref(x, i, u, None),
           [X234, np.array([[1, 2], [0, 0]], np.int32), rand(2, 4, seed=3)]),
    OpCase("TensorScatterAdd", lambda tf, x, i, u: tf.tensor_scatter_nd_add(x, i, u),
           lambda x, i, u: _ts_ref(x, i, u, np.add),
           [X234, np.array([[1, 2], [1, 2]], np.int32), rand(2, 4, seed=3)]),
    OpCase("TensorScatterSub", lambda tf, x, i, u: tf.tensor_scatter_sub(x, i, u),
           lambda x, i, u: _ts_ref(x, i, u, np.subtract),
           [X234, np.array([[1, 2], [0, 1]], np.int32), rand(2, 4, seed=3)]),
    OpCase("TensorScatterMax", lambda tf, x, i, u: tf.tensor_scatter_nd_max(x, i, u),
           lambda x, i, u: _ts_ref(x, i, u, np.maximum),
           [X234, np.array([[1, 2], [0, 1]], np.int32), rand(2, 4, seed=3)]),
    OpCase("TensorScatterMin", lambda tf, x, i, u: tf.tensor_scatter_nd_min(x, i, u),
           lambda x, i, u: _ts_ref(x, i, u, np.minimum),
           [X234, np.array([[1, 2], [0, 1]], np.int32), rand(2, 4, seed=3)]),
    # ── sort / argsort build TopKV2; LowerBound, UpperBound, UniqueWithCounts, ListDiff ──
    OpCase("TopKV2", lambda tf, x: tf.sort(x, axis=1), lambda x: np.sort(x, 1), [X234],
           id="TopKV2-sort-axis1"),
    OpCase("TopKV2", lambda tf, x: tf.argsort(x, direction="DESCENDING"),
           lambda x: np.argsort(-x, -1, kind="stable").astype(np.int32), [X234],
           id="TopKV2-argsort-desc"),
    OpCase("LowerBound", lambda tf, s, v: tf.searchsorted(s, v),
           lambda s, v: np.stack([np.searchsorted(a, b) for a, b in zip(s, v)]).astype(np.int32),
           [np.sort(rand(2, 5), 1), rand(2, 3, seed=4)]),
    OpCase("UpperBound", lambda tf, s, v: tf.searchsorted(s, v, side="right"),
           lambda s, v: np.searchsorted(s, v, "right").astype(np.int32),
           [np.array([1, 2, 2, 3], np.float32), np.array([2, 0, 3], np.float32)]),
    OpCase("UniqueWithCounts", lambda tf, x: list(tf.unique_with_counts(x)),
           lambda x: [np.array([4, 1, 2], np.int32), np.array([0, 1, 0, 2, 1], np.int32),
                      np.array([2, 2, 1], np.int32)], [np.array([4, 1, 4, 2, 1], np.int32)]),
    OpCase("ListDiff", lambda tf, x, y: list(tf.setdiff1d(x, y)),
           lambda x, y: [np.array([1, 3], np.int32), np.array([0, 2], np.int32)],
           [np.array([1, 2, 3, 4], np.int32), np.array([4, 2], np.int32)]),
    # ── SpaceToDepth / DepthToSpace / SpaceToBatchND / BatchToSpaceND (space_ops) ──
    OpCase("SpaceToDepth", lambda tf, x: tf.space_to_depth(x, 2),
           lambda x: x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 2, 3, 12),
           [rand(2, 4, 6, 3)]),
    OpCase("DepthToSpace", lambda tf, x: tf.depth_to_space(x, 2),
           lambda x: x.reshape(2, 2, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(2, 4, 6, 2),
           [rand(2, 2, 3, 8)]),
    OpCase("SpaceToBatchND", lambda tf, x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]]),
           lambda x: np.concatenate([np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 0)])[:, a::2, b::2]
                                     for a in range(2) for b in range(2)]),
           [rand(2, 4, 4, 3)]),
    OpCase("BatchToSpaceND", lambda tf, x: tf.batch_to_space(x, [[0, 0], [1, 1]], 2),
           lambda x: _b2s_ref(x, 2)[:, :, 1:-1], [rand(8, 2, 3, 1)]),
    # ── Roll / UnravelIndex / EnsureShape / ParallelConcat / Einsum (grid_ops) ──
    OpCase("Roll", lambda tf, x: tf.roll(x, [1, -2], [0, 2]),
           lambda x: np.roll(x, (1, -2), (0, 2)), [X234]),
    OpCase("UnravelIndex", lambda tf, i: tf.unravel_index(i, [2, 3, 4]),
           lambda i: np.stack(np.unravel_index(i, (2, 3, 4))).astype(np.int32),
           [np.array([0, 7, 23, 12], np.int32)]),
    OpCase("EnsureShape", lambda tf, x: tf.ensure_shape(x, [2, None, 4]), lambda x: x, [X234]),
    OpCase("ParallelConcat", lambda tf, x, y: tf.parallel_stack([x, y]),
           lambda x, y: np.stack([x, y]), [X23, rand(2, 3, seed=5)]),
    OpCase("Einsum", lambda tf, x, y: tf.einsum("ij,jk->ik", x, y), lambda x, y: x @ y,
           [X23, rand(3, 4)], rtol=1e-5),
    OpCase("Einsum", lambda tf, x, y: tf.einsum("bij,kj->bk", x, y),
           lambda x, y: np.einsum("bij,kj->bk", x, y), [X234, rand(5, 4)], rtol=1e-5,
           id="Einsum-reduce"),
    OpCase("Einsum", lambda tf, x: tf.einsum("ijk->ki", x), lambda x: x.sum(1).T, [X234],
           rtol=1e-5, id="Einsum-unary"),
    OpCase("Einsum", lambda tf, x, y: tf.einsum("ij,kl->ik", x, y),
           lambda x, y: np.einsum("ij,kl->ik", x, y), [X23, rand(4, 2)], rtol=1e-5,
           id="Einsum-outer-sums"),
    OpCase("Less", lambda tf, n: tf.sequence_mask(n, 5), lambda n: np.arange(5) < n[:, None],
           [np.array([0, 2, 5], np.int32)], id="Less-sequence_mask"),
]
