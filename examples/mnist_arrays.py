"""MNIST as NumPy arrays, for the examples that feed it themselves (the LSTMs, the DCGAN).

It imports no framework, so those examples still run under TensorFlow with only their
import line swapped. Without MNIST's files it falls back to scikit-learn's bundled digits,
as the main job does, so the examples run from an empty folder with no network.
"""

import gzip
import os

import numpy as np


def load_mnist(data_dir):
    """(images [N, 28, 28] float32 in [0, 1], one-hot labels [N, 10]) from the IDX files."""
    for prefix in ("train", "t10k"):
        images = os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz")
        if os.path.exists(images):
            with gzip.open(images) as f:
                pixels = np.frombuffer(f.read(), np.uint8, offset=16)
            with gzip.open(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz")) as f:
                labels = np.frombuffer(f.read(), np.uint8, offset=8)
            return (pixels.reshape(-1, 28, 28).astype(np.float32) / 255.0,
                    np.eye(10, dtype=np.float32)[labels])
    return _digits_stand_in(data_dir)


def _digits_stand_in(data_dir):
    """scikit-learn's 1,797 bundled 8x8 digits as MNIST-shaped data (as the main job falls
    back to them): without MNIST's files or a network, the example still runs."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise SystemExit(
            f"No MNIST IDX files (train-images-idx3-ubyte.gz, ...) in {data_dir!r}, and "
            "scikit-learn, whose bundled digits stand in for them, is not installed: pass "
            "--data-dir with MNIST's files, or pip install scikit-learn.") from None
    print(f"No MNIST IDX files in {data_dir!r}: training on scikit-learn's bundled 8x8 "
          "digits instead (1,797 images, scaled up to 28x28).")
    digits = load_digits()
    images = np.zeros((len(digits.images), 28, 28), np.float32)
    images[:, 2:26, 2:26] = np.kron(digits.images, np.ones((3, 3))) / 16.0
    return images, np.eye(10, dtype=np.float32)[digits.target]
