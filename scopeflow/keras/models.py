"""``tf.keras.models``: ``Model``, ``Sequential``, rebuilding a model from its config or
JSON, and whole-model HDF5 files (``save_model``/``load_model``, tf_keras's layout)."""

from __future__ import annotations

import contextlib
import json
import os
import zipfile

from scopeflow.keras.engine.sequential import Sequential
from scopeflow.keras.engine.training import Model
from scopeflow.keras.utils import saving_utils
from scopeflow.platform import tf_logging as logging

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
    """A model ``save_model``/``model.save`` (or tf_keras) wrote to HDF5: its architecture,
    its weights and, with ``compile=True``, compiled as saved with the optimizer's state
    (slots and ``iterations``) restored, so that training goes on where it stopped.

    ``custom_objects`` maps the names of custom layers, losses, metrics and optimizers to
    their classes or functions; an unknown name raises ``ValueError``
    (``Unknown layer: MyLayer``)."""
    h5py = saving_utils._need_h5py("load_model")
    if isinstance(filepath, h5py.File):
        return _load_model_from_hdf5(filepath, custom_objects, compile)
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise OSError(f"No file or directory found at {filepath}")
    if os.path.isdir(filepath):
        raise NotImplementedError(
            f"tf.keras.models.load_model of a SavedModel ({filepath}) is not implemented in "
            "scopeflow; save the model to HDF5 (model.save('m.h5')) instead")
    if not h5py.is_hdf5(filepath):
        kind = "a Keras v3 (.keras zip) file" if zipfile.is_zipfile(filepath) else \
            "a file that is not HDF5"
        raise NotImplementedError(
            f"tf.keras.models.load_model of {kind} ({filepath}) is not implemented in "
            "scopeflow; it reads Keras's HDF5 files (model.save('m.h5'))")
    with h5py.File(filepath, mode="r") as f:
        return _load_model_from_hdf5(f, custom_objects, compile)


def _attr_text(f, name):
    value = f.attrs.get(name)
    return value.decode("utf-8") if hasattr(value, "decode") else value


@contextlib.contextmanager
def _naming_custom_objects():
    """An ``Unknown layer: MyLayer`` error says how to pass the class, as tf_keras's does."""
    try:
        yield
    except ValueError as e:
        if not str(e).startswith("Unknown "):
            raise
        raise ValueError(f"{e}. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included "
                         "in the scope (or pass it in `load_model(..., custom_objects=...)`). "
                         "See https://www.tensorflow.org/guide/keras/save_and_serialize"
                         "#registering_the_custom_object for details.") from None


def _load_model_from_hdf5(f, custom_objects, compile):  # noqa: A002 - Keras's name
    custom_objects = dict(custom_objects or {})
    model_config = _attr_text(f, "model_config")
    if model_config is None:
        raise ValueError(f"No model config found in the file at {f.filename}.")
    with _naming_custom_objects():
        model = model_from_config(json.loads(model_config), custom_objects=custom_objects)
    saving_utils.load_weights_from_hdf5_group(f["model_weights"], model)
    if not compile:
        return model
    training_config = _attr_text(f, "training_config")
    if training_config is None:
        logging.warning("No training configuration found in the save file, so the model was "
                        "*not* compiled. Compile it manually.")
        return model
    with _naming_custom_objects():
        args = saving_utils.compile_args_from_training_config(json.loads(training_config),
                                                              custom_objects)
    model.compile(**args)
    if "optimizer_weights" in f:
        names, values = saving_utils.load_optimizer_weights_from_hdf5_group(f)
        with model.outputs[0].graph.as_default():
            model.optimizer._create_all_weights(model.trainable_weights)
        values = saving_utils.optimizer_values_in_order(model.optimizer, names, values)
        try:
            model.optimizer.set_weights(values)
        except ValueError:
            logging.warning("Error in loading the saved optimizer state. As a result, your "
                            "model is starting with a freshly initialized optimizer.")
    return model


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    """``model.save``: the whole model in Keras's HDF5 file (needs h5py; the default format
    in graph mode, whatever the path's extension): architecture, weights, compile arguments
    and the optimizer's state. The SavedModel format (``save_format='tf'``) is not
    implemented."""
    saving_utils.save_model(model, filepath, overwrite, include_optimizer, save_format)
