"""Device strings, merged by TF1's rules: ``/job:ps/task:1/cpu:0`` inside ``/gpu:0``.

scopeflow runs every op on the CPU; device strings are kept on ops (and in GraphDefs) because
TF1 programs set and read them.
"""

from __future__ import annotations

__all__ = ["merge_devices", "parse_device", "DeviceSpec"]

_DEVICE_FIELDS = ("job", "replica", "task", "device")


def _parse_device(spec: str) -> dict:
    """``/job:ps/task:1/cpu:0`` -> {"job": "ps", "task": "1", "device": "CPU:0"} (TF's rules)."""
    out: dict = {}
    for part in spec.split("/"):
        if not part:
            continue
        fields = part.split(":")
        key = fields[0].lower()
        if key in ("job", "replica", "task") and len(fields) == 2:
            out[key] = fields[1]
        elif key == "device" and len(fields) in (2, 3):
            dev_type = fields[1].upper() if fields[1].lower() in ("cpu", "gpu", "tpu") \
                else fields[1]
            out["device"] = ":".join([dev_type] + fields[2:])
        elif len(fields) in (1, 2) and key in ("cpu", "gpu", "tpu"):
            out["device"] = ":".join([key.upper()] + fields[1:])
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return out


def merge_devices(outer: str, inner: str) -> str:
    merged = _parse_device(outer)
    merged.update(_parse_device(inner))
    return "".join(f"/{k}:{merged[k]}" for k in _DEVICE_FIELDS if k in merged)


def parse_device(spec: str) -> dict:
    """A device string's fields: ``/job:ps/task:1/cpu:0`` -> ``{"job": "ps", "task": "1",
    "device": "CPU:0"}`` (a field the string leaves out is absent)."""
    return _parse_device(spec)


class DeviceSpec:
    """TF1's ``tf.DeviceSpec``: a device string's parts (job, replica, task, device type and
    index), parsed, merged and printed by TF's rules (``/job:w/task:2/device:CPU:0``).

    Mutable as TF1's (``merge_from``, ``parse_from_string``); ``replace`` and
    ``make_merged_spec`` return new specs.
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = (device_type.upper() if isinstance(device_type, str)
                            and device_type.lower() in ("cpu", "gpu", "tpu") else device_type)
        self.device_index = None if device_index in (None, "*") else int(device_index)

    @classmethod
    def from_string(cls, spec):
        return cls().parse_from_string(spec)

    def parse_from_string(self, spec):
        """Sets every field from ``spec`` (the ones it leaves out become ``None``)."""
        fields = _parse_device(spec or "")
        self.job = fields.get("job")
        self.replica = int(fields["replica"]) if "replica" in fields else None
        self.task = int(fields["task"]) if "task" in fields else None
        self.device_type = self.device_index = None
        if "device" in fields:
            dev_type, _, index = fields["device"].partition(":")
            self.device_type = dev_type
            self.device_index = None if index in ("", "*") else int(index)
        return self

    def to_string(self) -> str:
        out = ""
        if self.job is not None:
            out += f"/job:{self.job}"
        if self.replica is not None:
            out += f"/replica:{self.replica}"
        if self.task is not None:
            out += f"/task:{self.task}"
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            out += f"/device:{self.device_type}:{index}"
        return out

    def merge_from(self, dev):
        """Fields ``dev`` sets override this spec's."""
        for field in self.__slots__:
            value = getattr(dev, field)
            if value is not None:
                setattr(self, field, value)

    def make_merged_spec(self, dev):
        merged = self.replace()
        merged.merge_from(dev)
        return merged

    def replace(self, **kwargs):
        fields = {f: getattr(self, f) for f in self.__slots__}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def _key(self):
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")
