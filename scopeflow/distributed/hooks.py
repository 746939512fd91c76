"""Starting every worker from the same variables, and writing files on one worker only."""

from __future__ import annotations

from scopeflow.distributed import _world
from scopeflow.distributed.ops import broadcast
from scopeflow.framework.graph import get_default_graph, name_scope
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.state import state_ops
from scopeflow.state.variables import global_variables
from scopeflow.train.session_run_hook import SessionRunHook

__all__ = ["broadcast_global_variables", "BroadcastGlobalVariablesHook", "on_root",
           "is_root"]


def broadcast_global_variables(root_rank=0, name="broadcast_global_variables"):
    """An op that assigns every global variable the value it has on worker ``root_rank``.

    Run it once after the variables are initialized (or restored on the root), before
    training, so all workers start alike: their initializers' random draws may differ.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> v = tf.Variable([1., 2.], name="v")
    >>> s = tf.Session(); s.run(v.initializer)
    >>> s.run(sfd.broadcast_global_variables(0)); s.run(v).tolist()
    [1.0, 2.0]
    """
    with name_scope(name) as scope:
        assigns = [state_ops.assign(v, broadcast(v, root_rank)).op
                   for v in global_variables()]
        return control_flow_ops.group(*assigns, name=scope)


class BroadcastGlobalVariablesHook(SessionRunHook):
    """Broadcasts the root worker's global variables once the session exists
    (initialized, or restored from the root's checkpoint), as Horovod's hook.

    Pass it to ``tf.train.MonitoredTrainingSession(hooks=[...])`` on every worker.
    Relaunching with a different number of workers resumes from rank 0's checkpoint:
    rank 0 restores it and this hook hands its values to the others.
    """

    def __init__(self, root_rank=0, device=""):
        del device  # Horovod's argument (a device for the ops); scopeflow has one device
        self.root_rank = root_rank
        self.bcast_op = None
        self._graph = None

    def begin(self):
        graph = get_default_graph()
        if self.bcast_op is None or self._graph is not graph:
            self.bcast_op = broadcast_global_variables(self.root_rank)
            self._graph = graph

    def after_create_session(self, session, coord):
        session.run(self.bcast_op)


def is_root(root_rank=0) -> bool:
    """Whether this worker is ``root_rank`` (the one that writes checkpoints and summaries)."""
    return _world.get_world("is_root").rank == root_rank


def on_root(value, root_rank=0):
    """``value`` on the root worker, None on the others: the rank-0-only file pattern,
    ``MonitoredTrainingSession(checkpoint_dir=sfd.on_root(logdir), ...)`` (no checkpoint
    or summary is written where it is None); make a ``FileWriter`` only where
    ``sfd.on_root(logdir)`` is not None.

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> sfd.on_root("/tmp/run") if sfd.size() == 1 else "/tmp/run"
    '/tmp/run'
    """
    return value if is_root(root_rank) else None
