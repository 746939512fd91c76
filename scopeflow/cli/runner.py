"""``scopeflow run PROGRAM [ARGS...]``: runs an unmodified TF1 program on scopeflow.

    scopeflow run train.py --epochs 3        # as `python train.py --epochs 3`
    mpiexec -n 4 scopeflow run train_hvd.py  # a Horovod TF1 script, on 4 MPI workers
    scopeflow run --check train.py           # which TF APIs it uses that scopeflow lacks

The program runs as ``__main__`` with ``sys.argv = [PROGRAM, ARGS...]`` and its folder first
on ``sys.path``, as ``python PROGRAM`` runs it, and its exit status is the command's. Its
``import tensorflow`` / ``import tensorflow.compat.v1 as tf`` give scopeflow, and every
``tensorflow.X`` module is ``scopeflow.X``; ``import horovod.tensorflow as hvd`` gives Horovod's
TF1 API on ``scopeflow.distributed`` (scopeflow.distributed.horovod). Both are aliased even
when a real TensorFlow or Horovod is installed: running on scopeflow is what ``scopeflow run``
is asked for.

``--check`` does not run the program: it reads it (Python's ``ast``) and resolves every
``tf.a.b.c`` on a name bound to a TensorFlow or Horovod import, and every such import,
against scopeflow. One line per finding, ``prog.py:LINE: tf.nn.raw_rnn (not yet in
scopeflow)``; a name that TensorFlow 1 lacks as well (a typo, a TF2-only name) says so.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import importlib
import io
import os
import runpy
import sys
import types
import zipfile
from dataclasses import dataclass

from scopeflow.compat import tensorflow_alias
from scopeflow.framework import api_fallback
from scopeflow.platform.cli_conventions import EXIT_FAILURE, EXIT_OK, epilog, fail

__all__ = ["Finding", "check_program", "check_source", "run_program", "add_parser"]


# ── running ──────────────────────────────────────────────────────────────────────────────
def _from_program(tb, program: str):
    """``tb`` from the program's first frame on (runpy's and scopeflow's frames above it
    left out), as ``python PROGRAM`` would show it; ``None`` when no frame is the
    program's (a syntax error)."""
    def programs(tb):
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        return filename == program or filename.startswith(program + os.sep)  # a folder's

    while tb is not None and not programs(tb):
        tb = tb.tb_next
    return tb


