"""``tf.cond`` and ``tf.case``: one ``If`` op that runs only the branch its predicate picks.

The branches are traced once, each into its own ``FuncGraph`` under the ``cond/`` name
scope (their ops are in the graph, named as TF1 names them: ``cond/add``, outputs
``cond/Merge``); the ``If`` op's kernel evaluates the predicate and calls the taken branch,
compiled for the session (``run.state.function``), so an untaken branch's ops, side effects
included, never run.

Gradients: ``If``'s gradient is another ``If`` on the same predicate whose branches are the
gradients of the forward branches (built by ``autodiff/control_flow_grad.py``, which
differentiates each branch with ``tf.gradients``' walk; ``create_if`` builds the op). The
values of the forward branch that those need are kept by the forward op in its last output,
a *trace* (TF1 reads them through its ``Switch``es); the gradient op reads the trace.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import (
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.nest import assert_same_structure, flatten, pack_sequence_as
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.type_spec import NoneTensorSpec, TensorSpec
from scopeflow.framework.type_spec import _spec_or_none as _registered_spec
from scopeflow.ops import array_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math_ops import cast, equal, reduce_sum

__all__ = ["cond", "case", "Cond", "most_specific_compatible_shape", "branch_value",
           "as_flow_structure", "from_flow_structure", "create_if", "switch_case",
           "composite_spec", "check_same_composites", "narrow_shapes"]


class Trace:
    """What one run of a control-flow op keeps for its gradient: which branch ran (or how
    many iterations), and the recorded values of each."""

    __slots__ = ("branch", "values")

    def __init__(self, branch, values):
        self.branch = branch
        self.values = values

    def __repr__(self):
        return f"<Trace branch={self.branch} values={len(self.values)}>"


def most_specific_compatible_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The shape both ``a`` and ``b`` have: dims where they agree, unknown elsewhere."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None or len(da) != len(db):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(da, db)])


# ── TensorArrays, composites and ops as branch or loop values ────────────────────────
def composite_spec(x):
    """The ``TypeSpec`` of ``x`` when it is a composite tensor (a SparseTensor,
    IndexedSlices, RaggedTensor: any type whose spec is registered), else None. Constructs
    take such values apart into their component tensors at their boundary and put them back
    together after it, as TF's ``nest.flatten(..., expand_composites=True)``."""
    if x is None or isinstance(x, (Tensor, Operation, TensorArray)):
        return None
    spec = _registered_spec(x)
    if spec is None or isinstance(spec, (TensorSpec, NoneTensorSpec)):
        return None
    return spec


def _leaf_parts(x):
    """The tensors one leaf crosses a boundary as: a TensorArray's flow, a composite's
    components, or the leaf itself."""
    if isinstance(x, TensorArray):
        return [x.flow]
    spec = composite_spec(x)
    if spec is None:
        return [x]
    return flatten(spec._to_components(x))


def as_flow_structure(structure):
    """The tensors that cross a construct's boundary for ``structure``: TensorArrays
    replaced by their flow tensors, composites by their component tensors."""
    return [t for x in flatten(structure) for t in _leaf_parts(x)]


def _leaf_width(like, spec):
    if spec is None:
        return 1
    return len(flatten(spec._component_specs))


def from_flow_structure(structure, flat, specs=None):
    """``flat`` packed as ``structure``: flows rebuilt into TensorArrays like the originals,
    components into composites of the originals' specs (or of ``specs``, one per leaf of
    ``structure``, None for a plain leaf), which set their static shapes as TF's."""
    leaves = flatten(structure)
    if specs is None:
        specs = [composite_spec(x) for x in leaves]
    flat = list(flat)
    items, at = [], 0
    for like, spec in zip(leaves, specs):
        n = _leaf_width(like, spec)
        part = flat[at:at + n]
        at += n
        if isinstance(like, TensorArray):
            items.append(like._with_flow(part[0]))
        elif spec is not None:
            narrow_shapes(part, spec)
            items.append(spec._from_components(pack_sequence_as(spec._component_specs, part)))
        else:
            items.append(part[0])
    return pack_sequence_as(structure, items)


def narrow_shapes(tensors, spec):
    """Gives each component tensor the static shape ``spec`` knows for it (TF's specs set
    them as they rebuild a value: a RaggedTensor's ``row_splits`` from its row count)."""
    for t, c in zip(tensors, flatten(spec._component_specs)):
        if isinstance(t, Tensor) and t.shape.is_compatible_with(c.shape):
            t.set_shape(c.shape)


