"""Device strings, merged by TF1's rules: ``/job:ps/task:1/cpu:0`` inside ``/gpu:0``.

scopeflow runs every op on the CPU; device strings are kept on ops (and in GraphDefs) because
TF1 programs set and read them.
"""

from __future__ import annotations

__all__ = ["merge_devices", "parse_device"]

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
