"""Queues, queue runners, the coordinator and readers (issue 18), against live TensorFlow.

Programs whose output is deterministic run twice, under scopeflow and under TF1 (the ``tf1``
fixture), and must print the same thing: op names, values, error classes and messages.
Nothing here may hang: every blocking run has a ``RunOptions`` timeout or runs in a thread
joined with a timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import scopeflow as tf

pytestmark = pytest.mark.filterwarnings("ignore::scopeflow.GraphGrowthWarning")

# Shared by both sides: JSON-able values and TF's error text (the last line that is not a
# "\t [[node ...]]" line: TF's own message puts "Graph execution error:" lines before it).
PRELUDE = '''
import numpy as np
def j(x):
    if isinstance(x, dict):
        return {k: j(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [j(v) for v in x]
    if isinstance(x, np.ndarray):
        return j(x.tolist())
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, np.generic):
        return x.item()
    return x
def err(e):
    lines = [ln for ln in str(e.message).splitlines() if ln and not ln.startswith("\\t")]
    return [type(e).__name__, lines[-1]]
def attempt(sess, fetch, **kw):
    try:
        return j(sess.run(fetch, **kw))
    except tf.errors.OpError as e:
        return err(e)
'''


def both(tf1, code, helpers=""):
    """Runs ``code`` (setting ``result``) under scopeflow and under TF; both results."""
    body = PRELUDE + helpers + textwrap.dedent(code)
    tf.reset_default_graph()
    ns = {"tf": tf, "json": json}
    exec(compile(body, "<scopeflow program>", "exec"), ns)  # noqa: S102 - the test program
    got = json.loads(json.dumps(ns["result"]))
    want = tf1("tf.disable_eager_execution()\n" + body + "\nprint(json.dumps(result))\n")
    return got, want


def run_in_thread(fn, timeout=10.0):
    """Runs ``fn`` in a daemon thread; its result, or the exception it raised."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, out


# ── Queues, against TF ──────────────────────────────────────────────────────────────
@pytest.mark.tf
def test_fifo_queue_ops_values_and_errors_match_tf(tf1):
    got, want = both(tf1, """
        q = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]])
        e = q.enqueue([1, [2., 3.]])
        em = q.enqueue_many([[4, 5], [[1., 1.], [2., 2.]]])
        d = q.dequeue(); dm = q.dequeue_many(2); du = q.dequeue_up_to(5)
        c = q.close()
        q2 = tf.FIFOQueue(3, tf.int32)
        q3 = tf.FIFOQueue(4, tf.string, shapes=[[]], names="s")
        ops = [[o.name, o.type, [i.name for i in o.inputs]]
               for o in tf.get_default_graph().get_operations()]
        static = [q.name, q.queue_ref.name, [d.name for d in q.dtypes],
                  [s.as_list() for s in q.shapes], q.names, q3.names, q2.shapes[0].ndims,
                  [str(t.shape) for t in d], [str(t.shape) for t in dm],
                  [str(t.shape) for t in du], sorted(q3.dequeue())]
        out = []
        with tf.Session() as sess:
            sess.run(e); sess.run(em)
            out.append(attempt(sess, [q.size(), q.is_closed()]))
            out.append(attempt(sess, d)); out.append(attempt(sess, dm))
            sess.run(e); sess.run(c)
            out.append(attempt(sess, [q.size(), q.is_closed()]))
            out.append(attempt(sess, du)); out.append(attempt(sess, du))
            out.append(attempt(sess, d)); out.append(attempt(sess, dm))
            out.append(attempt(sess, e)); out.append(attempt(sess, em))
            sess.run(q2.enqueue(7))
            out.append(attempt(sess, q2.dequeue_many(1)))
            out.append(attempt(sess, q2.dequeue()))
            sess.run(q3.enqueue({"s": b"x"}))
            out.append(attempt(sess, q3.dequeue()))
        result = [ops, static, out]
    """)
    assert got == want


