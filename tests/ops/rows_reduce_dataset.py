"""Op-table entry for ``Dataset.reduce``'s op (``ReduceDataset``): it runs a traced function
over a whole dataset, so it has no row of its own; tests/unit/data/test_dataset_elements.py
compares it with real TensorFlow (values, state shapes, names, errors)."""

from __future__ import annotations

ROWS: list = []
EXEMPT = {"ReduceDataset": "Dataset.reduce's op; compared live with TF in "
          "tests/unit/data/test_dataset_elements.py"}
