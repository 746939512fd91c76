"""``scopeflow examples [DIR]`` copies the tour's programs (the repository's examples/,
shipped in the wheel as scopeflow/examples/tour/) into a folder; the packaging test runs one
from an installed wheel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scopeflow import cli
from scopeflow.examples import tour

ROOT = Path(__file__).resolve().parents[3]


def test_a_checkout_finds_its_examples_folder():
    assert tour.tour_dir() == ROOT / "examples"


def test_copies_every_program_of_the_tour(tmp_path, capsys):
    assert cli.main(["examples", str(tmp_path / "mine")]) == 0
    copied = sorted(p.name for p in (tmp_path / "mine").iterdir())
    assert copied == sorted(p.name for p in (ROOT / "examples").glob("*.py"))
    assert "mnist_arrays.py" in copied          # what the MNIST examples import beside them
    out = capsys.readouterr().out
    assert f"copied {len(copied)} programs into" in out and "variable_sharing.py" in out
    assert (tmp_path / "mine" / "word2vec.py").read_bytes() == \
        (ROOT / "examples" / "word2vec.py").read_bytes()


def test_never_overwrites_without_being_asked(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "word2vec.py").write_text("# my edits\n")
    assert cli.main(["examples", str(mine)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("scopeflow examples: error: 1 file(s) already there")
    assert "--overwrite" in err
    assert sorted(p.name for p in mine.iterdir()) == ["word2vec.py"]   # nothing written
    assert (mine / "word2vec.py").read_text() == "# my edits\n"
    assert cli.main(["examples", str(mine), "--overwrite"]) == 0
    assert (mine / "word2vec.py").read_bytes() == (ROOT / "examples" / "word2vec.py").read_bytes()


def test_a_copied_program_runs_from_its_new_folder(tmp_path):
    tour.copy_tour(tmp_path)
    out = subprocess.run([sys.executable, str(tmp_path / "variable_sharing.py")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "reused  two_layers/h1/weights" in out.stdout
