"""MNIST's IDX files, gzipped or plain (``scopeflow.datasets.mnist``): ``extract_images``,
``extract_labels(one_hot=True)`` and ``read_data_sets`` on a directory whose training
file is the input.

Seeds: the first 100 digits of MNIST's real test set (``../shared/datasets/mnist``, or
``$SCOPEFLOW_MNIST_DIR``; without them, 100 deterministic random digits) written by
``mnist.write_idx``, gzipped and plain.

Accepted: ``ValueError`` raised by scopeflow -- TF1's ``extract_images``/``extract_labels``
raise ``ValueError`` for a file that is not MNIST data ("Invalid magic number"), and
scopeflow's reader documents the same class for every other damage (truncated, corrupt
gzip), where TF1's leaked ``IndexError``/``EOFError``/``zlib.error``; ``read_data_sets``
raises it too for a ``validation_size`` larger than the (damaged) training set, as TF1.
``AssertionError`` from ``read_data_sets`` with TF1's own message: TF1's ``DataSet``
asserts that images and labels have the same count (``images.shape: ... labels.shape:
...``).
"""

from __future__ import annotations

import gzip
import os
import struct

import numpy as np

from .base import REPO, Accept, Hostile, Seed, Target
from .records import bomb


def _digits():
    """(images [100, 28, 28], labels [100]) of real MNIST, or deterministic stand-ins."""
    from scopeflow.datasets import mnist

    directory = os.environ.get("SCOPEFLOW_MNIST_DIR") or str(REPO.parent / "shared" /
                                                              "datasets" / "mnist")
    try:
        with open(os.path.join(directory, mnist.TEST_IMAGES), "rb") as f:
            images = mnist.extract_images(f)[:100, :, :, 0]
        with open(os.path.join(directory, mnist.TEST_LABELS), "rb") as f:
            labels = mnist.extract_labels(f)[:100]
        return images, labels
    except OSError:
        rng = np.random.default_rng(0)
        return (rng.integers(0, 256, (100, 28, 28), dtype=np.uint8),
                rng.integers(0, 10, 100).astype(np.uint8))


