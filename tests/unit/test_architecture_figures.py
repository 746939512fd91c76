"""The package keeps the shape docs/ARCHITECTURE.md ("Keeping it this way") promises: long
functions and modules, OpDef's parameters, loose modules and the worst cyclomatic
complexity within the limits of ``docs/architecture_figures.py``."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "architecture_figures.py"


def _figures_module():
    spec = importlib.util.spec_from_file_location("architecture_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_is_within_its_limits():
    figures = _figures_module()
    numbers, details = figures.figures()
    over = {name: (value, details.get(name, [])[:5]) for name, value in numbers.items()
            if value > figures.LIMITS[name]}
    assert not over, over


def test_complexity_counts_branches():
    import ast

    figures = _figures_module()
    source = "def f(a, b):\n    if a and b:\n        return [x for x in a if x]\n    return 0\n"
    (func,) = ast.parse(source).body
    # 1 + the if + the and (one extra operand) + the comprehension
    assert figures.complexity(func) == 4
