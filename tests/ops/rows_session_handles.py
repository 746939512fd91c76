"""Session tensor handle ops: a per-session store of kept values, driven across runs by
tests/unit/runtime/test_session_handles.py (against live TensorFlow), not by single-op rows."""

from __future__ import annotations

_WHY = ("keeps or reads a value in the session's store across runs; covered by "
        "tests/unit/runtime/test_session_handles.py (live TF)")

ROWS: list = []

EXEMPT = {op: _WHY for op in ["GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"]}