class _Idx(Target):
    owner = "scopeflow/datasets/mnist.py"
    kind = ""          # "images" or "labels"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = (
            Accept(ValueError, "TF1's extract_* raise ValueError for a file that is not "
                   "MNIST data; scopeflow documents it for all damage"),
            Accept(AssertionError, "TF1's DataSet asserts equal image and label counts",
                   message=r"images\.shape: .* labels\.shape: "),
        )

    def prepare(self):
        from scopeflow.datasets import mnist

        images, labels = _digits()
        self.dir = self.workdir / "mnist"
        self.dir.mkdir()
        names = {"train-images-idx3-ubyte.gz": images[:60], "train-labels-idx1-ubyte.gz":
                 labels[:60], "t10k-images-idx3-ubyte.gz": images[60:],
                 "t10k-labels-idx1-ubyte.gz": labels[60:]}
        for name, array in names.items():
            mnist.write_idx(self.dir / name, array)
        # The seed is the training file of read_data_sets' directory (60 digits).
        value = images[:60] if self.kind == "images" else labels[:60]
        plain = self.workdir / "plain"
        mnist.write_idx(plain, value)
        raw = plain.read_bytes()
        ndim = 3 if self.kind == "images" else 1
        marks = [0, 2, 3, 4] + [4 + 4 * i for i in range(ndim + 1)]
        self.seeds = [Seed("gzipped", gzip.compress(raw, 6, mtime=0), [0, 3, 4, 8, 9, 10]),
                      Seed("plain", raw, marks)]
        self.train = self.dir / (f"train-{self.kind}-idx{ndim}-ubyte.gz")
        self.original = self.train.read_bytes()
        self.path = self.workdir / "input"

    def probes(self):
        from scopeflow.datasets import mnist

        def extract(seed, path):
            with open(path, "rb") as f:
                if self.kind == "images":
                    mnist.extract_images(f)
                else:
                    mnist.extract_labels(f, one_hot=True)

        def read_data_sets(seed, path):
            import scopeflow as tf

            self.train.write_bytes(path.read_bytes())
            # A fresh graph each time: read_data_sets registers its DataSets' training
            # state under fixed names in the default graph, and refuses a second set.
            try:
                with tf.Graph().as_default():
                    data = mnist.read_data_sets(str(self.dir), one_hot=True,
                                                validation_size=10, seed=1)
                    data.train.next_batch(20)
            finally:
                self.train.write_bytes(self.original)
        return [(f"extract_{self.kind}", extract), ("read_data_sets", read_data_sets)]

    def fixup(self, seed, data):
        """A damaged plain file gzipped again (the damage reaches the IDX parser through
        the gzip path); a damaged gzip file, inflated as far as it goes and gzipped."""
        if data[:2] == b"\x1f\x8b":
            from .records import inflate_leniently

            data = inflate_leniently(data, "GZIP")
        return gzip.compress(data, 1, mtime=0)

    def hostile(self, long):
        raw = self.seeds[1].data
        magic = raw[:4]
        ndim = 3 if self.kind == "images" else 1
        dims = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
        body = raw[4 + 4 * ndim:]

        def idx(*ds, data=body, m=magic):
            return m + struct.pack(f">{len(ds)}I", *ds) + data

        big = (0xFFFFFFFF,) * ndim
        cases = [("dims 2**32-1", idx(*big)), ("dims 0", idx(*(0,) * ndim)),
                 ("count +1", idx(dims[0] + 1, *dims[1:])),
                 ("count 2**31", idx(1 << 31, *dims[1:])),
                 ("magic of the other kind", idx(*dims, m=b"\0\0\x08" + bytes([4 - ndim]))),
                 ("magic 0", idx(*dims, m=bytes(4))), ("magic only", magic),
                 ("empty", b""), ("gzip magic only", b"\x1f\x8b"),
                 ("gzip header only", gzip.compress(raw, mtime=0)[:10]),
                 ("gzip cut in its trailer", gzip.compress(raw, mtime=0)[:-3]),
                 ("gzip bad crc", gzip.compress(raw, mtime=0)[:-8] + bytes(8)),
                 ("two gzip members", gzip.compress(raw[:100], mtime=0) +
                  gzip.compress(raw[100:], mtime=0)),
                 ("gzip then garbage", gzip.compress(raw, mtime=0) + b"garbage")]
        if self.kind == "labels":
            cases.append(("label 255", idx(*dims, data=b"\xff" + body[1:])))
            cases.append(("labels all 200", idx(*dims, data=b"\xc8" * len(body))))
        else:
            cases.append(("rows 0, cols 2**32-1", idx(dims[0], 0, 0xFFFFFFFF)))
            cases.append(("no images of 2**32-1 x 2**32-1", idx(0, 0xFFFFFFFF, 0xFFFFFFFF)))
            cases.append(("0xfa000000 images of 0xba000000 x 0", idx(0xFA000000, 0xBA000000, 0)))
        header = magic + struct.pack(f">{ndim}I", *dims)
        out = [Hostile(label, data) for label, data in cases]
        # Bombs: a true header, then far more zeros than it declares (cut at its size),
        # and a header declaring more than the reader's 2 GiB cap over 1.2 GiB of zeros.
        out.append(Hostile("gzip bomb: true header, 64 MiB of zeros", bomb("GZIP", 64 << 20,
                                                                            header)))
        huge = magic + struct.pack(f">{ndim}I", *big)
        out.append(Hostile("gzip bomb: header declaring 2**96 bytes, 64 MiB of zeros",
                           bomb("GZIP", 64 << 20, huge)))
        if long:
            out.append(Hostile("gzip bomb: header declaring 2**96 bytes, 1.2 GiB of zeros",
                               bomb("GZIP", 1228 << 20, huge), long_only=True))
        return out


class MnistImages(_Idx):
    name = "mnist_images"
    kind = "images"


class MnistLabels(_Idx):
    name = "mnist_labels"
    kind = "labels"


TARGETS = {t.name: t for t in (MnistImages, MnistLabels)}
