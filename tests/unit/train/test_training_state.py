"""Exact resume (scopeflow.train.training_state): random streams, tf.data iterators, the
MNIST DataSet and user objects continue after a restore as an uninterrupted run would."""

from __future__ import annotations

import errno
import logging
import os

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.datasets import mnist
from scopeflow.testing import assert_resume_equivalent
from scopeflow.train import saver as saver_module
from scopeflow.train import training_state as ts


def _resume(build, before, after, tmp_path, training_state=True):
    """Runs ``before`` steps, saves, continues ``after`` steps (the reference); then a new
    graph and session restore and run the ``after`` steps again. Returns both results."""
    tf.reset_default_graph()
    step, extra = build()
    tf.Variable(0.0, name="v")
    saver = tf.train.Saver(training_state=training_state)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(before):
            sess.run(step)
        path = saver.save(sess, str(tmp_path / "ckpt"))
        reference = [sess.run(step) for _ in range(after)]
    tf.reset_default_graph()
    step, extra = build()
    tf.Variable(0.0, name="v")
    saver = tf.train.Saver(training_state=training_state)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)  # the new session's streams move before the restore: it resets them
        saver.restore(sess, path)
        resumed = [sess.run(step) for _ in range(after)]
    return reference, resumed


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flat(item)]
    return [np.asarray(x)]


def _same(a, b):
    a, b = _flat(a), _flat(b)
    return len(a) == len(b) and all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


@pytest.mark.parametrize("graph_seed", [7, None])
def test_random_streams_continue(tmp_path, graph_seed):
    def build():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        x = tf.ones([5, 4])
        return [tf.random_uniform([3]), tf.random_normal([2, 2], seed=3),
                tf.truncated_normal([4]), tf.nn.dropout(x, keep_prob=0.5),
                tf.multinomial(tf.zeros([1, 5]), 4), tf.random_shuffle(tf.range(6))], None

    reference, resumed = _resume(build, 3, 4, tmp_path)
    assert _same(reference, resumed)
    # Without the training state the streams start over (the check above can fail).
    reference, resumed = _resume(build, 3, 4, tmp_path / "plain", training_state=False)
    assert not _same(reference, resumed)


def test_a_stream_that_has_not_run_at_restore_time_takes_its_position(tmp_path):
    tf.set_random_seed(1)
    r = tf.random_uniform([3])
    saver = tf.train.Saver([tf.Variable(0.0, name="v")], training_state=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(r)
        path = saver.save(sess, str(tmp_path / "c"))
        expected = sess.run(r)
    with tf.Session() as sess:  # r never runs before the restore here
        saver.restore(sess, path)
        assert sess.run(r).tobytes() == expected.tobytes()
        # ...and a second save/restore cycle keeps a position not yet taken.
    with tf.Session() as sess:
        saver.restore(sess, path)
        path2 = saver.save(sess, str(tmp_path / "d"))
    with tf.Session() as sess:
        saver.restore(sess, path2)
        assert sess.run(r).tobytes() == expected.tobytes()


def test_candidate_sampler_streams_continue(tmp_path):
    def build():
        tf.set_random_seed(2)
        labels = tf.constant([[1], [3]], tf.int64)
        sampled = tf.nn.log_uniform_candidate_sampler(labels, 1, 4, True, 50)
        return list(sampled), None

    reference, resumed = _resume(build, 5, 6, tmp_path)
    assert _same(reference, resumed)


def test_tf_data_iterators_continue(tmp_path):
    def build():
        tf.set_random_seed(4)
        one_shot = tf.data.Dataset.range(40).shuffle(8).batch(3).make_one_shot_iterator()
        ds = tf.data.Dataset.range(30).map(lambda x: x * 2).shuffle(5, seed=1).repeat()
        switching = tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes)
        init = switching.make_initializer(ds)
        tf.add_to_collection("init", init)
        return [one_shot.get_next(), switching.get_next()], init

    tf.reset_default_graph()
    step, init = build()
    saver = tf.train.Saver([tf.Variable(0, name="v")], training_state=True)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), init])
        for _ in range(4):
            sess.run(step)
        path = saver.save(sess, str(tmp_path / "c"))
        reference = [sess.run(step) for _ in range(5)]
    tf.reset_default_graph()
    step, init = build()
    saver = tf.train.Saver([tf.Variable(0, name="v")], training_state=True)
    with tf.Session() as sess:
        saver.restore(sess, path)  # restores the iterators, initialized or not
        resumed = [sess.run(step) for _ in range(5)]
    assert _same(reference, resumed)


