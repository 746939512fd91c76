"""Gradients of the array ops compared with real TensorFlow (TF 2.21, TF1 semantics).

The programs live in ``tests/fixtures/tf_array_gradients/cases.py``; ``generate.py`` there
stored TF's gradients in ``expected.json``. Gathers' gradients are checked both densified
(through ``UnsortedSegmentSum``) and for their sparse structure (``IndexedSlices``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_array_gradients"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_array_gradient_cases",
                                                  FIXTURES / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def test_fixture_covers_every_case():
    assert sorted(EXPECTED["cases"]) == sorted(CASES.CASES)


@pytest.mark.parametrize("name", sorted(set(CASES.CASES) - CASES.DENSE_GATHER))
def test_gradient_values_match_tensorflow(name):
    got = CASES.run_case(tf, name)
    want = EXPECTED["cases"][name]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g["type"] == w["type"], f"gradient {i}: {g['type']} vs TF's {w['type']}"
        assert tf.TensorShape(g["static_shape"]).is_compatible_with(
            tf.TensorShape(w["static_shape"])), (g["static_shape"], w["static_shape"])
        np.testing.assert_allclose(g["value"], w["value"], rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name}: gradient {i}")


@pytest.mark.parametrize("name", sorted(CASES.DENSE_GATHER))
def test_gather_gradient_values_match_tensorflow(name):
    got = CASES.run_case(tf, name)
    want = EXPECTED["cases"][name]
    for i, (g, w) in enumerate(zip(got, want)):
        assert g["type"] == w["type"], f"gradient {i}: {g['type']} vs TF's {w['type']}"
        np.testing.assert_allclose(g["value"], w["value"], rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name}: gradient {i}")


def _gather_grad():
    v = tf.Variable(np.arange(12.0).reshape(4, 3), name="v")
    idx = tf.constant([[3, 0], [3, 3]])
    return v, tf.gradients(tf.reduce_sum(tf.gather(v, idx) * 2.0), v)[0]


def test_gather_gradient_is_indexed_slices_as_tensorflow():
    want = EXPECTED["gather_structure"]
    v, grad = _gather_grad()
    assert isinstance(grad, tf.IndexedSlices) and want["type"] == "IndexedSlices"
    assert grad.values.shape.as_list() == want["values_static_shape"]
    assert grad.indices.dtype.name == want["indices_dtype"]
    assert grad.dense_shape.dtype.name == want["dense_shape_dtype"]
    assert grad.shape.as_list() == want["dense_shape"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values, indices, dense_shape = sess.run([grad.values, grad.indices, grad.dense_shape])
    np.testing.assert_allclose(values, want["values"])
    assert indices.tolist() == want["indices"]
    assert dense_shape.tolist() == want["dense_shape"]


def test_gather_gradients_aggregate_sparse():
    """Two gathers of one tensor: their IndexedSlices concatenate (no densification)."""
    x = tf.placeholder(tf.float64, [5, 3])
    loss = tf.reduce_sum(tf.gather(x, [4, 1])) + tf.reduce_sum(tf.gather(x, [[1, 1]]))
    grad = tf.gradients(loss, x)[0]
    assert isinstance(grad, tf.IndexedSlices)
    with tf.Session() as sess:
        indices, values = sess.run([grad.indices, grad.values], {x: np.zeros((5, 3))})
    assert sorted(indices.tolist()) == [1, 1, 1, 4]
    assert values.shape == (4, 3)


def test_gather_gradient_densifies_like_an_optimizer():
    v, grad = _gather_grad()
    dense = tf.convert_to_tensor(grad)
    assert dense.shape.as_list() == [4, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(dense)
    np.testing.assert_allclose(got, [[2] * 3, [0] * 3, [0] * 3, [6] * 3])


def test_gradient_rules_handle_indexed_slices_input():
    """A rule downstream of a gather densifies its IndexedSlices dy (TF does the same)."""
    x = tf.placeholder(tf.float64, [2, 3])
    y = tf.gather(tf.reshape(x, [3, 2]), [2, 2])
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    with tf.Session() as sess:
        got = sess.run(grad, {x: np.zeros((2, 3))})
    np.testing.assert_allclose(got, [[0, 0, 0], [0, 2, 2]])


def test_non_differentiable_array_ops_are_explicit():
    from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY
    for op_type in ("Shape", "Size", "Rank", "OneHot", "ZerosLike", "OnesLike", "StopGradient",
                    "InvertPermutation", "ConcatOffset"):
        assert REGISTRY[op_type].grad is None, op_type
    assert REGISTRY["Placeholder"].grad is NO_GRADIENT  # TF registers none
    for op_type in ("Reshape", "Transpose", "ExpandDims", "Squeeze", "ConcatV2", "Pack",
                    "Unpack", "Split", "SplitV", "Tile", "Pad", "PadV2", "MirrorPad",
                    "MirrorPadGrad", "Slice", "StridedSlice", "StridedSliceGrad", "GatherV2",
                    "Fill"):
        assert callable(REGISTRY[op_type].grad), op_type


def test_concat_axis_and_split_dim_get_no_gradient():
    x = tf.placeholder(tf.float64, [2, 2])
    axis = tf.placeholder_with_default(tf.constant(1), [])
    grads = tf.gradients(tf.concat([x, x], axis), [x, axis])
    assert grads[1] is None and grads[0] is not None


def test_gradient_names_are_scoped():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.tile(x, [2, 1], name="tiled")
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    assert grad.op.name.startswith("gradients/tiled_grad/")


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    """Regenerates a few cases and the IndexedSlices structure under real TF right now."""
    names = ["rev_rows_drop_col_unknown", "slice_masks_neg_stride", "pad_symmetric",
             "concat_3_axis1", "gather_repeated_axis1"]
    live = tf1(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("cases", {str(FIXTURES / "cases.py")!r})
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        out = {{n: cases.run_case(tf, n) for n in {names!r}}}
        out["gather_structure"] = cases.gather_structure(tf)
        print(json.dumps(out))
    """)
    assert live["gather_structure"] == EXPECTED["gather_structure"]
    v, grad = _gather_grad()
    assert isinstance(grad, tf.IndexedSlices)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values, indices, dense_shape = sess.run([grad.values, grad.indices, grad.dense_shape])
    assert indices.tolist() == live["gather_structure"]["indices"]
    assert dense_shape.tolist() == live["gather_structure"]["dense_shape"]
    np.testing.assert_allclose(values, live["gather_structure"]["values"])
    for name in names:
        for g, w in zip(CASES.run_case(tf, name), live[name]):
            assert g["type"] == w["type"]
            np.testing.assert_allclose(g["value"], w["value"], rtol=1e-5, atol=1e-5)
