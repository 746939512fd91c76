"""Saving a model's weights: Keras's HDF5 layout (one group per layer, its ``weight_names``
attribute, one dataset per weight; needs h5py) and TF checkpoints (a ``tf.train.Saver`` over
the model's weights, in Keras's session); and whole models in Keras's HDF5 file (root attrs
``model_config``, ``training_config``, ``keras_version``, ``backend``; groups
``model_weights`` and ``optimizer_weights``), which tf_keras reads and writes alike."""

from __future__ import annotations

import json
import os

import numpy as np

from scopeflow.keras import backend as K
from scopeflow.keras import losses, optimizers
from scopeflow.keras import metrics as metrics_module
from scopeflow.keras.utils.generic_utils import CustomObjectScope, serialize_keras_object
from scopeflow.platform import tf_logging as logging
from scopeflow.train.saver import Saver

__all__ = ["save_weights_to_hdf5", "load_weights_from_hdf5", "save_weights_to_checkpoint",
           "load_weights_from_checkpoint", "save_weights_to_hdf5_group",
           "load_weights_from_hdf5_group", "save_model_to_hdf5", "model_metadata",
           "compile_args_from_training_config", "load_optimizer_weights_from_hdf5_group",
           "save_attributes_to_hdf5_group", "load_attributes_from_hdf5_group",
           "is_hdf5_filepath", "save_model", "optimizer_values_in_order"]

# The Keras version scopeflow's files name: tf_keras's, whose layout they follow.
KERAS_VERSION = "2.21.0"

def _need_h5py(what):
    """h5py, imported on first use: it is optional (the `keras` extra), as for tf_keras, and
    `import scopeflow` must not load it (a fifth of a second)."""
    try:
        import h5py  # noqa: PLC0415
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"`{what}` requires h5py (pip install 'scopeflow[keras]' or "
                          "h5py).") from None
    return h5py


# Attributes over this many bytes go into numbered chunks (``layer_names0``, ...), as Keras
# splits them: HDF5 object headers hold at most 64 KiB.
HDF5_OBJECT_HEADER_LIMIT = 64512


def save_attributes_to_hdf5_group(group, name, data):
    """``group.attrs[name] = data``, split into ``name0``, ``name1``... when too large."""
    data_npy = np.asarray(data)
    num_chunks = 1
    chunked = np.array_split(data_npy, num_chunks)
    while any(x.nbytes > HDF5_OBJECT_HEADER_LIMIT for x in chunked):
        num_chunks += 1
        chunked = np.array_split(data_npy, num_chunks)
    if num_chunks > 1:
        for chunk_id, chunk in enumerate(chunked):
            group.attrs[f"{name}{chunk_id}"] = chunk
    else:
        group.attrs[name] = data


def load_attributes_from_hdf5_group(group, name):
    """The strings ``save_attributes_to_hdf5_group`` stored (chunked or not)."""
    if name in group.attrs:
        return _decode(group.attrs[name])
    data, chunk_id = [], 0
    while f"{name}{chunk_id}" in group.attrs:
        data += _decode(group.attrs[f"{name}{chunk_id}"])
        chunk_id += 1
    return data


def _decode(values):
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def _layers(model):
    return [layer for layer in model.layers]


def _save_subset(group, weights):
    values = K.batch_get_value(weights)
    names = [w.name.encode("utf8") for w in weights]
    save_attributes_to_hdf5_group(group, "weight_names", names)
    for name, value in zip(names, values):
        value = np.asarray(value)
        dataset = group.create_dataset(name.decode("utf8"), value.shape, dtype=value.dtype)
        dataset[()] = value


def save_weights_to_hdf5_group(f, model):
    """Keras's weights layout in ``f`` (a file or the ``model_weights`` group): attrs
    ``layer_names``, ``backend``, ``keras_version``; a group per layer (in name order) with
    ``weight_names`` and its weights (``dense/dense/kernel:0``), trainable ones first; and
    ``top_level_model_weights`` (the model's own weights, none for Sequential/functional)."""
    layers = _layers(model)
    save_attributes_to_hdf5_group(f, "layer_names", [layer.name.encode("utf8")
                                                     for layer in layers])
    f.attrs["backend"] = b"tensorflow"
    f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in sorted(layers, key=lambda layer: layer.name):
        _save_subset(f.create_group(layer.name),
                     layer.trainable_weights + layer.non_trainable_weights)
    _save_subset(f.create_group("top_level_model_weights"),
                 list(getattr(model, "_trainable_weights", [])) +
                 list(getattr(model, "_non_trainable_weights", [])))


