"""Op-table rows for scopeflow.distributed's collectives in a one-process world, where
each is an identity (sum, mean, gather or broadcast over one worker): the table checks
their static shapes and dtypes, fresh outputs, and gradients (allreduce, allgather and
slicing back, as Horovod's). Their multi-process values are in
tests/integration/test_distributed.py (mpiexec -n 2 and 3)."""

from __future__ import annotations

import scopeflow.distributed as sfd

from .op_table import OpCase, rand

sfd.init()  # mpi4py's world of one (singleton MPI), or the built-in one without mpi4py

_X = rand(3, 4)

ROWS = [
    OpCase("MpiAllreduce", lambda tf, x: sfd.allreduce(x), lambda x: x, [_X]),
    OpCase("MpiAllreduce", lambda tf, x: sfd.allreduce(x * 2.0, average=False),
           lambda x: x * 2.0, [_X], id="MpiAllreduce-sum"),
    OpCase("MpiAllreduce", lambda tf, x, y: sfd.grouped_allreduce([x, y], fusion_threshold=8),
           lambda x, y: [x, y], [_X, rand(5)], id="MpiAllreduce-fused"),
    OpCase("MpiAllgather", lambda tf, x: sfd.allgather(x), lambda x: x, [_X]),
    OpCase("MpiBroadcast", lambda tf, x: sfd.broadcast(x, 0), lambda x: x, [_X]),
]
