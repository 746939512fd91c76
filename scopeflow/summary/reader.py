"""Reading event files back: every record, no sampling, no TensorFlow.

``read_events(path)`` takes an event file or a log directory (each directory holding
``*tfevents*`` files is one run, files read in name order, as TensorBoard does) and
returns one plain ``EventRecord`` per summary value or special event. ``summary_iterator``
is TF's ``tf.train.summary_iterator`` (``Event`` protos).
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

from google.protobuf.message import DecodeError

from scopeflow.framework.errors import DataLossError
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_ndarray
from scopeflow.io.tfrecord import tf_record_iterator

__all__ = ["EventRecord", "read_events", "read_scalars", "summary_iterator", "event_files",
           "histogram_to_dict", "make_ndarray"]



class EventRecord(NamedTuple):
    """One point of a run.

    ``kind`` is ``scalar`` (``value``: float), ``histogram`` (a dict, see
    ``histogram_to_dict``), ``image`` / ``audio`` (dict with the encoded bytes), ``tensor``
    (NumPy array; ``text`` for the text plugin), ``graph`` / ``meta_graph`` (bytes),
    ``session_log`` (``"START"``, ``"STOP"``, ``"CHECKPOINT"``), ``run_metadata`` (bytes)
    or ``file_version`` (str).
    """

    run: str
    wall_time: float
    step: int
    tag: str
    kind: str
    value: object


def summary_iterator(path):
    """Yields the ``Event`` protos of one event file (``tf.train.summary_iterator``).

    A damaged file raises ``DataLossError`` naming the file and the record's offset: a
    record whose checksums fail, a file ending inside a record, or (both checksums passing,
    so written that way) a record that is not an ``Event``.
    """
    for offset, data in _records(path, allow_truncated_tail=False):
        yield _parse_event(data, path, offset)


def _records(path, allow_truncated_tail):
    """``(offset, data)`` of each record of an event file."""
    offset = 0
    for data in tf_record_iterator(path, allow_truncated_tail=allow_truncated_tail):
        yield offset, data
        offset += len(data) + 16


def _parse_event(data, path, offset):
    try:
        return protos.Event.FromString(data)
    except DecodeError:
        # TF's summary_iterator lets protobuf's DecodeError out; a damaged file is data
        # loss, and callers catch one class for every kind of damage.
        raise DataLossError(None, None, f"corrupted record at offset {offset} in "
                            f"{os.fspath(path)}: not an Event proto") from None


def event_files(logdir) -> dict:
    """``{run: [event files in name order]}``; a run is a directory relative to ``logdir``
    (``"."`` for ``logdir`` itself). A path to a file is one run named after its directory.
    """
    logdir = os.fspath(logdir)
    if os.path.isfile(logdir):
        return {os.path.basename(os.path.dirname(os.path.abspath(logdir))) or ".": [logdir]}
    if not os.path.isdir(logdir):
        raise FileNotFoundError(f"No event file or log directory at {logdir!r}")
    runs = {}
    for root, dirs, files in os.walk(logdir):
        dirs.sort()
        found = sorted(f for f in files if "tfevents" in f)
        if found:
            run = os.path.relpath(root, logdir)
            runs[run] = [os.path.join(root, f) for f in found]
    return runs


def histogram_to_dict(histo) -> dict:
    """A ``HistogramProto`` as plain values: min, max, num, sum, sum_squares, and the
    ``bucket_limit`` / ``bucket`` lists."""
    return {"min": histo.min, "max": histo.max, "num": histo.num, "sum": histo.sum,
            "sum_squares": histo.sum_squares, "bucket_limit": list(histo.bucket_limit),
            "bucket": list(histo.bucket)}


def _value_record(run, event, value, plugins):
    kind = value.WhichOneof("value")
    if value.HasField("metadata"):
        plugins[value.tag] = value.metadata.plugin_data.plugin_name
    # As TensorBoard: writers keep a tag's metadata on its first value only.
    plugin = plugins.get(value.tag, "")
    if kind == "simple_value":
        return EventRecord(run, event.wall_time, event.step, value.tag, "scalar",
                           float(value.simple_value))
    if kind == "histo":
        return EventRecord(run, event.wall_time, event.step, value.tag, "histogram",
                           histogram_to_dict(value.histo))
    if kind == "image":
        img = value.image
        return EventRecord(run, event.wall_time, event.step, value.tag, "image",
                           {"height": img.height, "width": img.width,
                            "colorspace": img.colorspace,
                            "encoded_image_string": img.encoded_image_string})
    if kind == "audio":
        a = value.audio
        return EventRecord(run, event.wall_time, event.step, value.tag, "audio",
                           {"sample_rate": a.sample_rate, "num_channels": a.num_channels,
                            "length_frames": a.length_frames, "content_type": a.content_type,
                            "encoded_audio_string": a.encoded_audio_string})
    if kind == "tensor":
        arr = _tensor_value(value)
        if plugin == "scalars" and arr.size == 1:  # TF2-style scalars
            return EventRecord(run, event.wall_time, event.step, value.tag, "scalar",
                               float(arr.reshape(-1)[0]))
        return EventRecord(run, event.wall_time, event.step, value.tag,
                           "text" if plugin == "text" else "tensor", arr)
    return EventRecord(run, event.wall_time, event.step, value.tag, kind or "unknown", None)


# A summary tensor listing fewer values than its shape holds is broadcast (TF's
# ``tf.constant(0., shape=[50])``); past this many elements the shape is taken for damage
# rather than allocated.
_MAX_BROADCAST_ELEMENTS = 1 << 24


def _tensor_value(value):
    """The array of a summary's ``tensor`` value; DataLossError for an impossible one."""
    proto = value.tensor
    dims = [d.size for d in proto.tensor_shape.dim]
    count = math.prod(dims) if all(d >= 0 for d in dims) else -1
    if count < 0 or (not proto.tensor_content and count > _MAX_BROADCAST_ELEMENTS):
        raise DataLossError(None, None, f"Summary tensor {value.tag!r} declares the "
                            f"impossible shape {dims} (a damaged event file?)")
    try:
        return make_ndarray(proto)
    except (ValueError, TypeError) as e:  # content size not matching the shape, bad dtype
        raise DataLossError(None, None, f"Summary tensor {value.tag!r} cannot be "
                            f"decoded: {e}") from None