def save_weights_to_hdf5(model, filepath):
    """``model.save_weights('w.h5')``: Keras's weights file (``save_weights_to_hdf5_group``)."""
    h5py = _need_h5py("save_weights")
    with h5py.File(filepath, "w") as f:
        save_weights_to_hdf5_group(f, model)


def _stored_weights(f):
    layer_names = load_attributes_from_hdf5_group(f, "layer_names")
    stored = {}
    for name in layer_names:
        group = f[name]
        stored[name] = [np.asarray(group[w])
                        for w in load_attributes_from_hdf5_group(group, "weight_names")]
    return layer_names, stored


def load_weights_from_hdf5_group(f, model, by_name=False):
    """Sets the model's weights from Keras's layout in ``f``: layer by layer in order (the
    layers with weights), or matched by layer name."""
    layer_names, stored = _stored_weights(f)
    tuples = []
    if by_name:
        for layer in _layers(model):
            if layer.name in stored:
                values = stored[layer.name]
                if len(values) != len(layer.weights):
                    raise ValueError(f"Layer named \"{layer.name}\" expects "
                                     f"{len(layer.weights)} weight(s), but the saved "
                                     f"weights have {len(values)} element(s).")
                tuples += list(zip(layer.weights, values))
    else:
        with_weights = [layer for layer in _layers(model) if layer.weights]
        saved = [name for name in layer_names if stored[name]]
        if len(saved) != len(with_weights):
            raise ValueError(f"You are trying to load a weight file containing "
                             f"{len(saved)} layers into a model with "
                             f"{len(with_weights)} layers.")
        for layer, name in zip(with_weights, saved):
            values = stored[name]
            weights = layer.trainable_weights + layer.non_trainable_weights
            if len(values) != len(weights):
                raise ValueError(f"Layer #{with_weights.index(layer)} (named "
                                 f"\"{layer.name}\") expects {len(weights)} "
                                 f"weight(s), but the saved weights have {len(values)} "
                                 "element(s).")
            for w, v in zip(weights, values):
                if tuple(w.shape.as_list()) != v.shape:
                    raise ValueError(f"Layer weight shape {tuple(w.shape.as_list())} not "
                                     f"compatible with provided weight shape {v.shape}")
            tuples += list(zip(weights, values))
    K.batch_set_value(tuples)


def load_weights_from_hdf5(model, filepath, by_name=False):
    """Loads a Keras HDF5 weights file (or a whole-model file's ``model_weights``)."""
    h5py = _need_h5py("load_weights")
    with h5py.File(filepath, "r") as f:
        if "layer_names" not in f.attrs and "model_weights" in f:
            f = f["model_weights"]
        load_weights_from_hdf5_group(f, model, by_name=by_name)


# ── whole models (model.save / load_model) ─────────────────────────────────────────────
def _serialize_nested(config):
    """Losses and metrics as names (functions) or ``{'class_name', 'config'}`` (objects)."""
    if isinstance(config, dict):
        return {key: _serialize_nested(value) for key, value in config.items()}
    if isinstance(config, (list, tuple)):
        return [_serialize_nested(value) for value in config]
    if callable(config):
        return serialize_keras_object(config)
    return config


def _deserialize_nested(deserialize, config):
    if config is None:
        return None
    if isinstance(config, str) or (isinstance(config, dict) and "class_name" in config):
        return deserialize(config)
    if isinstance(config, dict):
        return {key: _deserialize_nested(deserialize, value) for key, value in config.items()}
    if isinstance(config, (list, tuple)):
        return [_deserialize_nested(deserialize, value) for value in config]
    raise ValueError("Saved configuration not understood. Configuration should be a "
                     f"dictionary, string, tuple or list. Received: config={config}.")


def model_metadata(model, include_optimizer=True):
    """The root attributes of a whole-model file: ``keras_version``, ``backend``,
    ``model_config`` and, for a model compiled with a Keras optimizer, ``training_config``
    (loss, metrics, loss_weights, ``optimizer_config``)."""
    model_config = json.loads(model.to_json())
    metadata = {"keras_version": KERAS_VERSION, "backend": "tensorflow",
                "model_config": {"class_name": model_config["class_name"],
                                 "config": model_config["config"]}}
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and include_optimizer and getattr(model, "_compiled", False):
        if isinstance(optimizer, optimizers.TFOptimizer):
            logging.warning("TensorFlow optimizers do not make it possible to access "
                            "optimizer attributes or optimizer state after instantiation. "
                            "As a result, we cannot save the optimizer as part of the model "
                            "save file. You will have to compile your model again after "
                            "loading it. Prefer using a TF-Keras optimizer instead (see "
                            "keras.io/optimizers).")
        else:
            metadata["training_config"] = _serialize_nested({
                "loss": model.loss, "metrics": model._compile_metrics,
                "loss_weights": model.loss_weights, "sample_weight_mode": None,
                "weighted_metrics": model._compile_weighted_metrics})
            metadata["training_config"]["optimizer_config"] = {
                "class_name": type(optimizer).__name__, "config": optimizer.get_config()}
    return metadata


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"Not JSON serializable: {value!r}")


