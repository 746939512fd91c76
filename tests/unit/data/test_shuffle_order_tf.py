"""Seeded shuffles give TensorFlow's order, element for element (issue 36): ``Dataset.shuffle``
and ``shuffle_and_repeat``, ``RandomShuffleQueue`` through ``shuffle_batch``, and the shuffled
input producers (``string_input_producer`` and its kin, on ``RandomShuffle``).

tests/fixtures/shuffle_order/program.py runs 277 cases (with a RandomShuffleQueue dequeue that
the queue's closing or a timeout interrupts); expected.json holds what TF 2.21 gave
(make_fixture.py), so the comparison runs without TF, and the live test reruns TF. A NumPy
reference written from TF's kernels (below) reproduces TF's recorded orders on its own, so a
wrong fixture and a wrong implementation cannot agree by accident.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.ops.random.philox import philox4x32

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "shuffle_order"
_spec = importlib.util.spec_from_file_location("shuffle_order_program", FIXTURE / "program.py")
program = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(program)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["result"]
DEFAULT_GRAPH_SEED = 87654321


@pytest.fixture(scope="module")
def ours():
    return program.run(tf)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tensorflow(ours, key):
    assert ours[key] == EXPECTED[key]


def test_live_tensorflow_agrees(tf1):
    result = tf1(f"""
        import sys
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import program
        print(json.dumps(program.run(tf)))
    """)
    assert result == EXPECTED


# ── A NumPy reference, from TF's kernels ──────────────────────────────────────────────
def _samples(seed, seed2, n):
    """``SingleSampleAdapter<PhiloxRandom>(seed, seed2)``: the key is ``seed``, the
    counter's high 64 bits ``seed2``; four uint32 samples per block, in order."""
    m64 = (1 << 64) - 1
    return philox4x32(seed & m64, (seed2 & m64) << 64, -(-n // 4)).reshape(-1)[:n].tolist()


def _shuffle_pass(elements, buffer_size, seed, seed2):
    """One pass of ShuffleDataset: fill to ``buffer_size``; emit the element at
    ``sample % n`` of the ``n`` buffered; the oldest takes its place; refill."""
    rng = iter(_samples(seed, seed2, len(elements)))
    buf, out, source = [], [], iter(elements)
    for x in source:
        buf.append(x)
        if len(buf) == buffer_size:
            break
    while buf:
        j = next(rng) % len(buf)
        out.append(buf[j])
        buf[j] = buf[0]
        buf.pop(0)
        nxt = next(source, None)
        if nxt is not None:
            buf.append(nxt)
    return out


def _shuffle_repeat(elements, buffer_size, seeds, passes, reshuffle=True):
    """``shuffle(...).repeat(passes)``: a RandomSeedGenerator on ``seeds`` gives each pass
    the next two samples as its seeds (a FixedSeedGenerator gives ``seeds`` each time)."""
    pairs = _samples(*seeds, 2 * passes)
    out = []
    for p in range(passes):
        pass_seeds = (pairs[2 * p], pairs[2 * p + 1]) if reshuffle else seeds
        out += _shuffle_pass(elements, buffer_size, *pass_seeds)
    return out


def _random_shuffle_queue(elements, seeds):
    """RandomShuffleQueue's dequeues from a closed queue: the element at ``sample % size``
    leaves and the last one takes its place."""
    items, out = list(elements), []
    for s in _samples(*seeds, len(items)):
        j = s % len(items)
        out.append(items[j])
        items[j] = items[-1]
        items.pop()
    return out


@pytest.mark.parametrize("graph_seed,seed,buffer_size,reshuffle", [
    (None, 7, 4, True), (None, 7, 25, False), (3, 123456789, 1, True), (3, 0, 10, True),
    (2**40 + 1, 7, 4, False)])
def test_numpy_reference_reproduces_tensorflows_dataset_orders(graph_seed, seed, buffer_size,
                                                               reshuffle):
    seeds = (DEFAULT_GRAPH_SEED if graph_seed is None else graph_seed % (2**31 - 1), seed)
    want = _shuffle_repeat(list(range(10)), buffer_size, seeds, 3, reshuffle)
    key = f"shuffle_g{graph_seed}_s{seed}_b{buffer_size}_re{reshuffle}"
    assert EXPECTED[key] == [want] * 3        # two initializations and a one-shot iterator
    assert want != sorted(want)


def test_numpy_reference_reproduces_tensorflows_queue_orders():
    # 46 elements enqueued (two epochs of 0..22), then dequeued 4 at a time once closed
    got = [x for batch in EXPECTED["shuffle_batch_many_gNone_s7"] for x in batch]
    assert got == _random_shuffle_queue(list(range(23)) * 2, (DEFAULT_GRAPH_SEED, 7))


def test_numpy_reference_reproduces_a_dequeue_the_close_interrupts():
    # 8 elements, min_after_dequeue 2: the waiting dequeue_up_to(10) takes 6; the close
    # puts them back at the end, last taken first, and the small batch draws all 8 afresh
    samples = _samples(DEFAULT_GRAPH_SEED, 3, 14)
    items, taken = list(range(8)), []
    for s in samples[:6]:
        j = s % len(items)
        taken.append(items[j])
        items[j] = items[-1]
        items.pop()
    items += taken[::-1]
    out = []
    for s in samples[6:]:
        j = s % len(items)
        out.append(items[j])
        items[j] = items[-1]
        items.pop()
    assert EXPECTED["queue_close_up_to_s3"]["pending"][0] == out


def test_numpy_reference_agrees_with_dataset_shuffle():
    ds = tf.data.Dataset.range(40).shuffle(9, seed=11).repeat(4)
    with tf.Session() as sess:
        got = program._drain(tf, sess, tf.data.make_one_shot_iterator(ds).get_next())
    assert got == _shuffle_repeat(list(range(40)), 9, (DEFAULT_GRAPH_SEED, 11), 4)


# ── Run-time buffer sizes and seeds ───────────────────────────────────────────────────
def _orders(make, feeds):
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(make())
        nxt = it.get_next()
        with tf.Session() as sess:
            out = []
            for feed in feeds:
                sess.run(it.initializer, feed)
                out.append(program._drain(tf, sess, nxt))
    return out


def test_fed_buffer_size_and_seed_give_the_constants_order():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.int64, [])
        s = tf.placeholder(tf.int64, [])
        it = tf.data.make_initializable_iterator(
            tf.data.Dataset.range(15).shuffle(b, seed=s).repeat(2))
        nxt = it.get_next()
        with tf.Session() as sess:
            got = []
            for feed in ({b: 4, s: 5}, {b: 30, s: 2**33 + 9}):
                sess.run(it.initializer, feed)
                got.append(program._drain(tf, sess, nxt))
    want = [_orders(lambda: tf.data.Dataset.range(15).shuffle(4, seed=5).repeat(2), [{}])[0],
            _orders(lambda: tf.data.Dataset.range(15).shuffle(30, seed=2**33 + 9).repeat(2),
                    [{}])[0]]
    assert got == want and got[0] != got[1]


def test_unknown_cardinality_buffer_holds_the_whole_input():
    def shuffled(buffer_size):
        return _orders(lambda: tf.data.Dataset.range(12).filter(lambda x: x > 1).shuffle(
            buffer_size, seed=3).repeat(2), [{}])

    whole = shuffled(tf.data.experimental.UNKNOWN_CARDINALITY)
    assert whole == shuffled(100) and whole != shuffled(4)


@pytest.mark.parametrize("size", [0, -1, -3])
def test_bad_buffer_size_fails_when_the_iterator_starts(size):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).shuffle(size, seed=1)   # building is fine, as in TF
        it = tf.data.make_initializable_iterator(ds)
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match="buffer_size must be greater than zero or UNKNOWN_CARDINALITY"):
            sess.run(it.initializer)
