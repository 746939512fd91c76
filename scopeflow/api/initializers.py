"""``tf.initializers``: TF1's namespace of initializer classes and variable initializers.

A namespace module: the initializers live in ``scopeflow/ops/state/init_ops.py``, the variable
initializers (``global_variables`` ...) in ``scopeflow/state/variables.py``, a layer above the ops.
"""

from scopeflow.ops.lookup.lookup_ops import tables_initializer
from scopeflow.ops.state import init_ops as _init_ops
from scopeflow.ops.state.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform
from scopeflow.state import variables as _variables

__all__ = ["zeros", "ones", "constant", "random_uniform", "random_normal", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "global_variables", "local_variables", "variables",
           "orthogonal", "uniform_unit_scaling", "tables_initializer", "identity"]

zeros = _init_ops.Zeros
ones = _init_ops.Ones
constant = _init_ops.Constant
random_uniform = _init_ops.RandomUniform
random_normal = _init_ops.RandomNormal
truncated_normal = _init_ops.TruncatedNormal
variance_scaling = _init_ops.VarianceScaling
glorot_uniform = _init_ops.GlorotUniform
glorot_normal = _init_ops.GlorotNormal
orthogonal = _init_ops.Orthogonal
uniform_unit_scaling = _init_ops.UniformUnitScaling
identity = _init_ops.Identity
global_variables = _variables.global_variables_initializer
local_variables = _variables.local_variables_initializer
variables = _variables.variables_initializer
