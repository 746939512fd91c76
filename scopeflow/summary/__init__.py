"""``tf.summary``: summary ops, ``FileWriter``, event files, and a reader.

Each summary op returns a serialized ``Summary`` (a string tensor), as in TF1; run it with
the train op and hand the bytes to ``FileWriter.add_summary``. Tags are the op's name
(name scope + name, illegal characters replaced by ``_``; with ``family=``, prefixed by
it). ``read_events(logdir)`` reads every point back without TensorFlow.

>>> x = tf.constant(2.0)
>>> with tf.name_scope("summaries"):
...     s = tf.summary.scalar("histogram loss", x)
>>> s.op.name, tf.Summary.FromString(tf.Session().run(s)).value[0].tag
('summaries/histogram_loss', 'summaries/histogram_loss')
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import TYPE_CHECKING, Any

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from scopeflow.io import protos
from scopeflow.ops.logging import summary_ops as _ops
from scopeflow.ops.logging.summary_ops import (
    NonFiniteHistogramWarning,
    set_nonfinite_histogram_policy,
)
from scopeflow.summary.description import (
    SummaryDescription,
    all_v2_summary_ops,
    get_summary_description,
)
from scopeflow.summary.reader import EventRecord, read_events, read_scalars, summary_iterator
from scopeflow.summary.writer import DuplicateTagWarning, FileWriter, FileWriterCache

if TYPE_CHECKING:
    from scopeflow.framework.graph import Tensor

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge",
           "merge_all", "FileWriter", "FileWriterCache", "Summary", "Event", "SessionLog",
           "SummaryMetadata", "HistogramProto", "TaggedRunMetadata", "read_events",
           "read_scalars", "summary_iterator", "EventRecord", "NonFiniteHistogramWarning",
           "set_nonfinite_histogram_policy", "DuplicateTagWarning", "SummaryDescription",
           "get_summary_description", "all_v2_summary_ops"]

Summary = protos.Summary
Event = protos.Event
SessionLog = protos.SessionLog
SummaryMetadata = protos.SummaryMetadata
HistogramProto = protos.HistogramProto
TaggedRunMetadata = protos.TaggedRunMetadata

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")
_log = logging.getLogger("scopeflow")


def _clean_tag(name):
    """TF's ``clean_tag``: characters outside ``[-/\\w.]`` become ``_``; no leading ``/``."""
    if name is not None:
        new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
        if new_name != name:
            _log.info("Summary name %s is illegal; using %s instead.", name, new_name)
            name = new_name
    return name


@contextlib.contextmanager
def _summary_scope(name, family=None, values=None):
    """TF's ``summary_scope``: yields ``(tag, scope)``; the op is named by the scope."""
    name = _clean_tag(name)
    family = _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with name_scope(base, None, values) as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else f"{family}/{tag}"), scope


def _collect(val, collections, default_collections):
    for key in default_collections if collections is None else collections:
        add_to_collection(key, val)


def scalar(name: str, tensor: Any, collections: list[str] | None = None,
           family: str | None = None) -> Tensor:
    """A ``Summary`` with one scalar value (``ScalarSummary``); ``tensor`` holds one number.

    Args:
      name: the op's name; with the enclosing name scope, the tag TensorBoard shows.
      tensor: a real numeric scalar tensor.
      collections: collections to add the op to (default ``[GraphKeys.SUMMARIES]``).
      family: a prefix of the tag (and of the op's name scope), the TensorBoard tab.
    """
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = _ops.scalar_summary_op.create([tag, tensor], name=scope)._outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A ``Summary`` with a histogram of ``values`` (``HistogramSummary``), TF1's buckets.

    As TF, a NaN or Inf value fails the run with ``InvalidArgumentError`` naming the op;
    ``set_nonfinite_histogram_policy("warn")`` bins the finite values and warns instead.
    """
    with _summary_scope(name, family, values=[values]) as (tag, scope):
        val = _ops.histogram_summary_op.create([tag, values], name=scope)._outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A ``Summary`` with up to ``max_outputs`` PNG images from ``[batch, h, w, c]`` (c = 1,
    3 or 4); float images are scaled into [0, 255] per image as TF does. Tags are
    ``<tag>/image`` (one image) or ``<tag>/image/<i>``."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = _ops.image_summary_op.create([tag, tensor], {"max_images": max_outputs},
                                           name=scope)._outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A ``Summary`` with up to ``max_outputs`` 16-bit WAV clips from float ``[batch,
    frames]`` or ``[batch, frames, channels]`` in [-1, 1], at ``sample_rate`` Hz."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        with name_scope(scope):
            rate = convert_to_tensor(sample_rate, dtype=_dtypes.float32, name="sample_rate")
        val = _ops.audio_summary_op.create([tag, tensor, rate], {"max_outputs": max_outputs},
                                           name=scope)._outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A ``Summary`` holding ``tensor`` itself (``TensorSummaryV2``) with ``summary_metadata``
    (a ``SummaryMetadata``; ``summary_description`` / ``display_name`` fill it in)."""
    metadata = SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    serialized = metadata.SerializeToString()
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = _ops.tensor_summary_op.create([tag, tensor, serialized], name=scope)._outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A ``Summary`` of a string tensor for TensorBoard's Text tab (markdown)."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.base_dtype is not _dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype.name}")
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = "text"
    return tensor_summary(name, tensor, collections=collections, summary_metadata=metadata)


def merge(inputs, collections=None, name=None):
    """One ``Summary`` holding the values of every input, in order (``MergeSummary``).

    A tag that appears twice fails the step with ``InvalidArgumentError``, as in TF.
    """
    inputs = list(inputs)
    with name_scope(name, "Merge", inputs):
        tensors = [convert_to_tensor(x) for x in inputs]
        val = _ops.merge_summary_op.create(tensors, {"N": len(tensors)},
                                           name=name or "MergeSummary")._outputs[0]
        _collect(val, collections, [])
    return val


def merge_all(key: str = GraphKeys.SUMMARIES, scope: str | None = None,
              name: str | None = None) -> Tensor | None:
    """Merges every summary in collection ``key`` (those whose name matches ``scope``);
    ``None`` when there are none."""
    summary_ops = get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
