"""The package as users get it: the wheel's files and metadata, the main job run from the
wheel installed in a fresh virtual environment, and what ``import scopeflow`` loads.

The wheel is built as ``pip install .`` builds it (pip, an isolated build with the
``[build-system]`` requirements: setuptools from PyPI or pip's cache), from a copy of the
checkout's files (tracked, and new ones git does not ignore), so that no stale ``build/``
directory of the checkout can hide or add a file.

The fresh environment gets nothing from the network or from this checkout, and has no pip
of its own: the wheel is installed with ``pip --isolated --python <venv> install
--no-index`` (pip >= 22.3), and the declared dependencies
come from this environment's installed copies, linked one distribution at a time into a
directory the venv puts on its path (a ``.pth`` file). So pip's resolver must find every
Requires-Dist there, and the job runs with the declared dependencies only (scikit-learn,
ml_dtypes, TensorBoard, ... are not visible).
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BASE_REQUIREMENTS = {"numpy", "protobuf", "google-crc32c"}
EXTRAS = {"all", "test", "docs", "digits", "bfloat16", "image", "plot", "mpi", "fast", "serve",
          "keras"}
# Modules that only optional features use: `import scopeflow` must not load them.
OPTIONAL_MODULES = ("ml_dtypes", "sklearn", "matplotlib", "tensorboard", "scipy", "mpi4py",
                    "starlette", "uvicorn", "orjson", "h5py")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return _canonical(re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)[1])


def _checkout_files() -> list[str]:
    """The checkout's files as a clean clone would have them (tracked or new, not ignored)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout ({e}): the packaging tests compare with git's files")
    names = sorted({n for n in out.stdout.decode().split("\0") if n})
    return [n for n in names if (ROOT / n).is_file()]   # a deleted file is not shipped


def _package_files() -> set[str]:
    """Every file under scopeflow/ that belongs in the wheel (no caches or bytecode), and the
    tour's programs of examples/, which setup.py ships as scopeflow/examples/tour/."""
    files = _checkout_files()
    package = {n for n in files if n.startswith("scopeflow/")
               and "__pycache__" not in n.split("/") and not n.endswith((".pyc", ".pyo"))}
    tour = {"scopeflow/examples/tour/" + n.split("/", 1)[1] for n in files
            if n.startswith("examples/") and n.endswith(".py") and n.count("/") == 1}
    return package | tour


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """scopeflow's wheel, built by pip from a copy of the checkout."""
    source = tmp_path_factory.mktemp("source")
    for name in _checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    wheelhouse = tmp_path_factory.mktemp("wheelhouse")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                          "--disable-pip-version-check", "-w", str(wheelhouse), str(source)],
                         capture_output=True, text=True, timeout=600, cwd=wheelhouse)
    assert out.returncode == 0, f"pip wheel failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    (built,) = wheelhouse.glob("scopeflow-*.whl")
    return built


