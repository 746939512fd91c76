"""``RaggedTensor.__getitem__`` along the outer axis (rows by index and by slice), against
what TF 2.21 returns for the same keys; inner-axis keys are named as not implemented."""

from __future__ import annotations

import json

import pytest

import scopeflow as tf

KEYS = ["[:2]", "[1:]", "[-2:]", "[2:1]", "[5:9]", "[-9:1]", "[0]", "[-1]", "[2]", "[:2, :]",
        "[1, ...]"]

PROGRAM = '''
def program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
        nested = tf.ragged.constant([[[1], [2, 3]], [], [[4]]])
        for key in KEYS:
            value = sess.run(eval("rt" + key))
            out["rt" + key] = value.to_list() if hasattr(value, "to_list") else value.tolist()
        out["nested[0]"] = sess.run(nested[0]).to_list()
        out["nested[1:]"] = sess.run(nested[1:]).to_list()
        out["in_cond"] = sess.run(tf.cond(tf.constant(False), lambda: rt + 1,
                                          lambda: rt[:2] - 2)).to_list()
    return out
'''


def _ours():
    scope = {"KEYS": KEYS}
    exec(PROGRAM, scope)
    return scope["program"](tf)


def test_rows_by_index_and_slice():
    out = _ours()
    assert out["rt[:2]"] == [[1, 2], [3]] and out["rt[-2:]"] == [[3], [4, 5, 6]]
    assert out["rt[2:1]"] == [] == out["rt[5:9]"] and out["rt[-9:1]"] == [[1, 2]]
    assert out["rt[-1]"] == [4, 5, 6] and out["nested[0]"] == [[1], [2, 3]]
    assert out["in_cond"] == [[-1, 0], [1]]


def test_inner_axis_keys_are_named_as_missing():
    rt = tf.ragged.constant([[1, 2], [3]])
    with pytest.raises(NotImplementedError, match="outer axis only"):
        rt[:, 0]
    with pytest.raises(NotImplementedError, match="step 2"):
        rt[::2]


def test_same_as_tensorflow(tf1):
    theirs = tf1(f"KEYS = {KEYS!r}\n" + PROGRAM +
                 "\ntf.disable_v2_behavior()\nprint(json.dumps(program(tf)))")
    assert json.loads(json.dumps(_ours())) == theirs
