"""tf.TypeSpec and its family (TensorSpec, SparseTensorSpec, RaggedTensorSpec,
IndexedSlicesSpec, NoneTensorSpec, TensorArraySpec, OptionalSpec, DatasetSpec),
type_spec_from_value, tf.data.experimental's Structure aliases and Optional, and
tf.layers.InputSpec: checks of their own, then one program run under scopeflow and under
TF 2.21 (tf.compat.v1) whose results must agree."""

from __future__ import annotations

import inspect
import pickle
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ── without TensorFlow ────────────────────────────────────────────────────────────────
def test_tensor_spec_basics():
    s = tf.TensorSpec([None, 3], tf.int32, name="x")
    assert (s.shape.as_list(), s.dtype, s.name, s.value_type) == ([None, 3], tf.int32, "x",
                                                                   tf.Tensor)
    assert repr(s) == "TensorSpec(shape=(?, 3), dtype=tf.int32, name='x')"
    assert s == tf.TensorSpec([None, 3], tf.int32, "x") != tf.TensorSpec([None, 3], tf.int32)
    assert hash(s) == hash(tf.TensorSpec([None, 3], tf.int32))  # the name is not hashed
    assert pickle.loads(pickle.dumps(s)) == s
    assert s.is_compatible_with(tf.TensorSpec([2, 3], tf.int32))
    assert not s.is_compatible_with(tf.TensorSpec([2, 4], tf.int32))
    assert not s.is_compatible_with(np.zeros((2, 3), np.int32))  # as TF: arrays are not
    assert s.is_compatible_with(tf.placeholder(tf.int32, [5, 3]))
    assert tf.TensorSpec([2, 3]).is_subtype_of(tf.TensorSpec([None, 3]))
    assert not tf.TensorSpec([None, 3]).is_subtype_of(tf.TensorSpec([2, 3]))


def test_most_specific_compatible_type_and_errors():
    a, b = tf.TensorSpec([None, 3]), tf.TensorSpec([2, 3])
    assert a.most_specific_compatible_type(b) == a
    assert b.most_specific_compatible_type(tf.TensorSpec([2])) == tf.TensorSpec(None)
    with pytest.raises(ValueError, match="No TypeSpec is compatible with both"):
        a.most_specific_compatible_type(tf.TensorSpec([2, 3], tf.int32))
    assert a.most_specific_common_supertype([tf.SparseTensorSpec([2, 3])]) is None
    with pytest.raises(TypeError, match="Can't instantiate abstract class TypeSpec"):
        tf.TypeSpec()


def test_type_spec_from_value_kinds():
    assert tf.type_spec_from_value(np.zeros((2, 3))) == tf.TensorSpec([2, 3], tf.float64)
    assert tf.type_spec_from_value(3.0) == tf.TensorSpec([], tf.float32)
    assert tf.type_spec_from_value(None) == tf.NoneTensorSpec()
    st = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    assert tf.type_spec_from_value(st) == tf.SparseTensorSpec([3, 4])
    rt = tf.ragged.constant([[1], [2, 3]])
    assert tf.type_spec_from_value(rt) == tf.RaggedTensorSpec([2, None], tf.int32, 1)
    # a list of same-spec values is that spec batched (no op built)
    parts = [tf.constant([1]), tf.constant([2, 3])]
    n = len(tf.get_default_graph().get_operations())
    spec = tf.type_spec_from_value(parts)
    assert spec == tf.TensorSpec([2, None], tf.int32)
    assert len(tf.get_default_graph().get_operations()) == n
    with pytest.raises(TypeError, match="Could not build a TypeSpec for"):
        tf.type_spec_from_value([[1, 2], [3]])


