"""The package's imports point down its layers (docs/ARCHITECTURE.md, "Layers").

Every ``.py`` under ``scopeflow/`` is parsed (not imported) and every import of a scopeflow
module is collected, at module level and inside functions alike: ``import scopeflow.a.b``
and ``from scopeflow.a import b`` (``b`` a module) name ``scopeflow.a.b``; ``from scopeflow.a
import name`` names ``scopeflow.a`` (a package's ``__init__.py`` is the package); relative
imports are resolved the same way. Two checks:

* ``test_no_import_cycles``: the strongly connected groups of that graph (a cycle, with its
  lazy imports counted, is still a cycle: deferring one import only hides it) must be
  exactly ``ALLOWED_CYCLES``.
* ``test_function_level_imports_are_deliberate``: an import of a scopeflow module inside a
  function must be listed in ``LAZY_IMPORTS`` with its reason; a lazy import is for keeping
  ``import scopeflow`` fast or for a cycle listed above, never to dodge a new one.

Run ``python tests/unit/test_import_layers.py`` for the graph's cycles and lazy imports.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scopeflow"
ROOT = "scopeflow"

# Import cycles that are known and tracked. Each must be a strongly connected group exactly:
# the test fails if one grows (a module joins it) or shrinks or disappears (delete it here).
# None today: the op families import only downward (op_helpers -> shape_ops -> arithmetic_ops
# -> layout_ops -> reduction_ops -> elementwise_ops -> slicing_ops -> indexing_ops ->
# statistics_ops, matmul_ops; array_ops and math_ops re-export them), so add an entry here
# only for a cycle that cannot be split yet, with the reason and the plan that removes it.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}

# Imports of a scopeflow module done inside a function, on purpose: (importer, imported) ->
# why it is lazy. Anything else belongs at the top of its module. The test fails on an entry
# that no longer matches a function-level import, so this list only shrinks.
LAZY_IMPORTS = {
    # TF1's full list of public names (a 32 KB data module), read only when a name is
    # missing (the error path of every namespace's __getattr__): keeps `import scopeflow` fast.
    ("scopeflow.api.fallback", "scopeflow.api.tf1_names"):
        "big data module, loaded only on the missing-name error path",
    # A generator script, not a library module: the same file runs under the TensorFlow
    # oracle's interpreter (only `_dump`), where scopeflow is not importable; only the
    # regenerating side loads scopeflow (every op registered) to list its op types.
    ("scopeflow.framework._gen_op_signatures", "scopeflow"):
        "script also run under TensorFlow's interpreter, where scopeflow is not importable",
    ("scopeflow.framework._gen_op_signatures", "scopeflow.framework.opdef"):
        "script also run under TensorFlow's interpreter, where scopeflow is not importable",
}


# ── The analysis ──────────────────────────────────────────────────────────────────────


def module_names() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return name in modules and modules[name].name == "__init__.py" or any(
        other.startswith(name + ".") for other in modules)


def _from_base(node: ast.ImportFrom, module: str, modules: dict[str, Path]) -> str | None:
    """The absolute module a ``from X import ...`` takes its names from."""
    if not node.level:
        return node.module
    package = module if _is_package(module, modules) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _targets(node: ast.Import | ast.ImportFrom, module: str,
             modules: dict[str, Path]) -> list[str]:
    """The scopeflow modules one import statement names."""
    if isinstance(node, ast.Import):
        found = [alias.name for alias in node.names]
    else:
        base = _from_base(node, module, modules)
        if base is None:
            return []
        found = []
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            found.append(sub if sub in modules else base)
    return sorted({name for name in found
                   if (name == ROOT or name.startswith(ROOT + ".")) and name != module})


class _Collector(ast.NodeVisitor):
    """Every scopeflow import in one module: (imported, line, enclosing function or None)."""

    def __init__(self, module: str, modules: dict[str, Path]):
        self.module, self.modules = module, modules
        self.scope: list[str] = []
        self.functions = 0
        self.found: list[tuple[str, int, str | None]] = []

    def _named(self, node, is_function: bool):
        self.scope.append(node.name)
        self.functions += is_function
        self.generic_visit(node)
        self.functions -= is_function
        self.scope.pop()

    def visit_FunctionDef(self, node):
        self._named(node, True)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):   # a class body runs at import time: module level
        self._named(node, False)

    def visit_Lambda(self, node):
        self.functions += 1
        self.generic_visit(node)
        self.functions -= 1

    def _import(self, node):
        where = ".".join(self.scope) if self.functions else None
        for target in _targets(node, self.module, self.modules):
            self.found.append((target, node.lineno, where))

    visit_Import = visit_ImportFrom = _import


def collect_imports():
    """(importer, imported, line, function or None) for every scopeflow import."""
    modules = module_names()
    imports = []
    for module, path in modules.items():
        collector = _Collector(module, modules)
        collector.visit(ast.parse(path.read_text(), filename=str(path)))
        imports += [(module, target, line, where) for target, line, where in collector.found]
    return modules, imports


def strongly_connected(nodes, edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges.get(succ, ())))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    groups.append(frozenset(group))
    return groups


def import_cycles() -> tuple[list[frozenset[str]], dict[str, set[str]]]:
    """The groups of two or more modules that import each other, directly or not.

    Importing ``scopeflow.train.saver`` from outside ``scopeflow/train/`` first runs
    ``scopeflow/train/__init__.py``: that counts as an import of the package too (the root
    package aside: every module is imported under it).
    """
    modules, imports = collect_imports()
    edges: dict[str, set[str]] = defaultdict(set)
    for importer, imported, _, _ in imports:
        parts = imported.split(".")
        packages = {".".join(parts[:i]) for i in range(2, len(parts))}
        for target in {imported} | {p for p in packages if not importer.startswith(p + ".")}:
            if target in modules and target != importer:
                edges[importer].add(target)
    cycles = [g for g in strongly_connected(modules, edges) if len(g) > 1]
    return sorted(cycles, key=sorted), edges


def lazy_imports() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) -> ["file:line in function", ...] for function-level imports."""
    _, imports = collect_imports()
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for importer, imported, line, where in imports:
        if where is not None:
            found[importer, imported].append(f"{importer.replace('.', '/')}.py:{line} "
                                             f"in {where}()")
    return dict(found)


