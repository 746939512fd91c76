"""The op families, one folder each; ``array_ops``, ``math_ops`` and ``nn_ops`` re-export them
under TF's module names. docs/ARCHITECTURE.md ("Op families") gives their order."""
