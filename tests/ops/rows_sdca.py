"""Op-table rows of the SDCA helper ops (tf.train.sdca_fprint)."""

import numpy as np

from ops.op_table import OpCase
from scopeflow.ops.strings import hashing


def _fprints(x):
    halves = [hashing.fingerprint128(bytes(s)) for s in x.reshape(-1)]
    return np.array(halves, dtype=np.uint64).reshape(-1, 2).view(np.int64)


ROWS = [
    OpCase("SdcaFprint", lambda tf, x: tf.train.sdca_fprint(x), _fprints,
           [np.array([b"", b"example-17", b"x" * 200], dtype=object)], id="sdca_fprint"),
]

EXEMPT = {"SdcaShrinkL1": "stateful in-place update of variable refs with no outputs; values "
                          "vs TF in tests/unit/train/test_sdca.py"}
