"""``tf.gradients``: the reverse walk over the graph that calls each op's gradient rule.

Importing the package registers the rules that need the walk itself, those of the
control-flow ops (``control_flow_grad.py``), so they are in place wherever ``tf.gradients``
can run.
"""

from scopeflow.autodiff import control_flow_grad  # noqa: F401 - registers the rules
