"""The package's imports point down its layers (docs/ARCHITECTURE.md, "Layers").

Every ``.py`` under ``scopeflow/`` is parsed (not imported) and every import of a scopeflow
module is collected, at module level and inside functions alike: ``import scopeflow.a.b``
and ``from scopeflow.a import b`` (``b`` a module) name ``scopeflow.a.b``; ``from scopeflow.a
import name`` names ``scopeflow.a`` (a package's ``__init__.py`` is the package); relative
imports are resolved the same way. Three checks:

* ``test_imports_point_down_the_layers``: every module belongs to one layer of ``LAYERS``
  (bottom first) and imports only modules of its own layer or of layers below;
* ``test_no_import_cycles``: the strongly connected groups of that graph (a cycle, with its
  lazy imports counted, is still a cycle: deferring one import only hides it) must be
  exactly ``ALLOWED_CYCLES``.
* ``test_function_level_imports_are_deliberate``: an import of a scopeflow module inside a
  function must be listed in ``LAZY_IMPORTS`` with its reason; a lazy import is for keeping
  ``import scopeflow`` fast or for a cycle listed above, never to dodge a new one.

Run ``python tests/unit/test_import_layers.py`` for the layers, upward imports, cycles and
lazy imports.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scopeflow"
ROOT = "scopeflow"

# The layers, bottom first: a module may import modules of its own layer and of the layers
# below. Each entry names modules by prefix (``scopeflow.ops`` is that package and every
# module under it); a module belongs to the layer of the longest prefix that names it, so a
# module in another layer than its package is listed on its own (``scopeflow.testing``).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # What the file formats need of the graph's vocabulary, so that io/ sits below graph.py,
    # and helpers that import nothing of scopeflow, for every layer.
    ("base", ("scopeflow._version", "scopeflow.framework.dtypes", "scopeflow.framework.errors",
              "scopeflow.framework.tensor_shape", "scopeflow.framework.properties")),
    ("io", ("scopeflow.io",)),
    # The graph IR, traced functions (func_graph.py), what a running kernel sees, and a
    # missing name's error (api_fallback.py), which every namespace module imports.
    ("framework", ("scopeflow.framework",)),
    # Small helpers the namespaces and tools share, none of which builds or runs a graph:
    # tf.compat, tf.logging, tf.gfile, flags, the command-line conventions, the timeline.
    ("support", ("scopeflow.compat", "scopeflow.platform", "scopeflow.client")),
    ("native", ("scopeflow.native",)),
    ("ops", ("scopeflow.ops", "scopeflow.ragged")),
    ("state", ("scopeflow.state",)),
    ("models", ("scopeflow.layers", "scopeflow.losses", "scopeflow.metrics",
                "scopeflow.rnn", "scopeflow.distributions", "scopeflow.feature_column")),
    ("data", ("scopeflow.data",)),
    # tf.gradients, and the control-flow gradients that call its walk (control_flow_grad.py).
    ("autodiff", ("scopeflow.autodiff",)),
    # Sessions and plans; it runs the traced functions the layers below only describe.
    ("runtime", ("scopeflow.runtime",)),
    ("summary", ("scopeflow.summary",)),
    ("train", ("scopeflow.train",)),
    # MNIST, data-parallel training, and TF's tools that programs import as modules (tfprof's
    # model analysis, tf.profiler, among them).
    ("datasets", ("scopeflow.datasets", "scopeflow.distributed", "scopeflow.tools",
                  "scopeflow.profiler")),
    # SavedModels: the builder and loader drive Savers, meta graph export and sessions.
    ("saved_model", ("scopeflow.saved_model", "scopeflow.tools.freeze_graph")),
    # tf.keras: layers, models and their training loops, callbacks and saving; they drive
    # sessions, Savers, summaries and SavedModels.
    ("keras", ("scopeflow.keras",)),
    # tf.estimator: model_fn/input_fn training on MonitoredTrainingSession, SavedModel export,
    # premade estimators over feature columns.
    ("estimator", ("scopeflow.estimator",)),
    # The TF1 namespaces (tf.test's helpers among them: they run sessions and gradients), and
    # TF's module paths (tensorflow.python.*, .core.*: scopeflow/python/module_paths.py).
    ("api", ("scopeflow.api", "scopeflow.contrib", "scopeflow.python", "scopeflow.core")),
    # The root namespace (tf itself) and the programs that use it: commands, examples, and
    # a generator script that loads every op.
    ("programs", ("scopeflow", "scopeflow.testing", "scopeflow.cli", "scopeflow.examples",
                  "scopeflow.framework._gen_op_signatures")),
]

# Imports that point up the layers, known and tracked: (importer, imported) -> why. The
# test fails on a new one and on an entry that no longer matches, so this list only shrinks.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

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
    ("scopeflow.framework.api_fallback", "scopeflow.framework.tf1_names"):
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


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of the layer ``module`` belongs to (None: not listed)."""
    best, found = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    return found


