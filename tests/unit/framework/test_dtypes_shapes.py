"""DType, TensorShape and Dimension as TF1 (literals observed with TF 2.21)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

# From TF 2.21: name, str, repr, is_floating, is_integer, is_bool, enum, size, numpy dtype.
DTYPES = [
    ("float16", "<dtype: 'float16'>", "tf.float16", True, False, False, 19, 2, "float16"),
    ("float32", "<dtype: 'float32'>", "tf.float32", True, False, False, 1, 4, "float32"),
    ("float64", "<dtype: 'float64'>", "tf.float64", True, False, False, 2, 8, "float64"),
    ("int8", "<dtype: 'int8'>", "tf.int8", False, True, False, 6, 1, "int8"),
    ("int16", "<dtype: 'int16'>", "tf.int16", False, True, False, 5, 2, "int16"),
    ("int32", "<dtype: 'int32'>", "tf.int32", False, True, False, 3, 4, "int32"),
    ("int64", "<dtype: 'int64'>", "tf.int64", False, True, False, 9, 8, "int64"),
    ("uint8", "<dtype: 'uint8'>", "tf.uint8", False, True, False, 4, 1, "uint8"),
    ("bool", "<dtype: 'bool'>", "tf.bool", False, False, True, 10, 1, "bool"),
    ("string", "<dtype: 'string'>", "tf.string", False, False, False, 7, None, "object"),
]


@pytest.mark.parametrize("row", DTYPES, ids=[r[0] for r in DTYPES])
def test_dtype_basics(row):
    name, s, r, is_float, is_int, is_bool, enum, size, np_name = row
    d = getattr(tf, name)
    assert [d.name, str(d), repr(d), d.is_floating, d.is_integer, d.is_bool,
            d.as_datatype_enum] == [name, s, r, is_float, is_int, is_bool, enum]
    if size is not None:
        assert d.size == size
    assert str(np.dtype(d.as_numpy_dtype)) == np_name
    assert tf.as_dtype(name) is d


def test_as_dtype_spellings():
    # From TF 2.21.
    got = [tf.as_dtype(x).name for x in ("float", "float32", np.float64, np.dtype("int32"), 1,
                                         "double", float, bool, "float32_ref", np.bool_, "half",
                                         object, np.str_, np.bytes_, np.dtype("int64"),
                                         np.dtype(float))]
    assert got == ["float32", "float32", "float64", "int32", "float32", "float64", "float32",
                   "bool", "float32_ref", "bool", "float16", "string", "string", "string", "int64",
                   "float64"]


@pytest.mark.parametrize("value,text", [
    ("nope", "'nope'"), ([1], "[1]"), (int, "<class 'int'>"), (str, "<class 'str'>"),
    (complex, "<class 'complex'>")])
def test_as_dtype_errors(value, text):
    with pytest.raises(TypeError) as e:
        tf.as_dtype(value)
    # From TF 2.21.
    assert str(e.value) == f"Cannot convert the argument `type_value`: {text} to a TensorFlow DType."


def test_dtype_comparisons():
    # From TF 2.21.
    assert tf.float32 == np.float32 and tf.float32 == "float32" and tf.float32 != tf.float64
    assert not (tf.float32 == None) and not (tf.float32 == "nope")  # noqa: E711
    assert tf.float32.min == float(np.finfo(np.float32).min)
    assert (tf.int8.max, tf.uint8.min) == (127, 0)
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.float64.real_dtype is tf.float64
    assert not tf.int32.is_unsigned and tf.uint8.is_unsigned


def test_ref_dtypes():
    v = tf.Variable(1.0, name="v")
    d = v.dtype
    # From TF 2.21.
    assert [d.name, repr(d), str(d), d.base_dtype.name] == \
        ["float32_ref", "tf.float32_ref", "<dtype: 'float32_ref'>", "float32"]
    assert d != tf.float32 and not d.is_compatible_with(tf.float32)
    assert tf.float32.is_compatible_with(d) and d.is_floating
    assert tf.as_dtype("float32_ref") == d and d.as_datatype_enum == 101
    assert d.real_dtype is d and v.value().dtype is tf.float32


def test_tensor_shape():
    s = tf.TensorShape([None, 3])
    u = tf.TensorShape(None)
    # From TF 2.21.
    assert [str(s), repr(s), s.as_list(), s.ndims, str(u), repr(u), u.ndims] == \
        ["(?, 3)", "TensorShape([Dimension(None), Dimension(3)])", [None, 3], 2, "<unknown>",
         "TensorShape(None)", None]
    assert [str(tf.TensorShape([])), repr(tf.TensorShape([])), str(tf.TensorShape([5])),
            str(tf.TensorShape([None])), str(tf.TensorShape([1, None, 2]))] == \
        ["()", "TensorShape([])", "(5,)", "(?,)", "(1, ?, 2)"]
    assert not s.is_fully_defined() and s.num_elements() is None
    assert tf.TensorShape([2, 3]).num_elements() == 6
    assert s.merge_with([4, None]).as_list() == [4, 3]
    assert s.is_compatible_with([7, 3]) and not s.is_compatible_with([7, 4])
    assert s.is_compatible_with(u) and u.is_compatible_with([1, 2, 3])
    assert s == tf.TensorShape([None, 3]) and s == [None, 3]
    assert tf.TensorShape([1, 2]) == [1, 2] and len(s) == 2
    assert [repr(s[0]), repr(s[1]), str(s[0]), s[1].value, repr(s[0:1])] == \
        ["Dimension(None)", "Dimension(3)", "?", 3, "TensorShape([Dimension(None)])"]
    assert s.concatenate([5]).as_list() == [None, 3, 5] and (s.rank, u.rank) == (2, None)
    assert s.most_specific_compatible_shape([5, 3]).as_list() == [None, 3]


# From TF 2.21.
SHAPE_ERRORS = [
    (lambda: tf.TensorShape([None, 3]).merge_with([4, 5]),
     "Shapes (?, 3) and (4, 5) are not compatible"),
    (lambda: tf.TensorShape([None, 3]).merge_with([4]), "Shapes (?, 3) and (4,) are not compatible"),
    (lambda: tf.TensorShape(None).as_list(), "as_list() is not defined on an unknown TensorShape."),
    (lambda: len(tf.TensorShape(None)), "Cannot take the length of shape with unknown rank."),
    (lambda: tf.TensorShape([1, 2]).with_rank(3), "Shape (1, 2) must have rank 3"),
    (lambda: tf.TensorShape([1, 2]).assert_is_compatible_with([1, 3]),
     "Shapes (1, 2) and [1, 3] are incompatible"),
    (lambda: tf.TensorShape([1, None]).assert_is_fully_defined(),
     "Shape (1, ?) is not fully defined"),
    (lambda: tf.Dimension(3).merge_with(4), "Dimensions 3 and 4 are not compatible"),
    (lambda: tf.Dimension(-1), "Dimension -1 must be >= 0"),
]


@pytest.mark.parametrize("fn,text", SHAPE_ERRORS)
def test_shape_errors(fn, text):
    with pytest.raises(ValueError) as e:
        fn()
    assert str(e.value) == text


def test_dimension():
    D = tf.Dimension
    # From TF 2.21.
    assert [repr(D(3)), str(D(None)), repr(D(None)), D(3) == 3, D(None) == 3] == \
        ["Dimension(3)", "?", "Dimension(None)", True, None]
    assert [repr(D(3) + 1), repr(D(None) + 1), repr(3 * D(4)), D(3).value, int(D(3))] == \
        ["Dimension(4)", "Dimension(None)", "Dimension(12)", 3, 3]
    assert [repr(D(6) // 4), D(3) < 4, D(None) < 4, D(3) != 4, D(None) != 3] == \
        ["Dimension(1)", True, None, True, None]
    assert [1, 2, 3, 4][D(2)] == 3 and repr(D(3).merge_with(None)) == "Dimension(3)"
    assert D(3).is_compatible_with(4) is False
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        D(1.5)


def test_shape_dims_are_dimensions_and_usable_as_sizes():
    x = tf.placeholder(tf.float32, [None, 5])
    d = x.shape[1]
    # From TF 2.21 (TF1 behaviour): a Dimension, usable wherever a size is.
    assert type(d).__name__ == "Dimension" and repr(d) == "Dimension(5)"
    assert repr(x.shape[0]) == "Dimension(None)" and x.get_shape()[1].value == 5
    c = tf.constant(0.0, shape=[x.shape[1], 2])
    p = tf.placeholder(tf.float32, [None, x.shape[1]])
    v = tf.Variable(np.zeros([x.shape[1], 3], np.float32), name="w")
    assert [c.shape.as_list(), p.shape.as_list(), v.shape.as_list()] == [[5, 2], [None, 5], [5, 3]]


def test_get_variable_with_dimension_shape():
    x = tf.placeholder(tf.float32, [None, 5])
    w = tf.get_variable("w", [x.shape[1], 10])
    # From TF 2.21.
    assert [w.name, w.shape.as_list(), w.initializer.name] == ["w:0", [5, 10], "w/Assign"]
