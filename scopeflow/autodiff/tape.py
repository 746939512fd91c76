"""``tf.GradientTape`` in TF1 graph mode, and the decorators built on gradients:
``tf.recompute_grad`` and ``tf.grad_pass_through``.

In graph mode a tape does not compute anything: it remembers which ops were built while it
was recording, and ``gradient`` builds symbolic gradient ops through those ops only (the
values are ``tf.gradients``'). An op is on the tape when it was created while the tape was
recording and one of its inputs was watched (``watch``) or made by an op on the tape, as
TF's tape records it. Ops built under ``stop_recording()``, before the tape was entered or
after ``reset()`` carry no gradient.

Where TF 2.21 differs from what one might expect, this does as TF does:

- ref variables (TF1's ``tf.Variable``) cannot be watched or differentiated: TF fails with
  ``AttributeError: 'RefVariable' object has no attribute '_id'``; reading one is never
  recorded, so ``watched_variables()`` is ``()``;
- the gradient ops are built at the top of the current name scope (no ``gradients/``
  scope); their names inside each op's rule are scopeflow's (``mul_grad/Mul``), TF's eager
  gradient functions name them ``Mul_2``;
- ``jacobian``/``batch_jacobian`` vectorize with ``pfor`` in TF; here each row of the
  target gets its own gradient (same values, shapes and dtypes), so the target's size must
  be known when the graph is built.
"""

from __future__ import annotations

import contextlib

from scopeflow.autodiff.gradients import (
    UnconnectedGradients,
    _aggregate,
    _backprop_order,
    _backprop_through,
    _between_ops,
    _grad_fn,
    custom_gradient,
    gradients,
)
from scopeflow.framework import nest
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.ops import array_ops
from scopeflow.state.variables import Variable

__all__ = ["GradientTape", "recompute_grad", "grad_pass_through"]

_CONSUMED = ("A non-persistent GradientTape can only be used to compute one set of "
             "gradients (or jacobians)")


def _no_ref_variables(value):
    """TF 2.21 cannot put a ref variable on a tape (its C tape reads a resource id)."""
    if isinstance(value, Variable):
        raise AttributeError("'RefVariable' object has no attribute '_id' (a GradientTape "
                             "in TF1 graph mode cannot watch or differentiate with respect "
                             "to a ref variable: TF fails the same way)")
    return value


