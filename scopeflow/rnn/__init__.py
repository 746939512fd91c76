"""TF1's RNNs: ``tf.nn.rnn_cell``'s cells (``rnn_cell.py``) and static and dynamic RNNs
(``rnn.py``; ``dynamic_rnn`` is a ``tf.while_loop``)."""
