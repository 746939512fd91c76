"""The runnable examples work as the seeds describe (run as separate programs)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _run(script):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_two_hidden_layers_creates_two_sets_of_variables():
    out = _run("two_hidden_layers.py")
    assert "'h1_weights:0'" in out and "'h1_weights_1:0'" in out and "'2_biases_1:0'" in out
    assert "logits1 (200, 10) float32 logits2 (200, 10)" in out


def test_random_seed_example_is_repeatable_and_matches_tensorflow():
    first, second = _run("random_seed_ab.py"), _run("random_seed_ab.py")
    assert first == second
    assert first.split() == ["6.5812798", "-5.2316904"]  # what TF 2.21 prints


def test_variable_sharing_example_prints_the_seeds_names():
    lines = _run("variable_sharing.py").splitlines()
    assert lines[:2] == ["cnn/conv1/w:0", "cnn/conv1/b:0"]
    assert lines[2] == str(["two_layers/h1/weights:0", "two_layers/h1/biases:0",
                            "two_layers/h2/weights:0", "two_layers/h2/biases:0"])
    assert sum(line.startswith("reused") for line in lines) == 4
    assert ("Variable two_layers/h1/weights already exists, disallowed. Did you mean to set "
            "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:") in lines


def test_regression_example_trains_to_the_answer():
    lines = _run("train_regression.py").splitlines()
    assert lines[0] == "gradient: gradients_1/mul_grad/Reshape:0"  # TF's name
    assert lines[1].startswith("step 500: loss 0.0000") and "w 3.000, b 2.000" in lines[1]


def test_seed003_cnnmodel_collects_its_variables_and_trains():
    lines = _run("cnnmodel.py").splitlines()
    assert lines[0] == str(["cnn/conv1/w:0", "cnn/conv1/b:0", "cnn/conv2/w:0", "cnn/conv2/b:0",
                            "cnn/fc1/w:0", "cnn/fc1/b:0", "cnn/fc2/w:0", "cnn/fc2/b:0"])
    match = re.match(r"cross-entropy ([\d.]+) -> ([\d.]+),", lines[1])
    assert match and float(match[2]) < float(match[1])


@pytest.mark.parametrize("script", ["lstm_mnist.py", "bidirectional_lstm_mnist.py",
                                    "dcgan_mnist.py"])
def test_mnist_examples_run_without_mnist_on_the_bundled_digits(script, tmp_path):
    """With no MNIST files and no network, an example trains on scikit-learn's digits (as
    the main job does), says so, and writes nothing into the folder it runs in."""
    pytest.importorskip("sklearn")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SCOPEFLOW_MNIST_DIR", None)
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--steps", "2"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "training on scikit-learn's bundled 8x8 digits instead" in out.stdout
    assert "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", ["mnist_train.py", "mnist_restore.py"])
def test_seed_mnist_programs_without_mnist_say_what_to_do(script, tmp_path):
    """The seed's programs read MNIST through input_data (downloading it, as TF1's did):
    with no files and no network they print what to do, no traceback, and leave no empty
    MNIST_data folder behind."""
    unreachable = "http://127.0.0.1:9"  # every download fails at once, network or not
    env = dict(os.environ, PYTHONPATH=str(ROOT), http_proxy=unreachable,
               https_proxy=unreachable, HTTP_PROXY=unreachable, HTTPS_PROXY=unreachable)
    env.pop("SCOPEFLOW_MNIST_DIR", None)
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--steps", "2"]
                         if script == "mnist_train.py" else
                         [sys.executable, str(ROOT / "examples" / script)],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1
    assert "could not be downloaded" in out.stderr and "Put the four MNIST files" in out.stderr
    assert "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []


# ── The seeds' MNIST, word2vec and saver programs (issue 8) ──────────────────────────


def _run_in(cwd, script, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args], cwd=cwd,
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _under_tensorflow(tf1, script, *args):
    """stdout of an example run by real TensorFlow (its import line swapped)."""
    path = str(ROOT / "examples" / script)
    return tf1(f"""
        import contextlib, io, sys
        src = open({path!r}).read().replace("import scopeflow as tf",
                                            "import tensorflow.compat.v1 as tf")
        sys.argv = [{path!r}, *{list(args)!r}]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(src, {path!r}, "exec"), {{"__name__": "__main__"}})
        print(json.dumps(buf.getvalue()))
    """)




@pytest.fixture(scope="module")
def seed003_backup(mnist_split_dir, tmp_path_factory):
    """Seed 003's training file, 200 steps: backup/latest and its printout."""
    cwd = tmp_path_factory.mktemp("seed003")
    out = _run_in(cwd, "mnist_train.py", "--steps", "200", "--data-dir", str(mnist_split_dir),
                  "--validation-size", "1000")
    return cwd, out


