"""A differential debugger: run one TF1 program under scopeflow and under real TensorFlow,
record what each ``Session.run`` computes, and find the first op whose value differs.

Both interpreters load ``compare_recorder.py``, which wraps ``Session.run`` so that each
recorded call also fetches the numeric tensors the step computes anyway. The comparison
walks the first run that differs in graph creation order and names its *root causes*: the
tensors that differ while every recorded input of their op agrees. That op's kernel (or the
state or randomness it reads) is where the two libraries part; everything downstream only
inherits the difference. The scopeflow side is the reference for order and for the user's
line that created each op.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np

RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_recorder.py")

# Runs the program with the recorder wrapped around the library's Session.run. argv: the
# recorder's path, the output folder, runs, skip, the program and its arguments.
_PRELUDE = """
import importlib.util, os, sys
_recorder_path, _out, _runs, _skip, _program, *_args = sys.argv[1:]
_spec = importlib.util.spec_from_file_location("_scopeflow_compare_recorder", _recorder_path)
_recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_recorder)
"""
_SCOPEFLOW_SIDE = _PRELUDE + """
import scopeflow
from scopeflow.cli.runner import run_program
_recorder.Recorder(scopeflow.Session, _out, int(_runs), int(_skip))
sys.exit(run_program(_program, _args))
"""
_TENSORFLOW_SIDE = _PRELUDE + """
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import runpy
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
_recorder.Recorder(tf.Session, _out, int(_runs), int(_skip))
sys.argv = [_program, *_args]
sys.path.insert(0, os.path.dirname(os.path.abspath(_program)))
runpy.run_path(_program, run_name="__main__")
"""


class RecordingError(RuntimeError):
    """A side of the comparison could not run the program or left no recording."""


def record(python: str, side: str, program: str, args, outdir: str, runs: int, skip: int = 0,
           timeout: float | None = None) -> subprocess.CompletedProcess:
    """Runs ``program`` under ``python`` (``side``: ``"scopeflow"`` or ``"tensorflow"``),
    recording runs ``skip`` .. ``skip + runs - 1`` into ``outdir``."""
    code = _SCOPEFLOW_SIDE if side == "scopeflow" else _TENSORFLOW_SIDE
    cmd = [python, "-c", code, RECORDER, outdir, str(runs), str(skip), program, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RecordingError(f"{program} failed under {side} (exit {done.returncode}):\n"
                             f"{done.stderr[-3000:]}")
    if not os.path.exists(os.path.join(outdir, "ops.json")):
        raise RecordingError(f"{program} made no Session.run call under {side} to record")
    return done


class Recording:
    """A folder ``compare_recorder`` wrote: ``ops`` and each run's tensors by name."""

    def __init__(self, folder: str):
        self.folder = folder
        try:
            with open(os.path.join(folder, "ops.json")) as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            raise RecordingError(f"{folder} holds no recording: {e}") from None
        self.ops: dict = meta["ops"]
        self.recorded: list[int] = meta["recorded"]  # the calls that returned
        self.skip: int = meta.get("skip", 0)

    def run(self, index: int) -> dict[str, np.ndarray]:
        base = os.path.join(self.folder, f"run{index:04d}")
        with open(base + ".json") as f:
            names = json.load(f)["names"]
        with np.load(base + ".npz", allow_pickle=False) as arrays:
            return {name: arrays[f"arr_{i}"] for i, name in enumerate(names)}


@dataclass
class Difference:
    """One tensor that differs in one run, and how."""

    run: int
    tensor: str
    op_type: str
    site: str
    root_cause: bool
    inputs_compared: int
    what: str  # "shape", "dtype", "values" or "layout" (other shape, the same values)
    detail: str

    def line(self) -> str:
        where = f" created at {self.site}" if self.site else ""
        return f"{self.tensor} ({self.op_type}){where}: {self.detail}"


@dataclass
class Report:
    """What ``compare_recordings`` found."""

    runs_compared: int = 0
    tensors_compared: int = 0
    first_run: int | None = None
    differences: list[Difference] = field(default_factory=list)
    only_scopeflow: list[str] = field(default_factory=list)
    only_tensorflow: list[str] = field(default_factory=list)
    # Tensors whose shapes differ while their values agree (an intermediate that TF keeps
    # with size-1 dims): a graph difference, not a numeric one, so they don't stop the walk.
    layout_only: list[Difference] = field(default_factory=list)

    raised_here: list[int] = field(default_factory=list)
    raised_in_tensorflow: list[int] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.first_run is None and not self.raised_here and not self.raised_in_tensorflow

    @property
    def root_causes(self) -> list[Difference]:
        return [d for d in self.differences if d.root_cause]


