"""tf.image.non_max_suppression_padded: TF's tiled batched NMS, its indices, counts,
static shapes and dtypes (unsorted, sorted_input, canonicalized or not, several tile
sizes, score thresholds, ties), compared with TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

_CODE = """
def build(tf):
    rng = np.random.RandomState(11)
    outs = []
    for k in range(40):
        n = int(rng.randint(1, 40))
        batch = [[], [2], [2, 3]][k % 3]
        b = rng.uniform(-0.2, 1, batch + [n, 4]).astype(np.float32)
        if k % 4 == 0:
            b = np.concatenate([np.minimum(b[..., :2], b[..., 2:]),
                                np.maximum(b[..., :2], b[..., 2:])], -1)
        s = rng.uniform(0, 1, batch + [n]).astype(np.float32)
        if k % 5 == 0:
            s = np.round(s * 4) / 4
        kw = dict(iou_threshold=float(rng.choice([0.3, 0.5, 0.7])),
                  score_threshold=float(rng.choice([float("-inf"), 0.2, 0.5])),
                  pad_to_max_output_size=bool(batch) or k % 2 == 0,
                  sorted_input=k % 6 == 5, canonicalized_coordinates=k % 4 == 0,
                  tile_size=int(rng.choice([4, 8, 512])))
        outs.append(tf.image.non_max_suppression_padded(
            tf.constant(b), tf.constant(s), int(rng.randint(1, 12)), **kw))
    return outs


def run(tf):
    outs = build(tf)
    with tf.Session() as sess:
        vals = sess.run(outs)
    return [[[t.shape.as_list() if t.shape.ndims is not None else None for t in o],
             [t.dtype.name for t in o], [x.tolist() for x in r]] for o, r in zip(outs, vals)]
"""


def _ours():
    scope = {"np": np}
    exec(_CODE, scope)
    with tf.Graph().as_default():
        return scope["run"](tf)


def test_greedy_without_tf():
    boxes = np.float32([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                        [0, 10.1, 1, 11.1], [0, 100, 1, 101]])
    scores = np.float32([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    with tf.Graph().as_default():
        idx, n = tf.image.non_max_suppression_padded(boxes, scores, 3)
        pidx, pn = tf.image.non_max_suppression_padded(boxes, scores, 5,
                                                       pad_to_max_output_size=True)
        with tf.Session() as sess:
            got = sess.run([idx, n, pidx, pn])
        assert pidx.shape.as_list() == [5] and n.shape.as_list() == []
    assert got[0].tolist() == [3, 0, 5] and got[1] == 3
    assert got[2].tolist() == [3, 0, 5, 0, 0] and got[3] == 3
    with pytest.raises(ValueError, match="must be True for batched input"):
        tf.image.non_max_suppression_padded(boxes[None], scores[None], 3)


def test_matches_tf(tf1):
    want = tf1(_CODE + """
tf.disable_v2_behavior()
print(json.dumps(run(tf)))
""")
    assert _ours() == want
