"""Device placement on scopeflow's one device, the local CPU, by TF1's placer rules.

Every kernel runs on ``/job:localhost/replica:0/task:0/device:CPU:0`` (or ``CPU:i`` for
``i < ConfigProto.device_count["CPU"]``). As TF's ``DirectSession``, a session places the
whole graph on its first run, and again whenever the graph has grown since:

- an op whose device request names a device this process does not have (``/gpu:0``,
  ``/device:TPU:0``, ``/job:worker``, ``/replica:1``, ``/cpu:3``) runs on ``CPU:0``, as TF
  places it with ``ConfigProto(allow_soft_placement=True)``. Without soft placement TF
  fails every run of such a graph ("Cannot assign a device for operation ..."); scopeflow
  never has a GPU, so it always places softly and TF1 programs written for GPUs run
  unchanged (docs/MIGRATION.md, "tf.device is recorded, not enforced");
- ``ConfigProto(log_device_placement=True)`` prints each op's device to stderr as TF does
  (``name: (Type): /job:localhost/replica:0/task:0/device:CPU:0``), in TF's placer order:
  the ops in graph order, with "generators" (no inputs, one non-reference output, such as
  constants) after the others.
"""

from __future__ import annotations

import sys

from scopeflow.framework.device_spec import parse_device

__all__ = ["place", "LOCAL_PREFIX"]

LOCAL_PREFIX = "/job:localhost/replica:0/task:0/device:"


def _num_cpus(config) -> int:
    if config is None:
        return 1
    return max(1, int(dict(config.device_count).get("CPU", 1)))


def _cpu_index(device: str, num_cpus: int) -> int | None:
    """The local CPU ``device`` names (0 when it names none in particular), or None when
    it names a device this process does not have."""
    if not device:
        return 0
    spec = parse_device(device)
    if spec.get("job", "localhost") != "localhost" or spec.get("replica", "0") != "0" \
            or spec.get("task", "0") != "0":
        return None
    dev = spec.get("device")
    if dev is None:
        return 0
    kind, _, index = dev.partition(":")
    if kind != "CPU":
        return None
    if index in ("", "*"):
        return 0
    i = int(index)
    return i if i < num_cpus else None


def _is_generator(op) -> bool:
    """TF's ``IsGeneratorNode``: placed after its consumers."""
    outs = op.outputs
    return not op.inputs and len(outs) == 1 and not outs[0].dtype._is_ref_dtype


def place(ops, config) -> None:
    """Places ``ops`` (the whole graph) as TF's placer with soft placement, and logs the
    placements when the config asks."""
    if config is None or not config.log_device_placement:
        return
    num_cpus = _num_cpus(config)
    order = [op for op in ops if not _is_generator(op)] + [op for op in ops
                                                          if _is_generator(op)]
    devices = [_cpu_index(op.device, num_cpus) or 0 for op in order]
    sys.stderr.write("".join(f"{op.name}: ({op.type}): {LOCAL_PREFIX}CPU:{i}\n"
                             for op, i in zip(order, devices)))
