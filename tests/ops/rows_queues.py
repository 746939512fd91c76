"""Queue and reader ops: per-session resources that block and read files, driven by
threads and sessions in tests/unit/ops/data_flow/test_queues.py and tests/unit/train/test_input_producers.py
(against live TensorFlow), not by single-op rows."""

from __future__ import annotations

_QUEUES = "a per-session queue resource; covered by tests/unit/ops/data_flow/test_queues.py (live TF)"
_READERS = "a per-session file reader; covered by tests/unit/ops/data_flow/test_queues.py (live TF)"

ROWS: list = []

EXEMPT = {
    **{op: _QUEUES for op in [
        "FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2", "QueueEnqueueV2",
        "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2",
        "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2"]},
    "PriorityQueueV2": "a per-session queue resource; covered by "
                       "tests/unit/ops/data_flow/test_queues_priority.py (TF's fixture and live TF)",
    "CountUpTo": "increments a variable; covered by tests/unit/train/test_input_producers.py "
                 "(num_epochs) and test_queues.py",
    **{op: _READERS for op in [
        "TextLineReaderV2", "TFRecordReaderV2", "FixedLengthRecordReaderV2",
        "WholeFileReaderV2", "IdentityReaderV2", "ReaderReadV2", "ReaderReadUpToV2",
        "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2",
        "ReaderSerializeStateV2", "ReaderRestoreStateV2"]},
    "MatchingFiles": "lists files; covered by tests/unit/train/test_input_producers.py "
                     "(match_filenames_once, live TF)",
}
