"""Queue ops that time out (``RunOptions.timeout_in_ms``): which elements a timed-out
enqueue or dequeue leaves in the queue, compared with real TensorFlow (TF1 mode); and a
queue closed twice (the second plain close fails with ``CancelledError``, one that
cancels pending enqueues does not).

TF cancels a timed-out attempt: a DequeueMany/DequeueUpTo of a FIFO, padding or shuffling
queue loses the elements it had already taken (a close, by contrast, puts them back), a
PriorityQueue takes a batch only whole (so it loses nothing), and an EnqueueMany keeps the
elements it managed to enqueue.
"""

from __future__ import annotations

_CASES = {
    "fifo_dequeue_many": """
        q = tf.FIFOQueue(10, tf.int32, shapes=[])
        s.run(q.enqueue_many([[1, 2, 3]]))
        res["err"] = err(lambda: s.run(q.dequeue_many(5), options=opts))
        res["size"] = int(s.run(q.size()))
        s.run(q.enqueue_many([[4, 5]]))
        res["next"] = err(lambda: s.run(q.dequeue_many(2), options=opts))
    """,
    "fifo_dequeue_up_to": """
        q = tf.FIFOQueue(10, tf.int32, shapes=[])
        s.run(q.enqueue_many([[1, 2, 3]]))
        res["err"] = err(lambda: s.run(q.dequeue_up_to(5), options=opts))
        res["size"] = int(s.run(q.size()))
        s.run(q.close())
        res["rest"] = err(lambda: s.run(q.dequeue_up_to(10)))
    """,
    "fifo_enqueue_many": """
        q = tf.FIFOQueue(2, tf.int32, shapes=[])
        res["err"] = err(lambda: s.run(q.enqueue_many([[1, 2, 3, 4]]), options=opts))
        res["size"] = int(s.run(q.size()))
        s.run(q.close())
        res["rest"] = err(lambda: s.run(q.dequeue_up_to(10)))
    """,
    "fifo_enqueue_and_dequeue": """
        q = tf.FIFOQueue(1, tf.int32, shapes=[])
        s.run(q.enqueue(7))
        res["enqueue"] = err(lambda: s.run(q.enqueue(8), options=opts))
        res["size"] = int(s.run(q.size()))
        res["first"] = err(lambda: s.run(q.dequeue()))
        res["dequeue"] = err(lambda: s.run(q.dequeue(), options=opts))
    """,
    "padding_fifo_dequeue_many": """
        q = tf.PaddingFIFOQueue(10, tf.int32, shapes=[[None]])
        s.run(q.enqueue([[1, 2]]))
        s.run(q.enqueue([[3]]))
        res["err"] = err(lambda: s.run(q.dequeue_many(3), options=opts))
        res["size"] = int(s.run(q.size()))
    """,
    "random_shuffle_dequeue_many": """
        q = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[], seed=1)
        s.run(q.enqueue_many([[1, 2, 3]]))
        res["err"] = err(lambda: s.run(q.dequeue_many(5), options=opts))
        res["size"] = int(s.run(q.size()))
    """,
    "priority_dequeue_many": """
        q = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
        s.run(q.enqueue_many([[3, 1, 2], [30, 10, 20]]))
        res["err"] = err(lambda: s.run(q.dequeue_many(5), options=opts))
        res["size"] = int(s.run(q.size()))
        res["rest"] = err(lambda: s.run(q.dequeue_many(3)))
    """,
    "close_twice": """
        q = tf.FIFOQueue(2, tf.int32, shapes=[])
        res["first"] = err(lambda: s.run(q.close()))
        res["second"] = err(lambda: s.run(q.close()))
        res["cancelling"] = err(lambda: s.run(q.close(cancel_pending_enqueues=True)))
        p = tf.PriorityQueue(2, [tf.int32], shapes=[[]])
        res["cancel_first"] = err(lambda: s.run(p.close(cancel_pending_enqueues=True)))
        res["then_plain"] = err(lambda: s.run(p.close()))
    """,
}

_PRELUDE = """
import re
import textwrap
opts = tf.RunOptions(timeout_in_ms=300)

def err(f):
    try:
        r = f()
    except tf.errors.OpError as e:
        found = re.search(r"Timed out waiting for notification|Queue '[^']*' is already "
                          r"closed\\.", e.message)
        # TF numbers unnamed queues process-wide, scopeflow per session: not compared.
        return [type(e).__name__, found and re.sub(r"'_\\d+_", "'_N_", found.group())]
    return ["ok", None if r is None else np.asarray(r).tolist()]

out = {}
for name, body in CASES.items():
    res = {}
    with tf.Graph().as_default(), tf.Session() as s:
        exec(textwrap.dedent(body))
    out[name] = res
print(json.dumps(out))
"""


def test_timed_out_queue_ops_leave_what_tf_leaves(scopeflow_run, tf1):
    program = f"CASES = {_CASES!r}\n" + _PRELUDE
    ours, want = scopeflow_run(program), tf1(program)
    assert sorted(ours) == sorted(_CASES)
    for case in sorted(_CASES):
        assert ours[case] == want[case], case
