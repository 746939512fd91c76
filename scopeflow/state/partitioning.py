"""How a partitioned variable is split: ``PartitionedVariable``, slice info, part shapes.

``tf.get_variable(name, shape, partitioner=...)`` (or a scope's ``partitioner``) creates one
variable per part, ``<name>/part_0``, ``<name>/part_1``..., each a full ``tf.Variable`` in
the collections with a ``_save_slice_info`` saying which slice of the whole it holds, and
returns a :class:`PartitionedVariable` that groups them. As TF1, a variable is split along
one axis only; the first parts take one extra row when the axis does not divide evenly.

The partitioners and ``create_partitioned_variables`` are in
:mod:`scopeflow.state.partitioned_variables`; the store logic (creation, reuse, TF's errors) in
:mod:`scopeflow.state.variable_scope`; saving parts as slices of one checkpoint tensor in the
Saver and the bundle layer.

>>> import scopeflow as tf
>>> with tf.Graph().as_default():
...     emb = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))
...     [v.op.name for v in emb], [v.shape.as_list() for v in emb]
(['emb/part_0', 'emb/part_1', 'emb/part_2'], [[4, 4], [3, 4], [3, 4]])
"""

from __future__ import annotations

import collections.abc

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
)
from scopeflow.framework.properties import read_only
from scopeflow.framework.scope_names import prepend_name_scope, strip_name_scope
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.io import protos
from scopeflow.ops import array_ops

__all__ = ["PartitionedVariable"]


# ── SaveSliceInfo: which slice of the full variable a part holds ─────────────────────
class SaveSliceInfo:
    """TF's ``Variable.SaveSliceInfo``: a part's full name, full shape, offset and shape.

    >>> SaveSliceInfo("emb", [10, 4], [4, 0], [3, 4]).spec
    '10 4 4,3:0,4'
    """

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                 save_slice_info_def=None, import_scope=None):
        if save_slice_info_def is not None:
            full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
            full_shape = list(save_slice_info_def.full_shape)
            var_offset = list(save_slice_info_def.var_offset)
            var_shape = list(save_slice_info_def.var_shape)
        self.full_name = full_name
        self.full_shape = full_shape
        self.var_offset = var_offset
        self.var_shape = var_shape

    def to_proto(self, export_scope=None):
        """The ``SaveSliceInfoDef`` a ``VariableDef`` carries in a ``.meta`` (None when the
        full variable lies outside ``export_scope``)."""
        if export_scope is not None and not self.full_name.startswith(export_scope):
            return None
        return protos.SaveSliceInfoDef(
            full_name=strip_name_scope(self.full_name, export_scope),
            full_shape=[int(d) for d in self.full_shape],
            var_offset=[int(d) for d in self.var_offset],
            var_shape=[int(d) for d in self.var_shape])

    @property
    def spec(self) -> str:
        """The ``shape_and_slices`` string SaveV2/RestoreV2 take for this slice."""
        full_shape_str = " ".join(f"{int(d)}" for d in self.full_shape) + " "
        sl_spec = ":".join(f"{int(o)},{int(s)}" for o, s in zip(self.var_offset, self.var_shape))
        return full_shape_str + sl_spec

    def __repr__(self):
        return (f"SaveSliceInfo(full_name={self.full_name!r}, full_shape={self.full_shape}, "
                f"var_offset={self.var_offset}, var_shape={self.var_shape})")


