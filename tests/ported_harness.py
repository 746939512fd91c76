"""What every ported-TF-test file shares (tests/unit/**/test_*_ported.py): running all of a
file's tests by name, and the test that runs the very same file under real TensorFlow
(TF 2.21 in TF1 mode, ``scopeflow`` standing for ``tensorflow.compat.v1``), so each ported
test is one TF passes. Imported both under pytest and inside the oracle's process, so it
imports neither pytest nor scopeflow."""

from __future__ import annotations

import contextlib
import json
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
_NOT_PORTED = ("test_skipped_tf_test", "test_real_tensorflow_passes_these_tests")


def oracle_run(namespace, path):
    """``(run_all, test_real_tensorflow_passes_these_tests)`` for the ported-test module
    whose globals are ``namespace`` and whose file is ``path``."""

    def our_tests():
        return sorted(n for n, f in namespace.items()
                      if n.startswith("test_") and callable(f) and n not in _NOT_PORTED)

    def run_all():
        """Runs every test of the file: ``{name: "ok" or the error}`` (the oracle's run,
        where pytest is absent)."""
        results = {}
        for name in our_tests():
            try:
                namespace[name]()
                results[name] = "ok"
            except Exception as e:  # noqa: BLE001 - every failure is reported by name
                results[name] = f"{type(e).__name__}: {e}"[:2000]
        return results

    def test_real_tensorflow_passes_these_tests(tf1):
        """This file's tests, run under TF 2.21 (TF1 mode) with ``scopeflow`` standing for
        ``tensorflow.compat.v1``: all pass there, so each compares scopeflow with TF."""
        results = tf1(f"""
            import sys, importlib.util
            sys.modules["scopeflow"] = tf
            sys.path.insert(0, {_HERE!r})
            spec = importlib.util.spec_from_file_location("ported", {path!r})
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            print(json.dumps(module.run_all()))
        """)
        assert sorted(results) == our_tests()
        failed = {k: v for k, v in results.items() if v != "ok"}
        assert not failed, json.dumps(failed, indent=1)

    return run_all, test_real_tensorflow_passes_these_tests


@contextlib.contextmanager
def raises(exc, pattern=None):
    """Expects ``exc`` whose message matches the regular expression ``pattern`` (pytest's
    ``raises``, which the oracle's virtualenv lacks)."""
    try:
        yield
    except exc as e:
        if pattern is not None and not re.search(pattern, str(e)):
            raise AssertionError(f"{e!r} does not match {pattern!r}") from e
    else:
        raise AssertionError(f"{exc} not raised")
