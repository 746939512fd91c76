"""What pyproject.toml cannot say: the wheel also carries the repository's examples/ folder,
as the package ``scopeflow.examples.tour``, so that ``scopeflow examples`` can copy the
tour's programs for a user who installed from a wheel. Everything else is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["scopeflow*"]), "scopeflow.examples.tour"],
      package_dir={"scopeflow.examples.tour": "examples"})
