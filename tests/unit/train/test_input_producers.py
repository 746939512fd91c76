"""Input producers and batchers (``tf.train.string_input_producer``, ``batch``,
``shuffle_batch``...) built and run as TF1 builds and runs them, against live TensorFlow.

With one thread per queue the order is deterministic and both must print the same batches,
then the same ``OutOfRangeError``; with several threads or a shuffle, the same multiset of
elements, batch shapes and number of batches. Every program joins its threads; blocking
runs carry a timeout.
"""

from __future__ import annotations

import pytest

import scopeflow as tf

from ..ops.data_flow.test_queues import both

pytestmark = pytest.mark.filterwarnings("ignore::scopeflow.GraphGrowthWarning")

# The sizes in the final OutOfRangeError depend on whether the last dequeue came before the
# queue runner closed the queue (then it held what was left) or after, and the queue's
# resource number (``_3_batch/fifo_queue``) on which runner thread first ran it: races, in
# TF too, so both are left out.
DRAIN = '''
import re
def drain(sess, fetch, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append(j(sess.run(fetch, options=tf.RunOptions(timeout_in_ms=20000))))
        except tf.errors.OutOfRangeError as e:
            kind, message = err(e)
            message = re.sub(r" \\(requested \\d+, current size \\d+\\)", "", message)
            out.append([kind, re.sub(r"'_\\d+_", "'_N_", message)])
            break
    return out
def start(sess):
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    return coord, tf.train.start_queue_runners(sess, coord)
def stop(coord, threads):
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
'''


@pytest.mark.tf
def test_string_input_producer_and_batch_graph_and_values_match_tf(tf1):
    got, want = both(tf1, helpers=DRAIN, code="""
        fq = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False,
                                            capacity=8)
        f = fq.dequeue()
        b = tf.train.batch([f, tf.constant(3)], batch_size=2, allow_smaller_final_batch=True)
        g = tf.get_default_graph()
        ops = [[o.name, o.type, [i.name for i in o.inputs], [c.name for c in o.control_inputs]]
               for o in g.get_operations() if o.type not in ("Assert", "Const")]
        static = [fq.name, [str(t.shape) for t in b],
                  [v.name for v in tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)],
                  [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)],
                  [q.name for q in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]]
        with tf.Session() as sess:
            coord, threads = start(sess)
            names = [t.name for t in threads]
            out = drain(sess, b)
            epochs = j(sess.run(tf.local_variables()[0]))
            stop(coord, threads)
        result = [ops, static, names, out, epochs]
    """)
    assert got == want


@pytest.mark.tf
def test_slice_and_range_producers_match_tf(tf1):
    got, want = both(tf1, helpers=DRAIN, code="""
        x, y = tf.train.slice_input_producer([[1, 2, 3], [[1., 0.], [2., 0.], [3., 0.]]],
                                             num_epochs=2, shuffle=False)
        b = tf.train.batch({"x": x, "y": y}, batch_size=4)
        r = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
        rb = tf.train.batch([r], batch_size=3, allow_smaller_final_batch=True)
        static = [str(x.shape), str(y.shape), sorted(b), [str(t.shape) for t in b.values()],
                  str(rb.shape)]
        with tf.Session() as sess:
            coord, threads = start(sess)
            out = [drain(sess, b), drain(sess, rb)]
            stop(coord, threads)
        result = [static, out]
    """)
    assert got == want


@pytest.mark.tf
def test_seeded_shuffled_producer_matches_tf(tf1):
    # The producer shuffles with RandomShuffle and an op seed: the same order as TF's.
    got, want = both(tf1, helpers=DRAIN, code="""
        tf.set_random_seed(5)
        r = tf.train.range_input_producer(6, num_epochs=2, shuffle=True, seed=7).dequeue()
        with tf.Session() as sess:
            coord, threads = start(sess)
            out = drain(sess, r)
            stop(coord, threads)
        result = [len(out), sorted(out[:-1]), out[-1]]
    """)
    assert got == want


@pytest.mark.tf
def test_enqueue_many_dynamic_pad_and_batch_join_match_tf(tf1):
    got, want = both(tf1, helpers=DRAIN, code="""
        rows = tf.train.limit_epochs(tf.constant([[1, 2], [3, 4], [5, 6]]), num_epochs=2)
        b = tf.train.batch([rows], batch_size=4, enqueue_many=True,
                           allow_smaller_final_batch=True)
        v = tf.train.limit_epochs(tf.constant([7, 8, 9]), num_epochs=1)
        n = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
        padded = tf.train.batch([tf.range(n + 1)], batch_size=3, dynamic_pad=True)
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        ones = tf.train.batch_join([[q.dequeue()], [v[0]]], batch_size=2, capacity=4)
        static = [str(b.shape), str(padded.shape), str(ones.shape)]
        with tf.Session() as sess:
            sess.run(q.enqueue_many([[10, 11, 12]])); sess.run(q.close())
            coord, threads = start(sess)
            out = [drain(sess, b), drain(sess, padded)]
            joined = sorted(x for batch in drain(sess, ones)[:-1] for x in batch)
            stop(coord, threads)
        result = [static, out, joined]
    """)
    assert got == want


