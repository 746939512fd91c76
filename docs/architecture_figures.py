"""The figures docs/ARCHITECTURE.md keeps the package to: long functions, long modules, the
parameters of ``OpDef.__init__``, loose modules per folder, and the worst cyclomatic
complexity (McCabe's count: 1 + each branch point), all read from the source with ``ast``.

    python docs/architecture_figures.py          # the figures, and the worst offenders
    python docs/architecture_figures.py --check  # exit 1 when one passes its limit

``tests/unit/test_architecture_figures.py`` checks the same limits.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "scopeflow"

# The limits (issue 33). A new module or function that needs more is a sign to split it.
LIMITS = {
    # issue 33's target; 0 since 2026-12-08, when the last 20 were split.
    "functions over 50 lines": 8,
    "modules over 1000 lines": 0,
    "OpDef.__init__ parameters": 10,
    "modules loose in scopeflow/": 12,
    "modules loose in scopeflow/ops/": 12,
    "worst cyclomatic complexity": 30,
}

_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.With,
             ast.AsyncWith, ast.Assert, ast.IfExp, ast.comprehension, ast.match_case)


def complexity(func: ast.AST) -> int:
    """McCabe's number of one function, nested functions and classes not counted."""
    count = 1
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, _BRANCHES):
            count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        stack.extend(ast.iter_child_nodes(node))
    return count


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(), str(path))


def figures() -> tuple[dict[str, int], dict[str, list[str]]]:
    long_functions, long_modules, complexities = [], [], []
    opdef_params = 0
    for path, tree in _modules():
        rel = path.relative_to(PACKAGE.parent).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > 1000:
            long_modules.append(f"{rel} ({lines} lines)")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 50:
                    where = f"{rel}:{node.lineno} {node.name}"
                    long_functions.append((length, f"{where} ({length} lines)"))
                complexities.append((complexity(node), f"{rel}:{node.lineno} {node.name}"))
            if (isinstance(node, ast.ClassDef) and node.name == "OpDef"
                    and rel == "scopeflow/framework/opdef.py"):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        a = item.args
                        opdef_params = (len(a.args) - 1 + len(a.kwonlyargs)
                                        + bool(a.vararg) + bool(a.kwarg))

    def loose(folder: Path) -> int:
        return sum(1 for p in folder.glob("*.py"))

    complexities.sort(reverse=True)
    long_functions.sort(reverse=True)
    numbers = {
        "functions over 50 lines": len(long_functions),
        "modules over 1000 lines": len(long_modules),
        "OpDef.__init__ parameters": opdef_params,
        "modules loose in scopeflow/": loose(PACKAGE),
        "modules loose in scopeflow/ops/": loose(PACKAGE / "ops"),
        "worst cyclomatic complexity": complexities[0][0],
    }
    details = {
        "functions over 50 lines": [text for _, text in long_functions],
        "modules over 1000 lines": long_modules,
        "worst cyclomatic complexity": [f"{c:3d} {text}" for c, text in complexities[:10]],
    }
    return numbers, details


def main(argv: list[str]) -> int:
    numbers, details = figures()
    over = [name for name, value in numbers.items() if value > LIMITS[name]]
    for name, value in numbers.items():
        mark = "  OVER" if name in over else ""
        print(f"{name:34s} {value:4d}  (limit {LIMITS[name]}){mark}")
        if "--check" not in argv or name in over:
            for line in details.get(name, []):
                print(f"    {line}")
    return 1 if over and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
