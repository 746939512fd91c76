"""MNIST input: TF1's read_data_sets/DataSet behaviour on the real MNIST test set.

The tests split the real MNIST test set (t10k, 10,000 digits, from the ``mnist_dir``
fixture: ``$SCOPEFLOW_MNIST_DIR``, ``../shared/datasets/mnist`` or the user's download
cache) into a temporary ``train_dir`` (first 8,000 as "train", last 2,000 as "test").
No test here touches the network: downloads are exercised through ``file://`` mirrors.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.datasets import mnist
from scopeflow.examples.tutorials.mnist import input_data


def _file_bytes(directory, name):
    """The bytes of MNIST file ``name`` in ``directory`` (stored gzipped or not) as a .gz."""
    data = Path(mnist._find_local(name, str(directory))).read_bytes()
    return data if data[:2] == b"\x1f\x8b" else gzip.compress(data, mtime=0)


@pytest.fixture
def t10k(mnist_t10k):
    return mnist_t10k


def write_split(directory, images, labels, n_train=8000, gz=True):
    """The shared test set as a read_data_sets directory: n_train "train", the rest "test"."""
    suffix = ".gz" if gz else ""
    directory.mkdir(parents=True, exist_ok=True)
    mnist.write_idx(directory / f"train-images-idx3-ubyte{suffix}", images[:n_train])
    mnist.write_idx(directory / f"train-labels-idx1-ubyte{suffix}", labels[:n_train])
    mnist.write_idx(directory / f"t10k-images-idx3-ubyte{suffix}", images[n_train:])
    mnist.write_idx(directory / f"t10k-labels-idx1-ubyte{suffix}", labels[n_train:])
    return directory


@pytest.fixture
def split_dir(tmp_path, t10k):
    return write_split(tmp_path / "MNIST_data", *t10k)


def test_shared_files_are_the_published_mnist_test_set(mnist_dir, t10k):
    # The .gz files may be re-compressed, but their IDX bytes are the published ones.
    for name in (mnist.TEST_IMAGES, mnist.TEST_LABELS):
        raw = gzip.decompress(_file_bytes(mnist_dir, name))
        assert hashlib.sha256(raw).hexdigest() == mnist.FILES[name][1]
    images, labels = t10k
    assert images.shape == (10000, 28, 28, 1) and images.dtype == np.uint8
    assert labels.shape == (10000,) and labels[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]


@pytest.mark.bitexact
def test_read_data_sets_splits_scales_and_one_hots(split_dir, t10k, capsys):
    data = input_data.read_data_sets(str(split_dir), one_hot=True, validation_size=1000)
    out = capsys.readouterr().out
    assert f"Extracting {split_dir}/train-images-idx3-ubyte.gz" in out
    assert out.count("Extracting") == 4
    assert isinstance(data, mnist.Datasets)
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (7000, 1000, 2000)
    images, labels = t10k
    assert data.train.images.shape == (7000, 784) and data.train.images.dtype == np.float32
    # TF1 scales by multiplying with 1/255 in float32: bit-identical values.
    expected = images[1000:8000].reshape(7000, 784).astype(np.float32) * np.float32(1 / 255)
    np.testing.assert_array_equal(data.train.images, expected)
    assert data.train.images.min() == 0.0 and data.train.images.max() == 1.0
    assert data.validation.labels.shape == (1000, 10)
    assert data.validation.labels.dtype == np.float64  # TF1's dense_to_one_hot
    np.testing.assert_array_equal(data.validation.labels.argmax(1), labels[:1000])
    np.testing.assert_array_equal(data.test.labels.argmax(1), labels[8000:])
    assert data.train.epochs_completed == 0


def test_uncompressed_files_uint8_and_no_reshape(tmp_path, t10k):
    d = write_split(tmp_path / "plain", *t10k, gz=False)
    data = mnist.read_data_sets(str(d), dtype=tf.uint8, reshape=False, validation_size=0)
    assert data.train.images.shape == (8000, 28, 28, 1) and data.train.images.dtype == np.uint8
    assert data.validation.num_examples == 0
    np.testing.assert_array_equal(data.test.images, t10k[0][8000:])
    assert data.train.labels.dtype == np.uint8


def test_next_batch_epoch_boundary_and_seeding_as_tf1():
    images = np.arange(10, dtype=np.uint8).reshape(10, 1, 1, 1)
    labels = np.arange(10, dtype=np.uint8)
    ds = mnist.DataSet(images, labels, dtype=tf.uint8, seed=3)
    # TF1: DataSet seeds NumPy's global generator with the op seed, then the first
    # next_batch draws a permutation, and every epoch boundary another.
    rng = np.random.RandomState(3)
    perm0 = np.arange(10)
    rng.shuffle(perm0)
    batches = [ds.next_batch(4)[1] for _ in range(2)]
    assert [b.tolist() for b in batches] == [perm0[:4].tolist(), perm0[4:8].tolist()]
    perm1 = np.arange(10)
    rng.shuffle(perm1)
    # The third batch crosses the boundary: the epoch's last two, then two of the next.
    x, y = ds.next_batch(4)
    assert y.tolist() == perm0[8:].tolist() + perm0[perm1][:2].tolist()
    np.testing.assert_array_equal(x.reshape(-1), y)  # images and labels stay paired
    assert ds.epochs_completed == 1
    assert ds.next_batch(8)[1].tolist() == perm0[perm1][2:10].tolist()
    assert ds.epochs_completed == 1


def test_next_batch_without_shuffle_keeps_order():
    ds = mnist.DataSet(np.arange(5, dtype=np.uint8).reshape(5, 1, 1, 1),
                       np.arange(5, dtype=np.uint8), dtype=tf.uint8)
    got = [ds.next_batch(2, shuffle=False)[1].tolist() for _ in range(3)]
    assert got == [[0, 1], [2, 3], [4, 0]] and ds.epochs_completed == 1


def _seeded_values(between):
    with tf.Graph().as_default():
        tf.set_random_seed(11)
        a = tf.random_uniform([3])
        between()
        b = tf.random_uniform([3])
        with tf.Session() as sess:
            return sess.run([a, b])


def test_graph_seed_seeds_numpy_and_consumes_one_op_seed_as_tf1():
    """TF1's DataSet calls ``random_seed.get_seed(seed)`` once (which takes an op seed of a
    seeded graph) and seeds NumPy with its graph-level part."""
    def dataset():
        mnist.DataSet([], [], fake_data=True)
        assert np.random.randint(1 << 30) == np.random.RandomState(11).randint(1 << 30)

    with_dataset = _seeded_values(dataset)
    assert np.array_equal(with_dataset, _seeded_values(lambda: tf.get_seed(None)))
    assert not np.array_equal(with_dataset[1], _seeded_values(lambda: None)[1])


def test_ops_after_a_dataset_get_tfs_random_numbers(tf1):
    theirs = tf1("""
        tf.disable_v2_behavior()
        tf.set_random_seed(11)
        a = tf.random_uniform([3])
        tf.get_seed(None)  # what TF1's mnist DataSet does
        b = tf.random_uniform([3])
        print(json.dumps(np.array(tf.Session().run([a, b])).tolist()))
    """)
    ours = _seeded_values(lambda: mnist.DataSet([], [], fake_data=True))
    np.testing.assert_array_equal(np.array(ours), np.array(theirs, np.float32))


def test_fake_data(capsys):
    data = mnist.read_data_sets("unused", fake_data=True, one_hot=True)
    assert data.train.num_examples == 10000 and capsys.readouterr().out == ""
    x, y = data.train.next_batch(3, fake_data=True)
    assert len(x) == 3 and x[0] == [1] * 784 and y[0] == [1] + [0] * 9


def test_errors_as_tf1(tmp_path, split_dir):
    with pytest.raises(ValueError, match=r"Validation size should be between 0 and 8000\. "
                                         r"Received: 9000\."):
        mnist.read_data_sets(str(split_dir), validation_size=9000)
    with pytest.raises(TypeError, match="Invalid image dtype tf.float64, expected uint8 or "
                                        "float32"):
        mnist.DataSet(np.zeros((1, 1, 1, 1), np.uint8), np.zeros(1), dtype=tf.float64)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b"\x00\x00\x08\x01" + b"\x00" * 12))
    with open(bad, "rb") as f, pytest.raises(ValueError, match="Invalid magic number 2049 in "
                                             f"MNIST image file: {bad}"):
        mnist.extract_images(f)
    truncated = tmp_path / "short"
    truncated.write_bytes((split_dir / "t10k-images-idx3-ubyte.gz").read_bytes()[:1000])
    with open(truncated, "rb") as f, pytest.raises(ValueError, match="Corrupt gzip data"):
        mnist.extract_images(f)


def test_missing_files_and_no_mirror_names_both(tmp_path):
    empty = tmp_path / "empty"
    mirror = tmp_path / "no-mirror"
    with pytest.raises(mnist.MNISTUnavailableError) as info:
        mnist.read_data_sets(str(empty), source_url=mirror.as_uri() + "/")
    msg = str(info.value)
    assert f"MNIST file train-images-idx3-ubyte.gz is not in '{empty}'" in msg
    assert "train-images-idx3-ubyte.gz, train-images-idx3-ubyte" in msg
    assert f"{mirror.as_uri()}/train-images-idx3-ubyte.gz" in msg
    assert isinstance(info.value, OSError)
    assert not list(empty.iterdir())  # nothing half-written left behind


def test_download_verifies_checksums_and_writes_atomically(tmp_path, mnist_dir, t10k, capsys,
                                                           monkeypatch):
    # A file:// mirror holding the genuine test-set files and tampered training files. The
    # shared copies may be re-compressed (their IDX bytes are the published ones, the .gz
    # bytes not): the published .gz hash is patched to theirs, as a mirror would serve it.
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name in (mnist.TEST_IMAGES, mnist.TEST_LABELS):
        (mirror / name).write_bytes(_file_bytes(mnist_dir, name))
        monkeypatch.setitem(mnist.FILES, name, (
            hashlib.sha256((mirror / name).read_bytes()).hexdigest(), mnist.FILES[name][1]))
    size = (mirror / mnist.TEST_LABELS).stat().st_size
    target = tmp_path / "data"
    path = mnist.maybe_download(mnist.TEST_LABELS, str(target), mirror.as_uri() + "/")
    assert Path(path) == target / mnist.TEST_LABELS
    assert f"Successfully downloaded t10k-labels-idx1-ubyte.gz {size} bytes." in capsys.readouterr().out
    with open(path, "rb") as f:
        np.testing.assert_array_equal(mnist.extract_labels(f), t10k[1])

    mnist.write_idx(mirror / mnist.TRAIN_LABELS, t10k[1][:100])  # not the real file
    with pytest.raises(mnist.MNISTUnavailableError, match="checksum mismatch"):
        mnist.maybe_download(mnist.TRAIN_LABELS, str(target), mirror.as_uri() + "/")
    assert sorted(p.name for p in target.iterdir()) == [mnist.TEST_LABELS]


def test_local_files_win_over_download(split_dir):
    # A source that would fail is never contacted when the files are present.
    data = mnist.read_data_sets(str(split_dir), source_url="file:///nonexistent/")
    assert data.test.num_examples == 2000


def test_write_idx_rejects_non_uint8(tmp_path):
    with pytest.raises(TypeError, match="IDX data must be uint8, got float32"):
        mnist.write_idx(tmp_path / "x", np.zeros((2, 2, 2), np.float32))


@pytest.mark.tf
def test_numpy_seed_matches_tf_get_seed(tf1):
    got = tf1("""
        from tensorflow.python.framework import random_seed
        out = []
        for graph_seed in (None, 0, 5, 2**31 + 3):
            for op_seed in (None, 0, 7):
                with tf.Graph().as_default():
                    if graph_seed is not None:
                        tf.set_random_seed(graph_seed)
                    s1, s2 = random_seed.get_seed(op_seed)
                    out.append(s1 if op_seed is None else s2)
        print(json.dumps(out))
    """)
    ours = []
    for graph_seed in (None, 0, 5, 2**31 + 3):
        for op_seed in (None, 0, 7):
            with tf.Graph().as_default():
                if graph_seed is not None:
                    tf.set_random_seed(graph_seed)
                ours.append(mnist._numpy_seed(op_seed))
    assert ours == got


def test_damaged_label_and_gzip_headers_are_value_errors(tmp_path, monkeypatch):
    # A label past the last class: TF1's dense_to_one_hot wrote it into the next row's
    # vector (or raised IndexError in the last rows); here the file is refused.
    labels = tmp_path / "labels.gz"
    mnist.write_idx(labels, np.array([12, 1, 2], np.uint8))
    with open(labels, "rb") as f, pytest.raises(ValueError, match=r"holds label 12 \(item 0\)"
                                                r", not one of the 10 classes"):
        mnist.extract_labels(f, one_hot=True)
    with open(labels, "rb") as f:   # as class ids the value is returned as it is
        assert mnist.extract_labels(f).tolist() == [12, 1, 2]
    # A gzip bomb under a header declaring 2**96 bytes is refused at the header, before
    # the 64 MiB of zeros behind it are inflated (a larger bomb exhausted memory).
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    header = struct.pack(">4I", 2051, 2**32 - 1, 2**32 - 1, 2**32 - 1)
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(z.compress(header) + z.compress(bytes(64 << 20)) + z.flush())
    with open(bomb, "rb") as f, pytest.raises(ValueError, match=r"header declares \d+ bytes, "
                                              r"more than the 2147483648 this reader accepts"):
        mnist.extract_images(f)

    # Zero-size images whose other dimensions overflow: NumPy refused to shape them.
    for dims in ((0, 2**32 - 1, 2**32 - 1), (4194304000, 3120562176, 0)):
        empty = tmp_path / "empty-images"
        empty.write_bytes(struct.pack(">4I", 2051, *dims))
        with open(empty, "rb") as f, pytest.raises(ValueError, match=rf"declares {dims[0]} "
                                                   rf"images of {dims[1]}x{dims[2]} pixels"):
            mnist.extract_images(f)

    # Running out of memory while inflating is reported as the file's fault, not a crash.
    class Exhausted:
        def __init__(self, *args):
            self.eof = False

        def decompress(self, data, max_length):
            raise MemoryError

    monkeypatch.setattr(mnist.zlib, "decompressobj", Exhausted)
    with open(labels, "rb") as f, pytest.raises(ValueError, match="more than this process "
                                                "can hold in memory"):
        mnist.extract_labels(f)
