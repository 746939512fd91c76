"""Runs benchmarks under scopeflow and real TensorFlow in one go; prints ratios.

    python bench/compare.py                          # the seeds' two models, side by side
    python bench/compare.py bench/bench_session.py [more scripts...]
    python bench/compare.py --suite                  # every script with a TensorFlow side

Each script prints one JSON line of times (lower is better). TensorFlow runs the same
script with ``--tf`` through ``../shared/tools/tf1`` (or $SCOPEFLOW_TF1), on the same
machine, at the same time: the two processes take turns, one timed round each (see
``timing.py``), so a slow stretch of this shared machine hits both alike. Ratios are
TensorFlow time / scopeflow time: above 1 means scopeflow is faster. ``--repeat N`` runs
N such pairs of processes and reports the median of each framework's times.

The suite (``--suite``, issue 20's rows), each script runnable alone, ``--tf`` for TF:
  bench_conv.py              seed 003's CNN: conv passes, training step at batch 50 and 256
  bench_word2vec.py          seed 000's word2vec NCE step, its loss, its graph build
  bench_word2vec_dynamic.py  the same with placeholder([None]) feeds
  bench_lstm.py              an LSTM training step (dynamic_rnn, static_rnn)
  bench_session.py           Session.run overhead, graph build and tf.gradients time
  bench_train.py             optimizer steps (Adam, GradientDescent, sparse Momentum)
  bench_pipeline.py          tf.data from TFRecords, and the CNN step it feeds
  bench_checkpoint.py        Saver save/restore of 1 GB, against cp (needs ~2.5 GB of disk)
  bench_summary.py           scalar + histogram + image summaries written every step
  bench_memory.py            peak RSS (MiB) of the CNN's training, in a fresh process
  bench_import.py            import time in fresh processes (scopeflow: with every extra too)
  bench_inference.py         frozen MobileNet v1/v2, ResNet-50, Inception v3, batch 1 and 32
Not in it: bench_distributed.py (no TensorFlow side) and bench_libm.py (scopeflow's own
code paths). Rows ending ``_mb`` are MiB, ``_per_s`` rates; the others are times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import cpu_model  # noqa: E402 - the module beside this one

ROOT = Path(__file__).resolve().parent.parent
SEED_MODELS = ["bench/bench_conv.py", "bench/bench_word2vec.py"]
SUITE = SEED_MODELS + [f"bench/bench_{name}.py" for name in (
    "word2vec_dynamic", "lstm", "session", "train", "pipeline", "checkpoint", "summary",
    "memory", "import", "inference")]


def _env(turns):
    # The checkout's scopeflow, installed or not.
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("SCOPEFLOW_BENCH_TURNS", None)
    if turns:
        env["SCOPEFLOW_BENCH_TURNS"] = "1"
    return env


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT,
                         env=_env(False))
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


class _TurnTaker:
    """One benchmark process that times a round only when told to (timing.py's protocol)."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, cwd=ROOT, env=_env(True))
        self.result = None

    def wait_ready(self):
        """Reads on to the next ``#wait`` (True) or to the end of the script (False)."""
        for line in self.proc.stdout:
            if line.startswith("#wait"):
                return True
            if line.startswith("{"):
                self.result = json.loads(line)
        if self.proc.wait() != 0 or self.result is None:
            self.stderr.seek(0)
            raise RuntimeError(f"{' '.join(self.cmd)} failed:\n{self.stderr.read()}")
        return False

    def take_turn(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith("#round"):
                return
        raise RuntimeError(f"{' '.join(self.cmd)} stopped in a timed round")


def run_in_turns(*cmds):
    """Runs the scripts at once, alternating their timed rounds; returns their JSON results.

    Each process's setup between rounds finishes before the other's next round starts,
    so no timed round shares the machine with the other framework's work.
    """
    takers = [_TurnTaker(cmd) for cmd in cmds]
    try:
        ready = [t.wait_ready() for t in takers]
        while any(ready):
            for i, taker in enumerate(takers):
                if ready[i]:
                    taker.take_turn()
                    ready[i] = taker.wait_ready()
    finally:
        for taker in takers:
            if taker.proc.poll() is None:
                taker.proc.kill()
            taker.stderr.close()
    return [t.result for t in takers]


def _median(runs):
    return {k: (statistics.median(r[k] for r in runs)
                if isinstance(runs[0][k], (int, float)) else runs[0][k])
            for k in runs[0]}


def compare(script, tool, repeat):
    ours_runs, theirs_runs = [], []
    for _ in range(repeat):
        if tool:
            ours, theirs = run_in_turns([sys.executable, script], [tool, script, "--tf"])
            theirs_runs.append(theirs)
        else:
            ours = run([sys.executable, script])
        ours_runs.append(ours)
    return _median(ours_runs), (_median(theirs_runs) if theirs_runs else None)


def _positive_int(text):
    value = int(text)  # ValueError: argparse's "invalid int value"
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


_positive_int.__name__ = "int"  # argparse names the type in "invalid int value"


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python bench/compare.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scripts", nargs="*", metavar="SCRIPT",
                        help="benchmark scripts to run (default: "
                             + " ".join(SEED_MODELS) + ")")
    parser.add_argument("--suite", action="store_true",
                        help="run every script of the suite (listed above)")
    parser.add_argument("--repeat", type=_positive_int, default=1, metavar="N",
                        help="pairs of processes per script; the median is reported "
                             "(default %(default)s)")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    if args.suite and args.scripts:
        parser.error("--suite runs every script of the suite: name no scripts with it")
    repeat = args.repeat
    scripts = SUITE if args.suite else args.scripts or SEED_MODELS
    tool = os.environ.get("SCOPEFLOW_TF1", str(ROOT.parent / "shared" / "tools" / "tf1"))
    tool = tool if Path(tool).exists() else None
    header = False
    print(f"CPU: {cpu_model()}")
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
            if not isinstance(value, (int, float)):  # e.g. the CPU model
                print(f"| {Path(script).stem}: {key} | {value} | "
                      f"{theirs.get(key, '') if theirs else 'n/a'} | |")
                continue
            if theirs and key not in theirs:  # a measure only scopeflow reports
                print(f"| {Path(script).stem}: {key} | {value:.2f} | | |")
            elif theirs:
                # Times: TF / scopeflow; rates (``*_per_s``, higher is better): the inverse,
                # so above 1x scopeflow is faster either way. A zero (a count, or a time
                # below the clock's resolution) has no ratio.
                num, den = (value, theirs[key]) if key.endswith("_per_s") else (theirs[key], value)
                ratio = f"{num / den:.2f}x" if num and den else "n/a"
                print(f"| {Path(script).stem}: {key} | {value:.2f} | {theirs[key]:.2f} | "
                      f"{ratio} |")
            else:
                print(f"| {Path(script).stem}: {key} | {value:.2f} | n/a | n/a |")


if __name__ == "__main__":
    main()
