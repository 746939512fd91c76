"""The fuzz worker: a subprocess that runs inputs through scopeflow's readers.

Started by ``harness.Worker`` as ``python -m tests.fuzz.worker --memory-mb M --workdir D``.
It imports scopeflow and the libraries the readers use, then caps its own address space
(``RLIMIT_AS``) at what it maps now plus ``M`` MiB, so an allocation sized by a damaged
field fails (``MemoryError``, reported as a crash) instead of swapping the machine. The
parent enforces the time limit by killing it.

Requests and replies are pickled frames (an 8-byte length, then the pickle) on the
stdin/stdout it was started with; what the readers print goes to stderr (the parent's log
file). Requests: ``("setup", target, long)``, ``("run", target, seed, data, fix)``,
``("exit",)``; the harness's own self-test targets are served the same way.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import pickle
import resource
import struct
import sys
import time
import warnings
from pathlib import Path

_FRAME = struct.Struct("<Q")


def read_frame(f):
    head = f.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(head)
    return pickle.loads(f.read(size))


def write_frame(f, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(_FRAME.pack(len(data)) + data)
    f.flush()


def address_space() -> int:
    """This process's mapped address space (VmSize), in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def max_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class Server:
    def __init__(self, workdir: Path):
        from .targets import ALL_TARGETS

        self.workdir = workdir
        self.classes = ALL_TARGETS
        self.targets = {}

    def target(self, name):
        target = self.targets.get(name)
        if target is None:
            directory = self.workdir / name
            directory.mkdir(parents=True, exist_ok=True)
            target = self.classes[name](directory)
            target.prepare()
            self.targets[name] = target
        return target

    def setup(self, name, long):
        target = self.target(name)
        return {"seeds": [(s.label, s.data, s.boundaries, s.mutate, s.known)
                          for s in target.seeds],
                "hostile": [(h.label, h.data, h.seed, h.long_only)
                            for h in target.hostile(long)],
                "owner": target.owner, "timeout_s": target.timeout_s,
                "accepts": [(rule.cls.__name__, rule.reason) for rule in target.accepts],
                "maxrss_kb": max_rss_kb()}

    def run(self, name, seed, data, fix):
        from .targets.base import describe

        target = self.target(name)
        reply = {"probes": [], "crash": None, "restart": False, "fixup_error": None}
        start = time.perf_counter()
        if fix:
            try:
                data = target.fixup(seed, data)
            except Exception as e:  # noqa: BLE001 - a harness bug, reported, not fatal
                reply["fixup_error"] = f"{type(e).__name__}: {e}"
        path = target.install(seed, data, fix)
        for probe_name, probe in target.probes():
            try:
                kind = probe(seed, path) or "ok"
            except BaseException as e:  # noqa: BLE001 - every outcome is judged
                accepted = target.judge(e)
                if accepted is not None:
                    reply["probes"].append((probe_name, "accepted", accepted))
                    continue
                info = describe(e)
                reply["probes"].append((probe_name, "crash", info["class"]))
                reply["crash"] = reply["crash"] or dict(info, probe=probe_name)
                # After a MemoryError the heap may be fragmented or a pool half-built:
                # the parent starts a fresh worker, so later peaks stay meaningful.
                if isinstance(e, (MemoryError, SystemExit, KeyboardInterrupt)):
                    reply["restart"] = True
                continue
            reply["probes"].append((probe_name, "ok", kind))
        reply["seconds"] = time.perf_counter() - start
        reply["maxrss_kb"] = max_rss_kb()
        reply["data"] = data if reply["crash"] else None
        return reply


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(argv)

    # The protocol keeps the original stdin/stdout; whatever the readers print goes to
    # stderr, and nothing can read the parent's stdin.
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    faulthandler.enable()               # a segfault leaves its Python stack in the log
    logging.disable(logging.CRITICAL)   # damaged state files are ignored with warnings
    warnings.simplefilter("ignore")

    # Everything the readers load, loaded before the limit: the limit is headroom above it.
    import google.protobuf  # noqa: F401
    import numpy  # noqa: F401

    import scopeflow  # noqa: F401
    try:
        import PIL.Image  # noqa: F401
    except ImportError:  # pragma: no cover - the image extra is missing
        pass
    server = Server(Path(args.workdir))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # a crashed worker leaves no core file
    baseline = address_space()
    limit = baseline + (args.memory_mb << 20)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:   # never above a limit the machine already sets
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    write_frame(proto_out, {"pid": os.getpid(), "baseline_vm": baseline, "limit": limit,
                            "maxrss_kb": max_rss_kb()})
    while True:
        request = read_frame(proto_in)
        if request is None or request[0] == "exit":
            return
        kind, *rest = request
        try:
            reply = server.setup(*rest) if kind == "setup" else server.run(*rest)
        except BaseException as e:  # noqa: BLE001 - a broken setup is the parent's to report
            import traceback

            reply = {"error": "".join(traceback.format_exception(e))[-6000:]}
        write_frame(proto_out, reply)


if __name__ == "__main__":
    main()
