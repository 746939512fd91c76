"""Partitioned variables: parts, partitioners, lookups and training, and checkpoints as TF's.

``tests/fixtures/tf_partitioned/`` was written by real TensorFlow (``make_fixture.py``): a
checkpoint of three partitioned variables and a plain one, the values of an embedding lookup
and of one training step of each optimizer, and the names TF gave the parts.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io.tensor_bundle import BundleReader, parse_shape_and_slice, slice_key, write_bundle
from scopeflow.state.partitioning import SaveSliceInfo

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "tf_partitioned")
CKPT = os.path.join(FIXTURES, "ckpt", "model")

# The fixture's values (make_fixture.py).
EMB = np.arange(40, dtype=np.float32).reshape(10, 4) / 10.0 - 1.0
MM = np.arange(16, dtype=np.float32).reshape(8, 2) * 0.25
COLS = np.arange(15, dtype=np.float32).reshape(3, 5) - 7.0
BIAS = np.array([0.5, -0.5, 1.5, 2.0], np.float32)
IDS = np.array([[1, 9, 4], [4, 0, 7]], np.int32)


@pytest.fixture(scope="module")
def expected():
    return dict(np.load(os.path.join(FIXTURES, "expected.npz")))


@pytest.fixture(scope="module")
def meta():
    with open(os.path.join(FIXTURES, "meta.json")) as f:
        return json.load(f)


def _mm_initializer(shape, dtype=None, partition_info=None):
    """Each part's rows of ``MM``, from the offset the store passes as ``partition_info``."""
    start = partition_info.var_offset[0]
    return tf.constant(MM[start:start + shape[0]], dtype=dtype)


def _build(strategy="mod"):
    """make_fixture.py's model, line for line."""
    with tf.variable_scope("model", partitioner=tf.fixed_size_partitioner(3)):
        emb = tf.get_variable("emb", initializer=tf.constant(EMB))
    with tf.variable_scope("mm"):
        mm = tf.get_variable("w", [8, 2], initializer=_mm_initializer,
                             partitioner=tf.min_max_variable_partitioner(
                                 max_partitions=4, min_slice_size=16))
    cols = tf.get_variable("cols", initializer=tf.constant(COLS),
                           partitioner=tf.fixed_size_partitioner(2, axis=1))
    bias = tf.get_variable("bias", initializer=tf.constant(BIAS))
    looked = tf.nn.embedding_lookup(emb, IDS, partition_strategy=strategy)
    w = tf.constant(np.linspace(-1.0, 1.0, 4, dtype=np.float32))
    loss = (tf.reduce_sum(tf.square(looked + bias) * w)
            + tf.reduce_sum(tf.matmul(tf.transpose(mm), tf.ones([8, 3])))
            + tf.reduce_sum(tf.convert_to_tensor(cols) ** 2))
    return emb, mm, cols, bias, looked, loss


def _build_shapes(p_emb, p_mm, p_cols):
    """The fixture's four variables (by name and shape) with other partitioners."""
    with tf.variable_scope("model", partitioner=p_emb):
        emb = tf.get_variable("emb", [10, 4])
    with tf.variable_scope("mm"):
        mm = tf.get_variable("w", [8, 2], partitioner=p_mm)
    cols = tf.get_variable("cols", [3, 5], partitioner=p_cols)
    bias = tf.get_variable("bias", [4])
    return emb, mm, cols, bias


def _values(sess, variables):
    return sess.run([tf.convert_to_tensor(v) for v in variables])


# ── names, collections, slice info ──────────────────────────────────────────────────
def test_parts_are_named_and_sliced_as_tf(meta):
    emb, mm, cols, _, _, _ = _build()
    for pv in (emb, mm, cols):
        want = meta["variables"][pv.name]
        assert isinstance(pv, tf.PartitionedVariable)
        assert pv.get_shape().as_list() == want["shape"]
        assert list(pv._get_partitions()) == want["partitions"]
        assert [v.op.name for v in pv] == want["parts"]
        assert [v.op.name for v in pv._get_variable_list()] == want["parts"]
        assert [v.get_shape().as_list() for v in pv] == want["part_shapes"]
        assert [v._save_slice_info.spec for v in pv] == want["specs"]
        assert all(v._save_slice_info.full_name == pv.name for v in pv)
        assert pv.dtype == tf.float32
    assert [v.op.name for v in tf.trainable_variables()] == meta["trainable"]
    assert [v.op.name for v in tf.global_variables()] == meta["trainable"]
    info = list(emb)[1]._save_slice_info
    assert (info.full_shape, info.var_offset, info.var_shape) == ([10, 4], [4, 0], [3, 4])
    assert len(emb) == 3
    whole = tf.convert_to_tensor(emb)  # as TF: each conversion concatenates again
    assert whole.name == "model/emb:0"
    assert whole.op.inputs[0].op.name == "model/emb/ConcatPartitions/concat"


