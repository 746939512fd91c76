"""Runnable programs: the seeds' tutorials and the main job (``python -m
scopeflow.examples.mnist_cnn``, also ``scopeflow train-mnist``)."""
