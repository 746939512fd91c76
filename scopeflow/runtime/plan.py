"""Execution plans: a pruned, ordered graph slice compiled once into straight-line Python.

A plan is built per (fetches, feeds) signature: prune back from the fetches (fed tensors
cut the walk, control inputs count), order by creation id (a topological order, since
graphs are append-only), and generate one Python function whose body calls each kernel
in turn with its attrs bound as literals. Local variables are the slots, ``del`` frees a
value after its last use, and fetched values that may alias session state are copied.
Running a plan is then one Python call with no per-op interpretation.

Constant folding (as TF's grappler): an op that is not stateful and whose inputs are all
constants (or folded) runs once, when the plan is compiled, and its small outputs are bound
into the plan like constants. Gradient graphs are full of such ops (shape arithmetic,
``ones``/``zeros_like`` of static shapes, paddings of ``Slice`` gradients), so a training
step calls far fewer kernels. This relies on TF's contract: an op with side effects (or
randomness, or anything beyond its inputs and attrs) is ``stateful``, and kernels never
modify their inputs. A kernel that fails (or warns of a floating-point error) while folding
is left in the plan, so its error is raised where it always was, at run time.

Buffer reuse (as TF's ``forward_input_or_allocate_output``): an elementwise NumPy ufunc
writes its result into an input that dies there, when that input is the run's own fresh
array of the output's shape and dtype (made by a ufunc or an op with ``fresh_outputs``,
read by no one else, not fed, folded or fetched). Chains of elementwise ops then work in
one buffer that stays in cache, instead of a new allocation per op.

Pass-through ops (``OpDef.forwards_input``: ``Identity``, ``StopGradient``, a ``Reshape``
to the shape its input has) are not called: their output is their input's plan variable.
An ``Identity`` of a variable still runs, as it reads the variable at its own place in
the order.

Absorbing producers (``OpDef.absorb_producers``): an op may compute its output from its
inputs' producers' inputs, when the run owns those intermediate values alone; the
producers are then not run. A sum of padded pieces that do not overlap (the gradient of
slices that split one tensor, as in ``nce_loss``) fills its output piece by piece instead
of padding each piece with zeros and adding them up.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.graph import Operation, Tensor
from scopeflow.framework.opdef import shape_str

__all__ = ["Plan", "OpRunContext", "compile_plan", "UninitializedVariable"]

PLAN_FILENAME = "<scopeflow plan>"
_LITERAL_TYPES = (bool, int, str, type(None))
# Larger folded values would be held by the plan for the session's lifetime; the per-call
# overhead that folding saves only matters for small tensors anyway.
_FOLD_MAX_BYTES = 1 << 18


class UninitializedVariable(Exception):
    """Raised by a variable kernel; the session turns it into FailedPreconditionError."""

    def __init__(self, op):
        super().__init__(op.name)
        self.op = op


class OpRunContext:
    """What a stateful kernel sees: the session's state and the op being run."""

    __slots__ = ("state", "op", "key")

    def __init__(self, state, op):
        self.state = state
        self.op = op
        self.key = op.name


class Plan:
    """A compiled slice of the graph for one (fetches, feeds) signature."""

    __slots__ = ("fn", "ops", "feeds", "feed_checks", "line_to_op", "variable_ops", "source",
                 "has_targets")

    def __init__(self, fn, ops, feeds, feed_checks, line_to_op, variable_ops, source,
                 has_targets=False):
        self.fn = fn
        self.ops = ops
        self.feeds = feeds
        self.feed_checks = feed_checks
        self.line_to_op = line_to_op
        self.variable_ops = variable_ops
        self.source = source
        self.has_targets = has_targets  # fetched ops come back as None among the values

    def op_at_line(self, lineno):
        return self.line_to_op.get(lineno)


def _ref_source(tensor: Tensor):
    """For a ref input: the variable op name, and the op that must run first (or None)."""
    if tensor._ref_key is None:
        raise TypeError(f"Input {tensor.name} must be a variable reference (a Variable), got a "
                        f"value of dtype {tensor.dtype.name}")
    producer = tensor.op
    return tensor._ref_key, (None if producer.op_def.type in _VARIABLE_OP_TYPES else producer)


_VARIABLE_OP_TYPES = {"VariableV2", "Variable"}


