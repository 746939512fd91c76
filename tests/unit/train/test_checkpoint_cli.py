"""`scopeflow ckpt ls/show/diff/to-npz` on TF-written and scopeflow-written checkpoints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scopeflow import cli
from scopeflow.io.tensor_bundle import write_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_checkpoints"
SAVER = FIXTURES / "saver"


def run(capsys, *argv):
    code = cli.main(["ckpt", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_ls_lists_names_shapes_dtypes_sizes_and_totals(capsys):
    code, out, err = run(capsys, "ls", SAVER)          # a directory: its latest checkpoint
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"checkpoint: {SAVER / 'model-5'}"
    assert lines[1].split() == ["name", "shape", "dtype", "elements", "size"]
    rows = {line.split()[0]: line for line in lines[2:-1]}
    assert list(rows) == ["global_step", "label", "model/counts", "model/f64",
                          "model/layer1/bias", "model/layer1/weights", "model/mask", "names"]
    assert rows["model/layer1/weights"].split() == ["model/layer1/weights", "[3,", "4]",
                                                    "float32", "12", "48", "B"]
    assert rows["names"].split()[1:4] == ["[3]", "string", "3"]
    assert lines[-1] == "8 tensors, 30 elements, 133 B (133 bytes)"


def test_show_prints_values_and_stats(capsys):
    code, out, _ = run(capsys, "show", SAVER / "model-5", "model/layer1/weights")
    assert code == 0
    assert out.splitlines()[0].startswith("model/layer1/weights: float32 [3, 4] (12 elements)")
    assert "[ 8.,  9., 10., 11.]]" in out
    assert out.splitlines()[-1] == "min 0, max 11, mean 5.5, std 3.45205, zeros 1"
    code, out, _ = run(capsys, "show", FIXTURES / "all_dtypes/bundle", "nan")
    assert "[ nan,  inf, -inf,  -0.]" in out and out.rstrip().endswith("NaN 1, Inf 2")
    code, out, _ = run(capsys, "show", FIXTURES / "all_dtypes/bundle", "str/big")
    assert "..." in out and len(out) < 1000
    assert out.splitlines()[-1] == "lengths: min 200000, max 200000, total 200000"


def test_show_many_values_is_summarised_unless_all(capsys, tmp_path):
    write_bundle(tmp_path / "m", ["big"], [np.arange(5000, dtype=np.int32)])
    _, out, _ = run(capsys, "show", tmp_path / "m", "big")
    assert "..." in out and len(out) < 500
    _, out, _ = run(capsys, "show", tmp_path / "m", "big", "--all")
    assert "4999" in out and "..." not in out


def test_errors_are_one_line_with_exit_code_1(capsys, tmp_path):
    code, out, err = run(capsys, "show", SAVER, "nam")
    assert code == 1 and out == ""
    assert err == "scopeflow ckpt: error: Key nam not found in checkpoint. Did you mean " \
        "'names'?\n"
    code, _, err = run(capsys, "ls", tmp_path / "nothere")
    assert code == 1 and "Failed to find any matching files for" in err
    code, _, err = run(capsys, "ls", SAVER / "model-5.index")
    assert code == 1 and "pass the checkpoint prefix" in err


def test_diff(capsys, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    write_bundle(a, ["w", "gone", "shape", "same", "s", "nan", "step"],
                 [w, np.zeros(2), np.zeros(3), np.ones(2), np.array([b"x"]),
                  np.array([np.nan, 1.0]), np.array(3)])
    w2 = w.copy()
    w2[1, 2] += 0.5
    write_bundle(b, ["w", "new", "shape", "same", "s", "nan", "step"],
                 [w2, np.zeros(1), np.zeros(4), np.ones(2), np.array([b"y"]),
                  np.array([np.nan, 1.0]), np.array(4)])
    code, out, _ = run(capsys, "diff", a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[2:] == [
        "- gone  float64[2]  (only in A)",
        "+ new  float64[1]  (only in B)",
        "! shape  float64[3] -> float64[4]",
        "~ s  strings differ",
        "~ step  max |a-b| 1",
        "~ w  max |a-b| 0.5",
        "1 removed, 1 added, 1 shape/dtype changed, 3 values changed, 2 identical"]
    code, out, _ = run(capsys, "diff", a, b, "--atol", "1")
    assert "~ w" not in out and "~ step" not in out
    code, out, _ = run(capsys, "diff", SAVER, SAVER / "model-5")
    assert code == 0 and out.splitlines()[-1].endswith("8 identical")


def test_to_npz(capsys, tmp_path):
    code, out, err = run(capsys, "to-npz", SAVER, tmp_path / "out")
    assert code == 0 and "wrote 8 tensors" in out
    assert "NUL" not in out                                    # a warning: stderr only
    assert err.startswith("scopeflow ckpt: warning: names hold strings ending in NUL bytes")
    with np.load(tmp_path / "out.npz", allow_pickle=True) as data:
        np.testing.assert_array_equal(data["model/layer1/weights"],
                                      np.arange(12, dtype=np.float32).reshape(3, 4))
        assert data["label"] == b"a label" and data["global_step"] == 5
        assert data["names"].tolist() == [b"cat", b"", b"dog\x00"]
    write_bundle(tmp_path / "s", ["s", "f"], [np.array([b"ab", b""]), np.ones(2)])
    run(capsys, "to-npz", tmp_path / "s", tmp_path / "s.npz", "--compress")
    with np.load(tmp_path / "s.npz") as data:                  # no pickle needed
        assert data["s"].tolist() == [b"ab", b""]
    assert sorted(p.name for p in tmp_path.iterdir() if "npz" in p.name) == ["out.npz", "s.npz"]


def test_scopeflow_command_line_entry_point(tmp_path):
    out = subprocess.run([sys.executable, "-m", "scopeflow.cli", "ckpt", "ls", str(SAVER)],
                         capture_output=True, text=True, check=True)
    assert "8 tensors" in out.stdout


@pytest.mark.parametrize("argv", [["ckpt"], ["ckpt", "show", "x"]])
def test_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
