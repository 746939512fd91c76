"""variable_scope / get_variable: TF1 programs give the same names, reuse outcomes and
messages under scopeflow as under real TensorFlow (fixtures in tests/fixtures/
tf_variable_scope/, written by TF 2.21; regenerate with make_fixtures.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tf_variable_scope"
_spec = importlib.util.spec_from_file_location("vs_make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(make_fixtures.PROGRAMS))
def test_program_matches_tensorflow(name):
    got = make_fixtures.run_program(tf, make_fixtures.PROGRAMS[name])
    assert got == EXPECTED[name]


@pytest.mark.tf
def test_fixtures_are_current(tf1):
    """The committed fixtures still match what live TensorFlow produces."""
    live = tf1(f"import runpy, sys\nsys.argv = ['x', '--print']\n"
               f"runpy.run_path({str(FIXTURES / 'make_fixtures.py')!r}, run_name='__main__')")
    assert live == EXPECTED


def test_seed_error_message_quoted_by_the_seed():
    tf.get_variable("h1_weights", [100, 50])
    with pytest.raises(ValueError, match=r"^Variable h1_weights already exists, disallowed\. "
                       r"Did you mean to set reuse=True or reuse=tf\.AUTO_REUSE in VarScope\?"):
        tf.get_variable("h1_weights", [100, 50])


def test_already_exists_points_at_first_definition():
    tf.get_variable("v", [1])  # the first definition: this line
    with pytest.raises(ValueError) as info:
        tf.get_variable("v", [1])
    assert "Originally defined at:" in str(info.value)
    assert f'File "{__file__}"' in str(info.value)
    assert "test_already_exists_points_at_first_definition" in str(info.value)


def _build():
    with tf.variable_scope("model"):
        return tf.get_variable("w", [2])


def test_rebuilding_the_same_model_is_diagnosed():
    """USER_NEEDS §3: running the build code twice in one graph explains itself."""
    _build()
    with pytest.raises(ValueError, match="is the model-building code running a second time"):
        _build()
    tf.reset_default_graph()
    assert _build().name == "model/w:0"  # the suggested fix works


def test_sharing_report_lists_created_and_reused():
    with tf.variable_scope("net") as scope:
        tf.get_variable("a", [1])
        tf.get_variable("b", [1])
    with tf.variable_scope(scope, reuse=True):
        tf.get_variable("a", [1])
    assert [v.name for v in scope.created_variables()] == ["net/a:0", "net/b:0"]
    assert [v.name for v in scope.reused_variables()] == ["net/a:0"]
    report = tf.sharing_report("net").splitlines()
    assert [line.split()[:2] for line in report] == [
        ["created", "net/a"], ["created", "net/b"], ["reused", "net/a"]]


def test_framework_scope_ignores_user_reuse():
    """USER_NEEDS §6: framework variables (slots, global_step) never inherit reuse=True."""
    with tf.variable_scope("user", reuse=True):
        with pytest.raises(ValueError, match="does not exist"):
            tf.get_variable("slot", [1])
        with tf.framework_variable_scope("w") as s:
            slot = tf.get_variable("Adam", [1])
        assert s.reuse is tf.AUTO_REUSE
    assert slot.name == "user/w/Adam:0"


def test_reuse_false_cannot_switch_off_inherited_reuse():
    with tf.variable_scope("a"):
        tf.get_variable("v", [1])
    with tf.variable_scope("a", reuse=True):
        with tf.variable_scope("b", reuse=False) as b:
            assert b.reuse is True


def test_variables_share_values_in_a_session():
    with tf.variable_scope("s"):
        v = tf.get_variable("v", initializer=np.arange(3, dtype=np.float32))
    with tf.variable_scope("s", reuse=True):
        same = tf.get_variable("v")
    assert same is v
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign_add(same, [1.0, 1.0, 1.0]))
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 3.0])


def test_default_initializers_values():
    i = tf.get_variable("i", [3], dtype=tf.int32)
    f = tf.get_variable("f", [40, 60])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        iv, fv = sess.run([i, f])
    np.testing.assert_array_equal(iv, [0, 0, 0])
    limit = np.sqrt(6.0 / (40 + 60))  # glorot_uniform
    assert fv.dtype == np.float32 and np.abs(fv).max() <= limit and fv.std() > limit / 3


def test_get_variable_with_dimension_shape():
    x = tf.placeholder(tf.float32, [None, 7])
    w = tf.get_variable("w", [x.shape[1], 3])
    assert w.shape.as_list() == [7, 3]
