"""Short-time Fourier transforms and MDCTs: ``stft``, ``inverse_stft``,
``inverse_stft_window_fn``, ``mdct``, ``inverse_mdct``; composites (frame, window, RFFT or
DCT-IV, overlap-add) built as TF builds them."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.reverse_ops import reverse
from scopeflow.ops.array.shape_ops import rank, reshape, shape
from scopeflow.ops.array.slicing_ops import concat, pad, split
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import cast, equal
from scopeflow.ops.math.elementwise_ops import ceil, log, pow, square
from scopeflow.ops.math.reduction_ops import maximum, reduce_sum, tile, where, zeros, zeros_like
from scopeflow.ops.signal.dct_ops import dct
from scopeflow.ops.signal.fft_ops import irfft, rfft
from scopeflow.ops.signal.frame_ops import frame, overlap_and_add
from scopeflow.ops.signal.window_ops import hann_window, vorbis_window

__all__ = ["stft", "inverse_stft", "inverse_stft_window_fn", "mdct", "inverse_mdct"]


def _enclosing_power_of_two(value):
    static = constant_value(value)
    if static is not None:
        return constant(int(2 ** np.ceil(np.log(static) / np.log(2.0))), value.dtype)
    return cast(pow(2.0, ceil(log(cast(value, dtypes.float32)) / log(2.0))), value.dtype)


def _frame_params(frame_length, frame_step, fft_length, check_fft_rank):
    """The scalar ``frame_length`` and ``frame_step`` tensors and ``fft_length`` (by
    default the power of 2 enclosing ``frame_length``); only ``inverse_stft`` checks a
    given ``fft_length``'s rank, as TF's does."""
    frame_length = convert_to_tensor(frame_length, name="frame_length")
    frame_length.shape.assert_has_rank(0)
    frame_step = convert_to_tensor(frame_step, name="frame_step")
    frame_step.shape.assert_has_rank(0)
    if fft_length is None:
        fft_length = _enclosing_power_of_two(frame_length)
    else:
        fft_length = convert_to_tensor(fft_length, name="fft_length")
        if check_fft_rank:
            fft_length.shape.assert_has_rank(0)
    return frame_length, frame_step, fft_length


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None) -> Tensor:
    """The STFT of ``signals`` ``[..., samples]``: windowed frames' RFFTs,
    ``[..., frames, fft_length // 2 + 1]`` (``fft_length``: the enclosing power of 2)."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length, frame_step, fft_length = _frame_params(
            frame_length, frame_step, fft_length, check_fft_rank=False)
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        return rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for ``inverse_stft`` that undoes ``forward_window_fn``'s
    overlap-added squares (perfect reconstruction where they never sum to 0)."""
    def inverse_stft_window_fn_inner(frame_length, dtype):
        with name_scope(name, "inverse_stft_window_fn", []):
            frame_step_ = convert_to_tensor(frame_step, name="frame_step")
            frame_step_.shape.assert_has_rank(0)
            frame_length_ = convert_to_tensor(frame_length, name="frame_length")
            frame_length_.shape.assert_has_rank(0)
            forward_window = forward_window_fn(frame_length_, dtype=dtype)
            denom = square(forward_window)
            overlaps = -(-frame_length_ // frame_step_)
            denom = pad(denom, [(0, overlaps * frame_step_ - frame_length_)])
            denom = reshape(denom, [overlaps, frame_step_])
            denom = reduce_sum(denom, 0, keepdims=True)
            denom = tile(denom, [overlaps, 1])
            denom = reshape(denom, [overlaps * frame_step_])
            denom = denom[:frame_length_]
            return where(equal(denom, 0.0), zeros_like(forward_window), forward_window / denom)
    return inverse_stft_window_fn_inner


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None) -> Tensor:
    """Signals from their STFTs: IRFFT of each frame, cropped or padded to
    ``frame_length``, windowed, overlap-added."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length, frame_step, fft_length = _frame_params(
            frame_length, frame_step, fft_length, check_fft_rank=True)
        real_frames = irfft(stfts, [fft_length])
        length = constant_value(frame_length)
        dims = real_frames.shape.as_tuple()
        if length is None or dims is None or dims[-1] is None:
            real_frames = real_frames[..., :frame_length]
            frames_rank = rank(real_frames)
            frames_shape = shape(real_frames)
            paddings = concat([zeros([frames_rank - 1, 2], dtype=frame_length.dtype),
                               [[0, maximum(0, frame_length - frames_shape[-1])]]], 0)
            real_frames = pad(real_frames, paddings)
        elif dims[-1] > length:
            real_frames = real_frames[..., :int(length)]
        elif dims[-1] < length:
            real_frames = pad(real_frames, [[0, 0]] * (len(dims) - 1)
                              + [[0, int(length) - dims[-1]]])
        if length is not None and real_frames.shape.ndims is not None:
            real_frames.set_shape([None] * (real_frames.shape.ndims - 1) + [int(length)])
        if window_fn is not None:
            real_frames *= window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return overlap_and_add(real_frames, frame_step)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None) -> Tensor:
    """The MDCT of ``signals``: half-overlapping windowed frames (``frame_length`` a
    multiple of 4) folded and DCT-IV transformed, ``[..., frames, frame_length // 2]``."""
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        length = constant_value(frame_length)
        if length is not None:
            if int(length) % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = convert_to_tensor(int(length) // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        else:
            framed *= 1.0 / np.sqrt(2)
        parts = split(framed, 4, axis=-1)
        first = -reverse(parts[2], [-1]) - parts[3]
        second = parts[0] - reverse(parts[1], [-1])
        return dct(concat((first, second), axis=-1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None) -> Tensor:
    """Signals from their MDCTs (DCT-IV, unfolded, windowed, overlap-added at half a
    frame): exact with the Vorbis (or another Princen-Bradley) window."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half_len = cast(mdcts.shape[-1], dtype=dtypes.int32)
        if norm is None:
            half_len_float = cast(half_len, dtype=mdcts.dtype)
            result = (0.5 / half_len_float) * dct(mdcts, type=4)
        elif norm == "ortho":
            result = dct(mdcts, type=4, norm="ortho")
        parts = split(result, 2, axis=-1)
        real_frames = concat((parts[1], -reverse(parts[1], [-1]), -reverse(parts[0], [-1]),
                              -parts[0]), axis=-1)
        if window_fn is not None:
            real_frames *= window_fn(2 * half_len, dtype=mdcts.dtype)
        else:
            real_frames *= 1.0 / np.sqrt(2)
        return overlap_and_add(real_frames, half_len)
