"""``tf.RaggedTensor``: rows of different lengths, as flat ``values`` cut by ``row_splits``.

A RaggedTensor is a graph-mode composite, as in TF: its ``values`` (a Tensor, or another
RaggedTensor for ``ragged_rank > 1``) and its int64 ``row_splits`` (``[nrows + 1]``, row
``i`` is ``values[row_splits[i]:row_splits[i + 1]]``) are ordinary tensors of the graph.
``Session.run`` fetches one as a :class:`RaggedTensorValue` (as it fetches a SparseTensor
as a SparseTensorValue). ``to_tensor`` builds TF's ``RaggedTensorToTensor`` op.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import grid_ops, indexing_ops, reverse_ops, shape_ops, slicing_ops
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math import (
    arithmetic_ops,
    count_ops,
    reduction_ops,
    scan_ops,
    sequence_ops,
)

__all__ = ["RaggedTensor", "RaggedTensorValue", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "value_from_components"]


class _NestedRows:
    """What a ragged value and a ragged tensor share: rows nested in rows of their own
    class, down to the flat values."""

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, type(self)):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, type(self)):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype


class RaggedTensorValue(_NestedRows):
    """What ``Session.run`` returns for a fetched RaggedTensor (NumPy ``values`` and
    ``row_splits``, nested like the RaggedTensor)."""

    def __init__(self, values, row_splits):
        if not (isinstance(row_splits, np.ndarray) and row_splits.dtype in (np.int64, np.int32)
                and row_splits.ndim == 1):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        self._values, self._row_splits = values, row_splits

    row_splits = property(lambda self: self._row_splits, doc="int64 ``[nrows + 1]``.")
    values = property(lambda self: self._values, doc="The rows' concatenated values.")

    @property
    def shape(self):
        return (len(self._row_splits) - 1,) + (None,) + self.flat_values.shape[1:] \
            if self.ragged_rank == 1 else \
            (len(self._row_splits) - 1,) + self._values.shape[1:]

    def to_list(self):
        """The rows as nested Python lists (bytes for strings), as TF's ``to_list``."""
        inner = self._values.to_list() if isinstance(self._values, RaggedTensorValue) \
            else self._values.tolist()
        s = self._row_splits
        return [inner[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def __repr__(self):
        return (f"tf.RaggedTensorValue(values={self._values!r}, "
                f"row_splits={self._row_splits!r})")


def _splits_tensor(x, name):
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, name=name, dtype=dtypes.int64)
    if t.dtype.base_dtype not in (dtypes.int64, dtypes.int32):
        raise TypeError(f"{name} must be int32 or int64, not {t.dtype.name}")
    if t.dtype.base_dtype != dtypes.int64:
        t = arithmetic_ops.cast(t, dtypes.int64)
    t.shape.with_rank(1)
    return t


def _values_tensor(values):
    if isinstance(values, RaggedTensor):
        return values
    return values if isinstance(values, Tensor) else convert_to_tensor(values, name="values")


class RaggedTensor(_NestedRows):
    """A ragged tensor (build one with ``from_row_splits``, ``tf.ragged.constant``, ...).

    >>> rt = tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5])
    >>> rt.shape
    TensorShape([Dimension(3), Dimension(None)])
    >>> tf.Session().run(rt).to_list()
    [[3, 1], [], [4, 1, 5]]
    """

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values, self._row_splits = values, row_splits
        # A known length shared by every row (TF's uniform_row_length) shows in the shape.
        self._uniform_row_length = uniform_row_length

    # -- factories -------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``."""
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values = _values_tensor(values)
            row_splits = _splits_tensor(row_splits, "row_splits")
            if validate:
                row_splits = _validated(row_splits, values, "from_row_splits", True)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths: ``row_splits = concat([[0], cumsum(row_lengths)])``."""
        with name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            lengths = _splits_tensor(row_lengths, "row_lengths")
            if validate:
                lengths = with_dependencies([check_ops.assert_non_negative(
                    lengths, message="Arguments to from_row_lengths do not form a valid "
                    "RaggedTensor:negative")], lengths)
            splits = slicing_ops.concat([np.zeros([1], np.int64), scan_ops.cumsum(lengths)], 0)
            values = _values_tensor(values)
            if validate:
                splits = _validated(splits, values, "from_row_lengths", False)
            return cls(values, splits, internal=True)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at ``row_starts`` (the last ends at ``nvals``)."""
        with name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values = _values_tensor(values)
            starts = _splits_tensor(row_starts, "row_starts")
            nvals = _nvals(values)
            splits = slicing_ops.concat([starts, shape_ops.reshape(nvals, [1])], 0)
            return cls(values, splits, internal=True)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at ``row_limits`` (the first starts at 0)."""
        with name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            limits = _splits_tensor(row_limits, "row_limits")
            splits = slicing_ops.concat([np.zeros([1], np.int64), limits], 0)
            return cls(_values_tensor(values), splits, internal=True)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Row ``i`` holds the values whose (sorted) ``value_rowids`` is ``i``."""
        with name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            values = _values_tensor(values)
            rowids = _splits_tensor(value_rowids, "value_rowids")
            if nrows is None:
                nrows = _reduce_max_plus_one(rowids)
            nrows = arithmetic_ops.cast(convert_to_tensor(nrows, dtype=dtypes.int64)
                                        if not isinstance(nrows, Tensor) else nrows,
                                        dtypes.int64)
            splits = segment_ids_to_row_splits(rowids, nrows)
            return cls(values, splits, internal=True)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True):
        """Nested ``from_row_splits``: ``nested_row_splits[0]`` is the outermost."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowSplits",
                        [flat_values] + list(nested_row_splits)):
            result = flat_values
            for splits in reversed(nested_row_splits):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        with name_scope(name, "RaggedFromNestedRowlengths",
                        [flat_values] + list(nested_row_lengths)):
            result = flat_values
            for lengths in reversed(nested_row_lengths):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64):
        """The rows of a dense ``tensor`` (cut at ``lengths`` or before trailing
        ``padding``), with ``ragged_rank`` ragged dimensions."""
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        with name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
            tensor = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor,
                                                                                 name="tensor")
            if tensor.shape.ndims is not None and tensor.shape.ndims <= ragged_rank:
                raise ValueError(f"ragged_rank must be less than tensor.shape.ndims: "
                                 f"ragged_rank={ragged_rank}, ndims={tensor.shape.ndims}")
            dims = tensor.shape.as_list() if tensor.shape.ndims is not None else None
            if dims is None or any(d is None for d in dims[:ragged_rank + 1]):
                raise NotImplementedError("from_tensor needs the leading dimensions' sizes")
            if ragged_rank > 1 and (lengths is not None or padding is not None):
                raise NotImplementedError("lengths/padding with ragged_rank > 1")
            if padding is not None:
                pad = convert_to_tensor(padding, dtype=tensor.dtype, name="padding")
                is_pad = arithmetic_ops.equal(tensor, pad)
                if len(dims) > 2:
                    is_pad = reduction_ops.reduce_all(is_pad, axis=list(range(2, len(dims))))
                # a row keeps up to its last non-padding value
                not_pad = arithmetic_ops.cast(arithmetic_ops.logical_not(is_pad), dtypes.int64)
                after = reverse_ops.reverse(scan_ops.cumsum(reverse_ops.reverse(not_pad, [1]),
                                                            axis=1), [1])
                keep = arithmetic_ops.greater(after, np.int64(0))
                lengths = reduction_ops.reduce_sum(arithmetic_ops.cast(keep, dtypes.int64), 1)
            flat = shape_ops.reshape(tensor, [-1] + dims[ragged_rank + 1:])
            if lengths is not None:
                lengths = _splits_tensor(lengths, "lengths")
                mask = grid_ops.sequence_mask(lengths, dims[1])
                flat = indexing_ops.boolean_mask(shape_ops.reshape(tensor, [-1] + dims[2:]),
                                                 shape_ops.reshape(mask, [-1]))
                return cls.from_row_lengths(flat, lengths, validate=False)
            nested, n = [], 1
            for level in range(ragged_rank):
                n *= dims[level]
                nested.append(np.arange(n + 1, dtype=np.int64) * dims[level + 1])
            result = flat
            for level in range(ragged_rank - 1, -1, -1):  # every row is dims[level + 1] long
                result = cls(result, convert_to_tensor(nested[level], name="row_splits"),
                             internal=True, uniform_row_length=dims[level + 1])
            return result

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """A 2-D SparseTensor's rows (its indices must be in row-major order)."""
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be tf.SparseTensor; got {type(st_input).__name__}")
        if st_input.indices.shape.ndims is None or st_input.indices.shape[1].value != 2:
            raise ValueError("rank(st_input) must be 2.")
        with name_scope(name, "RaggedFromSparse", [st_input]):
            rowids = st_input.indices[:, 0]
            nrows = st_input.dense_shape[0]
            return cls.from_value_rowids(st_input.values, rowids, nrows, validate=False)

    # -- properties ------------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="int64 ``[nrows + 1]``.")

    @property
    def row_splits_dtype(self):
        return dtypes.int64

    @property
    def graph(self):
        return self._row_splits.graph

    @property
    def shape(self) -> TensorShape:
        """``[nrows, None, ...]``: the ragged dimensions are None (TF's static shape)."""
        nrows = self._row_splits.shape[0].value
        inner = self._values.shape
        return TensorShape([None if nrows is None else nrows - 1,
                            self._uniform_row_length]).concatenate(
            inner[1:] if inner.ndims is not None else TensorShape(None))

    def get_shape(self):
        return self.shape

    # -- row partitioning ------------------------------------------------------------------
    def nrows(self, out_type=None, name=None):
        with name_scope(name, "RaggedNRows", [self]):
            n = self._row_splits.shape[0].value
            out = convert_to_tensor(np.int64(n - 1)) if n is not None else \
                arithmetic_ops.subtract(shape_ops.shape(self._row_splits,
                                                        out_type=dtypes.int64)[0], 1)
            return out if out_type in (None, dtypes.int64) else arithmetic_ops.cast(out,
                                                                                    out_type)

    def row_starts(self, name=None):
        with name_scope(name, "RaggedRowStarts", [self]):
            return self._row_splits[:-1]

    def row_limits(self, name=None):
        with name_scope(name, "RaggedRowLimits", [self]):
            return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """``row_splits[1:] - row_splits[:-1]`` (axis 1; deeper axes a RaggedTensor)."""
        if axis == 0:
            return self.nrows(name=name)
        if axis == 1:
            with name_scope(name, "RaggedRowLengths", [self]):
                return arithmetic_ops.subtract(self._row_splits[1:], self._row_splits[:-1])
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise ValueError(f"axis={axis} out of bounds")

    def value_rowids(self, name=None):
        """The row of each value (``RaggedTensor`` TF's ``segment ids``)."""
        with name_scope(name, "RaggedValueRowIds", [self]):
            return row_splits_to_segment_ids(self._row_splits)

    def nested_row_lengths(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt.values
        return tuple(out)

    # -- transformations -------------------------------------------------------------------
    def with_values(self, new_values):
        new_values = _values_tensor(new_values)
        return RaggedTensor(new_values, self._row_splits, internal=True)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        return self

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, short rows padded with ``default_value`` (TF's
        ``RaggedTensorToTensor`` op)."""
        with name_scope(name, "RaggedToTensor", [self, default_value, shape]):
            flat = self.flat_values
            if default_value is None:
                default = convert_to_tensor(np.zeros([], flat.dtype.as_numpy_dtype),
                                            name="zeros")
            else:
                default = convert_to_tensor(default_value, dtype=flat.dtype,
                                            name="default_value")
            shape_t = convert_to_tensor(np.int64(-1) if shape is None else
                                        np.asarray([-1 if d is None else d for d in
                                                    TensorShape(shape).as_list()], np.int64))
            out = ragged_tensor_to_tensor_op.bind(
                shape_t, flat, default, *self.nested_row_splits,
                row_partition_types=["ROW_SPLITS"] * self.ragged_rank,
                name="RaggedTensorToTensor")
            if shape is not None:  # a requested size replaces the inferred one, as in TF
                want, have = TensorShape(shape), out.shape
                if want.ndims is not None and have.ndims == want.ndims:
                    out._shape = TensorShape([w if w is not None else h for w, h in
                                              zip(want.as_list(), have.as_list())])
            return out

    def to_sparse(self, name=None):
        """A SparseTensor of the same values (TF's ``RaggedTensorToSparse``)."""
        with name_scope(name, "RaggedToSparse", [self]):
            idx, vals, dense = ragged_tensor_to_sparse_op.bind(
                *self.nested_row_splits, self.flat_values, RAGGED_RANK=self.ragged_rank,
                name="RaggedTensorToSparse")
            return SparseTensor(idx, vals, dense)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        with name_scope(name, "RaggedBoundingShape", [self]):
            return shape_ops.shape(self.to_tensor(), out_type=out_type or dtypes.int64)

    def __getitem__(self, key):
        """Rows by index along the outer axis, as TF's ragged ``__getitem__``: ``rt[i]`` is
        row ``i`` (a Tensor, or a RaggedTensor when rows are ragged inside), ``rt[a:b]`` the
        rows ``a`` to ``b - 1`` as a RaggedTensor; either may be followed by ``:`` or
        ``...`` for the inner axes. Other keys (strides, inner-axis indices) raise
        NotImplementedError naming the key."""
        if isinstance(key, tuple):
            if any(not (k is Ellipsis or k == slice(None)) for k in key[1:]):
                raise NotImplementedError(
                    f"RaggedTensor.__getitem__ with {key!r}: scopeflow indexes ragged "
                    "tensors along their outer axis only (rt[i], rt[a:b])")
            key = key[0] if key else Ellipsis
        if key is Ellipsis or key == slice(None):
            return self
        with name_scope(None, "RaggedGetItem", [self]):
            splits = self._row_splits
            nrows = shape_ops.shape(splits, out_type=splits.dtype)[0] - 1
            if isinstance(key, slice):
                if key.step not in (None, 1):
                    raise NotImplementedError(
                        f"RaggedTensor.__getitem__ with step {key.step!r}: scopeflow slices "
                        "ragged rows with step 1 only")
                begin = _row_bound(key.start, 0, nrows)
                end = reduction_ops.maximum(_row_bound(key.stop, nrows, nrows), begin)
                new_splits = splits[begin:end + 1]
                values = self._values[splits[begin]:splits[end]]
                return RaggedTensor(values, new_splits - splits[begin], internal=True)
            index = convert_to_tensor(key, dtype=splits.dtype)
            if index.shape.ndims != 0:
                raise TypeError(f"RaggedTensor indices must be scalars or slices, not {key!r}")
            index = reduction_ops.where_v2(index < 0, index + nrows, index)
            return self._values[splits[index]:splits[index + 1]]

    def _session_components(self):
        return self.nested_row_splits + (self.flat_values,)

    def __repr__(self):
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"


def _row_bound(bound, default, nrows):
    """A slice bound over ``nrows`` rows as Python slices take it: None is ``default``, a
    negative bound counts from the end, and the result is clamped to ``[0, nrows]``."""
    if bound is None:
        return default
    bound = convert_to_tensor(bound, dtype=nrows.dtype)
    bound = reduction_ops.where_v2(bound < 0, bound + nrows, bound)
    return reduction_ops.minimum(reduction_ops.maximum(bound, 0), nrows)


def value_from_components(parts) -> RaggedTensorValue:
    """A RaggedTensorValue from fetched ``(*nested_row_splits, flat_values)``."""
    result = parts[-1]
    for splits in reversed(parts[:-1]):
        result = RaggedTensorValue(result, splits)
    return result


def _validated(splits, values, factory, check_splits):
    """``splits`` behind TF's run-time checks: it starts at 0, never decreases, and ends at
    the number of values (each failing with TF's message)."""
    checks = []
    if check_splits:
        msg = f"Arguments to {factory} do not form a valid RaggedTensor:"
        checks.append(check_ops.assert_equal(splits[0], np.int64(0), message=msg + "zero"))
        checks.append(check_ops.assert_non_negative(
            arithmetic_ops.subtract(splits[1:], splits[:-1]), message=msg + "monotonic"))
    checks.append(check_ops.assert_equal(
        splits[-1], _nvals(values),
        message="Arguments to _from_row_partition do not form a valid RaggedTensor"))
    return with_dependencies(checks, splits)


def _nvals(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return shape_ops.shape(values, out_type=dtypes.int64)[0]


def _reduce_max_plus_one(ids):
    """``max(ids) + 1``, 0 for no ids (TF's nrows when ``from_value_rowids`` has none)."""
    top = reduction_ops.reduce_max(ids) + 1
    return reduction_ops.maximum(top, np.int64(0))


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value: ``repeat(range(nrows), row_lengths)`` (TF's composite)."""
    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = _splits_tensor(splits, "splits")
        lengths = arithmetic_ops.subtract(splits[1:], splits[:-1])
        nrows = shape_ops.shape(splits, out_type=dtypes.int64)[-1] - 1
        ids = sequence_ops.repeat(arithmetic_ops.range(nrows), lengths, axis=0)
        return ids if out_type in (None, dtypes.int64) else arithmetic_ops.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """``concat([[0], cumsum(bincount(segment_ids))])`` (TF's composite)."""
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        ids = _splits_tensor(segment_ids, "segment_ids")
        if num_segments is None:
            num_segments = _reduce_max_plus_one(ids)
        n = arithmetic_ops.cast(num_segments, dtypes.int32) if isinstance(num_segments, Tensor) \
            else int(num_segments)
        counts = count_ops.bincount(arithmetic_ops.cast(ids, dtypes.int32), minlength=n,
                                    maxlength=n, dtype=dtypes.int64)
        splits = slicing_ops.concat([np.zeros([1], np.int64), scan_ops.cumsum(counts)], 0)
        return splits if out_type in (None, dtypes.int64) else \
            arithmetic_ops.cast(splits, out_type)


# ── kernels ─────────────────────────────────────────────────────────────────────────────
def _splits_to_ids(splits):
    splits = np.asarray(splits, np.int64)
    return np.repeat(np.arange(len(splits) - 1, dtype=np.int64), np.diff(splits))


def _ids_to_splits(ids, nrows):
    counts = np.bincount(np.asarray(ids, np.int64), minlength=int(nrows))[:int(nrows)]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _dense_indices(nested_splits, nvals):
    """Each flat value's index in the dense result, and the dense (bounding) shape."""
    k = len(nested_splits)
    idx = np.zeros((nvals, k + 1), np.int64)
    pos = np.arange(nvals, dtype=np.int64)
    dims = [len(nested_splits[0]) - 1]
    widths = []
    for level in range(k - 1, -1, -1):
        splits = np.asarray(nested_splits[level], np.int64)
        rowids = _splits_to_ids(splits)
        widths.append(int(np.diff(splits).max()) if len(splits) > 1 and np.diff(splits).size
                      else 0)
        idx[:, level + 1] = pos - splits[rowids[pos]] if pos.size else pos
        pos = rowids[pos] if pos.size else pos
    idx[:, 0] = pos
    dims += widths[::-1]
    return idx, dims


def _to_tensor_kernel(shape, values, default, *splits, row_partition_types):
    values = np.asarray(values)
    idx, dims = _dense_indices(splits, values.shape[0] if values.ndim else 0)
    full = dims + list(values.shape[1:])
    shape = np.asarray(shape)
    if shape.ndim == 1:
        full = [f if s < 0 else int(s) for f, s in zip(full, shape)]
    out = np.empty(full, values.dtype)
    out[...] = default
    keep = np.all(idx < np.asarray(full[:idx.shape[1]]), axis=1)
    kept = values[keep]
    inner = tuple(slice(0, f) for f in full[idx.shape[1]:])
    out[tuple(idx[keep].T)] = kept[(slice(None),) + inner] if inner else kept
    return out


def _to_tensor_shape(shape, values, default, *splits, row_partition_types):
    nrows = splits[0][0].value
    out = TensorShape([None if nrows is None else nrows - 1] + [None] * len(splits))
    return out.concatenate(values[1:]) if values.ndims is not None else TensorShape(None)


ragged_tensor_to_tensor_op = OpDef(
    "RaggedTensorToTensor", shape=_to_tensor_shape,
    dtype=lambda s, v, d, *sp, row_partition_types: v,
    kernel=_to_tensor_kernel, attrs={"row_partition_types": None},
    input_names=("shape", "values", "default_value", "row_partition_tensors"))


@ragged_tensor_to_tensor_op.def_grad
def _to_tensor_grad(op, grad):
    """TF's ``_RaggedTensorToTensorGrad``: each dense position filled from ``values`` sends
    its gradient back there (as IndexedSlices); the padded ones sum into ``default_value``.
    The positions come from the same op run on ``range(nvalues)`` with default -1."""
    flat_values, default_value = op.inputs[1], op.inputs[2]
    partitions = op.inputs[3:]
    types = op.get_attr("row_partition_types")
    ragged_rank = sum(1 for t in types if t not in ("FIRST_DIM_SIZE", b"FIRST_DIM_SIZE"))
    flat_value_shape = shape_ops.shape(flat_values)
    indices = ragged_tensor_to_tensor_op.bind(
        shape_ops.shape(grad, out_type=dtypes.int64)[:1 + ragged_rank],
        arithmetic_ops.range(flat_value_shape[0]),
        convert_to_tensor(-1), *partitions, row_partition_types=types,
        name="RaggedTensorToTensor")
    mask = arithmetic_ops.not_equal(indices, -1)
    values_grad = IndexedSlices(indexing_ops.boolean_mask(grad, mask),
                                indexing_ops.boolean_mask(indices, mask), flat_value_shape)
    default_grads = indexing_ops.boolean_mask(grad, arithmetic_ops.logical_not(mask))
    default_dims = default_value.shape.as_list() if default_value.shape.ndims is not None \
        else None
    while default_dims and default_dims[0] == 1:
        default_dims = default_dims[1:]
    keep = len(default_dims) if default_dims is not None else 0
    dims_to_reduce = arithmetic_ops.range(shape_ops.rank(default_grads) - keep)
    default_grad = reduction_ops.reduce_sum(default_grads, axis=dims_to_reduce)
    default_grad = shape_ops.reshape(default_grad, shape_ops.shape(default_value))
    return [None, values_grad, default_grad] + [None] * len(partitions)


def _to_sparse_kernel(*args, RAGGED_RANK):  # noqa: N803 - TF's attr name
    splits, values = args[:-1], np.asarray(args[-1])
    idx, dims = _dense_indices(splits, values.shape[0])
    if values.ndim > 1:
        inner = np.indices(values.shape[1:]).reshape(values.ndim - 1, -1).T
        n = inner.shape[0]
        idx = np.concatenate([np.repeat(idx, n, axis=0), np.tile(inner, (len(idx), 1))], 1)
        values = values.reshape(-1)
        dims = dims + list(args[-1].shape[1:])
    return idx, values, np.asarray(dims, np.int64)


def _to_sparse_shape(*shapes, RAGGED_RANK):  # noqa: N803
    values = shapes[-1]
    rank = None if values.ndims is None else values.ndims + RAGGED_RANK
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


ragged_tensor_to_sparse_op = OpDef(
    "RaggedTensorToSparse", shape=_to_sparse_shape,
    dtype=lambda *d, RAGGED_RANK: [dtypes.int64, d[-1], dtypes.int64],
    kernel=_to_sparse_kernel, attrs={"RAGGED_RANK": None}, num_outputs=3,
    input_names=("rt_nested_splits", "rt_dense_values"))


@ragged_tensor_to_sparse_op.def_grad
def _to_sparse_grad(op, _indices_grad, values_grad, _shape_grad):
    """TF's ``_RaggedTensorToSparseGrad``: the SparseTensor's value gradients, reshaped to
    the flat values' shape; none for the row splits."""
    flat_values = op.inputs[-1]
    return [None] * (len(op.inputs) - 1) + [
        shape_ops.reshape(values_grad, shape_ops.shape(flat_values))]

