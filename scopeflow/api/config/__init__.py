"""``tf.config``: devices, thread pools and optimizer switches, as TF reports them on a
machine with one CPU and no GPU (the machine scopeflow's kernels run on).

Settings are accepted and read back as TF does, including its refusals: thread pools and
virtual devices freeze once the runtime initializes (``list_logical_devices``), and later
changes raise TF's ``RuntimeError``. Virtual CPUs configured with
``set_logical_device_configuration`` are listed as TF lists them; scopeflow still runs every
op on the one CPU.
"""

from __future__ import annotations

from typing import NamedTuple

from scopeflow.api.config import _state, optimizer, threading
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice",
           "experimental_functions_run_eagerly", "experimental_run_functions_eagerly",
           "functions_run_eagerly", "get_logical_device_configuration",
           "get_soft_device_placement", "get_visible_devices", "list_logical_devices",
           "list_physical_devices", "optimizer", "run_functions_eagerly",
           "set_logical_device_configuration", "set_soft_device_placement",
           "set_visible_devices", "threading"]


class PhysicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_PHYSICAL = [_CPU]


def list_physical_devices(device_type=None) -> list:
    """``[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]``; ``[]`` for
    ``"GPU"`` and other device types."""
    return [d for d in _PHYSICAL if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type=None) -> list:
    visible = _state.VISIBLE.get("all", _PHYSICAL)
    return [d for d in visible if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        if d not in _PHYSICAL:
            raise ValueError(f"Unrecognized device: {d!r}")
    if device_type is not None:
        # TF never hides the CPU: the host device is always visible.
        devices = [d for d in get_visible_devices() if d.device_type != device_type] + devices
        if device_type == "CPU" and not any(d.device_type == "CPU" for d in devices):
            devices = [_CPU] + devices
    if not any(d.device_type == "CPU" for d in devices):
        devices = [_CPU] + devices
    _state.VISIBLE["all"] = devices


def get_logical_device_configuration(device):
    """The virtual devices configured for ``device`` (``None``: not configured)."""
    return _state.LOGICAL_CONFIGURATIONS.get(device.name)


def set_logical_device_configuration(device, logical_devices):
    if device not in _PHYSICAL:
        raise ValueError(f"Unrecognized device: {device!r}")
    if _state.initialized[0]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _state.LOGICAL_CONFIGURATIONS[device.name] = (
        None if logical_devices is None else list(logical_devices))


def list_logical_devices(device_type=None) -> list:
    """The logical devices (``/device:CPU:0``, more with virtual CPUs); listing them
    initializes the runtime, as in TF."""
    _state.initialize()
    out = []
    for d in get_visible_devices():
        count = len(_state.LOGICAL_CONFIGURATIONS.get(d.name) or [None])
        out += [LogicalDevice(f"/device:{d.device_type}:{i}", d.device_type)
                for i in range(count)]
    return [d for d in out if device_type is None or d.device_type == device_type]


def get_soft_device_placement() -> bool:
    return _state.SETTINGS["soft_device_placement"]


def set_soft_device_placement(enabled):
    _state.SETTINGS["soft_device_placement"] = bool(enabled)


def functions_run_eagerly() -> bool:
    return _state.SETTINGS["functions_run_eagerly"]


def run_functions_eagerly(run_eagerly):
    _state.SETTINGS["functions_run_eagerly"] = bool(run_eagerly)


experimental_functions_run_eagerly = functions_run_eagerly
experimental_run_functions_eagerly = run_functions_eagerly


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
