"""``tf.gradients``: the reverse walk over the graph that calls each op's gradient rule."""
