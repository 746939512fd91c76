"""Logging ops: ``Assert``, ``Print`` and ``tf.print`` (``StringFormat`` + ``PrintV2``).

Values are written as TF's ``Tensor::SummarizeValue`` writes them: floats with 6 (double:
15) significant digits, or 9 (17) when that is needed to read the same number back;
booleans as 1 and 0; strings C-escaped (quoted by ``tf.print``); types TF cannot print as
``?``. ``Print`` and ``Assert`` list at most ``summarize`` elements in row-major order
(then ``...``); ``tf.print`` shows ``summarize`` entries at each end of every dimension.

``Assert``, ``Print`` and ``PrintV2`` are stateful, as in TF: a plan never folds them, and
they run once per ``Session.run`` when fetched or reached through control dependencies.
"""

from __future__ import annotations

import pprint
import sys
import weakref

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["Assert", "Print", "print_v2", "string_format", "summarize_value",
           "assert_op", "print_op", "string_format_op", "print_v2_op"]


# ── formatting (TF's Tensor::SummarizeValue) ──────────────────────────────────────────
def _format_float(x, digits, more, as_type) -> str:
    v = float(x)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    s = f"{v:.{digits}g}"
    if as_type(float(s)) != as_type(v):
        s = f"{v:.{more}g}"
    return s


_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


def _escape(b) -> str:
    """absl's ``Utf8SafeCEscape``: C escapes and octal for control bytes, UTF-8 kept."""
    if isinstance(b, str):
        b = b.encode("utf-8")
    out = bytearray()
    for c in bytes(b):
        if c in _ESCAPES:
            out += _ESCAPES[c].encode()
        elif c < 0x20 or c == 0x7F:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return out.decode("utf-8", "backslashreplace")


def _element_formatter(dtype, v2):
    """One element of an array of ``dtype`` as TF prints it (``PrintOneElement``)."""
    kind = dtype.kind
    if dtype == np.float64:
        return lambda x: _format_float(x, 15, 17, float)
    if kind == "f":  # float32, and float16 widened to float as TF does
        return lambda x: _format_float(x, 6, 9, np.float32)
    if kind == "b":
        return lambda x: "1" if x else "0"
    if kind in "iu":
        return lambda x: str(int(x))
    if kind in "OSU":
        if v2:
            return lambda x: '"' + _escape(x) + '"'
        return _escape
    return None  # complex and the rest: "?"


def _one_dim_v1(a, limit, fmt, counter, out, top=True):
    """TF's ``PrintOneDim``: the first ``limit`` elements, nested in brackets."""
    if counter[0] >= limit:
        return
    if a.ndim == 1:
        for i, x in enumerate(a):
            if counter[0] >= limit:
                if not top:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(fmt(x))
            counter[0] += 1
        return
    for sub in a:
        opened = counter[0] < limit
        if opened:
            out.append("[")
        _one_dim_v1(sub, limit, fmt, counter, out, top=False)
        if counter[0] < limit or opened:
            out.append("]")


def _dim_spacing(dim, ndims, out):
    if dim == ndims - 1:
        out.append(" ")
        return
    out.append("\n" * (ndims - dim - 1) + " " * (dim + 1))


def _one_dim_v2(a, dim, ends, fmt, out):
    """TF's ``PrintOneDimV2``: ``ends`` entries at each end of every dimension."""
    ndims = dim + a.ndim
    out.append("[")
    n = a.shape[0]
    for i in range(min(ends, n)):
        if i > 0:
            _dim_spacing(dim, ndims, out)
        _one_dim_v2_item(a, i, dim, ends, fmt, out)
    if n > 2 * ends:
        _dim_spacing(dim, ndims, out)
        out.append("...")
    for i in range(max(ends, n - ends), n):
        _dim_spacing(dim, ndims, out)
        _one_dim_v2_item(a, i, dim, ends, fmt, out)
    out.append("]")


def _one_dim_v2_item(a, i, dim, ends, fmt, out):
    if a.ndim == 1:
        out.append(fmt(a[i]))
    else:
        _one_dim_v2(a[i], dim + 1, ends, fmt, out)


def summarize_value(value, summarize=3, print_v2=False) -> str:
    """``value`` as TF's ``Tensor::SummarizeValue(summarize, print_v2)`` writes it."""
    a = np.asarray(value)
    n = a.size
    limit = min(n if summarize < 0 else summarize, n)
    fmt = _element_formatter(a.dtype, print_v2)
    if limit == 0 and a.dtype == np.bool_:
        return ""  # TF 2.21 writes nothing at all for booleans shown with summarize=0
    if fmt is None:
        s = " ".join(["?"] * limit) + ("..." if 0 <= summarize < n else "")
        return f"[{s}]" if print_v2 and a.ndim > 0 else s
    if a.ndim == 0:
        return (fmt(a[()]) if limit else "") + ("..." if n > limit else "")
    if print_v2:
        out: list = []
        _one_dim_v2(a, 0, limit, fmt, out)
        return "".join(out)
    out = []
    _one_dim_v1(a, limit, fmt, [0], out)
    if n > limit:
        out.append("...")
    return "".join(out)


