"""Checkpoint ops: ``SaveV2`` and ``RestoreV2`` (TensorFlow's V2 tensor bundle).

``tf.train.Saver`` builds these exactly as TF1 does (``save/SaveV2``, ``save/RestoreV2``),
so a graph's op names match TF and ``saver_def.restore_op_name`` can be run directly.
The kernels call the bundle layer (:mod:`scopeflow.io.tensor_bundle`): writes are atomic
(temp files, fsync, rename, index last) and every read is CRC-checked.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["save_v2", "restore_v2"]


def _as_str(x) -> str:
    x = x.item() if isinstance(x, np.ndarray) else x
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def _check_names(op_type, prefix, tensor_names, shape_and_slices, n):
    if prefix.ndims not in (None, 0):
        raise ValueError(f"{op_type}: prefix must be a scalar string, got shape {prefix}")
    for what, s in (("tensor_names", tensor_names), ("shape_and_slices", shape_and_slices)):
        if s.ndims not in (None, 1):
            raise ValueError(f"{op_type}: {what} must be a 1-D string tensor, got shape {s}")
        if s.ndims == 1 and s[0] is not None and s[0] != n:
            raise ValueError(f"{op_type}: {what} has {s[0]} entries for {n} tensors")


def _check_slices(ctx, shape_and_slices):
    specs = [_as_str(s) for s in np.asarray(shape_and_slices).reshape(-1)]
    if any(specs):
        raise errors.UnimplementedError(
            None, ctx.op, f"{ctx.op.type}: partitioned (sliced) tensors are not supported: "
            f"shape_and_slices={specs}")


def _string_inputs(prefix, tensor_names, shape_and_slices):
    """The three string inputs, converted inside the op's scope (``save/SaveV2/...``)."""
    if not isinstance(prefix, Tensor):
        prefix = convert_to_tensor(prefix, dtype=_dtypes.string, name="prefix")
    if not isinstance(tensor_names, Tensor):
        tensor_names = convert_to_tensor(list(tensor_names), dtype=_dtypes.string,
                                         name="tensor_names")
    if not isinstance(shape_and_slices, Tensor):
        shape_and_slices = convert_to_tensor(list(shape_and_slices), dtype=_dtypes.string,
                                             name="shape_and_slices")
    return prefix, tensor_names, shape_and_slices


# ── SaveV2 ───────────────────────────────────────────────────────────────────────────
def _save_v2_shape(prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    _check_names("SaveV2", prefix, tensor_names, shape_and_slices, len(tensors))
    return []


def _save_v2_dtype(prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    if list(tensors) != list(dtypes):
        raise TypeError(f"SaveV2: the tensors' dtypes {[d.name for d in tensors]} differ from "
                        f"the dtypes attr {[d.name for d in dtypes]}")
    return []


def _save_v2_kernel(ctx, prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    from scopeflow.io.tensor_bundle import write_bundle

    names = [_as_str(s) for s in np.asarray(tensor_names).reshape(-1)]
    if len(names) != len(tensors):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Got {len(names)} tensor names for {len(tensors)} tensors")
    _check_slices(ctx, shape_and_slices)
    arrays = [np.asarray(t, dtype=d.as_numpy_dtype) for t, d in zip(tensors, dtypes)]
    prefix = _as_str(prefix)
    try:
        write_bundle(prefix, names, arrays)
    except OSError as e:
        raise _os_error(ctx, e, f"Failed to write checkpoint {prefix}") from None


_OS_ERRORS = {FileNotFoundError: errors.NotFoundError, NotADirectoryError: errors.NotFoundError,
              PermissionError: errors.PermissionDeniedError,
              FileExistsError: errors.AlreadyExistsError}


def _os_error(ctx, e, what):
    """An OSError as TF's error class, naming the file (``NotFoundError``, ...)."""
    cls = _OS_ERRORS.get(type(e), errors.UnknownError)
    name = f" ({e.filename})" if getattr(e, "filename", None) else ""
    return cls(None, ctx.op, f"{what}: {e.strerror or e}{name}")


save_v2_op = OpDef("SaveV2", shape=_save_v2_shape, dtype=_save_v2_dtype, kernel=_save_v2_kernel,
                   attrs={"dtypes": None}, num_outputs=0, stateful=True, grad=None,
                   input_names=("prefix", "tensor_names", "shape_and_slices", "tensors"))


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """Saves ``tensors`` under ``tensor_names`` in the V2 checkpoint ``prefix``."""
    tensors = list(tensors)
    with name_scope(name, "SaveV2") as scope:
        prefix, tensor_names, shape_and_slices = _string_inputs(prefix, tensor_names,
                                                                shape_and_slices)
        tensors = [t if isinstance(t, Tensor) else convert_to_tensor(t, as_ref=True)
                   for t in tensors]
        return save_v2_op.create([prefix, tensor_names, shape_and_slices, *tensors],
                                 {"dtypes": [t.dtype.base_dtype for t in tensors]}, scope)


# ── RestoreV2 ────────────────────────────────────────────────────────────────────────
def _restore_v2_shape(prefix, tensor_names, shape_and_slices, *, dtypes):
    _check_names("RestoreV2", prefix, tensor_names, shape_and_slices, len(dtypes))
    return [TensorShape(None)] * len(dtypes)


def _restore_v2_kernel(ctx, prefix, tensor_names, shape_and_slices, *, dtypes):
    from scopeflow.io.tensor_bundle import BundleReader

    names = [_as_str(s) for s in np.asarray(tensor_names).reshape(-1)]
    if len(names) != len(dtypes):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Got {len(names)} tensor names for {len(dtypes)} dtypes")
    _check_slices(ctx, shape_and_slices)
    out = []
    prefix = _as_str(prefix)
    try:
        reader = BundleReader(prefix)
    except OSError as e:
        raise _os_error(ctx, e, f"Failed to open checkpoint {prefix}") from None
    with reader:
        # Every key and dtype is checked before any tensor is read (TF's messages).
        for name, dtype in zip(names, dtypes):
            if name not in reader:
                raise errors.NotFoundError(None, ctx.op, f"Key {name} not found in checkpoint")
            saved = reader.dtype(name)
            if saved.base_dtype != dtype.base_dtype:
                raise errors.InvalidArgumentError(
                    None, ctx.op, f"tensor_name = {name}; expected dtype "
                    f"{_tf_type_name(dtype)} does not equal original dtype "
                    f"{_tf_type_name(saved)}")
        for name in names:
            out.append(reader.read(name))
    return out[0] if len(out) == 1 else tuple(out)


restore_v2_op = OpDef("RestoreV2", shape=_restore_v2_shape,
                      dtype=lambda *ins, dtypes: [d.base_dtype for d in dtypes],
                      kernel=_restore_v2_kernel, attrs={"dtypes": None},
                      num_outputs=lambda attrs, n: len(attrs["dtypes"]), stateful=True,
                      grad=None, input_names=("prefix", "tensor_names", "shape_and_slices"))


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """Reads the named tensors of the V2 checkpoint ``prefix``; one output per name."""
    with name_scope(name, "RestoreV2") as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        op = restore_v2_op.create(
            list(inputs), {"dtypes": [_dtypes.as_dtype(d).base_dtype for d in dtypes]}, scope)
    outs = op.outputs
    return outs[0] if len(outs) == 1 else list(outs)


def _tf_type_name(dtype) -> str:
    """TF's DataTypeString (``float``, ``double``, ``int32``...) used in kernel messages."""
    base = dtype.base_dtype.name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(base, base)
