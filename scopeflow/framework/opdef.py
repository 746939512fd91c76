"""``OpDef``: one declaration per op type — shape rule, dtype rule, kernel, gradient.

The registry built from these declarations is the single source for the executor,
autodiff, graph export, ``describe(op_type)`` and the registry-driven op tests.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import NamedTuple

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOATS, NUMERIC  # noqa: F401 - re-exported
from scopeflow.framework.graph import Operation, Tensor, _graph_of, convert_to_tensor
from scopeflow.framework.registry import OP_TYPES, VARIABLE_OP_TYPES, is_variable_op  # noqa: F401
from scopeflow.framework.tensor_shape import Dimension, TensorShape, shape_str

__all__ = ["OpDef", "REGISTRY", "NO_GRADIENT", "describe", "same_shape", "broadcast_shape",
           "same_dtype", "first_dtype", "merge_shapes", "unknown_shape_rule", "scalar_shape",
           "shape_str", "get_op_def", "from_tensors", "broadcasting", "ref", "ShapeRule",
           "VARIABLE_OP_TYPES", "is_variable_op"]

_UNSET = object()


class _NoGradient:
    """``grad=NO_GRADIENT``: TF registers no gradient for the op type, so ``tf.gradients``
    raises ``LookupError`` when a gradient reaches one (``grad=None`` instead means "not
    differentiable": no gradient flows through, silently, as TF's ``NotDifferentiable``)."""

    def __repr__(self):
        return "NO_GRADIENT"


NO_GRADIENT = _NoGradient()


class ShapeRule(NamedTuple):
    """A shape rule and how it is applied: ``from_tensors`` (it is given the input tensors,
    not their shapes) and ``broadcasting`` (the inputs broadcast together, so autodiff sums
    each input's gradient back to its shape, unless ``grad_unbroadcasts``: the op's gradient
    rule does it itself). ``OpDef(shape=...)`` takes a bare rule too."""

    fn: Callable
    from_tensors: bool = False
    broadcasting: bool = False
    grad_unbroadcasts: bool = False


def from_tensors(rule) -> ShapeRule:
    """``shape=from_tensors(rule)``: ``rule`` reads the input tensors (their constant values),
    as ``Reshape``'s reads its ``shape`` input."""
    return ShapeRule(rule, from_tensors=True)


def broadcasting(rule, *, grad_unbroadcasts=False) -> ShapeRule:
    """``shape=broadcasting(rule)``: the inputs broadcast against each other (``Add``).

    ``grad_unbroadcasts=True``: the gradient rule sums each input's gradient back to the
    input's shape itself, as TF's rule does in its own way (``SelectV2``'s reduces against
    the output, ``reduction_ops.reduce_gradient_args``), and autodiff leaves them as given.
    """
    return ShapeRule(rule, broadcasting=True, grad_unbroadcasts=grad_unbroadcasts)


class _RefName(str):
    """An input name that marks the input as a variable reference (``ref``)."""

    __slots__ = ()


def ref(name: str) -> str:
    """``input_names=(ref("ref"), "value")``: the input takes a variable reference, not its
    value (TF's ``Ref(T)``); the kernel gets the variable's key."""
    return _RefName(name)


# Functions ``callback(op, outputs) -> outputs or None`` called for each op created; what
# one returns is what the builder gives back (``bind``, ``outputs_of``): TF's op callbacks,
# as tf.debugging.enable_check_numerics installs one. Empty (the default): nothing runs.
OP_CALLBACKS: list = []
_REPLACED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # op -> its outputs


def _run_op_callbacks(op):
    outs = op._outputs
    for callback in list(OP_CALLBACKS):
        replaced = callback(op, outs)
        if replaced is not None:
            outs = tuple(replaced)
    if outs is not op._outputs:
        _REPLACED[op] = outs


def outputs_of(op) -> tuple:
    """The outputs a builder returns for ``op``: its own, or what an op callback gave."""
    return _REPLACED.pop(op, op._outputs) if _REPLACED else op._outputs


class OpDef:
    """Declares an op type.

    Args:
      type: graph-visible op type (``"MatMul"``); unique.
      shape: ``shape(*input_shapes, **attrs) -> TensorShape | list[TensorShape]``; wrapped
        as ``from_tensors(rule)`` it receives the input tensors instead (for rules that
        need constant inputs, like ``Reshape``); as ``broadcasting(rule)``, the inputs
        broadcast against each other, and autodiff reduces each input's gradient back to
        the input's shape (``broadcasting(rule, grad_unbroadcasts=True)``: the gradient
        rule does). Raises ``ValueError`` on bad shapes.
      dtype: ``dtype(*input_dtypes, **attrs) -> DType | list[DType]``; raises ``TypeError``.
      kernel: NumPy implementation ``kernel(*arrays, **attrs)``; stateful kernels get an
        ``OpRunContext`` first.
      attrs: attribute names with their defaults; ``bind`` rejects any other.
      num_outputs: an int, or ``f(attrs, n_inputs) -> int``.
      grad: gradient rule ``grad(op, *dys) -> list``; ``None``: not differentiable (as
        TF's ``NotDifferentiable``); ``NO_GRADIENT``: none registered (as in TF, a gradient
        reaching the op raises ``LookupError``).
      aliases: the kernel may return an input (or a view of it) instead of a new array:
        ``True`` (any input), or the indices of the inputs it may return views of.
      input_names: names for error messages, as TF's OpDef (``x``, ``y``); an input that
        takes a variable reference, not its value, is named with ``ref("ref")`` (TF's
        ``Input("ref: Ref(T)")``).

    How a plan may run an op faster (skip it, fuse it, specialise its kernel) is not the
    op's declaration but the plan passes' (``scopeflow.runtime.passes``): each pass keeps
    its own rules, keyed by op type, and ``describe`` lists the passes that have one.
    """

    def __init__(self, type, *, shape, dtype, kernel=None, attrs=None, num_outputs=1,
                 grad=_UNSET, stateful=False, aliases=False, input_names=()):
        if type in REGISTRY:
            raise ValueError(f"Op type {type!r} is already registered")
        self.type = type
        rule = shape if isinstance(shape, ShapeRule) else ShapeRule(shape)
        self.shape_rule = rule.fn
        self.shape_from_tensors = rule.from_tensors
        self.broadcasting = rule.broadcasting
        self.grad_unbroadcasts = rule.grad_unbroadcasts
        self.dtype_rule = dtype
        self.kernel = kernel
        self.attrs = dict(attrs or {})
        self.num_outputs = num_outputs
        self.grad = grad
        self.stateful = stateful
        self.aliases = bool(aliases)
        # The inputs whose memory the outputs may share (all of them unless declared).
        self.aliased_inputs = None if aliases is True or not aliases else tuple(aliases)
        self.ref_inputs = tuple(i for i, n in enumerate(input_names) if isinstance(n, _RefName))
        self.input_names = tuple(str(n) for n in input_names)
        self.static_value = None
        REGISTRY[type] = self

    # -- registration decorators ---------------------------------------------------------
    def def_kernel(self, fn):
        self.kernel = fn
        return fn

    def def_grad(self, fn):
        self.grad = fn
        return fn

    def def_static_value(self, fn):
        self.static_value = fn
        return fn

    @property
    def has_grad_rule(self) -> bool:
        return self.grad is not _UNSET

    # -- building ------------------------------------------------------------------------
    def bind(self, *inputs, name=None, **attrs):
        """Adds an op of this type; returns its output (or tuple of outputs, or the op)."""
        op = self.create(inputs, attrs, name)
        outs = outputs_of(op)
        if len(outs) == 1:
            return outs[0]
        return outs if outs else op

    def create(self, inputs, attrs=None, name=None, graph=None) -> Operation:
        """Adds an op of this type to the graph of its inputs (or the default graph).

        As TF's ``_apply_op_helper``: the op's name becomes a name scope, inputs that are
        not tensors are converted inside it (``Add/y``), and when all inputs share one
        dtype, Python values take the dtype of the first tensor input.
        """
        full_attrs = self._full_attrs(attrs or {})
        if graph is None:
            graph = _graph_of(inputs)
        if all(type(x) is Tensor for x in inputs):
            tensors = list(inputs)
            for t in tensors:
                if t._op._graph is not graph:
                    raise ValueError(f"Tensor {t.name} must be from the same graph as the "
                                     f"other inputs of {self.type}.")
            return self._add(graph, tensors, full_attrs, name or self.type)
        with graph.as_default(), graph.name_scope(name or self.type) as scope:
            tensors = self._convert_inputs(inputs)
            return self._add(graph, tensors, full_attrs, scope)

    def _convert_inputs(self, inputs):
        hint = None
        if self.ref_inputs and isinstance(inputs[self.ref_inputs[0]], Tensor):
            # A variable's type fixes T (TF's _apply_op_helper): `assign_add(int64_var, 1)`
            # converts the 1 to int64, a float64 array to a float32 variable's type. Inputs
            # named "indices" have their own integer type (TF's Tindices).
            dtype = inputs[self.ref_inputs[0]].dtype.base_dtype
            return [x if isinstance(x, Tensor) else
                    convert_to_tensor(x, dtype=None if self._input_name(i) == "indices"
                                      else dtype, name=self._input_name(i))
                    for i, x in enumerate(inputs)]
        if self.dtype_rule is same_dtype:
            for x in inputs:
                if isinstance(x, Tensor):
                    hint = x.dtype.base_dtype
                    break
        out = []
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor):
                out.append(x)
                continue
            t = convert_to_tensor(x, name=self._input_name(i), preferred_dtype=hint if
                                  hint is not None or not _holds_dimension(x) else dtypes.int32)
            if hint is None and self.dtype_rule is same_dtype:
                hint = t.dtype.base_dtype
            out.append(t)
        return out

    def _input_name(self, i):
        return self.input_names[i] if i < len(self.input_names) else None

    def _add(self, graph, tensors, attrs, name):
        dtypes_out = self._infer_dtypes(tensors, attrs, name)
        shapes_out = self._infer_shapes(tensors, attrs, name)
        if len(shapes_out) != len(dtypes_out):
            raise AssertionError(f"{self.type}: shape rule gave {len(shapes_out)} outputs, "
                                 f"dtype rule {len(dtypes_out)}")
        op = graph._create_op(self, tensors, attrs, dtypes_out, shapes_out, name)
        if OP_CALLBACKS:
            _run_op_callbacks(op)
        return op

    def _full_attrs(self, attrs):
        unknown = set(attrs) - set(self.attrs)
        if unknown:
            raise TypeError(f"{self.type} got unexpected attribute(s) {sorted(unknown)}; "
                            f"known: {sorted(self.attrs)}")
        full = dict(self.attrs)
        full.update(attrs)
        return full

    def _infer_dtypes(self, tensors, attrs, name):
        in_dtypes = [t.dtype.base_dtype for t in tensors]
        try:
            out = self.dtype_rule(*in_dtypes, **attrs)
        except DTypeMismatch as e:
            names = self.input_names
            arg = lambda i: names[i] if i < len(names) else str(i)  # noqa: E731
            raise TypeError(f"Input '{arg(e.index)}' of '{self.type}' Op has type "
                            f"{e.got.name} that does not match type {e.expected.name} of "
                            f"argument '{arg(0)}'.") from None
        except TypeError as e:
            raise TypeError(f"{e} (op {self.type!r}, name {name or self.type!r})") from None
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def _infer_shapes(self, tensors, attrs, name):
        args = tensors if self.shape_from_tensors else [t.shape for t in tensors]
        try:
            out = self.shape_rule(*args, **attrs)
        except ValueError as e:
            shapes = ", ".join(shape_str(t.shape) for t in tensors)
            op_name = (name or self.type).rstrip("/")  # a scope name "add/" names op "add"
            raise ValueError(f"{e} for '{op_name}' (op: '{self.type}') with input "
                             f"shapes: {shapes}.") from None
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def __repr__(self):
        return f"<OpDef {self.type}>"