@pytest.mark.tf
def test_shuffle_batch_with_threads_delivers_every_element_as_tf(tf1):
    got, want = both(tf1, helpers=DRAIN, code="""
        x = tf.train.range_input_producer(20, num_epochs=3, shuffle=False).dequeue()
        b = tf.train.shuffle_batch([x, x * 2], batch_size=7, capacity=30, min_after_dequeue=5,
                                   num_threads=3, seed=1, allow_smaller_final_batch=True)
        x2 = tf.train.range_input_producer(20, num_epochs=3, shuffle=False).dequeue()
        sj = tf.train.shuffle_batch_join([[x2], [x2 + 100]], batch_size=4, capacity=10,
                                         min_after_dequeue=2)
        ops = sorted(o.name for o in tf.get_default_graph().get_operations()
                     if o.name.startswith("shuffle_batch/"))
        static = [[str(t.shape) for t in b], str(sj[0].shape),
                  [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]]
        with tf.Session() as sess:
            coord, threads = start(sess)
            out = drain(sess, b)
            stop(coord, threads)
        batches = out[:-1]
        flat = sorted(v for xs, _ in batches for v in xs)
        pairs_ok = all(y == [2 * v for v in xs] for xs, y in batches)
        result = [ops, static, len(batches), [len(xs) for xs, _ in batches][:-1], flat,
                  pairs_ok, out[-1]]
    """)
    assert got == want


@pytest.mark.tf
def test_csv_program_with_coordinator_matches_tf(tf1, tmp_path):
    # The TF1 tutorial's program: file names -> TextLineReader -> decode_csv ->
    # shuffle_batch, with a Coordinator and start_queue_runners, until the epochs end.
    for k in range(3):
        lines = ["a,b,label"] + [f"{k * 10 + i},{(k * 10 + i) * 0.5},{i % 2}"
                                 for i in range(5)]
        (tmp_path / f"part{k}.csv").write_text("\n".join(lines) + "\n")
    files = [str(tmp_path / f"part{k}.csv") for k in range(3)]
    got, want = both(tf1, helpers=DRAIN, code=f"""
        files = {files!r}
        fq = tf.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=3)
        reader = tf.TextLineReader(skip_header_lines=1)
        key, value = reader.read(fq)
        a, bcol, label = tf.decode_csv(value, record_defaults=[[0], [0.0], [0]])
        ka, kb, kl, kk = tf.train.shuffle_batch([a, bcol, label, key], batch_size=4,
                                                capacity=50, min_after_dequeue=10,
                                                num_threads=2, seed=9)
        with tf.Session() as sess:
            coord, threads = start(sess)
            batches = []
            try:
                while not coord.should_stop():
                    batches.append(j(sess.run([ka, kb, kl, kk])))
            except tf.errors.OutOfRangeError as e:
                end = err(e)
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            produced = j(sess.run(reader.num_records_produced()))
        rows = [r for batch in batches for r in zip(*batch)]
        ok = all(b == a * 0.5 and l == a % 10 % 2 and k.endswith(":" + str(a % 10 + 2))
                 for a, b, l, k in rows)
        result = [len(batches), [len(b[0]) for b in batches], ok, produced,
                  len(set(r[0] for r in rows)) <= 15, end[0]]
    """)
    assert got == want
    assert got[0] == 7 and got[3] == 30  # 30 records read, 7 full batches of 4


def test_producer_argument_errors():
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        tf.train.string_input_producer([])
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tf.train.limit_epochs(tf.constant([1]), num_epochs=0)
    with pytest.raises(ValueError, match="must be bigger than min_after_dequeue"):
        tf.train.shuffle_batch([tf.constant(1)], 2, capacity=5, min_after_dequeue=5)
    with pytest.raises(ValueError, match="fully defined"):
        tf.train.batch([tf.placeholder(tf.float32, [None])], 2)


@pytest.mark.tf
def test_match_filenames_once_matches_tf(tf1, tmp_path):
    for name in ("b.csv", "a.csv", "c.txt"):
        (tmp_path / name).write_text("x\n")
    pattern = str(tmp_path / "*.csv")
    got, want = both(tf1, f"""
        v = tf.train.match_filenames_once({pattern!r})
        ops = [o.name for o in tf.get_default_graph().get_operations()]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            files = [f.rsplit("/", 1)[-1] for f in j(sess.run(v))]
        result = [v.name, ops, [x.name for x in tf.local_variables()], files]
    """)
    assert got == want and got[3] == ["a.csv", "b.csv"]
