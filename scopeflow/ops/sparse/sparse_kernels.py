"""NumPy helpers the sparse kernels share: validation with TF's messages, and grouping of
index rows (row-major keys) so that kernels stay vectorised."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors

__all__ = ["invalid", "check_sparse", "row_keys", "match_rows", "normalize_axes"]


def invalid(message):
    """An ``InvalidArgumentError`` as a kernel raises it."""
    return errors.InvalidArgumentError(None, None, message)


def check_sparse(indices, values, shape, what="input"):
    """The (indices, values, shape) triple's own consistency, as TF's kernels check it."""
    indices, shape = np.asarray(indices), np.asarray(shape)
    if indices.ndim != 2:
        raise invalid(f"{what}_indices should be a matrix but received shape "
                      f"{list(indices.shape)}")
    if np.ndim(values) != 1:
        raise invalid(f"{what}_values should be a vector but received shape "
                      f"{list(np.shape(values))}")
    if shape.ndim != 1:
        raise invalid(f"{what}_shape should be a vector but received shape {list(shape.shape)}")
    if indices.shape[0] != np.shape(values)[0]:
        raise invalid(f"Number of elements in {what}_indices ({indices.shape[0]}) and "
                      f"{what}_values ({np.shape(values)[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        raise invalid(f"Input shape rank ({shape.shape[0]}) and indices rank "
                      f"({indices.shape[1]}) do not match")
    return indices.astype(np.int64, copy=False), np.asarray(values), shape.astype(np.int64)


def row_keys(indices, shape):
    """Row-major linear positions of ``indices`` in a tensor of ``shape`` (int64)."""
    indices = np.asarray(indices, np.int64)
    if indices.shape[1] == 0:
        return np.zeros(len(indices), np.int64)
    strides = np.ones(len(shape), np.int64)
    if len(shape) > 1:
        strides[:-1] = np.cumprod(np.asarray(shape[:0:-1], np.int64))[::-1]
    return indices @ strides


def match_rows(keys, table):
    """For each row of ``keys``, its position in the rows of ``table`` (-1 where absent)."""
    keys, table = np.asarray(keys, np.int64), np.asarray(table, np.int64)
    if len(table) == 0 or len(keys) == 0:
        return np.full(len(keys), -1, np.int64)
    both = np.concatenate([table, keys]).reshape(len(table) + len(keys), -1)
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    where = np.full(inverse.max() + 1, -1, np.int64)
    where[inverse[:len(table)][::-1]] = np.arange(len(table))[::-1]  # first occurrence
    return where[inverse[len(table):]]


def normalize_axes(axes, rank):
    """Reduction axes in ``[0, rank)`` (negative ones counted from the end), as TF checks."""
    axes = np.asarray(axes, np.int64).reshape(-1)
    bad = (axes < -rank) | (axes >= rank)
    if bad.any():
        raise invalid(f"Invalid reduction dimension {axes[bad][0]}, for input with {rank} "
                      f"dimensions.")
    return np.unique(np.where(axes < 0, axes + rank, axes))
