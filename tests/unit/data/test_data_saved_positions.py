"""Saved iterator positions are a checkpoint format: these pipelines' positions must stay
byte for byte those in ``saved_positions.golden.json`` (written by scopeflow before tf.data's
Dataset classes and run-time iterators were merged), and restoring those bytes must continue
with the same elements. ``python tests/unit/data/test_data_saved_positions.py`` rewrites the
golden file, for a deliberate change of format."""

import json
import pathlib

import numpy as np
import pytest

import scopeflow as tf

GOLDEN = pathlib.Path(__file__).with_name("saved_positions.golden.json")
STEPS = 7


def _range(n):
    return tf.data.Dataset.range(n)


PIPELINES = {
    "shuffle_repeat_batch": lambda: _range(23).shuffle(7).repeat().batch(4),
    "fixed_seed_shuffle": lambda: _range(23).shuffle(
        5, seed=9, reshuffle_each_iteration=False).repeat(4),
    "map_filter_cache": lambda: _range(23).map(lambda x: x * 3).filter(
        lambda x: x % 2 > 0).cache().repeat(3),
    "cache_then_shuffle": lambda: _range(9).cache().shuffle(3, seed=1).repeat().batch(2),
    "interleave": lambda: _range(23).take(6).interleave(
        lambda x: _range(x).map(lambda y: x * 100 + y), cycle_length=3,
        block_length=2).repeat(),
    "flat_map_shuffles": lambda: _range(23).batch(5).flat_map(
        lambda b: tf.data.Dataset.from_tensor_slices(b).shuffle(3)).skip(2).take(40).shuffle(
        5).repeat(2),
    "padded_unbatch": lambda: _range(8).map(lambda x: tf.fill([x % 3 + 1], x)).padded_batch(
        3, [4]).unbatch().batch(2),
    "zip_concatenate": lambda: tf.data.Dataset.zip((_range(5), _range(5).map(
        lambda x: x * 2))).concatenate(tf.data.Dataset.zip((_range(3), _range(3)))).repeat(2),
    "shard_skip_take": lambda: _range(30).shard(4, 1).skip(1).take(5).repeat(),
    "tensors_strings": lambda: tf.data.Dataset.from_tensors(
        {"a": [1, 2], "b": "x"}).repeat(2).concatenate(tf.data.Dataset.from_tensors(
            {"a": [3, 4], "b": "yz"})),
}


def _build(name):
    tf.reset_default_graph()
    tf.set_random_seed(5)
    it = tf.data.make_initializable_iterator(PIPELINES[name]())
    saveable = tf.data.experimental.make_saveable_from_iterator(it)
    blob = tf.placeholder(tf.string, [])
    return it, it.get_next(), saveable.tensor, saveable.restore(blob), blob


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    value = np.asarray(value)
    return value.astype(str).tolist() if value.dtype == object else value.tolist()


def _next(sess, nxt, n=5):
    out = []
    for _ in range(n):
        try:
            out.append(_plain(sess.run(nxt)))
        except tf.errors.OutOfRangeError:
            break
    return out


def _record(name):
    it, nxt, save, _, _ = _build(name)
    with tf.Session() as sess:
        sess.run(it.initializer)
        _next(sess, nxt, STEPS)
        position = sess.run(save)
        return {"position": position.decode(), "next": _next(sess, nxt)}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_saved_position_bytes_are_unchanged(name):
    golden = json.loads(GOLDEN.read_text())[name]
    assert _record(name)["position"] == golden["position"]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_the_golden_position_restores(name):
    golden = json.loads(GOLDEN.read_text())[name]
    it, nxt, _, restore, blob = _build(name)
    with tf.Session() as sess:
        sess.run(restore, {blob: golden["position"].encode()})
        assert _next(sess, nxt) == golden["next"]


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({name: _record(name) for name in sorted(PIPELINES)},
                                 indent=1) + "\n")
