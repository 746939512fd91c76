"""Horovod's TF1 API on :mod:`scopeflow.distributed`: ``import horovod.tensorflow as hvd``.

Under ``scopeflow run`` (and after ``scopeflow.compat.tensorflow_alias.install_as_tensorflow()``
where no real Horovod is installed) ``horovod.tensorflow`` is this module, so a Horovod TF1
script runs unmodified, on MPI (``mpiexec -n 4 scopeflow run train.py``) or alone::

    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(1e-3 * hvd.size()))
    hooks = [hvd.BroadcastGlobalVariablesHook(0)]

What maps cleanly is here: ``init``, ``shutdown``, ``is_initialized``, ``rank``, ``size``,
``local_rank``, ``local_size``, ``cross_rank``, ``cross_size``, ``is_homogeneous``, the
``*_built``/``*_enabled`` probes, ``allreduce`` and ``grouped_allreduce`` (ops ``Average``
and ``Sum``, pre- and post-scale factors), ``allgather``, ``broadcast``,
``broadcast_variables``, ``broadcast_global_variables``, ``BroadcastGlobalVariablesHook``,
``DistributedOptimizer``, ``barrier``, ``Compression.none`` and the ``*_op`` tensors. Any
other Horovod name (``Adasum``, ``alltoall``, ``reducescatter``, process sets, elastic
training, ``DistributedGradientTape``...) raises ``NotImplementedError`` naming
``horovod.tensorflow.X``; so do arguments this mapping cannot honour (fp16 compression,
``backward_passes_per_step`` other than 1). Device arguments are accepted and ignored:
scopeflow has one device, the CPU.
"""

from __future__ import annotations

import enum

import scopeflow.distributed as _sfd
from scopeflow.distributed import hooks as _hooks
from scopeflow.distributed import ops as _ops
from scopeflow.distributed import optimizer as _optimizer
from scopeflow.framework.api_fallback import APINotImplementedError
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.ops import math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.state import state_ops

__all__ = ["init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size",
           "cross_rank", "cross_size", "is_homogeneous", "mpi_threads_supported",
           "mpi_enabled", "mpi_built", "gloo_enabled", "gloo_built", "nccl_built",
           "ddl_built", "ccl_built", "cuda_built", "rocm_built", "ReduceOp", "Average", "Sum",
           "Adasum", "Min", "Max", "Product", "Compression", "allreduce",
           "grouped_allreduce", "allgather", "broadcast", "broadcast_variables",
           "broadcast_global_variables", "BroadcastGlobalVariablesHook",
           "DistributedOptimizer", "barrier", "size_op", "rank_op", "local_size_op",
           "local_rank_op", "HorovodNotImplementedError"]


class HorovodNotImplementedError(APINotImplementedError):
    """A Horovod name or argument this mapping onto scopeflow.distributed does not provide
    (an ``AttributeError`` too, so ``hasattr(hvd, name)`` is ``False``)."""


def _unsupported(what: str, why: str = "") -> HorovodNotImplementedError:
    return HorovodNotImplementedError(
        f"horovod.tensorflow.{what} is not provided by scopeflow's Horovod mapping "
        f"(scopeflow.distributed, docs/DISTRIBUTED.md)" + (f": {why}" if why else ""))


# ── the job ──────────────────────────────────────────────────────────────────────────────
def init(comm=None, process_sets=None) -> None:
    """Joins the job (MPI_COMM_WORLD), as ``hvd.init()``."""
    if comm is not None:
        raise _unsupported("init(comm=...)", "scopeflow's workers are MPI_COMM_WORLD")
    if process_sets is not None:
        raise _unsupported("init(process_sets=...)", "there are no process sets")
    _sfd.init()


def shutdown() -> None:
    """Nothing to do: MPI is finalized when the process exits."""


is_initialized = _sfd.is_initialized
rank = _sfd.rank
size = _sfd.size
local_rank = _sfd.local_rank
local_size = _sfd.local_size
mpi_enabled = _sfd.mpi_enabled


def barrier(process_set=None) -> None:
    """Waits until every worker gets here."""
    _no_process_set(process_set, "barrier")
    _sfd.barrier()


def cross_size() -> int:
    """The number of hosts (Horovod's cross size; hosts are assumed alike)."""
    return size() // local_size()