@pytest.mark.tf
def test_random_shuffle_and_padding_queues_match_tf(tf1):
    got, want = both(tf1, """
        rq = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
        pq = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], []])
        ops = [[o.name, o.type] for o in tf.get_default_graph().get_operations()]
        out = []
        with tf.Session() as sess:
            sess.run(rq.enqueue_many([[1, 2, 3]]))
            got = sorted(sess.run(rq.dequeue_many(1)).tolist())
            out.append(len(got))
            out.append(attempt(sess, rq.dequeue_many(1),
                               options=tf.RunOptions(timeout_in_ms=200)))
            sess.run(rq.close())
            rest = sess.run(rq.dequeue_up_to(5))
            out.append(sorted(got + rest.tolist()))
            out.append(attempt(sess, rq.dequeue()))
            sess.run(pq.enqueue([[1, 2], b"a"])); sess.run(pq.enqueue([[3], b"b"]))
            sess.run(pq.enqueue_many([[[4, 5, 6]], [b"c"]]))
            out.append(attempt(sess, pq.dequeue_many(3)))
            out.append(attempt(sess, pq.size()))
        result = [ops, out]
    """)
    assert got == want


@pytest.mark.tf
def test_close_with_cancel_and_timeouts_match_tf(tf1):
    got, want = both(tf1, """
        import threading, time
        q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        e = q.enqueue(1.0)
        out = []
        sess = tf.Session()
        sess.run(e)
        out.append(attempt(sess, e, options=tf.RunOptions(timeout_in_ms=100)))
        def blocked():
            out.append(attempt(sess, e))
        t = threading.Thread(target=blocked); t.start(); time.sleep(0.3)
        sess.run(q.close(cancel_pending_enqueues=True)); t.join(10)
        out.append(attempt(sess, q.size()))
        out.append(attempt(sess, e))
        q2 = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        d2 = q2.dequeue()
        t = threading.Thread(target=lambda: out.append(attempt(sess, d2))); t.start()
        time.sleep(0.3)
        sess.close(); t.join(10)
        out.append(t.is_alive())
        v = tf.Variable(0, name="v")
        c = tf.count_up_to(v, 2)
        with tf.Session() as s:
            s.run(v.initializer)
            out.append([attempt(s, c), attempt(s, c), attempt(s, c), attempt(s, v)])
        result = out
    """)
    assert got == want


def test_a_blocked_dequeue_waits_for_another_threads_enqueue():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    d, e = q.dequeue(), q.enqueue(5)
    with tf.Session() as sess:
        t, out = run_in_thread(lambda: sess.run(d))
        time.sleep(0.2)
        assert t.is_alive()  # still waiting
        sess.run(e)
        t.join(10)
        assert not t.is_alive() and out == {"value": 5}


def test_closing_the_session_cancels_blocked_ops():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    sess = tf.Session()
    t, out = run_in_thread(lambda: sess.run(q.dequeue()))
    time.sleep(0.2)
    sess.close()
    t.join(10)
    assert not t.is_alive()
    assert isinstance(out["error"], tf.errors.CancelledError)
    assert out["error"].message.startswith("Dequeue operation was cancelled")


def test_run_timeout_raises_deadline_exceeded():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting"):
            sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=150))
        assert time.monotonic() - start < 5


