"""What pyproject.toml cannot say.

- The wheel also carries the repository's examples/ folder, as the package
  ``scopeflow.examples.tour``, so that ``scopeflow examples`` can copy the tour's programs
  for a user who installed from a wheel.
- An editable install (``pip install -e .``, the README's) is also visible to type checkers.
  setuptools makes it with an import hook, which mypy and pyright cannot follow (they read
  the interpreter's ``sys.path``); so the editable wheel also puts the checkout itself on
  the path, as ``pip install -e`` did before setuptools 64 (and its "compat" mode still
  does). Python then imports scopeflow from the same files as before, by their own paths.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.editable_wheel import editable_wheel


class _WithCheckoutPath:
    """setuptools' editable strategy, plus a ``.pth`` file naming the checkout."""

    def __init__(self, strategy, name, checkout):
        self.strategy, self.name, self.checkout = strategy, name, checkout

    def __call__(self, wheel, files, mapping):
        self.strategy(wheel, files, mapping)
        wheel.writestr(f"__editable__.{self.name}-path.pth", f"{self.checkout}\n")

    def __enter__(self):
        self.strategy.__enter__()
        return self

    def __exit__(self, *exc):
        return self.strategy.__exit__(*exc)


class _EditableWheel(editable_wheel):
    # _select_strategy is setuptools' (>= 64) own step that decides how an editable install
    # is made; a setuptools without it installs as it does, and mypy does not see scopeflow
    # (tests/integration/test_typing.py says so).
    def _select_strategy(self, name, tag, build_lib):
        strategy = super()._select_strategy(name, tag, build_lib)
        return _WithCheckoutPath(strategy, name, Path(self.project_dir).resolve())


setup(packages=[*find_namespace_packages(include=["scopeflow*"]), "scopeflow.examples.tour"],
      package_dir={"scopeflow.examples.tour": "examples"},
      cmdclass={"editable_wheel": _EditableWheel})
