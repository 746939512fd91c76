"""``tensorflow`` as scopeflow: the import hook (scopeflow.compat.tensorflow_alias) maps
``tensorflow[.X]`` onto ``scopeflow[.X]``, the same module objects, and
``install_as_tensorflow()`` refuses to shadow a real TensorFlow unless forced. Each case that
installs the hook runs in a fresh interpreter (one test checks uninstall in-process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import scopeflow
from scopeflow.compat import tensorflow_alias

ROOT = Path(__file__).resolve().parents[3]


def _python(source: str, *, path=(), cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, path), str(ROOT)]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(source)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=240)


def _fake_package(folder: Path, name: str) -> Path:
    """A stand-in for a real installed package ``name``."""
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text(f"REAL = {name!r}\n")
    return folder


def test_target_names():
    assert tensorflow_alias.target_name("tensorflow") == "scopeflow"
    assert tensorflow_alias.target_name("tensorflow.python.ops.array_ops") == \
        "scopeflow.python.ops.array_ops"
    assert tensorflow_alias.target_name("horovod.tensorflow") == "scopeflow.distributed.horovod"
    assert tensorflow_alias.target_name("tensorflowx") is None
    assert tensorflow_alias.target_name("horovod.torch") is None


def test_install_as_tensorflow_gives_the_same_modules():
    out = _python("""\
        import scopeflow
        from scopeflow.compat.tensorflow_alias import install_as_tensorflow
        install_as_tensorflow()
        import tensorflow as tf
        import tensorflow.compat.v1 as tf1
        import tensorflow.nn, tensorflow.train
        from tensorflow.examples.tutorials.mnist import input_data
        import scopeflow.examples.tutorials.mnist.input_data as ours
        import horovod.tensorflow as hvd
        import scopeflow.distributed.horovod as sf_hvd
        print(tf is scopeflow, tf1 is scopeflow, tensorflow.nn is scopeflow.nn,
              tensorflow.train is scopeflow.train, input_data is ours, hvd is sf_hvd)
        # scopeflow's modules keep their own identity
        print(scopeflow.__spec__.name, scopeflow.nn.__spec__.name, scopeflow.nn.__name__)
        tf.disable_v2_behavior()
        print(tf.Session().run(tf.constant(2.0) * 3.0))
        """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["True True True True True True",
                                       "scopeflow scopeflow.api.nn scopeflow.api.nn", "6.0"]


def test_a_module_scopeflow_lacks():
    out = _python("""\
        import scopeflow.compat.tensorflow_alias as a
        a.install_as_tensorflow()
        for name in ("tensorflow.lite", "tensorflow.no_such_thing", "horovod.torch"):
            try:
                __import__(name)
            except ModuleNotFoundError as e:
                print(e.name, "|", e)
        """)
    assert out.returncode == 0, out.stderr
    lite, missing, torch = out.stdout.splitlines()
    assert lite.startswith("tensorflow.lite | No module named 'tensorflow.lite' (scopeflow "
                           "stands in for it, and has no scopeflow.lite); scopeflow does not "
                           "plan to have it: TensorFlow Lite converts models")
    assert missing == ("tensorflow.no_such_thing | No module named 'tensorflow.no_such_thing' "
                       "(scopeflow stands in for it, and has no scopeflow.no_such_thing)")
    assert torch.startswith("horovod.torch | No module named 'horovod.torch'")
    assert "only horovod.tensorflow is available" in torch


def test_refuses_to_shadow_a_real_tensorflow_unless_forced(tmp_path):
    site = _fake_package(tmp_path / "site", "tensorflow")
    refused = _python("""\
        import scopeflow.compat.tensorflow_alias as a
        try:
            a.install_as_tensorflow()
        except RuntimeError as e:
            print(e)
        import tensorflow
        print(tensorflow.REAL)
        """, path=[site])
    assert refused.returncode == 0, refused.stderr
    message, real = refused.stdout.splitlines()
    assert message.startswith(f"a real TensorFlow is installed ({site / 'tensorflow'}")
    assert "install_as_tensorflow(force=True)" in message
    assert real == "tensorflow"
    forced = _python("""\
        import tensorflow                        # the real one, already imported
        import scopeflow
        import scopeflow.compat.tensorflow_alias as a
        a.install_as_tensorflow(force=True)
        import tensorflow as tf
        print(tf is scopeflow)
        """, path=[site])
    assert (forced.returncode, forced.stdout) == (0, "True\n"), forced.stderr


def test_a_real_horovod_is_left_alone_by_default(tmp_path):
    site = _fake_package(tmp_path / "site", "horovod")
    out = _python("""\
        import scopeflow.compat.tensorflow_alias as a
        a.install_as_tensorflow()
        import horovod
        print(horovod.REAL)
        """, path=[site])
    assert (out.returncode, out.stdout) == (0, "horovod\n"), out.stderr


def test_scopeflow_run_aliases_even_over_real_packages(tmp_path):
    site = _fake_package(_fake_package(tmp_path / "site", "tensorflow"), "horovod")
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf, horovod.tensorflow as hvd, scopeflow\n"
        "print(tf is scopeflow, hvd.__name__)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run([sys.executable, "-m", "scopeflow", "run", "prog.py"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=240)
    assert (out.returncode, out.stdout) == (0, "True scopeflow.distributed.horovod\n"), \
        out.stderr


def test_install_and_uninstall_in_process():
    assert "tensorflow" not in sys.modules
    tensorflow_alias.install(horovod=False)
    try:
        import tensorflow
        import tensorflow.compat.v1 as tf1
        assert tensorflow is scopeflow and tf1 is scopeflow
        assert tensorflow_alias.real_module_installed("tensorflow") is None
        with pytest.raises(ModuleNotFoundError):
            import horovod.tensorflow  # noqa: F401 - not aliased: horovod=False
    finally:
        tensorflow_alias.uninstall()
    assert tensorflow_alias.installed() is None
    assert not [n for n in sys.modules if n == "tensorflow" or n.startswith("tensorflow.")]
    assert scopeflow.__spec__.name == "scopeflow"
    assert sys.modules["scopeflow.compat.v1"] is scopeflow
