"""``tf.contrib.rnn`` as TF 1.15 had it: the cells of ``tf.nn.rnn_cell`` and the static
drivers ``static_rnn`` and ``static_bidirectional_rnn`` (the same objects as
``tf.nn``'s, so variable names match: ``rnn/basic_lstm_cell/kernel``...)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.rnn.rnn import static_bidirectional_rnn, static_rnn
from scopeflow.rnn.rnn_cell import (
    BasicLSTMCell,
    BasicRNNCell,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
)

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "DropoutWrapper", "ResidualWrapper", "LSTMStateTuple", "static_rnn",
           "static_bidirectional_rnn"]


def __getattr__(name):
    """A TF 1.x name scopeflow lacks raises NotImplementedError naming it
    (scopeflow/framework/api_fallback.py)."""
    raise missing_attribute(__name__, name)
