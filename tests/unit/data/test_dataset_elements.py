"""Datasets as elements of datasets: ``Dataset.window`` (its windows are datasets), a
``map`` function returning datasets, ``flat_map``/``interleave``/``map`` functions taking
them, and ``Dataset.reduce``; checked on NumPy values and against TF 2.21 (one snippet run
under both)."""

import json

import numpy as np
import pytest

import scopeflow as tf

# One program for both libraries (``tf`` is TF's compat.v1 or scopeflow): each case builds
# a graph of its own and leaves a JSON-able result, or its error's class.
CASES = '''
def _values(ds, n=30):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        for _ in range(n):
            try:
                out.append(tf.nest.map_structure(lambda v: v.tolist(), s.run(nxt)))
            except tf.errors.OutOfRangeError:
                break
    return out

def _reduce(make):
    r = make()
    with tf.Session() as s:
        v = s.run(r)
    flat = tf.nest.flatten(r)
    return [[t.op.type, t.dtype.name, str(t.shape)] for t in flat], \\
        tf.nest.map_structure(lambda a: np.asarray(a).tolist(), v)

R = tf.data.Dataset.range
CASES = {
    "window": lambda: _values(R(5).window(2).flat_map(lambda w: w.batch(2))),
    "window_shift_stride": lambda: _values(
        R(10).window(3, shift=2, stride=2).flat_map(lambda w: w.batch(5))),
    "window_drop": lambda: _values(
        R(10).window(3, 2, 2, drop_remainder=True).flat_map(lambda w: w.batch(5))),
    "window_shift_past": lambda: _values(R(10).window(2, shift=4).flat_map(lambda w: w.batch(5))),
    "window_tuple": lambda: _values(
        tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0])).window(2)
        .flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))),
    "window_dict": lambda: _values(
        tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).window(2)
        .flat_map(lambda d: d["a"].batch(3))),
    "window_size0": lambda: _values(R(3).window(0).flat_map(lambda w: w)),
    "map_batch_flat": lambda: _values(
        R(7).window(3).map(lambda w: w.batch(2)).flat_map(lambda d: d)),
    "nested_window": lambda: _values(
        R(8).window(4).flat_map(lambda w: w.window(2).flat_map(lambda v: v.batch(5)))),
    "window_repeat_prefetch": lambda: _values(
        R(3).repeat(2).window(4, 1).prefetch(2).flat_map(lambda w: w.batch(9))),
    "window_zip": lambda: _values(tf.data.Dataset.zip((R(4).window(2), R(10, 14).window(2)))
                                  .flat_map(lambda a, b: tf.data.Dataset.zip((a, b)))),
    "reduce_in_map": lambda: _values(
        R(4).map(lambda x: R(x).reduce(np.int64(0), lambda a, y: a + y))),
    "window_reduce": lambda: _values(
        R(7).window(3).map(lambda w: w.reduce(np.int64(0), lambda a, x: a + x))),
    "window_specs": lambda: [str(f(tf.data.Dataset.from_tensor_slices(
        ([1, 2], {"a": [1.0, 2.0]})).window(2))) for f in (
        lambda d: d.element_spec, tf.data.get_output_types, tf.data.get_output_shapes,
        tf.data.get_output_classes)],
    "map_dataset_spec": lambda: [str(R(3).map(lambda x: (x, R(x))).element_spec)],
    "map_dataset": lambda: _values(R(3).map(lambda x: R(x)).flat_map(lambda d: d)),
    "map_dataset_tuple": lambda: _values(
        R(4).map(lambda x: (x, R(x))).flat_map(lambda x, d: d.map(lambda y: y * 10 + x))),
    "map_dataset_interleave": lambda: _values(
        R(1, 4).map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
        .interleave(lambda d: d, cycle_length=2)),
    "map_dataset_filter": lambda: _values(
        R(4).map(lambda x: R(x)).filter(lambda d: True).flat_map(lambda d: d)),
    "from_tensors_dataset": lambda: _values(
        tf.data.Dataset.from_tensors(R(3)).repeat(2).flat_map(lambda d: d)),
    "from_tensors_mixed": lambda: _values(
        tf.data.Dataset.from_tensors((np.int64(5), R(3)))
        .flat_map(lambda x, d: d.map(lambda y: y + x))),
    "window_interleave": lambda: _values(
        R(7).window(3).interleave(lambda w: w, cycle_length=2, block_length=2)),
    "reduce": lambda: _reduce(lambda: R(5).reduce(np.int64(0), lambda a, x: a + x)),
    "reduce_tuple": lambda: _reduce(lambda: R(5).reduce(
        (np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1)))),
    "reduce_relaxed": lambda: _reduce(lambda: R(5).reduce(
        tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0))),
    "reduce_dict": lambda: _reduce(lambda: tf.data.Dataset.from_tensor_slices(
        {"a": [1.0, 2.0], "b": [3, 4]}).reduce(
        {"s": 0.0}, lambda st, e: {"s": st["s"] + e["a"] * tf.cast(e["b"], tf.float32)})),
    "reduce_empty": lambda: _reduce(lambda: R(0).reduce(np.int64(7), lambda a, x: a + x)),
    "reduce_dtype": lambda: _reduce(lambda: R(5).reduce(
        np.int64(0), lambda a, x: tf.cast(a, tf.float32))),
}

def run_cases():
    out = {}
    for key, case in CASES.items():
        with tf.Graph().as_default():
            try:
                out[key] = case()
            except Exception as e:
                out[key] = [type(e).__name__, str(e).split(chr(10))[0][:120]]
    return out
'''


