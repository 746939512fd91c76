"""Op-table rows for the summary ops: each output is one serialized ``Summary``; ``ref``
parses it and checks it against the row's inputs (byte-level TF comparisons live in
tests/unit/ops/logging/test_summary_ops.py)."""

from __future__ import annotations

import numpy as np

from scopeflow.io import protos
from scopeflow.ops.logging.summary_ops import histogram_proto

from .op_table import OpCase, rand

_X = rand(3, 4)
_IMG = np.random.default_rng(5).integers(0, 256, (2, 3, 4, 3)).astype(np.uint8)
_SND = rand(2, 20, low=-1.0, high=1.0)


def _parse(s):
    return protos.Summary.FromString(s if isinstance(s, bytes) else s.item())


def _check_scalar(s):
    (v,) = _parse(s).value
    assert v.tag == "loss" and v.simple_value == np.float32(_X[0, 0])


def _check_histogram(s):
    (v,) = _parse(s).value
    assert v.tag == "w" and v.histo == histogram_proto(_X)


def _check_merge(s):
    assert [v.tag for v in _parse(s).value] == ["a", "b"]


def _check_image(s):
    values = _parse(s).value
    assert [v.tag for v in values] == ["img/image/0", "img/image/1"]
    assert all((v.image.height, v.image.width, v.image.colorspace) == (3, 4, 3) for v in values)


def _check_audio(s):
    (v,) = _parse(s).value
    assert v.tag == "snd/audio" and v.audio.length_frames == 20 and v.audio.num_channels == 1


def _check_tensor(s):
    (v,) = _parse(s).value
    got = np.frombuffer(v.tensor.tensor_content, np.float32).reshape(3, 4)
    np.testing.assert_array_equal(got, _X)


ROWS = [
    OpCase("ScalarSummary", lambda tf, x: tf.summary.scalar("loss", x[0, 0]), _check_scalar,
           [_X], check_values=False),
    OpCase("HistogramSummary", lambda tf, x: tf.summary.histogram("w", x), _check_histogram,
           [_X], check_values=False),
    OpCase("MergeSummary", lambda tf, x: tf.summary.merge(
        [tf.summary.scalar("a", x[0, 0]), tf.summary.scalar("b", x[1, 1])]), _check_merge,
        [_X], check_values=False),
    OpCase("ImageSummary", lambda tf, x: tf.summary.image("img", x, max_outputs=2),
           _check_image, [_IMG], check_values=False),
    OpCase("AudioSummaryV2", lambda tf, x: tf.summary.audio("snd", x, 8000, max_outputs=1),
           _check_audio, [_SND[:1]], check_values=False),
    OpCase("TensorSummaryV2", lambda tf, x: tf.summary.tensor_summary("t", x), _check_tensor,
           [_X], check_values=False),
]
