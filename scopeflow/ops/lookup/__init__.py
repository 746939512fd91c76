"""Lookup tables (``tf.lookup``): hash tables kept per session, their initializers, and
``tf.tables_initializer``."""
