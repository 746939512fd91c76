"""Shared fixtures: a fresh default graph per test, and the live-TensorFlow oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import scopeflow as tf

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_MNIST = SHARED / "datasets" / "mnist"   # MNIST's real test set (t10k files only)


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


@pytest.fixture(scope="session")
def mnist_split_dir(tmp_path_factory):
    """MNIST's test set as a read_data_sets directory: 8,000 "train", 2,000 "test"."""
    from scopeflow.datasets import mnist

    directory = tmp_path_factory.mktemp("MNIST_data")
    with open(SHARED_MNIST / mnist.TEST_IMAGES, "rb") as f:
        images = mnist.extract_images(f)
    with open(SHARED_MNIST / mnist.TEST_LABELS, "rb") as f:
        labels = mnist.extract_labels(f)
    for name, array in ((mnist.TRAIN_IMAGES, images[:8000]), (mnist.TRAIN_LABELS, labels[:8000]),
                        (mnist.TEST_IMAGES, images[8000:]), (mnist.TEST_LABELS, labels[8000:])):
        mnist.write_idx(directory / name, array)
    return directory