# ── _PartitionInfo: what an initializer is told about the part it initializes ───────
class _PartitionInfo:
    """TF's ``_PartitionInfo``, passed to initializers as ``partition_info``."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length "
                             f"{len(var_offset)} while full_shape is of length "
                             f"{len(full_shape)}.")
        for offset, shape in zip(var_offset, full_shape):
            if offset < 0 or offset >= shape:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, "
                                 f"shape={shape} for var_offset={var_offset}, "
                                 f"full_shape={full_shape}")
        self._full_shape = full_shape
        self._var_offset = var_offset

    full_shape = read_only("_full_shape")
    var_offset = read_only("_var_offset")

    def single_offset(self, shape) -> int:
        """The offset along the one sliced dimension (0 when nothing is sliced)."""
        single_slice_dim = self.single_slice_dim(shape)
        if single_slice_dim is None:
            return 0
        return self.var_offset[single_slice_dim]

    def single_slice_dim(self, shape):
        """The one dimension in which ``shape`` differs from the full shape, or None."""
        if not isinstance(shape, (tuple, list)):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of "
                            + type(shape).__name__)
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length "
                             f"{len(shape)} while self.full_shape={self.full_shape} is of "
                             f"length {len(self.full_shape)}.")
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of "
                                 f"shape={shape} would exceed self.full_shape="
                                 f"{self.full_shape} in dimension {i}.")
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                                 f"self.full_shape={self.full_shape} since slice dim could be "
                                 f"either dimension {i} or {slice_dim}.")
            slice_dim = i
        return slice_dim


# ── slicing a shape into parts ───────────────────────────────────────────────────────
def call_partitioner(partitioner, shape: TensorShape, dtype) -> list:
    """The partitioner's partitions for ``shape``, checked as TF checks them."""
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, collections.abc.Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError("Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError("Can only slice a variable along one dimension: "
                         f"shape: {shape}, partitioning: {slicing}")
    return slicing


def slice_dim_and_num_slices(slicing) -> tuple[int, int]:
    """The sliced axis and the number of parts (axis 0, one part, when nothing is split)."""
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def iter_slices(full_shape, num_slices, slice_dim):
    """``(offset, shape)`` of each part; the first ``full % num`` parts get one more row."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + bool(i < num_slices_with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


# ── PartitionedVariable ──────────────────────────────────────────────────────────────
class PartitionedVariable:
    """The parts of one partitioned variable (TF1's ``tf.PartitionedVariable``).

    Iterating gives the part variables in offset order; converting it to a tensor (or
    ``as_tensor()``) concatenates them (``<name>/ConcatPartitions/concat``, then an
    ``Identity`` named ``<name>``). ``name`` has no ``:0``: it is the checkpoint key.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        for v in variable_list:
            if not all(getattr(v, "_save_slice_info", None) is not None
                       for v in variable_list):
                raise ValueError("All variables must have a save_slice_info available: "
                                 f"{[v.name for v in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._save_slice_info.full_shape != shape:
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but "
                                 f"full shapes were: {[v._save_slice_info.full_shape]}")
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._save_slice_info.var_offset)
        self._name = name
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = dtype
        self._partitions = partitions

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        num_partition_axes = len(self._partition_axes())
        if num_partition_axes > 1:
            raise ValueError(f"Cannot get a length for {num_partition_axes} > 1 partition axes")
        return len(self._variable_list)

    def __repr__(self):
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={dtypes.as_dtype(self._dtype).name} parts={len(self._variable_list)}>")

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        if len(self._variable_list) == 1:
            with name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {partition_axes}.  "
                "Multi-axis partition concat is not supported")
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = array_ops.concat(self._variable_list, partition_axes[0])
        with name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The full value: the parts concatenated along the partitioned axis."""
        with get_default_graph().control_dependencies(None):
            return self._concat()

    name = read_only("_name")
    dtype = read_only("_dtype")

    @property
    def shape(self) -> TensorShape:
        return self.get_shape()

    def get_shape(self) -> TensorShape:
        return self._shape

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {partition_axes}.  "
                "Multi-axis partition assign action is not supported ")
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(f"Assigning {len(value)} values to the "
                                 f"{len(self._variable_list)} parts of {self._name}")
            value_list = value
        elif isinstance(value, PartitionedVariable):
            value_list = list(value)
        else:
            axis = partition_axes[0]
            sizes = [dimension_value(var.shape[axis]) for var in self._variable_list]
            value_list = array_ops.split(value, sizes, axis=axis)
        return [assign_fn(var, value_list[i]) for i, var in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True) -> list:
        """Assigns ``value`` (split along the partitioned axis) part by part."""
        return self._apply_assign_fn(lambda var, v: var.assign(
            v, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign_fn(lambda var, v: var.assign_add(
            v, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign_fn(lambda var, v: var.assign_sub(
            v, use_locking=use_locking, name=name, read_value=read_value), value)


def _partitioned_variable_conversion(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    if as_ref:
        raise NotImplementedError(
            "PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_variable_conversion)