def _scopeflow_results():
    scope = {"tf": tf, "np": np}
    exec(CASES, scope)  # noqa: S102 - the shared program above
    return json.loads(json.dumps(scope["run_cases"]()))  # tuples as lists, as TF's JSON


@pytest.fixture(scope="module")
def ours():
    return _scopeflow_results()


def test_window_values(ours):
    assert ours["window"] == [[0, 1], [2, 3], [4]]
    assert ours["window_shift_stride"] == [[0, 2, 4], [2, 4, 6], [4, 6, 8], [6, 8], [8]]
    assert ours["window_drop"] == [[0, 2, 4], [2, 4, 6], [4, 6, 8]]
    assert ours["window_shift_past"] == [[0, 1], [4, 5], [8, 9]]
    assert ours["window_tuple"] == [[[1, 2], [4.0, 5.0]], [[3], [6.0]]]
    assert ours["window_dict"] == [[1, 2], [3]]
    assert ours["window_reduce"] == [3, 12, 6]
    assert ours["map_batch_flat"] == [[0, 1], [2], [3, 4], [5], [6]]
    assert ours["nested_window"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert ours["window_zip"] == [[0, 10], [1, 11], [2, 12], [3, 13]]
    assert ours["reduce_in_map"] == [0, 0, 1, 3]
    assert ours["window_size0"] == ["InvalidArgumentError",
                                    "Window size must be greater than zero."]


def test_window_element_spec():
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [1.0, 2.0])).window(2)
    specs = [s.type_spec() for s in tf.nest.flatten(ds._structure)]
    assert all(isinstance(s, tf.data.DatasetSpec) for s in specs)
    assert [repr(s) for s in specs] == [
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorShape([]))",
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.float32, name=None), TensorShape([]))"]


def test_map_returning_datasets(ours):
    assert ours["map_dataset"] == [0, 0, 1]
    assert ours["map_dataset_tuple"] == [1, 2, 12, 3, 13, 23]
    assert ours["map_dataset_interleave"] == [1, 2, 2, 3, 3, 3]
    assert ours["map_dataset_filter"] == [0, 0, 1, 0, 1, 2]


def test_from_tensors_of_datasets(ours):
    assert ours["from_tensors_dataset"] == [0, 1, 2, 0, 1, 2]
    assert ours["from_tensors_mixed"] == [5, 6, 7]
    assert ours["window_interleave"] == [0, 1, 3, 4, 2, 5, 6]