def test_components_round_trip():
    st = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    spec = tf.SparseTensorSpec([None, 4])
    back = spec._from_components(spec._to_components(st))
    assert isinstance(back, tf.SparseTensor) and back.shape.as_list() == [3, 4]
    value = spec._from_components([np.zeros((1, 2), np.int64), np.ones(1, np.float32),
                                   np.array([3, 4])])
    assert isinstance(value, tf.SparseTensorValue)
    rt = tf.ragged.constant([[1.0], [2.0, 3.0]])
    rspec = tf.RaggedTensorSpec([2, None])
    rebuilt = rspec._from_components(rspec._to_components(rt))
    with tf.Session() as sess:
        assert sess.run(rebuilt).to_list() == [[1.0], [2.0, 3.0]]
    ta = tf.TensorArray(tf.float32, 2).write(0, 1.0).write(1, 2.0)
    tspec = tf.type_spec_from_value(ta)
    again = tspec._from_components(tspec._to_components(ta))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(again.stack()), [1.0, 2.0])
    ispec = tf.IndexedSlicesSpec([5, 3], dense_shape_dtype=tf.int64)
    parts = ispec._from_components([np.ones((2, 3)), np.array([0, 4]), np.array([5, 3])])
    assert isinstance(parts, tf.IndexedSlicesValue)


def test_signatures_are_tfs():
    """The constructors take TF's arguments (tf_compat_v1.tsv)."""
    expect = {
        tf.TensorSpec: "(shape, dtype=tf.float32, name=None)",
        tf.SparseTensorSpec: "(shape=None, dtype=tf.float32)",
        tf.RaggedTensorSpec: "(shape=None, dtype=tf.float32, ragged_rank=None, "
                             "row_splits_dtype=tf.int64, flat_values_spec=None)",
        tf.IndexedSlicesSpec: "(shape=None, dtype=tf.float32, indices_dtype=tf.int64, "
                              "dense_shape_dtype=None, indices_shape=None)",
        tf.TensorArraySpec: "(element_shape=None, dtype=tf.float32, dynamic_size=False, "
                            "infer_shape=True)",
        tf.OptionalSpec: "(element_spec)",
        tf.data.DatasetSpec: "(element_spec, dataset_shape=())",
        tf.data.experimental.TensorArrayStructure:
            "(dtype, element_shape, dynamic_size, infer_shape)",
        tf.layers.InputSpec: "(dtype=None, shape=None, ndim=None, max_ndim=None, "
                             "min_ndim=None, axes=None, allow_last_axis_squeeze=False, "
                             "name=None, optional=False)",
    }
    for obj, sig in expect.items():
        assert str(inspect.signature(obj)).replace("<dtype: 'float32'>", "tf.float32") \
            .replace("<dtype: 'int64'>", "tf.int64") == sig, obj


def test_optional_runs_and_empty_raises():
    opt = tf.data.experimental.Optional.from_value((tf.constant([1.0, 2.0]), {"a": 3}))
    empty = tf.data.experimental.Optional.empty(tf.TensorSpec([None], tf.int32))
    with tf.Session() as sess:
        has, (vec, d) = sess.run([opt.has_value(), opt.get_value()])
        assert has and d["a"] == 3
        np.testing.assert_array_equal(vec, [1.0, 2.0])
        assert not sess.run(empty.has_value())
        with pytest.raises(errors.InvalidArgumentError,
                           match="The given optional does not have a value."):
            sess.run(empty.get_value())
    with pytest.raises(ValueError, match="Toutput_types"):
        tf.data.experimental.Optional.from_value(())


def test_optional_gradient_passes_through():
    x = tf.constant([1.0, 2.0])
    y = tf.data.experimental.Optional.from_value(x).get_value() * 3.0
    (g,) = tf.gradients(y, [x])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [3.0, 3.0])


def test_get_next_as_optional_ends_empty():
    ds = tf.data.Dataset.range(2)
    it = tf.data.make_initializable_iterator(ds)
    opt = tf.data.experimental.get_next_as_optional(it)
    has, value = opt.has_value(), opt.get_value()
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert [sess.run([has, value]) for _ in range(2)] == [[True, 0], [True, 1]]
        assert not sess.run(has)
    it2 = tf.data.make_initializable_iterator(ds)
    with tf.Session() as sess, pytest.raises(errors.FailedPreconditionError):
        sess.run(it2.get_next_as_optional().has_value())