def _composite_key(x):
    """What two leaves must share to be the same structure with composites expanded: the
    spec's class and its components' dtypes (TF lets dense shapes, even ranks, differ)."""
    spec = composite_spec(x)
    if spec is None:
        return None
    return (type(spec), tuple(s.dtype.base_dtype for s in flatten(spec._component_specs)))


def check_same_composites(a, b, prefix=""):
    """TF's ``assert_same_structure(a, b, expand_composites=True)`` for structures that
    already nest the same way: a composite against a tensor, or composites of different
    kinds or dtypes, are a ``ValueError`` with TF's message (which shows ``a`` and ``b``)."""
    for x, y in zip(flatten(a), flatten(b)):
        if _composite_key(x) != _composite_key(y):
            raise ValueError(
                f"{prefix}The two structures don't have the same nested structure.\n\n"
                f"First structure: type={type(a).__name__} str={a!r}\n\n"
                f"Second structure: type={type(b).__name__} str={b!r}")


def branch_value(x, context, what):
    """One result of a branch or body as a tensor of ``context`` (a ``FuncGraph``; TF1's rule:
    an ``Operation`` becomes a boolean that depends on it; an outside tensor passes through an
    ``Identity``)."""
    if isinstance(x, Operation):
        with control_dependencies([x]):
            return constant(True, name="Op")
    if x is None:
        raise ValueError(f"{what} returned None among its results; return tensors")
    t = convert_to_tensor(x)
    if t._op._cf_context is not context:
        t = array_ops.identity(t)
    return t


# ── The If op ────────────────────────────────────────────────────────────────────────
class _Branch:
    """One branch: its function (``fn.outputs``: its results), and how the op feeds it."""

    def __init__(self, fn):
        self.fn = fn
        self.capture_index: list = []   # positions of its captures among the op's inputs
        self.trace_feeds: list = []     # its recorded-from-forward tensors, in feed order


class CondSpec:
    """An ``If`` op's branches (``[false, true]``) and what the kernel passes them."""

    def __init__(self, branches, n_out, forward_spec=None):
        self.branches = branches
        self.n_out = n_out
        self.forward_spec = forward_spec  # for a gradient If: the forward op's spec

    def bind(self, captures):
        """Works out each branch's feeds, given the op's captured inputs (after ``pred``)."""
        index = {t: i for i, t in enumerate(captures)}
        for b in self.branches:
            b.capture_index = [index[t] for t in b.fn.captures]
            b.trace_feeds = list(b.fn.recorded_from_forward)


def _if_shape(pred, *captured, spec, reads_trace):
    shapes = []
    false, true = spec.branches
    for f, t in zip(false.fn.outputs, true.fn.outputs):
        shapes.append(most_specific_compatible_shape(t.shape, f.shape))
    return shapes + [TensorShape([])]


def _if_dtype(pred, *captured, spec, reads_trace):
    return [t.dtype.base_dtype for t in spec.branches[1].fn.outputs] + [dtypes.variant]


def _if_kernel(run, pred, *inputs, spec, reads_trace):
    state = run.state
    if reads_trace:
        trace = inputs[-1]
        b = trace.branch
        inputs = inputs[:-1]
    else:
        if np.ndim(pred) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"The predicate of a tf.cond must be a scalar, but it has shape "
                f"{list(np.shape(pred))}")
        b = 1 if pred else 0
    branch = spec.branches[b]
    values = [inputs[i] for i in branch.capture_index]
    if reads_trace:
        forward = spec.forward_spec.branches[b].fn
        values += [trace.values[forward.recorded_index(t)] for t in branch.trace_feeds]
    out = state.function(branch.fn)(values)
    n = spec.n_out
    result = Trace(b, out[n:])
    if n == 0:
        return result
    return (*out[:n], result)


if_op = OpDef("Cond", shape=_if_shape, dtype=_if_dtype, kernel=_if_kernel, stateful=True,
              aliases=True,  # a branch may return a captured value (a variable's buffer) as is
              attrs={"spec": None, "reads_trace": False},
              num_outputs=lambda attrs, n: attrs["spec"].n_out + 1)
Cond = if_op  # noqa: N816 - the op's declaration, by its type name


