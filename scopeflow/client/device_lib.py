"""``tensorflow.python.client.device_lib``: the devices a session can place ops on.

TF1 programs call ``device_lib.list_local_devices()`` to count their GPUs
(``[d.name for d in devices if d.device_type == "GPU"]``). scopeflow runs its kernels on the
CPU, so the list is what TensorFlow gives on a machine without GPUs: one
``DeviceAttributes`` for ``/device:CPU:0``, with TF's CPU memory limit (256 MiB), an empty
locality, no XLA id (-1), and an incarnation that is random per process (TF's changes with
every process too; it is drawn from the OS, never from NumPy's or TF's seeded streams).
"""

from __future__ import annotations

import secrets

from scopeflow.io import protos

__all__ = ["list_local_devices"]

# TF's CPU device reports this limit (bytes) whatever the machine's memory.
_CPU_MEMORY_LIMIT = 268435456
_INCARNATION = secrets.randbits(64)


def list_local_devices(session_config=None) -> list:
    """The local devices, as ``DeviceAttributes`` protos: the one CPU.

    ``session_config`` (a ``tf.ConfigProto``) is accepted as TF accepts it; its
    ``device_count`` of ``{"CPU": 0}`` still lists the CPU, as TF does.

    >>> [d.name for d in list_local_devices()]
    ['/device:CPU:0']
    """
    if session_config is not None and not isinstance(session_config, protos.ConfigProto):
        raise TypeError(f"session_config must be a tf.ConfigProto, got "
                        f"{type(session_config).__name__}")
    return [protos.DeviceAttributes(
        name="/device:CPU:0", device_type="CPU", memory_limit=_CPU_MEMORY_LIMIT,
        locality=protos.DeviceLocality(), incarnation=_INCARNATION, xla_global_id=-1)]