def _images(n, seed=0):
    return np.random.RandomState(seed).randint(0, 255, (n, 28, 28, 1)).astype(np.uint8)


def test_mnist_dataset_position_and_numpy_generator_continue(tmp_path):
    """Across epoch boundaries (TF1's DataSet reshuffles with NumPy's global generator)."""
    def build():
        data = mnist.DataSet(_images(23), np.arange(23, dtype=np.uint8), seed=5)
        tf.train.add_training_state(data, "train")
        return data

    tf.reset_default_graph()
    data = build()
    saver = tf.train.Saver([tf.Variable(0.0, name="v")], training_state=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            data.next_batch(7)
        path = saver.save(sess, str(tmp_path / "c"))
        reference = [data.next_batch(7) for _ in range(9)]
    np.random.seed(123)  # something else moved NumPy's generator meanwhile
    tf.reset_default_graph()
    data = build()
    data.next_batch(4)
    saver = tf.train.Saver([tf.Variable(0.0, name="v")], training_state=True)
    with tf.Session() as sess:
        saver.restore(sess, path)
        resumed = [data.next_batch(7) for _ in range(9)]
    assert _same(reference, resumed)
    assert data.epochs_completed == 4


def test_read_data_sets_registers_its_datasets(mnist_split_dir):
    data = mnist.read_data_sets(str(mnist_split_dir), validation_size=100)
    objects = ts.training_state_objects()
    assert objects == {"mnist/train": data.train, "mnist/validation": data.validation,
                       "mnist/test": data.test}
    # TF1 programs call it again (a second copy, one_hot this time): it raised "already
    # registered"; the second sets join under their own names.
    again = mnist.read_data_sets(str(mnist_split_dir), validation_size=100, one_hot=True)
    objects = ts.training_state_objects()
    assert objects["mnist/train_1"] is again.train and objects["mnist/test_1"] is again.test
    assert objects["mnist/train"] is data.train
    with pytest.raises(ValueError, match="already registered"):  # a user's name stays strict
        tf.train.add_training_state(again.train.__class__(_images(2), np.arange(2, dtype=np.uint8)),
                                    name="mnist/train")


def test_dataset_set_state_rejects_a_wrong_permutation():
    data = mnist.DataSet(_images(5), np.arange(5, dtype=np.uint8), seed=1)
    state = data.get_state()
    state["order"] = np.array([0, 1, 1, 2, 3])
    with pytest.raises(ValueError, match="not a permutation of this DataSet's 5 examples"):
        data.set_state(state)


class _Counter:
    def __init__(self):
        self.n = 0

    def get_state(self):
        return {"n": self.n, "history": np.arange(self.n)}

    def set_state(self, state):
        self.n = int(state["n"])
        assert state["history"].tolist() == list(range(self.n))


def test_user_objects_join_with_get_state_and_set_state(tmp_path):
    counter = _Counter()
    assert tf.train.add_training_state(counter) == "_Counter"
    assert tf.train.add_training_state(counter) == "_Counter"  # once
    assert tf.train.add_training_state(_Counter()) == "_Counter_1"
    with pytest.raises(ValueError, match="already registered"):
        tf.train.add_training_state(_Counter(), name="_Counter")
    with pytest.raises(TypeError, match="get_state\\(\\) and set_state\\(state\\)"):
        tf.train.add_training_state(object())
    saver = tf.train.Saver([tf.Variable(0.0, name="v")], training_state=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        counter.n = 4
        path = saver.save(sess, str(tmp_path / "c"))
        counter.n = 9
        saver.restore(sess, path)
    assert counter.n == 4


def test_the_entry_is_an_ordinary_string_and_optional(tmp_path, caplog):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        plain = tf.train.Saver().save(sess, str(tmp_path / "plain"))
        full = tf.train.Saver(training_state=True).save(sess, str(tmp_path / "full"))
    assert dict(tf.train.list_variables(full)) == {ts.KEY: [], "v": [2]}
    blob = tf.train.load_variable(full, ts.KEY)
    assert isinstance(blob, bytes) and b"scopeflow-training-state/1" in blob
    # A checkpoint without the entry (TF's, a plain Saver's) restores the variables alone.
    saver = tf.train.Saver(training_state=True)
    with tf.Session() as sess, caplog.at_level(logging.INFO, "scopeflow.train"):
        saver.restore(sess, plain)
        assert sess.run(v).tolist() == [1.0, 2.0]
    assert "has no training state" in caplog.text
    # A plain Saver restores a checkpoint with it.
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, full)
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_a_damaged_entry_is_data_loss(tmp_path):
    from scopeflow.io.tensor_bundle import write_bundle

    v = tf.Variable(1.0, name="v")
    prefix = str(tmp_path / "bad")
    write_bundle(prefix, [ts.KEY, "v"], [np.asarray(b"{not json", dtype=object),
                                          np.float32(2.0)])
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError,
                                             match="training state .* is damaged"):
        tf.train.Saver([v], training_state=True).restore(sess, prefix)


