"""Every fenced code block of README.md runs as shown (slow commands in a cheap form).

How README.md marks its blocks (HTML comments on the line before a block; GitHub shows
none of it):

- A ```python block is a program, run by a fresh interpreter as ``model.py``.
  ``<!-- continues -->`` before a ```python block makes it part of the previous ```python
  block's program, which then runs once, whole (so the tour can build on one model).
- A ```bash block runs with ``bash -e -o pipefail``, this interpreter's environment first
  on ``PATH`` (``python``, ``pip`` and ``scopeflow`` are the installed ones).
- Both run in README order, in one temporary working directory: later blocks see the
  files earlier ones wrote (the ``scopeflow ckpt`` block reads the tour's checkpoints).
  Nothing is written into the repository.
- ``<!-- output -->`` before a ```text block makes it the expected output of the
  previous runnable block: its lines must appear in that block's stdout + stderr, in
  order (whitespace at the ends ignored, the temporary directory's path removed).
- Other ```text and ```console blocks only show things and do not run. A block in any
  other language, or in none, fails the test.
- ``CHEAP`` below: README text that a test must not run as written (installs, the
  20,000-step job, the test suite itself) and what runs in its place. Each entry must
  match the README, so the two cannot drift apart.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
README = ROOT / "README.md"

CONTINUES, OUTPUT = "<!-- continues -->", "<!-- output -->"
RUN = {"python", "bash"}
SHOW = {"text", "console"}
# The offline stand-in data, at once: an unreachable mirror makes the job train on
# scikit-learn's digits instead of trying the network.
_NO_DOWNLOAD = "--source-url file:///nonexistent/"
# Succeeds when the modules named after it are installed (without the time to import them).
_INSTALLED = ("python -c 'import importlib.util as u, sys; "
              "sys.exit([m for m in sys.argv[1:] if not u.find_spec(m)] or None)'")

# (README text, what runs instead, strings the block's output must contain)
CHEAP = [
    # This interpreter's environment is the one the command creates; check what it installs.
    ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[digits]' && ",
     f"{_INSTALLED} scopeflow sklearn && ", []),
    ("python -m scopeflow.examples.mnist_cnn --steps 300",
     f"python -m scopeflow.examples.mnist_cnn --steps 3 {_NO_DOWNLOAD}",
     ["test accuracy: ", "tensorboard --logdir runs/mnist"]),
    # The full run: three more steps, resuming from the short run's checkpoint.
    ("python -m scopeflow.examples.mnist_cnn      # the full 20,000 steps: 20-90 minutes",
     f"python -m scopeflow.examples.mnist_cnn --steps 6 {_NO_DOWNLOAD}",
     ["resuming from runs/mnist/model.ckpt-3 (global_step 3)", "test accuracy: "]),
    # CI runs `python -m pytest` itself (.ci/run); here it would run this test again.
    ("pip install -e '.[test]' && python -m pytest",
     f"{_INSTALLED} pytest tensorboard ml_dtypes sklearn && python -m pytest --version", []),
]


class Block:
    def __init__(self, lang, code, line, marker):
        self.lang, self.code, self.line, self.marker = lang, code, line, marker


def read_blocks(text):
    """The fenced blocks of ``text``, each with its language, first line and marker."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        fence = re.match(r"^```(\S*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        before = [ln.strip() for ln in lines[:i] if ln.strip()]
        marker = before[-1] if before and before[-1] in (CONTINUES, OUTPUT) else None
        end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"), None)
        assert end is not None, f"README.md:{i + 1}: the block never closes"
        blocks.append(Block(fence[1], "\n".join(lines[i + 1:end]) + "\n", i + 1, marker))
        i = end + 1
    return blocks


class Unit:
    """What runs: one ```bash block, or a ```python program (a block and its continuations)."""

    def __init__(self, block):
        self.lang, self.code, self.line = block.lang, block.code, block.line
        self.expected_output, self.must_contain = [], []


def plan(blocks):
    """The blocks as units to run in order, with the cheap forms substituted."""
    units, used = [], set()
    for block in blocks:
        where = f"README.md:{block.line}"
        assert block.lang in RUN | SHOW, (
            f"{where}: a ```{block.lang} block; say ```python or ```bash (run by this test) "
            f"or ```text/```console (shown only)")
        if block.marker == CONTINUES:
            assert block.lang == "python" and units and units[-1].lang == "python", (
                f"{where}: {CONTINUES} must come before a ```python block that follows one")
            units[-1].code += "\n" + block.code
        elif block.marker == OUTPUT:
            assert block.lang in SHOW and units, f"{where}: {OUTPUT} must precede ```text"
            units[-1].expected_output.append((block.line, block.code))
        elif block.lang in RUN:
            units.append(Unit(block))
        if block.lang == "bash":
            unit = units[-1]
            for i, (shown, runs, contains) in enumerate(CHEAP):
                if shown in unit.code:
                    unit.code = unit.code.replace(shown, runs)
                    unit.must_contain += contains
                    used.add(i)
    unused = [shown for i, (shown, _, _) in enumerate(CHEAP) if i not in used]
    assert not unused, f"CHEAP entries that no longer match README.md: {unused}"
    return units


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _in_order(expected, actual):
    """The lines of ``expected`` that do not appear in ``actual`` in order."""
    remaining = iter(actual)
    return [line for line in expected if not any(line == got for got in remaining)]


