"""Damaged TFRecord files are read as TensorFlow 2.21 reads them: the same records come out
before the same error class and message, through each reader API.

The files are built by tests/fixtures/tf_records/damage_cases.py (partial headers of 0..11
bytes, records cut in their header, data or footer, bad checksums, length fields of up to
2**64 - 1, and damage to GZIP and ZLIB streams: headers, deflate blocks, trailers, cuts,
bytes after the end, deep inside files bigger than TF's inflate buffers). What TF does with
each, per API, is in damage_expected.json, recorded by make_damage.py under real TF; the
live test re-asks TF for a sample.
"""

from __future__ import annotations

import importlib.util
import json
import tracemalloc
from pathlib import Path

import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tf_records"
_spec = importlib.util.spec_from_file_location("damage_cases", FIXTURE / "damage_cases.py")
damage_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(damage_cases)

CASES = damage_cases.cases_cached()
RECORDED = json.loads((FIXTURE / "damage_expected.json").read_text())
EXPECTED = RECORDED["cases"]
# TF crashes (SIGSEGV) allocating a record of 2**63 - 5 bytes in an uncompressed file;
# scopeflow answers as TF does for any other length past the end that it survives.
CRASH_STAND_IN = ("len_2_63_minus_5", "len_2_32")


APIS = damage_cases.API_NAMES


def answer(api, name, tmp_path):
    compression, data, records = CASES[name]
    path = tmp_path / "case.tfrecord"
    path.write_bytes(data)
    got, error = damage_cases.read_all(tf, api, str(path), compression)
    assert got == records[:len(got)]
    return {"records": len(got), "error": error}


def expected(name, api):
    want = EXPECTED[name][api]
    if isinstance(want, str):
        assert want == "crash: SIGSEGV" and CRASH_STAND_IN[0] in name, want
        want = EXPECTED[name.replace(*CRASH_STAND_IN)][api]
    return want


def test_the_recorded_answers_cover_every_case():
    assert set(EXPECTED) == set(CASES)
    assert all(set(EXPECTED[name]) == set(APIS) for name in EXPECTED)


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_damaged_file_reads_as_in_tensorflow(name, api, tmp_path):
    assert answer(api, name, tmp_path) == expected(name, api)


HUGE = sorted(n for n in CASES if "len_2_" in n or "len_1000" in n)  # and the zip bombs


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("name", HUGE)
def test_declared_length_is_never_allocated(name, api, tmp_path):
    """A length field past the end of the file (up to 2**64 - 1), or past the end of a
    compressed stream inflating to 64 MiB of zeros, is refused without allocating it or
    gathering the stream: reading stays within a few MiB (TF gathers the bomb)."""
    tracemalloc.start()
    try:
        answer(api, name, tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_records_larger_than_a_read_chunk_read_whole(compression, tmp_path):
    """A length over 16 MiB in a compressed file is first checked to be there (inflated and
    dropped), then read from where the stream stood: the same bytes come back."""
    payloads = [b"ab" * (9 << 20), b"x", bytes(range(256)) * 70_000]
    path = str(tmp_path / "big.tfrecord")
    with tf.python_io.TFRecordWriter(path, compression) as w:
        for p in payloads:
            w.write(p)
    for api in APIS:
        assert damage_cases.read_all(tf, api, path, compression) == (payloads, None)


@pytest.mark.parametrize("name", damage_cases.AFTER_ERROR)
def test_reads_after_an_error_go_on_as_in_tensorflow(name, tmp_path):
    """The dataset goes on to its next file; the iterator and the reader try the failed
    record again (and fail again)."""
    assert damage_cases.after_error(tf, name, str(tmp_path / "f")) == \
        RECORDED["after_error"][name]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_a_file_still_being_written_reads_on_once_complete(compression, tmp_path):
    assert damage_cases.growing(tf, str(tmp_path / "f"), compression) == \
        RECORDED["growing"][compression or "none"]


# Cases TF is asked about again by the live test: one or two of each kind.
LIVE = ["gzip_bomb_len_2_40", "len_0", "len_1", "len_11", "cut_header2_11", "cut_header2_12", "cut_footer2_3",
        "bad_length_crc1", "bad_data_crc2", "len_1000_second", "len_2_63_first",
        "len_2_64_minus_6_second", "len_2_64_minus_5_first", "gzip:len_5", "gzip:cut_data2_3",
        "gzip:len_2_63_second", "gzip:len_2_64_minus_6_first", "zlib:bad_length_crc2",
        "gzip_stream_len_9", "gzip_bad_magic", "gzip_bad_crc", "gzip_bad_size",
        "gzip_cut_half", "gzip_cut_before_trailer", "gzip_flip_middle", "gzip_garbage_after",
        "gzip_garbage_after_3", "gzip_two_members_second_bad", "zlib_stream_len_11",
        "zlib_bad_check", "zlib_bad_adler", "zlib_garbage_after", "zlib_flip_middle",
        "big_gzip_bad_block_after_5", "big_zlib_bad_check", "big_gzip_len_2_63_at_buffer_end"]


def test_live_tensorflow_agrees(tf1, tmp_path):
    theirs = tf1(f"""
        import sys
        sys.path.insert(0, {str(FIXTURE)!r})
        import damage_cases, make_damage
        cases = damage_cases.cases_cached()
        answers = make_damage.run({{n: cases[n] for n in {LIVE!r}}})
        after, grown = make_damage.in_child(make_damage.run_after_errors)
        print(json.dumps([answers, after, grown]))
    """)
    ours = {name: {api: answer(api, name, tmp_path) for api in APIS} for name in LIVE}
    assert ours == theirs[0]
    path = str(tmp_path / "f")
    assert {name: damage_cases.after_error(tf, name, path)
            for name in damage_cases.AFTER_ERROR} == theirs[1]
    assert {c or "none": damage_cases.growing(tf, path, c) for c in ("", "GZIP", "ZLIB")} == \
        theirs[2]