def _dist_info(names) -> str:
    (info,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
    return info


def test_wheel_holds_every_package_file(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = _dist_info(names)
        license_text = z.read(f"{info}/licenses/LICENSE").decode()
    expected = _package_files()
    assert "scopeflow/py.typed" in expected and "scopeflow/io/tensorflow.proto" in expected
    assert "scopeflow/examples/tour/variable_sharing.py" in expected
    assert sorted(expected - names) == [], "files under scopeflow/ missing from the wheel"
    # ... and nothing else: no tests, benchmarks, caches or stale build output.
    assert sorted(n for n in names - expected if not n.startswith(info + "/")) == []
    assert license_text == (ROOT / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text


def test_wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        info = _dist_info(z.namelist())
        meta = email.parser.BytesParser().parsebytes(z.read(f"{info}/METADATA"))
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    import scopeflow

    assert meta["Name"] == "scopeflow"
    assert meta["Version"] == scopeflow.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert meta["Requires-Python"] == ">=3.10"
    requires = meta.get_all("Requires-Dist")
    unconditional = [r for r in requires if ";" not in r]
    assert {_requirement_name(r) for r in unconditional} == BASE_REQUIREMENTS
    # Every other requirement belongs to an extra (no platform- or version-only markers),
    # but for oneDNN, whose wheels are Linux x86-64 only: elsewhere `fast` installs nothing.
    by_extra = {}
    only_linux_x86 = ("""(platform_system == "Linux" and platform_machine == "x86_64") """
                      """and """)
    for r in requires:
        if ";" in r:
            marker = r.split(";", 1)[1].strip()
            if _requirement_name(r) == "onednn-cpu-gomp":
                assert marker.startswith(only_linux_x86), r
                marker = marker[len(only_linux_x86):]
            extra = re.fullmatch(r"""\s*extra\s*==\s*["']([^"']+)["']\s*""", marker)
            assert extra, f"Requires-Dist with a marker that is not an extra: {r}"
            by_extra.setdefault(extra[1], set()).add(_requirement_name(r))
    assert set(meta.get_all("Provides-Extra")) == EXTRAS == set(by_extra)
    assert by_extra["bfloat16"] == {"ml-dtypes"} and by_extra["digits"] == {"scikit-learn"}
    # `test` also has the development tools, and `docs` is only those: neither is in `all`.
    dev_tools = {"pytest", "ruff", "hypothesis", "mypy", "nbclient", "nbformat", "ipykernel",
                 "mkdocs", "mkdocstrings"}
    assert by_extra["docs"] <= dev_tools
    for extra, names in by_extra.items():
        runtime = names - dev_tools
        assert runtime <= by_extra["all"], \
            f"extra 'all' lacks {runtime - by_extra['all']} ({extra})"
    assert not dev_tools & by_extra["all"], "dev tools in 'all'"
    classifiers = meta.get_all("Classifier")
    for version in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert "Typing :: Typed" in classifiers
    assert meta["Summary"] and meta["Description-Content-Type"] == "text/markdown"
    assert re.search(r"^scopeflow\s*=\s*scopeflow\.cli:main$", entry_points, re.M)


def _link_distributions(requirements, farm: Path) -> None:
    """Symlinks the installed files of ``requirements`` (and theirs) into ``farm``."""
    seen = set()
    todo = [_requirement_name(r) for r in requirements]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        dist = importlib.metadata.distribution(name)
        todo += [_requirement_name(r) for r in dist.requires or () if ";" not in r]
        for file in dist.files or ():
            parts = Path(file).parts
            if not parts or parts[0] in ("..", "__pycache__"):  # bin/ scripts, bytecode
                continue
            source = Path(dist.locate_file(parts[0]))
            # A directory without __init__.py may be a namespace shared by several
            # distributions (google/ for protobuf): link its entries instead.
            namespace = (source.is_dir() and len(parts) > 2 and "." not in parts[0]
                         and not (source / "__init__.py").exists())
            top = parts[:2] if namespace else parts[:1]
            target = farm.joinpath(*top)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.symlink_to(Path(dist.locate_file(Path(*top))).resolve())


def test_installed_wheel_runs_the_main_job(wheel, mnist_split_dir, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-I", "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    farm = tmp_path / "dependencies"
    _link_distributions(BASE_REQUIREMENTS, farm)
    Path(site, "scopeflow_test_dependencies.pth").write_text(f"{farm}\n")

    work = tmp_path / "work"      # outside the checkout: its scopeflow/ cannot shadow
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    env["PYTHONUNBUFFERED"] = "1"

    def run(*cmd, timeout=300):
        out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=work,
                             env=env, timeout=timeout)
        assert out.returncode == 0, f"{cmd} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        return out.stdout

    # --isolated: no pip configuration (find-links, constraints) can offer other packages.
    run(sys.executable, "-m", "pip", "--isolated", "--python", python, "install", "--no-index",
        "-q", "--disable-pip-version-check", wheel)
    probe = textwrap.dedent(f"""
        import importlib.util, json, sys
        import scopeflow, scopeflow.datasets.mnist, scopeflow.examples.mnist_cnn
        print(json.dumps(dict(
            file=scopeflow.__file__,
            loaded=[m for m in {OPTIONAL_MODULES!r} if m in sys.modules],
            visible=[m for m in {OPTIONAL_MODULES!r} if importlib.util.find_spec(m)])))
    """)
    facts = json.loads(run(python, "-I", "-c", probe).strip().splitlines()[-1])
    assert Path(facts["file"]).resolve().is_relative_to(Path(site).resolve()), facts["file"]
    assert facts["loaded"] == [] and facts["visible"] == []
    import scopeflow

    assert scopeflow.__version__ in run(venv / "bin" / "scopeflow", "--version")

    logdir = tmp_path / "runs"
    out = run(python, "-I", "-m", "scopeflow.examples.mnist_cnn", "--steps", "5",
              "--validation-size", "1000", "--eval-every", "5", "--log-every", "5",
              "--data-dir", mnist_split_dir, "--logdir", logdir)
    assert re.search(r"^test accuracy: 0\.\d+", out, re.M), out
    assert "model_checkpoint_path: \"model.ckpt-5\"" in (logdir / "checkpoint").read_text()
    assert list(logdir.glob("events.out.tfevents.*"))

    # The tour's programs come with the wheel: `scopeflow examples` copies them, and they run.
    copied = run(venv / "bin" / "scopeflow", "examples", tmp_path / "tour")
    assert "variable_sharing.py" in copied and (tmp_path / "tour" / "mnist_arrays.py").is_file()
    out = run(python, "-I", tmp_path / "tour" / "variable_sharing.py")
    assert "cnn/conv1/w:0" in out and "reused  two_layers/h1/weights" in out, out


def test_import_does_not_load_optional_modules():
    """``import scopeflow`` stays fast: ml_dtypes (most of a second) loads on first bfloat16
    use, and the other optional packages only where their features are used."""
    probe = (f"import sys, scopeflow; "
             f"print([m for m in {OPTIONAL_MODULES!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# scopeflow's own heavy namespaces: `import scopeflow` leaves them for first use (`tf.keras`).
LAZY_SUBPACKAGES = ("scopeflow.contrib", "scopeflow.distributions", "scopeflow.estimator",
                    "scopeflow.keras")


def test_import_loads_keras_estimator_contrib_on_first_use():
    """``import scopeflow`` loads none of tf.keras, tf.estimator, tf.contrib,
    tf.distributions; the first attribute access (``tf.keras``, ``tf.compat.v1.estimator``)
    loads each, they are the modules ``import scopeflow.keras`` gives, and loading them
    registers no op type (a GraphDef imports the same either way)."""
    probe = textwrap.dedent(f"""
        import json, sys
        import scopeflow as tf
        from scopeflow.framework.opdef import REGISTRY
        before = [m for m in {LAZY_SUBPACKAGES!r} if m in sys.modules]
        op_types = set(REGISTRY)
        listed = all(n in dir(tf) for n in ("contrib", "distributions", "estimator", "keras"))
        dense = tf.keras.layers.Dense
        estimator = tf.compat.v1.estimator.Estimator
        rnn = tf.contrib.rnn
        normal = tf.distributions.Normal
        import scopeflow.keras
        from scopeflow import estimator as est
        print(json.dumps(dict(
            before=before, listed=listed,
            after=[m for m in {LAZY_SUBPACKAGES!r} if m in sys.modules],
            new_op_types=sorted(set(REGISTRY) - op_types),
            same=tf.keras is scopeflow.keras and tf.compat.v1.keras is tf.keras
            and est.Estimator is estimator and dense.__module__.startswith("scopeflow.keras")
            and rnn.__name__ == "scopeflow.contrib.rnn"
            and normal.__module__ == "scopeflow.distributions.normal")))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts == dict(before=[], listed=True, after=list(LAZY_SUBPACKAGES), new_op_types=[],
                         same=True)
