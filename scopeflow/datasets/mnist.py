"""MNIST as TF1's ``tensorflow.contrib.learn.python.learn.datasets.mnist`` gave it.

``read_data_sets(train_dir, one_hot=False, ...)`` returns ``Datasets(train, validation,
test)`` of ``DataSet`` objects with TF1's behaviour: images as ``[N, 784]`` float32 in
``[0, 1]`` (or uint8), labels as class ids or one-hot rows, and ``next_batch`` that shuffles
every epoch and stitches the tail of one epoch to the head of the next, seeding NumPy's
global generator exactly as TF's ``DataSet`` did.

Where the files come from, in order:

1. the four IDX files in ``train_dir``, gzipped or not (``train-images-idx3-ubyte.gz`` or
   ``train-images-idx3-ubyte``; the ``train-images.idx3-ubyte`` spelling too);
2. a download from the standard mirrors (HTTPS first) into ``train_dir``: streamed to a
   temporary file, its SHA-256 checked against the published ``.gz`` before anything
   decompresses it, the IDX inside checked by a streamed decompression capped at the
   published size, then renamed (atomically) into place;
3. otherwise ``MNISTUnavailableError``, which names the directory, the file names looked
   for and every mirror's failure.

``find_mnist_dir(files, search=...)`` answers "which directory holds these MNIST files?"
for code that only reads them (the test suite): ``$SCOPEFLOW_MNIST_DIR``, then the given
directories, then the user's cache (``$XDG_CACHE_HOME/scopeflow/mnist``, by default
``~/.cache/scopeflow/mnist``), downloading there with the same checks.
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import math
import os
import struct
import urllib.error
import urllib.request
import zlib

import numpy

from scopeflow.framework import dtypes
from scopeflow.framework.properties import read_only
from scopeflow.framework.random_seed import get_seed
from scopeflow.io.atomic import atomic_file, atomic_write_bytes
from scopeflow.train.training_state import add_training_state

__all__ = [
    "DataSet", "Datasets", "read_data_sets", "load_mnist", "extract_images", "extract_labels",
    "dense_to_one_hot", "maybe_download", "MNISTUnavailableError", "DEFAULT_SOURCE_URL",
    "MIRRORS", "FILES", "TEST_FILES", "write_idx", "find_mnist_dir", "default_cache_dir",
    "MNIST_DIR_ENV", "DOWNLOAD_ENV",
]

# TF1's default (the CVDF mirror of the original site), then PyTorch's copy; both HTTPS.
# (The original site, http://yann.lecun.com/exdb/mnist/, is plain HTTP and now mostly
# refuses downloads; every file is checked against the published SHA-256 anyway.)
DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
MIRRORS = (
    DEFAULT_SOURCE_URL,
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
TEST_FILES = (TEST_IMAGES, TEST_LABELS)          # the 10,000 test digits alone

# find_mnist_dir: a directory that must hold the files, and a switch against downloading.
MNIST_DIR_ENV = "SCOPEFLOW_MNIST_DIR"
DOWNLOAD_ENV = "SCOPEFLOW_MNIST_DOWNLOAD"        # "0": never download

# SHA-256 of each published .gz file, and of the IDX bytes inside it (a mirror that
# re-compresses the same data changes the first but not the second; either is accepted).
FILES = {
    TRAIN_IMAGES: ("440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
                   "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"),
    TRAIN_LABELS: ("3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
                   "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"),
    TEST_IMAGES: ("8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
                  "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"),
    TEST_LABELS: ("f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
                  "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"),
}

# Sizes of the published files and of the IDX bytes inside them: a download may not grow
# past twice its file's size, nor a decompression past the IDX size (a gzip bomb).
GZ_SIZES = {TRAIN_IMAGES: 9912422, TRAIN_LABELS: 28881, TEST_IMAGES: 1648877,
            TEST_LABELS: 4542}
IDX_SIZES = {TRAIN_IMAGES: 47040016, TRAIN_LABELS: 60008, TEST_IMAGES: 7840016,
             TEST_LABELS: 10008}
_MAX_OTHER_DOWNLOAD = 64 << 20      # a file not in FILES (a custom source_url)
_MAX_IDX_BYTES = 2 << 30            # any local IDX file (EMNIST's largest is 0.55 GB)
_CHUNK = 1 << 16

_IMAGES_MAGIC, _LABELS_MAGIC = 2051, 2049
_DOWNLOAD_TIMEOUT_S = 30

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


class MNISTUnavailableError(OSError):
    """The MNIST files are neither in the directory nor downloadable (message says why)."""


# ── Reading IDX files ────────────────────────────────────────────────────────────────
def _read_idx_bytes(f):
    """The IDX bytes of an open file, gunzipped when it is gzip (detected by its magic)."""
    data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = _gunzip_idx(data, _name(f))
    return data


_IDX_ITEMSIZE = {0x08: 1, 0x09: 1, 0x0B: 2, 0x0C: 4, 0x0D: 4, 0x0E: 8}


def _idx_size(header):
    """The size an IDX file's header declares (None: not an IDX header; 0: need more)."""
    if len(header) < 4:
        return 0
    magic = int.from_bytes(header[:4], "big")
    ndim, kind = magic & 0xFF, (magic >> 8) & 0xFF
    if magic >> 16 or kind not in _IDX_ITEMSIZE or not 1 <= ndim <= 8:
        return None
    if len(header) < 4 + 4 * ndim:
        return 0
    dims = struct.unpack(f">{ndim}I", header[4:4 + 4 * ndim])
    count = 1
    for d in dims:
        count *= d
    return 4 + 4 * ndim + count * _IDX_ITEMSIZE[kind]


