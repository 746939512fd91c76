"""Coverage-guided fuzzing of one reader with atheris (libFuzzer for Python), optional.

``pip install atheris`` (wheels for Linux x86-64), then::

    python -m tests.fuzz.atheris_run --reader png -- -max_total_time=300 -rss_limit_mb=2048

The target's seeds start the corpus (``--corpus``, default a temporary directory); every
input goes through the target's probes in this process, judged by the target's rules as in
the worker: an exception no ``Accept`` rule matches is re-raised, and libFuzzer reports it
with the input saved as ``crash-<sha1>``. libFuzzer's own ``-rss_limit_mb`` and ``-timeout``
are the memory and time limits here (arguments after ``--`` go to libFuzzer). Inputs run
in the context of seed ``--context`` (for the checkpoint targets: which checkpoint's other
files they are read with).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def main(argv=None):
    try:
        import atheris
    except ImportError:
        sys.exit("atheris is not installed: pip install atheris")
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.atheris_run")
    parser.add_argument("--reader", required=True)
    parser.add_argument("--context", type=int, default=0)
    parser.add_argument("--corpus", type=Path)
    args, libfuzzer = parser.parse_known_args(argv)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")

    import logging
    import warnings

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    with atheris.instrument_imports(include=["scopeflow"]):
        import scopeflow  # noqa: F401

        from .targets import READERS
    target = READERS[args.reader](Path(tempfile.mkdtemp(prefix="scopeflow-atheris-")))
    target.prepare()
    corpus = args.corpus or Path(tempfile.mkdtemp(prefix=f"corpus-{args.reader}-"))
    corpus.mkdir(parents=True, exist_ok=True)
    for n, seed in enumerate(target.seeds):
        (corpus / f"seed-{n}").write_bytes(seed.data)
    probes = target.probes()

    def test_one_input(data: bytes):
        path = target.install(args.context, data, False)
        for _, probe in probes:
            try:
                probe(args.context, path)
            except BaseException as e:  # noqa: BLE001 - judged as in the worker
                if target.judge(e) is None:
                    raise

    atheris.Setup([sys.argv[0], *[a for a in libfuzzer if a != "--"], str(corpus)],
                  test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
