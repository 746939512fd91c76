"""``tf.estimator.export``'s outputs: what a served model returns, one signature each."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor
from scopeflow.saved_model import signature_def_utils


class ExportOutput:
    """One output of an exported model; ``as_signature_def`` makes its ``SignatureDef``."""

    _SEPARATOR_CHAR = "/"

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError(f"{type(self).__name__}.as_signature_def")


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{what} input must be a single string Tensor; got "
                         f"{receiver_tensors}")
    (examples,) = receiver_tensors.values()
    if examples.dtype != dtypes.string:
        raise ValueError(f"{what} input must be a single string Tensor; got "
                         f"{receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Scores and/or classes of a classifier (the ``classify`` signature)."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, Tensor)
                                       and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, Tensor)
                                        and classes.dtype == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("Cannot create a ClassificationOutput with empty arguments. At "
                             "least one of `scores` and `classes` must be defined.")
        self._scores, self._classes = scores, classes

    scores = property(lambda self: self._scores)
    classes = property(lambda self: self._classes)

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return signature_def_utils.classification_signature_def(examples, self._classes,
                                                                self._scores)


class RegressionOutput(ExportOutput):
    """The value of a regressor (the ``regress`` signature)."""

    def __init__(self, value):
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self._value = value

    value = property(lambda self: self._value)

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return signature_def_utils.regression_signature_def(examples, self._value)


class PredictOutput(ExportOutput):
    """Any named tensors (the ``predict`` signature); a lone tensor is named ``output``."""

    _SINGLE_OUTPUT_DEFAULT_NAME = "output"

    def __init__(self, outputs):
        if not isinstance(outputs, dict):
            outputs = {self._SINGLE_OUTPUT_DEFAULT_NAME: outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string; got {key}.")
            if not isinstance(value, Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value}.")
        self._outputs = outputs

    outputs = property(lambda self: self._outputs)

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.predict_signature_def(receiver_tensors, self._outputs)