def test_concurrent_runs_from_many_threads():
    # Producers and consumers on one session at once: plans compiled from several threads,
    # every element delivered exactly once.
    q = tf.FIFOQueue(8, tf.int32, shapes=[[]])
    x = tf.placeholder(tf.int32, [])
    enq, deq = q.enqueue(x), q.dequeue()
    got, lock = [], threading.Lock()
    with tf.Session() as sess:
        def produce(k):
            for i in range(50):
                sess.run(enq, {x: k * 100 + i})

        def consume():
            for _ in range(50):
                v = sess.run(deq, options=tf.RunOptions(timeout_in_ms=10000))
                with lock:
                    got.append(int(v))
        threads = [threading.Thread(target=produce, args=(k,), daemon=True) for k in range(4)]
        threads += [threading.Thread(target=consume, daemon=True) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert not any(t.is_alive() for t in threads)
    assert sorted(got) == sorted(k * 100 + i for k in range(4) for i in range(50))


def test_enqueue_shape_and_dtype_checks():
    q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([[1., 2., 3.]])
    with pytest.raises(ValueError, match="fully defined"):
        tf.FIFOQueue(3, tf.float32, shapes=[[None]])
    with pytest.raises(ValueError, match="names"):
        q.enqueue({"a": [1., 2.]})
    assert tf.queue.FIFOQueue is tf.FIFOQueue and tf.queue.RandomShuffleQueue is \
        tf.RandomShuffleQueue and tf.queue.PaddingFIFOQueue is tf.PaddingFIFOQueue


# ── Coordinator and QueueRunner ─────────────────────────────────────────────────────
def test_coordinator_join_reraises_the_reported_exception():
    coord = tf.train.Coordinator()

    def worker():
        with coord.stop_on_exception():
            raise ValueError("boom")

    def waiter():
        while not coord.should_stop():
            time.sleep(0.01)
    threads = [threading.Thread(target=worker), threading.Thread(target=waiter)]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads, stop_grace_period_secs=5)
    assert coord.joined and not any(t.is_alive() for t in threads)


def test_coordinator_clean_stop_and_stragglers():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end"))  # a clean stop
    assert coord.should_stop()
    coord.join([], stop_grace_period_secs=1)  # nothing re-raised
    coord.clear_stop()
    assert not coord.should_stop()
    release = threading.Event()
    t = threading.Thread(target=release.wait, args=(10,), daemon=True)
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="Coordinator stopped with threads still running"):
        coord.join([t], stop_grace_period_secs=0.05)
    release.set()
    t.join(5)


def test_looper_thread_runs_until_stop():
    coord = tf.train.Coordinator()
    calls = []
    looper = coord.loop(0.01, calls.append, args=(1,))
    time.sleep(0.1)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=5)
    assert calls and not looper.is_alive()


def test_queue_runner_closes_its_queue_when_input_ends():
    src = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    dst = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    qr = tf.train.QueueRunner(dst, [dst.enqueue(src.dequeue() * 10)] * 2)
    tf.train.add_queue_runner(qr)
    assert tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) == [qr]
    with tf.Session() as sess:
        sess.run(src.enqueue_many([[1, 2, 3]]))
        sess.run(src.close())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert len(threads) == 3 and all(t.daemon for t in threads)
        got = sorted(sess.run(dst.dequeue_many(3)).tolist())
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(dst.dequeue(), options=tf.RunOptions(timeout_in_ms=5000))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert got == [10, 20, 30]


def test_queue_runner_reports_errors_to_the_coordinator():
    q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    x = tf.placeholder(tf.float32, [])  # never fed: the enqueue fails
    qr = tf.train.QueueRunner(q, [q.enqueue(x)])
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, daemon=True, start=True)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
            coord.join(threads, stop_grace_period_secs=5)
        # The close_on_stop thread closed the queue, cancelling pending enqueues.
        assert sess.run(q.is_closed())
        with pytest.raises(TypeError, match="queue_closed_exception_types"):
            tf.train.QueueRunner(q, [q.enqueue(1.)], queue_closed_exception_types=(ValueError,))


