"""Summary ops: each returns one serialized ``Summary`` protobuf as a string tensor (TF1).

``ScalarSummary``, ``HistogramSummary`` (TF1's bucketing, vectorised; FORMATS §2.5),
``ImageSummary`` (PNG, encoded with zlib), ``AudioSummaryV2`` (16-bit WAV),
``TensorSummaryV2`` (text and tensor summaries) and ``MergeSummary``. The public
``tf.summary.*`` builders live in ``scopeflow.summary``.

As TF, a NaN or Inf in a histogram's values fails the run with ``InvalidArgumentError``
naming the op (``Nan in summary histogram for: h``); ``set_nonfinite_histogram_policy``
("warn" or "ignore") instead bins the finite values and goes on.
"""

from __future__ import annotations

import struct
import warnings
import zlib

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import REAL
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.opdef import OpDef, check_dtype, scalar_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos

__all__ = ["scalar_summary_op", "histogram_summary_op", "merge_summary_op",
           "image_summary_op", "audio_summary_op", "tensor_summary_op", "histogram_proto",
           "encode_png", "encode_wav", "set_nonfinite_histogram_policy",
           "NonFiniteHistogramWarning", "TF_HISTOGRAM_LIMITS"]

def _serialized(summary) -> np.ndarray:
    return np.array(summary.SerializeToString(), dtype=object)


def _tag_str(tag) -> str:
    value = tag.item() if isinstance(tag, np.ndarray) else tag
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _scalar_tag(tag, what):
    if np.ndim(tag) != 0:
        raise InvalidArgumentError(None, None, f"{what}: tag must be a scalar, got shape "
                                   f"{list(np.shape(tag))}")
    return _tag_str(tag)


# ── ScalarSummary ────────────────────────────────────────────────────────────────────
def _scalar_summary_dtype(tags, values, **attrs):
    check_dtype(tags, (dtypes.string,), "tags")
    check_dtype(values, REAL, "T")
    return dtypes.string


def _scalar_summary_kernel(tags, values):
    if np.shape(tags) != np.shape(values):
        raise InvalidArgumentError(
            None, None, f"tags and values are not the same shape: {list(np.shape(tags))} != "
            f"{list(np.shape(values))}" + (f" (tag '{_tag_str(tags)}')" if np.ndim(tags) == 0
                                           else ""))
    summary = protos.Summary()
    # float32 as TF's static_cast<float>; one Value per element, in row-major order
    for tag, value in zip(np.ravel(tags).tolist(), np.ravel(values).astype(np.float32).tolist()):
        summary.value.add(tag=_tag_str(tag), simple_value=value)
    return _serialized(summary)


scalar_summary_op = OpDef("ScalarSummary", shape=scalar_shape, dtype=_scalar_summary_dtype,
                          kernel=_scalar_summary_kernel, grad=None,
                          input_names=("tags", "values"))


# ── HistogramSummary ─────────────────────────────────────────────────────────────────
def _default_limits() -> np.ndarray:
    """TF1's fixed bucket edges: ±1e-12·1.1^k up to 1e20, ±DBL_MAX and 0 (1551 values)."""
    pos = []
    v = 1e-12
    while v < 1e20:  # the same double multiplications as TF, so the same edges
        pos.append(v)
        v *= 1.1
    pos.append(np.finfo(np.float64).max)
    pos = np.array(pos)
    return np.concatenate([-pos[::-1], [0.0], pos])


TF_HISTOGRAM_LIMITS = _default_limits()
_DBL_MAX = float(np.finfo(np.float64).max)
_LIMITS_INF = np.append(TF_HISTOGRAM_LIMITS, np.inf)
_CELL_SHIFT = 46  # sign + 11 exponent + 6 mantissa bits: a cell spans 1.6% < a bucket's 10%
_N_CELLS = 1 << (64 - _CELL_SHIFT)
_CELL_COUNTS: list = []


