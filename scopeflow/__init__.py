"""scopeflow: TensorFlow 1's graph-and-session API on NumPy.

``import scopeflow as tf`` (or ``import scopeflow.compat.v1 as tf``) runs TF1 code.
"""

from __future__ import annotations

import importlib as _importlib
import sys as _sys
import warnings as _warnings

from scopeflow._version import __version__

from scopeflow.framework import dtypes, errors
from scopeflow.framework.errors import OpError  # TF1's one top-level error alias
from scopeflow.framework.dtypes import *  # noqa: F403
from scopeflow.framework.dtypes import DType, as_dtype
from scopeflow.framework.graph import *  # noqa: F403
from scopeflow.framework.modes import *  # noqa: F403
from scopeflow.api.describe import describe
from scopeflow.framework.random_seed import get_seed, set_random_seed
from scopeflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.state import init_ops, state_ops
from scopeflow.ops.random import random_ops
from scopeflow.ops.array_ops import *  # noqa: F403
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.control_flow_ops import group, no_op, tuple, with_dependencies  # noqa: A004
from scopeflow.ops.control_flow.cond_ops import case, cond
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.functional_ops import foldl, foldr, map_fn, scan
from scopeflow.ops.state.init_ops import *  # noqa: F403
from scopeflow.ops.math_ops import *  # noqa: F403
from scopeflow.ops.random.random_ops import *  # noqa: F403
from scopeflow.ops.random.random_gamma_ops import random_gamma, random_poisson
from scopeflow.ops.random.stateless_random_ops import random_index_shuffle
from scopeflow.ops.array.reverse_ops import reverse, reverse_sequence, reverse_v2
from scopeflow.ops.array.sort_ops import argsort, searchsorted, setdiff1d, sort, unique_with_counts
from scopeflow.ops.state.state_ops import assign, assign_add, assign_sub
from scopeflow.runtime.session import InteractiveSession, Session, get_default_session
from scopeflow.state.variables import *  # noqa: F403
from scopeflow.state.variable_scope import *  # noqa: F403
from scopeflow.state.partitioning import *  # noqa: F403
from scopeflow.state.partitioned_variables import *  # noqa: F403
from scopeflow.state import operators  # Tensor's and Variable's Python operators
from scopeflow.state.module import Module
from scopeflow.state.variable_creator import variable_creator_scope
from scopeflow.api import initializers, math, nn, random
from scopeflow.api import linalg
from scopeflow.ops.linalg import *  # noqa: F403
from scopeflow import layers
from scopeflow import losses
from scopeflow import feature_column
from scopeflow.api import image
from scopeflow.api import manip
from scopeflow.ops.image.image_transform_ops import random_crop
from scopeflow.ops.image.patch_ops import extract_image_patches, extract_volume_patches
from scopeflow import data
from scopeflow import metrics
from scopeflow.api import test as test
from scopeflow.platform import tf_logging as logging
from scopeflow import train
from scopeflow import summary
from scopeflow import saved_model  # noqa: E402
from scopeflow import profiler  # noqa: E402  (tf.profiler: tfprof model analysis)
from scopeflow.io.protos import TensorInfo  # noqa: E402
from scopeflow.summary import Event, HistogramProto, SessionLog, Summary
from scopeflow.io.protos import (
    ConfigProto, GPUOptions, GraphDef, GraphOptions, OptimizerOptions, RunMetadata, RunOptions)
from scopeflow.framework.graph_import import import_graph_def
from scopeflow.ops.math.clip_ops import clip_by_global_norm, clip_by_norm, global_norm
from scopeflow.ops.state.training_ops import scatter_add, scatter_sub, scatter_update
from scopeflow.ops.state.scatter_ops import (
    batch_scatter_update, scatter_div, scatter_max, scatter_min, scatter_mul, scatter_nd_add,
    scatter_nd_sub, scatter_nd_update)
from scopeflow.ops.array.stitch_ops import dynamic_partition, dynamic_stitch
from scopeflow.ops.nn.embedding_ops import sparse_to_dense
from scopeflow.ops.nn.fake_quant_ops import *  # noqa: F403  (tf.fake_quant_with_min_max_*)
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow import ragged
from scopeflow.ragged import RaggedTensor
from scopeflow.ops.math.segment_ops import (
    segment_sum, sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum, unique)
from scopeflow.ops.math.segment_ops import (
    segment_max, segment_mean, segment_min, segment_prod, unsorted_segment_max,
    unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)