def test_the_interpreter_exits_while_queue_runners_still_run():
    # Runner threads are daemons blocked on a full queue: exiting must not wait for them.
    code = textwrap.dedent("""
        import scopeflow as tf
        x = tf.train.range_input_producer(10).dequeue()
        b = tf.train.shuffle_batch([x], 4, capacity=20, min_after_dequeue=5, num_threads=2)
        sess = tf.Session()
        threads = tf.train.start_queue_runners(sess, tf.train.Coordinator())
        print(sess.run(b).shape)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "(4,)", out.stderr[-2000:]


def test_start_queue_runners_needs_a_session():
    with pytest.raises(ValueError, match="No default session is registered"):
        tf.train.start_queue_runners()


# ── Readers, against TF ─────────────────────────────────────────────────────────────
@pytest.fixture()
def reader_files(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"h1,h2\n1,2\r\n\n3,4")
    (tmp_path / "b.csv").write_bytes(b"x,y\n5,6\n")
    (tmp_path / "f.bin").write_bytes(b"HHabcdefghijFF")
    from scopeflow.io.tfrecord import TFRecordWriter
    with TFRecordWriter(str(tmp_path / "r.tfr"), mode="wb") as w:
        w.write(b"one")
        w.write(b"two22")
    with TFRecordWriter(str(tmp_path / "z.tfr"), mode="wb", compression="GZIP") as w:
        w.write(b"zz")
        w.write(b"yy")
    return tmp_path


@pytest.mark.tf
def test_readers_match_tf(tf1, reader_files):
    d = str(reader_files)
    got, want = both(tf1, f"""
        D = {d!r}
        def mk():
            return tf.FIFOQueue(10, tf.string, shapes=[[]])
        qt, qf, qh, qr, qz, qw = mk(), mk(), mk(), mk(), mk(), mk()
        tl = tf.TextLineReader(skip_header_lines=1)
        k, v = tl.read(qt)
        ku, vu = tl.read_up_to(qt, 2)
        n, nw, rs = tl.num_records_produced(), tl.num_work_units_completed(), tl.reset()
        fr = tf.FixedLengthRecordReader(record_bytes=3, header_bytes=2, footer_bytes=2)
        fh = tf.FixedLengthRecordReader(record_bytes=4, hop_bytes=3)
        tr = tf.TFRecordReader()
        tz = tf.TFRecordReader(options="GZIP")
        wr = tf.WholeFileReader()
        ir = tf.IdentityReader()
        rf, rh, rt, rz = fr.read(qf), fh.read_up_to(qh, 10), tr.read(qr), tz.read(qz)
        rw, ri = wr.read(qw), ir.read(qw)
        ops = [[o.name, o.type, [i.name for i in o.inputs]]
               for o in tf.get_default_graph().get_operations()]
        static = [type(rf).__name__, rf._fields, type(rh).__name__, rh._fields,
                  str(rh.keys.shape), str(k.shape), n.dtype.name, tl.supports_serialize]
        out = []
        with tf.Session() as sess:
            sess.run(qt.enqueue_many([[D + "/a.csv", D + "/b.csv", D + "/a.csv"]]))
            sess.run(qf.enqueue_many([[D + "/f.bin", D + "/nope"]]))
            sess.run(qh.enqueue_many([[D + "/f.bin"]]))
            sess.run(qr.enqueue_many([[D + "/r.tfr"]]))
            sess.run(qz.enqueue_many([[D + "/z.tfr"]]))
            sess.run(qw.enqueue_many([[D + "/a.csv", "id1", D + "/nope"]]))
            for _ in range(4):
                out.append(attempt(sess, [k, v]))
            out.append(attempt(sess, [ku, vu]))
            out.append(attempt(sess, [n, nw]))
            sess.run(rs)
            out.append(attempt(sess, [n, nw]))
            for _ in range(4):
                out.append(attempt(sess, rf))
            out.append(attempt(sess, rh))
            out += [attempt(sess, rt), attempt(sess, rt), attempt(sess, rz),
                    attempt(sess, rz), attempt(sess, rw), attempt(sess, ri), attempt(sess, rw)]
            sess.run([qt.close(), qr.close()])
            out += [attempt(sess, [k, v]), attempt(sess, [ku, vu]), attempt(sess, rt),
                    attempt(sess, [wr.num_records_produced(), wr.num_work_units_completed()])]
        result = [ops, static, [o.replace(D, "D") if isinstance(o, str) else o
                                for o in json.loads(json.dumps(out).replace(D, "D"))]]
    """)
    assert got == want