REGISTRY: dict[str, OpDef] = OP_TYPES  # op type -> OpDef (framework.registry)
# The plan compiler's passes (``scopeflow.runtime.passes`` adds them at import), so that
# ``describe`` can say which of them may rewrite an op without this layer importing them.
PLAN_PASSES: list = []


def get_op_def(op_type: str) -> OpDef:
    try:
        return REGISTRY[op_type]
    except KeyError:
        raise LookupError(f"No op type {op_type!r} is registered") from None


def describe(op_type: str) -> str:
    """Where each piece of an op type is defined (``file:line``), as a printable text."""
    op_def = get_op_def(op_type)
    lines = [f"{op_def.type}: attrs={op_def.attrs} stateful={op_def.stateful} "
             f"broadcasting={op_def.broadcasting} aliases={op_def.aliases}"]
    grad = op_def.grad
    pieces = [("shape", op_def.shape_rule), ("dtype", op_def.dtype_rule),
              ("kernel", op_def.kernel),
              ("grad", "not differentiable" if grad is None else
               "missing" if grad is _UNSET else
               "none registered (LookupError, as TF)" if grad is NO_GRADIENT else grad)]
    for label, fn in pieces:
        if isinstance(fn, str):
            lines.append(f"  {label:6} {fn}")
            continue
        lines.append(f"  {label:6} {getattr(fn, '__qualname__', fn)!s:40} {_where(fn)}")
    # The passes' own rules for this op type (each pass keys its ``RULES`` by op type).
    lines += [f"  {'rule':6} {p.NAME + '.' + rule.__name__:40} {_where(rule)}"
              for p in PLAN_PASSES for rule in p.RULES.get(op_type, ())]
    passes = [p.NAME for p in PLAN_PASSES if p.touches(op_def)]
    lines.append(f"  passes {', '.join(passes) or '(none)'}")
    return "\n".join(lines)