_SESSION_STATUS = {1: "START", 2: "STOP", 3: "CHECKPOINT"}


def _event_records(run, event, plugins):
    what = event.WhichOneof("what")
    if what == "summary":
        for value in event.summary.value:
            yield _value_record(run, event, value, plugins)
    elif what == "file_version":
        yield EventRecord(run, event.wall_time, event.step, "", what, event.file_version)
    elif what in ("graph_def", "meta_graph_def"):
        yield EventRecord(run, event.wall_time, event.step, "",
                          "graph" if what == "graph_def" else "meta_graph", getattr(event, what))
    elif what == "session_log":
        yield EventRecord(run, event.wall_time, event.step, "", "session_log",
                          _SESSION_STATUS.get(event.session_log.status, "UNSPECIFIED"))
    elif what == "tagged_run_metadata":
        yield EventRecord(run, event.wall_time, event.step, event.tagged_run_metadata.tag,
                          "run_metadata", event.tagged_run_metadata.run_metadata)


def read_events(path, kinds=None, tag=None) -> list[EventRecord]:
    """Every record of an event file or of every run under a log directory.

    Args:
      path: an event file, or a log directory (searched recursively).
      kinds: keep only these kinds (e.g. ``{"scalar"}``); default: all.
      tag: keep only this tag.

    A file that ends inside its last record (still being written) is read up to there; a
    corrupted record raises ``DataLossError`` naming the file and offset.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with tf.summary.FileWriter(d) as w:
    ...     w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=.5)]), 7)
    >>> [(r.step, r.tag, r.value) for r in read_events(d, kinds={"scalar"})]
    [(7, 'loss', 0.5)]
    """
    out = []
    for run, files in event_files(path).items():
        plugins: dict = {}
        for file in files:
            for offset, data in _records(file, allow_truncated_tail=True):
                for rec in _event_records(run, _parse_event(data, file, offset), plugins):
                    if (kinds is None or rec.kind in kinds) and (tag is None or rec.tag == tag):
                        out.append(rec)
    return out


def read_scalars(path, tag, purge=True) -> dict:
    """``{run: [(step, wall_time, value), ...]}`` of one scalar tag, in file order.

    With ``purge`` (default), a ``SessionLog(START)`` at step S drops the earlier points with
    step >= S, as TensorBoard does after a restart.
    """
    runs: dict = {}
    for rec in read_events(path, kinds={"scalar", "session_log"}):
        points = runs.setdefault(rec.run, [])
        if rec.kind == "session_log":
            if purge and rec.value == "START":
                points[:] = [p for p in points if p[0] < rec.step]
        elif rec.tag == tag:
            points.append((rec.step, rec.wall_time, rec.value))
    return {run: pts for run, pts in runs.items() if pts}