def save_optimizer_weights_to_hdf5_group(group, optimizer):
    """``optimizer_weights``: ``weight_names`` and one dataset per variable (``iter:0``,
    then the slots, ``training/Adam/dense/kernel/m:0``)."""
    weights = optimizer.weights
    if weights:
        _save_subset(group.create_group("optimizer_weights"), weights)


def load_optimizer_weights_from_hdf5_group(group):
    """``(names, values)`` of a file's ``optimizer_weights``."""
    weights_group = group["optimizer_weights"]
    names = load_attributes_from_hdf5_group(weights_group, "weight_names")
    return names, [np.asarray(weights_group[name]) for name in names]


def ask_to_proceed_with_overwrite(filepath):
    """Asks on the terminal whether to overwrite ``filepath`` (Keras's prompt)."""
    overwrite = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while overwrite not in ("y", "n"):
        overwrite = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if overwrite == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


def is_hdf5_filepath(filepath):
    return str(filepath).endswith((".h5", ".keras", ".hdf5"))


def save_model_to_hdf5(model, filepath, overwrite=True, include_optimizer=True):
    """``model.save('m.h5')``: the architecture (``model_config``), the compile arguments
    (``training_config``), the weights (``model_weights``) and the optimizer's state
    (``optimizer_weights``) in one HDF5 file, laid out as tf_keras writes it."""
    h5py = _need_h5py("save_model")
    if not (hasattr(model, "get_config") and model._is_graph_network):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model or "
            "a Sequential model. It does not work for subclassed models, because such models "
            "are defined via the body of a Python method, which isn't safely serializable.")
    opened = not isinstance(filepath, h5py.File)
    if opened:
        filepath = os.fspath(filepath)
        if not overwrite and os.path.isfile(filepath) and \
                not ask_to_proceed_with_overwrite(filepath):
            return
        dirpath = os.path.dirname(filepath)
        if dirpath and not os.path.exists(dirpath):
            os.makedirs(dirpath)
        f = h5py.File(filepath, mode="w")
    else:
        f = filepath
    try:
        for key, value in model_metadata(model, include_optimizer).items():
            if isinstance(value, (dict, list, tuple)):
                f.attrs[key] = json.dumps(value, default=_json_default).encode("utf8")
            else:
                f.attrs[key] = value
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        optimizer = getattr(model, "optimizer", None)
        if include_optimizer and optimizer is not None and \
                "training_config" in f.attrs:
            save_optimizer_weights_to_hdf5_group(f, optimizer)
        f.flush()
    finally:
        if opened:
            f.close()


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    """``model.save``/``tf.keras.models.save_model``: HDF5 unless ``save_format`` says
    otherwise (TF1's default, which tf_keras keeps in graph mode: a path without ``.h5``
    is an HDF5 file too; ``.keras`` is HDF5 as in TF 1.x); the SavedModel
    (``save_format='tf'``) and Keras v3 (``'keras_v3'``) formats are not implemented."""
    h5py = _need_h5py("save_model")
    if not isinstance(filepath, h5py.File):
        filepath = os.fspath(filepath)
    save_format = {None: "h5", "h5": "h5", "hdf5": "h5", "keras": "h5", "tf": "tf",
                   "tensorflow": "tf", "keras_v3": "keras_v3"}.get(save_format, save_format)
    if save_format not in ("h5", "tf", "keras_v3"):
        raise ValueError("Unknown `save_format` argument. Expected one of 'keras', 'tf', or "
                         f"'h5'. Received: save_format={save_format}")
    if save_format == "tf":
        raise NotImplementedError(
            f"tf.keras.models.save_model in the SavedModel format (save_format='tf', path "
            f"{filepath!r}) is not implemented in scopeflow; save to HDF5 (the default, or "
            "save_format='h5')")
    if save_format == "keras_v3":
        raise NotImplementedError(
            "tf.keras.models.save_model in the Keras v3 format (save_format='keras_v3') is "
            "not implemented in scopeflow (tf_keras writes it only in eager mode); save to "
            "HDF5")
    save_model_to_hdf5(model, filepath, overwrite, include_optimizer)