def test_values_assign_and_initializer_partition_info():
    emb, mm, cols, _, _, _ = _build()
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((shape, partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_offset(shape), partition_info.single_slice_dim(shape)))
        return tf.zeros(shape, dtype)

    tf.get_variable("z", [5, 3], initializer=init, partitioner=tf.fixed_size_partitioner(2))
    assert seen == [([3, 3], [5, 3], [0, 0], 0, 0), ([2, 3], [5, 3], [3, 0], 3, 0)]
    assign_emb = emb.assign(np.ones((10, 4), np.float32))  # built before the runs
    add_cols = cols.assign_add(np.ones((3, 5), np.float32))
    emb_value, cols_value = tf.convert_to_tensor(emb), cols.as_tensor()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = _values(sess, [emb, mm, cols])
        np.testing.assert_array_equal(got[0], EMB)
        np.testing.assert_array_equal(got[1], MM)
        np.testing.assert_array_equal(got[2], COLS)
        sess.run([assign_emb, add_cols])
        np.testing.assert_array_equal(sess.run(emb_value), 1.0)
        np.testing.assert_array_equal(sess.run(cols_value), COLS + 1)


def test_scope_partitioner_is_inherited_and_scalars_stay_whole():
    with tf.variable_scope("outer", partitioner=tf.fixed_size_partitioner(2)):
        with tf.variable_scope("inner"):
            v = tf.get_variable("v", [4, 1])
            s = tf.get_variable("s", [])
        assert tf.get_variable_scope().partitioner is not None
    assert [p.op.name for p in v] == ["outer/inner/v/part_0", "outer/inner/v/part_1"]
    assert isinstance(s, tf.Variable) and s.op.name == "outer/inner/s"
    one = tf.get_variable("one", [1, 3], partitioner=tf.fixed_size_partitioner(4))
    assert [p.op.name for p in one] == ["one/part_0"]
    assert tf.convert_to_tensor(one).op.type == "Identity"


def test_partitioners_match_tf():
    shape = tf.TensorShape([10, 4])
    assert tf.fixed_size_partitioner(3)(shape=shape, dtype=tf.float32) == [3, 1]
    assert tf.fixed_size_partitioner(30, axis=1)(shape=shape, dtype=tf.float32) == [1, 4]
    assert tf.variable_axis_size_partitioner(64)(shape=shape, dtype=tf.float32) == [3, 1]
    assert tf.variable_axis_size_partitioner(100, max_shards=2)(
        shape=shape, dtype=tf.string) == [2, 1]
    assert tf.min_max_variable_partitioner(8, axis=1, min_slice_size=64)(
        shape=tf.TensorShape([10, 40]), dtype=tf.float64) == [1, 8]
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2 when shape "
                                         "is only"):
        tf.min_max_variable_partitioner(8, axis=2)(shape=tf.TensorShape([10, 40]),
                                                   dtype=tf.float64)
    with pytest.raises(ValueError, match="Both max_shard_bytes and bytes_per_string_element "
                                         "must be positive"):
        tf.variable_axis_size_partitioner(0)


def test_reuse_returns_the_same_partitioned_variable():
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
        v = tf.get_variable("v", [7, 2])
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("v") is v
        assert tf.get_variable("v", [7, 2], partitioner=tf.fixed_size_partitioner(3)) is v
    with tf.variable_scope("s", reuse=tf.AUTO_REUSE,
                           partitioner=tf.fixed_size_partitioner(3)):
        assert tf.get_variable("v", [7, 2]) is v
    assert len(tf.global_variables()) == 3


