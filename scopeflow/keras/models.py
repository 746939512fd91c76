"""``tf.keras.models``: ``Model``, ``Sequential``, and rebuilding a model from its config
or JSON."""

from __future__ import annotations

import json

from scopeflow.keras.engine.sequential import Sequential
from scopeflow.keras.engine.training import Model

__all__ = ["Model", "Sequential", "model_from_config", "model_from_json", "load_model",
           "save_model"]


def model_from_config(config, custom_objects=None):
    """The model a ``{'class_name', 'config'}`` dict describes (untrained weights)."""
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Received: "
                        f"config={config}. Did you meant to use `Sequential.from_config"
                        "(config)`?")
    class_name = config["class_name"]
    if class_name == "Sequential":
        return Sequential.from_config(config["config"], custom_objects=custom_objects)
    if class_name in ("Functional", "Model"):
        return Model.from_config(config["config"], custom_objects=custom_objects)
    custom = (custom_objects or {}).get(class_name)
    if custom is None:
        raise ValueError(f"Unknown model class: {class_name}")
    return custom.from_config(config["config"], custom_objects=custom_objects)


def model_from_json(json_string, custom_objects=None):
    """``model_from_config`` of ``model.to_json()``'s text."""
    return model_from_config(json.loads(json_string), custom_objects=custom_objects)


def load_model(filepath, custom_objects=None, compile=True):  # noqa: A002 - Keras's name
    raise NotImplementedError("tf.keras.models.load_model (whole-model HDF5 or SavedModel) is "
                              "not implemented in scopeflow yet; rebuild the model "
                              "(model_from_json) and use load_weights")


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    raise NotImplementedError("tf.keras.models.save_model is not implemented in scopeflow "
                              "yet; use to_json and save_weights")