def _gunzip_idx(data, name):
    """Decompresses gzipped IDX bytes, stopping at the size the IDX header declares.

    A gzip bomb (a small file inflating to gigabytes) is cut at that size instead of
    filling memory; TF's reader too read only what the header declares. A header
    declaring more than ``_MAX_IDX_BYTES`` is refused before anything more is inflated,
    and so is (as ``ValueError``, not ``MemoryError``) data this process cannot hold.
    Bytes that are not an IDX header come back after one chunk, for the caller's
    magic-number check to report.
    """
    z = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    pending, cap = data, 0
    try:
        while pending and not z.eof:
            room = _CHUNK if not cap else cap + 1 - len(out)
            out += z.decompress(pending, max(room, 1))
            pending = z.unconsumed_tail
            if not cap:
                cap = _idx_size(out)
                if cap is None:
                    return bytes(out)
                if cap > _MAX_IDX_BYTES:
                    # Refused before inflating more: a header this large is damage (or a
                    # bomb's lure), never an MNIST-style file.
                    raise ValueError(f"MNIST file {name}: its IDX header declares {cap} "
                                     f"bytes, more than the {_MAX_IDX_BYTES} this reader "
                                     "accepts")
            if cap and len(out) >= cap:
                del out[cap:]        # as TF's reader, which reads what the header says
                return bytes(out)
    except zlib.error as e:
        raise ValueError(f"Corrupt gzip data in MNIST file {name}: {e}") from None
    except MemoryError:
        out = None
        raise ValueError(f"MNIST file {name}: its IDX header declares {cap} bytes, more "
                         "than this process can hold in memory") from None
    if not z.eof:
        raise ValueError(f"Corrupt gzip data in MNIST file {name}: Compressed file ended "
                         "before the end-of-stream marker was reached")
    return bytes(out)


def _name(f):
    return getattr(f, "name", "<stream>")


def _header(data, count, f, kind):
    if len(data) < 4 * count:
        raise ValueError(f"MNIST {kind} file {_name(f)} is truncated: {len(data)} bytes, "
                         f"shorter than its {4 * count}-byte header")
    return struct.unpack(f">{count}I", data[:4 * count])


