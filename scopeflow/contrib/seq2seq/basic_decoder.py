"""``tf.contrib.seq2seq.BasicDecoder`` (TF 1.15): one cell step, an optional output
layer, then the helper's sampling and next inputs.

Its variables are the cell's and the output layer's, under the scope ``dynamic_decode``
opens (``decoder/basic_lstm_cell/kernel``, ``decoder/dense/kernel``).
"""

from __future__ import annotations

import collections

from scopeflow.contrib.seq2seq.decoder import Decoder
from scopeflow.contrib.seq2seq.helper import Helper
from scopeflow.framework.graph import name_scope
from scopeflow.framework.nest import flatten, map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.layers.base import Layer

__all__ = ["BasicDecoderOutput", "BasicDecoder"]


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    """One step's outputs: the (projected) cell output and the helper's sample ids."""


def _layer_output_size(layer, size):
    """The output layer's output size for an input of ``size`` (no batch dimension):
    ``compute_output_shape`` where the layer has it, else a Dense layer's ``units``."""
    if hasattr(layer, "compute_output_shape"):
        shape = layer.compute_output_shape(TensorShape([None]).concatenate(size))
        return TensorShape(shape)[1:]
    return TensorShape(size)[:-1].concatenate([layer.units])


class BasicDecoder(Decoder):
    """Runs ``cell`` on the helper's inputs; ``output_layer`` (a ``tf.layers`` layer, e.g.
    ``Dense(vocab_size)``) maps the cell output to logits before sampling."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        if not callable(cell) or not hasattr(cell, "output_size") \
                or not hasattr(cell, "state_size"):
            raise TypeError(f"The argument 'cell' ({cell}) is not an RNNCell: 'output_size' "
                            "property is missing, 'state_size' property is missing, "
                            "is not callable.")
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        return map_structure(
            lambda s: _layer_output_size(self._output_layer, TensorShape(s)), size)

    @property
    def output_size(self):
        return BasicDecoderOutput(rnn_output=self._rnn_output_size(),
                                  sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(map_structure(lambda _: dtype, self._rnn_output_size()),
                                  self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        """``(finished, first_inputs, initial_state)``: the helper's start and the state
        given to the constructor."""
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        """One decoding step; returns ``(BasicDecoderOutput, next_state, next_inputs,
        finished)``."""
        with name_scope(name or "BasicDecoderStep"):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs,
                                             state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        outputs = BasicDecoderOutput(cell_outputs, sample_ids)
        return outputs, next_state, next_inputs, finished