# The messages below are TF's, checked with the oracle (tf.get_variable, same calls).
@pytest.mark.parametrize("build, message", [
    (lambda: tf.get_variable("s/v", [7, 2], partitioner=tf.fixed_size_partitioner(3)),
     "Partitioned variable with name s/v already exists. Did you mean to set reuse=True or "
     "reuse=tf.AUTO_REUSE in VarScope?"),
    (lambda: tf.get_variable("s/v", [7, 2]),
     "No partitioner was provided, but a partitioned version of the variable was found: "
     "s/v/part_0. Perhaps a variable of the same name was already created with "
     "partitioning?"),
    (lambda: tf.get_variable("plain", [3], partitioner=tf.fixed_size_partitioner(2)),
     "A partitioner was provided, but an unpartitioned version of the variable was found: "
     "plain.  Perhaps a variable of the same name was already created without "
     "partitioning?"),
    (lambda: tf.get_variable("u", initializer=np.ones((4, 2), np.float32),
                             partitioner=tf.fixed_size_partitioner(2)),
     "Shape of a new partitioned variable must be fully defined, but instead was "
     "<unknown>."),
    (lambda: tf.get_variable("w2", [4, 4], partitioner=lambda shape, dtype: [2, 2]),
     "Can only slice a variable along one dimension: shape: (4, 4), partitioning: [2, 2]"),
    (lambda: tf.get_variable("w3", [4, 4], partitioner=lambda shape, dtype: [2]),
     "Partitioner returned a partition list that does not match the Variable's rank: [2] vs. "
     "(4, 4)"),
    (lambda: tf.get_variable("w4", [4, 4], partitioner=lambda shape, dtype: [0, 1]),
     "Partitioner returned zero partitions for some axes: [0, 1]"),
    (lambda: tf.get_variable("w5", [4, 4], partitioner=3),
     "Partitioner must be callable, but received: 3"),
])
def test_errors_match_tf(build, message):
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
        tf.get_variable("v", [7, 2])
    tf.get_variable("plain", [3])
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value) == message


def test_reuse_errors_match_tf():
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
        v = tf.get_variable("v", [7, 2])
    with tf.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match=r"^Trying to reuse partitioned variable s/v, but "
                                             r"specified partitions \[2, 1\] and found "
                                             r"partitions \[3, 1\]\.$"):
            tf.get_variable("v", [7, 2], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match=r"^Trying to reuse partitioned variable s/v, but "
                                             r"specified shape \(8, 2\) and found shape "
                                             r"\(7, 2\)\.$"):
            tf.get_variable("v", [8, 2])
        with pytest.raises(ValueError, match="^PartitionedVariable s/nope does not exist, or "
                                             "was not created with tf.get_variable"):
            tf.get_variable("nope", [8, 2], partitioner=tf.fixed_size_partitioner(2))
    with pytest.raises(NotImplementedError, match="PartitionedVariable doesn't support being "
                                                  "used as a reference."):
        tf.convert_to_tensor(v, as_ref=True)
    assert len(tf.assign(v, np.zeros((7, 2), np.float32))) == 3  # as TF: one per part
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type "
                                         "'int32' for variable of type 'float32'"):
        tf.convert_to_tensor(v, dtype=tf.int32)


