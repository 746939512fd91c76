"""The runnable examples work as the seeds describe (run as separate programs)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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
    assert lines[0] == "gradient: gradients_1/mul_grad/Sum:0"
    assert lines[1].startswith("step 500: loss 0.0000") and "w 3.000, b 2.000" in lines[1]


def test_seed003_cnnmodel_collects_its_variables_and_trains():
    lines = _run("cnnmodel.py").splitlines()
    assert lines[0] == str(["cnn/conv1/w:0", "cnn/conv1/b:0", "cnn/conv2/w:0", "cnn/conv2/b:0",
                            "cnn/fc1/w:0", "cnn/fc1/b:0", "cnn/fc2/w:0", "cnn/fc2/b:0"])
    match = re.match(r"cross-entropy ([\d.]+) -> ([\d.]+),", lines[1])
    assert match and float(match[2]) < float(match[1])