def extract_images(f):
    """Extract the images into a 4D uint8 numpy array [index, y, x, depth].

    Args:
      f: A file object that can be passed into a gzip reader (plain IDX bytes work too).

    Returns:
      data: A 4D uint8 numpy array [index, y, x, depth].

    Raises:
      ValueError: If the bytestream does not start with 2051.
    """
    print("Extracting", _name(f))
    data = _read_idx_bytes(f)
    magic = _header(data, 1, f, "image")[0]
    if magic != _IMAGES_MAGIC:
        raise ValueError(f"Invalid magic number {magic} in MNIST image file: {_name(f)}")
    _, num_images, rows, cols = _header(data, 4, f, "image")
    # A zero among the dimensions makes the size 0, but NumPy still refuses to shape an
    # array whose other dimensions multiply past its index range (TF1's reshape raised
    # NumPy's "array is too big" / "cannot reshape"): such a header is damage.
    if math.prod(d for d in (num_images, rows, cols) if d) > max(_MAX_IDX_BYTES, len(data)):
        raise ValueError(f"MNIST image file {_name(f)} declares {num_images} images of "
                         f"{rows}x{cols} pixels, a damaged header")
    size = num_images * rows * cols
    if len(data) - 16 < size:
        raise ValueError(f"MNIST image file {_name(f)} is truncated: its header promises "
                         f"{num_images} images of {rows}x{cols} ({size} bytes) but it holds "
                         f"{len(data) - 16} bytes")
    return numpy.frombuffer(data, dtype=numpy.uint8, count=size, offset=16).reshape(
        num_images, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """Convert class labels from scalars to one-hot vectors (float64, as TF1)."""
    num_labels = labels_dense.shape[0]
    index_offset = numpy.arange(num_labels) * num_classes
    labels_one_hot = numpy.zeros((num_labels, num_classes))
    labels_one_hot.flat[index_offset + labels_dense.ravel()] = 1
    return labels_one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """Extract the labels into a 1D uint8 numpy array [index] (or one-hot [index, class]).

    Raises:
      ValueError: If the bytestream doesn't start with 2049.
    """
    print("Extracting", _name(f))
    data = _read_idx_bytes(f)
    magic = _header(data, 1, f, "label")[0]
    if magic != _LABELS_MAGIC:
        raise ValueError(f"Invalid magic number {magic} in MNIST label file: {_name(f)}")
    num_items = _header(data, 2, f, "label")[1]
    if len(data) - 8 < num_items:
        raise ValueError(f"MNIST label file {_name(f)} is truncated: its header promises "
                         f"{num_items} labels but it holds {len(data) - 8}")
    labels = numpy.frombuffer(data, dtype=numpy.uint8, count=num_items, offset=8)
    if one_hot:
        # TF1 wrote a label past the last class into the next row's one-hot vector (or
        # raised IndexError in the last rows): a damaged file is refused instead.
        if labels.size and int(labels.max()) >= num_classes:
            at = int(numpy.argmax(labels >= num_classes))
            raise ValueError(f"MNIST label file {_name(f)} holds label {labels[at]} (item "
                             f"{at}), not one of the {num_classes} classes")
        return dense_to_one_hot(labels, num_classes)
    return labels


def write_idx(path, array):
    """Write a uint8 array as an IDX file (gzipped when ``path`` ends in ``.gz``).

    ``[N, rows, cols]`` or ``[N, rows, cols, 1]`` arrays become an image file (magic 2051),
    ``[N]`` arrays a label file (2049): the layout ``extract_images``/``extract_labels``
    read, so any digits can be served to ``read_data_sets``. Written atomically.
    """
    array = numpy.asarray(array)
    if array.dtype != numpy.uint8:
        raise TypeError(f"write_idx({path!r}): IDX data must be uint8, got {array.dtype}")
    if array.ndim == 4 and array.shape[3] == 1:
        array = array[..., 0]
    if array.ndim == 3:
        header = struct.pack(">4I", _IMAGES_MAGIC, *array.shape)
    elif array.ndim == 1:
        header = struct.pack(">2I", _LABELS_MAGIC, array.shape[0])
    else:
        raise ValueError(f"write_idx({path!r}): expected images [N, rows, cols] or labels "
                         f"[N], got shape {array.shape}")
    data = header + numpy.ascontiguousarray(array).tobytes()
    if str(path).endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    atomic_write_bytes(os.fspath(path), data, sync=False)


# ── DataSet ──────────────────────────────────────────────────────────────────────────
def _numpy_seed(seed):
    """The seed TF1's DataSet gives ``numpy.random.seed``: ``seed1 if seed is None else
    seed2`` of ``random_seed.get_seed(seed)``, which, as in TF, consumes one op seed of a
    seeded graph, so the random ops built after it get TF's seeds."""
    seed1, seed2 = get_seed(seed)
    return seed1 if seed is None else seed2


class DataSet:
    """A container of images and labels with TF1's ``next_batch``.

    ``DataSet(images, labels, fake_data=False, one_hot=False, dtype=tf.float32,
    reshape=True, seed=None)``: images ``[N, rows, cols, 1]`` uint8, labels ``[N]`` or
    ``[N, classes]``. ``dtype`` float32 rescales to ``[0, 1]``; ``reshape`` flattens each
    image. Seeds NumPy's global generator as TF did (``seed``, else the graph seed, else
    fresh entropy), which drives the shuffling.
    """

    def __init__(self, images, labels, fake_data=False, one_hot=False,
                 dtype=dtypes.float32, reshape=True, seed=None):
        numpy.random.seed(_numpy_seed(seed))
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise AssertionError(
                    f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.ndim != 4 or images.shape[3] != 1:
                    raise AssertionError(f"reshape=True needs images of shape [N, rows, "
                                         f"cols, 1], got {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                # [0, 255] -> [0.0, 1.0], multiplying as TF1 did (bit-identical values).
                images = numpy.multiply(images.astype(numpy.float32), numpy.float32(1.0 / 255.0))
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._order = None  # the shuffles so far, as indices into the given arrays

    images = read_only("_images")
    labels = read_only("_labels")
    num_examples = read_only("_num_examples")
    epochs_completed = read_only("_epochs_completed")

    def _shuffle(self):
        perm = numpy.arange(self._num_examples)
        numpy.random.shuffle(perm)
        self._images = self._images[perm]
        self._labels = self._labels[perm]
        self._order = perm if self._order is None else self._order[perm]

    # -- exact resume (scopeflow.train.training_state) ----------------------------------
    def get_state(self):
        """The position of ``next_batch``: the order the shuffles made (indices into the
        arrays this DataSet was made with), the index in the epoch, the epochs completed,
        and NumPy's global generator, which TF1's DataSet shuffles with."""
        kind, keys, pos, has_gauss, cached = numpy.random.get_state()
        return {"order": None if self._order is None else self._order.astype(numpy.int32),
                "index_in_epoch": self._index_in_epoch,
                "epochs_completed": self._epochs_completed,
                "numpy_random": [kind, keys, int(pos), int(has_gauss), float(cached)]}

    def set_state(self, state):
        """Continues from a position ``get_state`` returned (of a DataSet of the same data)."""
        order = state["order"]
        n = self._num_examples
        if order is not None:
            order = numpy.asarray(order, dtype=numpy.int64)
            if order.shape != (n,) or not numpy.array_equal(numpy.sort(order), numpy.arange(n)):
                raise ValueError(f"the saved order is not a permutation of this DataSet's "
                                 f"{n} examples")
        index, epochs = int(state["index_in_epoch"]), int(state["epochs_completed"])
        if not 0 <= index <= n or epochs < 0:
            raise ValueError(f"bad saved position: index {index} of {n}, epoch {epochs}")
        kind, keys, pos, has_gauss, cached = state["numpy_random"]
        if self._order is not None:  # back to the given order, then the saved one
            undo = numpy.argsort(self._order)
            self._images, self._labels = self._images[undo], self._labels[undo]
        if order is not None:
            self._images, self._labels = self._images[order], self._labels[order]
        self._order = order
        self._index_in_epoch, self._epochs_completed = index, epochs
        numpy.random.set_state((str(kind), numpy.asarray(keys, dtype=numpy.uint32), int(pos),
                                int(has_gauss), float(cached)))

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """Return the next ``batch_size`` examples from this data set, as TF1.

        The first call shuffles (when ``shuffle``); a batch that crosses the end of an epoch
        takes the rest of this epoch, reshuffles, and fills up from the next epoch.
        """
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return ([fake_image for _ in range(batch_size)],
                    [fake_label for _ in range(batch_size)])
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start:self._num_examples]
            labels_rest_part = self._labels[start:self._num_examples]
            if shuffle:
                self._shuffle()
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            images_new_part = self._images[start:end]
            labels_new_part = self._labels[start:end]
            return (numpy.concatenate((images_rest_part, images_new_part), axis=0),
                    numpy.concatenate((labels_rest_part, labels_new_part), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]

    def __repr__(self):
        return (f"<DataSet: {self._num_examples} examples, "
                f"{self._epochs_completed} epochs completed>")


# ── Finding or downloading the files ─────────────────────────────────────────────────
def _local_candidates(filename):
    raw = filename[:-3] if filename.endswith(".gz") else filename
    dotted = raw.replace("-idx", ".idx")
    return [filename, raw, dotted + ".gz", dotted]


def _find_local(filename, work_directory):
    for name in _local_candidates(filename):
        path = os.path.join(work_directory, name)
        if os.path.isfile(path):
            return path
    return None


def _check_gunzipped(path, filename):
    """None when the gzip file at ``path`` holds the published IDX bytes, else the reason.

    Streams the decompression in chunks and stops past the published IDX size, so even a
    gzip bomb costs at most that much work and no memory.
    """
    raw_sha, cap = FILES[filename][1], IDX_SIZES.get(filename, _MAX_IDX_BYTES)
    digest, size = hashlib.sha256(), 0
    z = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        with open(path, "rb") as f:
            pending = b""
            while not z.eof:
                pending = pending or f.read(_CHUNK)
                if not pending:
                    return "the gzip stream is truncated"
                piece = z.decompress(pending, _CHUNK)
                pending = z.unconsumed_tail
                size += len(piece)
                if size > cap:
                    return (f"it decompresses to more than the {cap} bytes of the published "
                            "IDX file (a gzip bomb?)")
                digest.update(piece)
    except zlib.error as e:
        return f"corrupt gzip data: {e}"
    if digest.hexdigest() != raw_sha:
        return f"checksum mismatch: SHA-256 of the data {digest.hexdigest()} != {raw_sha}"
    return None


def _download(url, filename, work_directory, timeout=_DOWNLOAD_TIMEOUT_S):
    """Fetch ``url`` into ``work_directory/filename`` atomically, after its checks pass.

    The download is streamed to a temporary file in the directory, never held in memory,
    and refused once it outgrows twice the published file. A file of ``FILES`` must then
    have the published ``.gz``'s SHA-256 (nothing unverified is ever decompressed), and
    its decompressed IDX bytes the published SHA-256 (a streamed decompression capped at
    the published size). Only then is the file renamed into place.
    """
    filepath = os.path.join(work_directory, filename)
    cap = 2 * GZ_SIZES[filename] if filename in GZ_SIZES else _MAX_OTHER_DOWNLOAD
    digest, size = hashlib.sha256(), 0
    with atomic_file(filepath, "wb") as out:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            while chunk := response.read(_CHUNK):
                size += len(chunk)
                if size > cap:
                    raise ValueError(f"the download is larger than {cap} bytes; the published "
                                     f"{filename} is far smaller")
                digest.update(chunk)
                out.write(chunk)
        if filename in FILES:
            gz_sha = FILES[filename][0]
            if digest.hexdigest() != gz_sha:
                raise ValueError(f"checksum mismatch: SHA-256 of the download "
                                 f"{digest.hexdigest()} != {gz_sha} (the published "
                                 f"{filename}); not decompressed")
            out.flush()
            problem = _check_gunzipped(out.name, filename)
            if problem:
                raise ValueError(problem)
    print("Successfully downloaded", filename, size, "bytes.")
    return filepath


def _fetch(filename, work_directory, source_url, timeout):
    """``(path, [])`` after downloading ``filename`` into ``work_directory`` from
    ``source_url`` (every standard mirror when None), else ``(None, failures)``: one line
    a mirror."""
    if source_url is None:
        urls = [mirror + filename for mirror in MIRRORS]
    else:
        urls = [source_url + filename if source_url.endswith("/") else source_url]
    failures = []
    try:
        os.makedirs(work_directory, exist_ok=True)
    except OSError as e:
        return None, [f"cannot create {work_directory!r}: {e}"]
    for url in urls:
        try:
            return _download(url, filename, work_directory, timeout), []
        except (OSError, ValueError) as e:
            reason = e.reason if isinstance(e, urllib.error.URLError) else e
            failures.append(f"{url}: {reason}")
    return None, failures


def maybe_download(filename, work_directory, source_url=None, *, timeout=_DOWNLOAD_TIMEOUT_S):
    """The path of ``filename`` in ``work_directory``, downloading it if it is not there.

    Looks for the file gzipped or not; otherwise tries ``source_url`` (a full URL or a
    mirror directory ending in ``/``), or every standard mirror when it is None, keeping
    the first download whose SHA-256 matches the published file. ``timeout``: seconds
    each mirror may take to answer (connect or read).

    Raises:
      MNISTUnavailableError: the file is not there and no mirror delivered it intact.
    """
    found = _find_local(filename, work_directory)
    if found:
        return found
    path, failures = _fetch(filename, work_directory, source_url, timeout)
    if path:
        return path
    looked_for = ", ".join(_local_candidates(filename))
    raise MNISTUnavailableError(
        f"MNIST file {filename} is not in {os.path.abspath(work_directory)!r} (looked for "
        f"{looked_for}) and could not be downloaded:\n  " + "\n  ".join(failures) +
        "\nPut the four MNIST files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
        "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz) in that directory, or connect "
        "to the network.")


def default_cache_dir():
    """Where ``find_mnist_dir`` keeps its downloads: ``$XDG_CACHE_HOME/scopeflow/mnist``
    (when that variable is an absolute path, as the XDG spec asks), else
    ``~/.cache/scopeflow/mnist``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "scopeflow", "mnist")


def _missing(directory, files):
    return [name for name in files if not _find_local(name, directory)]


def find_mnist_dir(files=TEST_FILES, search=(), *, download=None, timeout=10):
    """The directory to read the MNIST ``files`` from (gzipped or not), found in this order:

    1. ``$SCOPEFLOW_MNIST_DIR`` when it is set; it must hold them (an explicit choice is
       never passed over for another copy);
    2. the first directory of ``search`` that holds them all;
    3. the user's cache, ``default_cache_dir()``: the files already there, the rest
       downloaded into it from the standard mirrors (SHA-256 checked, written atomically;
       ``timeout`` seconds a mirror), unless ``download`` is False. ``download=None``
       allows it unless ``$SCOPEFLOW_MNIST_DOWNLOAD=0``.

    Raises:
      MNISTUnavailableError: no directory gave the files; the message says what was tried
        and how to provide them.
    """
    files = list(files)
    names = ", ".join(files)
    chosen = os.environ.get(MNIST_DIR_ENV)
    if chosen:
        missing = _missing(chosen, files)
        if not missing:
            return chosen
        raise MNISTUnavailableError(
            f"{MNIST_DIR_ENV}={chosen} does not hold the MNIST files {', '.join(missing)} "
            f"(gzipped or not). Point {MNIST_DIR_ENV} at a directory holding {names}, or "
            f"unset it to use a copy found elsewhere or downloaded.")
    tried = [f"{MNIST_DIR_ENV}: not set"]
    found = _search_for(files, search, tried)
    if found is not None:
        return found
    cache = default_cache_dir()
    if download is None:
        download = os.environ.get(DOWNLOAD_ENV, "1") != "0"
    if _fill_cache(cache, files, download, timeout, tried):
        return cache
    raise MNISTUnavailableError(
        f"MNIST files {names} not found:\n  " + "\n  ".join(tried) +
        f"\nTo provide them, either set {MNIST_DIR_ENV}=/path/to/dir, a directory holding "
        f"{names} (gzipped or not), or allow the download: network access to one of "
        f"{', '.join(MIRRORS)} and {DOWNLOAD_ENV} unset (or 1); the files are then cached "
        f"in {cache}.")


def _search_for(files, search, tried):
    """The first directory of ``search`` holding all ``files``, or None; each one passed
    over is added to ``tried`` with the reason."""
    for directory in search:
        directory = os.fspath(directory)
        missing = _missing(directory, files)
        if not missing:
            return directory
        tried.append(f"{directory}: " + ("no such directory" if not os.path.isdir(directory)
                                         else f"lacks {', '.join(missing)}"))
    return None


def _fill_cache(cache, files, download, timeout, tried) -> bool:
    """Whether ``cache`` holds all ``files``, once the missing ones are downloaded (when
    ``download``); if not, why is added to ``tried``."""
    missing = _missing(cache, files)
    if not missing:
        return True
    if not download:
        tried.append(f"{cache} (the download cache): lacks {', '.join(missing)}; downloading "
                     f"is off ({DOWNLOAD_ENV}=0)")
        return False
    failures = []
    for name in missing:           # all are needed: stop at the first that fails
        path, failures = _fetch(name, cache, None, timeout)
        if path is None:
            break
    missing = _missing(cache, files)
    if not missing:
        return True
    tried.append(f"{cache} (the download cache): lacks {', '.join(missing)}; the "
                 "download failed:\n    " + "\n    ".join(failures))
    return False


# ── read_data_sets ───────────────────────────────────────────────────────────────────
def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32,
                   reshape=True, validation_size=5000, seed=None,
                   source_url=DEFAULT_SOURCE_URL):
    """MNIST's train, validation and test ``DataSet``s (TF1's ``read_data_sets``).

    The first ``validation_size`` training examples become ``validation``. Files come from
    ``train_dir`` (gzipped or plain IDX) or are downloaded into it with checksum
    verification: from ``source_url`` when it is not the default, else from each standard
    mirror in turn.

    Raises:
      MNISTUnavailableError: a file is missing and could not be downloaded.
      ValueError: ``validation_size`` is out of range, or a file is not MNIST IDX data.
      TypeError: ``dtype`` is neither uint8 nor float32.
    """
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())

    if not source_url or source_url == DEFAULT_SOURCE_URL:
        source_url = None  # every standard mirror, TF1's first

    def read(filename, extract, **kwargs):
        with open(maybe_download(filename, train_dir, source_url), "rb") as f:
            return extract(f, **kwargs)

    train_images = read(TRAIN_IMAGES, extract_images)
    train_labels = read(TRAIN_LABELS, extract_labels, one_hot=one_hot)
    test_images = read(TEST_IMAGES, extract_images)
    test_labels = read(TEST_LABELS, extract_labels, one_hot=one_hot)

    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. "
                         f"Received: {validation_size}.")

    validation_images = train_images[:validation_size]
    validation_labels = train_labels[:validation_size]
    train_images = train_images[validation_size:]
    train_labels = train_labels[validation_size:]

    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    train = DataSet(train_images, train_labels, **options)
    validation = DataSet(validation_images, validation_labels, **options)
    test = DataSet(test_images, test_labels, **options)
    # Exact resume: their positions join the checkpoints of training-state savers. TF1
    # programs may call read_data_sets more than once: later sets are mnist/train_1...
    for name, dataset in (("train", train), ("validation", validation), ("test", test)):
        add_training_state(dataset, f"mnist/{name}", make_unique=True)
    return Datasets(train=train, validation=validation, test=test)


def load_mnist(train_dir="MNIST-data"):
    """``read_data_sets(train_dir)`` (TF1's ``load_mnist``)."""
    return read_data_sets(train_dir)