def test_create_partitioned_variables():
    parts = tf.create_partitioned_variables([5, 2], [2, 1], tf.zeros_initializer())
    assert [p.name for p in parts] == ["PartitionedVariable/part_0:0",
                                       "PartitionedVariable/part_1:0"]
    named = tf.create_partitioned_variables([5, 2], [1, 2], np.ones((5, 2), np.float32),
                                            name="named")
    assert [p.name for p in named] == ["named/part_0:0", "named/part_1:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [a.shape for a in sess.run(named)] == [(5, 1), (5, 1)]


# ── embedding lookup and training ───────────────────────────────────────────────────
@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("optimizer", ["sgd", "adagrad"])
def test_lookup_and_training_step_match_tf(expected, strategy, optimizer):
    emb, mm, _, _, looked, loss = _build(strategy)
    opt = (tf.train.GradientDescentOptimizer(0.5) if optimizer == "sgd"
           else tf.train.AdagradOptimizer(0.5))
    grads = opt.compute_gradients(loss, var_list=list(emb))
    assert all(isinstance(g, tf.IndexedSlices) for g, _ in grads)
    train = opt.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_lookup, got_loss = sess.run([looked, loss])
        np.testing.assert_allclose(got_lookup, expected[f"lookup_{strategy}"], rtol=1e-6)
        np.testing.assert_allclose(got_loss, expected[f"loss_{strategy}"], rtol=1e-6)
        sess.run(train)
        got_emb, got_mm = sess.run([emb.as_tensor(), mm.as_tensor()])
    np.testing.assert_allclose(got_emb, expected[f"emb_{strategy}_{optimizer}"],
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got_mm, expected[f"mm_{strategy}_{optimizer}"],
                               rtol=1e-6, atol=1e-6)


# ── checkpoints ─────────────────────────────────────────────────────────────────────
_PARTITIONINGS = {
    "as_tf": lambda: (tf.fixed_size_partitioner(3),
                      tf.min_max_variable_partitioner(4, min_slice_size=16),
                      tf.fixed_size_partitioner(2, axis=1)),
    "other": lambda: (tf.fixed_size_partitioner(4), tf.fixed_size_partitioner(3),
                      tf.fixed_size_partitioner(3, axis=1)),
    "unpartitioned": lambda: (None, None, None),
}


@pytest.mark.parametrize("partitioning", sorted(_PARTITIONINGS))
def test_restores_tf_checkpoint(expected, partitioning):
    variables = _build_shapes(*_PARTITIONINGS[partitioning]())
    with tf.Session() as sess:
        report = tf.train.Saver().restore(sess, CKPT, report=True)
        got = _values(sess, variables)
    assert sorted(report.restored) == ["bias", "cols", "mm/w", "model/emb"]
    for key, value in zip(["emb", "mm/w", "cols", "bias"], got):
        np.testing.assert_array_equal(value, expected[key])


def test_save_is_byte_identical_to_tf(tmp_path):
    _build_shapes(*_PARTITIONINGS["as_tf"]())
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, CKPT)
        path = saver.save(sess, str(tmp_path / "model"), write_meta_graph=False)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(path + suffix, "rb") as ours, open(CKPT + suffix, "rb") as theirs:
            assert ours.read() == theirs.read(), suffix


@pytest.mark.parametrize("save_as, restore_as", [("as_tf", "other"), ("other", "unpartitioned"),
                                                 ("unpartitioned", "as_tf")])
def test_roundtrip_across_partitionings(tmp_path, save_as, restore_as):
    rng = np.random.RandomState(0)
    values = [rng.randn(10, 4), rng.randn(8, 2), rng.randn(3, 5), rng.randn(4)]
    variables = _build_shapes(*_PARTITIONINGS[save_as]())
    assigns = [tf.assign(v, value.astype(np.float32)) if isinstance(v, tf.Variable)
               else v.assign(value.astype(np.float32)) for v, value in zip(variables, values)]
    saver = tf.train.Saver()  # the graph is complete before the first run
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        path = saver.save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    variables = _build_shapes(*_PARTITIONINGS[restore_as]())
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, path)
        got = _values(sess, variables)
    for value, want in zip(got, values):
        np.testing.assert_allclose(value, want.astype(np.float32))
    assert tf.train.list_variables(path) == [("bias", [4]), ("cols", [3, 5]), ("mm/w", [8, 2]),
                                             ("model/emb", [10, 4])]


def test_saver_from_saver_def_reads_slices(expected):
    _build_shapes(*_PARTITIONINGS["other"]())
    saver = tf.train.Saver(saver_def=tf.train.Saver().as_saver_def())
    with tf.Session() as sess:
        saver.restore(sess, CKPT)     # checked against the checkpoint from the restore ops
        parts = sess.run(["model/emb/part_0:0", "model/emb/part_3:0"])
    np.testing.assert_array_equal(parts[0], expected["emb"][:3])
    np.testing.assert_array_equal(parts[1], expected["emb"][8:])