def _npy_declaring(count: int) -> str:
    """A ``.npy`` file of three float32s whose header declares ``count`` elements."""
    import base64
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False,
                                               "shape": (count,)})
    return base64.b64encode(buf.getvalue() + np.zeros(3, np.float32).tobytes()).decode()


def _hostile_entries():
    """Training-state entries that crashed every restart (RecursionError, MemoryError)."""
    import base64
    import json

    deep = "[" * 100_000 + "]" * 100_000
    wrapped = {"random_streams": {"__dict__": {}}, "iterators": {"__dict__": {}}}

    def doc(objects):
        state = {"__dict__": {**wrapped, "objects": {"__dict__": objects}}}
        return json.dumps({"format": ts.FORMAT, "state": state})

    return {
        "deep": json.dumps({"format": ts.FORMAT, "state": "@"}).replace('"@"', deep),
        "deep-in-object": doc({"x": "@"}).replace('"@"', deep),
        "huge-array": doc({"x": {"__array__": _npy_declaring(10 ** 13)}}),
        "short-array": doc({"x": {"__array__": _npy_declaring(4)}}),
        # a header length of 2: NumPy's header parser meets a cut dict, "{'"
        # (tokenize.TokenError, found by the fuzz harness)
        "npy-header-cut": doc({"x": {"__array__": base64.b64encode(
            (lambda raw: raw[:8] + b"\x02\x00" + raw[10:])(
                base64.b64decode(_npy_declaring(3)))).decode()}}),
        "huge-strings-shape": doc({"x": {"__strings__": [], "shape": [10 ** 13]}}),
        "dict-not-a-dict": doc({"x": {"__dict__": [1, 2]}}),
        "bytes-not-text": doc({"x": {"__bytes__": 5}}),
        "huge-stream-key": json.dumps({"format": ts.FORMAT, "state": {"__dict__": {
            **wrapped, "objects": {"__dict__": {}},
            "random_streams": {"__dict__": {"s": ["0x" + "f" * 40, "0x0"]}}}}}),
    }


@pytest.mark.parametrize("kind", sorted(_hostile_entries()))
def test_a_hostile_entry_is_data_loss_naming_the_checkpoint(tmp_path, kind):
    from scopeflow.io.tensor_bundle import write_bundle

    class Holder:
        def get_state(self):
            return {}

        def set_state(self, state):
            np.asarray(state, dtype=np.float32) + 1  # uses what it is given

    v = tf.Variable(1.0, name="v")
    tf.train.add_training_state(Holder(), name="x")
    prefix = str(tmp_path / "hostile")
    entry = _hostile_entries()[kind].encode()
    write_bundle(prefix, [ts.KEY, "v"], [np.asarray(entry, dtype=object), np.float32(2.0)])
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError) as info:
        tf.train.Saver([v], training_state=True).restore(sess, prefix)
    assert f"Checkpoint {prefix} is damaged" in str(info.value)
    assert "training state" in str(info.value)


