"""An uncaught exception's traceback ends at the user's line, scopeflow's frames left out
(as TF 2's traceback filtering), with a switch that shows everything."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.platform import traceback_filtering

ROOT = Path(__file__).resolve().parents[3]

PROGRAM = textwrap.dedent("""\
    import scopeflow as tf
    a = tf.constant([1, 2])
    b = tf.constant([1.0, 2.0])
    c = a + b  # THE USER'S LINE
""")


def _run(tmp_path, program=PROGRAM, **env):
    script = tmp_path / "model.py"
    script.write_text(program)
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    if not env:
        full_env.pop("SCOPEFLOW_TRACEBACK_FILTERING", None)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=full_env, timeout=120).stderr


def test_the_traceback_ends_at_the_users_line(tmp_path):
    err = _run(tmp_path)
    frames = [line for line in err.splitlines() if line.startswith('  File "')]
    assert frames == [f'  File "{tmp_path / "model.py"}", line 4, in <module>']
    assert "c = a + b  # THE USER'S LINE" in err
    assert "TypeError: Input 'y' of 'AddV2' Op has type float32" in err
    assert "frames inside scopeflow not shown; tf.debugging.disable_traceback_filtering()" \
        in err


def test_the_switch_shows_every_frame(tmp_path):
    err = _run(tmp_path, SCOPEFLOW_TRACEBACK_FILTERING="0")
    assert "scopeflow/framework/opdef.py" in err and "not shown" not in err
    err = _run(tmp_path, PROGRAM.replace("a = tf", "tf.debugging.disable_traceback_filtering()"
                                                   "\na = tf"))
    assert "scopeflow/framework/opdef.py" in err and "not shown" not in err


def test_run_time_errors_and_their_causes_are_filtered_too(tmp_path):
    program = textwrap.dedent("""\
        import scopeflow as tf
        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        try:
            tf.Session().run(y, {x: [1.0, 2.0, 3.0]})
        except ValueError as e:
            raise RuntimeError("while feeding") from e
    """)
    err = _run(tmp_path, program)
    frames = [line for line in err.splitlines() if line.startswith('  File "')]
    assert frames and all(str(tmp_path) in line for line in frames), err
    assert "RuntimeError: while feeding" in err and "Cannot feed value of shape (3,)" in err


def test_caught_exceptions_keep_their_whole_traceback():
    a, b = tf.constant([1, 2]), tf.constant([1.0, 2.0])
    with pytest.raises(TypeError) as info:
        a + b  # noqa: B018
    files = [entry.path for entry in info.traceback]
    assert any("scopeflow" in str(f) for f in files)


def test_a_traceback_entirely_inside_scopeflow_is_kept():
    try:
        traceback_filtering.filtered(None)
        raise ValueError("x")
    except ValueError as e:
        tb = e.__traceback__
    assert traceback_filtering.filtered(tb) == (tb, 0)  # no scopeflow frame in it


def test_the_switch_functions_are_tfs():
    assert tf.debugging.is_traceback_filtering_enabled()
    tf.debugging.disable_traceback_filtering()
    try:
        assert not tf.debugging.is_traceback_filtering_enabled()
    finally:
        tf.debugging.enable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled()
