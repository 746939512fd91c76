"""tf.data.experimental's sampling, CSV, lookup-table and snapshot names against TF 2.21
(``tf1`` fixture): each program below runs unchanged under scopeflow and under TensorFlow
(TF1 mode) and prints its results as JSON; the two must be equal. Element values for fixed
seeds, output shapes/types and error classes/messages are in the results."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.data.pipeline import PhiloxWords

_TF_HEAD = "tf.disable_v2_behavior()\n"


def _run_here(code: str, **env):
    """``code`` run under scopeflow; the JSON its last printed line holds."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(code), {"tf": tf, "np": np, "json": json, **env})
    return json.loads(out.getvalue().strip().splitlines()[-1])


def _compare(tf1, code, **env):
    want = tf1(_TF_HEAD + "".join(f"{k} = {v!r}\n" for k, v in env.items()) +
               textwrap.dedent(code))
    got = _run_here(code, **env)
    assert set(got) == set(want)
    for key in want:
        assert got[key] == want[key], key


_SAMPLING = """
def drain(s, t, n=1000):
    out = []
    for _ in range(n):
        try:
            v = s.run(t)
        except tf.errors.OutOfRangeError:
            break
        out.append(np.asarray(v).tolist() if not isinstance(v, tuple) else
                   [np.asarray(x).tolist() for x in v])
    return out

def run(ds, n=1000):
    g = tf.get_default_graph()
    t = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as s:
        return drain(s, t, n)

R = {}
with tf.Graph().as_default():
    R["rand_repeat"] = run(tf.data.experimental.RandomDataset(seed=5).take(3).repeat(2))
with tf.Graph().as_default():
    tf.set_random_seed(11)
    R["rand_graphseed"] = run(tf.data.experimental.RandomDataset().take(3))
with tf.Graph().as_default():
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 110)], seed=9)
    R["sfd_uniform"] = run(ds)
with tf.Graph().as_default():
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 110)], seed=9,
        stop_on_empty_dataset=True)
    R["sfd_stop"] = run(ds)
with tf.Graph().as_default():
    w = tf.data.Dataset.from_tensor_slices(np.array([[0.9, 0.1], [0.1, 0.9]] * 6, np.float32))
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0, 50), tf.data.Dataset.range(100, 150)], weights=w, seed=4)
    R["sfd_wds"] = run(ds)
with tf.Graph().as_default():
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0, 50), tf.data.Dataset.range(100, 150),
         tf.data.Dataset.range(200, 250)], weights=[0.5, 0.0, 0.5], seed=4)
    R["sfd_zero"] = run(ds, 20)
with tf.Graph().as_default():
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0, 50), tf.data.Dataset.range(100, 150)],
        weights=tf.constant([0.25, 0.75], tf.float64), seed=4)
    R["sfd_wt"] = run(ds, 20)
with tf.Graph().as_default():
    tf.set_random_seed(3)
    ds = tf.data.Dataset.range(200).map(lambda x: (x % 4, x))
    ds = ds.apply(tf.data.experimental.rejection_resample(
        lambda c, x: tf.cast(c, tf.int32), [0.1, 0.2, 0.3, 0.4], seed=13))
    R["rr_est"] = run(ds, 40)
    R["rr_est_shape"] = [str(ds.output_shapes), str(ds.output_types)]
with tf.Graph().as_default():
    ds = tf.data.Dataset.range(200).map(lambda x: tf.cast(x % 4, tf.int32))
    ds = ds.apply(tf.data.experimental.rejection_resample(
        lambda c: c, [0.5, 0.2, 0.2, 0.1], initial_dist=[0.25, 0.25, 0.25, 0.25], seed=13))
    R["rr_init"] = run(ds, 40)
errs = {}
for key, fn in [
    ("empty", lambda: tf.data.experimental.sample_from_datasets([])),
    ("len", lambda: tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(3)] * 2, weights=[1.0])),
    ("dtype", lambda: tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(3)] * 2, weights=tf.constant([1, 2]))),
    ("shape", lambda: tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(3)] * 2, weights=tf.constant([1., 2., 3.]))),
]:
    try:
        fn()
        errs[key] = None
    except Exception as e:
        errs[key] = [type(e).__name__, str(e)]
R["errs"] = errs
print(json.dumps(R))
"""