def _convert_data(data):
    """Each data item as a tensor, made inside the op's scope (``data_0``, ``data_1``...)."""
    return [x if isinstance(x, Tensor) else convert_to_tensor(x, name=f"data_{i}")
            for i, x in enumerate(data)]


# ── Assert ───────────────────────────────────────────────────────────────────────────
def _no_outputs(*inputs, **attrs):
    return []


def _assert_dtype(condition, *data, summarize):
    if condition != dtypes.bool:
        raise TypeError(f"Input 'condition' of 'Assert' Op has type {condition.name} that "
                        "does not match expected type of bool.")
    return []


def _assert_kernel(ctx, condition, *data, summarize):
    c = np.asarray(condition)
    if not (c.ndim == 0 or (c.ndim == 1 and c.shape[0] == 1)):
        raise InvalidArgumentError(None, None, "In[0] should be a scalar: "
                                   f"[{','.join(str(d) for d in c.shape)}]")
    if c.reshape(()).item():
        return
    values = " ".join(f"[{summarize_value(x, summarize)}]" for x in data)
    raise InvalidArgumentError(None, None, f"assertion failed: {values}")


assert_op = OpDef("Assert", shape=_no_outputs, dtype=_assert_dtype, kernel=_assert_kernel,
                  attrs={"summarize": 3}, num_outputs=0, stateful=True, grad=None,
                  input_names=("condition", "data"))


def _check_guard_condition(condition):
    """What TF's ``cond`` around a guarded ``Assert`` rejects while building (its
    ``Switch`` takes the condition as ``pred``)."""
    if condition.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"Input 'pred' of 'Switch' Op has type {condition.dtype.base_dtype.name}"
                        " that does not match expected type of bool.")
    ndims = condition.shape.ndims
    if ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ndims} for the condition of "
                         f"'{condition.name}' (the pred of TF's AssertGuard/Switch)")


def Assert(condition, data, summarize=None, name=None) -> Operation:  # noqa: N802 - TF's name
    """An op that fails the run with ``InvalidArgumentError`` when ``condition`` is false,
    listing ``data`` (at most ``summarize`` entries of each tensor).

    TF1 runs the check inside a ``cond`` (scope ``AssertGuard``) unless every item of
    ``data`` is an ``int32`` or string; the ``Assert`` op here has the name TF's has
    (``Assert/AssertGuard/Assert``), so errors name the same node, but there is no ``cond``
    around it and the op itself is returned (TF returns the cond's ``Merge``).
    """
    with name_scope(name, "Assert", [condition, data]):
        data = _convert_data(list(data))
        condition = (condition if isinstance(condition, Tensor)
                     else convert_to_tensor(condition, name="Condition"))
        attrs = {"summarize": 3 if summarize is None else int(summarize)}
        if all(t.dtype.base_dtype in (dtypes.string, dtypes.int32) for t in data):
            return assert_op.create([condition, *data], attrs, name="Assert")
        _check_guard_condition(condition)
        with name_scope("AssertGuard"):
            return assert_op.create([condition, *data], attrs, name="Assert")


# ── Print ────────────────────────────────────────────────────────────────────────────
# How many times each Print op has printed, per session (TF's per-kernel call counter).
_PRINT_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _print_shape(input_, *data, message, first_n, summarize):
    return input_


def _print_dtype(input_, *data, message, first_n, summarize):
    return input_


def _print_kernel(ctx, input_, *data, message, first_n, summarize):
    counts = _PRINT_COUNTS.setdefault(ctx.state, {})
    count = counts.get(ctx.key, 0)
    if first_n < 0 or count < first_n:
        counts[ctx.key] = count + 1
        text = message + "".join(f"[{summarize_value(x, summarize)}]" for x in data)
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    return input_


print_op = OpDef("Print", shape=_print_shape, dtype=_print_dtype, kernel=_print_kernel,
                 attrs={"message": "", "first_n": -1, "summarize": 3}, stateful=True,
                 aliases=(0,), input_names=("input", "data"))


@print_op.def_grad
def _print_grad(op, dy):
    return [dy] + [None] * (len(op.inputs) - 1)


def Print(input_, data, message=None, first_n=None, summarize=None,  # noqa: N802 - TF's name
          name=None) -> Tensor:
    """``input_``, and when it is computed, ``message`` then each of ``data`` (at most
    ``summarize`` entries) written to stderr, the first ``first_n`` times (TF1's
    ``tf.Print``)."""
    with name_scope(name, "Print", [input_]) as scope:
        x = input_ if isinstance(input_, Tensor) else convert_to_tensor(input_, name="input")
        data = _convert_data(list(data))
        attrs = {"message": "" if message is None else str(message),
                 "first_n": -1 if first_n is None else int(first_n),
                 "summarize": 3 if summarize is None else int(summarize)}
        return print_op.create([x, *data], attrs, name=scope).outputs[0]


# ── StringFormat ─────────────────────────────────────────────────────────────────────
def _string_format_shape(*inputs, template, placeholder, summarize):
    if template.count(placeholder) != len(inputs):
        raise ValueError(f"num placeholders in template and num inputs must match: "
                         f"{template.count(placeholder)} vs. {len(inputs)}")
    return TensorShape([])


