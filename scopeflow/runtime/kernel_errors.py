"""The text of a run-time error raised by NumPy inside a kernel, in TensorFlow's words.

Kernels do not check their inputs before computing where NumPy checks them anyway (that
would cost every run); when NumPy raises, the executor's error path (``Session.run`` and
control-flow sub-plans) asks here for the message, so the check costs nothing until it
fails. A binary elementwise op (its shape rule is ``broadcast_shape``: ``Add``, ``Mul``,
``Less``, ``LogicalAnd``...) whose fed shapes do not broadcast reads as TF's
``BinaryOp``: ``Incompatible shapes: [2,3] vs. [4]``. A kernel that runs out of memory is
TF's ``ResourceExhaustedError`` ("OOM when allocating tensor with shape[...]").
"""

from __future__ import annotations

import re

from scopeflow.framework import dtypes, errors
from scopeflow.framework.opdef import broadcast_shape

__all__ = ["kernel_exception_message", "kernel_error"]

# NumPy's texts: a ufunc ("... with shapes (2,3) (4,) ", a third shape when it has out=)
# and np.broadcast_arrays/np.broadcast_shapes ("... arg 0 with shape (2,) and arg 1 ...").
_UFUNC = re.compile(r"operands could not be broadcast together with shapes \(([\d, ]*)\) "
                    r"\(([\d, ]*)\)")
_BROADCAST = re.compile(r"Mismatch is between arg \d+ with shape \(([\d, ]*)\) and arg \d+ "
                        r"with shape \(([\d, ]*)\)")


def _dims(text: str) -> str:
    return "[" + ",".join(d.strip() for d in text.split(",") if d.strip()) + "]"


def _incompatible_shapes(exc) -> str | None:
    text = str(exc)
    match = _UFUNC.search(text) or _BROADCAST.search(text)
    if match is None:
        return None
    return f"Incompatible shapes: {_dims(match.group(1))} vs. {_dims(match.group(2))}"


def kernel_exception_message(op, exc: Exception) -> str:
    """TF's message for ``exc`` raised by ``op``'s kernel when it has one; otherwise the
    exception's class and text (``ValueError: ...``), which says what NumPy rejected."""
    if (op is not None and isinstance(exc, ValueError)
            and op._op_def.shape_rule is broadcast_shape):
        message = _incompatible_shapes(exc)
        if message is not None:
            return message
    return f"{type(exc).__name__}: {exc}"


def kernel_error(op, exc: Exception, where: str = "") -> errors.OpError:
    """The ``OpError`` for ``exc`` raised inside ``op``'s kernel (``where`` follows the
    message): ``ResourceExhaustedError`` for memory, else ``InvalidArgumentError``."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if isinstance(exc, MemoryError) and shape is not None and dtype is not None:
        try:
            type_name = dtypes.type_string(dtype)
        except (TypeError, KeyError, ValueError):
            type_name = str(dtype)
        err = errors.out_of_memory(shape, type_name, op, where)
    elif isinstance(exc, MemoryError):  # not NumPy's allocation error: no shape to name
        err = errors.ResourceExhaustedError(None, op, f"OOM in a kernel ({exc}){where}")
    else:
        err = errors.InvalidArgumentError(None, op, f"{kernel_exception_message(op, exc)}{where}")
    err._original_exception = exc
    return err