def _prune(fetch_tensors, target_ops, fed: set) -> list[Operation]:
    needed: set = set()
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        ref_inputs = op._op_def.ref_inputs
        for i, t in enumerate(op._inputs):
            if t in fed:
                continue
            if i in ref_inputs:
                _, dep = _ref_source(t)
                if dep is not None:
                    stack.append(dep)
            else:
                stack.append(t._op)
        stack.extend(op._control_inputs)
    return sorted(needed, key=lambda o: o._id)


def _may_alias(ops, fed) -> set:
    """Tensors whose value may share memory with session state, constants or feeds."""
    aliasing = set(fed)
    for op in ops:
        od = op._op_def
        if od.aliases and (od.stateful or not op._inputs
                           or any(t in aliasing for t in op._inputs)):
            aliasing.update(op._outputs)
    return aliasing


def _too_big(t: Tensor) -> bool:
    """Whether the static shape already says the value is too big to fold (a large
    ``zeros`` initializer is then not computed an extra time at compile time)."""
    dims = t.shape.as_tuple()
    if dims is None or any(d is None for d in dims):
        return False
    return int(np.prod(dims, dtype=np.int64)) * t.dtype.base_dtype.size > _FOLD_MAX_BYTES


def _fold_constants(ops, fed) -> dict:
    """Values of the tensors computable at compile time: constants, and outputs of pure ops
    whose inputs are all such values (each at most ``_FOLD_MAX_BYTES``)."""
    values: dict = {}
    for op in ops:
        od = op._op_def
        outs = op._outputs
        if od.type == "Const":
            if outs[0] not in fed:
                values[outs[0]] = op._attrs["value"]
            continue
        if (od.stateful or od.kernel is None or not op._inputs or not outs or od.ref_inputs
                or any(t not in values for t in op._inputs) or any(t in fed for t in outs)
                or any(_too_big(t) for t in outs)):
            continue
        try:
            with np.errstate(all="raise"):
                result = od.kernel(*[values[t] for t in op._inputs], **op._attrs)
        except Exception:  # noqa: BLE001 - left to run (and fail) at run time
            continue
        results = result if len(outs) > 1 else (result,)
        if all(isinstance(r, (np.ndarray, np.generic)) and r.nbytes <= _FOLD_MAX_BYTES
               for r in results):
            values.update(zip(outs, results))
    return values


# Producers that return a view of their first input (their other inputs are constants:
# shapes, axes), which a ufunc may write into when the source is exclusively the run's.
_VIEW_PRODUCERS = frozenset({"Reshape", "Identity", "ExpandDims", "Squeeze", "StopGradient"})


def _exclusive(t, readers, aliasing, folded) -> bool:
    """Whether ``t``'s array is the run's own and its one reader could overwrite it: made
    fresh by its producer (a ufunc, or ``OpDef.fresh_outputs``), or a view of such an array
    that nothing else reads."""
    producer = t._op
    od = producer._op_def
    if readers[t] != 1 or od.stateful:
        return False
    if isinstance(od.kernel, np.ufunc) or od.fresh_outputs:
        return t not in aliasing  # not fed (a view's source may be) or folded
    # A view's own aliasing mark comes from its constant inputs; its source decides.
    return (od.type in _VIEW_PRODUCERS and all(x in folded for x in producer._inputs[1:])
            and _exclusive(producer._inputs[0], readers, aliasing, folded))


def _reusable_input(op, readers, aliasing, folded, var_of):
    """The plan variable of an input that ufunc ``op`` may write its result into, or None."""
    out = op._outputs[0]
    dims = out.shape.as_tuple()
    if not dims or any(d is None for d in dims):
        return None
    for t in op._inputs:
        if (t.dtype.base_dtype == out.dtype.base_dtype and t.shape.as_tuple() == dims
                and var_of.get(t, "").startswith("t")
                and _exclusive(t, readers, aliasing, folded)):
            return var_of[t]
    return None


def _lazy_variable_read(t, fed) -> bool:
    """Whether ``t`` is a variable's output, read where its reader runs (see compile_plan):
    a rewrite that moves the read to another op could see another assignment."""
    return t._op._op_def.type in _VARIABLE_OP_TYPES and t not in fed


def _forwarded(ops, fed) -> dict:
    """Outputs of the pass-through ops the plan skips, each mapped to the tensor whose
    value it is (following chains of them)."""
    source: dict = {}
    for op in ops:
        od = op._op_def
        if od.forwards_input is None or op._outputs[0] in fed or not od.forwards_input(op):
            continue
        t = op._inputs[0]
        if _lazy_variable_read(t, fed):
            continue  # keeps the variable's read where the op is
        source[op._outputs[0]] = source.get(t, t)
    return source