def _cycle_path(group: frozenset[str], edges: dict[str, set[str]]) -> str:
    """One import chain around a cycle, for the message: a -> b -> ... -> a."""
    start = min(group)
    parents = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for succ in sorted(edges.get(node, ())):
            if succ == start:
                chain = [node]
                while parents[chain[-1]] is not None:
                    chain.append(parents[chain[-1]])
                return " -> ".join([*reversed(chain), start])
            if succ in group and succ not in parents:
                parents[succ] = node
                queue.append(succ)
    return ", ".join(sorted(group))


# ── The tests ─────────────────────────────────────────────────────────────────────────


def test_no_import_cycles():
    cycles, edges = import_cycles()
    problems = []
    for group in cycles:
        if group in ALLOWED_CYCLES:
            continue
        grown = [allowed for allowed in ALLOWED_CYCLES if allowed < group]
        if grown:
            problems.append(
                f"the known cycle {sorted(grown[0])} grew to {sorted(group)} "
                f"({_cycle_path(group, edges)}): a module joined it. Make the new import "
                "point down the layers (docs/ARCHITECTURE.md) instead.")
        else:
            problems.append(
                f"new import cycle: {_cycle_path(group, edges)}. Make the imports point down "
                "the layers (docs/ARCHITECTURE.md): move what the lower module needs down "
                "into it or into a module below both; a function-level import does not fix a "
                "cycle, it only hides it.")
    for allowed in ALLOWED_CYCLES:
        if allowed in cycles:
            continue
        if any(allowed < group for group in cycles):
            continue   # reported above as grown
        problems.append(
            f"the known cycle {sorted(allowed)} is gone (or smaller): remove it (or shrink it "
            "to what remains) in ALLOWED_CYCLES in tests/unit/test_import_layers.py, and "
            "turn its lazy imports in LAZY_IMPORTS into module-level imports.")
    assert not problems, "\n".join(problems)


def test_function_level_imports_are_deliberate():
    found = lazy_imports()
    problems = []
    for pair, places in sorted(found.items()):
        if pair not in LAZY_IMPORTS:
            problems.append(
                f"{pair[0]} imports {pair[1]} inside a function ({'; '.join(places)}): move "
                "the import to the top of the module. If that makes a cycle, make the "
                "imports point down the layers (docs/ARCHITECTURE.md) rather than hiding it "
                "in a function; if it is lazy on purpose (an expensive module only some "
                "calls need), add it to LAZY_IMPORTS in tests/unit/test_import_layers.py "
                "with the reason.")
    for pair in sorted(set(LAZY_IMPORTS) - set(found)):
        problems.append(
            f"LAZY_IMPORTS lists {pair[0]} -> {pair[1]}, but there is no such function-level "
            "import any more: remove the entry from tests/unit/test_import_layers.py.")
    assert not problems, "\n".join(problems)


def test_analysis_resolves_imports():
    """The resolver itself: submodules, names from a package, relative imports, scopes."""
    modules = module_names()
    assert "scopeflow" in modules and "scopeflow.ops.math_ops" in modules
    assert "scopeflow.train" in modules   # train/__init__.py is the package

    def targets(source, module="scopeflow.train.saver"):
        collector = _Collector(module, modules)
        collector.visit(ast.parse(source))
        return collector.found

    assert targets("from scopeflow.ops import math_ops") == [
        ("scopeflow.ops.math_ops", 1, None)]
    assert targets("from scopeflow.framework.graph import Tensor") == [
        ("scopeflow.framework.graph", 1, None)]
    assert targets("import scopeflow.ops.math_ops as m") == [("scopeflow.ops.math_ops", 1, None)]
    assert targets("from . import optimizer") == [("scopeflow.train.optimizer", 1, None)]
    assert targets("from .. import gradients") == [("scopeflow.autodiff.gradients", 1, None)]
    assert targets("from ..ops.array_ops import shape") == [("scopeflow.ops.array_ops", 1, None)]
    assert targets("from . import no_such") == [("scopeflow.train", 1, None)]
    assert targets("from . import saver", module="scopeflow.train") == [
        ("scopeflow.train.saver", 1, None)]
    assert targets("def f():\n    from scopeflow import variables\n") == [
        ("scopeflow.state.variables", 2, "f")]
    assert targets("class C:\n    def m(self):\n        import scopeflow\n") == [
        ("scopeflow", 3, "C.m")]
    assert targets("class C:\n    import scopeflow.ops\n") == [("scopeflow.ops", 2, None)]
    assert targets("import numpy\nfrom os import path") == []
    edges = {"a": {"b"}, "b": {"c", "a"}, "c": {"d"}, "d": {"c"}, "e": set()}
    assert sorted(map(sorted, strongly_connected("abcde", edges))) == [
        ["a", "b"], ["c", "d"], ["e"]]


if __name__ == "__main__":
    cycles, _ = import_cycles()
    print("cycles:", [sorted(group) for group in cycles] or "none")
    for (importer, imported), places in sorted(lazy_imports().items()):
        print(f"{importer} -> {imported}")
        for place in places:
            print(f"    {place}")