_TABLES_AND_PADDING = """
def err(f):
    try:
        f()
        return None
    except Exception as e:
        return [type(e).__name__, str(e)]

R = {}
ds = tf.data.Dataset.range(3)
R["np_it"] = err(lambda: ds.as_numpy_iterator())
R["np_cls"] = err(lambda: tf.data.NumpyIterator(ds))
R["model_proto"] = err(lambda: tf.data.experimental.get_model_proto(
    tf.data.make_one_shot_iterator(ds)))
R["shard_hint"] = tf.data.experimental.SHARD_HINT
cases = {
    "pad": (tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2], "b": [[1.5, 2.], [3., 4.]]}), 4, "valid", 6),
    "pad_long": (tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}), 2, "m", 5),
    "pad_unknown": (tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).filter(
        lambda x: True), 5, "valid", 20),
}
for key, (d, n, mask, limit) in cases.items():
    p = d.apply(tf.data.experimental.pad_to_cardinality(n, mask))
    R[key + "_spec"] = {k: [str(v.dtype), str(v.shape)] for k, v in p.element_spec.items()}
    nxt = tf.data.make_one_shot_iterator(p).get_next()
    out = []
    with tf.Session() as s:
        for _ in range(limit):
            try:
                e = s.run(nxt)
            except tf.errors.OutOfRangeError:
                break
            out.append({k: np.asarray(v).tolist() for k, v in sorted(e.items())})
    R[key] = out
R["pad_err"] = err(lambda: tf.data.Dataset.range(3).apply(
    tf.data.experimental.pad_to_cardinality(4)))

with tf.Graph().as_default():
    keys = tf.data.Dataset.range(10)
    vals = tf.data.Dataset.range(10).map(lambda x: tf.strings.as_string(x * 2))
    t1 = tf.data.experimental.table_from_dataset(
        tf.data.Dataset.zip((keys, vals)), default_value="n/a", key_dtype=tf.int64)
    t2 = tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]), num_oov_buckets=3)
    t3 = tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]), vocab_size=2)
    t4 = tf.data.experimental.table_from_dataset(
        tf.data.Dataset.zip((vals, keys.map(lambda x: x * 3))))
    t5 = tf.lookup.StaticHashTable(tf.data.experimental.DatasetInitializer(
        tf.data.Dataset.zip((keys, keys.map(lambda x: tf.cast(x, tf.float32) / 4)))), -1.0)
    q = tf.constant(["a", "c", "zz", "d", "qq", "b"])
    outs = [t1.lookup(tf.constant([0, 3, 9, 12], tf.int64)), t2.lookup(q), t3.lookup(q),
            t4.lookup(tf.constant(["4", "18", "5"])), t5.lookup(tf.constant([1, 7, 11], tf.int64)),
            t1.size(), t2.size(), t3.size()]
    R["table_types"] = [str(o.dtype) for o in outs]
    R["table_shapes"] = [str(o.shape) for o in outs]
    R["init_ops"] = sorted(o.type for o in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS))
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        R["tables"] = [np.asarray(v).tolist() for v in s.run(outs)]
        R["tables"] = [[x.decode() if isinstance(x, bytes) else x for x in v]
                       if isinstance(v, list) else v for v in R["tables"]]
with tf.Graph().as_default():
    R["tbl_errs"] = [
        err(lambda: tf.data.experimental.DatasetInitializer(tf.data.Dataset.range(3))),
        err(lambda: tf.data.experimental.DatasetInitializer(tf.data.Dataset.zip(
            (tf.data.Dataset.range(3), tf.data.Dataset.range(3).batch(2))))),
        err(lambda: tf.data.experimental.table_from_dataset(tf.data.Dataset.zip(
            (tf.data.Dataset.range(3), tf.data.Dataset.range(3).map(tf.strings.as_string))),
            key_dtype=tf.int64)),
        err(lambda: tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.range(3), num_oov_buckets=-1)),
        err(lambda: tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.range(3), vocab_size=0)),
        err(lambda: tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.range(3), key_dtype=tf.float32)),
        err(lambda: tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.range(3), key_dtype=tf.int32)),
    ]
    t = tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["a", "b"]), vocab_size=3)
    with tf.Session() as s:
        e = err(lambda: s.run(tf.tables_initializer()))
        R["vocab_short"] = [e[0], [ln.strip() for ln in e[1].splitlines()
                                   if "contained only" in ln][:1]]
print(json.dumps(R))
"""