def _run_file(path: str) -> None:
    """Runs the file ``path`` as the ``__main__`` module, as ``python path`` does (runpy's
    ``run_path`` would also set ``sys.argv[0]`` to the absolute path, and put the former
    ``__main__`` back afterwards)."""
    with io.open_code(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    exec(code, vars(main))


def run_program(program: str, args=()) -> int:
    """Runs ``program`` as ``python program *args`` would, with the TensorFlow (and Horovod)
    imports aliased to scopeflow; returns its exit status. ``sys.exit()`` in the program
    goes up as ``SystemExit``, as it would."""
    path = os.path.abspath(program)
    if not os.path.exists(path):
        return fail("run", f"can't open file {program!r}: no such file")
    tensorflow_alias.install(horovod=True)
    sys.argv = [program, *args]
    # sys.path[0] is where `scopeflow` (its script's folder) or `python -m` (the current
    # folder) was started from; `python PROGRAM` puts the program's folder there instead.
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.insert(0, folder)
    try:
        if os.path.isdir(path) or zipfile.is_zipfile(path):
            runpy.run_path(path, run_name="__main__")
        else:
            _run_file(path)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - printed as Python would print it
        tb = _from_program(e.__traceback__, path)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return EXIT_FAILURE
    return EXIT_OK


# ── --check ──────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Finding:
    line: int
    name: str      # as TF spells it: tf.nn.raw_rnn, tensorflow.python.ops.x, horovod...
    kind: str      # "not yet", "not planned", "not in TF", "missing module", "missing"
    detail: str    # what follows the name, in parentheses

    def format(self, program: str) -> str:
        return f"{program}:{self.line}: {self.name} ({self.detail})"


_ROOTS = ("tensorflow", "horovod")


def _tf_spelling(module_path: str) -> str:
    """``tensorflow.compat.v1.nn`` -> ``tf.nn``; TF's internal paths stay whole."""
    for prefix in ("tensorflow.compat.v1", "tensorflow"):
        if module_path == prefix or module_path.startswith(prefix + "."):
            rest = module_path[len(prefix):]
            if rest.startswith((".python", ".core")) or rest.startswith(".compat.v2"):
                return module_path
            return "tf" + rest
    return module_path


class _Resolver:
    """Resolves TF module paths and attribute chains against scopeflow, with a cache."""

    def __init__(self):
        self._modules: dict[str, object] = {}

    def module(self, fullname: str):
        """The scopeflow module ``fullname`` (a ``tensorflow...``/``horovod...`` name)
        stands for, or the ``Finding`` fields (kind, detail) of why there is none."""
        if fullname in self._modules:
            return self._modules[fullname]
        target = tensorflow_alias.target_name(fullname)
        if target is None:  # "horovod" itself, or horovod.torch
            result = (types.ModuleType(fullname) if fullname == "horovod" else
                      ("missing module", "only horovod.tensorflow maps onto scopeflow"))
        else:
            try:
                result = importlib.import_module(target)
            except ModuleNotFoundError as e:
                names = (target, fullname)   # scopeflow's message, or the TF path's
                if e.name is None or not any(n == e.name or n.startswith(e.name + ".")
                                             for n in names):
                    result = ("missing", f"importing {target} failed: {e}")
                else:
                    result = ("missing module", self._module_detail(fullname, target))
            except Exception as e:  # noqa: BLE001 - reported, the scan goes on
                result = ("missing", f"importing {target} failed: {type(e).__name__}: {e}")
        self._modules[fullname] = result
        return result

    @staticmethod
    def _module_detail(fullname: str, target: str) -> str:
        reason = tensorflow_alias.module_not_planned_reason(fullname)
        if reason is not None:
            return f"no such module in scopeflow, not planned: {reason}"
        return f"no module {target} in scopeflow"

    def chain(self, base_path: str, attrs: list[str]):
        """Resolves ``attrs`` on the module ``base_path``: ``None`` when all resolve, else
        ``(index of the failing attribute, kind, detail)``."""
        obj = self.module(base_path)
        if isinstance(obj, tuple):
            return -1, *obj
        for i, attr in enumerate(attrs):
            try:
                obj = getattr(obj, attr)
                continue
            except AttributeError as e:
                error = e
            except Exception:  # noqa: BLE001 - a property that fails when read: stop here
                return None
            if isinstance(obj, types.ModuleType):
                sub = getattr(obj, "__name__", "") + "." + attr
                try:
                    obj = importlib.import_module(sub)
                    continue
                except ImportError:
                    pass
            return (i, *self._attribute_detail(obj, attr, error))
        return None

    @staticmethod
    def _attribute_detail(obj, attr: str, error: AttributeError):
        if isinstance(error, api_fallback.APINotImplementedError):
            message = str(error)
            if "does not plan to implement it: " in message:
                reason = message.split("does not plan to implement it: ", 1)[1]
                reason = reason.removesuffix(" (see docs/API.md)")
                return "not planned", f"not planned in scopeflow: {reason}"
            if "Horovod mapping" in message:
                return "not yet", "not in scopeflow's Horovod mapping"
            return "not yet", "not yet in scopeflow"
        namespace = api_fallback.NAMESPACES.get(getattr(obj, "__name__", None)) \
            if isinstance(obj, types.ModuleType) else None
        if namespace is not None or isinstance(error, api_fallback.MissingAttributeError):
            message = str(error)
            hint = message.split(". Did you mean: ", 1)[1].rstrip("?") \
                if ". Did you mean: " in message else ""
            return "not in TF", "not in TensorFlow 1's API either" + (
                f"; did you mean {hint}?" if hint else "")
        what = getattr(obj, "__name__", None) or type(obj).__name__
        return "missing", f"scopeflow's {what} has no attribute {attr!r}"


def _dotted(node) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; ``None`` for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def check_source(source: str, filename: str = "<program>") -> list[Finding]:
    """The TF (and Horovod) APIs ``source`` uses that scopeflow lacks, by line."""
    tree = ast.parse(source, filename)
    resolver = _Resolver()
    bound: dict[str, str] = {}   # local name -> the TF module path (or path.attr) it holds
    findings: set[Finding] = set()
    # Imports first, in source order (a name bound anywhere counts everywhere: programs
    # import at the top).
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            _bind_import(node, resolver, bound, findings)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            _bind_import_from(node, resolver, bound, findings)
    _check_attributes(tree, resolver, bound, findings)
    return sorted(findings, key=lambda f: (f.line, f.name))


def _bind_import(node, resolver, bound, findings):
    """``import tensorflow[.x] [as y]``: binds the name, or a finding for a missing module."""
    for alias in node.names:
        root = alias.name.split(".")[0]
        if root not in _ROOTS:
            continue
        module = resolver.module(alias.name)
        if isinstance(module, tuple):
            findings.add(Finding(node.lineno, alias.name, *module))
            continue
        if alias.asname:
            bound[alias.asname] = alias.name
        else:
            bound[root] = root


def _bind_import_from(node, resolver, bound, findings):
    """``from tensorflow.x import y [as z]``: binds each name, or a finding for each that
    scopeflow lacks."""
    if node.module.split(".")[0] not in _ROOTS:
        return
    module = resolver.module(node.module)
    if isinstance(module, tuple):
        findings.add(Finding(node.lineno, node.module, *module))
        return
    for alias in node.names:
        if alias.name == "*":
            continue
        sub = f"{node.module}.{alias.name}"
        if isinstance(resolver.module(sub), types.ModuleType):
            bound[alias.asname or alias.name] = sub
            continue
        failure = resolver.chain(node.module, [alias.name])
        if failure is not None:
            _, kind, detail = failure
            findings.add(Finding(node.lineno, f"{_tf_spelling(node.module)}.{alias.name}",
                                 kind, detail))
        else:
            bound[alias.asname or alias.name] = sub


def _check_attributes(tree, resolver, bound, findings):
    """A finding for each outermost ``tf.a.b`` chain (on a bound name) scopeflow lacks."""
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts = _dotted(node)
        if parts is None or parts[0] not in bound:
            continue
        if not isinstance(node.ctx, ast.Load):   # tf.x = ...: only tf's part is read
            parts = parts[:-1]
            if len(parts) < 2:
                continue
        base = bound[parts[0]]
        module = resolver.module(base) if "." not in base or isinstance(
            resolver.module(base), types.ModuleType) else None
        if module is None:  # a name imported from a module: resolve from that module
            base, first = base.rsplit(".", 1)
            attrs = [first, *parts[1:]]
        else:
            attrs = parts[1:]
        _check_path(resolver, findings, node.lineno, base, attrs, _tf_spelling(base))


def _check_path(resolver, findings, line, module_path, attrs, shown):
    """A finding where ``module_path`` followed by ``attrs`` stops resolving."""
    failure = resolver.chain(module_path, attrs)
    if failure is None:
        return
    i, kind, detail = failure
    if i < 0:
        findings.add(Finding(line, module_path, kind, detail))
    else:
        findings.add(Finding(line, ".".join([shown, *attrs[:i + 1]]), kind, detail))


def check_program(program: str) -> list[Finding]:
    """:func:`check_source` of the file ``program``."""
    with open(program, encoding="utf-8") as f:
        source = f.read()
    return check_source(source, program)


def _check(args) -> int:
    try:
        findings = check_program(args.program)
    except (OSError, SyntaxError, UnicodeDecodeError) as e:
        return fail("run", f"cannot read {args.program}: {e}")
    for finding in findings:
        print(finding.format(args.program))
    if findings:
        kinds = sorted({f.kind for f in findings})
        print(f"{args.program}: {len(findings)} use(s) of TF APIs scopeflow lacks "
              f"({', '.join(kinds)})", file=sys.stderr)
        return EXIT_FAILURE
    print(f"{args.program}: every TF API it uses is in scopeflow", file=sys.stderr)
    return EXIT_OK


def _run(args) -> int:
    if args.check:
        if args.args:
            return fail("run", "--check reads the program without running it: it takes no "
                        "program arguments")
        return _check(args)
    return run_program(args.program, args.args)


def add_parser(subparsers):
    """Adds the ``run`` subcommand to the ``scopeflow`` command line."""
    p = subparsers.add_parser(
        "run", help="run an unmodified TF1 program (import tensorflow gives scopeflow)",
        description=__doc__.split("\n\n", 1)[1].strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status: the program's own (as `python PROGRAM`: 1 on an uncaught "
               "exception); with --check, 0 when every TF API it uses is in scopeflow, 1 "
               "otherwise or when the program cannot be read; 2 usage error. (" + epilog()
               + ")")
    p.add_argument("--check", action="store_true",
                   help="do not run the program: list the TF APIs it uses that scopeflow "
                        "lacks, one `PROGRAM:LINE: NAME (why)` line each")
    p.add_argument("program", metavar="PROGRAM", help="the TF1 program (a .py file, or a "
                   "folder or zip with __main__.py)")
    p.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                   help="the program's arguments (its sys.argv[1:])")
    p.set_defaults(func=_run)
