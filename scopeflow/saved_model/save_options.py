"""``tf.saved_model.SaveOptions``: the options of TF2's object-based ``tf.saved_model.save``.

A plain options object with TF's attributes, defaults and argument checks (TF's errors),
for code that builds one. scopeflow has no object-based ``save`` to pass it to (TF2's
SavedModels serialize traced functions and trackable object graphs).
"""

from __future__ import annotations

import enum

__all__ = ["SaveOptions", "VariablePolicy"]


class VariablePolicy(enum.Enum):
    """How ``save`` treats variables' devices and distributed variables (TF's values)."""

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    @staticmethod
    def from_obj(obj):
        """``obj`` (None, a policy, or its value string in any case) as a policy."""
        if obj is None:
            return VariablePolicy.NONE
        if isinstance(obj, VariablePolicy):
            return obj
        key = str(obj).lower()
        for policy in VariablePolicy:
            if key == policy.value:
                return policy
        raise ValueError(f"Received invalid VariablePolicy value: {obj}.")


def _validate_namespace_whitelist(namespace_whitelist):
    if namespace_whitelist is None:
        return None
    if not isinstance(namespace_whitelist, list):
        raise TypeError("`namespace_whitelist` must be a list of strings. Got: "
                        f"{namespace_whitelist} with type {type(namespace_whitelist)}.")
    for namespace in namespace_whitelist:
        if not isinstance(namespace, str):
            raise ValueError("Whitelisted namespace must be a string. Got: "
                             f"{namespace} of type {type(namespace)}.")
    return list(namespace_whitelist)


class SaveOptions:
    """Options for saving to a SavedModel (TF2's ``tf.saved_model.save``)."""

    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases",
                 "experimental_debug_stripper", "experimental_io_device",
                 "experimental_variable_policy", "experimental_custom_gradients",
                 "experimental_image_format", "experimental_skip_saver",
                 "experimental_sharding_callback", "extra_tags")

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = _validate_namespace_whitelist(namespace_whitelist)
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases if function_aliases else {}
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = VariablePolicy.from_obj(
            experimental_variable_policy)
        self.experimental_skip_saver = experimental_skip_saver
        if experimental_image_format:  # as in TF's open-source build
            raise ValueError("The option `experimental_image_format` is disabled in OSS.")
        self.experimental_image_format = experimental_image_format
        if experimental_sharding_callback is not None:
            # TF accepts only its ShardingCallback class, which scopeflow does not have.
            raise ValueError(
                "The experimental_sharding_callback checkpoint option"
                "must be of type ShardingCallback. The option provided"
                f"was of type {type(experimental_sharding_callback)}.")
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags
