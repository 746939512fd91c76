"""TF1's small top-level helpers: is_tensor, get_static_value, dimension_at_index,
broadcast_static_shape, convert_to_tensor_or_indexed_slices, init_scope, the mode queries,
Variable enums, clip_by_average_norm, make_tensor_proto/make_ndarray, the deprecated
initializer aliases and assert_variables_initialized (one program under scopeflow and TF)."""

import textwrap

import pytest

import scopeflow as tf

PROGRAM = textwrap.dedent('''
    out = {}
    v = tf.Variable(1.); c = tf.constant([1, 2]); sp = tf.SparseTensor([[0]], [1.], [2])
    out["is_tensor"] = [tf.is_tensor(x) for x in (v, c, sp, 1, np.array(1),
                                                   tf.IndexedSlices(c, c))]
    out["symbolic"] = [tf.is_symbolic_tensor(x) for x in (v, c, sp, 1)]
    p = tf.placeholder(tf.int32, [None, 3])
    out["static"] = [repr(tf.get_static_value(c)), repr(tf.get_static_value(p))]
    out["dim"] = [str(tf.dimension_at_index(tf.TensorShape([2, None]), 1)),
                  str(tf.dimension_at_index(tf.TensorShape([2, None]), 0)),
                  type(tf.dimension_at_index(tf.TensorShape([2, None]), 0)).__name__,
                  str(tf.dimension_at_index(tf.TensorShape(None), 3))]
    out["bcast"] = [str(tf.broadcast_static_shape(tf.TensorShape([2, 1]),
                                                  tf.TensorShape([None, 3])))]
    try:
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    except ValueError as e:
        out["bcast"].append(str(e))
    x = tf.convert_to_tensor_or_indexed_slices([1., 2.])
    s_ = tf.IndexedSlices(tf.constant([1.]), tf.constant([0]))
    out["conv"] = [x.op.type, tf.convert_to_tensor_or_indexed_slices(s_) is s_]
    out["modes"] = [tf.executing_eagerly_outside_functions(), tf.resource_variables_enabled(),
                    tf.control_flow_v2_enabled()]
    with tf.name_scope("outer"):
        with tf.control_dependencies([c]):
            with tf.init_scope():
                d = tf.constant(1., name="d")
    out["init_scope"] = [d.name, len(d.op.control_inputs)]
    out["enums"] = [repr(list(tf.VariableAggregation)), repr(list(tf.VariableSynchronization))]
    clipped = tf.clip_by_average_norm(tf.constant([[3., 4.]]), 1.)
    out["clip_name"] = clipped.name
    out["ndarray"] = tf.make_ndarray(tf.make_tensor_proto([[1, 2]], dtype=tf.int64)).tolist()
    out["logger"] = tf.get_logger().name
    w = tf.Variable([1., 2.], name="w")
    check = tf.assert_variables_initialized([v, w])
    init = tf.initialize_variables([v, w])
    with tf.Session() as s:
        out["clip"] = s.run(clipped).tolist()
        try:
            s.run(check)
            out["uninit"] = "ok"
        except tf.errors.FailedPreconditionError:
            out["uninit"] = "FailedPreconditionError"
        s.run(init)
        out["ranks"] = s.run(check).tolist()
    print(json.dumps(out))
''')


def test_without_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["is_tensor"] == [True, True, True, False, False, True]
    assert got["init_scope"] == ["outer/d:0", 0]
    assert got["uninit"] == "FailedPreconditionError" and got["ranks"] == [0, 1]
    assert got["clip"][0] == pytest.approx([1.2, 1.6])


def test_matches_tf(tf1, scopeflow_run):
    want, got = tf1(PROGRAM), scopeflow_run(PROGRAM)
    assert got == want


def test_assert_variables_initialized_without_variables_is_none():
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None


def test_tf2_switches_say_they_are_unavailable():
    with pytest.raises(NotImplementedError, match="enable_control_flow_v2"):
        tf.enable_control_flow_v2()


def test_resource_variables_switch():  # TF1's tf.enable_resource_variables (docs/variables.md)
    tf.enable_resource_variables()
    try:
        assert tf.resource_variables_enabled()
    finally:
        tf.disable_resource_variables()
    assert not tf.resource_variables_enabled()
