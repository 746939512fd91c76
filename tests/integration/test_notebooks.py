"""The tour's notebooks (notebooks/) run top to bottom, as committed, and print the seeds'
results.

Each notebook runs with nbclient in a new kernel of *this* interpreter (a kernelspec written
here names ``sys.executable``, so no other Python's kernel can be picked up). Each run gets
an empty working folder. TensorBoard is switched off (``SCOPEFLOW_NOTEBOOK_TENSORBOARD=0``),
so no server starts. One extra test switches it on, checks that the inline frame appears,
then stops the server that the notebook started.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import urllib.request
from pathlib import Path

import pytest

import scopeflow as tf

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory):
    """A kernelspec for this interpreter, so the notebooks run where scopeflow is installed."""
    root = tmp_path_factory.mktemp("kernels")
    (root / "scopeflow-test").mkdir()
    (root / "scopeflow-test" / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python ({sys.executable})", "language": "python"}))
    return [str(root)]


def run_notebook(name, cwd, kernel_dirs, tmp_path, **env_vars):
    """Executes notebooks/NAME in a new kernel, in ``cwd``; returns the executed notebook.
    A cell that raises fails the test with its traceback (nbclient's CellExecutionError)."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
                   str(ROOT), os.environ.get("PYTHONPATH")])),
               SCOPEFLOW_NOTEBOOK_TENSORBOARD="0",
               IPYTHONDIR=str(tmp_path / "ipython"),   # the kernel's history, not ~/.ipython
               PYTHONDONTWRITEBYTECODE="1")            # no __pycache__ in examples/
    for key, value in env_vars.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    km = KernelManager(kernel_name="scopeflow-test", kernel_spec_manager=KernelSpecManager(
        kernel_dirs=kernel_dirs, ensure_native_kernel=False))
    client = nbclient.NotebookClient(nb, km=km, timeout=CELL_TIMEOUT_S,
                                     resources={"metadata": {"path": str(cwd)}})
    client.execute(env=env)
    return nb


def printed(nb):
    """Everything the code cells printed (stdout and stderr), in order."""
    return "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream")


def written(cwd):
    return sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*"))


# ── the committed files ──────────────────────────────────────────────────────────────


def test_the_tour_has_its_three_notebooks():
    assert ALL == ["01_variable_sharing.ipynb", "02_mnist_cnn_checkpoints_tensorboard.ipynb",
                   "03_experiments_seeds_savers_word2vec.ipynb"]


@pytest.mark.parametrize("name", ALL)
def test_notebook_is_committed_valid_and_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and nb.cells[0].cell_type == "markdown"
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    assert nb.metadata.kernelspec.name == "python3"
    # A notebook that trains has a tagged "parameters" cell with a small step count.
    params = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    if name != "01_variable_sharing.ipynb":
        assert len(params) == 1
        steps = int(re.search(r"^STEPS = (\d+)", params[0].source, re.M)[1])
        assert steps <= 300


# ── running them ─────────────────────────────────────────────────────────────────────


def test_variable_sharing_notebook(tmp_path, kernel_dirs):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = printed(run_notebook("01_variable_sharing.ipynb", cwd, kernel_dirs, tmp_path))
    lines = out.splitlines()
    assert "embed/a:0 b:0 embed/total:0" in lines
    assert ("8 variables: ['h1_weights:0', 'h1_biases:0', 'h2_weights:0', '2_biases:0', "
            "'h1_weights_1:0', 'h1_biases_1:0', 'h2_weights_1:0', '2_biases_1:0']") in lines
    assert ("ValueError: Variable h1_weights already exists, disallowed. Did you mean to set "
            "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:") in lines
    shared = ["two_layers/h1/weights:0", "two_layers/h1/biases:0", "two_layers/h2/weights:0",
              "two_layers/h2/biases:0"]
    assert str(shared) in lines
    assert sum(line.startswith("created two_layers/") for line in lines) == 4
    assert sum(line.startswith("reused  two_layers/") for line in lines) == 4
    assert "both towers use the same weights: True" in lines
    assert f"6 variables: {shared + ['auto/out/weights:0', 'auto/out/biases:0']}" in lines
    assert "ValueError: Variable two_layers/h1/weights already exists, disallowed." in out
    assert "global:    7" in lines and "trainable: 6" in lines
    assert f"gradients for:   {[name[:-2] for name in shared]}" in lines
    assert "no gradient for: ['auto/out/weights', 'auto/out/biases']" in lines
    assert lines[-2:] == ["cnn/conv1/w:0", "cnn/conv1/b:0"]
    assert written(cwd) == []


