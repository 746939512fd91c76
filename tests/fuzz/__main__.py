"""The fuzz harness on demand: ``python -m tests.fuzz [--long] [--reader NAME ...]``.

Runs each reader in a fresh worker and prints, per reader, the inputs tried, the outcomes
of its API calls by class, the worker's peak memory (``ru_maxrss``) and the slowest input,
then every distinct crash with its smallest input and traceback. Exits 1 if any reader
crashed. Without ``--long`` it runs what the pytest run runs (seeds, hostile inputs, a
sample of truncations, a few mutations); ``--long`` adds the slow hostile inputs (zip
bombs of a GiB and more), truncations at every boundary and every offset of small seeds,
and ``--iterations`` random mutations (or as many as ``--seconds`` allow).

Examples::

    python -m tests.fuzz --list
    python -m tests.fuzz --long --reader png --iterations 5000
    python -m tests.fuzz --long --seconds 20 --save /tmp/crashes --json /tmp/fuzz.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .harness import DEFAULT_MEMORY_MB, Campaign, Worker, format_crashes, format_table


def _list(readers):
    with Worker() as worker:
        for name in readers:
            info = worker.setup(name)
            print(f"{name}  (code: {info['owner']}; {len(info['seeds'])} seeds, "
                  f"{len(info['hostile'])} hostile inputs, {info['timeout_s']:g} s per input)")
            for cls, reason in info["accepts"]:
                print(f"    accepts {cls}: {reason}")


def _save(stats, directory: Path):
    directory.mkdir(parents=True, exist_ok=True)
    for s in stats:
        for n, ((cls, where), crash) in enumerate(s.crashes.items()):
            r = crash["result"]
            stem = directory / f"{s.target}-{n}"
            stem.with_suffix(".bin").write_bytes(r.data or b"")
            stem.with_suffix(".txt").write_text(
                f"reader: {s.target} (code: {s.owner})\ninput: {r.label}\n"
                f"class: {cls}\nwhere: {where}\ninputs with this crash: {crash['count']}\n\n"
                f"{r.crash.get('traceback', '')}\n")


def main(argv=None) -> int:
    from .targets import READERS

    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reader", action="append", choices=sorted(READERS),
                        help="a reader to fuzz (repeatable; default: all)")
    parser.add_argument("--long", action="store_true",
                        help="the long run: slow hostile inputs, every truncation")
    parser.add_argument("--iterations", type=int, default=None,
                        help="random mutations per reader (default: 12, --long: 2000)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="stop a reader's random mutations after this many seconds")
    parser.add_argument("--seed", type=int, default=0, help="the mutations' random seed")
    parser.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB,
                        help="address space a worker may map above its baseline (MiB)")
    parser.add_argument("--save", type=Path, help="write each crash's input and report here")
    parser.add_argument("--json", type=Path, help="write the statistics as JSON here")
    parser.add_argument("--list", action="store_true",
                        help="list the readers, their code and accepted error classes")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every input")
    args = parser.parse_args(argv)
    readers = args.reader or list(READERS)
    if args.list:
        _list(readers)
        return 0
    iterations = args.iterations if args.iterations is not None else (2000 if args.long else 12)

    def progress(result):
        if args.verbose or result.crashed:
            print(f"  {result.seconds:7.3f} s  {', '.join(result.outcomes())}  "
                  f"[{result.label[:100]}]", flush=True)

    all_stats = []
    for name in readers:
        start = time.monotonic()
        with Worker(memory_mb=args.memory_mb) as worker:
            campaign = Campaign(worker, name, long=args.long, seed=args.seed)
            stats = campaign.run(iterations, max_cuts=None if args.long else 24,
                                 seconds=args.seconds, progress=progress)
            limit_mb = (worker.hello["limit"] - worker.hello["baseline_vm"]) >> 20
        all_stats.append(stats)
        print(f"{name}: {stats.tried} inputs in {time.monotonic() - start:.1f} s, "
              f"{stats.crash_count} crashing (address space: baseline + {limit_mb} MiB)",
              flush=True)
    print()
    print(format_table(all_stats))
    crashes = format_crashes(all_stats)
    if crashes:
        print("\n# Crashes\n")
        print(crashes)
    if args.save:
        _save(all_stats, args.save)
    if args.json:
        args.json.write_text(json.dumps([{
            "reader": s.target, "owner": s.owner, "inputs": s.tried,
            "outcomes": dict(s.outcomes), "peak_rss_kb": s.peak_kb, "worst_s": s.worst_s,
            "worst_input": s.worst_label, "fixup_errors": s.fixup_errors,
            "crashes": [{"class": cls, "where": where, "count": c["count"],
                         "input": c["result"].label, "message": c["result"].crash["message"]}
                        for (cls, where), c in s.crashes.items()]} for s in all_stats],
            indent=1))
    return 1 if any(s.crashes for s in all_stats) else 0


if __name__ == "__main__":
    sys.exit(main())
