"""``tf.train.replica_device_setter``: the device function of between-graph replication.

Variables (the ``ps_ops`` op types) go to the parameter-server tasks, round robin unless
a ``ps_strategy`` says otherwise; every other op to ``worker_device``; devices set inside
the block are merged in, as TF does. scopeflow runs on one machine, so the devices are
only recorded on the ops (the GraphDef carries them to a real TF cluster unchanged).
"""

from __future__ import annotations

import logging

from scopeflow.framework.device_spec import DeviceSpec
from scopeflow.train.cluster_spec import ClusterSpec

__all__ = ["replica_device_setter", "STANDARD_PS_OPS"]

_log = logging.getLogger("scopeflow.train")

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp",
                   "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator", "DecisionTreeResource")


class _RoundRobinStrategy:
    """The next ps task for each ps op: 0, 1, ..., num_tasks - 1, 0, ..."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def _op_type(op) -> str:
    """The op type of an Operation, or of a NodeDef (TF's device functions accept both)."""
    return op.type if hasattr(op, "type") else op.op


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                 ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op) -> str:
        """The device of ``op``: a ps task for ps ops, the worker device otherwise, with
        the fields already set on ``op`` kept."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and _op_type(op) in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device``, or None when there are no ps tasks.

    ``cluster`` (a ClusterSpec, dict or ClusterDef) overrides ``ps_tasks`` with the number
    of tasks of the ``ps_device`` job (None when the cluster has no such job).
    """
    if cluster is not None:
        spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        jobs = spec.as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job
        if ps_job not in jobs or jobs[ps_job] is None:
            return None
        ps_tasks = len(jobs[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _log.warning("DEPRECATION: It is recommended to set merge_devices=true in "
                     "replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices,
                                    ps_ops, ps_strategy)
    return chooser.device_function