def test_a_state_too_deep_to_read_back_is_refused_at_save_time(tmp_path):
    class Deep:
        def get_state(self):
            x = []
            for _ in range(300):
                x = [x]
            return x

        def set_state(self, state):
            pass

    v = tf.Variable(1.0, name="v")
    tf.train.add_training_state(Deep())
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(ValueError, match="at most 200 JSON levels"):
            tf.train.Saver([v], training_state=True).save(sess, str(tmp_path / "deep"))


def test_states_near_the_depth_limit_and_fortran_arrays_round_trip(tmp_path):
    class Nested:
        def __init__(self):
            x = {"a": np.asfortranarray(np.arange(6.0).reshape(2, 3))}
            for _ in range(90):
                x = [x]
            self.value = self.saved = x

        def get_state(self):
            return self.value

        def set_state(self, state):
            self.saved = state

    v = tf.Variable(1.0, name="v")
    obj = Nested()
    tf.train.add_training_state(obj, name="nested")
    saver = tf.train.Saver([v], training_state=True)
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "ok"))
        obj.saved = None
        saver.restore(sess, path)
    inner = obj.saved
    for _ in range(90):
        inner = inner[0]
    assert inner["a"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_a_dict_var_list_gets_the_entry_and_refuses_its_key():
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver({"renamed": v}, training_state=True)
    assert [s.name for s in saver._saveables] == [ts.KEY, "renamed"]
    with pytest.raises(ValueError, match="training state's checkpoint key"):
        tf.train.Saver({ts.KEY: v}, training_state=True)


def test_a_failed_save_is_removed_and_raises_tfs_error(tmp_path, monkeypatch):
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "m")
    with tf.Session() as sess:
        sess.run(v.initializer)
        for step in range(3):
            saver.save(sess, prefix, global_step=step)

        def disk_full(self, filename=None, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device", filename)

        monkeypatch.setattr(saver_module.Saver, "export_meta_graph", disk_full)
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"Failed to save checkpoint .*m-3: No space left on device "
                                 r"\(.*m-3\.meta\)\. The checkpoint was not written"):
            saver.save(sess, prefix, global_step=3)
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint", "m-1.data-00000-of-00001", "m-1.index", "m-1.meta",
        "m-2.data-00000-of-00001", "m-2.index", "m-2.meta"]
    assert saver.last_checkpoints == [prefix + "-1", prefix + "-2"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"


def _small_cnn_with_mnist_like_data():
    tf.set_random_seed(11)
    data = mnist.DataSet(_images(40, seed=3), np.arange(40, dtype=np.uint8) % 10, seed=2)
    tf.train.add_training_state(data, "train")
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.uint8, [None])
    h = tf.layers.conv2d(tf.reshape(x, [-1, 28, 28, 1]), 4, 5, strides=4,
                         activation=tf.nn.relu)
    h = tf.nn.dropout(tf.layers.flatten(h), keep_prob=0.5)
    logits = tf.layers.dense(h, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.cast(y, tf.int32), logits)
    train = tf.train.AdamOptimizer(1e-2).minimize(
        loss, global_step=tf.train.get_or_create_global_step())

    def step(sess):
        images, labels = data.next_batch(16)
        sess.run(train, {x: images, y: labels})

    return step


def test_assert_resume_equivalent_on_a_cnn_with_dropout_and_a_dataset():
    assert_resume_equivalent(_small_cnn_with_mnist_like_data, steps=8, stop_at=[1, 3, 5])


def test_assert_resume_equivalent_reports_what_differs():
    def build():  # Python-side input (a RandomState) that did not join the checkpoint
        rng = np.random.RandomState(0)
        w = tf.Variable(np.zeros(3, np.float32), name="w")
        fed = tf.placeholder(tf.float32, [3])
        update = tf.assign_add(w, fed)
        return lambda sess: sess.run(update, {fed: rng.rand(3).astype(np.float32)})

    with pytest.raises(AssertionError, match=r"training 2 steps, restarting .*\n  w: differs"):
        assert_resume_equivalent(build, steps=4, stop_at=2)
