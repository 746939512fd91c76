"""Control flow: grouping and control dependencies, ``tf.cond``/``case``, ``tf.while_loop``,
``TensorArray`` and the functional ops (``map_fn``, ``scan``, ``foldl``, ``foldr``)."""
