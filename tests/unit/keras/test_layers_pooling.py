"""Keras's pooling layers against real tf_keras: weight names, output shapes and values on
fixed inputs and weights (tests/fixtures/keras_layers/pooling.json, written by real TF)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import scopeflow as tf

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("keras_layer_cases_pooling",
                                               _HERE / "keras_layer_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

FAMILY = "pooling"
FIXTURE = json.loads((_HERE.parents[1] / "fixtures" / "keras_layers" / f"{FAMILY}.json")
                     .read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES[FAMILY]))
def test_layer_matches_tf_keras(name):
    cases.check(cases.run_case(tf, cases.CASES[FAMILY][name]), FIXTURE[name])


@pytest.mark.parametrize("name", sorted(cases.CASES[FAMILY]))
def test_layer_from_tf_keras_config(name):
    cases.check_config(tf, FIXTURE[name])


def test_fixture_covers_every_case():
    assert sorted(FIXTURE) == sorted(cases.CASES[FAMILY])