# ── against TensorFlow ────────────────────────────────────────────────────────────────
# One program, run by both: it returns a dict of strings, bools and error descriptions.
_PROGRAM = textwrap.dedent('''
def collect(tf, np):
    out = {}
    E = tf.data.experimental

    def rec(key, fn, exact=True):
        try:
            out[key] = repr(fn())
        except Exception as e:  # noqa: BLE001
            out[key] = "ERR " + type(e).__name__ + (" " + str(e) if exact else "")

    specs = {
        "t": lambda: tf.TensorSpec([None, 3]), "t_named": lambda: tf.TensorSpec([2], tf.int32, "x"),
        "t_unknown": lambda: tf.TensorSpec(None), "t_scalar": lambda: tf.TensorSpec([]),
        "t_np": lambda: tf.TensorSpec([2], np.int32), "t_str": lambda: tf.TensorSpec([2], "int32"),
        "t_bad_dtype": lambda: tf.TensorSpec([2], "foo"),
        "sp": lambda: tf.SparseTensorSpec([None, 3]), "sp0": lambda: tf.SparseTensorSpec(),
        "r": lambda: tf.RaggedTensorSpec([2, None]),
        "r3": lambda: tf.RaggedTensorSpec([2, None, 3], ragged_rank=1),
        "r_nn": lambda: tf.RaggedTensorSpec([2, None, None]),
        "r_i32": lambda: tf.RaggedTensorSpec([2, None], tf.int32, row_splits_dtype=tf.int32),
        "r_rr0": lambda: tf.RaggedTensorSpec([2, None], ragged_rank=0),
        "r_rr2": lambda: tf.RaggedTensorSpec([2, None], ragged_rank=2),
        "r_none": lambda: tf.RaggedTensorSpec(),
        "r_unknown": lambda: tf.RaggedTensorSpec(ragged_rank=1),
        "r_str_rr": lambda: tf.RaggedTensorSpec([2, None], ragged_rank="1"),
        "r_fvs": lambda: tf.RaggedTensorSpec(
            flat_values_spec=tf.TensorSpec([None, 3], tf.int32), ragged_rank=1),
        "i": lambda: tf.IndexedSlicesSpec([None, 3]), "i0": lambda: tf.IndexedSlicesSpec(),
        "i_full": lambda: tf.IndexedSlicesSpec([5, 3], tf.int32, tf.int32, tf.int64, [None]),
        "i_bad": lambda: tf.IndexedSlicesSpec([5, 3], indices_shape=[2, 2]),
        "none": lambda: tf.NoneTensorSpec(),
        "ta": lambda: tf.TensorArraySpec([3]), "ta0": lambda: tf.TensorArraySpec(),
        "ta_full": lambda: tf.TensorArraySpec([3], tf.int32, True, False),
        "opt": lambda: tf.OptionalSpec(tf.TensorSpec([3])),
        "opt_nest": lambda: tf.OptionalSpec(
            (tf.TensorSpec([3]), {"a": tf.TensorSpec([], tf.int32)})),
        "ds": lambda: tf.data.DatasetSpec(tf.TensorSpec([3])),
        "ds5": lambda: tf.data.DatasetSpec(tf.TensorSpec([3]), [5]),
        "S_t": lambda: E.TensorStructure(tf.int32, [3]),
        "S_sp": lambda: E.SparseTensorStructure(tf.int32, [3]),
        "S_r": lambda: E.RaggedTensorStructure(tf.int32, [3, None], 1),
        "S_ta": lambda: E.TensorArrayStructure(tf.int32, [3], True, False),
        "S_ds": lambda: E.DatasetStructure(tf.TensorSpec([3])),
        "S_opt": lambda: E.OptionalStructure(tf.TensorSpec([3])),
        "S_is_typespec": lambda: E.Structure is tf.TypeSpec,
        "in_dtype": lambda: tf.layers.InputSpec(dtype="float32", shape=(None, 3)),
        "in_ndim": lambda: tf.layers.InputSpec(ndim=2), "in_none": lambda: tf.layers.InputSpec(),
        "in_axes": lambda: tf.layers.InputSpec(min_ndim=2, axes={-1: 3}),
        "in_max": lambda: tf.layers.InputSpec(max_ndim=4, min_ndim=2),
        "in_bad_axis": lambda: tf.layers.InputSpec(ndim=2, axes={3: 1}),
        "in_bad_axes": lambda: tf.layers.InputSpec(axes={"a": 1}),
    }
    for key, fn in specs.items():
        rec(key, fn)

    a, b = tf.TensorSpec([None, 3]), tf.TensorSpec([2, 3])
    c, d = tf.TensorSpec([2, 3], tf.int32), tf.TensorSpec([2, 3], name="x")
    S, R = tf.SparseTensorSpec([None, 4]), tf.RaggedTensorSpec([2, None])
    T, I = tf.TensorArraySpec([3]), tf.IndexedSlicesSpec([None, 3])
    O, D = tf.OptionalSpec(tf.TensorSpec([3])), tf.data.DatasetSpec({"a": tf.TensorSpec([3])})
    pairs = {
        "ab": (a, b), "ba": (b, a), "ac": (a, c), "bd": (b, d), "dd": (d, d),
        "b_rank": (b, tf.TensorSpec([2])), "a_sp": (a, tf.SparseTensorSpec([2, 3])),
        "S_34": (S, tf.SparseTensorSpec([3, 4])), "S_3": (S, tf.SparseTensorSpec([3])),
        "S_int": (S, tf.SparseTensorSpec([3, 4], tf.int32)),
        "R_3": (R, tf.RaggedTensorSpec([3, None])), "R_nn": (R, tf.RaggedTensorSpec([None, None])),
        "R_rr0": (tf.RaggedTensorSpec([2, 3], ragged_rank=0), tf.TensorSpec([2, 3])),
        "T_4": (T, tf.TensorArraySpec([4])), "T_n": (T, tf.TensorArraySpec([None])),
        "T_dyn": (T, tf.TensorArraySpec([3], dynamic_size=True)),
        "T_inf": (T, tf.TensorArraySpec([3], infer_shape=False)), "T_t": (T, tf.TensorSpec([3])),
        "I_5": (I, tf.IndexedSlicesSpec([5, 3], indices_shape=[4])),
        "I_dt": (I, tf.IndexedSlicesSpec([5, 3], tf.int32)),
        "N_N": (tf.NoneTensorSpec(), tf.NoneTensorSpec()),
        "O_n": (O, tf.OptionalSpec(tf.TensorSpec([None]))),
        "O_4": (O, tf.OptionalSpec(tf.TensorSpec([4]))),
        "O_int": (O, tf.OptionalSpec(tf.TensorSpec([3], tf.int32))),
        "D_n": (D, tf.data.DatasetSpec({"a": tf.TensorSpec([None])})),
        "D_b": (D, tf.data.DatasetSpec({"b": tf.TensorSpec([4])})),
        "D_4": (D, tf.data.DatasetSpec({"a": tf.TensorSpec([4])})),
    }
    for key, (x, y) in pairs.items():
        rec(key + ".compat", lambda: x.is_compatible_with(y))
        rec(key + ".subtype", lambda: x.is_subtype_of(y))
        rec(key + ".eq", lambda: (x == y, x != y, hash(x) == hash(y) if x == y else None))
        rec(key + ".msct", lambda: x.most_specific_compatible_type(y))
        rec(key + ".mscs", lambda: x.most_specific_common_supertype([y]))

    st = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    rt = tf.ragged.constant([[1.0], [2.0, 3.0]])
    rec("S_val", lambda: S.is_compatible_with(st))
    rec("R_val", lambda: R.is_compatible_with(rt))
    rec("a_tensor", lambda: a.is_compatible_with(tf.constant([[1.0, 2, 3]])))
    rec("a_array", lambda: a.is_compatible_with(np.zeros((1, 3), np.float32)))
    rec("a_list", lambda: a.is_compatible_with([[1.0, 2, 3]]))
    rec("a_var", lambda: tf.TensorSpec([2]).is_compatible_with(tf.Variable([1.0, 2.0])))
    rec("T_ta", lambda: T.is_compatible_with(tf.TensorArray(tf.float32, 2, element_shape=[3])))
    rec("D_ds", lambda: D.is_compatible_with(tf.data.Dataset.from_tensors({"a": [1.0, 2, 3]})))
    rec("N_none", lambda: tf.NoneTensorSpec().is_compatible_with(None))
    rec("from_tensor", lambda: tf.TensorSpec.from_tensor(tf.constant([1, 2], name="foo")))
    rec("from_tensor_named",
        lambda: tf.TensorSpec.from_tensor(tf.constant([1, 2], name="foo"), name="bar"))
    rec("from_tensor_bad", lambda: tf.TensorSpec.from_tensor(np.zeros(3)), exact=False)
    rec("from_spec", lambda: tf.TensorSpec.from_spec(d))
    rec("from_spec_named", lambda: tf.TensorSpec.from_spec(d, name="y"))
    rec("from_spec_sparse", lambda: tf.TensorSpec.from_spec(tf.SparseTensorSpec([2])))
    rec("sp_from_value", lambda: tf.SparseTensorSpec.from_value(st))
    rec("sp_from_value_v",
        lambda: tf.SparseTensorSpec.from_value(tf.SparseTensorValue([[0]], [1], [3])))
    rec("r_from_value", lambda: tf.RaggedTensorSpec.from_value(rt))
    rec("value_types", lambda: [s.value_type.__name__ for s in (
        a, S, R, T, I, tf.NoneTensorSpec(), tf.RaggedTensorSpec([2, 3], ragged_rank=0))])
    rec("serialize", lambda: (a._serialize(), S._serialize(), T._serialize(), I._serialize()))
    rec("components", lambda: (a._component_specs, S._component_specs, R._component_specs,
                               I._component_specs, T._component_specs,
                               tf.NoneTensorSpec()._component_specs, O._component_specs,
                               tf.RaggedTensorSpec([2, None, 3], ragged_rank=1)._component_specs,
                               tf.RaggedTensorSpec([2, None, None])._component_specs,
                               tf.IndexedSlicesSpec([5, 3], dense_shape_dtype=tf.int32
                                                    )._component_specs))
    rec("sp_from_arrays", lambda: S._from_components(
        [np.zeros((1, 2), np.int64), np.ones(1, np.float32), np.array([3, 4])]))
    rec("r_from_arrays", lambda: R._from_components(
        [np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 1, 3])]))
    rec("legacy", lambda: (T._to_legacy_output_types(), S._to_legacy_output_shapes(),
                           a._to_legacy_output_classes().__name__))
    rec("dict_keys", lambda: sorted({a: 1, tf.TensorSpec([None, 3], name="n"): 2}.values()))

    g = tf.get_default_graph()
    values = {
        "nd": np.zeros((2, 3)), "nd_i32": np.zeros((2,), np.int32), "int": 3, "float": 3.0,
        "str": "a", "bytes": b"a", "bool": True, "list": [1, 2], "ragged_list": [[1, 2], [3]],
        "np_scalar": np.int64(3), "tensor": tf.constant([1, 2]),
        "placeholder": tf.placeholder(tf.float32, [None, 2]), "sparse": st,
        "sparse_ph": tf.sparse_placeholder(tf.float32), "ragged": rt,
        "islices": tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([3, 1])),
        "islices_nodense": tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])),
        "none": None, "dataset": tf.data.Dataset.range(3),
        "ta": tf.TensorArray(tf.float32, 3), "ta_shape": tf.TensorArray(tf.float32, 3,
                                                                         element_shape=[2]),
        "tuple": (1, 2), "dict": {"a": 1}, "sparse_value": tf.SparseTensorValue([[0]], [1.0], [3]),
        "ragged_value": tf.ragged.constant_value([[1], [2, 3]]),
        "tensors_list": [tf.constant([1]), tf.constant([2, 3])],
        "arrays_list": [np.zeros(2), np.zeros(2)], "dtype": tf.float32,
        "optional": E.Optional.from_value(5),
    }
    for key, v in values.items():
        n = len(g.get_operations())
        rec("from_value." + key, lambda: tf.type_spec_from_value(v),
            exact=key not in ("dtype", "dict", "ragged_list"))
        out["from_value_ops." + key] = [op.type for op in g.get_operations()[n:]]
    out["element_spec"] = repr(tf.data.Dataset.from_tensor_slices(
        ({"x": np.zeros((2, 3), np.float32)}, np.arange(2))).element_spec)
    return out
''')


