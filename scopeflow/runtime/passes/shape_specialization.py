"""Shape specialisation: in a plan compiled for the shapes actually fed (a *specialised*
plan, ``runtime.shape_specialization``), the fed tensors have those concrete shapes, and
static shape inference is redone from them along the plan; the graph itself is never
changed (its tensors keep their unknown dims, so ``tensor.shape`` stays what the user
built).

With the shapes known, this pass

- binds ``Shape``, ``ShapeN``, ``Size`` and ``Rank`` of tensors whose inferred shape is
  fully known as constants (``constant_folding`` then folds the shape arithmetic of
  gradient graphs built for unknown batch dims: ``BroadcastGradientArgs``, ``Pack``,
  ``StridedSlice``...), and so ``ZerosLike`` and ``OnesLike`` too (small ones), as a
  static shape makes them ``Const``s when the graph is built (``nce_loss``'s labels);
- forwards a ``Reshape`` to the shape its input already has and a ``Sum`` over no (or only
  size-1, kept) axes, whose kernels return their input itself (as ``pass_through``);
- gives the later passes the inferred shapes (``PlanIR.shape``): ``buffer_reuse`` needs
  fully known shapes.

In a plan that is not specialised (``ir.specialized is None``) it does nothing. Inference
only trusts what the graph already trusts (static shapes are exact, as TF's constant
folding assumes), so a graph with an ``Assign(validate_shape=False)``, which may give a
variable another shape than its static one, is never specialised. A shape rule that fails
on the fed shapes (a run that is going to fail) leaves that op's graph shapes in place, so
the kernel raises its usual error at run time.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Graph
from scopeflow.framework.registry import VARIABLE_OP_TYPES
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import placeholder
from scopeflow.ops.constant_op import constant
from scopeflow.runtime.passes.constant_folding import FOLD_MAX_BYTES
from scopeflow.runtime.plan_ir import How

__all__ = ["NAME", "Inference", "begin", "touches", "applies", "rewrite"]

NAME = "shape_specialization"
# No rules by op type: the pass applies to any op its ``applies`` accepts.
RULES: dict = {}

# Ops whose value is a function of their input's shape alone.
SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
# Ops whose value is a function of their input's shape and dtype alone.
FILL_OPS = frozenset({"ZerosLike", "OnesLike"})
# Ops whose kernel returns the input itself when the output's shape is the input's.
FORWARDING_OPS = frozenset({"Reshape", "Sum"})


class Inference:
    """The static shapes (and values known at compile time) of one specialised plan's
    tensors, inferred op by op from the fed shapes. Tensors it has not seen have their
    graph shapes."""

    def __init__(self, fed_shapes):
        self.shapes = {t: TensorShape(list(s)) for t, s in fed_shapes.items()}
        self.values: dict = {}      # values known at compile time (more than the graph's)
        self._scratch = None        # a private graph for shape rules that take tensors
        self._scratch_of: dict = {}

    def shape(self, t):
        return self.shapes.get(t, t._shape)

    def value(self, t, ir):
        v = self.values.get(t)
        return ir.folded.get(t) if v is None else v

    def infer(self, op, ir) -> None:
        """Records the inferred shapes of ``op``'s outputs (and their values when the op is
        pure, small and computable from known values)."""
        if all(t in self.shapes for t in op._outputs):
            return  # all fed: they keep their fed shapes
        self._infer_shapes(op, ir)
        self._compute_value(op, ir)

    def _infer_shapes(self, op, ir) -> None:
        od = op._op_def
        ins = op._inputs
        refined = any(t in self.shapes or t in self.values for t in ins)
        if not refined or od.type in VARIABLE_OP_TYPES or od.shape_rule is None:
            return  # nothing more known than the graph's build saw: its shapes stand
        try:
            if od.shape_from_tensors:
                inferred = od.shape_rule(*self._scratch_inputs(ins, ir), **op._attrs)
            else:
                inferred = od.shape_rule(*[self.shape(t) for t in ins], **op._attrs)
        except Exception:  # noqa: BLE001 - a run that fails at run time, with its own error
            return
        inferred = list(inferred) if isinstance(inferred, (list, tuple)) else [inferred]
        if len(inferred) != len(op._outputs):
            return
        for t, s in zip(op._outputs, inferred):
            if t in self.shapes or not isinstance(s, TensorShape):
                continue
            try:
                merged = t._shape.merge_with(s)
            except ValueError:
                continue  # the kernel is going to fail: keep the graph's shape
            if merged.as_tuple() != t._shape.as_tuple():
                self.shapes[t] = merged

    def _compute_value(self, op, ir) -> None:
        """The outputs' values of a pure op whose inputs' values are known (small ones
        only), so that shape rules that read constant inputs (``Reshape``, ``Fill``) see
        shape arithmetic; ``constant_folding`` binds them into the plan if it is on."""
        od = op._op_def
        if (od.stateful or od.kernel is None or od.ref_inputs or not op._inputs
                or any(t in ir.fed for t in op._outputs)):
            return
        args = [self.value(t, ir) for t in op._inputs]
        if any(a is None for a in args) or any(self.too_big(t) for t in op._outputs):
            return
        try:
            with np.errstate(all="raise"):
                result = od.kernel(*args, **op._attrs)
        except Exception:  # noqa: BLE001 - fails at run time instead
            return
        results = result if len(op._outputs) > 1 else (result,)
        if all(isinstance(r, (np.ndarray, np.generic)) and r.nbytes <= FOLD_MAX_BYTES
               for r in results):
            self.values.update(zip(op._outputs, results))

    def too_big(self, t) -> bool:
        """Whether the shape already says the value is too big to keep (a large ``zeros``
        is not computed at compile time only to be dropped)."""
        dims = self.shape(t).as_tuple()
        if dims is None or None in dims:
            return False
        return int(np.prod(dims, dtype=np.int64)) * t.dtype.base_dtype.size > FOLD_MAX_BYTES

    def _scratch_inputs(self, tensors, ir) -> list:
        """Stand-ins for ``tensors`` in a private graph, for shape rules that take tensors:
        a constant where the value is known, else a placeholder of the inferred shape."""
        if self._scratch is None:
            self._scratch = Graph()
        out = []
        with self._scratch.as_default():
            for t in tensors:
                stand_in = self._scratch_of.get(t)
                if stand_in is None:
                    dtype = t.dtype.base_dtype
                    value = self.value(t, ir)
                    if value is not None and np.asarray(value).nbytes > FOLD_MAX_BYTES:
                        value = None  # a large constant's shape is all a rule can use
                    stand_in = (placeholder(dtype, self.shape(t)) if value is None
                                else constant(value, dtype=dtype))
                    self._scratch_of[t] = stand_in
                out.append(stand_in)
        return out


def begin(ir, fed_shapes) -> None:
    """Makes ``ir`` a plan specialised on ``fed_shapes`` (fed tensor -> tuple of ints)."""
    ir.specialized = Inference(fed_shapes)


def touches(op_def) -> bool:
    return op_def.type in SHAPE_OPS or op_def.type in FILL_OPS or op_def.type in FORWARDING_OPS


def applies(op, ir):
    """Infers ``op``'s shapes in a specialised plan (passes visit ops in order), then says
    what to do with it: ``("bind", values)``, ``("forward", source)`` or None."""
    spec = ir.specialized
    if spec is None:
        return None
    spec.infer(op, ir)
    step = ir.steps[op]
    od = op._op_def
    if not step.calls or not touches(od) or any(t in ir.fed for t in op._outputs):
        return None
    if od.type in SHAPE_OPS:
        return _shape_values(op, spec)
    if od.type in FILL_OPS:
        dtype = op._outputs[0].dtype.base_dtype.as_numpy_dtype
        if dtype is None or spec.too_big(op._outputs[0]):
            return None  # (a resource or variant; or held by the plan for nothing)
        return _shape_values(op, spec, dtype)
    x, out = op._inputs[0], op._outputs[0]
    if spec.value(x, ir) is not None:
        return None  # constant_folding computes it once instead
    dims = spec.shape(x).as_tuple()
    if (not dims or None in dims or spec.shape(out).as_tuple() != dims
            or x._ref_key in ir.reallocated):
        return None
    if od.type == "Reshape":
        target = spec.value(op._inputs[1], ir)
        try:  # the kernel's own reshape, on a stand-in that takes no memory
            same = target is not None and np.broadcast_to(
                np.zeros((), np.float32), dims).reshape(np.reshape(target, -1).tolist()
                                                       ).shape == dims
        except (ValueError, TypeError):
            same = False
        if not same:
            return None
    if od.type == "Sum":
        axes = spec.value(op._inputs[1], ir)
        if axes is None or any(not -len(dims) <= int(a) < len(dims) or dims[int(a)] != 1
                               for a in np.reshape(axes, -1)):
            return None  # (a kept size-1 axis is a reshape to the same shape: forwarded)
    return ("forward", ir.source(x))


def _shape_values(op, spec, dtype=np.float32):
    """The values of a shape op whose inputs' shapes are known, from its own kernel run on
    stand-ins of those shapes (of ``dtype``) that take no memory."""
    args = []
    for t in op._inputs:
        s = spec.shape(t)
        if op.type == "Rank" and s.ndims is not None:
            dims = (1,) * s.ndims
        elif s.is_fully_defined():
            dims = s.as_tuple()
        else:
            return None
        args.append(np.broadcast_to(np.zeros((), dtype), dims))
    try:
        result = op._op_def.kernel(*args, **op._attrs)
    except Exception:  # noqa: BLE001 - left to run (and fail) at run time
        return None
    results = result if len(op._outputs) > 1 else (result,)
    return ("bind", [np.asarray(r) for r in results])


def rewrite(op, ir, match) -> None:
    kind, what = match
    step = ir.steps[op]
    if kind == "bind":
        ir.folded.update(zip(op._outputs, what))
        ir.specialized.values.update(zip(op._outputs, what))
        step.how = How.BOUND
    else:
        ir.forwarded[op._outputs[0]] = what
        step.how = How.FORWARDED
    ir.changed()