def _absorbing(ops, fed, folded, readers):
    """The ops that compute from their inputs' producers' inputs instead, as
    ``{op: (kernel, inputs)}``, and the producers that no longer run."""
    rewrites: dict = {}
    skipped: set = set()
    in_plan = set(ops)
    controls = {c for op in ops for c in op._control_inputs}

    def owned(t):
        # The run's own intermediate value, read by the asking op only: its producer
        # may be left out of the plan.
        producer = t._op
        return (readers[t] == 1 and t not in fed and t not in folded
                and producer in in_plan and producer not in controls
                and not producer._op_def.stateful and len(producer._outputs) == 1)

    for op in ops:
        od = op._op_def
        if (od.absorb_producers is None or od.stateful or od.ref_inputs
                or any(t in fed or t in folded for t in op._outputs)):
            continue
        found = od.absorb_producers(op, folded, owned)
        if found is not None and not any(_lazy_variable_read(t, fed) for t in found[1]):
            rewrites[op] = found
            skipped.update(t._op for t in op._inputs if t not in found[1] and owned(t))
    return rewrites, skipped


def _literal(value, namespace, hint):
    if isinstance(value, _LITERAL_TYPES):
        return repr(value)
    name = f"_{hint}"
    namespace[name] = value
    return name


def _fix_fetch(x):
    """Fetch conversion for values of unknown rank: 0-d arrays become NumPy scalars."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def _copy_fetch(x):
    x = np.array(x, copy=True)
    return x[()] if x.ndim == 0 else x


def compile_plan(fetch_tensors, target_ops, feed_tensors, state) -> Plan:
    """Compiles the slice of the graph that computes ``fetch_tensors`` and runs ``target_ops``."""
    fed = set(feed_tensors)
    ops = _prune(fetch_tensors, target_ops, fed)
    for op in ops:
        if op._op_def.type == "Placeholder":
            dt = op._outputs[0].dtype
            shape = op._outputs[0].shape
            shape_part = "" if shape.ndims is None else f" and shape {shape_str(shape)}"
            raise errors.InvalidArgumentError(
                None, op,
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{_tf_dtype_name(dt)}{shape_part}\n\t [[{op.describe_site()}]]")
    folded = _fold_constants(ops, fed)
    aliasing = _may_alias(ops, fed | folded.keys())  # folded values are shared by all runs

    namespace = {"__name__": "scopeflow.runtime.plan_exec", "_fix": _fix_fetch,
                 "_copy": _copy_fetch}
    var_of: dict[Tensor, str] = {}
    args = ["state"]
    for i, t in enumerate(feed_tensors):
        var_of[t] = f"f{i}"
        args.append(f"f{i}")

    forwarded = _forwarded(ops, fed)
    readers = Counter(t for op in ops for t in op._inputs)
    readers.update(fetch_tensors)
    rewrites, absorbed = _absorbing(ops, fed, folded, readers)
    inputs_of = {op: rewrites[op][1] if op in rewrites else op._inputs for op in ops}
    if rewrites:
        readers = Counter(t for op in ops if op not in absorbed for t in inputs_of[op])
        readers.update(fetch_tensors)

    # Liveness: the last step that reads each value (a skipped op's readers read its
    # source); fetched tensors live to the end.
    last_use: dict[Tensor, int] = {}
    for k, op in enumerate(ops):
        if op in absorbed or (op._outputs and op._outputs[0] in forwarded):
            continue
        for t in inputs_of[op]:
            last_use[forwarded.get(t, t)] = k
    for t in fetch_tensors:
        last_use[forwarded.get(t, t)] = len(ops)

    lines = [f"def _plan({', '.join(args)}):"]
    line_to_op: dict[int, Operation] = {}
    variable_ops = []

    def emit(k, op, call):
        """Appends the line that calls ``op``'s kernel, then frees what dies there."""
        outs = op._outputs
        out_vars = []
        for t in outs:
            if t in fed:
                out_vars.append("_")
            else:
                var_of[t] = f"t{k}_{t._value_index}"
                out_vars.append(var_of[t])
        if not outs:
            lines.append(f"    {call}")
        elif len(outs) == 1:
            lines.append(f"    {out_vars[0]} = {call}")
        else:
            lines.append(f"    {', '.join(out_vars)}, = {call}")
        line_to_op[len(lines)] = op
        # Free each value after its last reader (only the plan's own locals ``t*``).
        dead = [var_of[t] for t in inputs_of[op]
                if last_use.get(forwarded.get(t, t)) == k and t in var_of]
        dead += [var_of[t] for t in outs if t not in last_use and t in var_of]
        dead = [v for v in dead if v[0] == "t"]
        if dead:
            lines.append(f"    del {', '.join(sorted(set(dead)))}")

    for k, op in enumerate(ops):
        od = op._op_def
        if od.type in _VARIABLE_OP_TYPES:
            variable_ops.append(op)
        if op in absorbed:
            continue
        if op in rewrites:
            kernel, inputs = rewrites[op]
            namespace[f"_k{k}"] = kernel
            emit(k, op, f"_k{k}({', '.join(var_of[t] for t in inputs)})")
            continue
        call_args = []
        if od.stateful:
            namespace[f"_ctx{k}"] = OpRunContext(state, op)
            call_args.append(f"_ctx{k}")
        for i, t in enumerate(op._inputs):
            if i in od.ref_inputs and t not in fed:
                call_args.append(repr(_ref_source(t)[0]))
            else:
                call_args.append(var_of[t])
        for name, value in op._attrs.items():
            call_args.append(f"{name}={_literal(value, namespace, f'a{k}_{name}')}")
        outs = op._outputs
        if od.type == "Const" or (outs and all(t in folded for t in outs)):
            # No call needed: the value is bound into the plan.
            for t in outs:
                if t in folded:
                    var_of[t] = f"_c{k}" if od.type == "Const" else f"_c{k}_{t._value_index}"
                    namespace[var_of[t]] = folded[t]
            continue
        if od.type in _VARIABLE_OP_TYPES:
            # A variable is read where it is used, not where it was created: TF1 reads a ref
            # when the consumer runs, so `with control_dependencies([assign]): identity(v)`
            # sees the new value, and an uninitialized read fails at (and blames) the reader.
            if op._outputs[0] not in fed:
                namespace[f"_k{k}"] = od.kernel
                var_of[op._outputs[0]] = f"_k{k}({', '.join(call_args)})"
            continue
        if outs and outs[0] in forwarded:
            var_of[outs[0]] = var_of[op._inputs[0]]
            continue
        if od.kernel is None:
            if outs:
                raise errors.UnimplementedError(
                    None, op, f"Op type {od.type} has no kernel\n\t [[{op.describe_site()}]]")
            continue  # NoOp: only its control inputs matter
        kernel = od.kernel
        if od.owning_kernel is not None:
            t = op._inputs[od.owned_input]
            if (t._op._op_def.fresh_outputs and readers[t] == 1 and t not in fed
                    and t not in folded):
                kernel = od.owning_kernel
        if od.const_kernel is not None:
            kernel = od.const_kernel([folded.get(t) for t in op._inputs]) or kernel
        namespace[f"_k{k}"] = kernel
        if isinstance(kernel, np.ufunc) and kernel.nout == 1 and len(outs) == 1:
            reuse = _reusable_input(op, readers, aliasing, folded, var_of)
            if reuse is not None:
                call_args.append(f"out={reuse}")
        emit(k, op, f"_k{k}({', '.join(call_args)})")

    results = []
    for t in fetch_tensors:
        v = var_of[t]
        rank = t.shape.ndims
        if t in aliasing:
            results.append(f"_copy({v})")
        elif rank == 0:
            results.append(f"{v}[()]")
        elif rank is None:
            results.append(f"_fix({v})")
        else:
            results.append(v)
    lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    exec(compile(source, PLAN_FILENAME, "exec"), namespace)  # noqa: S102 - our own codegen

    feed_checks = []
    for t in feed_tensors:
        np_dtype = t.dtype.base_dtype.as_numpy_dtype
        feed_checks.append((t, np_dtype, t.shape.as_tuple()))
    return Plan(namespace["_plan"], ops, list(feed_tensors), feed_checks, line_to_op,
                variable_ops, source, has_targets=bool(target_ops))


def _tf_dtype_name(dtype) -> str:
    """TF's DataTypeString names used in runtime messages (``float``, ``double``...)."""
    base = dtype.base_dtype.name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(base, base)
