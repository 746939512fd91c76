"""TF1's public API against scopeflow's: the fixture, docs/API.md, and the fallback that
names a TF1 API scopeflow lacks (scopeflow/framework/api_fallback.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.framework import api_fallback as _api

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "tf1_api" / "tf1_api.json"
KINDS = {"function", "class", "module", "constant"}


def _fixture():
    return json.loads(FIXTURE.read_text())


def test_fixture_loads():
    data = _fixture()
    assert data["tensorflow_version"].startswith("2.")
    modules = data["modules"]
    for path in ["", "nn", "train", "summary", "layers", "losses", "math", "random", "sparse",
                 "errors", "initializers", "metrics", "data", "io", "image", "linalg",
                 "strings"]:
        assert path in modules, path
    for path, by_kind in modules.items():
        assert set(by_kind) <= KINDS, path
        names = [n for v in by_kind.values() for n in v]
        assert names and len(names) == len(set(names)), path
        assert not any(n.startswith("_") for n in names), path
    root = modules[""]
    assert "placeholder" in root["function"] and "Session" in root["class"]
    assert "nn" in root["module"] and "float32" in root["constant"]
    assert "ctc_loss" in modules["nn"]["function"]
    assert "Conv2D" in data["raw_ops"]


def test_package_copy_matches_fixture():
    from scopeflow.framework import tf1_names as _tf1_api

    data = _fixture()
    assert _tf1_api.TENSORFLOW_VERSION == data["tensorflow_version"]
    assert {p: {k: v.split() for k, v in m.items()} for p, m in _tf1_api.MODULES.items()} \
        == data["modules"]


def test_docs_api_md_is_current():
    """Regenerates docs/API.md (and the package's copy of the list) in a fresh interpreter."""
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_api.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr


def test_api_md_counts_add_up():
    text = (ROOT / "docs" / "API.md").read_text()
    data = _fixture()
    total = sum(len(v) for m in data["modules"].values() for v in m.values())
    row = next(ln for ln in text.splitlines() if ln.startswith("| all |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    n, supported, not_yet, not_planned = (int(c) for c in cells[2:6])
    assert n == total == supported + not_yet + not_planned
    assert supported > 400 and not_planned > 0


NAMESPACES = ["", "nn", "math", "random", "sparse", "layers", "losses", "train", "summary",
              "compat", "errors", "dtypes", "io", "test"]


def _a_missing_name(path):
    """A TF1 name of namespace ``path`` that scopeflow lacks and has not ruled out (picked
    from the fixture, so the test follows as names get implemented)."""
    module = _namespace(path)
    for name in sorted(_api.tf1_names(path)):
        qualpath = f"{path}.{name}" if path else name
        if name not in vars(module) and _api.not_planned_reason(qualpath) is None:
            return name
    pytest.skip(f"scopeflow has every name of tf.{path}")


def _namespace(path):
    obj = tf
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path", NAMESPACES)
def test_missing_tf1_name_raises_not_implemented(path):
    module = _namespace(path)
    name = _a_missing_name(path)
    tf_name = "tf." + (f"{path}.{name}" if path else name)
    with pytest.raises(NotImplementedError) as info:
        getattr(module, name)
    qualpath = f"{path}.{name}" if path else name
    why = _api.NOT_YET.get(qualpath)
    assert str(info.value) == (f"{tf_name} is part of TensorFlow 1's API but scopeflow does "
                               "not implement it yet" + (f": {why}" if why else "")
                               + " (see docs/API.md)")
    # Also an AttributeError: hasattr() and getattr() with a default see an absent name.
    assert isinstance(info.value, AttributeError)
    assert not hasattr(module, name)
    assert getattr(module, name, "default") == "default"


def test_compat_v1_is_the_root():
    import scopeflow.compat.v1 as v1

    assert v1 is tf
    name = _a_missing_name("nn")
    with pytest.raises(NotImplementedError, match=rf"^tf\.nn\.{name} is part"):
        getattr(v1.nn, name)


@pytest.mark.parametrize("expr,why", [
    ("tf.contrib.bayesflow", "tf.contrib was removed"),   # TF 1.x only: not in the fixture
    ("tf.tpu", "TPU"),
    ("tf.train.Server", "parameter-server distribution"),
    ("tf.test.create_local_cluster", "parameter-server distribution"),
    ("tf.compat.v2", "eager"),
    ("tf.config.experimental_connect_to_cluster", "parameter-server distribution"),
])
def test_not_planned_names_say_why(expr, why):
    with pytest.raises(NotImplementedError) as info:
        eval(expr)
    text = str(info.value)
    assert text.startswith(f"{expr} is part of TensorFlow 1's API but scopeflow does not plan "
                           "to implement it: ")
    assert why in text and text.endswith("(see docs/API.md)")
    assert not hasattr(_namespace(expr[3:].rpartition(".")[0]), expr.rpartition(".")[2])


@pytest.mark.parametrize("path,typo,suggested", [
    ("", "placeholdr", "'placeholder'"),
    ("", "Placeholder", "'placeholder'"),
    ("", "global_variable_initializer", "'global_variables_initializer'"),
    ("nn", "rellu", "'relu'"),
    ("train", "AdamOptimiser", "'AdamOptimizer'"),
    ("summary", "scaler", "'scalar'"),
    ("layers", "dens", "'dense'"),
    ("losses", "mean_squared_eror", "'mean_squared_error'"),
    ("math", "reduce_summ", "'reduce_sum'"),
    ("random", "normall", "'normal'"),
    ("sparse", "to_dens", "'to_dense'"),
    ("errors", "NotFoundErr", "'NotFoundError'"),
])
def test_non_tf1_name_raises_attribute_error_with_suggestion(path, typo, suggested):
    module = _namespace(path)
    with pytest.raises(AttributeError) as info:
        getattr(module, typo)
    assert not isinstance(info.value, NotImplementedError)
    text = str(info.value)
    assert text.startswith(f"module {module.__name__!r} has no attribute {typo!r}. "
                           f"Did you mean: {suggested}")
    assert not hasattr(module, typo)


def test_unknown_name_without_close_match_is_pythons_message():
    with pytest.raises(AttributeError) as info:
        tf.xyzzy  # noqa: B018
    assert str(info.value) == "module 'scopeflow' has no attribute 'xyzzy'"
    with pytest.raises(AttributeError) as info:
        tf.nn.__wrapped__  # noqa: B018
    assert str(info.value) == "module 'scopeflow.api.nn' has no attribute '__wrapped__'"


def test_hasattr_feature_checks():
    """TF1 code and libraries probe with hasattr/getattr: nothing raises out of them."""
    assert hasattr(tf, "Session") and hasattr(tf.nn, "relu")
    missing = _a_missing_name("")
    for name in ["tpu", missing, "xyzzy", "__wrapped__"]:
        assert not hasattr(tf, name), name
        assert getattr(tf, name, None) is None
    with pytest.raises(NotImplementedError):
        getattr(tf, missing)
    # `from ... import` of a missing name is Python's ImportError (hasattr is False).
    with pytest.raises(ImportError, match="cannot import name"):
        exec(f"from scopeflow.api.nn import {_a_missing_name('nn')}", {})
    # Submodule imports still work through the fallback (hasattr() is False first).
    from scopeflow.summary import runs_cli  # noqa: F401


def test_import_does_not_load_the_list():
    code = ("import sys, scopeflow, scopeflow.api.nn\n"
            "hasattr(scopeflow, 'Session'); hasattr(scopeflow, '__wrapped__')\n"
            "assert 'scopeflow.framework.tf1_names' not in sys.modules\n"
            f"assert not hasattr(scopeflow.api.nn, {_a_missing_name('nn')!r})\n"
            "assert 'scopeflow.framework.tf1_names' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr


def test_every_walked_namespace_classifies_each_name():
    cov = _api.coverage()
    assert set(cov) == set(_fixture()["modules"])
    statuses = {r[2] for entry in cov.values() for r in entry["names"]}
    assert statuses == {"supported", "not yet", "not planned"}
    root = {r[0]: r for r in cov[""]["names"]}
    assert root["placeholder"][2] == "supported"
    assert root[_a_missing_name("")][2] == "not yet"
    assert root["tpu"][2] == "not planned" and root["tpu"][3]
    for name in _api.NOT_PLANNED:  # each reason is a single line
        assert "\n" not in _api.NOT_PLANNED[name] and _api.NOT_PLANNED[name]
