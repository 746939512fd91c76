"""Fuzzing scopeflow's readers of untrusted bytes (docs/RELIABILITY.md, "Fuzzing").

Layout:

* ``harness.py`` -- the parent side: the worker client (a subprocess with an address-space
  limit, a time limit per input, restarted after a death), the byte mutators, the
  campaign loop and its per-reader statistics.
* ``worker.py`` -- the subprocess: prepares each target's seed files with scopeflow,
  runs inputs through the reader's APIs and classifies every outcome.
* ``targets/`` -- one module per family of readers; each target names its seeds, its
  hand-made hostile inputs, its checksum fix-up, the APIs it calls (probes) and the error
  classes it accepts, each with the reason.
* ``test_fuzz.py`` -- the short, deterministic run inside ``python -m pytest``.
* ``__main__.py`` -- the long run on demand: ``python -m tests.fuzz --long``.
* ``atheris_run.py`` -- optional coverage-guided fuzzing of one target with atheris.
"""