from scopeflow.ops.math.scan_ops import cumprod, cumsum
from scopeflow.ops.math.statistics_ops import accumulate_n, count_nonzero
from scopeflow.ops.math.histogram_ops import histogram_fixed_width, histogram_fixed_width_bins
from scopeflow.ops.math.count_ops import bincount, confusion_matrix
from scopeflow.ops.math.gamma_ops import betainc, igamma, igammac
from scopeflow.ops.math.sequence_ops import is_non_decreasing, is_strictly_increasing, repeat
from scopeflow.ops.sparse.sparse_ops import sparse_placeholder, sparse_tensor_to_dense
from scopeflow.ops.sparse.sparse_math_ops import (
    convert_to_tensor_or_sparse_tensor, sparse_add, sparse_matmul, sparse_maximum, sparse_minimum,
    sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum, sparse_reduce_sum_sparse,
    sparse_softmax, sparse_tensor_dense_matmul)
from scopeflow.ops.sparse.sparse_layout_ops import (
    sparse_concat, sparse_fill_empty_rows, sparse_mask, sparse_merge, sparse_reset_shape,
    sparse_reshape, sparse_retain, sparse_slice, sparse_split, sparse_to_indicator,
    sparse_transpose)
from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder
from scopeflow.ops.sparse.sparse_serialize_ops import (
    deserialize_many_sparse, serialize_many_sparse, serialize_sparse)
from scopeflow.ops.sparse.edit_distance_ops import edit_distance
from scopeflow.api import sparse
from scopeflow.api import audio, bitwise, sets, signal, spectral, strings
from scopeflow.api import lookup
from scopeflow.ops.lookup.lookup_ops import initialize_all_tables, tables_initializer
from scopeflow.api import config, nest, resource_loader, sysconfig, user_ops, version
from scopeflow.api import graph_util
from scopeflow.api.sysconfig import CXX11_ABI_FLAG, CXX_VERSION, MONOLITHIC_BUILD
from scopeflow.api.version import (
    COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION)
from scopeflow.ops.io.io_ops import string_join
from scopeflow.ops.strings.hash_ops import (
    fingerprint, string_to_hash_bucket_fast, string_to_hash_bucket_strong)
from scopeflow.ops.strings.hash_ops import string_to_hash_bucket_v1 as string_to_hash_bucket
from scopeflow.ops.strings.join_split_ops import reduce_join_v1 as reduce_join
from scopeflow.ops.strings.join_split_ops import string_split
from scopeflow.ops.strings.string_ops import (
    as_string, decode_base64, encode_base64, regex_replace, substr)
from scopeflow.ops.strings.string_ops import string_strip

dtypes.as_string = as_string  # tf.dtypes.as_string: TF exports AsString there too
dtypes.cast, dtypes.complex, dtypes.saturate_cast = cast, complex, saturate_cast  # noqa: F405
from scopeflow.ops.array.bitcast_ops import bitcast, check_pinned, guarantee_const  # noqa: E402
from scopeflow.ops.array.indexing_ops import batch_gather  # noqa: E402
from scopeflow.ops.logging.timestamp_ops import timestamp  # noqa: E402
from scopeflow.ops.control_flow.cond_ops import switch_case  # noqa: E402
from scopeflow.framework.device_spec import DeviceSpec  # noqa: E402
from scopeflow.io.protos import (  # noqa: E402
    AttrValue, LogMessage, MetaGraphDef, NameAttrList, SummaryMetadata)
from scopeflow.ops.signal.complex_ops import (  # noqa: A004 - TF's names
    angle, complex, imag, real, to_complex64, to_complex128)
from scopeflow.ops.signal.fft_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d
from scopeflow.ops.signal.fftnd_ops import (
    raw_fftnd as fftnd, raw_ifftnd as ifftnd, raw_irfftnd as irfftnd, raw_rfftnd as rfftnd)
from scopeflow.platform import app, flags, gfile, python_io
from scopeflow.api import io as _io_api  # tf.io's names, set on scopeflow.io
from scopeflow.ops.io.io_ops import read_file, write_file
from scopeflow.ops.io.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature, decode_csv,
    decode_raw, parse_example, parse_single_example, parse_single_sequence_example,
    string_to_number)
from scopeflow.api import debugging
from scopeflow.ops.logging.check_ops import *  # noqa: F403
from scopeflow.ops.logging.check_ops import add_check_numerics_ops, verify_tensor_all_finite
from scopeflow.ops.logging.logging_ops import Assert, Print
from scopeflow.ops.script.py_func_ops import numpy_function, py_func, py_function
from scopeflow.ops.io.serialization_ops import (
    decode_compressed, decode_json_example, parse_tensor, serialize_tensor)
from scopeflow.ops.io.reader_ops import matching_files
from scopeflow.ops.nn.conv_nd_ops import (  # noqa: E402
    conv, conv2d_backprop_filter_v2, conv2d_backprop_input_v2)
from scopeflow.ops.math.approx_topk_ops import approx_top_k  # noqa: E402
from scopeflow.ops.array.space_paddings_ops import required_space_to_batch_paddings  # noqa: E402
from scopeflow.ops.array.ragged_fill_ops import (  # noqa: E402
    ragged_fill_empty_rows, ragged_fill_empty_rows_grad)
