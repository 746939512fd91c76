"""``tf.estimator.export``: serving input receivers and the exported model's signatures."""

from __future__ import annotations

import collections
import os
import time

from scopeflow.estimator.export_output import (
    ClassificationOutput,
    ExportOutput,
    PredictOutput,
    RegressionOutput,
)
from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops.array_ops import placeholder
from scopeflow.ops.io.parsing_ops import parse_example
from scopeflow.platform import tf_logging as logging
from scopeflow.saved_model import signature_constants, signature_def_utils

__all__ = ["ClassificationOutput", "ExportOutput", "PredictOutput", "RegressionOutput",
           "ServingInputReceiver", "TensorServingInputReceiver",
           "build_parsing_serving_input_receiver_fn", "build_raw_serving_input_receiver_fn"]

_SINGLE_FEATURE_DEFAULT_NAME = "feature"
_SINGLE_RECEIVER_DEFAULT_NAME = "input"


def _wrap_and_check(tensors, field_name, default_name):
    if tensors is None:
        raise ValueError(f"{field_name} must be defined.")
    if not isinstance(tensors, dict):
        tensors = {default_name: tensors}
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            raise ValueError(f"{field_name} keys must be strings: {name}.")
        if not isinstance(tensor, (Tensor, SparseTensor)) and not hasattr(tensor, "dtype"):
            raise ValueError(f"{field_name} must be a Tensor, SparseTensor, or RaggedTensor.")
    return tensors


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """The features the ``model_fn`` sees and the tensors a serving request feeds."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _wrap_and_check(features, "feature", _SINGLE_FEATURE_DEFAULT_NAME)
        receiver_tensors = _wrap_and_check(receiver_tensors, "receiver_tensor",
                                           _SINGLE_RECEIVER_DEFAULT_NAME)
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError(f"receiver_tensors_alternatives must be a dict: "
                                 f"{receiver_tensors_alternatives}.")
            receiver_tensors_alternatives = {
                k: _wrap_and_check(v, "receiver_tensors_alternative",
                                   _SINGLE_RECEIVER_DEFAULT_NAME)
                for k, v in receiver_tensors_alternatives.items()}
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """Like ``ServingInputReceiver`` but ``features`` is one tensor, passed as is."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        receiver = ServingInputReceiver({_SINGLE_FEATURE_DEFAULT_NAME: features},
                                        receiver_tensors, receiver_tensors_alternatives)
        return super().__new__(cls, features, receiver.receiver_tensors,
                               receiver.receiver_tensors_alternatives)


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn that parses serialized ``tf.Example`` protos (input ``examples``)."""

    def serving_input_receiver_fn():
        serialized = placeholder(dtype=dtypes.string, shape=[default_batch_size],
                                 name="input_example_tensor")
        features = parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def _placeholder_from_tensor(t, default_batch_size=None):
    shape = [default_batch_size] + list(t.get_shape().as_list()[1:]) \
        if t.get_shape().ndims is not None else None
    return placeholder(dtype=t.dtype, shape=shape, name=t.op.name)


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn that feeds the given tensors' shapes and dtypes (placeholders named as
    they are), one feature each."""

    def serving_input_receiver_fn():
        if isinstance(features, dict):
            receiver = {name: _placeholder_from_tensor(t, default_batch_size)
                        for name, t in features.items()}
            return ServingInputReceiver(receiver, dict(receiver))
        receiver = _placeholder_from_tensor(features, default_batch_size)
        return TensorServingInputReceiver(receiver, receiver)

    return serving_input_receiver_fn


_FRIENDLY_METHOD_NAMES = {
    signature_constants.CLASSIFY_METHOD_NAME: "Classify",
    signature_constants.REGRESS_METHOD_NAME: "Regress",
    signature_constants.PREDICT_METHOD_NAME: "Predict",
    "tensorflow/supervised/training": "Train",
    "tensorflow/supervised/eval": "Eval",
}


def build_all_signature_defs(receiver_tensors, export_outputs,
                             receiver_tensors_alternatives=None, serving_only=True):
    """One ``SignatureDef`` per export output (and per alternative receiver); outputs that
    do not fit the receiver (a classify signature over non-string inputs) are left out and
    reported, as TF does."""
    if not isinstance(receiver_tensors, dict):
        receiver_tensors = {_SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
    if export_outputs is None or not isinstance(export_outputs, dict):
        raise ValueError(f"export_outputs must be a dict and not{type(export_outputs)}")
    signature_def_map, excluded = {}, {}
    for key, output in export_outputs.items():
        name = f"{key or 'None'}"
        try:
            signature_def_map[name] = output.as_signature_def(receiver_tensors)
        except ValueError as e:
            excluded[name] = str(e)
    for alt_name, alt in (receiver_tensors_alternatives or {}).items():
        for key, output in export_outputs.items():
            name = f"{alt_name or 'None'}:{key or 'None'}"
            try:
                signature_def_map[name] = output.as_signature_def(alt)
            except ValueError as e:
                excluded[name] = str(e)
    _log_signature_report(signature_def_map, excluded)
    return {k: v for k, v in signature_def_map.items()
            if signature_def_utils.is_valid_signature(v)}


def _log_signature_report(signature_def_map, excluded):
    by_method = collections.defaultdict(list)
    for name, sig in signature_def_map.items():
        by_method[_FRIENDLY_METHOD_NAMES.get(sig.method_name, sig.method_name)].append(name)
    for method in _FRIENDLY_METHOD_NAMES.values():
        logging.info("Signatures INCLUDED in export for %s: %s", method,
                     by_method[method] if method in by_method else None)
    if excluded:
        logging.info("Signatures EXCLUDED from export because they cannot be be served via "
                     "TensorFlow Serving APIs:")
        for name, message in excluded.items():
            logging.info("'%s' : %s", name, message)
    if not signature_def_map:
        logging.warning("Export includes no signatures!")
    elif signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signature_def_map:
        logging.warning("Export includes no default signature!")


def get_timestamped_export_dir(export_dir_base):
    """``export_dir_base/<seconds since the epoch>`` (bytes), a name not yet taken."""
    attempts = 0
    while attempts < 10:
        timestamp = int(time.time())
        result = os.path.join(os.fsencode(export_dir_base), str(timestamp).encode())
        if not os.path.exists(result):
            return result
        time.sleep(1)
        attempts += 1
        logging.warning("Directory %s already exists; retrying (attempt %d/10)",
                        os.fsdecode(result), attempts)
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")


def get_temp_export_dir(timestamped_export_dir):
    """``temp-<timestamp>`` next to the final directory (renamed when complete)."""
    dirname, basename = os.path.split(os.fsencode(timestamped_export_dir))
    return os.path.join(dirname, b"temp-" + basename)
