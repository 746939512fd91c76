"""tf.random.Generator, create_rng_state and the global generator against TF 2.21: one
program (seeds, skips, every distribution, splits, seeds for the stateless ops) run
under both; the numbers must be TF's bit for bit."""

import numpy as np
import pytest

import scopeflow as tf

_PROGRAM = """
import numpy as np
out = []
with tf.Graph().as_default():
    states = [tf.random.create_rng_state(s, a) for s, a in
              ((1234, "philox"), (2**70 + 5, 1), (-3, "philox"), ([7, 8], "philox"),
               (5, "auto_select"))]
    g = tf.random.Generator.from_seed(1234)
    skips = [g.skip(n) for n in (1, 3, 1000)]
    st = g.state.read_value()
    g2 = tf.random.Generator.from_seed(7)
    draws = [g2.uniform([5]), g2.normal([2, 3], dtype=tf.float64),
             g2.uniform([4], 0, 100, dtype=tf.int64), g2.truncated_normal([3]),
             g2.uniform_full_int([2], tf.int32), g2.uniform([2], 2.0, 5.0),
             g2.uniform([3], dtype=tf.int32, minval=None, maxval=None), g2.make_seeds(2),
             g2.normal([2], mean=1.0, stddev=3.0)]
    g3 = tf.random.Generator.from_key_counter(key=11, counter=[3, 0], alg="philox")
    kc = g3.normal([4])
    g4 = tf.random.Generator.from_state([5, 0, 9], alg=1)
    child_draws = [g4.uniform([2]), g4.normal([1])]
    out.append([g.state.name.split(":")[0], g.state.shape.as_list(), g.algorithm,
                [d.shape.as_list() for d in draws], [d.dtype.name for d in draws],
                [d.op.type for d in draws]])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out.append([s.run(x).tolist() for x in states])
        out.append([s.run(k).tolist() for k in skips] + [s.run(st).tolist()])
        out.append([s.run(d).tolist() for d in draws] + [s.run(g2.state).tolist()])
        out.append([s.run(kc).tolist(), s.run(g3.key).tolist()])
        out.append([s.run(d).tolist() for d in child_draws])
    out.append([type(e).__name__ for e in _errors(tf)])
"""

_ERRORS = """
def _errors(tf):
    found = []
    for fn in (lambda: tf.random.create_rng_state(1, "mt19937"),
               lambda: tf.random.Generator.from_seed(1).uniform([2], maxval=3, dtype=tf.int32),
               lambda: tf.random.Generator(state=[1, 2], alg="philox")):
        try:
            fn()
        except Exception as e:
            found.append(e)
    return found
"""


def _ours():
    scope = {"tf": tf}
    exec(_ERRORS + _PROGRAM, scope)
    return scope["out"]


def test_generator_numbers_without_tf():
    out = _ours()
    assert out[1][0] == [1234, 0, 0] and out[1][2] == [-3, -1, -1]
    # each skip of n numbers moves the 128-bit counter by 256 * n
    assert [s[0] for s in out[2]] == [1234, 1490, 2258, 258258]
    assert out[3][2] == [25, 86, 60, 29]


def test_generator_matches_tf(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + _ERRORS + _PROGRAM + "\nprint(json.dumps(out))\n")
    ours = _ours()
    assert ours[0][1:] == theirs[0][1:] and ours[0][0] == theirs[0][0]
    assert ours[1:] == theirs[1:]


def test_global_generator_and_nondeterministic_state():
    with tf.Graph().as_default():
        first = tf.random.get_global_generator()
        assert tf.random.get_global_generator() is first
        mine = tf.random.Generator.from_seed(3)
        tf.random.set_global_generator(mine)
        assert tf.random.get_global_generator() is mine
        x = first.uniform([4])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run(x), sess.run(x)
        assert a.shape == (4,) and not np.array_equal(a, b)
    tf.random.set_global_generator(None)


def test_split_keys_children_from_the_parents_numbers():
    with tf.Graph().as_default():
        parent = tf.random.Generator.from_seed(5)
        keys = tf.random.Generator.from_seed(5).uniform_full_int([2], tf.int64)
        children = parent.split(2)
        states = [c.state for c in children]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(keys)
            got = sess.run(states)
    assert [s.tolist() for s in got] == [[0, 0, int(k)] for k in want]


def test_binomial_is_named_as_missing():
    with tf.Graph().as_default(), pytest.raises(NotImplementedError, match="binomial"):
        tf.random.Generator.from_seed(1).binomial([2], 10.0, 0.5)
