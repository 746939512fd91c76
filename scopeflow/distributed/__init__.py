"""Data-parallel training on MPI, in Horovod's style: ``import scopeflow.distributed as sfd``.

Launch the same script on N processes (``mpiexec -n 4 python train.py``, one host or
many); each process is a worker with a ``rank()`` in ``[0, size())``::

    sfd.init()
    opt = sfd.DistributedOptimizer(tf.train.AdamOptimizer(1e-4 * sfd.size()))
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    hooks = [sfd.BroadcastGlobalVariablesHook(0)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=sfd.on_root(logdir),
                                           hooks=hooks) as sess:
        ...

The optional extra ``scopeflow[mpi]`` installs ``mpi4py`` and MPICH's wheel (its
``mpiexec`` lands in the environment's ``bin/``). Without ``mpi4py``, a process that was
not started by ``mpiexec`` is a one-worker world, so the same script runs alone.
See docs/DISTRIBUTED.md.
"""

from __future__ import annotations

import numpy as np

from scopeflow.distributed import _world
from scopeflow.distributed.data import shard_data_set
from scopeflow.distributed.hooks import (
    BroadcastGlobalVariablesHook,
    broadcast_global_variables,
    is_root,
    on_root,
)
from scopeflow.distributed.ops import allgather, allreduce, broadcast, grouped_allreduce
from scopeflow.distributed.optimizer import DistributedOptimizer

__all__ = ["init", "is_initialized", "rank", "size", "local_rank", "local_size",
           "mpi_enabled", "barrier", "allreduce", "grouped_allreduce", "allgather",
           "broadcast", "broadcast_global_variables", "BroadcastGlobalVariablesHook",
           "DistributedOptimizer", "on_root", "is_root", "shard_data_set",
           "launched_by_mpi", "split_batch", "any_worker"]


def init(timeout=None, abort_on_failure=True) -> int:
    """Joins the job (``MPI_COMM_WORLD``); returns ``size()``. Call it before the others.

    Args:
      timeout: seconds a collective waits for the other workers before raising
        ``tf.errors.DeadlineExceededError`` (default ``$SCOPEFLOW_MPI_TIMEOUT`` or 600).
      abort_on_failure: with several workers, a Python exception that ends this process,
        or a timed-out collective, calls ``MPI_Abort`` after the traceback is printed, so
        ``mpiexec`` stops every worker at once.

    >>> import scopeflow.distributed as sfd
    >>> sfd.init() >= 1
    True
    """
    return _world.init_world(timeout, abort_on_failure).size


def is_initialized() -> bool:
    return _world._WORLD is not None


def rank() -> int:
    """This worker's index in ``[0, size())``; 0 writes checkpoints and summaries."""
    return _world.get_world("rank()").rank


def size() -> int:
    """The number of workers."""
    return _world.get_world("size()").size


def local_rank() -> int:
    """This worker's index among the workers of its host (to pick a device, a port)."""
    return _world.get_world("local_rank()").local_rank


def local_size() -> int:
    """The number of workers on this host."""
    return _world.get_world("local_size()").local_size


def mpi_enabled() -> bool:
    """Whether the workers talk through MPI (False: a one-process world without mpi4py)."""
    return _world.get_world("mpi_enabled()").comm is not None


def barrier() -> None:
    """Waits (at most the timeout) until every worker reaches this point."""
    _world.get_world("barrier()").barrier()


def launched_by_mpi() -> bool:
    """Whether ``mpiexec`` started this process as one of several (its environment says
    so), without joining the job: a script can call ``init()`` only then.

    >>> import scopeflow.distributed as sfd
    >>> isinstance(sfd.launched_by_mpi(), bool)
    True
    """
    return _world._launcher_size() > 1


def split_batch(*arrays):
    """This worker's contiguous part (along axis 0) of each array of a global batch, as
    ``numpy.array_split`` into ``size()`` parts makes them; one array in, one part out.

    >>> import numpy as np
    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> sfd.split_batch(np.arange(4)).tolist() if sfd.size() == 1 else [0, 1, 2, 3]
    [0, 1, 2, 3]
    """
    world = _world.get_world("split_batch()")
    parts = [np.array_split(a, world.size)[world.rank] for a in arrays]
    return parts[0] if len(parts) == 1 else tuple(parts)


def any_worker(flag) -> bool:
    """Whether ``flag`` is true on any worker (a collective every worker must call): to
    agree on stopping, so that no worker waits for one that left the loop.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> sfd.any_worker(False), sfd.any_worker(True) if sfd.size() == 1 else True
    (False, True)
    """
    world = _world.get_world("any_worker()")
    (total,) = world.allreduce([np.array([int(bool(flag))], np.int64)], False, 8,
                               "any_worker()")
    return bool(total[0])