# ── tf.cond ──────────────────────────────────────────────────────────────────────────
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as one op running only that branch.

    Both functions are called once, while building, under the ``cond/`` name scope; they
    must return the same structure of tensors, TensorArrays or composites (SparseTensor,
    IndexedSlices, RaggedTensor: each output component is a ``cond/Merge``; the result's
    static shapes are the true branch's, as TF's) with the same dtypes. As
    TF1, a single-element list or tuple result is unpacked unless ``strict=True``.

    >>> x = tf.constant(2.0)
    >>> r = tf.cond(x > 1.0, lambda: x * 10.0, lambda: x)
    >>> r.name, float(tf.Session().run(r))
    ('cond/Merge:0', 20.0)
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    _check_cond_args(pred, true_fn, false_fn)
    with name_scope(name, "cond", [pred]) as scope:
        pred = _cond_pred(pred, scope)
        graph = pred.graph
        results, branches = _trace_branches(graph, scope, false_fn, true_fn)
        _widen_indexed_slices_indices(graph, results, branches)
        false_result, true_result = results
        n_out = _check_branch_results(true_result, false_result, branches)
        outs = create_if(graph, pred, branches, n_out)
        merged = [array_ops.identity(t, name="Merge") for t in outs]
    result = from_flow_structure(true_result, merged)
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1 and \
            not hasattr(result, "_fields"):
        return result[0]
    return result


def _check_cond_args(pred, true_fn, false_fn):
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("'pred' must not be a Python bool.")
    for what, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"'{what}' must be callable.")


def _cond_pred(pred, scope):
    """``pred`` as a tensor, checked to be a boolean scalar (TF1's ``Switch`` rules)."""
    pred = convert_to_tensor(pred)
    if pred.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"Input 'pred' of 'Switch' Op has type {pred.dtype.base_dtype.name} "
                        "that does not match expected type of bool.")
    if pred.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.ndims} for "
                         f"'{scope}Switch' (op: 'Switch') with input shapes: "
                         f"{pred.shape.as_list()}.")
    return pred


def _trace_branches(graph, scope, false_fn, true_fn):
    """Traces ``true_fn`` then ``false_fn``, each into its own ``FuncGraph``; returns what
    each returned and the ``FuncGraph``s (``[false, true]`` both).

    True first, as TF1's ``cond`` builds them: unseeded random ops in the branches take
    the graph's seed requests, and name uniquing, in that order."""
    parent = graph._state().cf_context
    results, branches = [], []
    for what, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        branch = FuncGraph(FunctionKind.COND_BRANCH, parent=parent, name=scope.rstrip("/"))
        with branch.entered(graph):
            result = fn()
            if result is None:
                raise ValueError(f"'{what}' must have a return value.")
            branch.outputs = [branch_value(x, branch, f"'{what}'")
                              for x in as_flow_structure(result)]
        results.insert(0, result)
        branches.insert(0, branch)
    return results, branches


def _widen_indexed_slices_indices(graph, results, branches):
    """Where one branch returns IndexedSlices with int32 indices and the other int64, the
    int32 ones are cast to int64 in their branch (TF1's ``_cast_indexed_slice_indices``),
    so that the branches agree; ``results`` and the branches' outputs are updated."""
    leaves = [flatten(r) for r in results]
    if len(leaves[0]) != len(leaves[1]):
        return  # a structure mismatch, reported by the check that follows
    changed = set()
    for j, pair in enumerate(zip(*leaves)):
        if not all(isinstance(x, IndexedSlices) for x in pair):
            continue
        if len({x.indices.dtype.base_dtype for x in pair}) < 2:
            continue
        for side, x in enumerate(pair):
            if x.indices.dtype.base_dtype != dtypes.int64:
                with branches[side].entered(graph):
                    leaves[side][j] = IndexedSlices(x.values, cast(x.indices, dtypes.int64),
                                                    x.dense_shape)
                changed.add(side)
    for side in changed:
        results[side] = pack_sequence_as(results[side], leaves[side])
        branch = branches[side]
        with branch.entered(graph):
            branch.outputs = [branch_value(x, branch, "the branch")
                              for x in as_flow_structure(results[side])]


