"""Runs benchmarks under scopeflow and real TensorFlow in one go; prints ratios.

    python bench/compare.py                          # the seeds' two models, side by side
    python bench/compare.py bench/bench_session.py [more scripts...]

Each script prints one JSON line of times (lower is better). TensorFlow runs the same
script with ``--tf`` through ``../shared/tools/tf1`` (or $SCOPEFLOW_TF1), right after
scopeflow, on the same machine. Ratios are TensorFlow time / scopeflow time: above 1
means scopeflow is faster. ``--repeat N`` alternates the two N times and reports the
median of each, which steadies the ratio on a busy machine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_MODELS = ["bench/bench_conv.py", "bench/bench_word2vec.py"]


def run(cmd):
    # The checkout's scopeflow, installed or not.
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


def _median(runs):
    return {k: (statistics.median(r[k] for r in runs) if k != "framework" else runs[0][k])
            for k in runs[0]}


def compare(script, tool, repeat):
    ours_runs, theirs_runs = [], []
    for _ in range(repeat):
        ours_runs.append(run([sys.executable, script]))
        if tool:
            theirs_runs.append(run([tool, script, "--tf"]))
    return _median(ours_runs), (_median(theirs_runs) if theirs_runs else None)


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    repeat = 1
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    scripts = args or SEED_MODELS
    tool = os.environ.get("SCOPEFLOW_TF1", str(ROOT.parent / "shared" / "tools" / "tf1"))
    tool = tool if Path(tool).exists() else None
    header = False
    for script in scripts:
        ours, theirs = compare(script, tool, repeat)
        if not header:
            name = theirs["framework"] if theirs else "TensorFlow"
            print(f"| measure (ms unless named) | scopeflow | {name} | TF / scopeflow |")
            print("|---|---:|---:|---:|")
            header = True
        for key, value in ours.items():
            if key == "framework":
                continue
            if theirs:
                print(f"| {Path(script).stem}: {key} | {value:.2f} | {theirs[key]:.2f} | "
                      f"{theirs[key] / value:.2f}x |")
            else:
                print(f"| {Path(script).stem}: {key} | {value:.2f} | n/a | n/a |")


if __name__ == "__main__":
    main()
