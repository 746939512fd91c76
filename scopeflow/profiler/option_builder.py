"""``tf.profiler.ProfileOptionBuilder``: the option dicts ``tf.profiler.profile`` reads.

Pure Python, as in TF: the presets and ``build()`` return TF's exact dicts (keys, defaults and
order), so code that prints or edits them sees what it saw under TensorFlow.
"""

from __future__ import annotations

import copy

TRAINABLE_VARIABLES = "_trainable_variables"

_COMMON_TAIL = {
    "min_params": 0,
    "min_float_ops": 0,
    "min_occurrence": 0,
}


def _with_regexes(options, account_type_regexes):
    options.update({
        "account_type_regexes": account_type_regexes,
        "start_name_regexes": [".*"],
        "trim_name_regexes": [],
        "show_name_regexes": [".*"],
        "hide_name_regexes": [],
    })
    return options


class ProfileOptionBuilder:
    """Option builder for profiling API (TF1 ``tf.profiler.ProfileOptionBuilder``).

    Each ``with_*`` method sets keys of the dict and returns ``self``; ``build()`` returns a
    deep copy, so one builder can produce several option sets.
    """

    def __init__(self, options=None):
        if options is not None:
            self._options = copy.deepcopy(options)
        else:
            self._options = {"max_depth": 100, "min_bytes": 0, "min_micros": 0,
                             **_COMMON_TAIL, "order_by": "name"}
            _with_regexes(self._options, [".*"])
            self._options.update({"account_displayed_op_only": False, "select": ["micros"],
                                  "step": -1, "output": "stdout"})

    @staticmethod
    def trainable_variables_parameter():
        """Options that count the trainable variables' parameters (for the 'scope' view)."""
        options = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, **_COMMON_TAIL,
                   "order_by": "name"}
        _with_regexes(options, [TRAINABLE_VARIABLES])
        options.update({"account_displayed_op_only": True, "select": ["params"], "step": -1,
                        "output": "stdout"})
        return options

    @staticmethod
    def float_operation():
        """Options that count the float operations of ops with registered 'flops' statistics."""
        options = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
                   "min_float_ops": 1, "min_occurrence": 0, "order_by": "float_ops"}
        _with_regexes(options, [".*"])
        options.update({"account_displayed_op_only": True, "select": ["float_ops"],
                        "step": -1, "output": "stdout"})
        return options

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0,
                        min_cpu_micros=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        """Options that show execution time and memory (these need run metadata)."""
        options = {"max_depth": 10000, "min_bytes": min_bytes,
                   "min_peak_bytes": min_peak_bytes, "min_residual_bytes": min_residual_bytes,
                   "min_output_bytes": min_output_bytes, "min_micros": min_micros,
                   "min_accelerator_micros": min_accelerator_micros,
                   "min_cpu_micros": min_cpu_micros, **_COMMON_TAIL, "order_by": "micros"}
        _with_regexes(options, [".*"])
        options.update({"account_displayed_op_only": True, "select": ["micros", "bytes"],
                        "step": -1, "output": "stdout"})
        return options

    def build(self):
        """Returns a deep copy of the option dict."""
        return copy.deepcopy(self._options)

    def with_max_depth(self, max_depth):
        """Maximum depth of the displayed tree (scope view) or list (op view)."""
        self._options["max_depth"] = max_depth
        return self

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        """Only show nodes whose memory statistics reach these minimums."""
        self._options["min_bytes"] = min_bytes
        self._options["min_peak_bytes"] = min_peak_bytes
        self._options["min_residual_bytes"] = min_residual_bytes
        self._options["min_output_bytes"] = min_output_bytes
        return self

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0,
                                min_cpu_micros=0):
        """Only show nodes whose execution times reach these minimums."""
        self._options["min_micros"] = min_micros
        self._options["min_accelerator_micros"] = min_accelerator_micros
        self._options["min_cpu_micros"] = min_cpu_micros
        return self

    def with_min_parameters(self, min_params):
        """Only show nodes holding at least this many parameters."""
        self._options["min_params"] = min_params
        return self

    def with_min_occurrence(self, min_occurrence):
        """Only show nodes that aggregate at least this many graph nodes."""
        self._options["min_occurrence"] = min_occurrence
        return self

    def with_min_float_operations(self, min_float_ops):
        """Only show nodes with at least this many float operations."""
        self._options["min_float_ops"] = min_float_ops
        return self

    def with_accounted_types(self, account_type_regexes):
        """Only account (and show) nodes with a type (op type or op-log type) matching."""
        self._options["account_type_regexes"] = copy.copy(account_type_regexes)
        return self

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None,
                        hide_name_regexes=None, trim_name_regexes=None):
        """Regexes (full match on node names) for where to start, show, hide and trim."""
        for key, value in (("start_name_regexes", start_name_regexes),
                           ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes),
                           ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._options[key] = copy.copy(value)
        return self

    def account_displayed_op_only(self, is_true):
        """Whether totals count only the displayed nodes."""
        self._options["account_displayed_op_only"] = is_true
        return self

    def with_empty_output(self):
        """Print nothing; only return the proto."""
        self._options["output"] = "none"
        return self

    def with_stdout_output(self):
        """Print the report on stdout."""
        self._options["output"] = "stdout"
        return self

    def with_file_output(self, outfile):
        """Write the report to ``outfile``."""
        self._options["output"] = f"file:outfile={outfile}"
        return self

    def with_timeline_output(self, timeline_file):
        """Write a chrome-trace timeline (TF needs run metadata for one)."""
        self._options["output"] = f"timeline:outfile={timeline_file}"
        return self

    def with_pprof_output(self, pprof_file):
        """Write a pprof profile (TF supports it for the 'code' view only)."""
        self._options["output"] = f"pprof:outfile={pprof_file}"
        return self

    def order_by(self, attribute):
        """Order displayed nodes by an attribute (name, params, float_ops, micros, ...)."""
        self._options["order_by"] = attribute
        return self

    def select(self, attributes):
        """The attributes to display (params, float_ops, occurrence, input_shapes, ...)."""
        self._options["select"] = copy.copy(attributes)
        return self

    def with_step(self, step):
        """Which ``Profiler.add_step`` step to profile; -1 averages all steps."""
        self._options["step"] = step
        return self