def _cell_counts() -> np.ndarray:
    """Per cell of doubles (their top 18 bits): the count of limits <= the cell's lowest
    value. A cell holds at most one limit, so one comparison finishes the count."""
    if not _CELL_COUNTS:
        k = np.arange(_N_CELLS, dtype=np.int64)
        mag = k & (_N_CELLS // 2 - 1)
        lo, hi = (mag << _CELL_SHIFT).view(np.float64), ((mag + 1) << _CELL_SHIFT).view(
            np.float64)
        with np.errstate(invalid="ignore"):
            start = np.nan_to_num(np.where(k >= _N_CELLS // 2, -hi, lo), nan=np.inf)
        _CELL_COUNTS.append(np.searchsorted(TF_HISTOGRAM_LIMITS, start, side="right")
                            .astype(np.int32))
    return _CELL_COUNTS[0]


def _bucket_index(x: np.ndarray) -> np.ndarray:
    """``searchsorted(TF_HISTOGRAM_LIMITS, x, side="right")`` for finite doubles, without a
    binary search (a table lookup on the top bits, then one comparison; ~4x faster)."""
    counts = _cell_counts()[(x.view(np.int64) >> _CELL_SHIFT) & (_N_CELLS - 1)]
    return counts + (x >= _LIMITS_INF[counts])


_NONFINITE_POLICY = ["raise"]


class NonFiniteHistogramWarning(UserWarning):
    """A histogram summary's input held NaN or Inf values (left out of the histogram)."""


def set_nonfinite_histogram_policy(policy: str):
    """What a histogram summary does with NaN/Inf inputs.

    ``"raise"`` (default): fail the run as TensorFlow does (``InvalidArgumentError``,
    ``Nan in summary histogram for: <op name>``); ``"warn"``: bin the finite values and
    warn with the counts per kind; ``"ignore"``: bin the finite values silently. Returns
    the previous policy.
    """
    if policy not in ("warn", "raise", "ignore"):
        raise ValueError(f"policy must be 'warn', 'raise' or 'ignore', not {policy!r}")
    old, _NONFINITE_POLICY[0] = _NONFINITE_POLICY[0], policy
    return old


def histogram_proto(values) -> protos.HistogramProto:
    """TF1's ``HistogramProto`` of ``values`` (finite, any shape), byte-identical to TF.

    >>> h = histogram_proto(np.array([0.0, 1.0, 1.0]))
    >>> h.num, h.min, h.max, list(h.bucket)
    (3.0, 0.0, 1.0, [0.0, 1.0, 0.0, 2.0, 0.0])
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    proto = protos.HistogramProto()
    limits = TF_HISTOGRAM_LIMITS
    if x.size == 0:
        proto.min, proto.max = _DBL_MAX, -_DBL_MAX
        proto.bucket_limit.append(_DBL_MAX)
        proto.bucket.append(0.0)
        return proto
    proto.min, proto.max = float(x.min()), float(x.max())
    proto.num = float(x.size)
    # TF adds in element order; cumsum is sequential too (np.sum is pairwise: other bits)
    proto.sum = float(np.cumsum(x)[-1])
    with np.errstate(over="ignore"):
        proto.sum_squares = float(np.cumsum(x * x)[-1])
    counts = np.bincount(_bucket_index(x), minlength=limits.size)
    counts = counts[:limits.size].astype(np.float64)
    # A run of empty buckets collapses into its last bucket (preserve_zero_buckets=false).
    empty = counts == 0.0
    keep = ~empty
    keep[:-1] |= empty[:-1] & ~empty[1:]
    keep[-1] = True
    proto.bucket_limit.extend(limits[keep].tolist())
    proto.bucket.extend(counts[keep].tolist())
    return proto


def _histogram_summary_dtype(tag, values, **attrs):
    check_dtype(tag, (dtypes.string,), "tag")
    check_dtype(values, REAL + (dtypes.bool_,), "T")
    return dtypes.string


def _nonfinite_histogram_error(op, x, finite):
    """TF 2.21's error: its kernel stops at the first non-finite value (in element order)
    and names the op (``name()``), not the tag; the two wordings differ."""
    first = x[int(np.argmin(finite))]
    text = "Nan in summary histogram for: " if np.isnan(first) else "Infinity in Histogram for: "
    return InvalidArgumentError(None, None, text + op.name)


def _histogram_summary_kernel(ctx, tag, values):
    name = _scalar_tag(tag, "HistogramSummary")
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    finite = np.isfinite(x)
    if not finite.all():
        policy = _NONFINITE_POLICY[0]
        if policy == "raise":
            raise _nonfinite_histogram_error(ctx.op, x, finite)
        n_nan = int(np.isnan(x).sum())
        n_pos = int(np.isposinf(x).sum())
        n_neg = int(x.size - finite.sum()) - n_nan - n_pos
        if policy == "warn":
            warnings.warn(f"Histogram summary '{name}': {n_nan} NaN, {n_pos} +Inf and {n_neg} "
                          f"-Inf values of {x.size} left out of the histogram",
                          NonFiniteHistogramWarning, stacklevel=2)
        x = x[finite]
    summary = protos.Summary()
    summary.value.add(tag=name).histo.CopyFrom(histogram_proto(x))
    return _serialized(summary)


# NOTE: stateful only to be given its op (the error names it); TF's op is not stateful, so
# the one difference is that a histogram of constants is not folded into the plan.
histogram_summary_op = OpDef("HistogramSummary", shape=scalar_shape,
                             dtype=_histogram_summary_dtype, kernel=_histogram_summary_kernel,
                             grad=None, input_names=("tag", "values"), stateful=True)


# ── MergeSummary ─────────────────────────────────────────────────────────────────────
def _merge_summary_dtype(*inputs, N):
    for d in inputs:
        check_dtype(d, (dtypes.string,), "inputs")
    return dtypes.string


def _merge_summary_kernel(*inputs, N):
    merged = protos.Summary()
    seen = set()
    for serialized in inputs:
        for item in np.ravel(serialized).tolist():
            try:
                part = protos.Summary.FromString(item)
            except Exception:  # noqa: BLE001 - protobuf's DecodeError class varies by backend
                raise InvalidArgumentError(None, None, "Could not parse one of the summary "
                                           "inputs") from None
            for value in part.value:
                if value.tag in seen:
                    raise InvalidArgumentError(None, None, f"Duplicate tag {value.tag} found "
                                               "in summary inputs ")
                seen.add(value.tag)
            merged.value.extend(part.value)
    return _serialized(merged)


merge_summary_op = OpDef("MergeSummary", shape=scalar_shape, dtype=_merge_summary_dtype,
                         kernel=_merge_summary_kernel, attrs={"N": 1}, grad=None,
                         input_names=("inputs",))


# ── ImageSummary ─────────────────────────────────────────────────────────────────────
def encode_png(image: np.ndarray, compresslevel: int = 6) -> bytes:
    """An 8-bit PNG of a ``[height, width, channels]`` uint8 image (1, 3 or 4 channels)."""
    h, w, c = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = np.empty((h, 1 + w * c), dtype=np.uint8)
    raw[:, 0] = 0  # filter type None on every row
    raw[:, 1:] = image.reshape(h, w * c)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
            chunk(b"IDAT", zlib.compress(raw.tobytes(), compresslevel)) + chunk(b"IEND", b""))


def _image_summary_shape(tag, tensor, **attrs):
    dims = tensor.as_tuple()
    if dims is not None and (len(dims) != 4 or dims[3] not in (None, 1, 3, 4)):
        raise ValueError("Tensor must be 4-D with last dim 1, 3, or 4, not "
                         f"{list(d if d is not None else -1 for d in dims)}")
    return TensorShape([])


def _image_summary_dtype(tag, tensor, **attrs):
    check_dtype(tag, (dtypes.string,), "tag")
    check_dtype(tensor, (dtypes.uint8, dtypes.float32, dtypes.float16, dtypes.float64), "T")
    return dtypes.string


def _to_uint8_images(images, bad_color):
    """TF's NormalizeFloatImage: per image, scale into [0, 255] (or 128 ± 127 when any value
    is negative), truncating; pixels with a non-finite channel become ``bad_color``."""
    out = np.empty(images.shape, dtype=np.uint8)
    c = images.shape[-1]
    for i, image in enumerate(images):
        img = image.astype(np.float32)
        finite_px = np.isfinite(img).all(axis=-1)
        vals = img[finite_px]
        lo = float(vals.min()) if vals.size else np.inf
        hi = float(vals.max()) if vals.size else -np.inf
        if lo < 0:
            max_val = max(abs(lo), abs(hi))
            scale, offset = (0.0 if max_val < 1e-6 else 127.0 / max_val), 128.0
        else:
            scale, offset = (0.0 if hi < 1e-6 else 255.0 / hi), 0.0
        with np.errstate(invalid="ignore"):
            scaled = img * np.float32(scale) + np.float32(offset)
        out[i] = np.where(finite_px[..., None], np.nan_to_num(scaled).astype(np.uint8),
                          bad_color[:c])
    return out


def _image_summary_kernel(tag, tensor, *, max_images, bad_color):
    name = _scalar_tag(tag, "ImageSummary")
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise InvalidArgumentError(None, None, "Tensor must be 4-D with last dim 1, 3, or 4, "
                                   f"not {list(tensor.shape)}")
    batch = min(tensor.shape[0], max_images)
    if tensor.shape[1] * tensor.shape[2] * tensor.shape[3] > 2**31 - 1:
        raise InvalidArgumentError(None, None, "Tensor too large for summary")
    images = tensor[:batch]
    if images.dtype != np.uint8:
        color = np.asarray(bad_color, dtype=np.uint8).reshape(-1)
        color = np.concatenate([color, np.zeros(max(0, 4 - color.size), np.uint8)])
        images = _to_uint8_images(images, color)
    summary = protos.Summary()
    for i in range(batch):
        value = summary.value.add(tag=f"{name}/image" if max_images == 1 else f"{name}/image/{i}")
        h, w, c = images[i].shape
        value.image.height, value.image.width, value.image.colorspace = h, w, c
        value.image.encoded_image_string = encode_png(images[i])
    return _serialized(summary)


image_summary_op = OpDef("ImageSummary", shape=_image_summary_shape,
                         dtype=_image_summary_dtype, kernel=_image_summary_kernel,
                         attrs={"max_images": 3,
                                "bad_color": np.array([255, 0, 0, 255], dtype=np.uint8)},
                         grad=None, input_names=("tag", "tensor"))


# ── AudioSummaryV2 ───────────────────────────────────────────────────────────────────
def encode_wav(audio: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV of ``[frames, channels]`` floats in [-1, 1] (TF's EncodeAudioAsS16LEWav).
    """
    frames, channels = audio.shape
    with np.errstate(invalid="ignore"):
        # roundf (half away from zero) of x * 2^15, clamped to int16
        scaled = audio.astype(np.float32) * np.float32(32768.0)
        samples = np.clip(np.trunc(scaled + np.copysign(np.float32(0.5), scaled)),
                          -32768, 32767).astype("<i2")
    data = samples.tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         1, channels, sample_rate, sample_rate * channels * 2, channels * 2,
                         16, b"data", len(data))
    return header + data


def _audio_summary_shape(tag, tensor, sample_rate, **attrs):
    if tensor.ndims is not None and tensor.ndims not in (2, 3):
        raise ValueError(f"Shape must be rank 2 or 3 but is rank {tensor.ndims}")
    return TensorShape([])


def _audio_summary_dtype(tag, tensor, sample_rate, **attrs):
    check_dtype(tag, (dtypes.string,), "tag")
    check_dtype(tensor, (dtypes.float32,), "tensor")
    check_dtype(sample_rate, (dtypes.float32,), "sample_rate")
    return dtypes.string


def _audio_summary_kernel(tag, tensor, sample_rate, *, max_outputs):
    name = _scalar_tag(tag, "AudioSummaryV2")
    if np.ndim(sample_rate) != 0:
        raise InvalidArgumentError(None, None, "sample_rate must be rank-0, got shape "
                                   f"{list(np.shape(sample_rate))}")
    if tensor.ndim not in (2, 3):
        raise InvalidArgumentError(None, None, "Tensor must be 3-D or 2-D, got: "
                                   f"{list(tensor.shape)}")
    rate = float(sample_rate)
    audio = tensor if tensor.ndim == 3 else tensor[:, :, None]
    batch = min(audio.shape[0], max_outputs)
    summary = protos.Summary()
    for i in range(batch):
        value = summary.value.add(tag=f"{name}/audio" if max_outputs == 1 else f"{name}/audio/{i}")
        value.audio.sample_rate = rate
        value.audio.num_channels = audio.shape[2]
        value.audio.length_frames = audio.shape[1]
        value.audio.encoded_audio_string = encode_wav(audio[i], int(rate))
        value.audio.content_type = "audio/wav"
    return _serialized(summary)


audio_summary_op = OpDef("AudioSummaryV2", shape=_audio_summary_shape,
                         dtype=_audio_summary_dtype, kernel=_audio_summary_kernel,
                         attrs={"max_outputs": 3}, grad=None,
                         input_names=("tag", "tensor", "sample_rate"))


# ── TensorSummaryV2 ──────────────────────────────────────────────────────────────────
def _tensor_summary_dtype(tag, tensor, metadata, **attrs):
    check_dtype(tag, (dtypes.string,), "tag")
    check_dtype(metadata, (dtypes.string,), "serialized_summary_metadata")
    return dtypes.string


def _tensor_proto_content(arr) -> protos.TensorProto:
    """TF's ``Tensor::AsProtoTensorContent``: raw bytes (string tensors: ``string_val``)."""
    dt = dtypes.as_dtype(arr.dtype)
    proto = protos.TensorProto(dtype=dt.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # a scalar's shape is written, empty
    for d in arr.shape:
        proto.tensor_shape.dim.add().size = d
    if dt is dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode()
                                for v in arr.reshape(-1).tolist())
    elif arr.size:
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    return proto


def _tensor_summary_kernel(tag, tensor, metadata):
    name = _scalar_tag(tag, "TensorSummaryV2")
    summary = protos.Summary()
    value = summary.value.add(tag=name)
    value.metadata.ParseFromString(_tag_bytes(metadata))
    value.tensor.CopyFrom(_tensor_proto_content(np.asarray(tensor)))
    return _serialized(summary)


def _tag_bytes(value) -> bytes:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value if isinstance(value, bytes) else str(value).encode()


tensor_summary_op = OpDef("TensorSummaryV2", shape=scalar_shape, dtype=_tensor_summary_dtype,
                          kernel=_tensor_summary_kernel, grad=None,
                          input_names=("tag", "tensor", "serialized_summary_metadata"))
