"""Saving a model's weights: Keras's HDF5 layout (one group per layer, its ``weight_names``
attribute, one dataset per weight; needs h5py) and TF checkpoints (a ``tf.train.Saver`` over
the model's weights, in Keras's session)."""

from __future__ import annotations

import numpy as np

from scopeflow.keras import backend as K
from scopeflow.train.saver import Saver

__all__ = ["save_weights_to_hdf5", "load_weights_from_hdf5", "save_weights_to_checkpoint",
           "load_weights_from_checkpoint"]

def _need_h5py(what):
    """h5py, imported on first use: it is optional (the `keras` extra), as for tf_keras, and
    `import scopeflow` must not load it (a fifth of a second)."""
    try:
        import h5py  # noqa: PLC0415
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"`{what}` requires h5py (pip install 'scopeflow[keras]' or "
                          "h5py).") from None
    return h5py


def _layers(model):
    return [layer for layer in model.layers]


def save_weights_to_hdf5(model, filepath):
    """Keras's weights file: attrs ``layer_names``, ``backend``, ``keras_version``; a group
    per layer with ``weight_names`` and its weights (``dense/dense/kernel:0``)."""
    h5py = _need_h5py("save_weights")
    with h5py.File(filepath, "w") as f:
        layers = _layers(model)
        f.attrs["layer_names"] = [layer.name.encode("utf8") for layer in layers]
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.21.0"
        for layer in layers:
            group = f.create_group(layer.name)
            weights = layer.weights
            values = K.batch_get_value(weights)
            names = [w.name.encode("utf8") for w in weights]
            group.attrs["weight_names"] = names
            for name, value in zip(names, values):
                dataset = group.create_dataset(name.decode("utf8"), value.shape,
                                               dtype=value.dtype)
                dataset[...] = value if value.shape else value


def _decode(values):
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def load_weights_from_hdf5(model, filepath, by_name=False):
    """Loads a Keras HDF5 weights file: layer by layer in order, or matched by name."""
    h5py = _need_h5py("load_weights")
    with h5py.File(filepath, "r") as f:
        if "layer_names" not in f.attrs and "model_weights" in f:
            f = f["model_weights"]
        layer_names = _decode(f.attrs["layer_names"])
        stored = {}
        for name in layer_names:
            group = f[name]
            weight_names = _decode(group.attrs["weight_names"])
            stored[name] = [np.asarray(group[w]) for w in weight_names]
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
                if len(values) != len(layer.weights):
                    raise ValueError(f"Layer #{with_weights.index(layer)} (named "
                                     f"\"{layer.name}\") expects {len(layer.weights)} "
                                     f"weight(s), but the saved weights have {len(values)} "
                                     "element(s).")
                for w, v in zip(layer.weights, values):
                    if tuple(w.shape.as_list()) != v.shape:
                        raise ValueError(f"Layer weight shape {tuple(w.shape.as_list())} not "
                                         f"compatible with provided weight shape {v.shape}")
                tuples += list(zip(layer.weights, values))
        K.batch_set_value(tuples)


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