def upward_imports() -> dict[tuple[str, str], str]:
    """(importer, imported) -> "file:line (layer < layer)" for each import that points up.

    Importing ``scopeflow.data.structure`` also runs ``scopeflow/data/__init__.py``: a
    package imported on the way is checked by what its ``__init__`` imports (the highest
    layer among them), which is what the import pulls in, rather than by the package's own
    layer (a package of high modules may hold a low one if its ``__init__`` stays light).
    """
    modules, imports = collect_imports()
    direct: dict[str, set[str]] = defaultdict(set)
    for importer, imported, _, _ in imports:
        direct[importer].add(imported)

    def height(package: str) -> int:
        return max([layer_of(t) for t in direct[package]], default=0)

    found = {}
    for importer, imported, line, _ in imports:
        parts = imported.split(".")
        packages = [".".join(parts[:i]) for i in range(2, len(parts))]
        checked = [(imported, layer_of(imported))] + [
            (p, height(p)) for p in packages
            if p in modules and not importer.startswith(p + ".")]
        mine = layer_of(importer)
        for target, level in checked:
            if mine is not None and level is not None and level > mine:
                found.setdefault((importer, target), (
                    f"{importer.replace('.', '/')}.py:{line} ({LAYERS[mine][0]} imports "
                    f"{LAYERS[level][0]})"))
    return found


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


def test_every_module_is_in_a_layer():
    unlisted = sorted(m for m in module_names() if layer_of(m) is None)
    assert not unlisted, (
        f"modules in no layer: {unlisted}. Add their package (or the module) to LAYERS in "
        "tests/unit/test_import_layers.py, in the layer its imports and importers put it.")


def test_imports_point_down_the_layers():
    found = upward_imports()
    problems = [
        f"{importer} imports {imported} ({where}): a layer imports only its own and the "
        "layers below it (LAYERS in tests/unit/test_import_layers.py, docs/ARCHITECTURE.md). "
        "Move what it needs down into a module below both, or have the higher layer "
        "register itself with the lower one (as the runtime runs traced functions, "
        "framework/func_graph.py)."
        for (importer, imported), where in sorted(found.items())
        if (importer, imported) not in ALLOWED_UPWARD]
    problems += [
        f"ALLOWED_UPWARD lists {importer} -> {imported}, which no longer points up: remove "
        "the entry from tests/unit/test_import_layers.py."
        for importer, imported in sorted(set(ALLOWED_UPWARD) - set(found))]
    assert not problems, "\n".join(problems)


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
    assert targets("from ..autodiff import gradients") == [
        ("scopeflow.autodiff.gradients", 1, None)]
    assert targets("from ..ops.array_ops import shape") == [("scopeflow.ops.array_ops", 1, None)]
    assert targets("from . import no_such") == [("scopeflow.train", 1, None)]
    assert targets("from . import saver", module="scopeflow.train") == [
        ("scopeflow.train.saver", 1, None)]
    assert targets("def f():\n    from scopeflow.state import variables\n") == [
        ("scopeflow.state.variables", 2, "f")]
    assert targets("class C:\n    def m(self):\n        import scopeflow\n") == [
        ("scopeflow", 3, "C.m")]
    assert targets("class C:\n    import scopeflow.ops\n") == [("scopeflow.ops", 2, None)]
    assert targets("import numpy\nfrom os import path") == []
    names = [name for name, _ in LAYERS]
    assert names[layer_of("scopeflow.ops.math.blas")] == "ops"
    assert names[layer_of("scopeflow.framework.dtypes")] == "base"   # longest prefix wins
    assert names[layer_of("scopeflow.framework.graph")] == "framework"
    assert names[layer_of("scopeflow")] == "programs"
    assert layer_of("scopeflowx") is None and layer_of("numpy") is None
    edges = {"a": {"b"}, "b": {"c", "a"}, "c": {"d"}, "d": {"c"}, "e": set()}
    assert sorted(map(sorted, strongly_connected("abcde", edges))) == [
        ["a", "b"], ["c", "d"], ["e"]]


if __name__ == "__main__":
    for index, (name, prefixes) in enumerate(LAYERS):
        print(f"{index:2} {name:10} {', '.join(prefixes)}")
    for (importer, imported), where in sorted(upward_imports().items()):
        print(f"upward: {importer} -> {imported}  {where}")
    cycles, _ = import_cycles()
    print("cycles:", [sorted(group) for group in cycles] or "none")
    for (importer, imported), places in sorted(lazy_imports().items()):
        print(f"{importer} -> {imported}")
        for place in places:
            print(f"    {place}")
