"""mypy sees scopeflow after the README's install (``pip install -e .``), with the types
of what TF1 programs use most: ``Session.run``'s result by what is fetched, and the
annotated builders (``placeholder``, ``get_variable``, ``minimize``, ``Saver.save``).

setuptools makes an editable install with an import hook, which mypy cannot follow;
setup.py also puts the checkout on the path (a ``.pth`` file). The test installs a copy
of the checkout, editable, into a fresh virtual environment (no pip of its own; the
build's setuptools comes from the package index or pip's cache, as for the wheel of
test_packaging.py) and runs this environment's mypy against it; without setup.py's
``.pth`` file, mypy does not find scopeflow (checked too, so the test can fail).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

PROGRAM = """\
import numpy as np
import scopeflow as tf

x = tf.placeholder(tf.float32, [None, 3])
with tf.variable_scope("layer"):
    w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
    parts = tf.get_variable("parts", [4, 2], partitioner=tf.fixed_size_partitioner(2))
loss = tf.reduce_mean(tf.matmul(x, w))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
reveal_type(x)
reveal_type(w)
reveal_type(parts)
reveal_type(train)
reveal_type(sess.run(loss, feed_dict={x: np.ones((1, 3))}))
reveal_type(sess.run(train))
reveal_type(sess.run([train, loss]))
reveal_type(sess.run({"loss": loss}))
reveal_type(loss.eval(session=sess))
reveal_type(tf.train.Saver().save(sess, "model.ckpt"))
value: np.ndarray = sess.run(loss, {x: np.ones((2, 3))})
print(value.shape, float(value))
"""

EXPECTED = [
    "scopeflow.framework.graph.Tensor",
    "scopeflow.state.variables.Variable",
    "scopeflow.state.partitioning.PartitionedVariable",
    "scopeflow.framework.graph.Operation",
    "numpy.ndarray[",
    "None",
    "list[Any]",
    "dict[str, Any]",
    "numpy.ndarray[",
    "str | None",
]


def _editable_files() -> list[str]:
    """What the editable build reads: the package, the tour it maps, the project files."""
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard", "scopeflow", "examples", "pyproject.toml",
                          "setup.py", "README.md", "LICENSE"], capture_output=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout: the test installs a copy of git's files")
    return [n for n in out.stdout.decode().split("\0") if n and (ROOT / n).is_file()]


@pytest.fixture(scope="module")
def editable_env(tmp_path_factory):
    """(venv's python, its site-packages, the checkout copy) after ``pip install -e``."""
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    base = tmp_path_factory.mktemp("typing")
    checkout = base / "checkout"
    for name in _editable_files():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                          "--no-deps", "--disable-pip-version-check", "-e", str(checkout)],
                         capture_output=True, text=True, timeout=600, cwd=base)
    assert out.returncode == 0, f"pip install -e failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # NumPy's types (scopeflow's arrays): this environment's installed copy, after the
    # editable install's own entries (.pth files are read in name order).
    (site / "zz_numpy_from_test_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, site, checkout


def _mypy(python, cwd) -> str:
    program = cwd / "program.py"
    program.write_text(PROGRAM)
    out = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(python),
                          "--cache-dir", str(cwd / ".mypy_cache"), "--no-error-summary",
                          "--hide-error-context", str(program)],
                         capture_output=True, text=True, timeout=600, cwd=cwd)
    return out.stdout + out.stderr


def test_mypy_sees_the_editable_install_with_its_types(editable_env, tmp_path):
    python, _, checkout = editable_env
    where = subprocess.run([str(python), "-c", "import scopeflow; print(scopeflow.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert where.stdout.strip() == str(checkout / "scopeflow" / "__init__.py"), where.stderr
    report = _mypy(python, tmp_path)
    revealed = [line.split('Revealed type is "', 1)[1][:-1] for line in report.splitlines()
                if "Revealed type is" in line]
    errors = [line for line in report.splitlines() if ": error:" in line]
    assert not errors, report
    assert len(revealed) == len(EXPECTED), report
    for got, want in zip(revealed, EXPECTED):
        assert got.startswith(want), f"revealed {got!r}, expected {want!r}\n{report}"


def test_without_the_checkout_path_mypy_cannot_see_it(editable_env, tmp_path):
    python, site, _ = editable_env
    (pth,) = site.glob("__editable__.scopeflow-*-path.pth")
    saved = pth.read_text()
    pth.unlink()
    try:
        report = _mypy(python, tmp_path)
    finally:
        pth.write_text(saved)
    assert 'Cannot find implementation or library stub for module named "scopeflow"' in report, \
        textwrap.shorten(report, 2000)
