"""Doctests in scopeflow/ run with ``tf``/``np`` available and a fresh default graph."""

import numpy as np
import pytest

import scopeflow


@pytest.fixture(autouse=True)
def _doctest_namespace(request, doctest_namespace):
    doctest_namespace["np"] = np
    doctest_namespace["tf"] = scopeflow
    if isinstance(request.node, pytest.DoctestItem):
        scopeflow.reset_default_graph()
    yield