def cross_rank() -> int:
    """This host's index among the hosts (with as many workers on each host)."""
    return rank() // local_size()


def is_homogeneous() -> bool:
    return True


def mpi_built() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi_threads_supported() -> bool:
    return False


def _false() -> bool:
    return False


gloo_enabled = gloo_built = nccl_built = ddl_built = ccl_built = cuda_built = rocm_built = _false


# ── reductions ───────────────────────────────────────────────────────────────────────────
class ReduceOp(enum.Enum):
    AVERAGE = 0
    SUM = 1
    ADASUM = 2
    MIN = 3
    MAX = 4
    PRODUCT = 5


Average, Sum, Adasum = ReduceOp.AVERAGE, ReduceOp.SUM, ReduceOp.ADASUM
Min, Max, Product = ReduceOp.MIN, ReduceOp.MAX, ReduceOp.PRODUCT


class _NoneCompressor:
    """No compression (``hvd.Compression.none``)."""

    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class _FP16Compressor:
    """Horovod's fp16 compression: not provided (the collectives send the gradients'
    own dtype)."""


class Compression:
    none = _NoneCompressor
    fp16 = _FP16Compressor


def _average(average, op, what) -> bool:
    """Horovod's ``average=``/``op=`` pair as scopeflow's ``average`` flag."""
    if average is not None and op is not None:
        raise ValueError(f"{what}: the op parameter supersedes average; give one of them")
    if op is None:
        op = Average if average is None or average else Sum
    if op == Average:
        return True
    if op == Sum:
        return False
    raise _unsupported(f"{what}(op={op})", "only Average and Sum reduce over scopeflow's "
                       "workers")


def _no_process_set(process_set, what):
    if process_set is not None:
        raise _unsupported(f"{what}(process_set=...)", "there are no process sets")


def _compression(compression, what):
    if compression not in (None, Compression.none):
        raise _unsupported(f"{what}(compression={getattr(compression, '__name__', compression)})",
                           "the collectives send the tensors' own dtype")


def _scaled(tensor, factor):
    if factor == 1.0:
        return tensor
    return math_ops.multiply(tensor, math_ops.cast(factor, tensor.dtype))


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="",
                      compression=Compression.none, op=None, prescale_factor=1.0,
                      postscale_factor=1.0, process_set=None, name=None,
                      ignore_name_scope=False):
    """The mean (or sum) of each dense tensor over the workers, with one fused op."""
    del device_dense, device_sparse, ignore_name_scope
    avg = _average(average, op, "grouped_allreduce")
    _compression(compression, "grouped_allreduce")
    _no_process_set(process_set, "grouped_allreduce")
    tensors = [_scaled(convert_to_tensor(t), prescale_factor) for t in tensors]
    out = _ops.grouped_allreduce(tensors, average=avg, name=name)
    return [_scaled(t, postscale_factor) for t in out]


def allreduce(tensor, average=None, device_dense="", device_sparse="",
              compression=Compression.none, op=None, prescale_factor=1.0,
              postscale_factor=1.0, name=None, process_set=None, ignore_name_scope=False):
    """The mean (``op=hvd.Average``, the default) or sum (``op=hvd.Sum``) of ``tensor`` over
    the workers; an ``IndexedSlices`` is gathered instead, as Horovod does."""
    del device_dense, device_sparse, ignore_name_scope
    avg = _average(average, op, "allreduce")
    _compression(compression, "allreduce")
    _no_process_set(process_set, "allreduce")
    if prescale_factor != 1.0 or postscale_factor != 1.0:
        tensor = _scaled(convert_to_tensor(tensor), prescale_factor)
        return _scaled(_ops.allreduce(tensor, average=avg, name=name), postscale_factor)
    return _ops.allreduce(tensor, average=avg, name=name)


def allgather(tensor, name=None, ignore_name_scope=False, process_set=None):
    """The workers' tensors concatenated along the first dimension (which may differ)."""
    del ignore_name_scope
    _no_process_set(process_set, "allgather")
    return _ops.allgather(tensor, name=name)


def broadcast(tensor, root_rank, name=None, ignore_name_scope=False, process_set=None):
    """``tensor`` as it is on worker ``root_rank``."""
    del ignore_name_scope
    _no_process_set(process_set, "broadcast")
    return _ops.broadcast(tensor, root_rank, name=name)


