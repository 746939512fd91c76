"""Keras's engine: ``Layer`` and ``Node`` (base_layer), ``InputLayer``/``Input``, the
functional ``Network``/``Model``, ``Sequential`` and the training loop."""
