"""TF's ``tensorflow.python.platform``: files (``gfile``), flags, ``app.run``, ``tf.logging``,
``tf.test`` and ``tf.python_io``; standard-library code that needs no graph."""
