"""The conventions every ``scopeflow`` subcommand follows (see scopeflow/cli.py's docstring).

Exit status 0/1/2 (and 141 for a closed pipe), ``--version``, ``--json``, help text and
epilogs, warnings on stderr, "Did you mean" suggestions: through the real entry point,
in-process (``cli.main``) and as a subprocess (``python -m scopeflow.cli``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import scopeflow
from scopeflow import cli
from scopeflow.io.tensor_bundle import write_bundle
from scopeflow.summary.reader import read_scalars

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SAVER = FIXTURES / "tf_checkpoints" / "saver"
ALL_DTYPES = FIXTURES / "tf_checkpoints" / "all_dtypes" / "bundle"
EVENTS = FIXTURES / "tf_summaries" / "events"
PACKAGE = Path(scopeflow.__file__).resolve().parent


def status(argv) -> int:
    """``scopeflow ARGV``'s exit status, in-process (argparse's usage errors included)."""
    try:
        return cli.main([str(a) for a in argv])
    except SystemExit as e:
        return e.code


def scopeflow_cmd(*argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scopeflow.cli", *map(str, argv)],
                          capture_output=True, text=True, **kwargs)


def strict_loads(text: str):
    """``json.loads`` that refuses NaN/Infinity: the output must be strict JSON."""
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *argv, expect=0):
    code = status(argv)
    out, err = capsys.readouterr()
    assert code == expect, err
    assert out.endswith("\n") and out.count("\n") == 1   # one document, one line
    return strict_loads(out)


@pytest.fixture
def differing(tmp_path):
    """Two checkpoints: one tensor removed, one added, one reshaped, two changed."""
    a, b = tmp_path / "a", tmp_path / "b"
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    w2 = w.copy()
    w2[1, 2] = np.inf
    write_bundle(a, ["w", "gone", "shape", "same", "s"],
                 [w, np.zeros(2), np.zeros(3), np.ones(2), np.array([b"x"])])
    write_bundle(b, ["w", "new", "shape", "same", "s"],
                 [w2, np.zeros(1), np.zeros(4), np.ones(2), np.array([b"y"])])
    return a, b


# ── --version ────────────────────────────────────────────────────────────────────────
def test_version_subprocess_and_in_process(capsys):
    expected = f"scopeflow {metadata.version('scopeflow')}\n"
    proc = scopeflow_cmd("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, expected, "")
    assert status(["--version"]) == 0
    assert capsys.readouterr().out == expected


def test_version_falls_back_to_dunder_version(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", missing)
    assert cli.version() == scopeflow.__version__


# ── exit status ──────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("argv, expected", [
    (["ckpt", "ls", SAVER], 0),
    (["ckpt", "show", SAVER, "model/layer1/weights"], 0),
    (["ckpt", "diff", SAVER, SAVER / "model-5"], 0),
    (["runs", "ls", EVENTS], 0),
    (["runs", "scalars", EVENTS, "summaries/loss"], 0),
    # failures of the operation: 1
    (["ckpt", "ls", "/nonexistent/model.ckpt"], 1),
    (["ckpt", "show", SAVER, "no/such/tensor"], 1),
    (["ckpt", "diff", SAVER, "/nonexistent"], 1),
    (["ckpt", "to-npz", "/nonexistent", "/tmp/unused.npz"], 1),
    (["runs", "ls", "/nonexistent/logdir"], 1),
    (["runs", "scalars", EVENTS, "no/such/tag"], 1),
    (["runs", "scalars", EVENTS, "summaries/loss", "--run", "nope"], 1),
    # usage mistakes: 2
    ([], 2),
    (["nope"], 2),
    (["ckpt"], 2),
    (["ckpt", "ls"], 2),
    (["ckpt", "ls", SAVER, "--bogus"], 2),
    (["ckpt", "diff", SAVER, SAVER, "--atol", "-1"], 2),
    (["ckpt", "diff", SAVER, SAVER, "--atol", "x"], 2),
    (["runs", "scalars", EVENTS, "summaries/loss", "--csv", "--json"], 2),
    (["train-mnist", "--steps", "-1"], 2),
    (["train-mnist", "--batch-size", "0"], 2),
])
def test_exit_status(argv, expected, capsys):
    assert status(argv) == expected
    out, err = capsys.readouterr()
    if expected:
        assert err.strip()                    # every failure says why, on stderr
        assert "Traceback" not in err
    if expected == 1:
        assert out == "" and len(err.splitlines()) == 1 and ": error: " in err


def test_diff_exits_1_when_checkpoints_differ(differing, capsys):
    a, b = differing
    assert status(["ckpt", "diff", a, b]) == 1
    assert status(["ckpt", "diff", a, a]) == 0
    capsys.readouterr()
    proc = scopeflow_cmd("ckpt", "diff", a, b)       # the real process exit status
    assert proc.returncode == 1 and proc.stderr == "" and "~ w" in proc.stdout
    assert scopeflow_cmd("ckpt", "diff", b, b).returncode == 0


def test_exit_status_of_the_process():
    assert scopeflow_cmd("ckpt", "show", SAVER, "nope").returncode == 1
    proc = scopeflow_cmd("ckpt", "show", SAVER)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: ")
    proc = subprocess.run([sys.executable, "-m", "scopeflow.train.checkpoint_cli", "ls",
                           str(SAVER)], capture_output=True, text=True)
    assert proc.returncode == 0 and "8 tensors" in proc.stdout


# ── --json ───────────────────────────────────────────────────────────────────────────
def test_ckpt_ls_json(capsys):
    doc = run_json(capsys, "ckpt", "ls", SAVER, "--json")
    assert doc["checkpoint"] == str(SAVER / "model-5")
    names = [t["name"] for t in doc["tensors"]]
    assert names == ["global_step", "label", "model/counts", "model/f64",
                     "model/layer1/bias", "model/layer1/weights", "model/mask", "names"]
    weights = doc["tensors"][names.index("model/layer1/weights")]
    assert weights == {"name": "model/layer1/weights", "shape": [3, 4], "dtype": "float32",
                       "elements": 12, "bytes": 48}
    assert doc["total"] == {"tensors": 8, "elements": 30, "bytes": 133}


def test_ckpt_show_json(capsys):
    doc = run_json(capsys, "ckpt", "show", SAVER, "model/layer1/weights", "--json")
    assert doc["name"] == "model/layer1/weights" and doc["dtype"] == "float32"
    assert doc["shape"] == [3, 4] and doc["elements"] == 12
    assert doc["value"] == np.arange(12).reshape(3, 4).tolist()
    assert doc["stats"]["min"] == 0 and doc["stats"]["max"] == 11
    assert doc["stats"]["zeros"] == 1 and doc["stats"]["mean"] == 5.5

    doc = run_json(capsys, "ckpt", "show", ALL_DTYPES, "nan", "--json")
    assert doc["value"] == ["NaN", "Infinity", "-Infinity", -0.0]     # strict JSON
    assert doc["stats"]["nan"] == 1 and doc["stats"]["inf"] == 2
    assert run_json(capsys, "ckpt", "show", ALL_DTYPES, "str/vec", "--json")["value"] == \
        ["alpha", "be", "", "gamma-delta"]
    assert run_json(capsys, "ckpt", "show", ALL_DTYPES, "scalar/f32", "--json")["value"] == 3.5
    c64 = run_json(capsys, "ckpt", "show", ALL_DTYPES, "c64", "--json")
    assert c64["shape"] == [3] and [len(v) for v in c64["value"]] == [2, 2, 2]
    big = run_json(capsys, "ckpt", "show", ALL_DTYPES, "str/big", "--json")
    assert len(big["value"][0]) == 200000           # every value, unlike the text summary


def test_ckpt_show_json_float32_is_shortest_decimal(capsys, tmp_path):
    write_bundle(tmp_path / "m", ["x"], [np.array([0.1, 1 / 3], dtype=np.float32)])
    doc = run_json(capsys, "ckpt", "show", tmp_path / "m", "x", "--json")
    assert doc["value"] == [0.1, 0.33333334]
    assert np.array(doc["value"], np.float32).tolist() == \
        np.array([0.1, 1 / 3], np.float32).tolist()


def test_ckpt_diff_json(differing, capsys):
    a, b = differing
    doc = run_json(capsys, "ckpt", "diff", a, b, "--json", expect=1)
    assert doc["a"] == str(a) and doc["b"] == str(b)
    assert doc["removed"] == [{"name": "gone", "dtype": "float64", "shape": [2]}]
    assert doc["added"] == [{"name": "new", "dtype": "float64", "shape": [1]}]
    assert doc["reshaped"] == [{"name": "shape", "a": {"dtype": "float64", "shape": [3]},
                                "b": {"dtype": "float64", "shape": [4]}}]
    assert doc["changed"] == [{"name": "s", "max_abs_diff": None},
                              {"name": "w", "max_abs_diff": "Infinity"}]
    assert doc["identical"] == 1 and doc["differ"] is True
    doc = run_json(capsys, "ckpt", "diff", SAVER, SAVER / "model-5", "--json")
    assert doc["differ"] is False and doc["identical"] == 8
    assert not (doc["removed"] or doc["added"] or doc["reshaped"] or doc["changed"])


def test_runs_ls_json(capsys):
    doc = run_json(capsys, "runs", "ls", EVENTS, "--json")
    [run] = doc["runs"]
    assert run["run"] == "word2vec" and run["records"] == 13
    assert len(run["event_files"]) == 1 and "tfevents" in run["event_files"][0]
    assert run["steps"] == {"min": 1, "max": 5}
    assert run["tags"] == {"histogram": {"summaries/histogram_loss": 5},
                           "scalar": {"summaries/loss": 5}}
    assert run["also"] == ["graph", "meta_graph"]


def test_runs_scalars_json(capsys):
    doc = run_json(capsys, "runs", "scalars", EVENTS, "summaries/loss", "--json")
    assert doc["tag"] == "summaries/loss"
    expected = read_scalars(EVENTS, "summaries/loss")
    assert {run: [(p["step"], p["wall_time"], p["value"]) for p in points]
            for run, points in doc["runs"].items()} == expected


def test_json_through_the_process(differing):
    a, b = differing
    for argv in (["ckpt", "ls", SAVER], ["ckpt", "show", SAVER, "names"],
                 ["ckpt", "diff", a, b], ["runs", "ls", EVENTS],
                 ["runs", "scalars", EVENTS, "summaries/loss"]):
        proc = scopeflow_cmd(*argv, "--json")
        assert proc.returncode == (1 if argv[1] == "diff" else 0), proc.stderr
        assert proc.stderr == ""
        assert isinstance(strict_loads(proc.stdout), dict)


# ── help ─────────────────────────────────────────────────────────────────────────────
def _parsers(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {a.dest for a in action._choices_actions if a.help}
            for name, sub in action.choices.items():
                assert name in helped, f"{' '.join(path + (name,))} has no help"
                yield from _parsers(sub, path + (name,))


def test_every_subcommand_and_argument_has_help_and_an_exit_status_epilog():
    seen = []
    for path, parser in _parsers(cli.build_parser()):
        seen.append(" ".join(path))
        assert "exit status: 0 success; 1 failure" in (parser.epilog or ""), path
        assert "2 usage error" in parser.epilog
        for action in parser._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, (path, action.dest)
        parser.format_help()            # and it renders
    assert {"", "ckpt", "ckpt ls", "ckpt show", "ckpt diff", "ckpt to-npz", "runs",
            "runs ls", "runs scalars", "runs plot", "train-mnist"} <= set(seen)


def test_module_docstring_documents_the_exit_status():
    for text in ("0 success", "1 the operation failed", "2 a usage mistake", "141"):
        assert text in cli.__doc__


# ── a closed pipe ────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_closed_pipe_before_any_output_is_quiet(unbuffered):
    read_end, write_end = os.pipe()
    os.close(read_end)                         # nobody will ever read
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "scopeflow.cli", "ckpt", "ls", str(SAVER)],
            stdout=write_end, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": unbuffered})
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 141


@pytest.mark.parametrize("argv", [["ckpt", "show", ALL_DTYPES, "str/big", "--all"],
                                  ["ckpt", "show", ALL_DTYPES, "str/big", "--json"]])
def test_reader_going_away_mid_output_is_quiet(argv):
    proc = subprocess.Popen([sys.executable, "-m", "scopeflow.cli", *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert os.read(proc.stdout.fileno(), 100)    # ~200 kB follow: more than a pipe holds
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert err == b""


@pytest.mark.skipif(not (shutil.which("bash") and shutil.which("head")), reason="no shell")
def test_piped_to_head():
    command = (f"set -o pipefail; {sys.executable} -m scopeflow.cli ckpt show "
               f"{ALL_DTYPES} str/big --all | head -1")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert proc.stdout.startswith("str/big: string [1]") and proc.stdout.count("\n") == 1
    assert proc.stderr == ""
    assert proc.returncode == 141                 # as `seq 1000000 | head -1` under pipefail


def test_broken_pipe_in_process_returns_141(monkeypatch, capsys):
    def closed(args):
        raise BrokenPipeError(32, "Broken pipe")
    parser = cli.build_parser()
    args = parser.parse_args(["ckpt", "ls", "x"])
    args.func = closed
    monkeypatch.setattr(cli, "build_parser", lambda: argparse.Namespace(
        parse_args=lambda argv: args))
    assert cli.main(["ckpt", "ls", "x"]) == 141
    assert capsys.readouterr().err == ""


# ── warnings on stderr ───────────────────────────────────────────────────────────────
def test_to_npz_warning_goes_to_stderr(tmp_path):
    proc = scopeflow_cmd("ckpt", "to-npz", SAVER, tmp_path / "out")
    assert proc.returncode == 0
    assert proc.stdout.startswith("wrote 8 tensors") and proc.stdout.count("\n") == 1
    assert proc.stderr.startswith("scopeflow ckpt: warning: names hold strings ending in NUL")


@pytest.mark.parametrize("module", ["cli/__init__.py", "cli/info.py", "train/checkpoint_cli.py",
                                    "summary/runs_cli.py", "examples/mnist_cnn.py"])
def test_no_warning_or_error_is_printed_to_stdout(module):
    """Every ``print("warning: ...")`` / ``print("error: ...")`` names ``file=sys.stderr``."""
    tree = ast.parse((PACKAGE / module).read_text())
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"
                and node.args):
            continue
        first = node.args[0]
        text = first.value if isinstance(first, ast.Constant) else "".join(
            v.value for v in getattr(first, "values", []) if isinstance(v, ast.Constant))
        words = str(text).lstrip("\n").lower()
        if words.startswith(("warning", "note", "error", "scopeflow ckpt: warning")):
            targets = [ast.unparse(k.value) for k in node.keywords if k.arg == "file"]
            assert targets == ["sys.stderr"], f"{module}:{node.lineno} prints to stdout"


# ── "Did you mean" ───────────────────────────────────────────────────────────────────
def test_unknown_tensor_name_suggests_close_matches(capsys):
    assert status(["ckpt", "show", SAVER, "model/layer1/weight"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("scopeflow ckpt: error: ")
    assert "Did you mean 'model/layer1/weights'" in err
    assert status(["ckpt", "show", SAVER, "zzzzzz"]) == 1
    assert "Did you mean" not in capsys.readouterr().err


def test_unknown_tag_and_run_suggest_close_matches(capsys):
    assert status(["runs", "scalars", EVENTS, "summaries/los"]) == 1
    err = capsys.readouterr().err
    assert err == (f"scopeflow runs: error: no scalar points with tag 'summaries/los' under "
                   f"{EVENTS}. Did you mean 'summaries/loss'?\n")
    assert status(["runs", "scalars", EVENTS, "summaries/loss", "--run", "word2ve"]) == 1
    assert "Did you mean 'word2vec'?" in capsys.readouterr().err
    assert status(["runs", "scalars", EVENTS, "summaries/histogram_loss"]) == 1
    assert "holds histogram data, not scalars" in capsys.readouterr().err
    proc = scopeflow_cmd("runs", "scalars", EVENTS, "summaries/los", "--json")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Did you mean 'summaries/loss'?" in proc.stderr


def test_did_you_mean_helper():
    assert cli.did_you_mean("los", ["loss", "accuracy"]) == ". Did you mean 'loss'?"
    assert cli.did_you_mean("xyz", ["loss"]) == ""
