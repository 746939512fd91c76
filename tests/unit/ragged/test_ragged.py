"""tf.RaggedTensor, tf.ragged and the ragged tf.strings ops, against NumPy and TF 2.21.

``CASES`` is one program run twice: on scopeflow here and on TensorFlow (TF1 mode) via the
``tf1`` fixture; the static shapes, dtypes, op types, fetched values and row splits it
records must be the same.
"""

import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

CASES = textwrap.dedent('''
    def _j(v):
        if hasattr(v, "to_list"):
            return {"rows": _j(v.to_list()), "splits": [_j(s) for s in v.nested_row_splits],
                    "dtype": str(v.flat_values.dtype)}
        if isinstance(v, np.ndarray):
            return _j(v.tolist())
        if isinstance(v, (list, tuple)):
            return [_j(x) for x in v]
        if isinstance(v, bytes):
            return v.decode("latin-1")
        if isinstance(v, (np.integer, np.floating)):
            return v.item()
        return v

    def run_cases():
        out = {}
        g = tf.Graph()
        with g.as_default():
            rt = tf.ragged.constant([[1, 2], [3], []])
            r3 = tf.ragged.constant([[[1.5, 2.0], [3.0]], [], [[4.0]]])
            fs = tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [2, 0], [2, 1]],
                                                             [7, 8, 9], [4, 5]))
            t = {
                "const": rt, "const3": r3,
                "splits": tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4]),
                "lengths": tf.RaggedTensor.from_row_lengths([1, 2, 3, 4], [2, 0, 2]),
                "rowids": tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 2], nrows=4),
                "rowids_n": tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 2]),
                "starts": tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]),
                "limits": tf.RaggedTensor.from_row_limits([1, 2, 3], [1, 3]),
                "nested": tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 2, 3],
                                                                             [0, 1, 1, 3]]),
                "dense": tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
                "dense_len": tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]],
                                                         lengths=[1, 3]),
                "dense_pad": tf.RaggedTensor.from_tensor([[1, 2, 0], [0, 0, 0], [3, 0, 4]],
                                                         padding=0),
                "sparse": fs,
                "to_tensor": rt.to_tensor(), "to_tensor_d": r3.to_tensor(default_value=-1.0),
                "tt_crop": rt.to_tensor(shape=[2, 1]), "tt_pad": rt.to_tensor(shape=[4, None]),
                "tt_3": r3.to_tensor(default_value=9.0, shape=[2, 1, 3]),
                "row_lengths": rt.row_lengths(), "nrows": rt.nrows(),
                "value_rowids": rt.value_rowids(), "flat3": r3.flat_values,
                "with_values": rt.with_values(rt.values * 2),
                "dec": tf.strings.unicode_decode([u"h\\xe9llo".encode(), b"a\\xffb\\xe2\\x82"],
                                                 "UTF-8"),
                "dec_off": tf.strings.unicode_decode_with_offsets(
                    [b"a\\xffb\\xe2\\x82", b"\\x01x"], "UTF-8", errors="ignore",
                    replace_control_characters=True),
                "dec_ctl": tf.strings.unicode_decode_with_offsets(
                    [b"a\\xffb\\xe2\\x82", b"\\x01x"], "UTF-8", replace_control_characters=True),
                "dec_scalar": tf.strings.unicode_decode(b"a\\xffb", "UTF-8", replacement_char=63),
                "dec_16": tf.strings.unicode_decode([[b"ab", b"c"]], "UTF-16-BE"),
                "dec_utf8_bad": tf.strings.unicode_decode(
                    [b"a\\xed\\xa0\\x80b", b"\\xf4\\x90\\x80\\x80", b"\\xc0\\xaf"], "UTF-8"),
                "dec_32": tf.strings.unicode_decode([b"\\x00\\x00\\x00a\\x00\\x11\\x00\\x00"],
                                                    "UTF-32-BE"),
                "split": tf.strings.unicode_split([u"h\\xe9".encode(), b""], "UTF-8"),
                "split_off": tf.strings.unicode_split_with_offsets([b"ab\\xc3\\xa9"], "UTF-8"),
                "bytes": tf.strings.bytes_split([b"ab", b"", b"xyz"]),
                "range": tf.ragged.range([3, 5, 9], [5, 9, 2], 2),
                "range1": tf.ragged.range(4),
                "range_f": tf.ragged.range(0.5, [3, 4], 1.5),
                "range_neg": tf.ragged.range([5, 0], [0, 3], [-2, 1]),
                "stack": tf.ragged.stack([rt, tf.ragged.constant([[4]])]),
                "mask": tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]],
                                               [[True, False, True], [False, False, True]]),
                "mask_r": tf.ragged.boolean_mask(rt, tf.ragged.constant(
                    [[True, False], [True], []])),
                "map": tf.ragged.map_flat_values(tf.multiply, rt, 3),
                "sdp": tf.ragged.stack_dynamic_partitions([b"a", b"b", b"c", b"d", b"e"],
                                                          [3, 0, 3, 2, 0], 4),
            }
            for k, v in t.items():
                out[k + ":shape"] = str(v[0].shape if isinstance(v, tuple) else v.shape)
            strict = tf.strings.unicode_decode([b"a\\xffb"], "UTF-8", errors="strict")
            with tf.Session() as sess:
                vals = sess.run(t)
                try:
                    sess.run(strict)
                    out["strict"] = None
                except tf.errors.InvalidArgumentError:
                    out["strict"] = "InvalidArgumentError"
                out["sparse_st"] = _j(list(sess.run(tf.ragged.constant([[1, 2], [3]]).to_sparse())))
            out["dec_op"] = t["dec"].values.op.type
            out["sdp_dtype"] = t["sdp"].row_splits.dtype.name
            try:
                with tf.Session() as sess:
                    sess.run(tf.ragged.stack_dynamic_partitions([1, 2], [5, 0], 4))
                out["sdp_bad"] = None
            except tf.errors.InvalidArgumentError:
                out["sdp_bad"] = "InvalidArgumentError"
            bad = {"zero": [1, 3], "monotonic": [0, 2, 1, 3], "nvals": [0, 2]}
            for key, splits in bad.items():
                try:
                    with tf.Session() as sess:
                        sess.run(tf.RaggedTensor.from_row_splits(
                            [1, 2, 3], tf.constant(splits, tf.int64)).row_splits)
                    out["bad_" + key] = None
                except tf.errors.InvalidArgumentError as e:
                    out["bad_" + key] = [m for m in ("zero", "monotonic", "_from_row_partition")
                                         if m in e.message]
            out["range_op"] = [t["range"].values.op.type, t["range"].values.op.name]
            try:
                with tf.Session() as sess:
                    sess.run(tf.ragged.range([1], [2], [0]))
                out["delta0"] = None
            except tf.errors.InvalidArgumentError:
                out["delta0"] = "InvalidArgumentError"
            out["to_tensor_op"] = t["to_tensor"].op.type
            out["cv"] = _j(tf.ragged.constant_value([[1, 2], [3]]))
            out["ragged_rank"] = [rt.ragged_rank, r3.ragged_rank]
            out["dtypes"] = [t["dec"].dtype.name, t["dec_off"][1].dtype.name,
                             rt.row_splits.dtype.name]
        for k, v in vals.items():
            out[k] = _j(v)
        return out
''')


