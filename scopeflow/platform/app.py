"""``tf.app``: ``run`` (parse the command line's flags, call ``main``, exit with its
result) and ``flags`` (:mod:`scopeflow.platform.flags`), as TF1's ``tf.app``."""

from __future__ import annotations

import sys

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.platform import flags

__all__ = ["run", "flags"]


def run(main=None, argv=None):
    """Parses the flags of ``argv`` (``sys.argv`` by default), then exits with
    ``main(remaining argv)``; ``main`` defaults to the ``__main__`` module's ``main``.

    As TF1's, flags nobody defined are left in the arguments ``main`` gets rather than
    rejected; ``--help`` prints every flag, ``--helpshort`` the main program's, and exits."""
    args = sys.argv if argv is None else list(argv)
    if any(a in ("--help", "-h", "--helpfull", "-?") for a in args[1:]):
        sys.stdout.write(flags.FLAGS.get_help() + "\n")
        sys.exit(0)
    if "--helpshort" in args[1:]:
        sys.stdout.write(flags.FLAGS.main_module_help() + "\n")
        sys.exit(0)
    try:
        remaining = flags.FLAGS(args, known_only=True)
    except flags.Error as e:
        sys.stderr.write(f"FATAL Flags parsing error: {e}\nPass --helpshort or --helpfull to "
                         "see help on flags.\n")
        sys.exit(1)
    main = main or sys.modules["__main__"].main
    sys.exit(main(remaining))


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
