"""tf.train.warm_start and tf.train.checkpoints_iterator.

warm_start is checked on checkpoints written by scopeflow and by real TensorFlow (the
``tf1`` fixture): the same snippet warm-starts a new model in both, with a regex, a list
of scopes, a list of variables, ``var_name_to_prev_var_name`` and the errors.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time

import numpy as np
import pytest

import scopeflow as sf

WRITE = textwrap.dedent("""
    def _write(prefix):
        g = tf.Graph()
        with g.as_default():
            with tf.variable_scope("old"):
                tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
            tf.get_variable("b", initializer=np.float32([7, 8, 9]))
            tf.get_variable("emb", initializer=np.arange(12, dtype=np.float32).reshape(4, 3))
            tf.get_variable("acc", initializer=np.float32(3.5), trainable=False)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                return tf.train.Saver().save(s, prefix)
""")

WARM = textwrap.dedent("""
    def _warm(ckpt):
        out = {}

        def model():
            w = tf.get_variable("new/w", shape=[2, 3], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", shape=[3], initializer=tf.zeros_initializer())
            emb = tf.get_variable("emb", shape=[4, 3], initializer=tf.zeros_initializer(),
                                  partitioner=tf.fixed_size_partitioner(2))
            acc = tf.get_variable("acc", shape=[], initializer=tf.zeros_initializer(),
                                  trainable=False)
            return w, b, emb, acc

        def run(name, **kw):
            g = tf.Graph()
            with g.as_default():
                w, b, emb, acc = model()
                try:
                    tf.train.warm_start(ckpt, **kw)
                except (ValueError, TypeError) as e:
                    out[name] = type(e).__name__ + ": " + str(e).split(".")[0]
                    return
                with tf.Session() as s:
                    s.run(tf.global_variables_initializer())
                    out[name] = [np.asarray(x).tolist()
                                 for x in s.run([w, b, tf.concat(list(emb), 0), acc])]

        run("prev", vars_to_warm_start=".*",
            var_name_to_prev_var_name={"new/w": "old/w"})
        run("regex_b", vars_to_warm_start="b")
        run("scopes", vars_to_warm_start=["acc", "emb"])
        run("none", vars_to_warm_start=None)
        run("missing", vars_to_warm_start=".*")
        run("unused", vars_to_warm_start="b", var_name_to_prev_var_name={"zzz": "b"})
        run("badtype", vars_to_warm_start=3)
        return out
""")


def _run_here(ckpt):
    env = {"tf": sf, "np": np}
    exec(WARM, env)  # noqa: S102 - the shared snippet, run against scopeflow
    return env["_warm"](ckpt)


def _write_here(prefix):
    env = {"tf": sf, "np": np}
    exec(WRITE, env)  # noqa: S102
    return env["_write"](prefix)


def test_warm_start_values(tmp_path):
    ckpt = _write_here(str(tmp_path / "model.ckpt"))
    r = _run_here(ckpt)
    w, b, emb, acc = r["prev"]
    assert w == [[0, 1, 2], [3, 4, 5]] and b == [7, 8, 9]
    assert emb == np.arange(12).reshape(4, 3).tolist()
    assert acc == 0  # not trainable: not matched by the '.*' regex
    assert r["regex_b"][0] == [[0] * 3] * 2 and r["regex_b"][1] == [7, 8, 9]
    assert r["scopes"][3] == 3.5 and r["scopes"][2] == emb and r["scopes"][1] == [0] * 3
    assert r["none"][1] == [0, 0, 0]
    assert r["missing"].startswith("ValueError")
    assert r["unused"].startswith("ValueError: You provided the following variables in "
                                  "var_name_to_prev_var_name that were not used")
    assert r["badtype"].startswith("ValueError: `vars_to_warm_start must be a `list`")


def test_vocab_remapping_needs_a_matrix(tmp_path):
    # Remapping itself: tests/unit/train/test_vocab_warm_start.py.
    ckpt = _write_here(str(tmp_path / "model.ckpt"))
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\nc\n")
    info = sf.train.VocabInfo(str(vocab), 3, 0, str(vocab))
    with sf.Graph().as_default():
        sf.get_variable("b", shape=[3])
        with pytest.raises(ValueError, match="Expected 2-dim shape"):
            sf.train.warm_start(ckpt, var_name_to_vocab_info={"b": info})


def test_against_tensorflow(tf1, tmp_path):
    theirs_dir = tmp_path / "tf"
    ours_dir = tmp_path / "sf"
    theirs_dir.mkdir()
    ours_dir.mkdir()
    ours_ckpt = _write_here(str(ours_dir / "model.ckpt"))
    theirs = tf1("tf.disable_v2_behavior()\n" + WRITE + WARM + textwrap.dedent(f"""
        tf_ckpt = _write({str(theirs_dir / "model.ckpt")!r})
        print(json.dumps({{"on_tf": _warm(tf_ckpt), "on_ours": _warm({ours_ckpt!r}),
                          "ckpt": tf_ckpt}}))
    """))
    ours_on_tf = _run_here(theirs["ckpt"])
    ours_on_ours = _run_here(ours_ckpt)
    for mine, tfs in ((ours_on_tf, theirs["on_tf"]), (ours_on_ours, theirs["on_ours"])):
        for key in ("prev", "regex_b", "scopes", "none", "unused", "badtype"):
            assert mine[key] == tfs[key], key
        assert mine["missing"].split(":")[0] == tfs["missing"].split(":")[0]


def test_checkpoints_iterator(tmp_path):
    d = str(tmp_path)
    # Nothing there: ends after the timeout.
    t0 = time.time()
    assert list(sf.train.checkpoints_iterator(d, timeout=0.5)) == []
    assert time.time() - t0 < 3

    with sf.Graph().as_default():
        v = sf.Variable(1.0, name="v")
        saver = sf.train.Saver()
        with sf.Session() as s:
            s.run(v.initializer)
            saver.save(s, os.path.join(d, "model.ckpt"), global_step=1)

            def later():
                time.sleep(1.2)
                saver.save(s, os.path.join(d, "model.ckpt"), global_step=2)

            writer = threading.Thread(target=later)
            writer.start()
            seen = list(sf.train.checkpoints_iterator(d, timeout=2.5))
            writer.join()
    assert [os.path.basename(p) for p in seen] == ["model.ckpt-1", "model.ckpt-2"]

    # timeout_fn: called on each timeout; True ends the iteration.
    calls = []
    it = sf.train.checkpoints_iterator(d, timeout=0.2,
                                       timeout_fn=lambda: calls.append(1) or len(calls) >= 2)
    assert os.path.basename(next(it)) == "model.ckpt-2"
    assert list(it) == [] and len(calls) == 2

    # min_interval_secs spaces the yields.
    it = sf.train.checkpoints_iterator(d, min_interval_secs=0.6, timeout=0.1)
    t0 = time.time()
    next(it)
    assert list(it) == []
    assert time.time() - t0 >= 0.6