def test_seed003_training_saves_backup_latest(seed003_backup):
    cwd, out = seed003_backup
    assert out.count("Extracting ") == 4
    assert re.search(r"^step 0, training accuracy [\d.]+$", out, re.M)
    assert re.search(r"^step 199, training accuracy [\d.]+$", out, re.M)
    assert float(re.search(r"^test accuracy ([\d.]+)$", out, re.M)[1]) > 0.9
    assert sorted(p.name for p in (cwd / "backup").iterdir()) == [
        "checkpoint", "latest.data-00000-of-00001", "latest.index", "latest.meta"]


def test_seed003_full_restore_gives_back_the_trained_model(seed003_backup, mnist_split_dir):
    cwd, trained = seed003_backup
    out = _run_in(cwd, "mnist_restore.py", "--data-dir", str(mnist_split_dir),
                  "--validation-size", "1000")
    assert "\nfound\n" in out
    status = dict(re.findall(r"^(cnn/\S+): (restored|initial value)$", out, re.M))
    assert status == {f"cnn/{layer}/{v}": "restored" for layer in ("conv1", "conv2", "fc1", "fc2")
                      for v in "wb"}
    accuracy = re.compile(r"^test accuracy ([\d.]+)$", re.M)
    assert accuracy.search(out)[1] == accuracy.search(trained)[1]


def test_seed003_conv1_only_restore(seed003_backup, mnist_split_dir):
    cwd, trained = seed003_backup
    out = _run_in(cwd, "mnist_restore.py", "--only", "conv1", "--data-dir", str(mnist_split_dir),
                  "--validation-size", "1000")
    status = dict(re.findall(r"^(cnn/\S+): (restored|initial value)$", out, re.M))
    assert status == {"cnn/conv1/w": "restored", "cnn/conv1/b": "restored",
                      "cnn/conv2/w": "initial value", "cnn/conv2/b": "initial value",
                      "cnn/fc1/w": "initial value", "cnn/fc1/b": "initial value",
                      "cnn/fc2/w": "initial value", "cnn/fc2/b": "initial value"}
    # One trained layer under random upper layers: far from the trained model.
    assert float(re.search(r"^test accuracy ([\d.]+)$", out, re.M)[1]) < 0.5


def test_seed000_word2vec_checkpoints_resumes_and_summarises(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logdir = tmp_path / "word2vec"
    first = _run_in(tmp_path, "word2vec.py", "--steps", "200", "--save-every", "100",
                    "--logdir", str(logdir)).splitlines()
    assert re.fullmatch(r"step 100: average loss [\d.]+, saved word2vec-100", first[0])
    assert re.fullmatch(r"step 200: average loss [\d.]+, saved word2vec-200", first[1])
    second = _run_in(tmp_path, "word2vec.py", "--steps", "300", "--save-every", "100",
                     "--logdir", str(logdir)).splitlines()
    assert second[0] == "restored word2vec-200 at step 200"
    assert re.fullmatch(r"step 300: average loss [\d.]+, saved word2vec-300", second[1])
    purity = float(re.fullmatch(r"nearest neighbours in the same topic: ([\d.]+) \(chance 0.10\)",
                                second[2])[1])
    assert purity > 0.9  # the embeddings learned the topics
    assert (logdir / "checkpoint").read_text().startswith('model_checkpoint_path: "word2vec-300"')

    acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    assert [e.step for e in acc.Scalars("summaries/loss")] == list(range(1, 301))
    assert acc.Tags()["histograms"] == ["summaries/histogram_loss"]
    names = {node.name for node in acc.Graph().node}
    # name_scope groups the ops; get_variable ignores it, so the variables are top-level.
    assert {"embed/embedding", "loss/loss", "embed_matrix", "nce_weight", "nce_bias",
            "global_step"} <= names
    assert not {"embed/embed_matrix", "loss/nce_weight"} & names


@pytest.mark.tf
def test_seed000_word2vec_prints_what_tensorflow_prints(tmp_path, tf1):
    args = ("--steps", "200", "--save-every", "100")
    ours = _run_in(tmp_path, "word2vec.py", *args, "--logdir", str(tmp_path / "ours"))
    theirs = _under_tensorflow(tf1, "word2vec.py", *args, "--logdir", str(tmp_path / "tf"))
    assert ours == theirs


def test_seed000_partial_savers_write_the_keys_tensorflow_writes(tmp_path):
    out = _run_in(tmp_path, "partial_savers.py", "--dir", str(tmp_path / "ckpt"))
    # What TF 2.21 prints for the same program.
    assert out.splitlines() == [
        "    dict: ['v1', 'v2']",
        "    list: ['v1', 'v2']",
        "op names: ['v1', 'v2']",
        " renamed: [('weights', [2])]",
        "restored v1, v2: [10.0, 20.0] [[3.0]]",
        "uninitialized: ['v3']",
    ]


@pytest.mark.tf
def test_seed000_partial_savers_live(tmp_path, tf1):
    ours = _run_in(tmp_path, "partial_savers.py", "--dir", str(tmp_path / "ours"))
    assert ours == _under_tensorflow(tf1, "partial_savers.py", "--dir", str(tmp_path / "tf"))