def _optional_program():
    return textwrap.dedent('''
    def optional_ops(tf, np):
        Opt = tf.data.experimental.Optional
        out, runs = {}, {}
        o = Opt.from_value(42)
        o2 = Opt.from_value((tf.constant([1.0, 2.0]), {"a": tf.constant("s"), "b": np.int64(3)}))
        e = Opt.empty(tf.TensorSpec([None, 3], tf.int32))
        ds = tf.data.Dataset.from_tensor_slices((np.arange(2), np.array([[1.0, 2], [3, 4]])))
        it = tf.data.make_initializable_iterator(ds)
        io = tf.data.experimental.get_next_as_optional(it)
        io2 = it.get_next_as_optional()
        fetch = {"o": [o.has_value(), o.get_value()], "o2": [o2.has_value(name="hv"),
                 o2.get_value()], "e_has": e.has_value(), "e_get": e.get_value(name="gv"),
                 "io": [io.has_value(), io.get_value()], "io2_has": io2.has_value()}
        out["specs"] = [repr(x.element_spec) for x in (o, o2, e, io)]
        out["type_specs"] = [repr(tf.type_spec_from_value(x)) for x in (o, e)]
        out["variants"] = [str(x._variant_tensor) for x in (o, o2, e, io, io2)]
        out["tensors"] = [str(t) for t in tf.nest.flatten(fetch)]
        # (scopeflow names its iterator op differently: compare its type)
        out["ops"] = [(op.name, op.type, [i.op.type if i.op.type == "IteratorV2" else i.name
                                          for i in op.inputs])
                      for op in tf.get_default_graph().get_operations()
                      if "Optional" in op.type or op.name.startswith("optional")]
        def message(err):  # TF's run errors start with "Graph execution error:"
            lines = err.message.splitlines()
            return lines[-2].strip() if "Graph execution" in lines[0] else lines[0]

        def show(v):
            if isinstance(v, (list, tuple)):
                return [show(x) for x in v]
            if isinstance(v, dict):
                return {k: show(x) for k, x in sorted(v.items())}
            v = np.asarray(v)
            return [str(v.dtype), v.tolist() if v.dtype != object else
                    [x.decode() for x in v.reshape(-1)]]
        with tf.Session() as sess:
            for key in ("o", "o2", "e_has"):
                runs[key] = show(sess.run(fetch[key]))
            try:
                sess.run(fetch["e_get"])
            except tf.errors.OpError as err:
                runs["e_get"] = [type(err).__name__, message(err)]
            sess.run(it.initializer)
            runs["io"] = [show(sess.run(fetch["io"])) for _ in range(2)]
            runs["io_end"] = show(sess.run(fetch["io2_has"]))
            try:
                sess.run(fetch["io"])
            except tf.errors.OpError as err:
                runs["io_get_end"] = [type(err).__name__, message(err)]
        out["runs"] = runs
        try:
            Opt.from_value(None)
        except ValueError as err:
            out["none_err"] = str(err)
        return out
    ''')


