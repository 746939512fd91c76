"""Neural-network ops: activations, losses, normalization, top-k, convolutions and pooling
(2-D and 3-D), embeddings, and the composites built from them."""