_CSV = """
import os
import tempfile

def err(f):
    try:
        f()
        return None
    except Exception as e:
        return [type(e).__name__, str(e).replace(d, "<d>")]

def jsonable(v):
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    a = np.asarray(v)
    if a.dtype == object:
        return [x.decode() for x in a.reshape(-1).tolist()]
    return a.tolist()

def drain(ds, n):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        for _ in range(n):
            try:
                out.append(jsonable(s.run(nxt)))
            except tf.errors.OutOfRangeError:
                break
    return out

def spec(ds):
    def one(x):
        if isinstance(x, dict):
            return [[k, one(v)] for k, v in x.items()]
        if isinstance(x, tuple):
            return [one(v) for v in x]
        return str(x)
    return [one(ds.output_types), one(ds.output_shapes), type(ds.output_types).__name__]

d = tempfile.mkdtemp()
def write(name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p
write("a1.csv", "n,x,name,big,label\\n1,1.5,ab,5000000000,0\\n2,,cd,7,1\\n3,2.25,\\"e,f\\",8,0\\n")
write("a2.csv", "n,x,name,big,label\\n4,3.5,gh,9,1\\n5,4.5,ij,10,0\\n6,1e40,kl,11,1\\n")
write("b.csv", "p;q\\n1;x\\n2;y\\n")
write("h2.csv", "n,y\\n1,2\\n")
write("empty.csv", "")
R = {}
pat = os.path.join(d, "a*.csv")
with tf.Graph().as_default():
    ds = tf.data.experimental.make_csv_dataset(pat, 2, shuffle=False, num_epochs=1)
    R["plain_spec"] = spec(ds)
    R["plain"] = drain(ds, 10)
with tf.Graph().as_default():
    ds = tf.data.experimental.make_csv_dataset(pat, 4, label_name="label", shuffle=True,
                                               shuffle_seed=7, num_epochs=2,
                                               shuffle_buffer_size=3)
    R["shuf_spec"] = spec(ds)
    R["shuf"] = drain(ds, 10)
with tf.Graph().as_default():
    ds = tf.data.experimental.make_csv_dataset(pat, 3, select_columns=["name", "n"],
                                               shuffle=False)
    R["sel_spec"] = spec(ds)
    R["sel"] = drain(ds, 3)
with tf.Graph().as_default():
    ds = tf.data.experimental.make_csv_dataset(
        os.path.join(d, "b.csv"), 5, field_delim=";", column_names=["P", "Q"],
        column_defaults=[tf.int64, "zz"], header=True, shuffle=False, num_epochs=1)
    R["given_spec"] = spec(ds)
    R["given"] = drain(ds, 3)
with tf.Graph().as_default():
    ds = tf.data.experimental.make_csv_dataset(pat, 2, shuffle=False, num_epochs=1,
                                               num_rows_for_inference=1)
    R["infer1_spec"] = spec(ds)
R["errs"] = [
    err(lambda: tf.data.experimental.make_csv_dataset(os.path.join(d, "zz*.csv"), 2)),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, label_name="nope")),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, header=False)),
    err(lambda: tf.data.experimental.make_csv_dataset(
        [os.path.join(d, "a1.csv"), os.path.join(d, "h2.csv")], 2)),
    err(lambda: tf.data.experimental.make_csv_dataset(os.path.join(d, "empty.csv"), 2)),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, column_names=["a", "a", "b", "c", "d"])),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, select_columns=["n", "n"])),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, select_columns=[9])),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, select_columns=["q"])),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, select_columns=["n"],
                                                      column_defaults=[1, 2])),
    err(lambda: tf.data.experimental.make_csv_dataset(pat, 2, compression_type="ZLIB")),
    err(lambda: tf.data.experimental.make_csv_dataset([], 2)),
]
print(json.dumps(R))
"""