def _run_here(source, fn_name):
    scope: dict = {}
    exec(source, scope)
    with tf.Graph().as_default():
        return scope[fn_name](tf, np)


def _run_tf(tf1, source, fn_name):
    return tf1("tf.disable_v2_behavior()\n" + source +
               f"\nprint(json.dumps({fn_name}(tf, np), default=str))")


def _jsonish(value):
    """The dict as JSON would carry it (tuples become lists)."""
    import json
    return json.loads(json.dumps(value, default=str))


@pytest.mark.tf
def test_specs_match_tf(tf1):
    expected = _run_tf(tf1, _PROGRAM, "collect")
    got = _jsonish(_run_here(_PROGRAM, "collect"))
    assert set(got) == set(expected)
    # TF names its own classes' modules in some messages: compare only the error's class
    # for those (the program asks for that with exact=False).
    mismatched = {k: (got[k], expected[k]) for k in expected if got[k] != expected[k]}
    assert not mismatched, mismatched


@pytest.mark.tf
def test_optional_ops_match_tf(tf1):
    source = _optional_program()
    expected = _run_tf(tf1, source, "optional_ops")
    got = _jsonish(_run_here(source, "optional_ops"))
    mismatched = {k: (got.get(k), expected[k]) for k in expected if got.get(k) != expected[k]}
    assert not mismatched, mismatched