def _where(fn) -> str:
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (TypeError, OSError):
        return "(builtin)"


# ── Standard rules ───────────────────────────────────────────────────────────────────
def merge_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """TF's ``InferenceContext::Merge``: equal ranks, dims equal where both are known."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None:
        return b
    if db is None:
        return a
    if len(da) != len(db):
        raise ValueError(f"Shapes must be equal rank, but are {len(da)} and {len(db)}")
    out = []
    for i, (x, y) in enumerate(zip(da, db)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {shape_str(a)} and {shape_str(b)}.")
        out.append(x if x is not None else y)
    return TensorShape(out)


def same_shape(x, *rest, **attrs):
    return x


def scalar_shape(*args, **attrs):
    return TensorShape([])


def unknown_shape_rule(*args, **attrs):
    return TensorShape(None)


def broadcast_shape(a: TensorShape, b: TensorShape, **attrs) -> TensorShape:
    """NumPy broadcasting on static shapes; unknown dims stay unknown unless forced."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None:
        return TensorShape(None)
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape(out)


class DTypeMismatch(TypeError):
    def __init__(self, index, got, expected):
        super().__init__(f"Input {index} has type {got.name} that does not match type "
                         f"{expected.name} of input 0")
        self.index, self.got, self.expected = index, got, expected


def same_dtype(*dts, **attrs):
    """All inputs share one dtype, which is also the output's."""
    first = dts[0]
    for i, d in enumerate(dts[1:], 1):
        if d is not first:
            raise DTypeMismatch(i, d, first)
    return first


def first_dtype(x, *rest, **attrs):
    return x


def check_dtype(dtype, allowed, what):
    """Raises TF-style ``TypeError`` when ``dtype`` is not one of ``allowed``."""
    if dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Value passed to parameter '{what}' has DataType {dtype.name} not in "
                        f"list of allowed values: {names}")
    return dtype


def _holds_dimension(value) -> bool:
    """Whether a Python list holds TF1 ``Dimension``s (``[-1, shape[1] * shape[2]]``): such
    lists convert as int32, as TF's ops convert them through their int32 default type."""
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, Dimension) or _holds_dimension(v) for v in value)
