"""``scopeflow runs``: look at TensorBoard runs without TensorBoard.

    scopeflow runs ls LOGDIR                  runs, event files, steps and tags per kind
    scopeflow runs scalars LOGDIR TAG [--csv] every point of a scalar tag (no sampling)
    scopeflow runs plot LOGDIR TAG --out x.png   the curves as a PNG (needs matplotlib)

Points a restarted run purged (``SessionLog.START``) are dropped as TensorBoard drops them.
"""

from __future__ import annotations

import sys

from scopeflow.summary.reader import event_files, read_events, read_scalars


def add_parser(subparsers):
    """Adds the ``runs`` subcommand to the ``scopeflow`` command line."""
    runs = subparsers.add_parser("runs", help="list runs and read scalars of event files",
                                 description=__doc__.split("\n\n")[0])
    sub = runs.add_subparsers(dest="runs_command", metavar="ACTION")
    sub.required = True
    ls = sub.add_parser("ls", help="runs, event files, steps and tags under LOGDIR")
    ls.add_argument("logdir")
    ls.set_defaults(func=_ls)
    scalars = sub.add_parser("scalars", help="every point of one scalar tag")
    scalars.add_argument("logdir")
    scalars.add_argument("tag")
    scalars.add_argument("--run", help="only this run (default: all)")
    scalars.add_argument("--csv", action="store_true", help="CSV: run,step,wall_time,value")
    scalars.set_defaults(func=_scalars)
    plot = sub.add_parser("plot", help="plot one scalar tag of every run to a PNG file")
    plot.add_argument("logdir")
    plot.add_argument("tag")
    plot.add_argument("--out", required=True, help="the PNG file to write")
    plot.add_argument("--run", help="only this run (default: all)")
    plot.set_defaults(func=_plot)
    return runs


def _err(message) -> int:
    print(f"scopeflow runs: {message}", file=sys.stderr)
    return 2


def _ls(args) -> int:
    try:
        runs = event_files(args.logdir)
    except FileNotFoundError as e:
        return _err(e)
    if not runs:
        return _err(f"no event files (names containing 'tfevents') under {args.logdir}")
    by_run: dict = {}
    for r in read_events(args.logdir):
        by_run.setdefault(r.run, []).append(r)
    for run, files in runs.items():
        records = by_run.get(run, [])
        steps = [r.step for r in records if r.kind not in ("file_version", "graph",
                                                           "meta_graph")]
        print(f"{run}: {len(files)} event file(s), {len(records)} records"
              + (f", steps {min(steps)}..{max(steps)}" if steps else ""))
        tags: dict = {}
        for r in records:
            if r.tag:
                tags.setdefault(r.kind, {}).setdefault(r.tag, 0)
                tags[r.kind][r.tag] += 1
        for kind in sorted(tags):
            listed = ", ".join(f"{t} ({n})" for t, n in sorted(tags[kind].items()))
            print(f"  {kind}: {listed}")
        extras = sorted({r.kind for r in records if r.kind in ("graph", "meta_graph",
                                                               "session_log")})
        if extras:
            print(f"  also: {', '.join(extras)}")
    return 0


def _selected_scalars(args):
    try:
        runs = read_scalars(args.logdir, args.tag)
    except FileNotFoundError as e:
        return None, _err(e)
    if args.run is not None:
        runs = {k: v for k, v in runs.items() if k == args.run}
    if not runs:
        return None, _err(f"no scalar points with tag {args.tag!r} under {args.logdir}"
                          + (f" in run {args.run!r}" if args.run else ""))
    return runs, 0


def _scalars(args) -> int:
    runs, code = _selected_scalars(args)
    if runs is None:
        return code
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
