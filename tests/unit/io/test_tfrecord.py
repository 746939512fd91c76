"""TFRecord framing (FORMATS §2.2): masked CRC32C, corruption and truncation handling."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scopeflow.framework.errors import DataLossError
from scopeflow.io.tfrecord import (
    TFRecordWriter,
    TruncatedRecordError,
    encode_record,
    tf_record_iterator,
)

TF_EVENTS = Path(__file__).resolve().parents[2] / "fixtures" / "tf_summaries" / "events" / \
    "word2vec" / "events.out.tfevents.1700000000.tf"


def test_reads_tensorflow_file_and_reencodes_it_byte_for_byte():
    data = TF_EVENTS.read_bytes()
    assert data[:8].hex() == "3e00000000000000"
    records = list(tf_record_iterator(TF_EVENTS))
    assert len(records) == 8
    assert b"".join(encode_record(r) for r in records) == data


def test_writer_roundtrip(tmp_path):
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path) as w:
        for payload in (b"", b"x", b"y" * 100_000):
            w.write(payload)
    assert list(tf_record_iterator(path)) == [b"", b"x", b"y" * 100_000]


def test_corrupted_record_is_a_data_loss_error_naming_file_and_offset(tmp_path):
    good = encode_record(b"first") + encode_record(b"second")
    bad = bytearray(good)
    bad[len(encode_record(b"first")) + 14] ^= 1  # a data byte of the second record
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(bad))
    it = tf_record_iterator(path)
    assert next(it) == b"first"
    with pytest.raises(DataLossError, match=r"corrupted record at offset 21 in .*bad.tfrecord"):
        next(it)
    bad = bytearray(good)
    bad[0] ^= 1  # the length
    with pytest.raises(DataLossError, match="length checksum"):
        list(tf_record_iterator(io.BytesIO(bytes(bad))))


def test_truncated_tail(tmp_path):
    data = encode_record(b"whole") + encode_record(b"partial")[:-3]
    with pytest.raises(TruncatedRecordError, match="truncated record at offset 21"):
        list(tf_record_iterator(io.BytesIO(data)))
    assert list(tf_record_iterator(io.BytesIO(data), allow_truncated_tail=True)) == [b"whole"]