def _string_format_dtype(*inputs, template, placeholder, summarize):
    return dtypes.string


def _string_format_kernel(*inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for x, piece in zip(inputs, pieces[1:]):
        out.append(summarize_value(x, summarize, print_v2=True))
        out.append(piece)
    return np.array("".join(out).encode("utf-8"), dtype=object)


string_format_op = OpDef("StringFormat", shape=_string_format_shape,
                         dtype=_string_format_dtype, kernel=_string_format_kernel,
                         attrs={"template": "%s", "placeholder": "%s", "summarize": 3},
                         grad=NO_GRADIENT, input_names=("inputs",))


def string_format(template, inputs, placeholder="{}", summarize=3, name=None) -> Tensor:
    """A scalar string: ``template`` with each ``placeholder`` replaced by one of
    ``inputs`` as ``tf.print`` writes it (``tf.strings.format``)."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    with name_scope(name, "StringFormat", inputs) as scope:
        tensors = [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in inputs]
        return string_format_op.create(
            tensors, {"template": template, "placeholder": placeholder,
                      "summarize": int(summarize)}, name=scope).outputs[0]


# ── PrintV2 ──────────────────────────────────────────────────────────────────────────
def _print_v2_dtype(input_, *, output_stream, end):
    check_dtype(input_, (dtypes.string,), "input")
    return []


def _print_v2_shape(input_, *, output_stream, end):
    if input_.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {input_.ndims}")
    return []


def _print_v2_kernel(ctx, input_, *, output_stream, end):
    value = np.asarray(input_).reshape(()).item()
    text = (value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)) + end
    if output_stream == "stdout":
        stream = sys.stdout
    elif output_stream == "stderr":
        stream = sys.stderr
    else:  # "file://path": appended to the file, as TF does
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
        return
    stream.write(text)
    stream.flush()


print_v2_op = OpDef("PrintV2", shape=_print_v2_shape, dtype=_print_v2_dtype,
                    kernel=_print_v2_kernel, attrs={"output_stream": "stderr", "end": "\n"},
                    num_outputs=0, stateful=True, grad=NO_GRADIENT, input_names=("input",))


def _output_stream_name(stream) -> str:
    if stream is None or stream in (sys.stderr, sys.__stderr__, "stderr"):
        return "stderr"
    if stream in (sys.stdout, sys.__stdout__, "stdout"):
        return "stdout"
    if isinstance(stream, str) and stream.startswith("file://"):
        return stream
    raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. "
                     "Supported streams are sys.stdout, sys.stderr, or file:// paths")


def _flatten(x) -> list:
    """TF's ``nest.flatten`` for lists, tuples and dicts (dict values by sorted key)."""
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    return [x]


def _pack_as(structure, flat):
    """TF's ``nest.pack_sequence_as`` for what ``_flatten`` takes apart."""
    if isinstance(structure, dict):
        return {k: _pack_as(structure[k], flat) for k in sorted(structure)}
    if isinstance(structure, (list, tuple)):
        items = [_pack_as(item, flat) for item in structure]
        if isinstance(structure, tuple) and hasattr(structure, "_fields"):
            return type(structure)(*items)
        return type(structure)(items)
    return flat.pop(0)


def _is_tensor_like(x) -> bool:
    """A tensor, or a variable (TF's ``is_tf_type``), which ``tf.print`` prints by value."""
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")


def print_v2(*inputs, output_stream=None, summarize=3, sep=" ", end="\n",
             name=None) -> Operation:
    """``tf.print``: writes the inputs, tensors formatted as TF does (``summarize`` entries
    at each end of every dimension; -1 for all), joined by ``sep`` and ended by ``end``, to
    ``output_stream``: ``sys.stderr`` (None, the default), ``sys.stdout`` or
    ``"file://path"`` (appended to). Returns the ``PrintV2`` op, to run or to use in
    ``control_dependencies``."""
    stream = _output_stream_name(output_stream)
    if (len(inputs) == 1 and isinstance(inputs[0], Tensor) and inputs[0].shape.ndims == 0
            and inputs[0].dtype.base_dtype == dtypes.string):
        formatted = inputs[0]
    else:
        free = [_pack_as(x, ["" if _is_tensor_like(y) else y for y in _flatten(x)])
                for x in inputs]
        free_template = " ".join(pprint.pformat(x) for x in free)
        placeholder = "{}"
        while placeholder in free_template:
            placeholder = "{" + placeholder + "}"
        templates, tensors = [], []
        for x in inputs:
            holders = []
            for y in _flatten(x):
                if _is_tensor_like(y):
                    tensors.append(convert_to_tensor(y))
                    holders.append(placeholder)
                else:
                    holders.append(y)
            templates.append(x if isinstance(x, str) else pprint.pformat(_pack_as(x, holders)))
        template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder,
                                  summarize=summarize,
                                  name=None if name is None else f"{name}_format")
    return print_v2_op.create([formatted], {"output_stream": stream, "end": end},
                              name=name or "PrintV2")
