"""Variable ops and their updates: assignments and scatters, the optimizers' apply ops,
initializers."""
