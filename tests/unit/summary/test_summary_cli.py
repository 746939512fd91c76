"""``scopeflow runs ls / scalars / plot`` (scopeflow/summary/runs_cli.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.summary import runs_cli

TF_EVENTS = Path(__file__).resolve().parents[2] / "fixtures" / "tf_summaries" / "events"


def _main(argv):
    parser = argparse.ArgumentParser(prog="scopeflow")
    runs_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_ls_lists_runs_steps_and_tags(capsys):
    assert _main(["runs", "ls", str(TF_EVENTS)]) == 0
    out = capsys.readouterr().out
    assert "word2vec: 1 event file(s), 13 records, steps 1..5" in out
    assert "scalar: summaries/loss (5)" in out
    assert "histogram: summaries/histogram_loss (5)" in out


def test_scalars_prints_every_point(capsys, tmp_path):
    with tf.summary.FileWriter(tmp_path / "a") as w:
        for step in range(2000):  # more than TensorBoard's default sample of 1000
            w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="l", simple_value=step)]),
                          step)
    assert _main(["runs", "scalars", str(tmp_path), "l", "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run,step,wall_time,value" and len(lines) == 2001
    assert lines[-1].startswith("a,1999,") and lines[-1].endswith(",1999.0")


def test_errors_are_clear(capsys, tmp_path):
    # failures of the operation exit 1; 2 is argparse's, for usage mistakes
    assert _main(["runs", "ls", str(tmp_path / "missing")]) == 1
    assert "No event file or log directory" in capsys.readouterr().err
    assert _main(["runs", "ls", str(tmp_path)]) == 1
    assert "no event files" in capsys.readouterr().err
    assert _main(["runs", "scalars", str(TF_EVENTS), "nope"]) == 1
    assert "no scalar points with tag 'nope'" in capsys.readouterr().err


def test_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "loss.png"
    assert _main(["runs", "plot", str(TF_EVENTS), "summaries/loss", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
