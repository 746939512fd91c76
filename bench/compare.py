"""Runs a benchmark under scopeflow and real TensorFlow in one go; prints ratios.

    python bench/compare.py [bench/bench_session.py]

TensorFlow runs through ``../shared/tools/tf1`` (or $SCOPEFLOW_TF1). Ratios are
TensorFlow time / scopeflow time: above 1 means scopeflow is faster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd):
    # The checkout's scopeflow, installed or not.
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


def main():
    script = sys.argv[1] if len(sys.argv) > 1 else "bench/bench_session.py"
    ours = run([sys.executable, script])
    tool = os.environ.get("SCOPEFLOW_TF1", str(ROOT.parent / "shared" / "tools" / "tf1"))
    theirs = run([tool, script, "--tf"]) if Path(tool).exists() else None
    print(f"| measure | scopeflow | {theirs['framework'] if theirs else 'TensorFlow'} | "
          "TF / scopeflow |")
    print("|---|---:|---:|---:|")
    for key, value in ours.items():
        if key == "framework":
            continue
        if theirs:
            print(f"| {key} | {value:.1f} | {theirs[key]:.1f} | {theirs[key] / value:.1f}x |")
        else:
            print(f"| {key} | {value:.1f} | n/a | n/a |")


if __name__ == "__main__":
    main()
