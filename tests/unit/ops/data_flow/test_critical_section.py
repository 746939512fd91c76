"""tf.CriticalSection against TF 2.21 (compat.v1), and its serialisation across threads.

The same program runs on scopeflow and on TF (the ``tf1`` fixture): the ops ``execute``
builds (names, types, inputs, control inputs), values over several runs, the resource
checks, collections and errors. The thread tests need no TensorFlow: a read-sleep-write
counter loses updates without the section and none inside it.
"""

import json
import textwrap
import threading
import time

import numpy as np
import pytest

import scopeflow as tf

PROGRAM = textwrap.dedent('''
def run_cases(tf):
    import threading
    got, errors = {}, {}
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0, name="x")
        cs = tf.CriticalSection()
        v = tf.Variable(0.0, name="v", use_resource=False)

        def bump():
            old = v * 1.0
            with tf.control_dependencies([old]):
                new = tf.assign(v, old + 1.0)
            with tf.control_dependencies([new]):
                return tf.identity(old)

        out = cs.execute(bump)
        out2 = cs.execute(lambda: (x * 2, [x + 1]), name="two")
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([1, 2], tf.int64), tf.constant([10, 20], tf.int64)), -1)
        keys = tf.constant([2, 5, 1], tf.int64)
        cs2 = tf.CriticalSection(name="mine", shared_name="sh")
        cs3 = tf.CriticalSection(name="other")
        shared = cs.execute(lambda: table.lookup(keys), exclusive_resource_access=False)
        shared2 = cs2.execute(lambda: table.lookup(keys) + 1, exclusive_resource_access=False)
        got["graph"] = sorted(
            [o.name, o.type, [i.name for i in o.inputs],
             sorted(c.name for c in o.control_inputs),
             [[t.dtype.name, t.shape.as_list()] for t in o.outputs]]
            for o in g.get_operations()
            if o.type in ("MutexV2", "MutexLock", "ConsumeMutexLock", "NoOp", "Identity",
                          "Mul", "AddV2") and not o.name.startswith("v/"))
        got["names"] = [cs.name, cs2.name, cs3.name, list(cs._signature),
                        list(cs2._signature), list(cs3._signature)]
        got["shared_name"] = [c._handle.op.get_attr("shared_name").decode()
                              if isinstance(c._handle.op.get_attr("shared_name"), bytes)
                              else c._handle.op.get_attr("shared_name") for c in (cs, cs2)]
        got["collections"] = [len(tf.get_collection("critical_sections")),
                              [[s.op.name, s.handle.name, sorted(r.name for r in s.resources),
                                s.exclusive_resource_access]
                               for s in tf.get_collection("critical_section_executions")]]
        cases = {
            "nested": lambda: cs.execute(lambda: cs.execute(lambda: x)),
            "exclusive": lambda: cs3.execute(lambda: table.lookup(keys)),
            "def": lambda: tf.CriticalSection(critical_section_def=1),
            "def_and_name": lambda: tf.CriticalSection(name="a", critical_section_def=1),
            "none": lambda: cs.execute(lambda: None),
        }
        for key, case in cases.items():
            try:
                case()
                errors[key] = None
            except Exception as e:  # noqa: BLE001 - the class and text are compared
                text = str(e).split(":")[0] if key == "exclusive" else str(e)
                errors[key] = [type(e).__name__, text if key != "none" else ""]
        got["op"] = cs.execute(lambda: tf.no_op()).type
        with tf.Session() as sess:
            sess.run([v.initializer, tf.tables_initializer()])
            got["runs"] = [sess.run([out, out2]), sess.run(out), sess.run(out)]
            got["runs"][0][1] = [got["runs"][0][1][0], list(got["runs"][0][1][1])]
            got["lookup"] = [sess.run(shared).tolist(), sess.run(shared2).tolist()]

            def work():
                for _ in range(5):
                    sess.run(out)
            threads = [threading.Thread(target=work) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            got["after_threads"] = float(sess.run(v))
    got["errors"] = errors
    return got
''')


def _ours():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 (the program shared with the TF run)
    return json.loads(json.dumps(scope["run_cases"](tf), default=float))


def test_matches_tensorflow(tf1):
    """The graph execute builds, values, lookups through two sections, checks, errors."""
    theirs = tf1("tf.disable_v2_behavior()\n" + PROGRAM +
                 "\nprint(json.dumps(run_cases(tf), default=float))\n")
    ours = _ours()
    assert ours == theirs


def _counter(section):
    """A counter bumped by read, sleep (a Python op), write: racy unless serialised."""
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, name="v")

        def bump():
            old = v * 1.0
            slow = tf.py_func(lambda a: (time.sleep(0.002), a)[1], [old], tf.float32)
            return tf.assign(v, tf.reshape(slow, []) + 1.0)

        out = section().execute(bump) if section else bump()
        sess = tf.Session(graph=g)
        sess.run(v.initializer)
    return sess, out, v


def _hammer(sess, out, threads=4, runs=10):
    def work():
        for _ in range(runs):
            sess.run(out)
    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()


def test_serialises_runs_across_threads():
    """Inside the section every increment survives; the same graph without it loses some
    (so the section is what makes the difference)."""
    sess, out, v = _counter(tf.CriticalSection)
    _hammer(sess, out)
    assert sess.run(v) == 40
    sess.close()
    sess, out, v = _counter(None)
    _hammer(sess, out)
    assert sess.run(v) < 40
    sess.close()


def test_waiting_lock_honours_the_run_deadline():
    """A run that waits for a section held by another run ends at its timeout with
    DeadlineExceededError; the lock is released when the holder finishes."""
    release = threading.Event()
    g = tf.Graph()
    with g.as_default():
        section = tf.CriticalSection()
        hold = section.execute(lambda: tf.py_func(
            lambda: np.float32(release.wait(5)), [], tf.float32))
        quick = section.execute(lambda: tf.constant(3.0) * 2.0)
    with tf.Session(graph=g) as sess:
        holder = threading.Thread(target=sess.run, args=(hold,))
        holder.start()
        time.sleep(0.2)
        options = tf.RunOptions(timeout_in_ms=200)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(quick, options=options)
        release.set()
        holder.join()
        assert sess.run(quick) == 6.0


def test_failed_run_releases_the_lock():
    """An error inside the section frees the lock (TF frees it with the lock tensor)."""
    g = tf.Graph()
    with g.as_default():
        section = tf.CriticalSection()
        fed = tf.placeholder(tf.float32, [])

        def checked_fn():
            with tf.control_dependencies([tf.debugging.assert_positive(fed)]):
                return fed * 1.0

        checked = section.execute(checked_fn)
        other = section.execute(lambda: tf.constant(1.0) + 1.0)
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checked, {fed: -1.0})
        assert sess.run(other, options=tf.RunOptions(timeout_in_ms=2000)) == 2.0
