"""``tf.data.Options`` and its parts (``ThreadingOptions``, ``experimental.OptimizationOptions``,
``DistributeOptions``, ``AutotuneOptions``) and the enums they take.

Scopeflow's pipelines run in order on the calling thread, so the options change nothing at run
time; they are kept so TF1 programs that set them (``dataset.with_options(options)``) build,
with TF's checks: an unknown property raises ``AttributeError`` and a value of the wrong type
``TypeError``, as TF's option containers do.
"""

from __future__ import annotations

import enum

__all__ = ["Options", "ThreadingOptions", "OptimizationOptions", "DistributeOptions",
           "AutotuneOptions", "AutoShardPolicy", "AutotuneAlgorithm", "ExternalStatePolicy"]


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is split between workers (TF's values)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    """The algorithm TF's autotuner would use (TF's values)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    """What saving a dataset with external state (a stateful op) does (TF's values)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsBase:
    """A set of typed properties, each ``None`` (unset, TF's default) until set."""

    # property name -> its type, or a callable making the default of a nested option set
    _TYPES: dict = {}
    _DEFAULTS: dict = {}
    _ALIASES: dict = {}

    def __init__(self):
        values = {}
        for name, kind in self._TYPES.items():
            if isinstance(kind, type) and issubclass(kind, _OptionsBase):
                values[name] = kind()
            else:
                values[name] = self._DEFAULTS.get(name)
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name):
        name = self._ALIASES.get(name, name)
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        name = self._ALIASES.get(name, name)
        if name not in self._TYPES:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._TYPES[name]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"Property \"{name}\" must be of type {kind}, got: {value!r} "
                            f"(type: {type(value)})")
        self._values[name] = value

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._TYPES) | set(self._ALIASES))

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}({self._values})"


class ThreadingOptions(_OptionsBase):
    """Threading of a pipeline's work (no effect: scopeflow runs it on one thread)."""

    _TYPES = {"max_intra_op_parallelism": int, "private_threadpool_size": int}


class OptimizationOptions(_OptionsBase):
    """TF's static graph optimizations of a pipeline (scopeflow runs it as built)."""

    _TYPES = {name: bool for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
        "shuffle_and_repeat_fusion")}


class DistributeOptions(_OptionsBase):
    """How a distribution strategy shards the dataset."""

    _TYPES = {"auto_shard_policy": AutoShardPolicy, "num_devices": int}
    _DEFAULTS = {"auto_shard_policy": AutoShardPolicy.AUTO}


class AutotuneOptions(_OptionsBase):
    """TF's autotuner's budget and algorithm."""

    _TYPES = {"autotune_algorithm": AutotuneAlgorithm, "cpu_budget": int, "enabled": bool,
              "initial_parallelism": int, "min_parallelism": int, "ram_budget": int}


class Options(_OptionsBase):
    """The options of a dataset (``dataset.with_options(options)``).

    >>> o = tf.data.Options(); o.deterministic = True
    >>> o.experimental_distribute.auto_shard_policy
    <AutoShardPolicy.AUTO: 0>
    """

    _TYPES = {"autotune": AutotuneOptions, "dataset_name": str, "deterministic": bool,
              "experimental_distribute": DistributeOptions,
              "experimental_external_state_policy": ExternalStatePolicy,
              "experimental_optimization": OptimizationOptions, "experimental_slack": bool,
              "experimental_symbolic_checkpoint": bool, "experimental_warm_start": bool,
              "framework_type": list, "threading": ThreadingOptions}
    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}

    def merge(self, options):
        """A new ``Options`` with these options' set values, overridden by those set in
        ``options`` (nested option sets merged likewise)."""
        return _merge(self, options)


def _merge(a, b):
    out = type(a)()
    for name in a._TYPES:
        x, y = a._values[name], b._values[name]
        if isinstance(x, _OptionsBase):
            out._values[name] = _merge(x, y)
        else:
            out._values[name] = y if y is not None and y != b._DEFAULTS.get(name) else x
    return out
