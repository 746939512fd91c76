"""``scopeflow examples [DIR]``: copy the tour's example programs into a folder to run.

    scopeflow examples               # into ./scopeflow-examples
    scopeflow examples my_examples   # into ./my_examples
    python scopeflow-examples/variable_sharing.py

The programs are the repository's ``examples/`` folder (the seeds' listings and the
README's tour). The wheel carries them as ``scopeflow/examples/tour/`` (setup.py maps the
folder there), so a ``pip install`` has them too; from a source checkout (an editable
install) they are read from the checkout itself. They are copied rather than run in place
because they are programs to read and change, and each writes its output (checkpoints,
logs) beside where it is run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from scopeflow.platform.cli_conventions import EXIT_FAILURE, EXIT_OK, epilog

__all__ = ["tour_dir", "copy_tour", "add_parser"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def tour_dir() -> Path | None:
    """Where the tour's programs are: in the installed wheel, else in the source checkout."""
    for candidate in (_PACKAGE_DIR / "tour", _PACKAGE_DIR.parent.parent / "examples"):
        if (candidate / "variable_sharing.py").is_file():
            return candidate
    return None


def copy_tour(dest, overwrite: bool = False) -> list[Path]:
    """Copies every ``.py`` program of the tour into ``dest`` (created if needed); returns
    the paths written. Raises ``FileExistsError`` naming the files that are already there,
    before writing any, unless ``overwrite``."""
    source = tour_dir()
    if source is None:
        raise FileNotFoundError("this installation of scopeflow has no example programs "
                                "(neither scopeflow/examples/tour nor a checkout's examples/)")
    programs = sorted(p for p in source.glob("*.py") if p.name != "__init__.py")
    dest = Path(dest)
    targets = [dest / p.name for p in programs]
    clashes = [str(t) for t in targets if t.exists()]
    if clashes and not overwrite:
        raise FileExistsError(f"{len(clashes)} file(s) already there, e.g. {clashes[0]} "
                              "(--overwrite replaces them)")
    dest.mkdir(parents=True, exist_ok=True)
    for program, target in zip(programs, targets):
        shutil.copyfile(program, target)
    return targets


def _run(args) -> int:
    try:
        written = copy_tour(args.dir, overwrite=args.overwrite)
    except (FileExistsError, FileNotFoundError, OSError) as e:
        print(f"scopeflow examples: error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"copied {len(written)} programs into {args.dir}/:")
    for path in written:
        print(f"  {path.name}")
    print(f"run one with: python {Path(args.dir) / 'variable_sharing.py'}")
    return EXIT_OK


def add_parser(subparsers):
    """Register ``scopeflow examples``."""
    parser = subparsers.add_parser(
        "examples", help="copy the tour's example programs into a folder",
        description=__doc__.split("\n\n")[0], epilog=epilog("a file already there"))
    parser.add_argument("dir", nargs="?", default="scopeflow-examples",
                        help="the folder to copy them into (default: scopeflow-examples)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace programs already in the folder")
    parser.set_defaults(func=_run)
    return parser