@pytest.mark.parametrize("data", ["mnist", "digits"])
def test_mnist_cnn_notebook_trains_saves_restores_and_summarises(data, tmp_path, kernel_dirs,
                                                                 request):
    """On MNIST's files (found by the suite's helper, as the other MNIST tests), and on
    scikit-learn's digits when there are none (what an offline reader gets)."""
    if data == "mnist":
        data_env = {"SCOPEFLOW_MNIST_DIR": str(request.getfixturevalue("mnist_dir"))}
    else:
        pytest.importorskip("sklearn")
        data_env = {"SCOPEFLOW_MNIST_DIR": None}
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    nb = run_notebook("02_mnist_cnn_checkpoints_tensorboard.ipynb", cwd, kernel_dirs, tmp_path,
                      **data_env)
    out = printed(nb)
    lines = out.splitlines()

    fallback = "training on scikit-learn's bundled 8x8 digits instead" in out
    assert fallback == (data == "digits")
    cnn = [f"cnn/{layer}/{v}" for layer in ("conv1", "conv2", "fc1", "fc2") for v in "wb"]
    assert str([f"{name}:0" for name in cnn]) in lines
    reports = re.findall(r"^step (\d+), training accuracy [\d.]+$", out, re.M)
    assert reports == ["0", "25", "50", "75", "99"]
    first, last = map(float, re.search(
        r"^cross-entropy per batch, mean of the first 10 steps: ([\d.]+), last 10: ([\d.]+)$",
        out, re.M).groups())
    assert last < first / 2  # the loss came down
    accuracy = float(re.search(r"^test accuracy ([\d.]+)$", out, re.M)[1])
    assert accuracy > 0.6  # 100 steps; 0.1 is chance

    # The checkpoint, TensorFlow's V2 format, under the notebook's own folder.
    backup = cwd / "runs" / "02_mnist_cnn" / "backup"
    assert sorted(p.name for p in backup.iterdir()) == [
        "checkpoint", "latest.data-00000-of-00001", "latest.index", "latest.meta"]
    keys = dict(tf.train.list_variables(str(backup / "latest")))
    assert set(cnn) | {"beta1_power", "beta2_power"} <= set(keys)
    assert keys["cnn/fc1/w"] == [3136, 1024] and "cnn/conv1/w/Adam" in keys

    # Restoring everything gives the trained model back; restoring conv1 only that layer.
    assert f"test accuracy {accuracy:g}, the same as after training: True" in lines
    status = re.findall(r"^  (cnn/\S+): (restored|initial value)$", out, re.M)
    assert status[:8] == [(name, "restored") for name in cnn]
    assert status[8:] == [(name, "restored" if "conv1" in name else "initial value")
                          for name in cnn]

    # TensorBoard off: the how-to line, and the same logs read back as text.
    assert ("TensorBoard is off here; to look at the logs: tensorboard --logdir "
            "runs/02_mnist_cnn/logs") in lines
    assert "  scalar: summaries/accuracy (100), summaries/loss (100)" in lines
    assert "100 points of summaries/loss; every 25th step:" in lines
    groups = re.search(r"^top-level groups in the Graphs tab: (.*)$", out, re.M)[1]
    assert {"'cnn'", "'summaries'", "'gradients'", "'Adam'"} <= set(groups.strip("[]")
                                                                  .split(", "))
    assert {p.split(os.sep)[0] for p in written(cwd)} == {"runs"}
    assert {p.name for p in (cwd / "runs").iterdir()} == {"02_mnist_cnn"}


