"""Ops that run user Python: ``tf.py_func``, ``tf.numpy_function``, ``tf.py_function``."""