def run_unit(unit, workdir):
    if unit.lang == "python":
        (workdir / "model.py").write_text(unit.code)
        cmd = [sys.executable, "model.py"]
    else:
        (workdir / "block.sh").write_text(unit.code)
        cmd = ["bash", "-e", "-o", "pipefail", "block.sh"]
    proc = subprocess.run(cmd, cwd=workdir, env=_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    out = proc.stdout.replace(str(workdir) + os.sep, "")
    where = f"README.md:{unit.line} (```{unit.lang}, run as:\n{unit.code})"
    assert proc.returncode == 0, f"{where}\nexited {proc.returncode}:\n{out}"
    for text in unit.must_contain:
        assert text in out, f"{where}\noutput lacks {text!r}:\n{out}"
    actual = [line.strip() for line in out.splitlines()]
    for line, shown in unit.expected_output:
        missing = _in_order([ln.strip() for ln in shown.splitlines() if ln.strip()], actual)
        assert not missing, (f"{where}\nREADME.md:{line} shows output it does not print: "
                             f"{missing}\nIt printed:\n{out}")


def test_every_readme_block_runs(tmp_path):
    units = plan(read_blocks(README.read_text()))
    assert any(u.lang == "python" for u in units) and any(u.lang == "bash" for u in units)
    for unit in units:
        run_unit(unit, tmp_path)


def test_readme_names_only_paths_in_the_repository():
    text = README.read_text()
    assert "../" not in text and "/work/" not in text
    for target in re.findall(r"\]\(([^)#:]+)\)", text):          # [...](relative link)
        assert (ROOT / target).exists(), target
    for path in re.findall(r"`((?:docs|examples|bench|scopeflow)/[\w./-]+\.\w+)", text):
        assert (ROOT / path).exists(), path


def test_compare_help_lists_its_flags():
    proc = subprocess.run([sys.executable, "bench/compare.py", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "--repeat N" in proc.stdout and "SCRIPT" in proc.stdout


def test_marked_blocks_are_checked():
    """The conventions above, on a small made-up README."""
    text = "\n".join([
        "```python", "a = 1", "```", CONTINUES, "```python", "print(a)", "```",
        OUTPUT, "```text", "1", "```", "```bash", "python -m pytest", "```",
        "```console", "$ anything", "```"])
    blocks = read_blocks(text)
    assert [(b.lang, b.marker) for b in blocks] == [
        ("python", None), ("python", CONTINUES), ("text", OUTPUT), ("bash", None),
        ("console", None)]
    assert _in_order(["1", "3"], ["1", "2", "3"]) == []
    assert _in_order(["3", "1"], ["1", "2", "3"]) == ["1"]