def broadcast_variables(variables, root_rank, process_set=None, inplace=False):
    """An op that gives each of ``variables`` its value on worker ``root_rank``."""
    del inplace
    _no_process_set(process_set, "broadcast_variables")
    with name_scope("broadcast_variables") as scope:
        return control_flow_ops.group(
            *[state_ops.assign(v, _ops.broadcast(v, root_rank)).op for v in variables],
            name=scope)


def broadcast_global_variables(root_rank):
    """An op that gives every global variable its value on worker ``root_rank``."""
    return _hooks.broadcast_global_variables(root_rank)


class BroadcastGlobalVariablesHook(_hooks.BroadcastGlobalVariablesHook):
    """Broadcasts worker ``root_rank``'s global variables once the session exists."""

    def __init__(self, root_rank, device="", process_set=None):
        _no_process_set(process_set, "BroadcastGlobalVariablesHook")
        super().__init__(root_rank, device)


def DistributedOptimizer(optimizer, name=None, use_locking=False, device_dense="",  # noqa: N802
                         device_sparse="", compression=Compression.none,
                         sparse_as_dense=False, backward_passes_per_step=1, op=Average,
                         gradient_predivide_factor=1.0, average_aggregated_gradients=False,
                         num_groups=0, groups=None, process_set=None,
                         scale_local_gradients=True):
    """``optimizer`` with its gradients averaged (``op=hvd.Sum``: summed) over the workers:
    :class:`scopeflow.distributed.DistributedOptimizer` (tensor fusion; sparse gradients
    gathered unless ``sparse_as_dense``). ``num_groups``/``groups`` only regroup Horovod's
    fused messages and are ignored."""
    del device_dense, device_sparse, num_groups, groups, average_aggregated_gradients
    del scale_local_gradients
    _compression(compression, "DistributedOptimizer")
    _no_process_set(process_set, "DistributedOptimizer")
    if backward_passes_per_step != 1:
        raise _unsupported("DistributedOptimizer(backward_passes_per_step="
                           f"{backward_passes_per_step})", "gradients are reduced every step")
    if gradient_predivide_factor != 1.0:
        raise _unsupported("DistributedOptimizer(gradient_predivide_factor="
                           f"{gradient_predivide_factor})")
    return _optimizer.DistributedOptimizer(
        optimizer, name=name, use_locking=use_locking, average=_average(None, op,
                                                                        "DistributedOptimizer"),
        sparse_as_dense=sparse_as_dense)


# ── the job as tensors ───────────────────────────────────────────────────────────────────
def size_op(process_set_id=0, name=None):
    return constant(size(), name=name or "size")


def local_size_op(name=None):
    return constant(local_size(), name=name or "local_size")


def rank_op(name=None):
    return constant(rank(), name=name or "rank")


def local_rank_op(name=None):
    return constant(local_rank(), name=name or "local_rank")


# Horovod's TF names with no counterpart here: each raises NotImplementedError naming it.
_HOROVOD_ONLY = {
    "alltoall": "", "reducescatter": "", "grouped_reducescatter": "", "grouped_allgather": "",
    "join": "", "broadcast_": "in-place broadcast; use broadcast_variables",
    "broadcast_object": "", "broadcast_object_fn": "", "allgather_object": "",
    "DistributedGradientTape": "TF2's GradientTape; scopeflow is TF1's graph API",
    "PartialDistributedGradientTape": "TF2's GradientTape; scopeflow is TF1's graph API",
    "PartialDistributedOptimizer": "", "SyncBatchNormalization": "",
    "ProcessSet": "there are no process sets", "global_process_set": "there are no process sets",
    "add_process_set": "there are no process sets",
    "remove_process_set": "there are no process sets",
    "process_set_included_op": "there are no process sets",
    "elastic": "elastic training (workers joining and leaving) needs Horovod's runner",
    "keras": "Keras is not part of scopeflow", "start_timeline": "", "stop_timeline": "",
}


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    why = _HOROVOD_ONLY.get(name)
    raise _unsupported(name, why or ("" if why is not None else
                                     "not a name of Horovod's TF API this mapping knows"))