class GradientTape:
    """Records the ops built in its ``with`` block, for symbolic gradients through them.

    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> tape.gradient(y, x).op.type
    'AddN'
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._consumed = False
        self._graph = None
        self._intervals: list[tuple[int, int]] = []  # [start, end) op ids recorded
        self._start = None
        self._watched: dict = {}  # tensor -> op id from which it counts as watched

    # -- recording -----------------------------------------------------------------------
    def __enter__(self):
        self._push_tape()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_tape()

    def _push_tape(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        graph = get_default_graph()
        if self._graph is None:
            self._graph = graph
        self._start = len(graph._ops)
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._intervals.append((self._start, len(self._graph._ops)))
        self._recording = False

    @contextlib.contextmanager
    def _ensure_recording(self):
        if self._recording:
            yield
            return
        self._push_tape()
        try:
            yield
        finally:
            self._pop_tape()

    def watch(self, tensor):
        """Makes ``tensor`` (or each tensor of a nested structure) a source: the ops built
        on it from now on are recorded."""
        for t in nest.flatten(tensor):
            t = _no_ref_variables(t)
            if not isinstance(t, Tensor):
                raise ValueError(f"Passed in object {t} of type {type(t).__name__!r}, not "
                                 "tf.Tensor or tf.Variable or ExtensionType.")
            if self._graph is None:
                self._graph = t.graph
            self._watched.setdefault(t, len(t.graph._ops))

    def watched_variables(self) -> tuple:
        """The variables read while recording: none, as TF1 graph mode records no ref
        variable's read."""
        return ()

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops built in this block are not recorded."""
        if self._consumed or self._graph is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self):
        """Forgets everything recorded and watched, as a new tape would."""
        recording = self._recording
        if recording:
            self._pop_tape()
        self._intervals, self._watched, self._consumed = [], {}, False
        if recording:
            self._push_tape()

    # -- what is on the tape ---------------------------------------------------------------
    def _intervals_now(self):
        if self._recording:
            return self._intervals + [(self._start, len(self._graph._ops))]
        return self._intervals

    def _taped(self):
        """The recorded ops and the tensors on the tape (watched or made by them)."""
        ops, on_tape = set(), set()
        if self._graph is None:
            return ops, on_tape
        all_ops = self._graph._ops
        for start, end in self._intervals_now():
            for op in all_ops[start:end]:
                if any(t in on_tape or self._watched.get(t, len(all_ops)) <= op._id
                       for t in op._inputs):
                    ops.add(op)
                    on_tape.update(op._outputs)
        on_tape.update(self._watched)
        return ops, on_tape

    # -- gradients -------------------------------------------------------------------------
    def _check_usable(self):
        if self._consumed or self._graph is None:
            raise RuntimeError(_CONSUMED)

    def _consume(self):
        if not self._persistent:
            if self._recording:
                self._pop_tape()
            self._consumed = True

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Symbolic gradients of ``target`` (summed) with respect to ``sources``, through
        the recorded ops; the result has the structure of ``sources``."""
        self._check_usable()
        if self._recording and not self._persistent:
            self._pop_tape()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of "
                            "Tensors, Variables or CompositeTensors to be differentiated, "
                            "but received None.")
        flat_targets = [convert_to_tensor(_no_ref_variables(t)) for t in nest.flatten(target)]
        flat_sources = [_no_ref_variables(s) for s in nest.flatten(sources)]
        if output_gradients is not None:
            output_gradients = [None if g is None else convert_to_tensor(g)
                                for g in nest.flatten(output_gradients)]
        grads = self._symbolic_gradient(flat_targets, flat_sources, output_gradients,
                                        UnconnectedGradients(getattr(
                                            unconnected_gradients, "value",
                                            unconnected_gradients)))
        self._consume()
        return nest.pack_sequence_as(sources, grads)

    def _symbolic_gradient(self, ys, xs, grad_ys, unconnected):
        """The walk of ``tf.gradients``, through the recorded ops only."""
        taped_ops, on_tape = self._taped()
        grads = {}
        for i, y in enumerate(ys):
            gy = grad_ys[i] if grad_ys is not None else None
            grads.setdefault(y, []).append(_ones_for(y) if gy is None else gy)
        connected = [x for x in xs if x in on_tape]
        between = _between_ops(ys, connected, set()) if connected else []
        reached = set(between)
        x_set = set(connected)
        for op in _backprop_order(ys, [op for op in between if op in taped_ops]):
            out_grads = []
            for t in op._outputs:
                g = _aggregate(grads.pop(t, []))
                if t in x_set:
                    grads[t] = [g]
                out_grads.append(g)
            if all(g is None for g in out_grads) or not any(
                    t._op in reached for t in op._inputs):
                continue
            rule = _grad_fn(op)
            if rule is not None:
                _backprop_through(op, rule, out_grads, grads)
        result = []
        for x in xs:
            g = _aggregate(grads.get(x, [])) if x in x_set else None
            if g is None and unconnected is UnconnectedGradients.ZERO:
                g = array_ops.zeros_like(x)
            result.append(g)
        return result

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """For each source, ``d target[i...] / d source[j...]``, shaped
        ``target.shape + source.shape``."""
        del parallel_iterations, experimental_use_pfor  # one gradient per row, see above
        self._check_usable()
        flat_sources = [_no_ref_variables(s) for s in nest.flatten(sources)]
        target = convert_to_tensor(target)
        target_shape = array_ops.shape(target)
        with self._ensure_recording():
            flat_target = array_ops.reshape(target, [-1])
        size = _static_size(flat_target, "jacobian")
        rows = []
        for i in range(size):
            with self._ensure_recording():
                y = array_ops.gather(flat_target, i)
            rows.append(self._row_gradient(y, flat_sources, unconnected_gradients))
        self._consume()
        output = []
        for k, source in enumerate(flat_sources):
            column = [row[k] for row in rows]
            if size and any(g is None for g in column):
                output.append(None)
                continue
            stacked = array_ops.stack(column) if size else array_ops.zeros(
                [0] + source.shape.as_list(), target.dtype)
            new_shape = array_ops.concat([target_shape, array_ops.shape(stacked)[1:]], axis=0)
            out = array_ops.reshape(stacked, new_shape)
            out.set_shape(target.shape.concatenate(source.shape))
            output.append(out)
        return nest.pack_sequence_as(sources, output)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """``d target[b, i...] / d source[b, j...]`` for each batch row ``b``, shaped
        ``target.shape + source.shape[1:]``."""
        del parallel_iterations, experimental_use_pfor
        self._check_usable()
        source = _no_ref_variables(source)
        target = convert_to_tensor(target)
        dim = target.shape.dims[0] if target.shape.rank is not None else None
        if not (target.shape.with_rank_at_least(2) and source.shape.with_rank_at_least(2)
                and (dim is None or dim.is_compatible_with(source.shape[0]))):
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and "
                             f"source shape ({source.shape}) to match.")
        if not target.shape.is_fully_defined():
            raise ValueError("batch_jacobian needs the target's shape known when the graph "
                             f"is built (got {target.shape}): TF's pfor loops over unknown "
                             "sizes, scopeflow builds one gradient per row")
        batch = int(target.shape[0])
        row_size = target.shape.num_elements() // batch
        with self._ensure_recording():
            flat_target = array_ops.reshape(target, [batch, row_size])
        columns = []
        for i in range(row_size):
            with self._ensure_recording():
                y = array_ops.gather(flat_target, i, axis=1)
            columns.append(self._row_gradient(y, [source], unconnected_gradients)[0])
        self._consume()
        new_shape = target.shape.concatenate(source.shape[1:])
        if not columns or any(g is None for g in columns):
            return array_ops.zeros(new_shape.as_list(), target.dtype)
        output = array_ops.reshape(array_ops.stack(columns), [row_size, batch, -1])
        output = array_ops.transpose(output, [1, 0, 2])
        return array_ops.reshape(output, new_shape.as_list())

    def _row_gradient(self, y, sources, unconnected_gradients):
        """One row's gradients, without consuming a non-persistent tape."""
        grads = self._symbolic_gradient(
            [y], sources, None, UnconnectedGradients(getattr(
                unconnected_gradients, "value", unconnected_gradients)))
        return [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in grads]