def test_reduce(ours):
    assert ours["reduce"] == [[["ReduceDataset", "int64", "()"]], 10]
    assert ours["reduce_tuple"][1] == [10, 120]
    assert ours["reduce_relaxed"] == [[["ReduceDataset", "int64", "(?,)"]], [0, 1, 2, 3, 4]]
    assert ours["reduce_dict"][1] == {"s": 11.0}
    assert ours["reduce_empty"][1] == 7
    assert ours["reduce_dtype"] == [
        "TypeError", "The element types for the new state must match the initial state. "
        "Expected <dtype: 'int64'> but got <dtype: 'float32'>."]


def test_window_and_reduce_read_fed_values():
    """Sizes and ranges from placeholders are read when the iterator starts / the reduce
    runs, with that run's feeds."""
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int64, [])
        size = tf.placeholder(tf.int64, [])
        it = tf.data.make_initializable_iterator(
            tf.data.Dataset.range(p).window(size).flat_map(lambda w: w.batch(5)))
        nxt = it.get_next()
        total = tf.data.Dataset.range(p).reduce(np.int64(0), lambda a, x: a + x)
        with tf.Session() as s:
            s.run(it.initializer, {p: 5, size: 3})
            assert [s.run(nxt).tolist(), s.run(nxt).tolist()] == [[0, 1, 2], [3, 4]]
            assert int(s.run(total, {p: 5})) == 10
            assert int(s.run(total, {p: 101})) == 5050


def test_against_tf(tf1, ours):
    theirs = tf1("tf.disable_v2_behavior()\n" + CASES + "\nprint(json.dumps(run_cases()))")
    assert set(theirs) == set(ours)
    for key in theirs:
        if key == "window_size0":  # TF's first line is "Graph execution error:"
            assert ours[key][0] == theirs[key][0]
            continue
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("taken", [1, 2, 4])
def test_saved_position_inside_a_window(tmp_path, taken):
    """A position saved while a window is half read resumes on the same next element (the
    window's values are saved with it)."""
    prefix = str(tmp_path / "m")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(9).window(4, 3).flat_map(lambda w: w.batch(3))
        it = tf.data.make_one_shot_iterator(ds)
        nxt = it.get_next()
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                             tf.data.experimental.make_saveable_from_iterator(it))
        saver = tf.train.Saver()
        with tf.Session() as s:
            head = [s.run(nxt).tolist() for _ in range(taken)]
            saver.save(s, prefix)
            rest = [s.run(nxt).tolist() for _ in range(5 - taken)]
        assert head + rest == [[0, 1, 2], [3], [3, 4, 5], [6], [6, 7, 8]]
        with tf.Session() as s:
            saver.restore(s, prefix)
            assert [s.run(nxt).tolist() for _ in range(5 - taken)] == rest
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(nxt)


GET_NEXT_DATASET = '''
w = tf.data.make_one_shot_iterator(tf.data.Dataset.range(5).window(2)).get_next()
inner = tf.data.make_initializable_iterator(w.batch(5))
nxt = inner.get_next()
out = {"specs": str(tf.data.get_output_types(w)) + str(tf.data.get_output_shapes(w))}
with tf.Session() as s:
    rows = []
    for _ in range(3):
        s.run(inner.initializer)
        rows.append(s.run(nxt).tolist())
    out["rows"] = rows
    try:
        s.run(w)
    except TypeError:
        out["fetch"] = "TypeError"
print(json.dumps(out))
'''


def test_get_next_of_a_dataset_valued_element(tf1, scopeflow_run):
    """``get_next()`` of a window is a dataset: each initializer reads the next window."""
    got = scopeflow_run(GET_NEXT_DATASET)
    assert got["rows"] == [[0, 1], [2, 3], [4]] and got["fetch"] == "TypeError"
    assert got == tf1("tf.disable_v2_behavior()\n" + GET_NEXT_DATASET)