def _scopeflow_cases():
    scope = {"tf": tf, "np": np}
    exec(CASES, scope)
    return scope["run_cases"]()


def test_values_without_tensorflow():
    out = _scopeflow_cases()
    assert out["const"]["rows"] == [[1, 2], [3], []]
    assert out["const"]["splits"] == [[0, 2, 3, 3]]
    assert out["const:shape"] == "(3, ?)"
    assert out["const3:shape"] == "(3, ?, ?)"
    assert out["to_tensor"] == [[1, 2], [3, 0], [0, 0]]
    assert out["lengths"]["rows"] == [[1, 2], [], [3, 4]]
    assert out["rowids"]["rows"] == [[1], [], [2, 3], []]
    assert out["dense_pad"]["rows"] == [[1, 2], [], [3, 0, 4]]
    assert out["dec"]["rows"] == [[104, 233, 108, 108, 111], [97, 65533, 98, 65533]]
    assert out["dec_off"][1]["rows"] == [[0, 2], [1]]
    assert out["strict"] == "InvalidArgumentError"
    assert out["bytes"]["rows"] == [["a", "b"], [], ["x", "y", "z"]]
    assert out["dec_16:shape"] == "(1, 2, ?)"


def test_ragged_matches_tensorflow(tf1):
    expected = tf1(CASES + "\ntf.disable_v2_behavior()\nprint(json.dumps(run_cases()))")
    got = _scopeflow_cases()
    assert set(got) == set(expected)
    assert {k: got[k] for k in expected if got[k] != expected[k]} == {}


def test_session_feeds_a_ragged_placeholder():
    g = tf.Graph()
    with g.as_default():
        p = tf.ragged.placeholder(tf.float32, 1, value_shape=[])
        dense = p.to_tensor()
        with tf.Session() as sess:
            out = sess.run(dense, {p: tf.ragged.constant_value([[1.0], [2.0, 3.0]])})
            with pytest.raises(TypeError):
                sess.run(dense, {p: [[1.0]]})
    np.testing.assert_array_equal(out, [[1.0, 0.0], [2.0, 3.0]])


def test_constructor_is_private_and_depths_must_agree():
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor([1], [0, 1])
    with pytest.raises(ValueError, match="same nesting depth"):
        tf.ragged.constant([[1, 2], 3])
    with pytest.raises(ValueError, match="not in"):
        tf.strings.unicode_decode(["a"], "UTF-8", errors="bogus")
    assert isinstance(errors.InvalidArgumentError, type)
