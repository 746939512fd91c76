"""RandomShuffleQueue draws as TF's (issue 18): ``SingleSampleAdapter<PhiloxRandom>`` samples,
the element at ``sample % size`` leaving and the last taking its place, seeds from
(graph seed, op seed) and, for a shared queue, TF's md5 of its name.
fixtures/tf_random_shuffle_queue/program.py must give what TF gave; the live test reruns TF."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_random_shuffle_queue"
_spec = importlib.util.spec_from_file_location("tf_rsq_program", FIXTURE / "program.py")
program = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(program)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["result"]


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tensorflow(key):
    assert program.run(tf)[key] == EXPECTED[key]


def test_live_tensorflow_agrees(tf1):
    result = tf1(f"""
        import sys
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import program
        print(json.dumps(program.run(tf)))
    """)
    assert result == EXPECTED


def test_shared_name_seed2_is_stable():
    # TF: seed2 = md5(str(seed) + shared_name)[:8] & 0x7FFFFFFF (seed: the graph seed), so
    # processes sharing a queue agree (Python's own hash() differs per process)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        q = tf.RandomShuffleQueue(10, 0, [tf.int32], seed=None, shared_name="qq")
        seed2 = q.queue_ref.op.get_attr("seed2")
    assert seed2 == int(hashlib.md5(b"3qq").hexdigest()[:8], 16) & 0x7FFFFFFF == 414781047
