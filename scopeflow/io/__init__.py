"""File formats TensorFlow and TensorBoard read: protobuf messages, CRC32C, TFRecord
framing, LevelDB tables and tensor bundles (checkpoint V2). Nothing here knows about
graphs or sessions."""
