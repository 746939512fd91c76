"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: a function applied along the
first dimension of tensors, built as TF1 builds them: a ``tf.while_loop`` reading the
elements from ``TensorArray``s and writing the results into others (so they differentiate
through the loop's gradient)."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import (
    assert_same_structure,
    flatten,
    is_sequence,
    map_structure,
    pack_sequence_as,
)
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.type_spec import SparseTensorSpec, TensorSpec, TypeSpec
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.cond_ops import composite_spec, narrow_shapes
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _elements(elems, name):
    flat = [convert_to_tensor(e, name="elem") for e in flatten(elems)]
    if not flat:
        # TF's message (map_fn's; scan and the folds fail there with a bare IndexError)
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. "
                         f"Got {elems}, which does not contain any Tensors.")
    for e in flat:
        if e.shape.ndims == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    static_n = flat[0].shape.as_tuple()[0] if flat[0].shape.ndims else None
    n = static_n if static_n is not None else array_ops.shape(flat[0])[0]
    tas = [TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
           for e in flat]
    return flat, n, static_n, tas


def _stacked(tas, static_n):
    out = []
    for ta in tas:
        t = ta.stack()
        elem = ta.element_shape
        if elem.ndims is not None:
            t.set_shape(TensorShape([static_n] + elem.as_list()))
        out.append(t)
    return out


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``fn`` applied to each slice ``elems[i]`` (a nested structure of tensors,
    SparseTensors or RaggedTensors), results stacked. ``fn_output_signature`` (or its older
    name ``dtype``) gives the results' structure of dtypes or ``TypeSpec``s when it differs
    from ``elems``': a ``SparseTensorSpec`` or ``RaggedTensorSpec`` of one result batches
    the results into a SparseTensor or RaggedTensor.

    >>> tf.Session().run(tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))).tolist()
    [1, 4, 9]
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if fn_output_signature is not None:
        dtype = fn_output_signature
    if any(composite_spec(e) is not None for e in flatten(elems)) or \
            _is_composite_signature(dtype):
        return _map_composite(fn, elems, dtype, (parallel_iterations, back_prop, swap_memory),
                              infer_shape, name)
    if dtype is not None:
        dtype = _plain_signature(dtype)
    with name_scope(name, "map", flatten(elems)):
        flat, n, static_n, elem_tas = _elements(elems, "map_fn")
        out_dtypes = dtype if dtype is not None else \
            pack_sequence_as(elems, [e.dtype for e in flat])
        flat_dtypes = flatten(out_dtypes)
        accs = [TensorArray(dtypes.as_dtype(dt), size=n, dynamic_size=False,
                            infer_shape=infer_shape) for dt in flat_dtypes]

        def body(i, *accs):
            x = pack_sequence_as(elems, [ta.read(i) for ta in elem_tas])
            y = fn(x)
            assert_same_structure(out_dtypes, y, check_types=True)  # TF's errors
            flat_y = flatten(y)
            return (i + 1,) + tuple(ta.write(i, v) for ta, v in zip(accs, flat_y))

        i0 = convert_to_tensor(0, dtype=dtypes.int32)
        _, *accs = while_loop(lambda i, *_: i < n, body, (i0, *accs),
                              parallel_iterations=parallel_iterations, back_prop=back_prop,
                              swap_memory=swap_memory, return_same_structure=True)
        results = _stacked(accs, static_n)
        return pack_sequence_as(out_dtypes, results) if is_sequence(out_dtypes) \
            else results[0]


def _map_composite(fn, elems, signature, loop_args, infer_shape, name):
    """``map_fn`` where an element or a result is a composite (see ``_Gather``)."""
    parallel_iterations, back_prop, swap_memory = loop_args
    leaves = flatten(elems)
    if not leaves:
        raise ValueError("map_fn: elems must not be empty")
    with name_scope(name, "map", [x for x in leaves if composite_spec(x) is None]):
        readers = [_reader(x) for x in leaves]
        n = math_ops.cast(_leaf_rows(leaves[0]), dtypes.int32)
        static_n = _static_rows(leaves[0])
        if signature is None:
            signature = pack_sequence_as(elems, [_row_signature(x) for x in leaves])
        gathers = [_Gather(sig, n, infer_shape) for sig in flatten(signature)]

        def body(i, accs):
            y = fn(pack_sequence_as(elems, [read(i) for read in readers]))
            assert_same_structure(signature, y)  # TF's errors
            return i + 1, [g.add(acc, i, v) for g, acc, v in zip(gathers, accs, flatten(y))]

        i0 = convert_to_tensor(0, dtype=dtypes.int32)
        accs = [g.init for g in gathers]
        invariants = (TensorShape([]), [g.invariants() for g in gathers])
        _, accs = while_loop(lambda i, _: i < n, body,
                             (i0, accs), shape_invariants=invariants,
                             parallel_iterations=parallel_iterations, back_prop=back_prop,
                             swap_memory=swap_memory)
        results = [g.result(acc, static_n, n) for g, acc in zip(gathers, accs)]
        return pack_sequence_as(signature, results) if is_sequence(signature) \
            else results[0]


