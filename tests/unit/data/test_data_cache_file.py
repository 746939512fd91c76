"""Dataset.cache(filename) (issue 18): TF's file cache. The first complete pass writes
``<filename>.index`` + ``<filename>.data-00000-of-00001`` (byte for byte what TF writes,
fixtures/tf_data_cache, made by its make_fixture.py); later iterators, in this process or
another, read the file instead of running the pipeline; an unfinished pass leaves nothing;
a second concurrent writer fails with TF's AlreadyExistsError."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_data_cache"
_spec = importlib.util.spec_from_file_location("tf_data_cache_program", FIXTURE / "program.py")
program = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(program)


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError:
            return out


def _counting(n, calls):
    """range(n) through a Python generator that counts the elements it makes."""
    def gen():
        for i in range(n):
            calls.append(i)
            yield i
    return tf.data.Dataset.from_generator(gen, tf.int64, [])


def test_writes_tensorflows_files_byte_for_byte(tmp_path):
    with tf.Graph().as_default():
        got = program.drain(tf, program.dataset(tf, str(tmp_path / "c")))
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
    for name in os.listdir(tmp_path):
        assert (tmp_path / name).read_bytes() == (FIXTURE / "cache" / name).read_bytes(), name
    assert [int(e["id"]) for e in got] == [-3, 4, 11, 18, 25]


def test_reads_the_cache_tensorflow_wrote(tmp_path):
    for name in os.listdir(FIXTURE / "cache"):
        (tmp_path / name).write_bytes((FIXTURE / "cache" / name).read_bytes())
    with tf.Graph().as_default():
        # another upstream entirely: the file's elements come back, not these
        ds = tf.data.Dataset.from_tensor_slices(
            {"id": np.array([0], np.int64), "vec": np.zeros((1, 2), np.float32),
             "word": tf.constant([b"x"])}).cache(str(tmp_path / "c"))
        got = program.drain(tf, ds)
    assert [int(e["id"]) for e in got] == [-3, 4, 11, 18, 25]
    assert [bytes(e["word"]) for e in got] == [b"a", b"bb", b"", b"caf\xc3\xa9", b"e" * 40]
    np.testing.assert_array_equal(np.stack([e["vec"] for e in got]),
                                  np.linspace(-1, 1, 10).astype(np.float32).reshape(5, 2))
    assert got[0]["vec"].dtype == np.float32


def test_later_passes_read_the_file_not_the_pipeline(tmp_path):
    calls: list = []
    prefix = str(tmp_path / "c")
    ds = _counting(4, calls).cache(prefix).repeat(3)
    it = tf.data.make_initializable_iterator(ds)
    nxt = it.get_next()
    sess = tf.Session()
    sess.run(it.initializer)
    assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 2, 3] * 3
    assert calls == [0, 1, 2, 3]             # one pass ran the generator
    sess.run(it.initializer)                 # a new iterator reads the file too
    assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 2, 3] * 3
    assert calls == [0, 1, 2, 3]


def test_another_process_reads_the_file(tmp_path):
    prefix = str(tmp_path / "c")
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(
            tf.data.Dataset.range(5).map(lambda x: x * x).cache(prefix)).get_next()
        with tf.Session() as sess:
            assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 4, 9, 16]
    code = textwrap.dedent(f"""
        import scopeflow as tf
        nxt = tf.data.make_one_shot_iterator(
            tf.data.Dataset.range(100).cache({prefix!r})).get_next()
        out = []
        with tf.Session() as sess:
            try:
                while True:
                    out.append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                pass
        print(out)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=str(Path(__file__).resolve().parents[3]))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[0, 1, 4, 9, 16]"


@pytest.mark.parametrize("how", ["reinitialize", "close"])
def test_an_unfinished_pass_leaves_no_cache(tmp_path, how):
    calls: list = []
    prefix = str(tmp_path / "c")
    ds = _counting(5, calls).cache(prefix)
    it = tf.data.make_initializable_iterator(ds)
    nxt = it.get_next()
    sess = tf.Session()
    sess.run(it.initializer)
    assert [int(sess.run(nxt)) for _ in range(2)] == [0, 1]
    assert os.listdir(tmp_path) == ["c_0.lockfile"]
    if how == "reinitialize":
        sess.run(it.initializer)
    else:
        sess.close()
        sess = tf.Session()
        sess.run(it.initializer)
    assert os.listdir(tmp_path) == []
    # the next pass runs the pipeline again, from the start, and writes the cache
    assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 2, 3, 4]
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]


def test_a_concurrent_writer_fails_as_tensorflow(tmp_path):
    prefix = str(tmp_path / "c")
    ds = tf.data.Dataset.range(4).cache(prefix)
    one, two = tf.data.make_initializable_iterator(ds), tf.data.make_initializable_iterator(ds)
    n1, n2 = one.get_next(), two.get_next()
    sess = tf.Session()
    sess.run([one.initializer, two.initializer])
    assert int(sess.run(n1)) == 0
    with pytest.raises(tf.errors.AlreadyExistsError,
                       match=r"There appears to be a concurrent caching iterator running - "
                             r"cache lockfile already exists \('.*c_0\.lockfile'\)\. If you "
                             r"are sure no other running TF computations are using this cache "
                             r"prefix, delete the lockfile and re-initialize the iterator\. "
                             r"Lockfile contents: Created at: \d+"):
        sess.run(n2)
    assert [int(v) for v in _drain(sess, n1)] == [1, 2, 3]   # the first still finishes
    # as TF: the failed writer keeps failing, even once the lock is gone
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
    with pytest.raises(tf.errors.AlreadyExistsError, match="concurrent caching iterator"):
        sess.run(n2)


@pytest.mark.parametrize("stop", [2, 6])   # while writing, while reading
def test_saved_position_resumes(tmp_path, stop):
    prefix = str(tmp_path / "c")
    ds = tf.data.Dataset.range(4).cache(prefix).repeat(2)
    it = tf.data.make_initializable_iterator(ds)
    nxt = it.get_next()
    saveable = tf.data.experimental.make_saveable_from_iterator(it)
    blob = tf.placeholder(tf.string, [])
    restore = saveable.restore(blob)
    sess = tf.Session()
    sess.run(it.initializer)
    first = [int(sess.run(nxt)) for _ in range(stop)]
    saved = sess.run(saveable.tensor)
    rest = [int(v) for v in _drain(sess, nxt)]
    assert first + rest == [0, 1, 2, 3] * 2
    sess2 = tf.Session()
    sess2.run(restore, {blob: saved})
    assert [int(v) for v in _drain(sess2, nxt)] == rest


def test_a_missing_directory_is_tensorflows_error(tmp_path):
    prefix = str(tmp_path / "absent" / "c")
    nxt = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3).cache(prefix)).get_next()
    with pytest.raises(tf.errors.NotFoundError,
                       match=r"absent/c_0\.lockfile; No such file or directory"):
        tf.Session().run(nxt)


def test_filename_fed_at_initialization(tmp_path):
    name = tf.placeholder(tf.string, [])
    it = tf.data.make_initializable_iterator(tf.data.Dataset.range(3).cache(name))
    nxt = it.get_next()
    sess = tf.Session()
    for prefix in ("a", "b"):
        sess.run(it.initializer, {name: str(tmp_path / prefix)})
        assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 2]
    sess.run(it.initializer, {name: ""})          # "": the in-memory cache
    assert [int(v) for v in _drain(sess, nxt)] == [0, 1, 2]
    assert sorted(os.listdir(tmp_path)) == ["a.data-00000-of-00001", "a.index",
                                            "b.data-00000-of-00001", "b.index"]
