"""scopeflow: TensorFlow 1's graph-and-session API on NumPy.

``import scopeflow as tf`` (or ``import scopeflow.compat.v1 as tf``) runs TF1 code.
"""

from __future__ import annotations

import sys as _sys
import warnings as _warnings

from scopeflow._version import __version__

from scopeflow.framework import dtypes, errors
from scopeflow.framework.errors import OpError  # TF1's one top-level error alias
from scopeflow.framework.dtypes import *  # noqa: F403
from scopeflow.framework.dtypes import DType, as_dtype
from scopeflow.framework.graph import *  # noqa: F403
from scopeflow.framework.modes import *  # noqa: F403
from scopeflow.framework.opdef import describe
from scopeflow.framework.random_seed import get_seed, set_random_seed
from scopeflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from scopeflow.ops import (
    array_ops, constant_op, control_flow_ops, init_ops, math_ops, random_ops, state_ops)
from scopeflow.ops.array_ops import *  # noqa: F403
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow_ops import group, no_op, tuple, with_dependencies  # noqa: A004
from scopeflow.ops.cond_ops import case, cond
from scopeflow.ops.while_ops import while_loop
from scopeflow.ops.tensor_array_ops import TensorArray
from scopeflow.ops.functional_ops import foldl, foldr, map_fn, scan
from scopeflow.ops.init_ops import *  # noqa: F403
from scopeflow.ops.math_ops import *  # noqa: F403
from scopeflow.ops.random_ops import *  # noqa: F403
from scopeflow.ops.reverse_ops import reverse, reverse_sequence, reverse_v2
from scopeflow.ops.state_ops import assign, assign_add, assign_sub
from scopeflow.runtime.session import InteractiveSession, Session, get_default_session
from scopeflow.variables import *  # noqa: F403
from scopeflow.variable_scope import *  # noqa: F403
from scopeflow.partitioning import *  # noqa: F403
from scopeflow.partitioned_variables import *  # noqa: F403
from scopeflow import operators  # Tensor's and Variable's Python operators
from scopeflow import initializers, layers, losses, math, nn, random
from scopeflow import image
from scopeflow.ops.image_transform_ops import random_crop
from scopeflow import data
from scopeflow import contrib
from scopeflow import metrics
from scopeflow import test_util as test
from scopeflow import tf_logging as logging
from scopeflow import train
from scopeflow import summary
from scopeflow.summary import Event, HistogramProto, SessionLog, Summary
from scopeflow.io.protos import (
    ConfigProto, GPUOptions, GraphDef, GraphOptions, OptimizerOptions, RunMetadata, RunOptions)
from scopeflow.framework.graph_import import import_graph_def
from scopeflow.ops.clip_ops import clip_by_global_norm, clip_by_norm, global_norm
from scopeflow.ops.training_ops import scatter_add, scatter_sub, scatter_update
from scopeflow.ops.embedding_ops import dynamic_partition, dynamic_stitch, sparse_to_dense
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.ops.segment_ops import (
    segment_sum, sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum, unique)
from scopeflow.ops.sparse_ops import sparse_placeholder, sparse_tensor_to_dense
from scopeflow import sparse
from scopeflow import app, flags, gfile, python_io
from scopeflow import io_api as _io_api  # tf.io's names, set on scopeflow.io
from scopeflow.ops.io_ops import read_file, write_file
from scopeflow.ops.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature, decode_csv,
    decode_raw, parse_example, parse_single_example, parse_single_sequence_example,
    string_to_number)
from scopeflow import debugging
from scopeflow.ops.check_ops import *  # noqa: F403
from scopeflow.ops.check_ops import add_check_numerics_ops, verify_tensor_all_finite
from scopeflow.ops.logging_ops import Assert, Print
from scopeflow.ops.queue_ops import (
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue, count_up_to)
from scopeflow import queue
from scopeflow.ops.reader_ops import (
    FixedLengthRecordReader, IdentityReader, ReaderBase, TextLineReader, TFRecordReader,
    WholeFileReader)
from scopeflow.ops.logging_ops import print_v2 as print  # noqa: A004 - TF's name
from scopeflow.gradients import (
    AggregationMethod, IndexedSlices, IndexedSlicesValue, NotDifferentiable, RegisterGradient,
    UnconnectedGradients, custom_gradient, explain_gradient, gradients, hessians, no_gradient)

bool = dtypes.bool_  # noqa: A001 - TF's name for the dtype
newaxis = None

# NumPy's floating-point warnings (overflow, 0/0) are TF's silent inf/nan: hide them, but
# only for warnings raised from scopeflow's kernels and plans.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"scopeflow(\..*)?$")

# The MPI collectives' op types (scopeflow.distributed) are registered with the others, so
# importing the package later leaves the op registry as `import scopeflow` made it; mpi4py
# itself is imported only when a collective first runs.
from scopeflow.distributed import ops as _distributed_ops  # noqa: E402, F401

# ``scopeflow.compat.v1`` is this module (TF1 code imports ``tensorflow.compat.v1 as tf``).
from scopeflow import compat  # noqa: E402

compat.v1 = _sys.modules[__name__ + ".compat.v1"] = _sys.modules[__name__]

# A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py); the
# list of TF1's names is imported only when a lookup misses.
from scopeflow import _api  # noqa: E402

_api.install_fallbacks()


def __getattr__(name):
    raise _api.missing_attribute(__name__, name)
