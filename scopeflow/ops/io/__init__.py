"""Input and output ops: ``tf.train.Example`` parsing, decoding, file and checkpoint I/O,
and readers."""
