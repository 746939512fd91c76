"""Functions for downloading and reading MNIST data (TF1's ``input_data`` module).

As in TF1 this module only re-exports ``scopeflow.datasets.mnist``::

    from scopeflow.examples.tutorials.mnist import input_data
    mnist = input_data.read_data_sets('MNIST_data', one_hot=True)
"""

from scopeflow.datasets.mnist import (  # noqa: F401
    DataSet,
    Datasets,
    dense_to_one_hot,
    extract_images,
    extract_labels,
    maybe_download,
    read_data_sets,
)
