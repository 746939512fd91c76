"""Every op type follows "One op, one block" (docs/ARCHITECTURE.md).

An op's running pieces (``kernel``, ``grad``, ``static_value``) are each None,
``NO_GRADIENT``, a NumPy ufunc or function, or a *named module-level function*: not a lambda,
not a closure a factory made (``_make_scatter.<locals>.kernel``), not a function renamed
after the fact, so that ``tf.describe`` and a grep for the name find its block. The function
lives in the module that declares the OpDef (the op's block), unless it is a helper shared
by several op types or one from a module that declares no ops (``blas``, ``libm``). The plan
passes' rules (``RULES`` of each ``scopeflow.runtime.passes`` module, by op type) are named
module-level functions of their pass's module, for registered op types.

And the registry is written at import time only: no scopeflow code patches an op type's
pieces later (``tf.NotDifferentiable``, TF's public API for the user, aside).
"""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import scopeflow  # noqa: F401 - registers every op type
from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY, OpDef
from scopeflow.runtime import passes as plan_passes

PACKAGE = Path(scopeflow.__file__).resolve().parent

# The pieces checked, in the order messages list them.
PIECES = ("kernel", "grad", "static_value")
# Every attribute of an OpDef that holds one of its pieces (for the patching check).
ALL_PIECES = PIECES + ("shape_rule", "dtype_rule")

# Functions that write an OpDef's pieces after import, on purpose: (module, function) -> why.
PATCHERS = {
    ("scopeflow.autodiff.gradients", "NotDifferentiable"):
        "TF's public API: the user declares an op type not differentiable",
    ("scopeflow.runtime.passes.const_kernels", "rewrite"):
        "sets a plan step's kernel (ir.steps[op].kernel), not an OpDef's",
    ("scopeflow.runtime.passes.owning_kernels", "rewrite"):
        "sets a plan step's kernel (ir.steps[op].kernel), not an OpDef's",
    ("scopeflow.runtime.dead_tensors", "_guard"):
        "sets a plan step's kernel (a Guard around it, for TF1's dead tensors), not an OpDef's",
}


# ── The analysis ──────────────────────────────────────────────────────────────────────


def _declaring_modules() -> dict[str, set[str]]:
    """Op type -> the scopeflow modules that hold its OpDef under a module-level name (a
    family module, and the facade that re-exports it, if any)."""
    held: dict[str, set[str]] = {}
    for name, module in list(sys.modules.items()):
        if name == "scopeflow" or name.startswith("scopeflow."):
            for value in list(vars(module).values()):
                if isinstance(value, OpDef):
                    held.setdefault(value.type, set()).add(name)
    return held


def _is_numpy(fn) -> bool:
    return isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").split(
        ".")[0] == "numpy"


def _describe(fn) -> str:
    return (f"{getattr(fn, '__module__', None)}."
            f"{getattr(fn, '__qualname__', None) or type(fn).__name__}")


def pattern_problems() -> list[str]:
    """One line per op type piece that breaks the pattern."""
    held = _declaring_modules()
    ops_modules = {m for modules in held.values() for m in modules}
    uses: Counter = Counter()
    for op_def in REGISTRY.values():
        for fn in {getattr(op_def, piece) for piece in PIECES
                   if inspect.isfunction(getattr(op_def, piece))}:
            uses[fn] += 1
    problems = []
    for op_type, op_def in sorted(REGISTRY.items()):
        where = held.get(op_type, set())
        if not where:
            problems.append(f"{op_type}: its OpDef has no module-level name in any scopeflow "
                            "module (declare it as `<name>_op = OpDef(...)` in its block)")
        for piece in PIECES:
            fn = getattr(op_def, piece)
            if fn is None or fn is NO_GRADIENT or _is_numpy(fn):
                continue
            if not inspect.isfunction(fn):
                problems.append(f"{op_type}.{piece}: {_describe(fn)} ({type(fn).__name__}) is "
                                "not a named module-level function")
                continue
            qualname, name = fn.__qualname__, fn.__name__
            module = sys.modules.get(fn.__module__)
            if name == "<lambda>" or "<locals>" in qualname or qualname != name:
                problems.append(f"{op_type}.{piece}: {fn.__module__}.{qualname} is not a "
                                "named module-level function (a lambda or a closure)")
            elif getattr(module, name, None) is not fn:
                problems.append(f"{op_type}.{piece}: {fn.__module__}.{qualname} is not the "
                                f"module-level {name} of its module (renamed after the fact?)")
            elif where and fn.__module__ not in where and fn.__module__ in ops_modules \
                    and uses[fn] < 2:
                problems.append(f"{op_type}.{piece}: {fn.__module__}.{qualname} is defined "
                                f"outside the op's block (OpDef in {', '.join(sorted(where))})")
    return problems


