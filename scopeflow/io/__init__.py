"""File formats TensorFlow and TensorBoard read: protobuf messages, CRC32C, TFRecord
framing, LevelDB tables and tensor bundles (checkpoint V2). Nothing here knows about
graphs or sessions.

This package is also ``tf.io``: its TF1 names (``TFRecordWriter``, ``parse_example``,
``gfile``...) live in modules above it and are set on it by ``scopeflow/api/io.py``."""