def test_saver_var_lists_with_partitioned_variables(tmp_path, expected):
    emb, mm, cols, bias = _build_shapes(*_PARTITIONINGS["as_tf"]())
    with tf.Session() as sess:
        tf.train.Saver([emb, mm, cols, bias]).restore(sess, CKPT)
        np.testing.assert_array_equal(sess.run(emb.as_tensor()), expected["emb"])
        saver = tf.train.Saver({"renamed": emb, "parts_of_mm": list(mm)})
        path = saver.save(sess, str(tmp_path / "m"))
        assert tf.train.list_variables(path) == [("parts_of_mm", [8, 2]), ("renamed", [10, 4])]
        tf.train.Saver(list(cols)).restore(sess, CKPT)   # parts keyed by their full name
    np.testing.assert_array_equal(tf.train.load_variable(path, "renamed"), expected["emb"])
    with tf.Graph().as_default():
        plain = tf.Variable(1.0, name="a")
        parts = tf.get_variable("a", [4, 1], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="At least two variables have the same name: a"):
            tf.train.Saver([plain] + list(parts))     # the parts sort first ('/' < ':')
    with pytest.raises(ValueError, match="Slices must all be from the same tensor: model/emb "
                                         "!= mm/w"):
        tf.train.Saver({"x": [list(emb)[0], list(mm)[0]]})
    with pytest.raises(ValueError, match="Slices must all be slices"):
        tf.train.Saver({"x": [bias]})


def test_checkpoint_reader_gives_full_tensors(expected):
    assert tf.train.list_variables(CKPT) == [("bias", [4]), ("cols", [3, 5]), ("mm/w", [8, 2]),
                                             ("model/emb", [10, 4])]
    reader = tf.train.NewCheckpointReader(CKPT)
    assert reader.has_tensor("mm/w")
    np.testing.assert_array_equal(reader.get_tensor("cols"), expected["cols"])
    np.testing.assert_array_equal(tf.train.load_variable(CKPT, "model/emb:0"), expected["emb"])
    assert reader.get_variable_to_dtype_map()["model/emb"] == tf.float32
    assert b"model/emb (DT_FLOAT) [10,4]\n" in reader.debug_string()
    with BundleReader(CKPT) as bundle:
        assert bundle.is_sliced("model/emb") and not bundle.is_sliced("bias")
        assert bundle.nbytes("model/emb") == 160     # the sum of its slices' sizes
        np.testing.assert_array_equal(bundle.read("model/emb", "10 4 3,5:1,2"),
                                      expected["emb"][3:8, 1:3])
        np.testing.assert_array_equal(bundle.read("bias", "4 1,2"), expected["bias"][1:3])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"tensor_name = model/emb; "
                           r"shape in shape_and_slice spec \[10,5\] does not match the shape "
                           r"stored in checkpoint: \[10,4\]"):
            bundle.read("model/emb", "10 5 0,2:-")


def test_bundle_slices_and_slice_keys(tmp_path):
    assert parse_shape_and_slice("10 4 4,3:-") == ([10, 4], [(4, 3), (0, -1)])
    assert parse_shape_and_slice("") == (None, None)
    # TF's keys, as its bundle writer made them (the fixture's index).
    assert slice_key("model/emb", [(4, 3), (0, 4)]) == b"\x00model/emb\x00\x01\x01\x02\x84\x83\x80\x84"
    # OrderedCode's longer signed numbers (a part offset of 64 rows and more).
    assert slice_key("v", [(64, 8192), (0, -1)]) == b"\x00v\x00\x01\x01\x02\xc0\x40\xe0\x20\x00\x80\x7f"
    prefix = str(tmp_path / "b")
    full = np.arange(300, dtype=np.int64).reshape(100, 3)
    write_bundle(prefix, ["t", "t", "w"], [full[:70], full[70:], full[:2]],
                 slices=["100 3 0,70:-", "100 3 70,30:-", ""])
    with BundleReader(prefix) as reader:
        assert reader.keys() == ["t", "w"]
        np.testing.assert_array_equal(reader.read("t"), full)
        np.testing.assert_array_equal(reader.read("t", "100 3 60,20:1,2"), full[60:80, 1:3])
    with pytest.raises(ValueError, match="Mixing slices and non-slices with the same name: t"):
        write_bundle(prefix, ["t", "t"], [full, full[:70]], slices=["", "100 3 0,70:-"])
    with pytest.raises(ValueError, match=r"slice '100 3 0,70:-' has shape \[70, 3\], the "
                                         r"value has shape \[60, 3\]"):
        write_bundle(prefix, ["t"], [full[:60]], slices=["100 3 0,70:-"])


