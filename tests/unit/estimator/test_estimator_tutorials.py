"""TF 1.x's Estimator tutorials (tensorflow/models samples/core/get_started:
premade_estimator.py and custom_estimator.py) run unmodified with ``scopeflow run``, but for
the iris CSV download and its pandas DataFrame, replaced by dicts of NumPy columns made in
place (tests/fixtures/estimator/tutorials/)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "fixtures" / "estimator" / "tutorials"


@pytest.mark.parametrize("name", ["premade_estimator.py", "custom_estimator.py"])
def test_tutorial_runs_with_scopeflow_run(name, tmp_path):
    out = subprocess.run([sys.executable, "-m", "scopeflow", "run", str(TUTORIALS / name)],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    accuracy = float(re.search(r"Test set accuracy: ([0-9.]+)", text).group(1))
    assert accuracy > 0.8
    assert len(re.findall(r'Prediction is "\w+" \([0-9.]+%\), expected', text)) == 3
    assert "Saving checkpoints for 200 into" in text