def _value_difference(a: np.ndarray, b: np.ndarray, rtol: float, atol: float):
    """``None`` when ``a`` (scopeflow's) matches ``b`` (TF's), else (what, detail)."""
    if a.shape != b.shape:
        detail = f"shape {a.shape} here, {b.shape} in TensorFlow"
        if a.size == b.size and _value_difference(a.reshape(b.shape), b, rtol, atol) is None:
            return "layout", detail + " (the same values)"
        return "shape", detail
    if a.dtype != b.dtype:
        return "dtype", f"dtype {a.dtype} here, {b.dtype} in TensorFlow"
    if a.dtype.kind in "fc":
        bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = a != b
    if not bad.any():
        return None
    count = int(bad.sum())
    diff = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) - b)
    diff = np.where(bad, diff, 0)
    worst = np.unravel_index(int(np.nanargmax(diff)) if np.isfinite(diff).any() else
                             int(np.argmax(bad)), a.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = float(diff[worst] / abs(b[worst])) if b[worst] != 0 else float("inf")
    at = f" at {list(int(i) for i in worst)}" if a.ndim else ""
    return "values", (f"{count} of {a.size} elements differ; largest |diff| "
                      f"{float(diff[worst]):.3g} (relative {rel:.3g}){at}: {a[worst]!r} here, "
                      f"{b[worst]!r} in TensorFlow")


def compare_recordings(scopeflow_dir: str, tensorflow_dir: str, rtol: float = 1e-5,
                       atol: float = 1e-6) -> Report:
    """Compares two recordings run by run and stops at the first run that differs."""
    ours, theirs = Recording(scopeflow_dir), Recording(tensorflow_dir)
    if ours.skip != theirs.skip:
        raise RecordingError(f"the recordings start at different Session.run calls: "
                             f"{ours.skip} in {scopeflow_dir}, {theirs.skip} in "
                             f"{tensorflow_dir} (--skip)")
    report = Report()
    # A call recorded on one side only returned there and raised on the other.
    report.raised_in_tensorflow = [i for i in ours.recorded if i not in theirs.recorded]
    report.raised_here = [i for i in theirs.recorded if i not in ours.recorded]
    for index in [i for i in ours.recorded if i in theirs.recorded]:
        a, b = ours.run(index), theirs.run(index)
        report.runs_compared += 1
        common = [n for n in a if n in b]
        report.tensors_compared += len(common)
        if index == 0:
            report.only_scopeflow = [n for n in a if n not in b]
            report.only_tensorflow = [n for n in b if n not in a]
        differing = {}
        for name in common:
            found = _value_difference(a[name], b[name], rtol, atol)
            if found is None:
                continue
            if found[0] == "layout":
                if not any(d.tensor == name for d in report.layout_only):
                    report.layout_only.append(_difference(ours, a, b, index, name, found, ()))
            else:
                differing[name] = found
        if not differing:
            continue
        report.first_run = index
        report.differences = [_difference(ours, a, b, index, name, found, differing)
                              for name, found in differing.items()]
        break
    return report


def _difference(ours, a, b, index, name, found, differing) -> Difference:
    op = ours.ops.get(name.rsplit(":", 1)[0], {})
    inputs = [t for t in op.get("inputs", ()) if t in a and t in b]
    root = not any(t in differing for t in inputs)
    return Difference(index, name, op.get("type", "?"), op.get("site", ""), root, len(inputs),
                      *found)


def format_report(report: Report, program: str, limit: int = 10) -> list[str]:
    """The lines ``scopeflow compare`` prints."""
    lines = []
    for calls, where in ((report.raised_here, "here"),
                         (report.raised_in_tensorflow, "in TensorFlow")):
        if calls:
            lines.append(f"Session.run calls {calls} raised {where} only (the other side "
                         "returned)")
    if report.first_run is None:
        lines.append(f"{program}: the same in {report.runs_compared} Session.run calls "
                     f"({report.tensors_compared} tensors compared)")
    else:
        roots = report.root_causes
        lines.append(f"{program}: Session.run call {report.first_run} is the first that "
                     f"differs: {len(report.differences)} tensors, {len(roots)} where it "
                     "starts (their op's recorded inputs agree)")
        for d in roots[:limit]:
            lines.append("  first difference: " + d.line() if d is roots[0] else
                         "  also starts at:  " + d.line())
            if d.inputs_compared == 0:
                lines.append("    (none of its inputs is recorded: it reads variables, "
                             "constants or feeds, so the state or the feed differs)")
        if len(roots) > limit:
            lines.append(f"  ... and {len(roots) - limit} more")
    if report.layout_only:
        lines.append(f"{len(report.layout_only)} tensors differ only in shape (the same values),"
                     " e.g. " + report.layout_only[0].line())
    if report.only_scopeflow or report.only_tensorflow:
        lines.append(f"not compared (names only one side has): {len(report.only_scopeflow)} "
                     f"here, {len(report.only_tensorflow)} in TensorFlow; "
                     "`scopeflow graphdiff` lists them")
    return lines


def find_tensorflow_python() -> str | None:
    """An interpreter with TensorFlow: ``$SCOPEFLOW_TF_PYTHON``, else this one if it has it."""
    env = os.environ.get("SCOPEFLOW_TF_PYTHON")
    if env:
        return env
    probe = subprocess.run([sys.executable, "-c", "import tensorflow"], capture_output=True)
    return sys.executable if probe.returncode == 0 else None