# ── live: real TensorFlow restores what scopeflow wrote ─────────────────────────────
def test_tensorflow_restores_scopeflow_checkpoint(tf1, tmp_path):
    rng = np.random.RandomState(1)
    big = rng.randn(200, 3).astype(np.float32)
    with tf.variable_scope("model", partitioner=tf.fixed_size_partitioner(3)):
        tf.get_variable("emb", initializer=tf.constant(EMB))
        tf.get_variable("tall", initializer=tf.constant(big))  # part offsets 67 and 134
    tf.get_variable("cols", initializer=tf.constant(COLS),
                    partitioner=tf.fixed_size_partitioner(2, axis=1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "sf"), write_meta_graph=False)
    got = tf1(f"""
        out = {{}}
        for mode in ("same", "plain"):
            tf.reset_default_graph()
            part = (lambda n, a=0: tf.fixed_size_partitioner(n, axis=a)) if mode == "same" \\
                else (lambda n, a=0: None)
            with tf.variable_scope("model"):
                emb = tf.get_variable("emb", [10, 4], partitioner=part(3))
                tall = tf.get_variable("tall", [200, 3], partitioner=part(3))
            cols = tf.get_variable("cols", [3, 5], partitioner=part(2, 1))
            with tf.Session() as sess:
                tf.train.Saver().restore(sess, {path!r})
                vals = sess.run([tf.convert_to_tensor(v) for v in (emb, tall, cols)])
            out[mode] = [v.tolist() for v in vals]
        out["listed"] = tf.train.list_variables({path!r})
        print(json.dumps(out))
    """)
    for mode in ("same", "plain"):
        np.testing.assert_array_equal(np.array(got[mode][0], np.float32), EMB)
        np.testing.assert_array_equal(np.array(got[mode][1], np.float32), big)
        np.testing.assert_array_equal(np.array(got[mode][2], np.float32), COLS)
    assert [tuple(x) for x in got["listed"]] == [("cols", [3, 5]), ("model/emb", [10, 4]),
                                                 ("model/tall", [200, 3])]


@pytest.mark.parametrize("partitioning", ["other", "unpartitioned"])
def test_init_from_checkpoint_fills_parts(expected, partitioning):
    emb, mm, cols, bias = _build_shapes(*_PARTITIONINGS[partitioning]())
    tf.train.init_from_checkpoint(CKPT, {"model/emb": "model/emb", "mm/w": mm,
                                         "cols": list(cols) if partitioning == "other"
                                         else cols, "bias": "bias"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = _values(sess, [emb, mm, cols, bias])
    for key, value in zip(["emb", "mm/w", "cols", "bias"], got):
        np.testing.assert_array_equal(value, expected[key])


def test_init_from_checkpoint_scope_map_collects_parts(expected):
    with tf.variable_scope("new", partitioner=tf.fixed_size_partitioner(2)):
        emb = tf.get_variable("emb", [10, 4])
    tf.train.init_from_checkpoint(CKPT, {"model/": "new/"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(emb.as_tensor()), expected["emb"])
    with pytest.raises(ValueError, match=r"Shape of partitioned variable new/emb \(\[10, 4\]\) "
                                         r"doesn't match with shape of tensor cols"):
        tf.train.init_from_checkpoint(CKPT, {"cols": "new/emb"})


def test_sharded_save_with_parts_on_two_devices(tmp_path, expected):
    """Parts on two devices go to two shards; the merge joins the full entry's slices."""
    for i, (device, start, stop) in enumerate([("/job:ps/task:0", 0, 6),
                                                ("/job:ps/task:1", 6, 10)]):
        with tf.device(device):
            part = tf.Variable(expected["emb"][start:stop], name=f"model/emb/part_{i}")
        part._save_slice_info = SaveSliceInfo("model/emb", [10, 4], [start, 0],
                                              [stop - start, 4])
    saver = tf.train.Saver(sharded=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
    assert os.path.exists(path + ".data-00001-of-00002")
    np.testing.assert_array_equal(tf.train.load_variable(path, "model/emb"), expected["emb"])
    assert tf.train.list_variables(path) == [("model/emb", [10, 4])]
