"""variable_scope / get_variable: TF1 programs give the same names, reuse outcomes and
messages under scopeflow as under real TensorFlow (fixtures in tests/fixtures/
tf_variable_scope/, written by TF 2.21; regenerate with make_fixtures.py)."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_variable_scope"
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


# ── custom getters see TF's keyword arguments; the internal layers pass one request ──
# The keyword arguments (besides ``getter`` and ``name``) TF 2.21 passes a custom getter,
# in its order: recorded with ../shared/tools/tf1 from ``def g(getter, name, *args,
# **kwargs): list(kwargs)`` (test_custom_getter_kwargs_are_current re-checks them live).
TF_GETTER_KWARGS = ["shape", "dtype", "initializer", "regularizer", "reuse", "trainable",
                    "collections", "caching_device", "partitioner", "validate_shape",
                    "use_resource", "synchronization", "aggregation", "constraint"]

_GETTER_KWARGS_PROGRAM = '''
seen = {}
def record(tag):
    def getter(getter, name, *args, **kwargs):
        seen[tag] = [len(args), list(kwargs), repr(kwargs["reuse"]), kwargs["trainable"],
                     kwargs["collections"]]
        return getter(name, *args, **kwargs)
    return getter
def anonymous(getter, *args, **kwargs):
    seen["anonymous"] = [len(args), sorted(kwargs)]
    return getter(*args, **kwargs)
tf.get_variable("d", [2], custom_getter=record("direct"))
with tf.variable_scope("s", reuse=tf.AUTO_REUSE, custom_getter=record("scope")):
    tf.get_variable("v", [1], trainable=False, collections=["c"])
tf.get_variable("a", [1], custom_getter=anonymous)
'''


def _getter_kwargs_seen(tf_module):
    namespace = {"tf": tf_module}
    exec(_GETTER_KWARGS_PROGRAM, namespace)
    return namespace["seen"]


def test_custom_getters_receive_tf_keyword_arguments():
    seen = _getter_kwargs_seen(tf)
    assert seen["direct"][:2] == [0, TF_GETTER_KWARGS]
    assert seen["scope"] == [0, TF_GETTER_KWARGS, "<_ReuseMode.AUTO_REUSE: 1>", False, ["c"]]
    assert seen["anonymous"] == [0, sorted(TF_GETTER_KWARGS + ["name"])]


@pytest.mark.tf
def test_custom_getter_kwargs_are_current(tf1):
    live = tf1(_GETTER_KWARGS_PROGRAM + "print(json.dumps(seen))")
    assert live["direct"][:2] == [0, TF_GETTER_KWARGS]
    assert live["scope"][:2] == [0, TF_GETTER_KWARGS] and live["scope"][3:] == [False, ["c"]]
    assert live["anonymous"] == [0, sorted(TF_GETTER_KWARGS + ["name"])]


def test_getter_without_constraint_parameter_is_not_passed_one():
    # As TF: ``constraint`` goes only to getters that accept it (or take **kwargs).
    def getter(getter, name, shape=None, dtype=None, initializer=None, regularizer=None,
               reuse=None, trainable=None, collections=None, caching_device=None,
               partitioner=None, validate_shape=True, use_resource=None, synchronization=None,
               aggregation=None):
        # Positional call, as user getters may make: trainable=False.
        return getter(name, shape, dtype, None, None, None, False)

    with tf.variable_scope("p", custom_getter=getter):
        v = tf.get_variable("v", [3])
    # From TF 2.21.
    assert [v.name, v.shape.as_list(), v in tf.trainable_variables()] == ["p/v:0", [3], False]


def test_getter_passing_reuse_none_gets_or_creates():
    def no_reuse(getter, name, *args, **kwargs):
        kwargs["reuse"] = None
        return getter(name, *args, **kwargs)

    a = tf.get_variable("n", [1])
    with tf.variable_scope("", custom_getter=no_reuse):
        b = tf.get_variable("n", [1])
        c = tf.get_variable("fresh", [1])
    assert (b is a, c.name) == (True, "fresh:0")  # From TF 2.21


def test_internal_layers_receive_one_request(monkeypatch):
    """tf.get_variable normalises its arguments once; the store's layers get one object,
    already completed by the scope (full name, scope defaults for what was left None)."""
    vs = importlib.import_module("scopeflow.state.variable_scope")
    calls = []

    def spy(method):
        original = getattr(vs._VariableStore, method)

        def wrapper(self, *args, **kwargs):
            calls.append((method, args, kwargs))
            return original(self, *args, **kwargs)
        monkeypatch.setattr(vs._VariableStore, method, wrapper)

    spy("get_variable")
    spy("_get_single_variable")
    init = tf.constant_initializer(3.0)
    with tf.variable_scope("outer", initializer=init, reuse=tf.AUTO_REUSE):
        v = tf.get_variable("v", [2], dtype=tf.float64, trainable=False)
    assert [method for method, _, _ in calls] == ["get_variable", "_get_single_variable"]
    for _, args, kwargs in calls:
        assert kwargs == {} and len(args) == 1 and type(args[0]) is vs._VariableRequest
    request = calls[-1][1][0]
    assert (request.name, request.shape, request.dtype, request.initializer) == \
        ("outer/v", [2], tf.float64, init)
    assert (request.reuse, request.trainable, request.validate_shape) == \
        (tf.AUTO_REUSE, False, True)
    assert v.name == "outer/v:0" and v.dtype.base_dtype == tf.float64
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.name = "other"


# Functions whose long signatures are TF's public API (or the getter protocol custom
# getters call): STYLE's "compatibility of the public API wins". Everything else, bar the
# value objects' own constructors, stays within STYLE rule 4's ~6 parameters.
_TF_SIGNATURES = {
    "get_variable", "get_local_variable", "variable_scope.__init__", "VariableScope.__init__",
    "VariableScope.get_variable", "_VariableStore._true_getter", "Variable.__init__",
}
_MODULES = ("scopeflow.state.variable_scope", "scopeflow.state.variables")


def _functions(module):
    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield obj.__qualname__, inspect.unwrap(obj)
        elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
            for member in vars(obj).values():
                if inspect.isfunction(member):
                    yield member.__qualname__, member


def test_no_argument_threading_outside_tf_signatures():
    functions = {name: fn for module in _MODULES
                 for name, fn in _functions(importlib.import_module(module))}
    assert _TF_SIGNATURES <= functions.keys()  # no stale exemption
    too_long = {name: len(inspect.signature(fn).parameters)
                for name, fn in functions.items()
                if name not in _TF_SIGNATURES and len(inspect.signature(fn).parameters) > 6}
    assert too_long == {}