def _ones_for(y):
    """TF's default output gradient: ``ones`` of y's shape (``ones_like`` if unknown)."""
    if y.shape.is_fully_defined():
        return array_ops.ones(y.shape.as_list(), y.dtype.base_dtype)
    return array_ops.ones_like(y)


def _static_size(flat_target, what):
    size = flat_target.shape.as_list()[0] if flat_target.shape.rank else None
    if size is None:
        raise ValueError(f"{what} needs the target's size known when the graph is built "
                         f"(got {flat_target.shape}): TF's pfor loops over unknown sizes, "
                         "scopeflow builds one gradient per element")
    return size


# ── recompute_grad, grad_pass_through ─────────────────────────────────────────────────
def recompute_grad(f):
    """``f`` whose intermediates are not kept for the gradient: the gradient computes
    ``f`` again from the inputs (TF's ``tf.recompute_grad``; same values and gradients).

    As in TF1 graph mode, keyword arguments are refused, and the gradient reaches the
    positional inputs only (not variables ``f`` reads)."""
    def inner(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")

        def forward(*inputs):
            result = f(*inputs)

            def grad_fn(*dresult):
                again = [array_ops.identity(a) for a in inputs]
                recomputed = nest.flatten(f(*again))
                return gradients(recomputed, again, grad_ys=list(dresult))
            return result, grad_fn
        return custom_gradient(forward)(*args)
    inner.__name__ = getattr(f, "__name__", "recompute_grad")
    inner.__doc__ = f.__doc__
    inner.__wrapped__ = f
    return inner


def grad_pass_through(f):
    """``f`` in the forward pass, the identity in the backward pass (each output's
    gradient goes to the input at its position, as TF's ``tf.grad_pass_through``)."""
    def inner(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")

        def forward(*inputs):
            def grad_fn(*dresult):
                return list(dresult)
            return f(*inputs), grad_fn
        return custom_gradient(forward)(*args)
    inner.__name__ = getattr(f, "__name__", "grad_pass_through")
    inner.__doc__ = f.__doc__
    inner.__wrapped__ = f
    return inner
