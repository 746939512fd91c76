"""Keras's object (de)serialization by name, custom objects, ``to_snake_case`` and the
``Progbar`` that ``fit`` prints."""

from __future__ import annotations

import re
import sys
import time

import numpy as np

__all__ = ["serialize_keras_object", "deserialize_keras_object", "get_custom_objects",
           "custom_object_scope", "CustomObjectScope", "to_snake_case", "Progbar"]

_GLOBAL_CUSTOM_OBJECTS: dict = {}


def get_custom_objects():
    """The global dict of custom objects (name -> class or function)."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """Within it, ``deserialize`` also finds the given custom objects by name."""

    def __init__(self, *args):
        self.custom_objects = args
        self.backup = None

    def __enter__(self):
        self.backup = dict(_GLOBAL_CUSTOM_OBJECTS)
        for objects in self.custom_objects:
            _GLOBAL_CUSTOM_OBJECTS.update(objects)
        return self

    def __exit__(self, *args):
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(self.backup)


def custom_object_scope(*args):
    return CustomObjectScope(*args)


def to_snake_case(name):
    """``Conv2D`` -> ``conv2d``, ``MaxPooling2D`` -> ``max_pooling2d`` (TF's rule)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    if insecure[0] != "_":
        return insecure
    return "private" + insecure


def serialize_keras_object(instance):
    """A function as its name; an object as ``{'class_name', 'config'}``."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": type(instance).__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError(f"Cannot serialize {instance}")


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """A name or a ``{'class_name', 'config'}`` dict as the object it names."""
    module_objects = module_objects or {}
    custom_objects = custom_objects or {}

    def find(name):
        for table in (custom_objects, _GLOBAL_CUSTOM_OBJECTS, module_objects):
            if name in table:
                return table[name]
        return None

    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format: {identifier}")
        cls = find(identifier["class_name"])
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier['class_name']}")
        config = identifier["config"]
        if hasattr(cls, "from_config"):
            try:
                return cls.from_config(config, custom_objects=dict(custom_objects))
            except TypeError:
                return cls.from_config(config)
        return cls(**config)
    if isinstance(identifier, str):
        obj = find(identifier)
        if obj is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier}")
        return obj
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")


def _format_eta(eta):
    """Seconds left as ``h:mm:ss``, ``m:ss`` or ``Ns``."""
    if eta > 3600:
        return f"{eta // 3600:.0f}:{(eta % 3600) // 60:02.0f}:{eta % 60:02.0f}"
    if eta > 60:
        return f"{eta // 60:.0f}:{eta % 60:02.0f}"
    return f"{int(eta)}s"


def _format_time(seconds, unit_name):
    """`` 2s/epoch``, `` 44ms/epoch``, `` 80us/sample`` (Keras's)."""
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit_name}"
    return f" {seconds * 1e6:.0f}us/{unit_name}"


class Progbar:
    """Keras's progress bar: ``32/100 [========>.....................] - ETA: 1s - loss:
    0.6931`` while running, then the final line with the time per step (or sample)."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic_display = ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
                                 or "ipykernel" in sys.modules)
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0

    def update(self, current, values=None, finalize=None):
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._accumulate(current, values or [])
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._write_bar(current, now, info, finalize)
        elif self.verbose == 2 and finalize:
            self._write_epoch_line(current, now, info)
        self._last_update = now

    def _accumulate(self, current, values):
        """Adds ``values`` (``(name, value)`` pairs) to the running averages, weighted by the
        steps since the last update; a stateful metric keeps only its latest value."""
        for k, v in values:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                value_base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * value_base, value_base]
                else:
                    self._values[k][0] += v * value_base
                    self._values[k][1] += value_base
            else:
                self._values[k] = [v, 1]

    def _write_bar(self, current, now, info, finalize):
        """verbose=1: redraws the bar, the ETA (or time per step) and the metrics."""
        prev_total_width = self._total_width
        if self._dynamic_display:
            sys.stdout.write("\b" * prev_total_width)
            sys.stdout.write("\r")
        else:
            sys.stdout.write("\n")
        bar = self._bar(current)
        self._total_width = len(bar)
        sys.stdout.write(bar)
        time_per_unit = (now - self._start) / current if current else 0
        if self.target is None or finalize:
            info += _format_time(time_per_unit, self.unit_name)
        else:
            info = f" - ETA: {_format_eta(time_per_unit * (self.target - current))}"
        info += self._metrics_text()
        self._total_width += len(info)
        if prev_total_width > self._total_width:
            info += " " * (prev_total_width - self._total_width)
        if finalize:
            info += "\n"
        sys.stdout.write(info)
        sys.stdout.flush()

    def _bar(self, current):
        """``" 3/10 [=====>......]"``, or ``"      3/Unknown"`` without a target."""
        if self.target is None:
            return f"{current:7d}/Unknown"
        numdigits = int(np.log10(self.target)) + 1
        bar = ("%" + str(numdigits) + "d/%d [") % (current, self.target)
        prog = float(current) / self.target
        prog_width = int(self.width * prog)
        if prog_width > 0:
            bar += "=" * (prog_width - 1)
            bar += ">" if current < self.target else "="
        bar += "." * (self.width - prog_width)
        return bar + "]"

    def _write_epoch_line(self, current, now, info):
        """verbose=2: one line at the end, with the metrics and the times."""
        numdigits = int(np.log10(self.target)) + 1
        count = ("%" + str(numdigits) + "d/%d") % (current, self.target)
        elapsed = now - self._start
        info += self._metrics_text()
        info += " -" + _format_time(elapsed, "epoch")
        info += " -" + _format_time(elapsed / self.target, self.unit_name)
        sys.stdout.write(count + info + "\n")
        sys.stdout.flush()

    def _metrics_text(self):
        text = ""
        for k in self._values_order:
            text += f" - {k}:"
            if isinstance(self._values[k], list):
                avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
                text += f" {avg:.4f}" if abs(avg) > 1e-3 else f" {avg:.4e}"
            else:
                text += f" {self._values[k]}"
        return text

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)
