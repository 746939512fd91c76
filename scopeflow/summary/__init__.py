"""``tf.summary``: summary ops, ``FileWriter``, event files, and a reader."""
