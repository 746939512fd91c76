"""The MNIST downloader against hostile mirrors: nothing unverified is decompressed, a gzip
bomb is cut at the published size, downloads are streamed and capped. All offline:
``file://`` mirrors and a patched ``urlopen``."""

from __future__ import annotations

import gzip
import hashlib
import io
import struct
import zlib

import numpy as np
import pytest

from scopeflow.datasets import mnist

LABELS = mnist.TEST_LABELS


def _bomb(count=10000, inflated=64 << 20) -> bytes:
    """A gzipped label file whose header is right but which inflates to ``inflated``."""
    header = struct.pack(">2I", 2049, count)
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [z.compress(header)]
    zeros = bytes(1 << 20)
    for _ in range(inflated >> 20):
        out.append(z.compress(zeros))
    out.append(z.flush())
    return b"".join(out)


@pytest.fixture
def inflated(monkeypatch):
    """Counts the bytes every zlib decompressor produces (and how many were made)."""
    real = zlib.decompressobj
    seen = {"objects": 0, "bytes": 0}

    class Counting:
        def __init__(self, *args):
            self._z = real(*args)
            seen["objects"] += 1

        def decompress(self, data, max_length=0):
            out = self._z.decompress(data, max_length)
            seen["bytes"] += len(out)
            return out

        def __getattr__(self, name):
            return getattr(self._z, name)

    monkeypatch.setattr(zlib, "decompressobj", Counting)
    return seen


def _mirror(tmp_path, data, name=LABELS):
    mirror = tmp_path / "mirror"
    mirror.mkdir(exist_ok=True)
    (mirror / name).write_bytes(data)
    return mirror.as_uri() + "/"


def test_mirrors_are_https():
    assert mnist.MIRRORS and all(m.startswith("https://") for m in mnist.MIRRORS)
    assert mnist.DEFAULT_SOURCE_URL == mnist.MIRRORS[0]


def test_wrong_hash_is_rejected_without_decompressing(tmp_path, inflated):
    url = _mirror(tmp_path, gzip.compress(struct.pack(">2I", 2049, 1) + b"\x07"))
    target = tmp_path / "data"
    with pytest.raises(mnist.MNISTUnavailableError,
                       match="checksum mismatch: SHA-256 of the download .* not decompressed"):
        mnist.maybe_download(LABELS, str(target), url)
    assert inflated["objects"] == 0
    assert list(target.iterdir()) == []        # the temporary file is gone too


def test_oversized_download_is_refused_while_streaming(tmp_path, inflated):
    bomb = _bomb()
    assert len(bomb) > 2 * mnist.GZ_SIZES[LABELS]
    with pytest.raises(mnist.MNISTUnavailableError, match="download is larger than 9084 bytes"):
        mnist.maybe_download(LABELS, str(tmp_path / "data"), _mirror(tmp_path, bomb))
    assert inflated["objects"] == 0
    assert list((tmp_path / "data").iterdir()) == []


def test_gzip_bomb_with_a_matching_hash_is_cut_at_the_published_size(tmp_path, monkeypatch,
                                                                     inflated):
    # Even a file whose .gz hash were published (a compromised list) cannot inflate past the
    # published IDX size: the streamed check stops one chunk past it.
    bomb = _bomb()
    monkeypatch.setitem(mnist.FILES, LABELS, (hashlib.sha256(bomb).hexdigest(),
                                              mnist.FILES[LABELS][1]))
    monkeypatch.setitem(mnist.GZ_SIZES, LABELS, len(bomb))
    with pytest.raises(mnist.MNISTUnavailableError, match="decompresses to more than the "
                       "10008 bytes of the published IDX file"):
        mnist.maybe_download(LABELS, str(tmp_path / "data"), _mirror(tmp_path, bomb))
    assert inflated["objects"] == 1 and inflated["bytes"] <= 10008 + (1 << 16)
    assert list((tmp_path / "data").iterdir()) == []


def test_verified_download_is_streamed_in_chunks(tmp_path, monkeypatch, capsys):
    raw = struct.pack(">2I", 2049, 5) + bytes([3, 1, 4, 1, 5])
    data = gzip.compress(raw, mtime=0)
    monkeypatch.setitem(mnist.FILES, LABELS, (hashlib.sha256(data).hexdigest(),
                                              hashlib.sha256(raw).hexdigest()))
    reads = []

    class Response(io.BytesIO):
        def read(self, n=-1):
            reads.append(n)
            return super().read(n)

    monkeypatch.setattr(mnist.urllib.request, "urlopen",
                        lambda url, timeout=None: Response(data))
    path = mnist.maybe_download(LABELS, str(tmp_path), "https://example.invalid/")
    assert path == str(tmp_path / LABELS)
    assert reads and all(0 < n <= 1 << 16 for n in reads)   # never one unbounded read()
    assert f"Successfully downloaded {LABELS} {len(data)} bytes." in capsys.readouterr().out
    with open(path, "rb") as f:
        assert mnist.extract_labels(f).tolist() == [3, 1, 4, 1, 5]
    assert sorted(p.name for p in tmp_path.iterdir()) == [LABELS]


def test_download_whose_idx_bytes_differ_is_rejected(tmp_path, monkeypatch):
    data = gzip.compress(struct.pack(">2I", 2049, 1) + b"\x09", mtime=0)
    monkeypatch.setitem(mnist.FILES, LABELS, (hashlib.sha256(data).hexdigest(), "0" * 64))
    with pytest.raises(mnist.MNISTUnavailableError, match="SHA-256 of the data"):
        mnist.maybe_download(LABELS, str(tmp_path / "data"), _mirror(tmp_path, data))
    assert list((tmp_path / "data").iterdir()) == []


def test_local_gzip_bomb_is_read_only_as_far_as_its_header_says(tmp_path, inflated):
    path = tmp_path / "t10k-labels-idx1-ubyte.gz"
    path.write_bytes(_bomb(count=10))
    with open(path, "rb") as f:
        labels = mnist.extract_labels(f)
    np.testing.assert_array_equal(labels, np.zeros(10, np.uint8))
    assert inflated["bytes"] <= 1 << 17


def test_local_truncated_gzip_is_reported(tmp_path):
    path = tmp_path / "t10k-labels-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(struct.pack(">2I", 2049, 100) + bytes(100))[:-12])
    with open(path, "rb") as f, pytest.raises(ValueError, match="Corrupt gzip data"):
        mnist.extract_labels(f)
