"""tf.train.Supervisor and tf.train.basic_train_loop.

A short training run under a Supervisor: the files it leaves in ``logdir`` (checkpoint,
graph.pbtxt, events with START/CHECKPOINT/STOP session logs and summaries), the default
ops it adds to the collections, recovery from the newest checkpoint, errors, and — with the
``tf1`` fixture — the same snippet under real TensorFlow, each restoring the other's
checkpoint.
"""

from __future__ import annotations

import glob
import os
import textwrap

import numpy as np
import pytest

import scopeflow as sf

SNIPPET = textwrap.dedent("""
    def _supervised(logdir, steps):
        g = tf.Graph()
        with g.as_default():
            gs = tf.train.get_or_create_global_step()
            w = tf.get_variable("w", initializer=np.float32(1.0))
            tf.summary.scalar("w_value", w)
            train = tf.group(tf.assign_add(w, 0.5), tf.assign_add(gs, 1))
            sv = tf.train.Supervisor(logdir=logdir, save_model_secs=3600,
                                     save_summaries_secs=3600)
            info = {"collections": sorted(k for k in g.get_all_collection_keys()
                                          if k in ("init_op", "local_init_op", "ready_op",
                                                   "ready_for_local_init_op", "savers",
                                                   "summary_op")),
                    "finalized": g.finalized,
                    "save_path": os.path.basename(sv.save_path),
                    "gs": sv.global_step.op.name}
            with sv.managed_session() as sess:
                info["start"] = [float(sess.run(w)), int(sess.run(gs))]
                for _ in range(steps):
                    if sv.should_stop():
                        break
                    sess.run(train)
                sv.saver.save(sess, sv.save_path, global_step=gs)
                info["end"] = [float(sess.run(w)), int(sess.run(gs))]
            info["should_stop"] = sv.should_stop()
            try:
                sv.start_standard_services(None) if not sv.is_chief else None
                tf.train.Supervisor(graph=tf.Graph(), is_chief=False,
                                    logdir=logdir).start_standard_services(None)
            except RuntimeError as e:
                info["chief_error"] = str(e)
            try:
                with sv.managed_session() as sess:
                    raise tf.errors.OutOfRangeError(None, None, "input done")
                info["oor"] = "swallowed"
            except tf.errors.OutOfRangeError:
                info["oor"] = "raised"
            try:
                with sv.managed_session() as sess:
                    raise ValueError("boom")
            except ValueError as e:
                info["value_error"] = str(e)
        info["files"] = sorted(f for f in os.listdir(logdir) if not f.startswith("events"))
        return info
""")


def _ours(logdir, steps):
    env = {"tf": sf, "np": np, "os": os}
    exec(SNIPPET, env)  # noqa: S102 - the shared snippet, run against scopeflow
    return env["_supervised"](logdir, steps)


def _events(logdir):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.*"))):
        for e in sf.train.summary_iterator(path):
            if e.HasField("session_log"):
                out.append(("log", e.session_log.status, e.step))
            elif e.HasField("summary"):
                out.extend(("summary", v.tag, e.step) for v in e.summary.value)
    return out


def test_run_recover_and_files(tmp_path):
    logdir = str(tmp_path)
    first = _ours(logdir, 4)
    assert first["start"] == [1.0, 0] and first["end"] == [3.0, 4]
    assert first["finalized"] and first["save_path"] == "model.ckpt" and first["gs"] == \
        "global_step"
    assert first["collections"] == ["init_op", "local_init_op", "ready_op", "savers",
                                    "summary_op"]
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-0.index", "model.ckpt-4.index"} <= \
        set(first["files"])
    assert first["should_stop"] and first["oor"] == "swallowed"
    assert first["value_error"] == "boom"
    assert first["chief_error"].startswith("Only chief supervisor can start standard")
    # The next run restores the newest checkpoint (step 4, or later ones the services
    # saved at the start of the extra sessions above).
    second = _ours(logdir, 2)
    assert second["start"][1] >= 4 and second["start"][0] == 1.0 + 0.5 * second["start"][1]
    events = _events(logdir)
    statuses = [e[1] for e in events if e[0] == "log"]
    start, stop, ckpt = (sf.summary.SessionLog.START, sf.summary.SessionLog.STOP,
                         sf.summary.SessionLog.CHECKPOINT)
    assert statuses[0] == start and stop in statuses and ckpt in statuses
    tags = {e[1] for e in events if e[0] == "summary"}
    assert {"w_value", "global_step/sec"} <= tags


def test_basic_train_loop_and_abort_retry(tmp_path):
    with sf.Graph().as_default():
        gs = sf.train.get_or_create_global_step()
        inc = sf.assign_add(gs, 1)
        sv = sf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                                 save_summaries_secs=0)
        calls = []

        def step(sess, limit):
            calls.append(int(sess.run(inc)))
            if len(calls) == 2:
                raise sf.errors.AbortedError(None, None, "server restarted")
            if calls[-1] >= limit:
                sv.request_stop()

        sf.train.basic_train_loop(sv, step, args=[5])
    # Aborted after 2 steps: a new session, initialized again (nothing was saved).
    assert calls == [1, 2, 1, 2, 3, 4, 5]


def test_without_logdir_no_files_and_no_writer():
    with sf.Graph().as_default():
        sf.Variable(1.0, name="v")
        sv = sf.train.Supervisor()
        assert sv.summary_writer is None and sv.save_path is None
        with sv.managed_session() as sess:
            assert sess.run("v:0") == 1.0
        with pytest.raises(RuntimeError, match="requires a summary writer"):
            sv.summary_computed(sess, b"")


def test_against_tensorflow(tf1, tmp_path):
    ours_dir, theirs_dir = str(tmp_path / "sf"), str(tmp_path / "tf")
    ours = _ours(ours_dir, 3)
    theirs = tf1("tf.disable_v2_behavior()\nimport os\n" + SNIPPET + textwrap.dedent(f"""
        a = _supervised({theirs_dir!r}, 3)
        b = _supervised({ours_dir!r}, 2)   # TF restores scopeflow's checkpoint
        print(json.dumps({{"a": a, "b": b}}))
    """))
    for key in ("start", "end", "collections", "finalized", "save_path", "gs", "oor",
                "value_error", "chief_error", "should_stop"):
        assert ours[key] == theirs["a"][key], key
    assert ours["files"] == theirs["a"]["files"]
    assert theirs["b"]["start"][1] >= 3
    # And scopeflow restores TF's.
    again = _ours(theirs_dir, 1)
    assert again["start"][1] >= 3 and again["start"][0] == 1.0 + 0.5 * again["start"][1]
