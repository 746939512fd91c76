"""``scopeflow runs``: look at TensorBoard runs without TensorBoard.

    scopeflow runs ls LOGDIR                  runs, event files, steps and tags per kind
    scopeflow runs scalars LOGDIR TAG [--csv] every point of a scalar tag (no sampling)
    scopeflow runs plot LOGDIR TAG --out x.png   the curves as a PNG (needs matplotlib)

Points a restarted run purged (``SessionLog.START``) are dropped as TensorBoard drops them.
"""

from __future__ import annotations

import functools

from scopeflow.framework import errors
from scopeflow.platform.cli_conventions import (
    did_you_mean,
    epilog,
    fail,
    guarded,
    print_json,
)
from scopeflow.summary.reader import event_files, read_events, read_scalars


def add_parser(subparsers):
    """Adds the ``runs`` subcommand to the ``scopeflow`` command line."""
    logdir_help = "a log directory (every directory under it with event files is a run) " \
        "or one event file"
    runs = subparsers.add_parser("runs", help="list runs and read scalars of event files",
                                 description=__doc__.split("\n\n")[0], epilog=epilog())
    sub = runs.add_subparsers(dest="runs_command", metavar="ACTION",
                              help="what to read from the event files")
    sub.required = True
    ls = sub.add_parser("ls", help="runs, event files, steps and tags under LOGDIR",
                        description="Every run under LOGDIR: its event files, record count, "
                        "step range and tags by kind.", epilog=epilog())
    ls.add_argument("logdir", metavar="LOGDIR", help=logdir_help)
    ls.add_argument("--json", action="store_true", help="print one JSON document instead")
    ls.set_defaults(func=_guarded(_ls))
    scalars = sub.add_parser("scalars", help="every point of one scalar tag",
                             description="Every point of one scalar tag (no sampling), run "
                             "by run.", epilog=epilog())
    scalars.add_argument("logdir", metavar="LOGDIR", help=logdir_help)
    scalars.add_argument("tag", metavar="TAG", help="the scalar's tag (see `runs ls`)")
    scalars.add_argument("--run", help="only this run (default: all)")
    output = scalars.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="CSV: run,step,wall_time,value")
    output.add_argument("--json", action="store_true",
                        help="one JSON document: {tag, runs: {run: [{step, wall_time, "
                        "value}]}}")
    scalars.set_defaults(func=_guarded(_scalars))
    plot = sub.add_parser("plot", help="plot one scalar tag of every run to a PNG file",
                          description="The curves of one scalar tag as a PNG file (needs "
                          "matplotlib).", epilog=epilog())
    plot.add_argument("logdir", metavar="LOGDIR", help=logdir_help)
    plot.add_argument("tag", metavar="TAG", help="the scalar's tag (see `runs ls`)")
    plot.add_argument("--out", required=True, help="the PNG file to write")
    plot.add_argument("--run", help="only this run (default: all)")
    plot.set_defaults(func=_guarded(_plot))
    return runs


def _err(message) -> int:
    return fail("runs", message)


# Unreadable input: a missing path, a corrupt event file.
_guarded = functools.partial(guarded, "runs", (errors.OpError, OSError))


def _ls(args) -> int:
    runs = event_files(args.logdir)
    if not runs:
        return _err(f"no event files (names containing 'tfevents') under {args.logdir}")
    by_run: dict = {}
    for r in read_events(args.logdir):
        by_run.setdefault(r.run, []).append(r)
    listing = []
    for run, files in runs.items():
        records = by_run.get(run, [])
        steps = [r.step for r in records if r.kind not in ("file_version", "graph",
                                                           "meta_graph")]
        tags: dict = {}
        for r in records:
            if r.tag:
                tags.setdefault(r.kind, {}).setdefault(r.tag, 0)
                tags[r.kind][r.tag] += 1
        listing.append({
            "run": run, "event_files": list(files), "records": len(records),
            "steps": {"min": min(steps), "max": max(steps)} if steps else None,
            "tags": {kind: dict(sorted(tags[kind].items())) for kind in sorted(tags)},
            "also": sorted({r.kind for r in records
                            if r.kind in ("graph", "meta_graph", "session_log")})})
    if args.json:
        print_json({"logdir": args.logdir, "runs": listing})
        return 0
    for r in listing:
        steps = r["steps"]
        print(f"{r['run']}: {len(r['event_files'])} event file(s), {r['records']} records"
              + (f", steps {steps['min']}..{steps['max']}" if steps else ""))
        for kind, counts in r["tags"].items():
            print(f"  {kind}: " + ", ".join(f"{t} ({n})" for t, n in counts.items()))
        if r["also"]:
            print(f"  also: {', '.join(r['also'])}")
    return 0


def _not_found(args, runs) -> str:
    """Why no points of ``args.tag`` were found, with the closest tag or run names."""
    if args.run is not None and runs:
        return f"no run {args.run!r} with scalar tag {args.tag!r} under {args.logdir}" \
            + did_you_mean(args.run, runs)
    records = [r for r in read_events(args.logdir)
               if r.tag and (args.run is None or r.run == args.run)]
    other = sorted({r.kind for r in records if r.tag == args.tag and r.kind != "scalar"})
    where = f" under {args.logdir}" + (f" in run {args.run!r}" if args.run else "")
    if other:
        return f"tag {args.tag!r}{where} holds {' and '.join(other)} data, not scalars"
    return f"no scalar points with tag {args.tag!r}{where}" + did_you_mean(
        args.tag, {r.tag for r in records if r.kind == "scalar"})


def _selected_scalars(args):
    """``({run: points}, 0)``, or ``(None, exit status)`` after reporting why not."""
    all_runs = read_scalars(args.logdir, args.tag)
    runs = all_runs
    if args.run is not None:
        runs = {k: v for k, v in all_runs.items() if k == args.run}
    if not runs:
        return None, _err(_not_found(args, all_runs))
    return runs, 0


def _scalars(args) -> int:
    runs, code = _selected_scalars(args)
    if runs is None:
        return code
    if args.json:
        print_json({"logdir": args.logdir, "tag": args.tag, "runs": {
            run: [{"step": step, "wall_time": wall_time, "value": value}
                  for step, wall_time, value in points] for run, points in runs.items()}})
        return 0
    if args.csv:
        print("run,step,wall_time,value")
    for run, points in runs.items():
        if not args.csv:
            print(f"# run {run}: {len(points)} points")
        for step, wall_time, value in points:
            if args.csv:
                print(f"{run},{step},{wall_time!r},{value!r}")
            else:
                print(f"{step}\t{wall_time:.3f}\t{value!r}")
    return 0


def _plot(args) -> int:
    try:
        import matplotlib
    except ImportError:
        return _err("plotting needs matplotlib, which is not installed: "
                    "pip install matplotlib (or use `scopeflow runs scalars ... --csv`)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs, code = _selected_scalars(args)
    if runs is None:
        return code
    fig, ax = plt.subplots(figsize=(7, 4))
    for run, points in runs.items():
        ax.plot([p[0] for p in points], [p[2] for p in points], label=run, linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_title(args.tag)
    ax.grid(alpha=0.3)
    if len(runs) > 1:
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    plt.close(fig)
    print(f"wrote {args.out}")
    return 0
