"""Which tf.data calls take an op seed from the graph: random ops made after them get
TF's seeds (TF 2.21's ``random_seed.get_seed`` counts a graph's seed requests)."""

from __future__ import annotations

import textwrap

import pytest

import scopeflow as tf

# Runs under scopeflow and under TF: the (seed, seed2) of a random op made after each
# pipeline call.
SCENARIO = textwrap.dedent('''
    def seeds_after_pipeline_calls(tf):
        g = tf.Graph()
        out = []
        with g.as_default():
            tf.set_random_seed(7)

            def probe():
                tf.random_uniform([1], name="probe")
                op = [o for o in g.get_operations() if o.type == "RandomUniform"][-1]
                out.append([op.get_attr("seed"), op.get_attr("seed2")])

            ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]).batch(2).repeat(1)
            probe()                                 # nothing asked yet: (7, 0)
            ds.make_one_shot_iterator().get_next()
            probe()                                 # the iterator took seed 1
            tf.data.make_one_shot_iterator(ds)
            probe()
            ds.make_initializable_iterator()
            probe()                                 # initializable: none taken
            ds.shuffle(10).make_one_shot_iterator()
            probe()                                 # shuffle and the iterator: two
        return out
''')


def _scenario():
    ns = {}
    exec(SCENARIO, ns)
    return ns["seeds_after_pipeline_calls"]


def test_one_shot_iterator_takes_one_op_seed():
    # TF 2.21: make_one_shot_iterator asks get_seed(None) once (for its dataset
    # factory's graph seed), so the truncated-normal weights made after an input
    # pipeline get the same seeds as under TF.
    assert _scenario()(tf) == [[7, 0], [7, 2], [7, 4], [7, 5], [7, 8]]


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    want = tf1(SCENARIO + "\nprint(json.dumps(seeds_after_pipeline_calls(tf)))\n")
    assert _scenario()(tf) == want
