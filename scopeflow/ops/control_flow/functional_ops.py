"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: a function applied along the
first dimension of tensors, built as TF1 builds them: a ``tf.while_loop`` reading the
elements from ``TensorArray``s and writing the results into others (so they differentiate
through the loop's gradient)."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import assert_same_structure, flatten, is_sequence, pack_sequence_as
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _elements(elems, name):
    flat = [convert_to_tensor(e, name="elem") for e in flatten(elems)]
    if not flat:
        raise ValueError(f"{name}: elems must not be empty")
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
           swap_memory=False, infer_shape=True, name=None):
    """``fn`` applied to each slice ``elems[i]`` (a nested structure of tensors), results
    stacked. ``dtype`` gives the results' structure of dtypes when it differs from
    ``elems``'.

    >>> tf.Session().run(tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))).tolist()
    [1, 4, 9]
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
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