def compile_args_from_training_config(training_config, custom_objects=None):
    """``model.compile``'s arguments from a file's ``training_config``."""
    custom_objects = custom_objects or {}
    with CustomObjectScope(custom_objects):
        optimizer = optimizers.deserialize(_legacy_optimizer_config(
            training_config["optimizer_config"]), custom_objects=custom_objects)
        loss = _deserialize_nested(losses.deserialize, training_config.get("loss"))
        metrics = _deserialize_nested(_deserialize_metric, training_config.get("metrics"))
        weighted = _deserialize_nested(_deserialize_metric,
                                       training_config.get("weighted_metrics"))
    return {"optimizer": optimizer, "loss": loss, "metrics": metrics,
            "weighted_metrics": weighted, "loss_weights": training_config.get("loss_weights")}


# What tf_keras's TF2 (eager) optimizers add to their configs, and the values that make
# them the graph-mode optimizers' equals.
_NEW_OPTIMIZER_DEFAULTS = {"weight_decay": None, "use_ema": False, "clipnorm": None,
                           "clipvalue": None, "global_clipnorm": None}
_NEW_OPTIMIZER_IGNORED = ("ema_momentum", "ema_overwrite_frequency", "jit_compile",
                          "is_legacy_optimizer")


def _legacy_optimizer_config(config):
    """A file tf_keras wrote in eager mode names its optimizer ``Custom>Adam`` with the new
    optimizers' settings: as the graph-mode optimizer when those are at their defaults."""
    class_name, settings = config["class_name"], dict(config["config"])
    if not class_name.startswith("Custom>") and "is_legacy_optimizer" not in settings:
        return config
    class_name = class_name[len("Custom>"):] if class_name.startswith("Custom>") else class_name
    for key in _NEW_OPTIMIZER_IGNORED:
        settings.pop(key, None)
    for key, default in _NEW_OPTIMIZER_DEFAULTS.items():
        if key in settings and settings[key] == default:
            del settings[key]
    unsupported = sorted(set(settings) & {"weight_decay", "use_ema"})
    if unsupported:
        raise NotImplementedError(f"load_model: the optimizer {class_name}'s "
                                  f"{unsupported} (tf_keras's TF2 optimizers) are not "
                                  "implemented in scopeflow; load with compile=False")
    return {"class_name": class_name, "config": settings}


def _deserialize_metric(config):
    # Keras resolves these by the output's shape in compile: keep the string.
    if config in ("accuracy", "acc", "crossentropy", "ce"):
        return config
    if isinstance(config, dict) and config.get("class_name") == "MeanMetricWrapper":
        return metrics_module.deserialize(config["config"]["fn"])  # eager tf_keras's files
    return metrics_module.deserialize(config)


def optimizer_values_in_order(optimizer, names, values):
    """The saved optimizer values in ``optimizer.weights``' order. Graph-mode files list
    them in that order already; tf_keras's eager optimizers write ``iteration:0`` then
    ``Adam/m/dense/kernel:0``, ``Adam/v/dense/kernel:0``, ... (per variable), which are
    matched here by variable and slot name."""
    if not names or names[0] != "iteration:0":
        return values
    by_name = {"iter": values[0]}
    for name, value in zip(names[1:], values[1:]):
        parts = name.rsplit(":", 1)[0].split("/")
        if len(parts) < 3:
            return values
        by_name[f"{'/'.join(parts[2:])}/{parts[1]}"] = value
    slot_names = {id(slot): f"{var_name}/{slot_name}"
                  for (var_name, slot_name), slot in optimizer._named_slots().items()}
    ordered = []
    for weight in optimizer.weights:
        key = "iter" if weight is optimizer.iterations else slot_names.get(id(weight))
        if key not in by_name:
            return values
        ordered.append(by_name[key])
    return ordered


def _saver(model):
    if not hasattr(model, "_keras_saver"):
        with model.weights[0].graph.as_default():
            model._keras_saver = Saver(var_list=model.weights)
    return model._keras_saver


def save_weights_to_checkpoint(model, filepath):
    """A TF checkpoint (``filepath.index``/``.data-*``) of the model's weights, by name."""
    _saver(model).save(K.get_session(), filepath, write_meta_graph=False)


def load_weights_from_checkpoint(model, filepath):
    _saver(model).restore(K.get_session(), filepath)


