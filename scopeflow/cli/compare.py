"""``scopeflow compare PROG.py [ARGS]``: run a TF1 program under scopeflow and under real
TensorFlow, and report the first op whose value differs, with the line that created it.

    scopeflow compare train.py --steps 5                  # TF from $SCOPEFLOW_TF_PYTHON
    scopeflow compare --tf-python ~/tf/bin/python train.py
    scopeflow compare --tf-record tf_run/ train.py        # record TF once, reuse after
    scopeflow compare --skip 40 --runs 5 train.py         # Session.run calls 40 to 44

Each recorded ``Session.run`` call also fetches every numeric tensor it computes anyway;
the first call in which any differs beyond ``--rtol``/``--atol`` is reported by the
tensors where the difference starts (their op's recorded inputs agree: that kernel, or the
variables, feeds or random seeds it reads, is where the two libraries part). ``--tf-record
DIR`` keeps TensorFlow's recording in DIR, and a DIR that already holds one is compared
without running TensorFlow (so the comparison also runs where TF is not installed). Exit
status as ``diff``: 0 the same, 1 different (or a side failed), 2 a usage mistake.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from scopeflow.platform.cli_conventions import EXIT_FAILURE, EXIT_OK, epilog, fail, print_json
from scopeflow.tools import compare


def _compare(args) -> int:
    if not os.path.exists(args.program):
        return fail("compare", f"can't open file {args.program!r}: no such file")
    with tempfile.TemporaryDirectory(prefix="scopeflow-compare-") as tmp:
        tf_dir = args.tf_record or os.path.join(tmp, "tensorflow")
        tf_recorded = os.path.exists(os.path.join(tf_dir, "ops.json"))
        python = args.tf_python or compare.find_tensorflow_python()
        if not tf_recorded and python is None:
            return fail("compare", "no TensorFlow to compare with: pass --tf-python (an "
                        "interpreter with TensorFlow), set SCOPEFLOW_TF_PYTHON, or "
                        "--tf-record DIR holding an earlier recording")
        sf_dir = os.path.join(tmp, "scopeflow")
        try:
            if not tf_recorded:
                compare.record(python, "tensorflow", args.program, args.args, tf_dir,
                               args.runs, args.skip)
            compare.record(sys.executable, "scopeflow", args.program, args.args, sf_dir,
                           args.runs, args.skip)
            report = compare.compare_recordings(sf_dir, tf_dir, args.rtol, args.atol)
        except compare.RecordingError as e:
            return fail("compare", e)
    if args.json:
        print_json({"program": args.program, "same": report.same,
                    "runs_compared": report.runs_compared,
                    "tensors_compared": report.tensors_compared,
                    "first_run": report.first_run, "raised_here": report.raised_here,
                    "raised_in_tensorflow": report.raised_in_tensorflow,
                    "differences": [vars(d) for d in report.differences],
                    "only_scopeflow": report.only_scopeflow,
                    "only_tensorflow": report.only_tensorflow})
    else:
        for line in compare.format_report(report, args.program):
            print(line)
    return EXIT_OK if report.same else EXIT_FAILURE


def add_parser(subparsers):
    """Adds the ``compare`` subcommand to the ``scopeflow`` command line."""
    p = subparsers.add_parser(
        "compare", help="run a program under scopeflow and TensorFlow; find the first "
                        "op whose value differs",
        description=__doc__.split("\n\n")[0], epilog=epilog("the values differ"))
    p.add_argument("program", metavar="PROGRAM",
                   help="the TF1 program (run as `scopeflow run` runs it)")
    p.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                   help="the program's arguments (its sys.argv[1:]); options of compare "
                        "go before PROGRAM")
    p.add_argument("--tf-python", metavar="PYTHON",
                   help="an interpreter with TensorFlow (default: $SCOPEFLOW_TF_PYTHON)")
    p.add_argument("--tf-record", metavar="DIR",
                   help="keep TensorFlow's recording in DIR; reuse it if DIR holds one")
    p.add_argument("--runs", type=int, default=5,
                   help="how many Session.run calls to record (default 5)")
    p.add_argument("--skip", type=int, default=0,
                   help="Session.run calls to let pass before recording (default 0)")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (1e-5)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (1e-6)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead")
    p.set_defaults(func=_compare)
