"""The process group: MPI's ``COMM_WORLD`` through ``mpi4py``, or a one-process world.

Every collective here is non-blocking MPI (``Iallreduce``, ``Iallgatherv``, ``Ibcast``)
polled against a deadline, so a worker that died or stopped calling collectives makes the
others raise ``DeadlineExceededError`` instead of waiting forever. MPICH's ``mpiexec``
already ends the whole job when a process *exits* with an error; the timeout covers what
it cannot see: a process that hangs, or one that finished (``MPI_Finalize``) while the
others still wait on it.
"""

from __future__ import annotations

import atexit
import os
import sys
import time

import numpy as np

from scopeflow.framework import errors

__all__ = ["World", "get_world", "init_world", "DEFAULT_TIMEOUT_S", "FUSION_THRESHOLD"]

# NOTE: generous, because the first collective of a run waits for the slowest worker to
# build its graph and restore its checkpoint; SCOPEFLOW_MPI_TIMEOUT or init(timeout=) set it.
DEFAULT_TIMEOUT_S = 600.0
# Horovod's HOROVOD_FUSION_THRESHOLD default: dense gradients are packed into buffers of
# up to this many bytes, one Allreduce each.
FUSION_THRESHOLD = 64 * 1024 * 1024

# Environment variables the common launchers set: a process started by `mpiexec -n 4`
# without mpi4py must fail, not silently train alone as 4 copies of rank 0.
_LAUNCHER_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")


class World:
    """Rank, size and the collectives of one process group (``comm=None``: one process)."""

    def __init__(self, comm=None, timeout=DEFAULT_TIMEOUT_S):
        self.comm = comm
        self.timeout = float(timeout)
        self.failed = False  # a collective timed out: abort the job at exit (see _at_exit)
        if comm is None:
            self.rank, self.size, self.local_rank, self.local_size = 0, 1, 0, 1
            self.local_comm = None
            return
        from mpi4py import MPI
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        # The processes of this host: MPI-3's shared-memory split, portable across MPIs.
        self.local_comm = comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank = self.local_comm.Get_rank()
        self.local_size = self.local_comm.Get_size()

    # -- waiting with a deadline ---------------------------------------------------------
    def _wait(self, request, what):
        if request.Test():
            return
        deadline = time.monotonic() + self.timeout
        polls = 0
        while not request.Test():
            polls += 1
            if polls > 200:  # spin briefly (a step's collectives are usually quick), then nap
                if time.monotonic() > deadline:
                    self.failed = True
                    raise errors.DeadlineExceededError(
                        None, None,
                        f"{what}: rank {self.rank} of {self.size} waited {self.timeout:g} s "
                        f"for the other workers; one of them died, hangs, or runs a "
                        f"different sequence of collectives (the same fetches on every "
                        f"rank). Set scopeflow.distributed.init(timeout=...) or "
                        f"SCOPEFLOW_MPI_TIMEOUT to wait longer.")
                time.sleep(0.0002 if polls < 5000 else 0.002)

    # -- collectives on NumPy arrays -----------------------------------------------------
    def allreduce(self, arrays, average, threshold, what):
        """Sums (or averages) each array over the workers: new arrays, in order.

        Arrays of one dtype are packed, flattened, into buffers of up to ``threshold``
        bytes (tensor fusion), so a step makes a few large messages, not one per gradient.
        """
        out = [None] * len(arrays)
        groups: dict = {}
        for i, a in enumerate(arrays):
            groups.setdefault(np.asarray(a).dtype, []).append(i)
        for dtype, indices in groups.items():
            for chunk in _chunks(indices, arrays, threshold):
                self._allreduce_fused([arrays[i] for i in chunk], chunk, out, dtype,
                                      average, what)
        return out

    def _allreduce_fused(self, arrays, indices, out, dtype, average, what):
        # float16/bfloat16 have no portable MPI datatype: reduce them in float32
        work = np.dtype(np.float32) if dtype.itemsize == 2 and dtype.kind in "fV" else dtype
        sizes = [int(np.size(a)) for a in arrays]
        buf = np.empty(sum(sizes), dtype=work)
        pos = 0
        for a, n in zip(arrays, sizes):
            buf[pos:pos + n] = np.ravel(a)
            pos += n
        if self.comm is not None and self.size > 1:
            from mpi4py import MPI
            self._wait(self.comm.Iallreduce(MPI.IN_PLACE, buf, op=MPI.SUM), what)
        if average and self.size > 1:
            # (the ops average floats only; integers here are floor-divided)
            divide = np.floor_divide if work.kind in "iu" else np.divide
            divide(buf, work.type(self.size), out=buf)
        if work != dtype:
            buf = buf.astype(dtype)
        pos = 0
        for i, a, n in zip(indices, arrays, sizes):
            out[i] = buf[pos:pos + n].reshape(np.shape(a))
            pos += n

    def allgather(self, array, what):
        """Concatenates every worker's array along axis 0 (their first dims may differ)."""
        array = np.ascontiguousarray(array)
        if self.comm is None or self.size == 1:
            return array.copy()
        from mpi4py import MPI
        row = int(np.prod(array.shape[1:], dtype=np.int64))
        counts = np.zeros(self.size, dtype=np.int64)
        self._wait(self.comm.Iallgather(np.array([array.shape[0]], np.int64), counts),
                   what)
        out = np.empty((int(counts.sum()),) + array.shape[1:], dtype=array.dtype)
        nbytes = counts * row * array.dtype.itemsize
        displs = np.concatenate([[0], np.cumsum(nbytes)[:-1]])
        send = array.reshape(-1).view(np.uint8)
        recv = out.reshape(-1).view(np.uint8)
        self._wait(self.comm.Iallgatherv(
            [send, MPI.BYTE], [recv, (nbytes.tolist(), displs.tolist()), MPI.BYTE]), what)
        return out

    def broadcast(self, array, root, what):
        """The root worker's array, on every worker (the shapes must agree)."""
        array = np.array(array, copy=True, order="C")
        if self.comm is None or self.size == 1:
            return array
        from mpi4py import MPI
        # The root's shape first: a worker whose variable differs fails clearly, not with
        # a truncated message.
        header = np.full(34, -1, np.int64)
        header[0] = array.ndim
        header[1:1 + array.ndim] = array.shape
        self._wait(self.comm.Ibcast(header, root=root), what)
        root_shape = tuple(int(d) for d in header[1:1 + int(header[0])])
        if root_shape != array.shape:
            raise errors.InvalidArgumentError(
                None, None, f"{what}: rank {self.rank} has shape {list(array.shape)} but "
                f"root rank {root} has {list(root_shape)}")
        if array.size:
            self._wait(self.comm.Ibcast([array.reshape(-1).view(np.uint8), MPI.BYTE],
                                        root=root), what)
        return array

    def barrier(self, what="barrier"):
        if self.comm is not None and self.size > 1:
            self._wait(self.comm.Ibarrier(), what)


