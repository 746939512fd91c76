"""tf.keras fit/evaluate/predict on tf.data datasets, generators, ``Sequence``s and tensors,
and subclassed models, compared with real tf_keras (TF 2.21, TF1 graph mode): histories,
evaluate and predict values from the same starting weights, and the progress output.

The programs are tests/fixtures/keras_fit_data/programs.py; fit_data.json holds what real
TF printed for them (make_fixture.py there wrote it), and the ``tf1`` tests run them under
TF again when it is installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "keras_fit_data"


def _load_programs():
    spec = importlib.util.spec_from_file_location("keras_fit_data_programs",
                                                  FIXTURES / "programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()
RECORDED = json.loads((FIXTURES / "fit_data.json").read_text())


def run_here(program):
    scope = {"tf": tf, "np": np, "json": json}
    exec(program, scope)
    return json.loads(json.dumps(scope["result"]))


def _close(ours, theirs, path="result"):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), path
        for k in theirs:
            _close(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, str) or isinstance(theirs, list) and theirs and \
            isinstance(theirs[0], str):
        assert ours == theirs, path
    elif isinstance(theirs, list) and theirs and isinstance(theirs[0], list) and \
            len({len(t) for t in theirs}) > 1:
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _close(a, b, f"{path}[{i}]")
    else:
        np.testing.assert_allclose(np.asarray(ours, dtype=float),
                                   np.asarray(theirs, dtype=float), rtol=1e-4, atol=2e-5,
                                   err_msg=path)


def _stdout_of(program):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(program, {"tf": tf, "np": np})
    return buf.getvalue()


def progress_lines(text):
    """The lines that do not depend on timing: 'Train on', 'Epoch', each epoch's final bar
    (the times replaced by T). tf_keras redraws the bar with backspaces and '\\r'."""
    out = []
    for line in re.split(r"[\r\n]", text.replace("\b", "")):
        if line.startswith(("Train on", "Epoch")):
            out.append(line)
        elif re.match(r"\s*(\d+)/\1 ", line):
            line = re.sub(r" - \d+s( \d+(ms|us|s)/(sample|step))?", " - T", line)
            out.append(re.sub(r" - \d+(ms|us|s)/(epoch|sample|step)", " - T", line).rstrip())
    return out


@pytest.mark.parametrize("name", sorted(PROGRAMS.PROGRAMS))
def test_matches_recorded_tf_keras(name):
    _close(run_here(PROGRAMS.PROGRAMS[name]), RECORDED[name], name)


@pytest.mark.parametrize("name", sorted(PROGRAMS.PROGRAMS))
def test_matches_live_tf_keras(tf1, name):
    program = PROGRAMS.PROGRAMS[name]
    _close(run_here(program), tf1(program + "\nprint(json.dumps(result))"), name)


def test_progress_output_matches_recorded_tf_keras():
    ours = progress_lines(_stdout_of(PROGRAMS.VERBOSE))
    theirs = progress_lines(RECORDED["verbose"])
    assert ours == theirs