_EXAMPLES = """
import os
import tempfile

d = tempfile.mkdtemp()

def err(f):
    try:
        f()
        return None
    except Exception as e:
        return [type(e).__name__, str(e).replace(d, "<d>")]

def jsonable(v):
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in sorted(v.items())}
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    a = np.asarray(v)
    if a.dtype == object:
        return np.vectorize(lambda b: b.decode())(a).tolist() if a.size else a.tolist()
    return a.tolist()

def drain(ds, n):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        for _ in range(n):
            try:
                out.append(jsonable(s.run(nxt)))
            except tf.errors.OutOfRangeError:
                break
    return out

def spec(ds):
    def one(x):
        if isinstance(x, dict):
            return [[k, one(v)] for k, v in x.items()]
        if isinstance(x, tuple):
            return [one(v) for v in x]
        return str(x)
    return [one(ds.output_types), one(ds.output_shapes)]

def example(i):
    f = tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "xy": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
        "word": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"w%d" % i])),
        "seq": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i % 3)))),
    })
    return tf.train.Example(features=f).SerializeToString()

for k in range(2):
    with tf.io.TFRecordWriter(os.path.join(d, "r%d.tfrecord" % k)) as w:
        for i in range(5):
            w.write(example(10 * k + i))
feats = {"id": tf.io.FixedLenFeature([], tf.int64),
         "xy": tf.io.FixedLenFeature([2], tf.float32),
         "word": tf.io.FixedLenFeature([], tf.string, default_value="?"),
         "missing": tf.io.FixedLenFeature([1], tf.int64, default_value=[-7])}
R = {}
pat = os.path.join(d, "r*.tfrecord")
with tf.Graph().as_default():
    ds = tf.data.experimental.make_batched_features_dataset(pat, 3, feats, shuffle=False,
                                                            num_epochs=1)
    R["plain_spec"] = spec(ds)
    R["plain"] = drain(ds, 10)
with tf.Graph().as_default():
    ds = tf.data.experimental.make_batched_features_dataset(
        pat, 4, feats, label_key="id", shuffle=True, shuffle_seed=5, shuffle_buffer_size=4)
    R["shuf_spec"] = spec(ds)
    R["shuf"] = drain(ds, 6)
with tf.Graph().as_default():
    ser = tf.data.Dataset.from_tensor_slices([example(i) for i in range(5)]).batch(2)
    seqf = {"seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "id": tf.io.FixedLenFeature([], tf.int64)}
    ds = ser.apply(tf.data.experimental.parse_example_dataset(seqf))
    R["seq_spec"] = spec(ds)
    R["seq"] = drain(ds, 5)
    R["errs"] = [
        err(lambda: tf.data.experimental.parse_example_dataset(None)),
        err(lambda: tf.data.Dataset.from_tensor_slices([example(1)]).apply(
            tf.data.experimental.parse_example_dataset(feats))),
        err(lambda: tf.data.experimental.make_batched_features_dataset(
            pat, 2, feats, label_key="nope")),
        err(lambda: tf.data.experimental.make_batched_features_dataset(
            pat, 2, feats, reader=tf.TFRecordReader)),
    ]
    bad = ser.apply(tf.data.experimental.parse_example_dataset(
        {"id": tf.io.FixedLenFeature([], tf.float32)}))
    nxt = tf.data.make_one_shot_iterator(bad).get_next()
    with tf.Session() as s:
        e = err(lambda: s.run(nxt))
    R["bad_type"] = e[0]
print(json.dumps(R))
"""

