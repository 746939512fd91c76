"""FileWriter and the reader: TF's event sequence and naming, reliable flushing, resume."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io import protos
from scopeflow.summary.reader import event_files

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_summaries"
TF_RUN = FIXTURES / "events" / "word2vec"


def _events(logdir):
    (files,) = event_files(logdir).values()
    return [e for f in files for e in tf.train.summary_iterator(f)]


def _scalar(tag, value):
    return tf.Summary(value=[tf.Summary.Value(tag=tag, simple_value=value)])


def test_event_sequence_and_file_name_as_tensorflow(tmp_path):
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.name_scope("summaries"):
        tf.summary.scalar("loss", x)
        tf.summary.histogram("histogram loss", x)
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        for step in range(1, 4):
            writer.add_summary(sess.run(merged, {x: step * 1.5}), global_step=step)
        writer.close()
    (name,) = os.listdir(tmp_path)
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.[^.]+", name), name
    ours, theirs = _events(tmp_path), _events(TF_RUN)
    kinds = [e.WhichOneof("what") for e in ours]
    assert kinds == [e.WhichOneof("what") for e in theirs][:len(kinds)] == \
        ["file_version", "graph_def", "meta_graph_def", "summary", "summary", "summary"]
    first = ours[0]
    assert first.file_version == "brain.Event:2" and first.wall_time == int(first.wall_time)
    assert int(name.split(".")[3]) == int(first.wall_time)
    assert [e.step for e in ours[3:]] == [1, 2, 3]
    assert [v.tag for v in ours[3].summary.value] == [v.tag for v in theirs[3].summary.value]
    graph = tf.GraphDef.FromString(ours[1].graph_def)
    assert "_output_shapes" in graph.node[0].attr
    meta = protos.MetaGraphDef.FromString(ours[2].meta_graph_def)
    assert not meta.HasField("saver_def") and meta.graph_def == graph
    assert list(meta.collection_def["summaries"].node_list.value) == \
        ["summaries/loss:0", "summaries/histogram_loss:0"]


def test_add_summary_accepts_bytes_messages_and_arrays(tmp_path):
    with tf.summary.FileWriter(tmp_path) as w:
        w.add_summary(_scalar("a", 1.0).SerializeToString(), 1)
        w.add_summary(_scalar("a", 2.0), 2)
        w.add_summary(np.array(_scalar("a", 3.0).SerializeToString(), dtype=object), 3)
        w.add_event(tf.Event(summary=_scalar("b", 4.0)), step=4, walltime=123.0)
        assert w.get_logdir() == str(tmp_path)
    recs = tf.summary.read_events(tmp_path, kinds={"scalar"})
    assert [(r.step, r.tag, r.value) for r in recs] == [(1, "a", 1.0), (2, "a", 2.0),
                                                        (3, "a", 3.0), (4, "b", 4.0)]
    assert recs[-1].wall_time == 123.0


def test_plugin_metadata_kept_only_on_first_value_of_a_tag(tmp_path):
    t = tf.summary.text("notes", tf.constant("hi"))
    s = tf.Session().run(t)
    with tf.summary.FileWriter(tmp_path) as w:
        w.add_summary(s, 1)
        w.add_summary(s, 2)
    values = [e.summary.value[0] for e in _events(tmp_path) if e.HasField("summary")]
    assert [v.HasField("metadata") for v in values] == [True, False]
    recs = tf.summary.read_events(tmp_path, kinds={"text"})
    assert [r.value.item() for r in recs] == [b"hi", b"hi"]


def test_queue_flush_secs_and_close(tmp_path):
    w = tf.summary.FileWriter(tmp_path, max_queue=3, flush_secs=0.2)
    (path,) = [tmp_path / f for f in os.listdir(tmp_path)]
    assert len(_events(tmp_path)) == 1  # the file version is written at once
    w.add_summary(_scalar("a", 1.0), 1)
    deadline = time.time() + 5
    while len(_events(tmp_path)) < 2 and time.time() < deadline:
        time.sleep(0.05)  # the background thread flushes within flush_secs
    assert len(_events(tmp_path)) == 2
    w.close()
    with pytest.raises(RuntimeError, match="closed"):
        w.add_summary(_scalar("a", 2.0), 2)
    w2 = tf.summary.FileWriter(tmp_path / "q", max_queue=2, flush_secs=1000)
    w2.add_summary(_scalar("a", 1.0), 1)
    assert len(_events(tmp_path / "q")) == 1
    w2.add_summary(_scalar("a", 2.0), 2)  # the queue is full: written
    assert len(_events(tmp_path / "q")) == 3
    w2.close()
    assert path.exists()


def test_short_run_is_flushed_at_exit(tmp_path):
    code = textwrap.dedent(f"""
        import scopeflow as tf
        w = tf.summary.FileWriter({str(tmp_path)!r})
        w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=2.0)]), 5)
        # no flush, no close
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    recs = tf.summary.read_events(tmp_path, kinds={"scalar"})
    assert [(r.step, r.value) for r in recs] == [(5, 2.0)]


