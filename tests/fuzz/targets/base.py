"""What a fuzz target is, and how an outcome is judged (runs inside the worker).

A target is one reader of untrusted bytes. It makes its seed files with scopeflow (and
takes small files TensorFlow wrote from ``tests/fixtures``), lists hand-made hostile
inputs, and calls the reader's public APIs on each input (its *probes*, each judged on
its own). A probe either returns (success; it may name the kind of success) or raises.
A raised exception is *accepted* only when an ``Accept`` rule of the target matches it:
its class, and for Python's own classes (``ValueError``, ``OSError``...) also its origin,
a ``raise`` statement in scopeflow's own code, so that a NumPy, struct or protobuf
``ValueError`` escaping from deep inside is still a crash. Anything else is a crash.

An error the session made out of a kernel's stray exception (``InvalidArgumentError``
carrying ``_original_exception``) is judged by that original exception: TF's kernels
refuse bad bytes on purpose, so a scopeflow kernel must too.
"""

from __future__ import annotations

import importlib.util
import os
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"
# Where scopeflow's code is (its installed copy: an editable install is the repository's).
SCOPEFLOW_DIR = os.path.dirname(importlib.util.find_spec("scopeflow").origin) + os.sep


@dataclass(frozen=True)
class Accept:
    """An accepted error: ``cls`` (or a subclass), and why TF raises it too.

    ``raised_by_scopeflow``: the innermost frame must be a ``raise`` statement in
    scopeflow (always true of ``tf.errors`` classes, checked for Python's own classes).
    ``message``: a regex the message must match (``None``: any).
    """

    cls: type
    reason: str
    raised_by_scopeflow: bool = True
    message: str | None = None

    def matches(self, exc: BaseException) -> bool:
        from scopeflow.framework.errors import OpError

        if not isinstance(exc, self.cls):
            return False
        if self.message is not None and not re.search(self.message, str(exc)):
            return False
        # A tf.errors class is always raised on purpose; Python's own may come from
        # anywhere (NumPy, struct, protobuf), so their origin is checked.
        return (not self.raised_by_scopeflow or isinstance(exc, OpError) or
                raised_in_scopeflow(exc))


def raised_in_scopeflow(exc: BaseException) -> bool:
    """Whether ``exc`` comes from a ``raise`` statement in scopeflow's own code."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    last = frames[-1]
    return (last.filename.startswith(SCOPEFLOW_DIR) and
            (last.line or "").lstrip().startswith("raise"))


def original(exc: BaseException) -> BaseException:
    """The exception a kernel raised, when the session turned it into a tf.errors one."""
    seen = set()
    while getattr(exc, "_original_exception", None) is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc._original_exception
    return exc


@dataclass
class Seed:
    """A valid input. ``boundaries``: offsets where the format's structures start or end
    (record headers, blocks, chunks), where truncations and splats are tried first.
    ``mutate``: whether random mutations start from it (a large seed may only be checked
    to decode under the memory limit). ``known``: errors a probe raises on this valid
    file, where scopeflow falls short of TF (the short run checks the seed against it)."""

    label: str
    data: bytes
    boundaries: list[int] = field(default_factory=list)
    mutate: bool = True
    known: dict = field(default_factory=dict)   # probe -> error class it raises on this
                                                # valid file (a gap, named where it is set)


@dataclass
class Hostile:
    """A hand-made hostile input, built from seed ``seed`` (an index into the seeds).
    ``long_only``: too slow for the short run (a large zip bomb)."""

    label: str
    data: bytes
    seed: int = 0
    long_only: bool = False


class Target:
    """One reader. Subclasses set the class attributes and implement the methods."""

    name = ""
    owner = ""          # the reader's code: where a crash is to be fixed (the report says)
    accepts: tuple[Accept, ...] = ()
    timeout_s = 10.0    # per input, all probes together
    # Whether a kernel's MemoryError, which the session reports as TF's OOM error
    # (ResourceExhaustedError), is accepted: only where TF too allocates what the input
    # declares (a Const's tensor); elsewhere a reader must refuse before allocating.
    kernel_oom_is_tf_oom = False

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.seeds: list[Seed] = []

    # -- set up (in the worker, once) ------------------------------------------------
    def prepare(self) -> None:
        """Writes the seed files and builds what the probes need; fills ``self.seeds``."""
        raise NotImplementedError

    def hostile(self, long: bool) -> list[Hostile]:
        """Hand-made hostile inputs."""
        return []

    # -- one input -------------------------------------------------------------------
    def fixup(self, seed: int, data: bytes) -> bytes:
        """``data`` with its checksums recomputed (so the damage reaches the parser
        behind them); best effort, never raises. Default: no checksums."""
        return data

    def install(self, seed: int, data: bytes, fix: bool):
        """Writes ``data`` where the probes read it (``fix``: it was fixed up; a target
        whose checksums live in another file fixes that one here); returns what the
        probes take (a path). Default: the file ``self.path``, which ``prepare`` sets."""
        self.path.write_bytes(data)
        return self.path

    def probes(self) -> list[tuple[str, Callable]]:
        """``[(name, probe(seed, path))]``: the APIs that read the input. A probe returns
        None (success) or a word naming the kind of success."""
        raise NotImplementedError

    def judge(self, exc: BaseException) -> str | None:
        """The accepted class's name for ``exc``, or None (a crash)."""
        from scopeflow.framework.errors import ResourceExhaustedError

        inner = original(exc)
        if (self.kernel_oom_is_tf_oom and isinstance(exc, ResourceExhaustedError) and
                isinstance(inner, MemoryError)):
            return "ResourceExhaustedError(kernel OOM)"
        exc = inner
        for rule in self.accepts:
            if rule.matches(exc):
                return type(exc).__name__
        return None


def describe(exc: BaseException, limit: int = 12) -> dict:
    """A crash as plain data: class, message, the traceback's last frames, the innermost
    scopeflow frame (where to fix it)."""
    exc = original(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename.startswith(SCOPEFLOW_DIR)]
    where = (f"{os.path.relpath(ours[-1].filename, REPO)}:{ours[-1].lineno}"
             if ours else "(no scopeflow frame)")
    return {"class": f"{type(exc).__module__}.{type(exc).__qualname__}"
            if type(exc).__module__ != "builtins" else type(exc).__qualname__,
            "message": str(exc)[:500], "where": where,
            "traceback": "".join(traceback.format_exception(exc, limit=-limit))[-4000:]}
