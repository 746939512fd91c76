"""``tf.saved_model.signature_def_utils``: ``SignatureDef`` protos, the named inputs and
outputs (and method name) TensorFlow Serving calls a SavedModel's graph by.

The builders check what TF checks (Serving's Classify and Regress APIs take serialized
``tf.Example`` strings and return float scores or predictions), with TF's errors.
"""

from __future__ import annotations

from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_tensor_proto
from scopeflow.saved_model import signature_constants as sc
from scopeflow.saved_model import utils_impl

__all__ = ["build_signature_def", "predict_signature_def", "classification_signature_def",
           "regression_signature_def", "is_valid_signature", "op_signature_def",
           "load_op_from_signature_def"]

_DT_STRING = protos.DATA_TYPE.values_by_name["DT_STRING"].number
_DT_FLOAT = protos.DATA_TYPE.values_by_name["DT_FLOAT"].number


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A ``SignatureDef`` of ``inputs`` and ``outputs`` (dicts of ``TensorInfo``), its
    ``method_name``, and ``defaults``: constant tensors whose values an input takes when
    the caller does not feed it."""
    signature_def = protos.SignatureDef()
    for key in inputs or ():
        signature_def.inputs[key].CopyFrom(inputs[key])
    for key in outputs or ():
        signature_def.outputs[key].CopyFrom(outputs[key])
    if method_name is not None:
        signature_def.method_name = method_name
    for arg_name, default in (defaults or {}).items():
        op = getattr(default, "op", None)
        if op is None or op.type != "Const":
            raise ValueError(f"Unable to convert object {default!s} of type "
                             f"{type(default)} to TensorProto.")
        signature_def.defaults[arg_name].CopyFrom(
            make_tensor_proto(op.get_attr("value"), dtype=default.dtype))
    return signature_def


def regression_signature_def(examples, predictions):
    """A Regress signature: serialized examples (string) in, float ``predictions`` out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Expected regression `examples` to be of type Tensor. Found "
                         f"`examples` of type {type(examples)}.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_info = utils_impl.build_tensor_info(examples)
    if input_info.dtype != _DT_STRING:
        raise ValueError("Regression input tensors must be of type string. Found tensors "
                         f"with type {input_info.dtype}.")
    output_info = utils_impl.build_tensor_info(predictions)
    if output_info.dtype != _DT_FLOAT:
        raise ValueError("Regression output tensors must be of type float. Found tensors "
                         f"with type {output_info.dtype}.")
    return build_signature_def({sc.REGRESS_INPUTS: input_info},
                               {sc.REGRESS_OUTPUTS: output_info}, sc.REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores):
    """A Classify signature: serialized examples in; string ``classes`` and/or float
    ``scores`` out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Classification `examples` must be a string Tensor. Found "
                         f"`examples` of type {type(examples)}.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_info = utils_impl.build_tensor_info(examples)
    if input_info.dtype != _DT_STRING:
        raise ValueError("Classification input tensors must be of type string. Found "
                         f"tensors of type {input_info.dtype}")
    outputs = {}
    if classes is not None:
        info = utils_impl.build_tensor_info(classes)
        if info.dtype != _DT_STRING:
            raise ValueError("Classification classes must be of type string Tensor. Found "
                             f"tensors of type {info.dtype}.`")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = utils_impl.build_tensor_info(scores)
        if info.dtype != _DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({sc.CLASSIFY_INPUTS: input_info}, outputs,
                               sc.CLASSIFY_METHOD_NAME)


def predict_signature_def(inputs, outputs):
    """A Predict signature: any named tensors in and out (dicts of tensors)."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {key: utils_impl.build_tensor_info(t) for key, t in inputs.items()},
        {key: utils_impl.build_tensor_info(t) for key, t in outputs.items()},
        sc.PREDICT_METHOD_NAME)


def is_valid_signature(signature_def):
    """Whether ``signature_def`` is a well-formed Classify, Regress or Predict signature."""
    if signature_def is None:
        return False
    return (_is_valid_classification(signature_def) or _is_valid_regression(signature_def)
            or _is_valid_predict(signature_def))


def _is_valid_predict(sig):
    return sig.method_name == sc.PREDICT_METHOD_NAME and bool(sig.inputs) and \
        bool(sig.outputs)


def _is_valid_regression(sig):
    return (sig.method_name == sc.REGRESS_METHOD_NAME
            and set(sig.inputs) == {sc.REGRESS_INPUTS}
            and sig.inputs[sc.REGRESS_INPUTS].dtype == _DT_STRING
            and set(sig.outputs) == {sc.REGRESS_OUTPUTS}
            and sig.outputs[sc.REGRESS_OUTPUTS].dtype == _DT_FLOAT)


def _is_valid_classification(sig):
    if sig.method_name != sc.CLASSIFY_METHOD_NAME:
        return False
    if set(sig.inputs) != {sc.CLASSIFY_INPUTS} or \
            sig.inputs[sc.CLASSIFY_INPUTS].dtype != _DT_STRING:
        return False
    outputs = set(sig.outputs)
    if not outputs or outputs - {sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES}:
        return False
    for key, dtype in ((sc.CLASSIFY_OUTPUT_CLASSES, _DT_STRING),
                       (sc.CLASSIFY_OUTPUT_SCORES, _DT_FLOAT)):
        if key in sig.outputs and sig.outputs[key].dtype != dtype:
            return False
    return True


def op_signature_def(op, key):
    """The signature TF2's builder stores an init or train op in (under a reserved key)."""
    return build_signature_def(outputs={key: utils_impl.build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def, key, import_scope=None):
    """The op a reserved signature (``__saved_model_init_op``) names, in the default graph."""
    try:
        return utils_impl.get_element_from_tensor_info(signature_def.outputs[key],
                                                       import_scope=import_scope)
    except KeyError:
        raise errors.NotFoundError(
            None, None, f'The key "{key}" could not be found in the graph. Please make sure '
            "the SavedModel was created by the internal _SavedModelBuilder. If you are using "
            "the public API, please make sure the SignatureDef in the SavedModel does not "
            f'contain the key "{key}".') from None
