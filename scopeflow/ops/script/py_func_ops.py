"""``PyFunc``, ``PyFuncStateless`` and ``EagerPyFunc``: graph ops whose kernel calls a
Python function (``tf.py_func``, ``tf.numpy_function``, ``tf.py_function``).

As in TF, the function itself is not part of the graph: the op carries a ``token``
attribute (``pyfunc_0``, ``pyfunc_1``... one process-wide counter) under which the function
is registered in this process, so a GraphDef that holds one runs only where it was built.
The kernel converts the results to the declared ``Tout`` and maps the function's exceptions
to TF's error classes (``ValueError`` and ``TypeError`` are ``InvalidArgumentError``,
``StopIteration`` is ``OutOfRangeError``, ``NotImplementedError`` ``UnimplementedError``,
``MemoryError`` ``ResourceExhaustedError``, anything else ``UnknownError``), with the Python
traceback in the message.
"""

from __future__ import annotations

import itertools
import threading
import traceback

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import (
    InvalidArgumentError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["py_func", "numpy_function", "py_function", "EagerValue"]

_FUNCS: dict[str, object] = {}
_TOKENS = itertools.count()
_LOCK = threading.Lock()

# Exceptions a function may raise, as TF's py_func kernel reports them.
_ERROR_CLASSES = ((StopIteration, OutOfRangeError), (ValueError, InvalidArgumentError),
                  (TypeError, InvalidArgumentError), (NotImplementedError, UnimplementedError),
                  (MemoryError, ResourceExhaustedError))


class EagerValue(np.ndarray):
    """What a ``py_function`` body receives for each input: the value as a NumPy array that
    also answers ``.numpy()`` (TF hands it an ``EagerTensor``; scopeflow has no eager mode,
    and a body written for TF mostly calls ``.numpy()`` or uses NumPy operators)."""

    def numpy(self) -> np.ndarray:
        return self.view(np.ndarray)


def _register(func) -> str:
    with _LOCK:
        token = f"pyfunc_{next(_TOKENS)}"
        _FUNCS[token] = func
    return token


def _shape(*inputs, token, Tin, Tout, **_):
    return [TensorShape(None)] * len(Tout)


def _dtype(*inputs, token, Tin, Tout, **_):
    return list(Tout)


def _num_outputs(attrs, n_inputs):
    return len(attrs["Tout"])


def _convert_result(value, dtype, i, token):
    """``value`` as TF's ``FuncRegistry`` converts it (``np.asarray``; text to bytes), then
    checked against ``Tout`` without casting: a Python float is a double, as in TF."""
    if value is None:
        raise InvalidArgumentError(None, None, f"{i}-th value returned by {token} is None, "
                                   "but expects a value")
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    arr = np.asarray(value)
    if arr.dtype.kind in "SU":
        arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s,
                           otypes=[object])(arr) if arr.size else arr.astype(object)
    got = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    if got != dtype:
        raise InvalidArgumentError(None, None, f"{i}-th value returned by {token} is "
                                   f"{dtypes.type_string(got)}, but expects "
                                   f"{dtypes.type_string(dtype)}")
    return arr.view(np.ndarray) if arr.dtype != object else arr


def _call(token, args, Tout, eager):
    func = _FUNCS.get(token)
    if func is None:
        raise UnknownError(None, None, f"KeyError: '{token}' (the Python function of this op "
                           "was registered in another process: a graph with py_func runs only "
                           "where it was built)")
    if eager:
        args = [np.asarray(a).view(EagerValue) for a in args]
    try:
        result = func(*args)
    except Exception as exc:  # noqa: BLE001 - every error becomes the op's error, as in TF
        cls = next((c for k, c in _ERROR_CLASSES if isinstance(exc, k)), UnknownError)
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise cls(None, None, f"{type(exc).__name__}: {exc}\n{text}") from exc
    if not Tout:
        return ()
    # As TF's FuncRegistry: a tuple or list is the outputs, anything else the one output.
    results = list(result) if isinstance(result, tuple | list) else [result]
    if len(results) != len(Tout):
        raise InvalidArgumentError(None, None, f"{token} returns {len(results)} values, but "
                                   f"expects to see {len(Tout)} values.")
    out = tuple(_convert_result(v, d, i, token) for i, (v, d) in enumerate(zip(results, Tout)))
    return out if len(out) > 1 else out[0]


def _kernel(ctx, *args, token, Tin, Tout):
    return _call(token, args, Tout, eager=False)


def _eager_kernel(ctx, *args, token, Tin, Tout, is_async):
    return _call(token, args, Tout, eager=True)


_ATTRS = {"token": "", "Tin": (), "Tout": ()}
py_func_op = OpDef("PyFunc", shape=_shape, dtype=_dtype, kernel=_kernel, attrs=_ATTRS,
                   num_outputs=_num_outputs, stateful=True, grad=None)
# Stateless for TF (it may be deduplicated there); scopeflow still runs it on every step,
# since a plan must never call user Python at build time.
py_func_stateless_op = OpDef("PyFuncStateless", shape=_shape, dtype=_dtype, kernel=_kernel,
                             attrs=_ATTRS, num_outputs=_num_outputs, stateful=True, grad=None)
eager_py_func_op = OpDef("EagerPyFunc", shape=_shape, dtype=_dtype, kernel=_eager_kernel,
                         attrs={**_ATTRS, "is_async": False}, num_outputs=_num_outputs,
                         stateful=True)


@eager_py_func_op.def_grad
def _eager_py_func_grad(op, *dys):
    """TF differentiates a ``py_function`` body by re-running it under an eager
    ``GradientTape``; scopeflow has no eager mode to record one."""
    raise LookupError(f"No gradient for the py_function op '{op.name}' (EagerPyFunc): "
                      "scopeflow runs graphs only, so the Python body cannot be "
                      "differentiated; write it with graph ops, or give it a gradient "
                      "with tf.custom_gradient")


def _as_dtype_list(Tout):
    if isinstance(Tout, list | tuple):
        return [dtypes.as_dtype(t) for t in Tout], True
    return [dtypes.as_dtype(Tout)], False


def _build(op_def, func, inp, Tout, name, extra=None):
    tout, is_list = _as_dtype_list(Tout)
    inputs = [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in (inp or [])]
    token = _register(func)
    attrs = {"token": token, "Tin": tuple(t.dtype.base_dtype for t in inputs),
             "Tout": tuple(tout), **(extra or {})}
    op = op_def.create(inputs, attrs, name=name or op_def.type)
    outs = list(op._outputs)
    if not tout:
        return op
    return outs if is_list else outs[0]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument names
    """Wraps ``func`` (NumPy arrays in, NumPy arrays out) as an op: ``PyFunc``, or
    ``PyFuncStateless`` with ``stateful=False``. ``Tout`` a dtype gives one tensor, a list
    gives a list. TF registers no gradient: gradients stop here.

    >>> y = py_func(lambda a: a * 2, [[1.0, 2.0]], dtypes.float32)
    >>> y.op.type, y.op.get_attr("token").startswith("pyfunc_")
    ('PyFunc', True)
    """
    return _build(py_func_op if stateful else py_func_stateless_op, func, inp, Tout, name)


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803
    """``py_func`` under its TF 2 name (the same ops)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def py_function(func, inp, Tout, name=None):  # noqa: N803
    """Wraps ``func`` as an ``EagerPyFunc`` op: its arguments answer ``.numpy()`` as TF's
    eager tensors do; its results may be NumPy values or anything with ``.numpy()``."""
    return _build(eager_py_func_op, func, inp, Tout, name, {"is_async": False})