_SNAPSHOT = """
import os
import tempfile

d = tempfile.mkdtemp()

def drain(ds, n=100):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        for _ in range(n):
            try:
                v = s.run(nxt)
                out.append([np.asarray(v[0]).tolist(), v[1].decode()] if isinstance(v, tuple) else np.asarray(v).tolist())
            except tf.errors.OutOfRangeError:
                break
    return out

R = {}
p1 = os.path.join(d, "s1")
base = tf.data.Dataset.range(10).map(lambda x: x * 3)
ds = base.apply(tf.data.experimental.snapshot(p1))
R["spec"] = [str(ds.output_types), str(ds.output_shapes)]
R["first"] = drain(ds)
R["again"] = drain(ds)
R["rep"] = drain(ds.repeat(2))
R["files"] = sorted(os.listdir(p1)) != []
R["shard"] = drain(tf.data.Dataset.range(10).apply(tf.data.experimental.snapshot(
    os.path.join(d, "s2"), shard_func=lambda x: x % 3)).repeat(2))
R["partial"] = drain(tf.data.Dataset.range(6).apply(tf.data.experimental.snapshot(
    os.path.join(d, "s3"))).take(3))
R["after_partial"] = drain(tf.data.Dataset.range(6).apply(tf.data.experimental.snapshot(
    os.path.join(d, "s3"))))
R["tuple"] = drain(tf.data.Dataset.range(4).map(lambda x: (x, tf.strings.as_string(x))).apply(
    tf.data.experimental.snapshot(os.path.join(d, "s4"), compression=None)).repeat(2))
try:
    tf.data.Dataset.range(3).apply(tf.data.experimental.snapshot(
        os.path.join(d, "s6"), shard_func=lambda x: tf.cast(x, tf.float32)))
    R["bad_shard"] = None
except Exception as e:
    R["bad_shard"] = [type(e).__name__, str(e)]
print(json.dumps(R))
"""


def test_random_dataset_is_the_philox_stream_of_its_seeds():
    """TF's values for seed 42 (graph seed unset: 87654321) are the Philox uint32 words."""
    ds = tf.data.experimental.RandomDataset(seed=42)
    assert ds.output_types == tf.int64 and ds.output_shapes.as_list() == []
    nxt = ds.take(6).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        got = [int(s.run(nxt)) for _ in range(6)]
    assert got == [2985944072, 4132877644, 929418493, 249609589, 146598941, 4149265688]
    gen = PhiloxWords(87654321, 42)
    assert got == [gen.next() for _ in range(6)]
    with pytest.raises(TypeError, match="rerandomize_each_iteration"):
        tf.data.experimental.RandomDataset(seed=1, rerandomize_each_iteration=True)


def test_sample_from_datasets_choice_sequence_without_tf():
    """The choices TF 2.21 makes for these seeds (graph seed 7, op seed 3)."""
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        ds = tf.data.experimental.sample_from_datasets(
            [tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200),
             tf.data.Dataset.range(200, 300)], weights=[0.2, 0.3, 0.5], seed=3)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as s:
            got = [int(s.run(nxt)) for _ in range(12)]
    assert got == [200, 0, 201, 202, 203, 204, 205, 206, 100, 207, 1, 2]


def test_sampling_matches_tf(tf1):
    _compare(tf1, _SAMPLING)


def test_tables_padding_and_eager_only_names_match_tf(tf1):
    _compare(tf1, _TABLES_AND_PADDING)


