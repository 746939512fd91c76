"""Lookup-table ops (scopeflow/ops/lookup/lookup_ops.py). A table is a session resource that
must be filled before a lookup: each row builds its table and makes the op under test
depend on the table's initializer, so that one run fills and reads it. Errors, the
TABLE_INITIALIZERS collection and the graphs are compared with live TF in
tests/unit/ops/lookup/test_lookup_ops.py."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ops.op_table import OpCase

_VOCAB = os.path.join(tempfile.mkdtemp(prefix="sf_lookup_rows_"), "vocab.txt")
with open(_VOCAB, "w") as _f:
    _f.write("emerson\t10\nlake\t20\npalmer\t30\n")

_KEYS = np.array([b"a", b"b", b"c"], dtype=object)
_VALS = np.array([7, 8, 9], dtype=np.int64)


def _kv_table(tf, keys, values, default, anonymous=False):
    init = tf.lookup.KeyValueTensorInitializer(keys, values)
    return tf.lookup.StaticHashTable(init, default, experimental_is_anonymous=anonymous)


def _after_init(tf, table, fn):
    with tf.control_dependencies([table.initializer]):
        return fn()


def _dict_lookup(keys, values, default):
    table = dict(zip(keys.tolist(), values.tolist()))

    def ref(q):
        return np.vectorize(lambda k: table.get(k, default), otypes=[values.dtype])(q)
    return ref


ROWS = [
    OpCase("LookupTableFindV2",
           lambda tf, q: _after_init(tf, t := _kv_table(tf, _KEYS, _VALS, -1),
                                     lambda: t.lookup(q)),
           _dict_lookup(_KEYS, _VALS, -1),
           [np.array([[b"a", b"x"], [b"c", b"b"]], dtype=object)], id="string_to_int64_2d",
           check_grad=False),
    OpCase("LookupTableFindV2",
           lambda tf, q: _after_init(
               tf, t := _kv_table(tf, np.array([3, -1, 10], np.int64),
                                  np.array([0.5, 1.5, 2.5], np.float32), np.float32(-9)),
               lambda: t.lookup(q)),
           _dict_lookup(np.array([3, -1, 10]), np.array([0.5, 1.5, 2.5], np.float32), -9.0),
           [np.array([10, 4, -1, 3, 3], dtype=np.int64)], id="int64_to_float",
           check_grad=False),
    OpCase("LookupTableFindV2",
           lambda tf, q: _after_init(
               tf, t := _kv_table(tf, np.array([1, 2], np.int32),
                                  np.array([b"one", b"two"], dtype=object), "?"),
               lambda: t.lookup(q)),
           _dict_lookup(np.array([1, 2]), np.array([b"one", b"two"], dtype=object), b"?"),
           [np.array([2, 5, 1], dtype=np.int32)], id="int32_to_string", check_grad=False),
    OpCase("HashTableV2",
           lambda tf, q: _after_init(tf, t := _kv_table(tf, _KEYS, _VALS, -1),
                                     lambda: t.lookup(q)),
           _dict_lookup(_KEYS, _VALS, -1), [np.array([b"c"], dtype=object)], id="table",
           check_grad=False),
    OpCase("AnonymousHashTable",
           lambda tf, q: _after_init(tf, t := _kv_table(tf, _KEYS, _VALS, -1, True),
                                     lambda: t.lookup(q)),
           _dict_lookup(_KEYS, _VALS, -1), [np.array([b"b", b"z"], dtype=object)],
           id="anonymous", check_grad=False),
    OpCase("LookupTableImportV2",
           lambda tf, k, v: _after_init(tf, t := _kv_table(tf, k, v, 0), lambda: t.size()),
           lambda k, v: np.int64(len(set(k.tolist()))),
           [np.array([b"x", b"y", b"x"], dtype=object), np.array([1, 2, 1], np.int32)],
           id="duplicate_same_value", check_grad=False),
    OpCase("LookupTableSizeV2",
           lambda tf, q: _after_init(tf, t := _kv_table(tf, _KEYS, _VALS, -1),
                                     lambda: t.size() + tf.size(q, out_type=tf.int64)),
           lambda q: np.int64(3 + q.size), [np.array([b"a"], dtype=object)], id="size",
           check_grad=False),
    OpCase("LookupTableExportV2",
           lambda tf, q: _after_init(tf, t := _kv_table(tf, _KEYS[::-1].copy(), _VALS, -1),
                                     lambda: list(t.export())),
           lambda q: [_KEYS, _VALS[::-1].copy()], [np.array([b"a"], dtype=object)],
           id="export_in_key_order", check_grad=False),
    OpCase("InitializeTableFromTextFileV2",
           lambda tf, q: _after_init(
               tf, t := tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                   _VOCAB, tf.string, 0, tf.int64, 1), -1), lambda: t.lookup(q)),
           _dict_lookup(np.array([b"emerson", b"lake", b"palmer"], dtype=object),
                        np.array([10, 20, 30], np.int64), -1),
           [np.array([b"lake", b"x", b"palmer"], dtype=object)], id="columns",
           check_grad=False),
    OpCase("InitializeTableFromTextFileV2",
           lambda tf, q: _after_init(
               tf, t := tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                   _VOCAB, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string,
                   tf.lookup.TextFileIndex.WHOLE_LINE), "?"), lambda: t.lookup(q)),
           _dict_lookup(np.arange(3), np.array([b"emerson\t10", b"lake\t20", b"palmer\t30"],
                                               dtype=object), b"?"),
           [np.array([2, 0, 5], dtype=np.int64)], id="line_number_whole_line",
           check_grad=False),
]
