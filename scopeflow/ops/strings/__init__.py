"""String ops (``tf.strings``): hashing, transforms, splitting and joining, formatting."""
