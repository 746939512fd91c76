"""``scopeflow run PROG [ARGS]``: an unmodified TF1 program (``import tensorflow``) runs on
scopeflow as ``python PROG`` would run it (``__main__``, argv, its folder on the path, its
exit status, a traceback at its own line); ``--check`` lists, without running it, the TF
APIs it uses that scopeflow lacks. The programs are written here, small, for these tests."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow import cli
from scopeflow.cli import runner as run_cli

ROOT = Path(__file__).resolve().parents[3]


def _write(folder: Path, source: str, name: str = "prog.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def _scopeflow(cwd, *args, env=None, timeout=240):
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "scopeflow", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=timeout)


PROGRAM = """\
    import sys
    import tensorflow as tf
    import tensorflow.compat.v1 as tf1
    import tensorflow.nn
    import scopeflow
    import helper                                  # beside the program, as with python
    tf1.disable_v2_behavior()
    tf.compat.v1.disable_v2_behavior()

    x = tf.placeholder(tf.float32, [None, 2])
    total = tf.reduce_sum(x * 2.0)
    with tf.Session() as sess:
        print("total", sess.run(total, {x: [[1, 2], [3, 4]]}))
    print("aliased", tf is scopeflow, tf1 is scopeflow, tensorflow.nn is scopeflow.nn)
    print("name", __name__, helper.WHERE == sys.path[0])
    print("argv", sys.argv)
    if __name__ == "__main__":
        sys.exit(int(sys.argv[1]))
    """


def test_runs_an_unmodified_program_as_python_would(tmp_path):
    _write(tmp_path, PROGRAM)
    _write(tmp_path, "import os\nWHERE = os.path.dirname(os.path.abspath(__file__))\n",
           "helper.py")
    out = _scopeflow(tmp_path.parent, "run", tmp_path / "prog.py", "3", "--check", "-x")
    assert out.returncode == 3, out.stderr    # the program's sys.exit status
    lines = out.stdout.splitlines()
    assert lines[0] == "total 20.0"
    assert lines[1] == "aliased True True True"
    assert lines[2] == "name __main__ True"
    # Everything after the program is its own (--check included), argv[0] as given.
    assert lines[3] == f"argv [{str(tmp_path / 'prog.py')!r}, '3', '--check', '-x']"


def test_exit_status_zero_and_relative_argv0(tmp_path):
    _write(tmp_path, "import sys, tensorflow\nprint(sys.argv)\n")
    out = _scopeflow(tmp_path, "run", "prog.py")
    assert (out.returncode, out.stdout) == (0, "['prog.py']\n"), out.stderr


# The tests below use tf.strings.unicode_script as the TF1 name scopeflow lacks.
assert not hasattr(tf.strings, "unicode_script")


def test_an_unsupported_api_names_the_program_line(tmp_path):
    _write(tmp_path, """\
        import tensorflow.compat.v1 as tf

        x = tf.constant([1.0])
        outputs = tf.strings.unicode_script(x)
        """)
    out = _scopeflow(tmp_path, "run", "prog.py")
    assert out.returncode == 1
    err = out.stderr
    assert err.startswith("Traceback (most recent call last):\n")
    assert f'File "{tmp_path / "prog.py"}", line 4, in <module>' in err
    assert ("tf.strings.unicode_script is part of TensorFlow 1's API but scopeflow does not "
            "implement") in err
    assert "runpy" not in err and "scopeflow/cli" not in err


def test_a_folder_with_main(tmp_path):
    (tmp_path / "app").mkdir()
    _write(tmp_path / "app", """\
        import sys
        import tensorflow as tf
        print(__name__, sys.argv[1:])
        raise ValueError("from the program")
        """, "__main__.py")
    out = _scopeflow(tmp_path, "run", "app", "a")
    assert out.returncode == 1 and out.stdout == "__main__ ['a']\n"
    assert f'File "{tmp_path / "app" / "__main__.py"}", line 4, in <module>' in out.stderr
    assert "runpy" not in out.stderr


def test_a_module_scopeflow_lacks_says_which(tmp_path):
    _write(tmp_path, "import tensorflow.lite as lite\n")
    out = _scopeflow(tmp_path, "run", "prog.py")
    assert out.returncode == 1
    assert "ModuleNotFoundError: No module named 'tensorflow.lite'" in out.stderr
    assert "scopeflow does not plan to have it: TensorFlow Lite converts models" in out.stderr


def test_tf1s_mnist_tutorial_module_through_the_alias(tmp_path):
    _write(tmp_path, """\
        from tensorflow.examples.tutorials.mnist import input_data
        import scopeflow.examples.tutorials.mnist.input_data as ours
        print(input_data is ours, callable(input_data.read_data_sets))
        """)
    out = _scopeflow(tmp_path, "run", "prog.py")
    assert (out.returncode, out.stdout) == (0, "True True\n"), out.stderr


def test_syntax_error_and_missing_program(tmp_path):
    _write(tmp_path, "x = (\n")
    out = _scopeflow(tmp_path, "run", "prog.py")
    assert out.returncode == 1 and "SyntaxError" in out.stderr
    assert "Traceback" not in out.stderr       # as python prints it: no frames
    out = _scopeflow(tmp_path, "run", "nope.py")
    assert out.returncode == 1
    assert out.stderr == "scopeflow run: error: can't open file 'nope.py': no such file\n"


def test_help_and_usage(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "-h"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--check" in out and "PROGRAM" in out and "exit status" in out
    with pytest.raises(SystemExit) as e:
        cli.main(["run"])
    assert e.value.code == 2


# ── --check ───────────────────────────────────────────────────────────────────────────────
CHECKED = """\
    import numpy as np
    import tensorflow.compat.v1 as tf
    import tensorflow.lite as lite
    from tensorflow.examples.tutorials.mnist import input_data
    from tensorflow.contrib.rnn import LSTMCell
    import horovod.tensorflow as hvd

    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.strings.unicode_script(x)
    z = tf.nn.relu(x) + tf.nn.rleu(x)
    server = tf.train.Server(None)
    hvd.init()
    hvd.alltoall(x)
    keys = tf.GraphKeys.TRAINABLE_VARIABLES
    data = input_data.read_data_sets
    tf.strings.unicode_script(x)
    np.random.rand(3)
    """


def test_check_lists_missing_apis_with_line_numbers(tmp_path, capsys):
    prog = _write(tmp_path, CHECKED)
    assert cli.main(["run", "--check", str(prog)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines == [
        f"{prog}:3: tensorflow.lite (no such module in scopeflow, not planned: TensorFlow "
        "Lite converts models for mobile runtimes)",
        f"{prog}:9: tf.strings.unicode_script (not yet in scopeflow)",
        f"{prog}:10: tf.nn.rleu (not in TensorFlow 1's API either; did you mean 'relu'?)",
        f"{prog}:11: tf.train.Server (not planned in scopeflow: TF's parameter-server "
        "distribution (servers, workers, cluster specs); scopeflow's data-parallel training "
        "across processes is to use MPI instead)",
        f"{prog}:13: horovod.tensorflow.alltoall (not in scopeflow's Horovod mapping)",
        f"{prog}:16: tf.strings.unicode_script (not yet in scopeflow)",
    ]
    assert "6 use(s) of TF APIs scopeflow lacks" in captured.err


def test_check_kinds():
    found = {f.name: f.kind for f in run_cli.check_source(textwrap.dedent(CHECKED))}
    assert found == {"tensorflow.lite": "missing module",
                     "tf.strings.unicode_script": "not yet",
                     "tf.nn.rleu": "not in TF", "tf.train.Server": "not planned",
                     "horovod.tensorflow.alltoall": "not yet"}


def test_check_resolves_every_import_form():
    source = textwrap.dedent("""\
        import tensorflow
        import tensorflow as tf
        from tensorflow import nn, strings
        from tensorflow.compat import v1 as tf1
        from tensorflow.nn import relu, no_such_fn
        import tensorflow.python.no_such_module as internal
        tensorflow.nn.relu
        tensorflow.strings.unicode_script
        strings.unicode_script
        tf1.strings.unicode_script
        tf.compat.v1.strings.unicode_script
        tf.GraphKeys.NO_SUCH_KEY
        relu.__name__
        tf.no_such = 3
        """)
    found = [(f.line, f.name) for f in run_cli.check_source(source)]
    missing = "tf.strings.unicode_script"
    assert found == [(5, "tf.nn.no_such_fn"), (6, "tensorflow.python.no_such_module"),
                     (8, missing), (9, missing), (10, missing),
                     (11, "tf.compat.v1.strings.unicode_script"),
                     (12, "tf.GraphKeys.NO_SUCH_KEY")]


def test_check_of_a_program_scopeflow_covers(tmp_path, capsys):
    prog = _write(tmp_path, PROGRAM)
    assert cli.main(["run", "--check", str(prog)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"{prog}: every TF API it uses is in scopeflow\n"


def test_check_does_not_run_the_program(tmp_path, capsys):
    prog = _write(tmp_path, "import tensorflow as tf\nopen('ran', 'w').close()\n")
    assert cli.main(["run", "--check", str(prog)]) == 0
    assert not (tmp_path / "ran").exists()
    assert not Path("ran").exists()


def test_check_of_an_unreadable_program(tmp_path, capsys):
    prog = _write(tmp_path, "x = (\n")
    assert cli.main(["run", "--check", str(prog)]) == 1
    assert capsys.readouterr().err.startswith(f"scopeflow run: error: cannot read {prog}: ")
    assert cli.main(["run", "--check", str(tmp_path / "nope.py")]) == 1
    assert cli.main(["run", "--check", str(prog), "arg"]) == 1
    assert "takes no program arguments" in capsys.readouterr().err


def test_check_from_the_command_line(tmp_path):
    _write(tmp_path, "import tensorflow as tf\n\ntf.strings.unicode_script\n")
    out = _scopeflow(tmp_path, "run", "--check", "prog.py")
    assert out.returncode == 1
    assert out.stdout == "prog.py:3: tf.strings.unicode_script (not yet in scopeflow)\n"