def pass_rule_problems() -> list[str]:
    """One line per plan pass rule that is not a named module-level function of its pass's
    module, or that is keyed by an op type no OpDef declares."""
    problems = []
    for p in plan_passes.PASSES:
        for op_type, rules in sorted(p.RULES.items()):
            if op_type not in REGISTRY:
                problems.append(f"{p.NAME}: rules for {op_type!r}, which is not an op type")
            if not isinstance(rules, tuple):
                problems.append(f"{p.NAME}.RULES[{op_type!r}]: not a tuple of rules")
                continue
            for fn in rules:
                if not inspect.isfunction(fn) or fn.__name__ != fn.__qualname__ \
                        or getattr(p, fn.__name__, None) is not fn:
                    problems.append(f"{p.NAME}.RULES[{op_type!r}]: {_describe(fn)} is not a "
                                    f"named module-level function of {p.__name__}")
    return problems


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_registry(node) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("REGISTRY", "OP_TYPES")
            or isinstance(node, ast.Attribute) and node.attr in ("REGISTRY", "OP_TYPES"))


class _PatchFinder(ast.NodeVisitor):
    """Writes to op types' pieces: ``x.grad = ...``, ``setattr(x, "kernel", ...)``,
    ``x.def_grad(fn)`` called (not as a decorator), and writes to the registry itself."""

    def __init__(self, module: str):
        self.module = module
        self.functions: list[str] = []
        self.classes: list[str] = []
        self.module_names: set[str] = set()
        self.found: list[tuple[int, str | None, str]] = []

    def _add(self, node, what):
        self.found.append((node.lineno, ".".join(self.functions) or None, what))

    def visit_Module(self, node):
        for stmt in node.body:   # names this module itself binds at module level
            for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
                for name in ast.walk(target) if target is not None else ():
                    if isinstance(name, ast.Name):
                        self.module_names.add(name.id)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:   # @x_op.def_grad: declaring, not patching
            self.visit(decorator.func if isinstance(decorator, ast.Call) and isinstance(
                decorator.func, ast.Attribute) and decorator.func.attr.startswith("def_")
                else decorator)
        self.functions.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def _store(self, target, node):
        if isinstance(target, ast.Attribute) and target.attr in ALL_PIECES:
            base = target.value
            if isinstance(base, ast.Name) and base.id == "self" and self.classes:
                return   # an object's own attribute (OpDef's constructor, a plan step's)
            if self.functions:
                self._add(node, f"sets .{target.attr}")
            elif not (isinstance(base, ast.Name) and base.id in self.module_names):
                self._add(node, f"sets .{target.attr} of an op type declared elsewhere")
        elif isinstance(target, ast.Subscript) and _is_registry(target.value):
            if self.module not in ("scopeflow.framework.opdef", "scopeflow.framework.registry"):
                self._add(node, "writes to the op registry")

    def visit_Assign(self, node):
        for target in node.targets:
            self._store(target, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._store(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self._store(target, node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in ALL_PIECES:
            self._add(node, f"setattr(..., {node.args[1].value!r})")
        elif isinstance(func, ast.Attribute):
            if func.attr in ("def_kernel", "def_grad", "def_static_value") and self.functions:
                self._add(node, f"calls .{func.attr}()")
            elif func.attr in ("pop", "update", "clear", "setdefault", "popitem") \
                    and _is_registry(func.value) and self.module not in (
                        "scopeflow.framework.opdef", "scopeflow.framework.registry"):
                self._add(node, f"REGISTRY.{func.attr}()")
        self.generic_visit(node)


def patch_sites() -> list[str]:
    """Every place in scopeflow/ that writes an op type's pieces outside its declaration
    (and every PATCHERS entry that no longer matches one)."""
    found, listed = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        finder = _PatchFinder(module)
        finder.visit(ast.parse(path.read_text(), filename=str(path)))
        for line, function, what in finder.found:
            if (module, function) in PATCHERS:
                listed.add((module, function))
                continue
            where = f" in {function}()" if function else " at module level"
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}{where}: {what}")
    for module, function in sorted(set(PATCHERS) - listed):
        found.append(f"PATCHERS lists {module}.{function}(), which writes no op piece any "
                     "more: remove the entry")
    return found


# ── The tests ─────────────────────────────────────────────────────────────────────────


def test_op_pieces_are_named_module_level_functions():
    problems = pattern_problems()
    if problems:
        pytest.fail(
        f"{len(problems)} op piece(s) break 'One op, one block' (docs/ARCHITECTURE.md): each "
        "kernel, grad, static_value and plan hook is None, NO_GRADIENT, a NumPy function or a "
        "named module-level function in the op's block (a factory that makes kernels becomes "
        "one named function per op, sharing a module-level helper):\n  "
        + "\n  ".join(problems), pytrace=False)


def test_pass_rules_are_named_module_level_functions_of_their_pass():
    problems = pass_rule_problems()
    assert not problems, "\n  ".join(["plan pass rules break the pattern:"] + problems)


def test_no_op_pieces_patched_outside_their_block():
    sites = patch_sites()
    if sites:
        pytest.fail(
        "scopeflow code writes op types' pieces outside their declaration (the registry is "
        "written at import time, each op by its own block; if a write is deliberate, list it "
        "in PATCHERS in tests/unit/test_op_pattern.py with the reason):\n  "
        + "\n  ".join(sites), pytrace=False)


_SNAPSHOT_SCRIPT = textwrap.dedent("""
    import importlib, pkgutil
    import numpy as np
    import scopeflow as tf
    from scopeflow.framework.opdef import REGISTRY
    from scopeflow.runtime import passes as plan_passes

    PIECES = {pieces!r}

    def snapshot():
        ops = {{t: (id(d),) + tuple(id(getattr(d, p)) for p in PIECES)
               for t, d in REGISTRY.items()}}
        for p in plan_passes.PASSES:  # the passes' rules, as pieces of the op types they key
            for t, rules in p.RULES.items():
                ops[t] = ops.get(t, ()) + (p.NAME,) + tuple(id(r) for r in rules)
        return ops

    before = snapshot()
    for info in pkgutil.walk_packages(tf.__path__, "scopeflow."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    after_imports = snapshot()

    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.get_variable("w", [3, 2])
        emb = tf.get_variable("emb", [5, 2])
        y = tf.nn.softmax(tf.matmul(x, w)) + tf.nn.embedding_lookup(emb, [0, 1])[0]
        loss = tf.reduce_mean(tf.square(y)) + tf.nn.l2_loss(w)
        train = tf.group(tf.train.AdamOptimizer(0.1).minimize(loss),
                         tf.train.GradientDescentOptimizer(0.1).minimize(loss))
        tf.summary.scalar("loss", loss)
        summaries = tf.summary.merge_all()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run([train, summaries], {{x: np.ones((4, 3), np.float32)}})
        for op_type in sorted(REGISTRY):
            tf.describe(op_type)
    after_run = snapshot()

    for label, later in (("importing every scopeflow module", after_imports),
                         ("building, differentiating and running a graph", after_run)):
        changed = sorted(t for t in set(before) | set(later)
                         if before.get(t) != later.get(t))
        print(f"{{label}}: {{changed}}" if changed else f"{{label}}: ok")
""")


def test_registry_unchanged_after_import():
    """In a fresh interpreter: importing every scopeflow module and building, differentiating
    and running a graph leave the registry as ``import scopeflow`` made it (no op type added,
    removed, or with a piece replaced)."""
    result = subprocess.run(
        [sys.executable, "-c", _SNAPSHOT_SCRIPT.format(pieces=ALL_PIECES)],
        capture_output=True, text=True, timeout=300, cwd=PACKAGE.parent)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.strip().splitlines()
    assert lines and all(line.endswith(": ok") for line in lines), (
        "op types changed after `import scopeflow` (op type: what changed it):\n"
        + result.stdout)


def test_the_check_catches_closures_and_lambdas():
    """The analysis itself: a lambda, a factory's closure and a renamed closure are caught."""
    def factory():
        def kernel(x):
            return x
        return kernel

    renamed = factory()
    renamed.__name__ = renamed.__qualname__ = "_renamed_kernel"
    made = [OpDef(f"TestOpPattern{i}", shape=None, dtype=None, kernel=kernel, grad=grad)
            for i, (kernel, grad) in enumerate([
                (lambda x: x, None), (factory(), NO_GRADIENT), (renamed, None),
                (np.negative, _module_level_grad)])]
    try:
        problems = [p for p in pattern_problems() if p.startswith("TestOpPattern")]
    finally:
        for op_def in made:
            del REGISTRY[op_def.type]
    text = "\n".join(problems)
    assert "TestOpPattern0.kernel" in text and "<lambda>" in text
    assert "TestOpPattern1.kernel" in text and "factory.<locals>.kernel" in text
    assert "TestOpPattern2.kernel" in text and "renamed after the fact" in text
    assert "TestOpPattern3.kernel" not in text and "TestOpPattern3.grad" not in text


def _module_level_grad(op, dy):
    return [dy]


if __name__ == "__main__":
    for line in pattern_problems() + patch_sites():
        print(line)
