"""``tf.errors`` as TF (classes, codes, attributes), and kernel failures naming the op."""

from __future__ import annotations

import pytest

import scopeflow as tf

# From TF 2.21: every class derives directly from OpError, with TF's codes.
CLASSES = [("CancelledError", 1), ("UnknownError", 2), ("InvalidArgumentError", 3),
           ("DeadlineExceededError", 4), ("NotFoundError", 5), ("AlreadyExistsError", 6),
           ("PermissionDeniedError", 7), ("ResourceExhaustedError", 8),
           ("FailedPreconditionError", 9), ("AbortedError", 10), ("OutOfRangeError", 11),
           ("UnimplementedError", 12), ("InternalError", 13), ("UnavailableError", 14),
           ("DataLossError", 15), ("UnauthenticatedError", 16)]


@pytest.mark.parametrize("name,code", CLASSES)
def test_error_classes(name, code):
    cls = getattr(tf.errors, name)
    assert cls.__mro__[1] is tf.errors.OpError and issubclass(cls, Exception)
    e = cls(None, None, "msg")
    assert str(e) == "msg" and e.message == "msg" and e.error_code == code
    assert e.op is None and e.node_def is None
    assert tf.errors.exception_type_from_error_code(code) is cls


def test_codes_and_op_error():
    E = tf.errors
    # From TF 2.21.
    assert (E.INVALID_ARGUMENT, E.FAILED_PRECONDITION, E.NOT_FOUND, E.OUT_OF_RANGE) == (3, 9, 5, 11)
    assert E.OpError(None, None, "m", 3).error_code == 3


def test_kernel_failure_names_op_type_and_user_line():
    a = tf.constant([1.0, 2.0], name="a")
    p = tf.placeholder(tf.float32, name="p")
    c = tf.add(a, p, name="c")  # KERNEL LINE
    line = next(i for i, s in enumerate(open(__file__), 1) if "# KERNEL LINE" in s)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(c, {p: [1.0, 2.0, 3.0]})
    # From TF 2.21: InvalidArgumentError on op "c" of type AddV2, code 3.
    err = e.value
    assert (err.op.name, err.op.type, err.error_code) == ("c", "AddV2", 3)
    assert "c (AddV2)" in err.message and f"{__file__}:{line}" in err.message


def test_unfed_placeholder_is_invalid_argument():
    p = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(tf.identity(p))
    # From TF 2.21: the message's first line, the op and the code.
    assert e.value.message.splitlines()[0] == \
        "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]"
    assert e.value.op.name == "x" and e.value.error_code == 3


def test_unfed_placeholder_of_unknown_shape():
    p = tf.placeholder(tf.int32, name="x")
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(tf.identity(p))
    # From TF 2.21: no "and shape" part when the shape is unknown.
    assert e.value.message.splitlines()[0] == \
        "You must feed a value for placeholder tensor 'x' with dtype int32"