def _check_branch_results(true_result, false_result, branches):
    """Checks that the branches return the same structure and dtypes; returns how many
    outputs they have."""
    prefix = "Incompatible return values of 'true_fn' and 'false_fn': "
    try:
        assert_same_structure(true_result, false_result)
    except ValueError as e:
        raise ValueError(prefix + str(e)) from None
    check_same_composites(true_result, false_result, prefix)
    t_types = [t.dtype.base_dtype for t in branches[1].outputs]
    f_types = [t.dtype.base_dtype for t in branches[0].outputs]
    if t_types != f_types:
        raise ValueError(
            "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
            f"{', '.join(d.name for d in t_types)} from 'true_fn' and "
            f"{', '.join(d.name for d in f_types)} from 'false_fn'.")
    return len(t_types)


def create_if(graph, pred, branches, n_out, forward=None):
    """The ``If`` op running ``branches`` (``[false, true]`` ``FuncGraph``s with ``n_out``
    outputs each) on ``pred``; with ``forward`` (a forward ``If`` op), the gradient ``If``
    that reads that op's trace. Returns the op's first ``n_out`` outputs."""
    captures = []
    seen = set()
    # A gradient If also takes the forward op's inputs, so that its own gradient (which
    # recomputes the forward branch) can reach them.
    forward_inputs = [] if forward is None else \
        list(forward.inputs[1:len(forward.inputs) - forward.get_attr("reads_trace")])
    for t in [t for fn in branches for t in fn.captures] + forward_inputs:
        if t not in seen:
            seen.add(t)
            captures.append(t)
    spec = CondSpec([_Branch(fn) for fn in branches], n_out,
                    forward_spec=forward.get_attr("spec") if forward is not None else None)
    spec.bind(captures)
    inputs = [pred] + captures + ([forward.outputs[-1]] if forward is not None else [])
    controls = [c for fn in branches for c in fn.external_controls]
    with graph.control_dependencies(controls):
        op = if_op.create(inputs, {"spec": spec, "reads_trace": forward is not None},
                          name="Cond")
    return list(op.outputs[:n_out])


# ── tf.case ──────────────────────────────────────────────────────────────────────────
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first pair whose predicate is true (else ``default``), as nested
    conds (TF1 builds the same chain). With ``exclusive=True``, more than one true predicate
    is an ``InvalidArgumentError`` at run time."""
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    else:
        pairs = list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0].name} must be callable.")
    all_preds = [p for p, _ in pairs]
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        *pairs, (_, default) = pairs  # as TF1: the last function is the default
    with name_scope(name, "case", all_preds):
        if exclusive and len(all_preds) > 1:
            preds = array_ops.stack([convert_to_tensor(p) for p in all_preds])
            count = reduce_sum(cast(preds, dtypes.int32))
            check = Assert(count <= 1, ["Input error: exclusive=True: more than 1 conditions ("
                                        + ", ".join(convert_to_tensor(p).name for p in all_preds)
                                        + ") evaluated as True:", preds])
            pairs = [(_gated(p, check), fn) for p, fn in pairs]
        fn = default
        for pred, branch_fn in reversed(pairs):
            fn = _chain(pred, branch_fn, fn, strict)
        return fn()


def _gated(pred, check):
    with control_dependencies([check]):
        return array_ops.identity(pred)


def _chain(pred, fn, otherwise, strict):
    return lambda: cond(pred, fn, otherwise, strict=strict)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of ``branch_fns[branch_index]`` (a list, or a dict of int keys); an index
    out of range runs ``default``, or the last branch without one, as TF's ``switch_case``.
    Built as a ``case`` of one predicate per branch (TF1's graph has the same semantics)."""
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
        if [k for k, _ in items] != list(range(len(items))):
            raise ValueError("branch_fns keys must be consecutive integers from 0")
        branch_fns = [fn for _, fn in items]
    elif isinstance(branch_fns, list | tuple) and branch_fns and \
            isinstance(branch_fns[0], tuple):
        branch_fns = [fn for _, fn in sorted(branch_fns)]
    branch_fns = list(branch_fns)
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    for fn in branch_fns:
        if not callable(fn):
            raise TypeError(f"fn for branch must be callable: {fn}")
    with name_scope(name, "switch_case", [branch_index]):
        branch_index = convert_to_tensor(branch_index, name="branch_index")
        if branch_index.dtype.base_dtype != dtypes.int32:
            raise TypeError("branch_index must be an int32 Tensor")
        if default is None:
            default = branch_fns[-1]
            branch_fns = branch_fns[:-1]
        pairs = [(equal(branch_index, i), fn) for i, fn in enumerate(branch_fns)]
        if not pairs:
            return default()
        return case(pairs, default=default, exclusive=False, name="indexed_case")

