"""Op-table rows for the framework's own ops (constants, placeholders, identity, state)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

ROWS = [
    OpCase("Const", lambda tf: tf.constant([[1.0, 2.0]]), lambda: np.array([[1.0, 2.0]])),
    OpCase("Identity", lambda tf, x: tf.identity(x), lambda x: x, [rand(2, 3)]),
    OpCase("StopGradient", lambda tf, x: tf.stop_gradient(x), lambda x: x, [rand(4)]),
    OpCase("PlaceholderWithDefault",
           lambda tf, x: tf.placeholder_with_default(x, [None, 3]), lambda x: x, [rand(2, 3)]),
]

EXEMPT = {
    "Placeholder": "never runs a kernel: fed values replace it (tests/unit/runtime/test_session.py)",
    "NoOp": "no kernel or value; control-dependency behaviour in tests/unit/framework/test_graph.py",
    "VariableV2": "stateful; covered by tests/unit/state/test_variables.py",
    "Assign": "stateful; covered by tests/unit/state/test_variables.py",
    "AssignAdd": "stateful; covered by tests/unit/state/test_variables.py",
    "AssignSub": "stateful; covered by tests/unit/state/test_variables.py",
    "IsVariableInitialized": "stateful; covered by tests/unit/state/test_variables.py",
}

ROWS.append(OpCase("IdentityN", lambda tf, x, y: list(tf.identity_n([x, y])),
                   lambda x, y: [x, y], [rand(2, 3), rand(4)]))
