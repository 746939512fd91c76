"""``frame`` (overlapping windows of a signal along an axis) and ``overlap_and_add`` (its
inverse sum), composites of existing ops: their gradients come from Gather, Pad, Reshape,
Transpose and Sum. ``frame`` gathers every frame's samples at once; ``overlap_and_add``
is TF's pad/reshape/transpose/sum scheme."""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.layout_ops import transpose
from scopeflow.ops.array.shape_ops import reshape, shape, size
from scopeflow.ops.array.slicing_ops import concat, pad
from scopeflow.ops.math.arithmetic_ops import range
from scopeflow.ops.math.reduction_ops import maximum, reduce_sum, zeros

__all__ = ["frame", "overlap_and_add"]


def _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis):
    """TF's static shape of ``frame``'s result (None: unknown rank)."""
    frame_length = constant_value(frame_length)
    frame_step = constant_value(frame_step)
    axis = constant_value(axis)
    if signal.shape.ndims is None:
        return None
    if axis is None:
        return [None] * (signal.shape.ndims + 1)
    dims = signal.shape.as_list()
    axis = int(axis)
    frame_axis = dims[axis]
    outer = dims[:axis]
    inner = dims[axis:][1:]
    num_frames = None
    if dims and frame_axis is not None:
        if frame_step is not None and pad_end:
            num_frames = max(0, -(-frame_axis // int(frame_step)))
        elif frame_step is not None and frame_length is not None:
            num_frames = max(0, (frame_axis - int(frame_length) + int(frame_step))
                             // int(frame_step))
    return outer + [num_frames, None if frame_length is None else int(frame_length)] + inner


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name=None) -> Tensor:
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``: the result has
    ``[num_frames, frame_length]`` in place of that axis. With ``pad_end`` the signal is
    padded with ``pad_value`` so every sample starts a frame's worth of hops."""
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        axis = convert_to_tensor(axis, name="axis")
        signal.shape.with_rank_at_least(1)
        frame_length.shape.assert_has_rank(0)
        frame_step.shape.assert_has_rank(0)
        axis.shape.assert_has_rank(0)
        result_shape = _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis)
        signal_rank = signal.shape.ndims
        axis_static = constant_value(axis)
        length = shape(signal)[axis]
        if pad_end:
            pad_value = convert_to_tensor(pad_value, signal.dtype)
            pad_value.shape.assert_has_rank(0)
            num_frames = -(-length // frame_step)
            pad_samples = maximum(0, frame_length + frame_step * (num_frames - 1) - length)
            if signal_rank is not None and axis_static is not None:
                a = builtins.range(signal_rank)[int(axis_static)]
                paddings = concat([zeros([a, 2], dtype=pad_samples.dtype),
                                   reshape(concat([[0], reshape(pad_samples, [1])], 0),
                                           [1, 2]),
                                   zeros([signal_rank - 1 - a, 2], dtype=pad_samples.dtype)],
                                  0)
            else:
                r = size(shape(signal))
                a = range(r)[axis]
                paddings = concat([zeros([a, 2], dtype=pad_samples.dtype),
                                   reshape(concat([[0], reshape(pad_samples, [1])], 0),
                                           [1, 2]),
                                   zeros([r - 1 - a, 2], dtype=pad_samples.dtype)], 0)
            signal = pad(signal, paddings, constant_values=pad_value)
        else:
            num_frames = maximum(np.array(0, frame_length.dtype.as_numpy_dtype),
                                 1 + (length - frame_length) // frame_step)
        starts = reshape(range(num_frames, dtype=frame_length.dtype) * frame_step, [-1, 1])
        offsets = reshape(range(frame_length, dtype=frame_length.dtype), [1, -1])
        # Gathered from a Reshape as TF's frames are (from its subframes): the gradient
        # reaching the signal is then dense, never IndexedSlices, for every axis.
        frames = gather(reshape(signal, shape(signal)), starts + offsets, axis=axis)
        if result_shape:
            frames.set_shape(result_shape)
        return frames


def _static_signal_shape(signal):
    """``(dims, signal_shape)``: the static dims (None: unknown rank) and the shape as a
    NumPy array when fully known (no Shape op), else the ``Shape`` tensor."""
    dims = signal.shape.as_tuple()
    if dims is not None and None not in dims:
        return dims, np.array(dims, np.int32)
    return dims, shape(signal)


def _with_outer_dims(outer_dims, inner):
    """``outer_dims + inner``: a NumPy array while every part is static, else a Concat."""
    if isinstance(outer_dims, np.ndarray) and all(not isinstance(d, Tensor) for d in inner):
        return np.concatenate([outer_dims, np.array(inner, np.int32)])
    return concat([outer_dims, inner], 0)


def _segment_paddings(outer_rank, segments, frame_step, frame_length):
    """Pads the frames axis by ``segments`` frames and the frame axis up to a whole number
    of ``segments`` steps; a Python list unless a size is only known at run time."""
    if isinstance(segments, Tensor) or isinstance(outer_rank, Tensor):
        return concat([zeros([outer_rank, 2], dtypes.int32),
                       [[0, segments], [0, segments * frame_step - frame_length]]], 0)
    return [[0, 0]] * outer_rank + [[0, int(segments)],
                                    [0, int(segments * frame_step - frame_length)]]


def _swap_frames_and_segments_perm(outer_rank):
    """The permutation that swaps the two axes after the ``outer_rank`` outer ones."""
    if isinstance(outer_rank, Tensor):
        return concat([range(outer_rank), outer_rank + [1, 0, 2]], 0)
    return list(builtins.range(outer_rank)) + [outer_rank + 1, outer_rank, outer_rank + 2]


def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """Sums frames ``[..., frames, frame_length]`` placed ``frame_step`` apart into
    ``[..., frame_length + frame_step * (frames - 1)]`` (``frame``'s inverse sum)."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        step_static = constant_value(frame_step)
        if step_static is not None:
            frame_step = int(step_static)
        dims, signal_shape = _static_signal_shape(signal)
        outer_dims = signal_shape[:-2]
        outer_rank = len(dims) - 2 if dims is not None else size(outer_dims)
        frame_length = signal_shape[-1]
        frames = signal_shape[-2]
        output_length = frame_length + frame_step * (frames - 1)
        if step_static is not None and dims is not None and dims[-1] == frame_step:
            return reshape(signal, _with_outer_dims(outer_dims, [output_length]),
                           name="fast_path")
        # TF's scheme: cut each frame into ``segments`` hops, line every hop up with the
        # hops of the frames it overlaps, and sum them.
        segments = -(-frame_length // frame_step)
        signal = pad(signal, _segment_paddings(outer_rank, segments, frame_step,
                                               frame_length))
        signal = reshape(signal, _with_outer_dims(
            outer_dims, [frames + segments, segments, frame_step]))
        signal = transpose(signal, _swap_frames_and_segments_perm(outer_rank))
        signal = reshape(signal, _with_outer_dims(
            outer_dims, [(frames + segments) * segments, frame_step]))
        signal = signal[..., :(frames + segments - 1) * segments, :]
        signal = reshape(signal, _with_outer_dims(
            outer_dims, [segments, frames + segments - 1, frame_step]))
        signal = reduce_sum(signal, -3)
        signal = reshape(signal, _with_outer_dims(
            outer_dims, [(frames + segments - 1) * frame_step]))
        return signal[..., :output_length]
