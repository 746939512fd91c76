"""tf.Variable with TF1 reference semantics (literals observed with TF 2.21, TF1 semantics)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def test_variable_names_and_properties():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(3, name="v")
    u = tf.Variable(lambda: tf.constant(1.5), name="u")
    z = tf.Variable(np.zeros((2, 3)), trainable=False)
    # From TF 2.21.
    assert [v.name, v.op.name, v.dtype.name, str(v.shape), v.get_shape().as_list()] == \
        ["v:0", "v", "float32_ref", "(2,)", [2]]
    assert [v.initializer.name, v.initial_value.name, v.value().name, v.read_value().name] == \
        ["v/Assign", "v/initial_value:0", "v/read:0", "read:0"]
    assert [w.name, w.dtype.name, u.initial_value.name, u.name] == \
        ["v_1:0", "int32_ref", "u/Initializer/Const:0", "u:0"]
    assert [z.name, z.dtype.name, z.trainable] == ["Variable:0", "float64_ref", False]
    assert [x.name for x in tf.global_variables()] == ["v:0", "v_1:0", "u:0", "Variable:0"]
    assert [x.name for x in tf.trainable_variables()] == ["v:0", "v_1:0", "u:0"]
    assert (v.op.type, v.initializer.type) == ("VariableV2", "Assign")
    assert [o.name for o in tf.get_default_graph().get_operations()] == [
        "v/initial_value", "v", "v/Assign", "v/read", "v_1/initial_value", "v_1", "v_1/Assign",
        "v_1/read", "u/Initializer/Const", "u", "u/Assign", "u/read", "Variable/initial_value",
        "Variable", "Variable/Assign", "Variable/read", "read"]


def test_variable_in_name_scope():
    with tf.name_scope("s"):
        v = tf.Variable(1.0, name="v")
        v2 = tf.Variable(1.0)
        r = v.read_value()
    # From TF 2.21.
    assert [v.name, v2.name, r.name, v.initializer.name] == \
        ["s/v:0", "s/Variable:0", "s/read:0", "s/v/Assign"]


def test_variable_collections():
    tf.Variable(1.0, name="a", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.Variable(1.0, name="b", collections=["mine"], trainable=False)
    tf.Variable(1.0, name="c", collections=["mine"])

    def names(vs):
        return [x.name for x in vs]

    # From TF 2.21.
    assert names(tf.global_variables()) == []
    assert names(tf.local_variables()) == ["a:0"]
    assert names(tf.trainable_variables()) == ["a:0", "c:0"]
    assert names(tf.get_collection("mine")) == ["b:0", "c:0"]


def test_variable_constructor_errors():
    with pytest.raises(ValueError, match="collections argument to Variable constructor must be "
                                         "a list, tuple, or set"):
        tf.Variable(1.0, collections="mine")
    with pytest.raises(ValueError, match="initial_value must be specified."):
        tf.Variable()
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        tf.Variable(p, name="v")


def test_variable_dtype_and_shape_arguments():
    v = tf.Variable(1, dtype=tf.float32, name="v")
    w = tf.Variable(1.0, dtype=tf.float64, name="w")
    # From TF 2.21.
    assert [v.dtype.name, w.dtype.name, v.initial_value.dtype.name] == \
        ["float32_ref", "float64_ref", "float32"]
    p = tf.placeholder(tf.float32, [None])
    u = tf.Variable(p, validate_shape=False, name="u")
    assert [str(u.shape), u.initial_value.name] == ["<unknown>", "Placeholder:0"]
    s = tf.Variable(np.zeros(2, np.float32), shape=[None], name="s")
    assert str(s.shape) == "(?,)"


def test_assign_names_and_types():
    v = tf.Variable([1.0, 2.0], name="v")
    # From TF 2.21.
    assert [v.assign([1.0, 2.0]).name, v.assign([1.0, 2.0]).op.type,
            v.assign_add([1.0, 2.0]).name, v.assign_sub([1.0, 2.0]).name,
            v.assign([1.0, 2.0], read_value=False).name] == \
        ["Assign:0", "Assign", "AssignAdd:0", "AssignSub:0", "Assign_2"]
    a = v.assign([1.0, 2.0])
    assert [a.op.inputs[0].name, a.op.inputs[1].name] == ["v:0", "Assign_3/value:0"]
    assert v.assign(v).op.inputs[1].name == "v/read:0"
    assert tf.assign(v, [1.0, 1.0]).dtype.name == "float32_ref"


def test_assign_errors():
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError) as e:
        v.assign([1.0, 2.0, 3.0])
    # From TF 2.21 (the start; TF then names the NodeDef).
    assert str(e.value).startswith("Dimension 0 in both shapes must be equal, but are 2 and 3. "
                                   "Shapes are [2] and [3].")
    with pytest.raises(TypeError) as e:
        v.assign(tf.constant([1, 2]))
    assert str(e.value) == ("Input 'value' of 'Assign' Op has type int32 that does not match "
                            "type float32 of argument 'ref'.")


def test_running_variables():
    v = tf.Variable([1.0, 2.0], name="v")
    a = v.assign([3.0, 4.0])
    aa = v.assign_add([1.0, 1.0])
    asub = tf.assign_sub(v, [0.5, 0.5])
    a2 = tf.assign(v, [9.0, 9.0], name="myassign")
    aa2 = tf.assign_add(v, [1.0, 1.0])
    init = tf.global_variables_initializer()
    # From TF 2.21.
    assert [a.name, aa.name, asub.name, a2.name, aa2.name, init.name, init.type] == \
        ["Assign:0", "AssignAdd:0", "AssignSub:0", "myassign:0", "AssignAdd_1:0", "init", "NoOp"]
    assert [o.name for o in init.control_inputs] == ["v/Assign"]
    with tf.Session() as s:
        s.run(init)
        assert s.run(v).tolist() == [1.0, 2.0]
        assert s.run(a).tolist() == [3.0, 4.0]
        assert s.run(aa).tolist() == [4.0, 5.0]
        assert s.run(asub).tolist() == [3.5, 4.5]
        assert v.eval().tolist() == [3.5, 4.5]
        v.load([7.0, 8.0])
        assert s.run(v).tolist() == [7.0, 8.0] and s.run(v.value()).tolist() == [7.0, 8.0]
        assert s.run(tf.is_variable_initialized(v)).tolist() is True
        assert s.run(v.initializer) is None
        assert s.run("v:0").tolist() == [1.0, 2.0]
        assert s.run([v.op, v])[0] is None


def test_load_needs_a_session():
    v = tf.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="Either session argument should be provided"):
        v.load(2.0)
    with tf.Session() as s:
        v.load(3.0, s)
        assert s.run(v) == 3.0


def test_sessions_own_their_state():
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(1.0)
    s1, s2 = tf.Session(), tf.Session()
    s1.run(v.initializer)
    s2.run(v.initializer)
    s1.run(inc)
    assert (s1.run(v), s2.run(v)) == (2.0, 1.0)


def test_variables_initializer_names():
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(1.0, name="w")
    inits = [tf.variables_initializer([v]), tf.variables_initializer([]),
             tf.global_variables_initializer(), tf.local_variables_initializer(),
             tf.variables_initializer([v, w], name="myinit")]
    # From TF 2.21.
    assert [[i.name, i.type, [o.name for o in i.control_inputs]] for i in inits] == [
        ["init", "NoOp", ["v/Assign"]], ["init_1", "NoOp", []],
        ["init_2", "NoOp", ["v/Assign", "w/Assign"]], ["init_3", "NoOp", []],
        ["myinit", "NoOp", ["v/Assign", "w/Assign"]]]


def test_variables_ignore_outer_control_dependencies():
    a = tf.constant(1.0, name="a")
    with tf.control_dependencies([a]):
        v = tf.Variable(1.0, name="v")
    # From TF 2.21 (TF builds variables in an init_scope).
    assert [v.op.control_inputs, v.initializer.control_inputs,
            v.initial_value.op.control_inputs, v.value().op.control_inputs] == [[], [], [], []]


def test_variable_as_control_input():
    v = tf.Variable(1.0, name="v")
    with tf.control_dependencies([v]):
        c = tf.constant(1.0, name="c")
    assert [o.name for o in c.op.control_inputs] == ["v"]  # From TF 2.21


# ── uninitialized variables ─────────────────────────────────────────────────────────
def test_uninitialized_fetch_names_the_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            s.run(v)
    # From TF 2.21: the message starts so, code 9.
    assert e.value.message.startswith("Attempting to use uninitialized value v\n")
    assert e.value.error_code == 9


@pytest.mark.parametrize("how,op_name", [("read", "v/read"), ("assign_add", "AssignAdd")])
def test_uninitialized_error_blames_the_reader(how, op_name):
    v = tf.Variable([1.0, 2.0], name="v")
    t = v.value() if how == "read" else v.assign_add([1.0, 1.0])
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            s.run(t)
    # From TF 2.21: the error's op is the op that read the variable.
    assert e.value.op.name == op_name and e.value.error_code == 9
    assert e.value.message.startswith("Attempting to use uninitialized value v\n")


def test_uninitialized_error_lists_every_variable_the_run_needs():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c")
    unused = tf.Variable(4.0, name="unused")
    total = tf.add(tf.add(a, b), c)
    with tf.Session() as s:
        s.run(b.initializer)
        s.run(unused.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            s.run(total)
    msg = e.value.message
    assert "2 uninitialized variable(s)" in msg
    listed = [ln.split()[0] for ln in msg.splitlines() if ln.startswith("  ")]
    assert listed == ["a", "c"]
    assert __file__ in msg  # where each was created


def test_is_variable_initialized():
    v = tf.Variable(1.0, name="v")
    i = tf.is_variable_initialized(v)
    # From TF 2.21.
    assert [i.name, i.dtype.name, str(i.shape)] == ["IsVariableInitialized:0", "bool", "()"]
    with tf.Session() as s:
        assert not s.run(i)
        s.run(v.initializer)
        assert s.run(i)


def test_initialized_value_runs_the_initializer_first():
    v = tf.Variable(2.0, name="v")
    w = tf.Variable(v.initialized_value(), name="w")
    with tf.Session() as s:
        s.run(w.initializer)
        assert s.run(w) == 2.0


# ── operators (Tensor's operators are installed by math_ops/array_ops) ──────────────
def test_variable_operators():
    v = tf.Variable(2.0, name="v")
    x, y, z, w = v + 1.0, 3.0 * v, -v, v - v
    # From TF 2.21.
    assert [x.name, y.name, z.name, w.name] == ["add:0", "mul:0", "Neg:0", "sub:0"]
    assert [x.op.type, y.op.type, z.op.type] == ["AddV2", "Mul", "Neg"]
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run([x, y, z, w]) == [3.0, 6.0, -2.0, 0.0]
        assert s.run(np.float32(2.0) * v) == 4.0  # NumPy defers to the variable


def test_variables_have_every_operator_tensors_have_acting_on_their_snapshot():
    """scopeflow/state/operators.py installs both sets together."""
    from scopeflow.state import operators

    v = tf.Variable([2.0, 3.0], name="v")
    names = ([f"__{n}__" for n in operators._BINARY] + [f"__r{n}__" for n in operators._BINARY]
             + [f"__{n}__" for n in (*operators._COMPARISONS, *operators._UNARY)])
    for n in names + ["__getitem__"]:
        assert getattr(tf.Tensor, n) is not None and n in vars(tf.Variable), n
    assert (v + 1.0).op.inputs[0] is v.value() and (-v).op.inputs[0] is v.value()
    assert v[0].op.type == "StridedSlice" and v[0].op.inputs[0] is v.value()


# ── report_uninitialized_variables (uses stack/logical_not/boolean_mask) ────────────
def test_report_uninitialized_variables():
    v = tf.Variable(1.0, name="v")
    tf.Variable(1.0, name="w")
    r = tf.report_uninitialized_variables()
    with tf.Session() as s:
        before = s.run(r).tolist()
        s.run(v.initializer)
        after = s.run(r).tolist()
    # From TF 2.21.
    assert [r.name, r.dtype.name, str(r.shape), before, after] == [
        "report_uninitialized_variables/boolean_mask/GatherV2:0", "string", "(?,)",
        [b"v", b"w"], [b"w"]]


def test_report_uninitialized_variables_without_variables():
    r = tf.report_uninitialized_variables()
    assert r.name == "report_uninitialized_variables/Const:0"
    with tf.Session() as s:
        assert s.run(r).tolist() == []


def test_read_value_after_control_dependent_update_sees_the_new_value():
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        after = v.read_value()
    w = tf.Variable(5.0, name="w")
    with tf.control_dependencies([w.initializer]):
        first_read = w.read_value()  # created after the initializer: reads the fresh value
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(after) == 2.0 and s.run(v) == 2.0  # From TF 2.21: 2.0
        assert s.run(first_read) == 5.0


def test_python_values_take_the_variables_type_as_in_tf():
    """TF's _apply_op_helper: the ref fixes T, so 1 becomes int64 and float64 data float32."""
    counter = tf.Variable(tf.zeros([2], tf.int64))
    w = tf.Variable(tf.zeros([3]))
    inc = tf.assign_add(counter, 1)
    set_w = w.assign(np.arange(3.0))                     # a float64 array
    assert inc.op.inputs[1].name == "AssignAdd/value:0"
    assert inc.op.inputs[1].dtype == tf.int64 and set_w.op.inputs[1].dtype == tf.float32
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(inc).tolist() == [1, 1]
        assert sess.run(set_w).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="Expected int64, but got 1.5"):
        tf.assign_add(counter, 1.5)


def test_tensor_shapes_convert_to_tensors_as_in_tf():
    v = tf.Variable(tf.zeros([2, 3]))
    filled = tf.fill(v.shape, 1.0)
    assert filled.shape.as_list() == [2, 3]
    shape = tf.convert_to_tensor(tf.TensorShape([2, 3]))
    assert shape.name == "shape_as_tensor:0" and shape.dtype == tf.int32
    assert tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.int64).dtype == tf.int64
    with pytest.raises(ValueError, match=r"partially known TensorShape \(2, \?\)"):
        tf.convert_to_tensor(tf.TensorShape([2, None]))
    with pytest.raises(ValueError, match="unknown Dimension"):
        tf.convert_to_tensor(tf.Dimension(None))
