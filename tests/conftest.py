"""Shared fixtures: a fresh default graph per test, and the live-TensorFlow oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import scopeflow as tf

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_MNIST = SHARED / "datasets" / "mnist"   # MNIST's real test set (t10k files only)
MNIST_DOWNLOAD_TIMEOUT_S = 5                    # a mirror; offline runs fail fast, once


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _tf1_tool():
    tool = os.environ.get("SCOPEFLOW_TF1", str(SHARED / "tools" / "tf1"))
    return tool if Path(tool).exists() else None


@pytest.fixture(scope="session")
def tf1():
    """Runs a snippet under real TensorFlow (TF1 semantics); the snippet prints JSON.

    Skipped when the oracle is unavailable, unless SCOPEFLOW_REQUIRE_TF=1 (CI sets it).
    """
    tool = _tf1_tool()
    if tool is None or shutil.which("bash") is None:
        if os.environ.get("SCOPEFLOW_REQUIRE_TF") == "1":
            pytest.fail("SCOPEFLOW_REQUIRE_TF=1 but the tf1 oracle tool is missing")
        pytest.skip("real TensorFlow oracle (../shared/tools/tf1) not available")

    def run(code: str):
        prog = "import json\nimport numpy as np\nimport tensorflow.compat.v1 as tf\n" + \
            textwrap.dedent(code)
        out = subprocess.run([tool, "-c", prog], capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            raise RuntimeError(f"tf1 failed:\n{out.stderr[-3000:]}")
        lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
        return json.loads(lines[-1])
    return run


@pytest.fixture
def scopeflow_run():
    """Runs a snippet under scopeflow in a fresh interpreter (as ``tf1`` runs it under TF,
    with ``json``, ``np`` and ``tf`` imported); the snippet prints JSON on its last line."""

    def run(code: str):
        prog = "import json\nimport numpy as np\nimport scopeflow as tf\n" + \
            textwrap.dedent(code)
        out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])
    return run


def find_mnist_test_set(shared=SHARED_MNIST):
    """The directory holding MNIST's test set (the two t10k files), for tests that need it.

    From ``$SCOPEFLOW_MNIST_DIR``, else ``../shared/datasets/mnist`` beside the repository,
    else the user's cache, downloading there (``mnist.find_mnist_dir`` has the order and
    the checks). Skips with the reason, naming how to provide the files, when none works;
    fails instead when ``SCOPEFLOW_REQUIRE_MNIST=1`` (CI sets it).
    """
    from scopeflow.datasets import mnist

    try:
        return Path(mnist.find_mnist_dir(mnist.TEST_FILES, search=[shared],
                                         timeout=MNIST_DOWNLOAD_TIMEOUT_S))
    except mnist.MNISTUnavailableError as e:
        if os.environ.get("SCOPEFLOW_REQUIRE_MNIST") == "1":
            pytest.fail(f"SCOPEFLOW_REQUIRE_MNIST=1 but MNIST is unavailable: {e}",
                        pytrace=False)
        pytest.skip(f"MNIST test set unavailable: {e}")


@pytest.fixture(scope="session")
def mnist_dir():
    """The directory of MNIST's t10k files (see ``find_mnist_test_set``); looked up, and
    any download tried, once a session: pytest keeps a session fixture's skip too."""
    return find_mnist_test_set()


@pytest.fixture(scope="session")
def mnist_t10k(mnist_dir):
    """MNIST's 10,000 test digits: ``(images [N, 28, 28, 1] uint8, labels [N] uint8)``."""
    from scopeflow.datasets import mnist

    with open(mnist._find_local(mnist.TEST_IMAGES, str(mnist_dir)), "rb") as f:
        images = mnist.extract_images(f)
    with open(mnist._find_local(mnist.TEST_LABELS, str(mnist_dir)), "rb") as f:
        labels = mnist.extract_labels(f)
    return images, labels


@pytest.fixture(scope="session")
def mnist_split_dir(mnist_t10k, tmp_path_factory):
    """MNIST's test set as a read_data_sets directory: 8,000 "train", 2,000 "test"."""
    from scopeflow.datasets import mnist

    directory = tmp_path_factory.mktemp("MNIST_data")
    images, labels = mnist_t10k
    for name, array in ((mnist.TRAIN_IMAGES, images[:8000]), (mnist.TRAIN_LABELS, labels[:8000]),
                        (mnist.TEST_IMAGES, images[8000:]), (mnist.TEST_LABELS, labels[8000:])):
        mnist.write_idx(directory / name, array)
    return directory