def _static_rows(x):
    spec = composite_spec(x)
    shape = spec.shape if spec is not None else convert_to_tensor(x).shape
    return shape.as_tuple()[0] if shape.ndims else None


def _row_signature(x):
    """The signature of one row of ``x`` (map_fn's default: results like the elements)."""
    spec = composite_spec(x)
    return spec._unbatch() if spec is not None else convert_to_tensor(x).dtype


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The running results ``a = fn(a, x)`` over the slices of ``elems`` (from the last
    with ``reverse=True``), stacked; without ``initializer`` the first slice starts ``a``.

    >>> tf.Session().run(tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]))).tolist()
    [1, 3, 6]
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, "scan", flatten(elems)):
        flat, n, static_n, elem_tas = _elements(elems, "scan")
        last = n - 1

        def index(i):
            return last - i if reverse else i

        def read(i):
            return pack_sequence_as(elems, [ta.read(index(i)) for ta in elem_tas])

        if initializer is None:
            a = read(0)
            start = 1
        else:
            a = initializer
            start = 0
        a_structure = a
        flat_a = [convert_to_tensor(x) for x in flatten(a)]
        accs = [TensorArray(x.dtype, size=n, dynamic_size=False, infer_shape=infer_shape)
                for x in flat_a]
        if initializer is None:
            accs = [ta.write(index(0), x) for ta, x in zip(accs, flat_a)]

        def body(i, a_flat, accs):
            a = pack_sequence_as(a_structure, list(a_flat))
            new_a = fn(a, read(i))
            new_flat = [convert_to_tensor(x) for x in flatten(new_a)]
            return (i + 1, new_flat,
                    [ta.write(index(i), x) for ta, x in zip(accs, new_flat)])

        i0 = convert_to_tensor(start, dtype=dtypes.int32)
        _, _, accs = while_loop(lambda i, *_: i < n, body, (i0, flat_a, accs),
                                parallel_iterations=parallel_iterations, back_prop=back_prop,
                                swap_memory=swap_memory)
        return pack_sequence_as(a_structure, _stacked(accs, static_n))


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
          default_name, reverse):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, default_name, flatten(elems)):
        flat, n, static_n, elem_tas = _elements(elems, default_name)

        def read(i):
            j = n - 1 - i if reverse else i
            return pack_sequence_as(elems, [ta.read(j) for ta in elem_tas])

        if initializer is None:
            a, start = read(0), 1
        else:
            a, start = initializer, 0
        a_structure = a
        flat_a = [convert_to_tensor(x) for x in flatten(a)]

        def body(i, a_flat):
            new_a = fn(pack_sequence_as(a_structure, list(a_flat)), read(i))
            return i + 1, [convert_to_tensor(x) for x in flatten(new_a)]

        i0 = convert_to_tensor(start, dtype=dtypes.int32)
        _, result = while_loop(lambda i, *_: i < n, body, (i0, flat_a),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory)
        return pack_sequence_as(a_structure, list(result))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``.

    >>> int(tf.Session().run(tf.foldl(lambda a, x: a * x, tf.constant([1, 2, 3, 4]))))
    24
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldl", reverse=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``foldl`` from the last element to the first."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldr", reverse=True)


# ── composite elements and results (SparseTensor, RaggedTensor) ──────────────────────
# TF1 turns each composite slice into a variant tensor in a TensorArray; here the loop
# carries the components instead: a composite input is sliced row by row from its
# components, and a composite result is gathered by appending each row's components.
def _is_composite_signature(signature):
    return any(isinstance(s, TypeSpec) and not isinstance(s, TensorSpec)
               for s in flatten(signature))


def _plain_signature(signature):
    """A signature of dtypes (``TensorSpec``s replaced by their dtypes)."""
    return map_structure(lambda s: s.dtype if isinstance(s, TensorSpec) else s, signature)


def _leaf_rows(x):
    """How many rows a tensor or composite has (its first dimension)."""
    spec = composite_spec(x)
    if isinstance(spec, SparseTensorSpec):
        return x.dense_shape[0]
    if spec is not None:
        return array_ops.shape(x.nested_row_splits[0])[0] - 1
    return array_ops.shape(x)[0]