def test_dataset_initializer_fills_a_table_without_tf():
    """Keys and values of a dataset (strings as bytes scalars), TF's values per key."""
    with tf.Graph().as_default():
        keys = tf.data.Dataset.from_tensor_slices(["x", "y", "z"])
        table = tf.data.experimental.index_table_from_dataset(keys, num_oov_buckets=2)
        out = table.lookup(tf.constant(["z", "x", "w"]))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            got = s.run(out).tolist()
    assert got[:2] == [2, 0] and got[2] in (3, 4)


def test_make_csv_dataset_matches_tf(tf1):
    """Header and type inference, shuffled files and rows (seeded), batching, labels,
    selected and given columns, and TF's errors."""
    _compare(tf1, _CSV)


def test_make_csv_dataset_infers_types_without_tf(tmp_path):
    (tmp_path / "a.csv").write_text("i,f,s\n1,2.5,x\n3,,y\n")
    ds = tf.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), 2, label_name="i",
                                               shuffle=False, num_epochs=1)
    features, label = ds.output_types
    assert list(features) == ["f", "s"] and label == tf.int32
    assert features["f"] == tf.float32 and features["s"] == tf.string
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        f, lab = s.run(nxt)
    assert lab.tolist() == [1, 3] and f["f"].tolist() == [2.5, 0.0]


def test_parsed_example_datasets_match_tf(tf1):
    """make_batched_features_dataset (files, seeded shuffles, labels, static batch shapes)
    and parse_example_dataset (sequence features, errors) as TF's."""
    _compare(tf1, _EXAMPLES)


def test_batching_keeps_trailing_nul_bytes():
    """A batch of strings keeps each string whole (a serialized Example may end in NULs)."""
    ds = tf.data.Dataset.from_tensor_slices([b"a\x00", b"b"]).batch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert s.run(nxt).tolist() == [b"a\x00", b"b"]


def test_parse_example_dataset_refuses_sparse_features():
    ds = tf.data.Dataset.from_tensor_slices([b""]).batch(1)
    with pytest.raises(NotImplementedError, match="VarLenFeature"):
        ds.apply(tf.data.experimental.parse_example_dataset(
            {"v": tf.io.VarLenFeature(tf.int64)}))


def test_snapshot_iterates_as_tf(tf1):
    """Writing pass, reading passes (repeat, a new graph), sharded read order, a partial
    pass that finalizes nothing, tuples, and TF's shard_func error."""
    _compare(tf1, _SNAPSHOT)


def test_snapshot_reads_back_without_recomputing(tmp_path):
    """The second pass reads the files: the input (a generator) runs only once; another
    input under the same path gets a run of its own."""
    calls = []

    def gen():
        calls.append(1)
        yield from range(5)

    path = str(tmp_path / "snap")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int64, []).apply(
            tf.data.experimental.snapshot(path, compression="GZIP")).repeat(3)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as s:
            got = [int(s.run(nxt)) for _ in range(15)]
    assert got == list(range(5)) * 3 and len(calls) == 1
    runs = [p for p in (tmp_path / "snap").iterdir() if ".tmp-" not in p.name]
    assert len(runs) == 1 and (runs[0] / "snapshot.metadata").exists()
    with tf.Graph().as_default():
        other = tf.data.Dataset.range(7, 9).apply(tf.data.experimental.snapshot(path))
        nxt = other.make_one_shot_iterator().get_next()
        with tf.Session() as s:
            assert [int(s.run(nxt)) for _ in range(2)] == [7, 8]
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(nxt)  # the end of the pass finalizes its run
    assert len([p for p in (tmp_path / "snap").iterdir() if ".tmp-" not in p.name]) == 2
    with pytest.raises(NotImplementedError, match="reader_func"):
        tf.data.Dataset.range(3).apply(tf.data.experimental.snapshot(
            path, reader_func=lambda d: d))
