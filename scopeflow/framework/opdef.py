"""``OpDef``: one declaration per op type — shape rule, dtype rule, kernel, gradient.

The registry built from these declarations is the single source for the executor,
autodiff, graph export, ``describe(op_type)`` and the registry-driven op tests.
"""

from __future__ import annotations

import inspect

from scopeflow.framework.dtype_groups import FLOATS, NUMERIC  # noqa: F401 - re-exported
from scopeflow.framework.graph import Operation, Tensor, _graph_of, convert_to_tensor
from scopeflow.framework.registry import OP_TYPES
from scopeflow.framework.tensor_shape import TensorShape, shape_str

__all__ = ["OpDef", "REGISTRY", "NO_GRADIENT", "describe", "same_shape", "broadcast_shape",
           "same_dtype", "first_dtype", "merge_shapes", "unknown_shape_rule", "scalar_shape",
           "shape_str", "get_op_def"]

_UNSET = object()


class _NoGradient:
    """``grad=NO_GRADIENT``: TF registers no gradient for the op type, so ``tf.gradients``
    raises ``LookupError`` when a gradient reaches one (``grad=None`` instead means "not
    differentiable": no gradient flows through, silently, as TF's ``NotDifferentiable``)."""

    def __repr__(self):
        return "NO_GRADIENT"


NO_GRADIENT = _NoGradient()


class OpDef:
    """Declares an op type.

    Args:
      type: graph-visible op type (``"MatMul"``); unique.
      shape: ``shape(*input_shapes, **attrs) -> TensorShape | list[TensorShape]``; with
        ``shape_from_tensors=True`` it receives the input tensors instead (for rules that
        need constant inputs, like ``Reshape``). Raises ``ValueError`` on bad shapes.
      dtype: ``dtype(*input_dtypes, **attrs) -> DType | list[DType]``; raises ``TypeError``.
      kernel: NumPy implementation ``kernel(*arrays, **attrs)``; stateful kernels get an
        ``OpRunContext`` first.
      attrs: attribute names with their defaults; ``bind`` rejects any other.
      num_outputs: an int, or ``f(attrs, n_inputs) -> int``.
      grad: gradient rule ``grad(op, *dys) -> list``; ``None``: not differentiable (as
        TF's ``NotDifferentiable``); ``NO_GRADIENT``: none registered (as in TF, a gradient
        reaching the op raises ``LookupError``).
      broadcasting: autodiff reduces each input's gradient back to the input's shape.
      aliases: the kernel may return an input (or a view of it) instead of a new array:
        ``True`` (any input), or the indices of the inputs it may return views of.
      ref_inputs: indices of inputs that take a variable reference, not its value.
      input_names: names for error messages, as TF's OpDef (``x``, ``y``).
      const_kernel: ``const_kernel(consts) -> kernel | None``, asked once when a plan is
        compiled, with each input's constant value (None where it is computed at run
        time): a kernel specialised for those constants, or None to keep ``kernel``.
      forwards_input: ``forwards_input(op, consts) -> int | None``, asked once when a plan
        is compiled with the constant inputs' values (``consts``, keyed by tensor): the
        index of the input whose value the op's output always is (``Identity``; a
        ``Reshape`` to the static shape it already has; ``Mul`` by a scalar constant one),
        or None. A plan then skips the call and uses that input, as TF's grappler removes
        such ops.
      absorb_producers: ``absorb_producers(op, consts, owned, shape) -> (kernel, inputs) |
        None``, asked once when a plan is compiled: a kernel that computes the op's output
        from other tensors (its inputs' producers' inputs), or None. ``owned(t)`` says
        whether input ``t`` is the run's own value read by this op alone; the producers of
        the owned inputs it no longer reads are left out of the plan. ``shape(t)`` is a
        tensor's static shape in the plan.
      fuse_consumers: ``fuse_consumers(op, chain, shape) -> kernel | None``, asked once
        when a plan is compiled with ``chain``, ops that each read the previous one's
        output alone (the first reads this op's): a kernel computing the chain's last
        output from this op's inputs followed by each chain op's other inputs, or None.
        ``shape(t)`` is a tensor's static shape in the plan. (TF's grappler remapper fuses
        Conv2D + BiasAdd + Relu so.)
      static_value: ``static_value(tensor) -> array | None``: the output's value while the
        graph is being built, when it is known (TF's ``tensor_util.constant_value``), for
        shape rules and builders that need constant inputs.
    """

    def __init__(self, type, *, shape, dtype, kernel=None, attrs=None, num_outputs=1,
                 grad=_UNSET, broadcasting=False, stateful=False, aliases=False, ref_inputs=(),
                 shape_from_tensors=False, input_names=(), fresh_outputs=False,
                 owning_kernel=None, owned_input=None, const_kernel=None,
                 forwards_input=None, absorb_producers=None, fuse_consumers=None,
                 static_value=None):
        if type in REGISTRY:
            raise ValueError(f"Op type {type!r} is already registered")
        self.type = type
        self.shape_rule = shape
        self.dtype_rule = dtype
        self.kernel = kernel
        self.attrs = dict(attrs or {})
        self.num_outputs = num_outputs
        self.grad = grad
        self.broadcasting = broadcasting
        self.stateful = stateful
        self.aliases = bool(aliases)
        # The inputs whose memory the outputs may share (all of them unless declared).
        self.aliased_inputs = None if aliases is True or not aliases else tuple(aliases)
        self.ref_inputs = tuple(ref_inputs)
        self.shape_from_tensors = shape_from_tensors
        self.input_names = tuple(input_names)
        # ``fresh_outputs``: the kernel returns new arrays that nothing else holds (or a
        # predicate ``fresh_outputs(op, consts)`` saying so for one op, given the inputs'
        # values known when the plan is compiled). A
        # consumer with an ``owning_kernel`` runs that instead of ``kernel`` when the plan
        # proves its input ``owned_input`` is such an array read by no one else (not
        # fetched, no other consumer), so it may keep the array rather than copy it; an
        # elementwise ufunc consumer may write its result into it (plan buffer reuse).
        self.fresh_outputs = fresh_outputs
        self.owning_kernel = owning_kernel
        self.owned_input = owned_input
        self.const_kernel = const_kernel
        self.forwards_input = forwards_input
        self.absorb_producers = absorb_producers
        self.fuse_consumers = fuse_consumers
        self.static_value = static_value
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
        outs = op._outputs
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
            t = convert_to_tensor(x, name=self._input_name(i), preferred_dtype=hint)
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
        return graph._create_op(self, tensors, attrs, dtypes_out, shapes_out, name)

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
        try:
            where = f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
        except (TypeError, OSError):
            where = "(builtin)"
        lines.append(f"  {label:6} {getattr(fn, '__qualname__', fn)!s:40} {where}")
    passes = [p.NAME for p in PLAN_PASSES if p.touches(op_def)]
    lines.append(f"  passes {', '.join(passes) or '(none)'}")
    return "\n".join(lines)


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