def _chunks(indices, arrays, threshold):
    chunk, nbytes = [], 0
    for i in indices:
        n = np.asarray(arrays[i]).nbytes
        if chunk and nbytes + n > threshold:
            yield chunk
            chunk, nbytes = [], 0
        chunk.append(i)
        nbytes += n
    if chunk:
        yield chunk


_WORLD: World | None = None


def get_world(what="scopeflow.distributed") -> World:
    if _WORLD is None:
        raise errors.FailedPreconditionError(
            None, None, f"{what}: scopeflow.distributed.init() has not been called")
    return _WORLD


def _launcher_size() -> int:
    for var in _LAUNCHER_SIZE_VARS:
        value = os.environ.get(var, "")
        if value.isdigit():
            return int(value)
    return 1


def init_world(timeout=None, abort_on_failure=True) -> World:
    global _WORLD
    if timeout is None:
        timeout = float(os.environ.get("SCOPEFLOW_MPI_TIMEOUT", DEFAULT_TIMEOUT_S))
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    if _WORLD is not None:
        _WORLD.timeout = float(timeout)
        return _WORLD
    try:
        from mpi4py import MPI
    except ImportError:
        launched = _launcher_size()
        if launched > 1:
            raise ImportError(
                f"scopeflow.distributed: this process is one of {launched} started by "
                f"mpiexec, but mpi4py is not installed: pip install 'scopeflow[mpi]'"
            ) from None
        _WORLD = World(None, timeout)  # one process: the collectives are identities
        return _WORLD
    _WORLD = World(MPI.COMM_WORLD, timeout)
    if abort_on_failure and _WORLD.size > 1:
        _install_abort(_WORLD)
    return _WORLD


def _install_abort(world):
    """An uncaught exception or a timed-out collective ends the whole job (MPI_Abort)
    once Python has printed the traceback, so the other workers stop now, not at their
    own timeout, and mpiexec reports the failure."""
    previous = sys.excepthook

    def excepthook(kind, value, tb):
        previous(kind, value, tb)
        world.failed = True

    sys.excepthook = excepthook

    def at_exit():
        if world.failed:
            sys.stderr.write(f"scopeflow.distributed: rank {world.rank} failed; aborting "
                             f"the job (MPI_Abort)\n")
            sys.stderr.flush()
            # MPICH's launcher kills every process on MPI_Abort and can drop what it has
            # not yet forwarded from this one's pipes (seen under load: the traceback cut
            # after its first line); a moment's pause lets it forward the traceback first.
            time.sleep(0.5)
            world.comm.Abort(1)

    atexit.register(at_exit)
