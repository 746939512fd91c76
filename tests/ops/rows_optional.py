"""Op-table rows for tf.data.experimental.Optional's ops and IteratorGetNextAsOptional;
their names, structures and errors against TF are in tests/unit/framework/test_type_spec.py."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

_X = rand(4, 3)
_Y = rand(2)


def _round_trip(tf, x):
    return tf.data.experimental.Optional.from_value(x).get_value() * 2.0


def _pair(tf, x, y):
    return list(tf.data.experimental.Optional.from_value((x, {"y": y})).get_value()[1:2][0]
                .values()) + [tf.data.experimental.Optional.from_value((x, {"y": y}))
                              .get_value()[0]]


def _has(tf, x):
    return tf.data.experimental.Optional.from_value(x).has_value()


def _empty_has(tf, x):
    spec = tf.TensorSpec(x.shape, x.dtype)
    return tf.logical_not(tf.data.experimental.Optional.empty(spec).has_value())


def _next_as_optional(tf, x):
    it = tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(x))
    return tf.data.experimental.get_next_as_optional(it).get_value()


ROWS = [
    OpCase("OptionalFromValue", _round_trip, lambda x: x * 2.0, [_X]),
    OpCase("OptionalGetValue", _pair, lambda x, y: [y, x], [_X, _Y]),
    OpCase("OptionalHasValue", _has, lambda x: np.asarray(True), [_X]),
    OpCase("OptionalNone", _empty_has, lambda x: np.asarray(True), [_X]),
    # a constant: TF's one-shot iterator cannot capture a placeholder
    OpCase("IteratorGetNextAsOptional", _next_as_optional, lambda x: x[0], [_X],
           as_constants=True),
]
