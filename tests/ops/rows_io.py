"""Checkpoint ops: file I/O is tested through tf.train.Saver; the string helpers here."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.io import io_ops

from .op_table import OpCase


def _expect(want):
    def check(*got):
        assert len(got) == 1
        np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want))
    return check


_S = np.array([b"ckpt/model", b"s3://bucket/m", b""], dtype=object)

ROWS = [
    OpCase("StringJoin", lambda tf, x, y: io_ops.string_join([x, y], separator="|"),
           _expect(np.array([b"ckpt/model|_temp/part", b"s3://bucket/m|_temp/part",
                             b"|_temp/part"], dtype=object)),
           [_S, np.array(b"_temp/part", dtype=object)], check_values=False),
    OpCase("StaticRegexFullMatch", lambda tf, x: io_ops.regex_full_match(x, "^s3://.*"),
           _expect([False, True, False]), [_S], check_values=False),
    OpCase("ShardedFilename", lambda tf, b, s, n: io_ops.sharded_filename(b, s, n),
           _expect(b"ckpt/model_temp/part-00002-of-00010"),
           [np.array(b"ckpt/model_temp/part", dtype=object), np.array(2, np.int32),
            np.array(10, np.int32)], check_values=False),
]

EXEMPT = {
    "SaveV2": "writes files; covered by tests/unit/train/test_saver.py and the TF interop tests",
    "RestoreV2": "reads files; covered by tests/unit/train/test_saver.py and the TF interop tests",
    "MergeV2Checkpoints": "renames files; covered by the sharded tests in test_saver.py",
}
