"""tf.PriorityQueue (issue 18) against real TensorFlow: fixtures/tf_priority_queue/program.py
run here must give what TF gave (make_fixture.py) — the order of equal priorities (TF's
std::priority_queue heap), batches, sizes and the errors; the live test runs it under TF."""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.data_flow.queue_ops import _PriorityHeap

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_priority_queue"
_spec = importlib.util.spec_from_file_location("tf_priority_queue_program",
                                               FIXTURE / "program.py")
program = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(program)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["result"]


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tensorflow(key):
    got = json.loads(json.dumps(program.run(tf)))
    assert got[key] == EXPECTED[key]


def test_live_tensorflow_agrees(tf1):
    result = tf1(f"""
        import sys
        tf.disable_v2_behavior()
        sys.path.insert(0, {str(FIXTURE)!r})
        import program
        print(json.dumps(program.run(tf)))
    """)
    assert result == EXPECTED


def test_heap_pops_in_priority_order():
    rng = np.random.RandomState(1)
    heap = _PriorityHeap()
    prios = rng.randint(-50, 50, 500)
    for i, p in enumerate(prios):
        heap.append((p, i))
    out = [heap.popleft() for _ in range(len(prios))]
    assert [int(p) for p, _ in out] == sorted(int(p) for p in prios)
    assert sorted(i for _, i in out) == list(range(500))


def test_blocked_dequeue_gets_smallest_of_later_enqueue():
    q = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    deq = q.dequeue()
    enq = q.enqueue_many(([7, 2, 9], [70, 20, 90]))
    sess = tf.Session()
    got = []
    t = threading.Thread(target=lambda: got.append(sess.run(deq)))
    t.start()
    sess.run(enq)
    t.join(10)
    assert not t.is_alive()
    # the dequeue took the first element pushed (7) or, had it waited, the smallest
    assert [int(x) for x in got[0]] in ([7, 70], [2, 20])
    assert int(sess.run(q.size())) == 2


def test_priority_queue_names_and_op():
    # names, like dtypes, include the priority (TF's message, from QueueBase)
    with pytest.raises(ValueError, match=r"same length as dtypes,received len\(names\)=1,len 2"):
        tf.PriorityQueue(5, [tf.float32], shapes=[[2]], names=["x"])
    q = tf.PriorityQueue(5, [tf.float32], shapes=[[2]], names=["p", "x"])
    assert q.queue_ref.op.type == "PriorityQueueV2"
    assert q.names == ["p", "x"]
    out = q.dequeue()
    assert sorted(out) == ["p", "x"] and out["p"].dtype == tf.int64
    with pytest.raises(ValueError):
        q.enqueue(([1, 2], [1.0, 2.0]))   # the priority must be a scalar