def test_experiments_notebook(tmp_path, kernel_dirs):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = printed(run_notebook("03_experiments_seeds_savers_word2vec.ipynb", cwd, kernel_dirs,
                               tmp_path))
    lines = out.splitlines()
    assert "names: embed/embedding/Identity:0 loss/loss:0 embed_matrix:0 nce_weight:0" in lines
    # Interrupted at 150 after saving at 100; the second run resumes there.
    assert re.search(r"^step 100: average loss [\d.]+, saved word2vec-100\n"
                     r"stopped at step 150\n"
                     r"restored word2vec-100 at step 100\n"
                     r"step 200: average loss [\d.]+, saved word2vec-200\n"
                     r"step 300: average loss [\d.]+, saved word2vec-300\n"
                     r"stopped at step 300$", out, re.M)
    assert 'model_checkpoint_path: "word2vec-300"' in lines
    purity = float(re.search(r"^nearest neighbours in the same topic: ([\d.]+)", out, re.M)[1])
    assert purity > 0.9
    assert ("in the event files: 350 points of summaries/loss, 50 of them for steps that both "
            "runs logged") in lines
    assert "after purge_step, as TensorBoard shows them: 300 points, each step once: True" in lines
    # The seed's three partial savers write the same keys (what TF 2.21 prints for them).
    assert lines[lines.index("    dict: ['v1', 'v2']"):][:5] == [
        "    dict: ['v1', 'v2']",
        "    list: ['v1', 'v2']",
        "op names: ['v1', 'v2']",
        "restored v1, v2: [10.0, 20.0] [[3.0]]",
        "uninitialized: ['v3']",
    ]
    # The seed's a.py and b.py, in new graphs and as programs: TensorFlow's numbers.
    for line in ("a.py: 6.5812798 -5.2316904", "b.py: 6.5812798 -5.2316904",
                 "a.py as its own program: 6.5812798 -5.2316904",
                 "b.py as its own program: 6.5812798 -5.2316904"):
        assert line in lines
    assert "gradient ops: gradients/mul_grad/Reshape:0 gradients/add_grad/Reshape:0" in lines
    symbolic, numeric = re.search(r"tf\.gradients (\S+), finite difference (\S+)$", out,
                                  re.M).groups()
    assert abs(float(symbolic) - float(numeric)) < 1e-3
    assert re.search(r"^step 500: loss 0\.0000\d*, w 3\.000, b 2\.000$", out, re.M)
    assert {p.split(os.sep)[0] for p in written(cwd)} == {"runs"}
    assert {p.name for p in (cwd / "runs").iterdir()} == {"03_experiments"}


def test_tensorboard_shows_inline_when_switched_on(tmp_path, kernel_dirs):
    """SCOPEFLOW_NOTEBOOK_TENSORBOARD=1: %tensorboard starts a server and the cell shows it
    in a frame. The server keeps running after the notebook ends (which is why CI runs
    keep it off); this test stops it again, by the pid in its info file."""
    pytest.importorskip("tensorboard")
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    try:
        # TMPDIR: where TensorBoard's notebook support keeps its info files and logs.
        nb = run_notebook("03_experiments_seeds_savers_word2vec.ipynb", cwd, kernel_dirs,
                          tmp_path, SCOPEFLOW_NOTEBOOK_TENSORBOARD="1", TMPDIR=str(tmp))
        infos = [json.loads(p.read_text()) for p in (tmp / ".tensorboard-info").glob("*.info")]
        assert len(infos) == 1
        assert infos[0]["logdir"] == os.path.join("runs", "03_experiments", "word2vec")
        frames = [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
                  for out in cell.outputs if "text/html" in out.get("data", {})]
        assert len(frames) == 1 and '<iframe id="tensorboard-frame-' in frames[0]
        assert f"const port = {infos[0]['port']};" in frames[0]
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no $http_proxy
        with direct.open(f"http://localhost:{infos[0]['port']}/", timeout=30) as response:
            assert response.status == 200
        assert "TensorBoard is off here" not in printed(nb)
    finally:
        for info in (tmp / ".tensorboard-info").glob("*.info"):
            try:
                os.kill(json.loads(info.read_text())["pid"], signal.SIGTERM)
            except (OSError, ValueError, KeyError):
                pass