def _sparse_row(st, i):
    """Row ``i`` of a SparseTensor, one rank lower."""
    keep = math_ops.equal(st.indices[:, 0], math_ops.cast(i, dtypes.int64))
    indices = array_ops.boolean_mask(st.indices, keep)[:, 1:]
    return SparseTensor(indices, array_ops.boolean_mask(st.values, keep),
                        st.dense_shape[1:])


def _ragged_row(spec, parts, i):
    """Row ``i`` of a RaggedTensor given as its components (``flat_values``, splits...)."""
    flat, splits = parts[0], parts[1:]
    lo, hi = splits[0][i], splits[0][i + 1]
    inner = []
    for s in splits[1:]:
        piece = s[lo:hi + 1]
        inner.append(piece - piece[0])
        lo, hi = piece[0], piece[-1]
    return spec._unbatch()._from_components([flat[lo:hi]] + inner)


def _reader(x):
    """A function of ``i`` giving row ``i`` of ``x`` (a tensor or composite)."""
    spec = composite_spec(x)
    if isinstance(spec, SparseTensorSpec):
        return lambda i: _sparse_row(x, i)
    if spec is not None:
        parts = flatten(spec._to_components(x))
        return lambda i: _ragged_row(spec, parts, i)
    x = convert_to_tensor(x, name="elem")
    if x.shape.ndims == 0:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    ta = TensorArray(x.dtype, size=array_ops.shape(x)[0], infer_shape=True).unstack(x)
    return ta.read


class _Gather:
    """Collects one result per row: a dense one into a TensorArray; a SparseTensor as its
    indices (the row number prepended), values and the largest dense shape; a RaggedTensor
    as its flat values and each level's splits, offset to follow the rows before."""

    def __init__(self, sig, n, infer_shape):
        self.sig = sig
        if not isinstance(sig, TypeSpec) or isinstance(sig, TensorSpec):
            self.kind = "dense"
            dt = sig.dtype if isinstance(sig, TensorSpec) else dtypes.as_dtype(sig)
            self.init = [TensorArray(dt, size=n, infer_shape=infer_shape)]
        elif isinstance(sig, SparseTensorSpec):
            self.kind = "sparse"
            rank = sig.shape.ndims
            self.init = [array_ops.zeros([0, rank + 1], dtypes.int64),
                         array_ops.zeros([0], sig.dtype),
                         array_ops.zeros([rank], dtypes.int64)]
        else:
            self.kind = "ragged"
            flat = flatten(sig._component_specs)[0]
            zero = array_ops.zeros([1], sig.row_splits_dtype)
            self.init = [array_ops.zeros([0] + flat.shape.as_list()[1:], flat.dtype)] + \
                [zero] * (sig.ragged_rank + 1)

    def invariants(self):
        if self.kind == "dense":
            return [None]
        return [TensorShape([None] * t.shape.ndims) for t in self.init]

    def add(self, acc, i, y):
        if self.kind == "dense":
            return [acc[0].write(i, y)]
        if self.kind == "sparse":
            nnz = array_ops.shape(y.indices)[:1]
            row = array_ops.fill(array_ops.concat([nnz, [1]], 0), math_ops.cast(i, dtypes.int64))
            return [array_ops.concat([acc[0], array_ops.concat([row, y.indices], 1)], 0),
                    array_ops.concat([acc[1], y.values], 0),
                    math_ops.maximum(acc[2], y.dense_shape)]
        parts = flatten(self.sig._to_components(y))
        dt = self.sig.row_splits_dtype
        rows = math_ops.cast(array_ops.shape(parts[0])[:1] if len(parts) == 1 else
                             array_ops.shape(parts[1])[:1] - 1, dt)
        levels = [array_ops.concat([array_ops.zeros([1], dt), rows], 0)] + parts[1:]
        out = [array_ops.concat([acc[0], parts[0]], 0)]
        for total, s in zip(acc[1:], levels):
            out.append(array_ops.concat([total, s[1:] + total[-1]], 0))
        return out

    def result(self, acc, static_n, n):
        if self.kind == "dense":
            return _stacked(acc, static_n)[0]
        batched = self.sig._batch(static_n)
        if self.kind == "sparse":
            shape = array_ops.concat([array_ops.reshape(math_ops.cast(n, dtypes.int64), [1]),
                                      acc[2]], 0)
            acc = [acc[0], acc[1], shape]
        narrow_shapes(acc, batched)
        return batched._from_components(acc)