from scopeflow.framework.tensor_like import (
    convert_to_tensor_or_indexed_slices, is_symbolic_tensor, is_tensor)
from scopeflow.framework.tensor_util import get_static_value
from scopeflow.framework.tensor_shape import dimension_at_index
from scopeflow.io.tensor_proto import make_ndarray, make_tensor_proto
from scopeflow.ops.array.shape_ops import broadcast_static_shape
from scopeflow.ops.math.clip_ops import clip_by_average_norm
from scopeflow.platform.tf_logging import get_logger
from scopeflow.autodiff.gradients import no_gradient as NoGradient  # noqa: N812 - TF's name
from scopeflow.ops.data_flow.queue_ops import (
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue, count_up_to)
from scopeflow.ops.data_flow.accumulator_ops import (
    ConditionalAccumulator, ConditionalAccumulatorBase, SparseConditionalAccumulator)
from scopeflow.ops.data_flow.critical_section_ops import CriticalSection
from scopeflow.api import queue
from scopeflow.ops.io.reader_ops import (
    FixedLengthRecordReader, IdentityReader, ReaderBase, TextLineReader, TFRecordReader,
    WholeFileReader)
from scopeflow.ops.logging.logging_ops import print_v2 as print  # noqa: A004 - TF's name
from scopeflow.autodiff.gradients import (
    AggregationMethod, IndexedSlices, IndexedSlicesValue, NotDifferentiable, RegisterGradient,
    UnconnectedGradients, custom_gradient, explain_gradient, gradients, hessians, no_gradient)
from scopeflow.autodiff.tape import GradientTape, grad_pass_through, recompute_grad  # noqa: E402
from scopeflow.ops.control_flow.function_ops import function, wrap_function  # noqa: E402
from scopeflow.ops.control_flow.vectorized_map import vectorized_map  # noqa: E402
from scopeflow.ops.control_flow.batch_ops import nondifferentiable_batch_function  # noqa: E402
from scopeflow.ops.data_flow.session_handle_ops import (  # noqa: E402
    delete_session_tensor, get_session_handle, get_session_tensor)
from scopeflow.framework.type_spec import (
    IndexedSlicesSpec, NoneTensorSpec, SparseTensorSpec, TensorSpec, TypeSpec,
    type_spec_from_value)
from scopeflow.ragged.ragged_tensor_spec import RaggedTensorSpec
from scopeflow.ops.control_flow.tensor_array_spec import TensorArraySpec
from scopeflow.data.optional_ops import OptionalSpec

bool = dtypes.bool_  # noqa: A001 - TF's name for the dtype
newaxis = None

# NumPy's floating-point warnings (overflow, 0/0) are TF's silent inf/nan: hide them, but
# only for warnings raised from scopeflow's kernels and plans.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"scopeflow(\..*)?$")

# The MPI collectives' op types (scopeflow.distributed) are registered with the others, so
# importing the package later leaves the op registry as `import scopeflow` made it; mpi4py
# itself is imported only when a collective first runs.
from scopeflow.distributed import ops as _distributed_ops  # noqa: E402, F401

# An uncaught exception's traceback ends at the user's line (scopeflow's frames left out;
# tf.debugging.disable_traceback_filtering() shows them).
from scopeflow.platform import traceback_filtering as _traceback_filtering  # noqa: E402

_traceback_filtering.install()

# ``scopeflow.compat.v1`` is this module (TF1 code imports ``tensorflow.compat.v1 as tf``).
from scopeflow import compat  # noqa: E402

compat.v1 = _sys.modules[__name__ + ".compat.v1"] = _sys.modules[__name__]
# In a notebook, what `scopeflow run prog.py` does: `import tensorflow` gives scopeflow.
from scopeflow.compat.tensorflow_alias import install_as_tensorflow  # noqa: E402

# The namespace modules live in scopeflow/api/ and scopeflow/platform/; ``import scopeflow.nn``
# and ``from scopeflow.gfile import GFile`` reach them under their TF names too.
for _name in ("nn", "math", "linalg", "random", "sparse", "image", "initializers", "debugging",
              "queue", "gfile", "flags", "app", "python_io", "manip", "strings", "signal",
              "spectral", "sets", "bitwise", "audio", "nest", "config", "version", "sysconfig",
              "resource_loader", "graph_util", "lookup", "user_ops"):
    _sys.modules.setdefault(f"{__name__}.{_name}", globals()[_name])

# A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py); the
# list of TF1's names is imported only when a lookup misses.
from scopeflow.framework import api_fallback as _api  # noqa: E402

_api.install_fallbacks()


# Heavy optional namespaces load on first use (``tf.keras``, ``from scopeflow import keras``,
# ``import scopeflow.keras``), so ``import scopeflow`` does not pay for them; importing one
# adds no op types to the registry.
_LAZY_SUBMODULES = ("contrib", "distributions", "estimator", "keras")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")  # also sets it on this module
    raise _api.missing_attribute(__name__, name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