def test_reopen_and_restart_never_clobber(tmp_path):
    w = tf.summary.FileWriter(tmp_path, filename_suffix=".sfx")
    w.add_summary(_scalar("a", 1.0), 1)
    w.close()
    w.reopen()
    w.add_summary(_scalar("a", 2.0), 2)
    w.close()
    w3 = tf.summary.FileWriter(tmp_path, filename_suffix=".sfx")  # same second, likely
    w3.close()
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 3 and all(f.endswith(".sfx") for f in files)
    assert [r.value for r in tf.summary.read_events(tmp_path, kinds={"scalar"})] == [1.0, 2.0]


def test_resume_purges_stale_steps(tmp_path):
    with tf.summary.FileWriter(tmp_path) as w:
        for step in range(1, 11):
            w.add_summary(_scalar("loss", float(step)), step)
    # the run crashed after step 10; its last checkpoint was at step 6: resume from 7
    with tf.summary.FileWriter(tmp_path, purge_step=7) as w:
        for step in range(7, 9):
            w.add_summary(_scalar("loss", 100.0 + step), step)
    logs = tf.summary.read_events(tmp_path, kinds={"session_log"})
    assert [(r.step, r.value) for r in logs] == [(7, "START")]
    (points,) = tf.summary.read_scalars(tmp_path, "loss").values()
    assert [(s, v) for s, _, v in points] == [(s, float(s)) for s in range(1, 7)] + \
        [(7, 107.0), (8, 108.0)]
    # the same, spelled as TF1: add_session_log(SessionLog(status=START), global_step=S)
    with tf.summary.FileWriter(tmp_path / "tf1") as w:
        w.add_summary(_scalar("loss", 1.0), 3)
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.START), global_step=3)
        w.add_summary(_scalar("loss", 2.0), 3)
    (points,) = tf.summary.read_scalars(tmp_path / "tf1", "loss").values()
    assert [v for _, _, v in points] == [2.0]


def test_file_writer_cache_and_run_metadata(tmp_path):
    a = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is a
    a.add_run_metadata(b"\x01\x02", "step1", global_step=1)
    a.add_run_metadata(None, "nothing")
    tf.summary.FileWriterCache.clear()
    recs = tf.summary.read_events(tmp_path, kinds={"run_metadata", "graph"})
    assert [(r.kind, r.tag) for r in recs] == [("graph", ""), ("run_metadata", "step1")]
    assert recs[1].value == b"\x01\x02"


def test_add_graph_errors():
    with pytest.raises(TypeError, match="must be an instance of `Graph`"):
        tf.summary.FileWriter.add_graph(object.__new__(tf.summary.FileWriter), "nope")


@pytest.mark.tf
def test_tensorflow_reads_our_event_file(tf1, tmp_path):
    """TF's summary_iterator reads every event (CRCs checked) and imports the graph."""
    x = tf.placeholder(tf.float32, [None], name="x")
    mean = tf.reduce_mean(x)
    with tf.name_scope("summaries"):
        tf.summary.scalar("mean", mean)
        tf.summary.histogram("values", x)
    merged = tf.summary.merge_all()
    with tf.Session() as sess, tf.summary.FileWriter(tmp_path, sess.graph) as w:
        for step in (1, 2):
            w.add_summary(sess.run(merged, {x: [1.0, 2.0, step * 3.0]}), step)
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 3)
    (path,) = [str(tmp_path / f) for f in os.listdir(tmp_path)]
    got = tf1(f"""
        out = []
        for e in tf.train.summary_iterator({path!r}):
            what = e.WhichOneof("what")
            if what == "graph_def":
                with tf.Graph().as_default() as g:
                    tf.import_graph_def(tf.GraphDef.FromString(e.graph_def), name="")
                    what += ":" + g.get_operation_by_name("summaries/values").type
            elif what == "summary":
                vals = [v.simple_value if v.HasField("simple_value") else v.histo.num
                        for v in e.summary.value]
                what += ":" + ",".join(f"{{v.tag}}={{x}}" for v, x in zip(e.summary.value, vals))
            out.append([e.step, what])
        print(json.dumps(out))
    """)
    assert got == [[0, "file_version"], [0, "graph_def:HistogramSummary"], [0, "meta_graph_def"],
                   [1, "summary:summaries/mean=2.0,summaries/values=3.0"],
                   [2, "summary:summaries/mean=3.0,summaries/values=3.0"], [3, "session_log"]]


def test_logdir_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="logdir .* exists and is not a directory"):
        tf.summary.FileWriter(tmp_path / "f")


def test_duplicate_tag_at_one_step_warns_once(tmp_path):
    with tf.summary.FileWriter(tmp_path) as w:
        w.add_summary(_scalar("loss", 1.0), 1)
        w.add_summary(_scalar("acc", 1.0), 1)
        with pytest.warns(tf.summary.DuplicateTagWarning, match="'loss' was written twice at "
                          "step 1"):
            w.add_summary(_scalar("loss", 2.0), 1)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w.add_summary(_scalar("loss", 3.0), 1)  # once per tag
            w.add_summary(_scalar("loss", 1.0), 2)
