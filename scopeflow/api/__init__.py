"""TF1's public namespaces, one thin module per TF namespace (``tf.nn`` is ``nn.py``, ``tf.io``
is ``io.py``), each mapping TF's names onto their implementations; ``fallback.py`` is what a
missing name raises, ``tf1_names.py`` the list of TF1's names it is checked against.

The root package (``scopeflow/__init__.py``) is ``tf`` and ``tf.compat.v1`` itself; namespaces
whose implementation is a package of their own (``tf.train``, ``tf.summary``, ``tf.layers``,
``tf.losses``, ``tf.metrics``, ``tf.data``) are that package's ``__init__.py``."""
