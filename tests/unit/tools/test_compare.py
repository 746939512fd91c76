"""``scopeflow compare``: recording Session.run calls and finding where two runs part."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from scopeflow.cli import main
from scopeflow.tools import compare

# A small training step; SCALE (an environment variable) changes one kernel's input so that
# one recording differs from another in a known op.
PROGRAM = textwrap.dedent("""
    import os
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="h")
    scaled = tf.multiply(h, float(os.environ.get("SCALE", "1")), name="scaled")
    drop = tf.nn.dropout(scaled, keep_prob=0.7)
    out = tf.layers.dense(drop, 2, name="out")
    loss = tf.reduce_mean(tf.square(out - y), name="loss")
    step = tf.train.AdamOptimizer(0.01).minimize(loss)
    rng = np.random.RandomState(0)
    xs, ys = rng.randn(16, 4).astype("f"), rng.randn(16, 2).astype("f")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            print(sess.run([loss, step], {x: xs, y: ys})[0])
""")
SCALED_LINE = next(i for i, line in enumerate(PROGRAM.splitlines(), 1) if "scaled =" in line)


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return str(path)


def _record(program, folder, scale, monkeypatch, runs=5):
    monkeypatch.setenv("SCALE", scale)
    compare.record(sys.executable, "scopeflow", program, [], str(folder), runs)


def test_the_same_program_records_the_same_values(program, tmp_path, monkeypatch):
    _record(program, tmp_path / "a", "1", monkeypatch)
    _record(program, tmp_path / "b", "1", monkeypatch)
    report = compare.compare_recordings(str(tmp_path / "a"), str(tmp_path / "b"))
    assert report.same and report.runs_compared == 4  # the initializer and three steps
    assert report.tensors_compared > 100


def test_the_first_difference_is_the_op_whose_inputs_agree(program, tmp_path, monkeypatch):
    _record(program, tmp_path / "a", "1.001", monkeypatch)
    _record(program, tmp_path / "b", "1", monkeypatch)
    report = compare.compare_recordings(str(tmp_path / "a"), str(tmp_path / "b"))
    assert report.first_run == 1  # the initializer agrees; the first training step does not
    roots = report.root_causes
    assert [d.tensor for d in roots] == ["scaled:0"]
    assert roots[0].op_type == "Mul" and roots[0].site == f"{program}:{SCALED_LINE}"
    assert roots[0].inputs_compared == 1 and roots[0].what == "values"
    downstream = {d.tensor for d in report.differences if not d.root_cause}
    assert {"out/BiasAdd:0", "loss:0"} <= downstream
    lines = compare.format_report(report, "prog.py")
    assert lines[1].startswith("  first difference: scaled:0 (Mul) created at ")


def test_value_difference_reports_the_worst_element():
    import numpy as np
    a = np.array([[1.0, 2.0], [3.0, 4.5]], np.float32)
    b = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    what, detail = compare._value_difference(a, b, 1e-5, 1e-6)
    assert what == "values" and "1 of 4 elements differ" in detail and "at [1, 1]" in detail
    assert compare._value_difference(a.reshape(1, 4), a, 1e-5, 1e-6)[0] == "layout"
    assert compare._value_difference(a[:1], a, 1e-5, 1e-6)[0] == "shape"
    assert compare._value_difference(np.array([np.nan]), np.array([np.nan]), 0, 0) is None


def test_cli_compares_with_a_kept_recording(program, tmp_path, monkeypatch, capsys):
    _record(program, tmp_path / "kept", "1.001", monkeypatch)
    monkeypatch.setenv("SCALE", "1")
    assert main(["compare", "--tf-record", str(tmp_path / "kept"), program]) == 1
    out = capsys.readouterr().out
    assert "Session.run call 1 is the first that differs" in out and "scaled:0 (Mul)" in out
    assert main(["compare", "--json", "--tf-record", str(tmp_path / "kept"), program]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_run"] == 1 and not doc["same"]
    assert [d["tensor"] for d in doc["differences"] if d["root_cause"]] == ["scaled:0"]


def test_cli_errors(program, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SCOPEFLOW_TF_PYTHON", raising=False)
    assert main(["compare", str(tmp_path / "missing.py")]) == 1
    assert "no such file" in capsys.readouterr().err
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\nraise SystemExit(3)\n")
    _record(program, tmp_path / "kept", "1", monkeypatch)
    assert main(["compare", "--tf-record", str(tmp_path / "kept"), str(broken)]) == 1
    assert "failed under scopeflow (exit 3)" in capsys.readouterr().err
    if compare.find_tensorflow_python() is None:
        assert main(["compare", program]) == 1
        assert "no TensorFlow to compare with" in capsys.readouterr().err


def test_matches_real_tensorflow(program, tmp_path, tf1):
    tool = os.environ.get("SCOPEFLOW_TF1") or os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "..", "shared", "tools", "tf1")
    python = subprocess.run([tool, "--python"], capture_output=True, text=True,
                            check=True).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "scopeflow", "compare", "--tf-python", python,
                           "--json", program], capture_output=True, text=True, timeout=600)
    doc = json.loads(done.stdout)
    assert done.returncode == 0 and doc["same"], doc["differences"][:3]
    assert doc["runs_compared"] == 4 and doc["tensors_compared"] > 200
