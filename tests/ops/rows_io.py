"""Checkpoint ops: stateful file I/O, tested through tf.train.Saver."""

from __future__ import annotations

ROWS: list = []

EXEMPT = {
    "SaveV2": "writes files; covered by tests/unit/test_saver.py and the TF interop tests",
    "RestoreV2": "reads files; covered by tests/unit/test_saver.py and the TF interop tests",
}
