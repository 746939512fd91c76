"""Data sets for the examples: ``scopeflow.datasets.mnist`` (TF1's ``read_data_sets``)."""

from scopeflow.datasets import mnist

__all__ = ["mnist"]
