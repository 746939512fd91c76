"""Connectionist temporal classification: the ``CTCLoss`` op (TF1's ``tf.nn.ctc_loss``)
with its fused gradient output, the ``CTCGreedyDecoder`` op (``tf.nn.ctc_greedy_decoder``)
and ``PreventGradient`` (what TF's CTCLoss gradient wraps its backprop output in, so that
a second derivative raises, as in TF).

Inputs are time-major ``[max_time, batch, num_classes]`` unnormalized log-probabilities;
the blank is the last class (the decoder's ``blank_index`` may move it). The loss kernel is
the forward-backward recursion of TF's ``CTCLossCalculator`` in log space (vectorised over
the extended label states, one step per time), including ``preprocess_collapse_repeated``,
``ctc_merge_repeated`` and ``ignore_longer_outputs_than_inputs``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops

__all__ = ["ctc_loss", "ctc_greedy_decoder", "collapse_repeated"]

_CTC_FLOATS = (dtypes.float32, dtypes.float64)


# ── PreventGradient ──────────────────────────────────────────────────────────────────
def _prevent_gradient_grad(op, dy):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


def _identity_rule(x, **attrs):
    return x


def _identity_kernel(x, **attrs):
    return x


prevent_gradient_op = OpDef("PreventGradient", shape=_identity_rule, dtype=_identity_rule,
                            kernel=_identity_kernel,
                            attrs={"message": ""}, grad=_prevent_gradient_grad, aliases=True,
                            input_names=("input",))


# ── CTCLoss ──────────────────────────────────────────────────────────────────────────
def _ctc_loss_shape(inputs, indices, values, seq_len, **attrs):
    inputs = inputs.with_rank(3) if inputs.ndims is not None else TensorShape([None] * 3)
    indices.with_rank(2) if indices.ndims is not None else None
    values.with_rank(1) if values.ndims is not None else None
    batch = inputs.as_tuple()[1]
    if seq_len.ndims is not None:
        seq_len.with_rank(1)
        n = seq_len.as_tuple()[0]
        if batch is not None and n is not None and batch != n:
            raise ValueError(f"Dimensions must be equal, but are {batch} and {n}")
        batch = batch if batch is not None else n
    return [TensorShape([batch]), inputs]


def _ctc_loss_dtype(inputs, indices, values, seq_len, **attrs):
    check_dtype(inputs, _CTC_FLOATS, "inputs")
    check_dtype(indices, (dtypes.int64,), "labels_indices")
    check_dtype(values, (dtypes.int32,), "labels_values")
    check_dtype(seq_len, (dtypes.int32,), "sequence_length")
    return [inputs, inputs]


def _log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _batch_labels(indices, values, batch):
    """Each batch entry's label sequence (indices are ``[b, position]``, batch-major)."""
    labels = [[] for _ in range(batch)]
    order = np.lexsort((indices[:, 1], indices[:, 0])) if len(indices) else []
    for i in order:
        b = int(indices[i, 0])
        if not 0 <= b < batch:
            raise errors.InvalidArgumentError(None, None, f"labels batch index {b} out of "
                                              f"range [0, {batch})")
        labels[b].append(int(values[i]))
    return labels


def _logsumexp(a, b):
    """``log(exp(a) + exp(b))`` elementwise, -inf where both are (callers silence NumPy's
    invalid-value warning for -inf - -inf: a context manager per call cost more than the
    arithmetic on these small arrays)."""
    m = np.maximum(a, b)
    out = m + np.log(np.exp(a - m) + np.exp(b - m))
    return np.where(m == -np.inf, -np.inf, out)


def _extended_labels(labels, blank, merge):
    """The blank-interleaved label states ``[U, B]`` of each sequence (padded with states
    that no path reaches), which states may stay, which may skip one, and which are real."""
    n_u = 2 * max(len(label) for label in labels) + 1
    ext = np.full((n_u, len(labels)), blank, np.int64)
    for b, label in enumerate(labels):
        ext[1:2 * len(label):2, b] = label
    real = np.arange(n_u)[:, None] < np.array([2 * len(label) + 1 for label in labels])
    stay = np.full(ext.shape, True) if merge else ext == blank
    skip = np.zeros(ext.shape, bool)
    skip[2:] = (ext[2:] != blank) & ~(merge & (ext[2:] == ext[:-2]))
    return ext, real, stay, skip


def _alphas(y, stay, skip):
    """The forward log-probabilities ``[T, U, B]``, one vectorised step per time."""
    alpha = np.full(y.shape, -np.inf)
    alpha[0, :2] = y[0, :2]
    for t in range(1, y.shape[0]):
        prev = alpha[t - 1]
        acc = np.where(stay, prev, -np.inf)
        acc[1:] = _logsumexp(acc[1:], prev[:-1])
        acc[2:] = np.where(skip[2:], _logsumexp(acc[2:], prev[:-2]), acc[2:])
        alpha[t] = y[t] + acc
    return alpha


def _betas(y, stay, skip, last, ends):
    """The backward log-probabilities ``[T, U, B]`` (without ``y`` at ``t``): each sequence
    starts at its own last step ``last[b]`` with 0 in its final two states (``ends``)."""
    beta = np.full(y.shape, -np.inf)
    for t in range(y.shape[0] - 1, -1, -1):
        acc = np.full(y.shape[1:], -np.inf)
        if t + 1 < y.shape[0]:
            nxt = beta[t + 1] + y[t + 1]
            acc = np.where(stay, nxt, -np.inf)
            acc[:-1] = _logsumexp(acc[:-1], nxt[1:])
            acc[:-2] = np.where(skip[2:], _logsumexp(acc[:-2], nxt[2:]), acc[:-2])
        beta[t] = np.where(t < last, acc, np.where(t == last, ends, -np.inf))
    return beta


def _ctc_batch(logp, labels, lengths, blank, merge):
    """Losses ``[B]`` and d(loss)/d(logits) ``[T, B, C]`` of sequences of ``lengths``
    (each >= 1; ``logp``: log-softmax), all at once: the label states ``[T, U, B]`` keep
    the batch innermost, so each state slice is contiguous and every element goes through
    the same arithmetic as a sequence run alone."""
    n_t, n_b, _ = logp.shape
    ext, real, stay, skip = _extended_labels(labels, blank, merge)
    cols = np.arange(n_b)
    y = np.where(real, logp[:, cols, ext], -np.inf)          # [T, U, B]
    last = lengths - 1
    n_u = real.sum(axis=0)
    ends = np.full(ext.shape, -np.inf)
    ends[n_u - 1, cols] = 0.0
    ends[np.maximum(n_u - 2, 0), cols] = np.where(n_u > 1, 0.0, ends[0, cols])
    with np.errstate(all="ignore"):
        alpha = _alphas(y, stay, skip)
        beta = _betas(y, stay, skip, last, ends)
        fin = alpha[last, :, cols]                             # [B, U]
        two = _logsumexp(fin[cols, n_u - 1], fin[cols, np.maximum(n_u - 2, 0)])
        log_p = np.where(n_u == 1, fin[cols, 0], two)
        grad = np.exp(logp)
        inside = (np.arange(n_t)[:, None] <= last) & ~np.isneginf(log_p)   # [T, B]
        post = np.where(inside[:, None, :], np.exp(alpha + beta - log_p), 0.0)
    contrib = np.zeros_like(grad)
    for u in range(ext.shape[0]):                              # in state order, as add.at
        contrib[:, cols, ext[u]] += post[:, u]
    grad = np.where((np.arange(n_t)[:, None] <= last)[..., None], grad - contrib, 0.0)
    return np.where(np.isneginf(log_p), np.inf, -log_p), grad


def _check_label_order(b, label, n_c):
    """TF's label checks: no negative ids, and nothing but nulls (ids >= the blank) after
    a null; its messages."""
    joined = ",".join(map(str, label))
    if any(c < 0 for c in label):
        raise errors.InvalidArgumentError(
            None, None, f"All labels must be nonnegative integers, batch: {b} labels: {joined}")
    nulls = [i for i, c in enumerate(label) if c >= n_c - 1]
    if nulls and any(c < n_c - 1 for c in label[nulls[0]:]):
        seen = ",".join(map(str, label[:nulls[0]]))
        raise errors.InvalidArgumentError(
            None, None, "Saw a non-null label (index >= num_classes - 1) following a null "
            f"label, batch: {b} num_classes: {n_c} labels: {joined} labels seen so far: {seen}")


def _ctc_loss_kernel(inputs, indices, values, seq_len, *, preprocess_collapse_repeated,
                     ctc_merge_repeated, ignore_longer_outputs_than_inputs):
    n_t, batch, n_c = inputs.shape
    if np.shape(seq_len) != (batch,):
        raise errors.InvalidArgumentError(None, None, "len(sequence_length) != batch_size.  "
                                          f"len(sequence_length):  {np.size(seq_len)} "
                                          f"batch_size: {batch}")
    blank = n_c - 1
    labels = _batch_labels(np.asarray(indices), np.asarray(values), batch)
    loss = np.zeros(batch, inputs.dtype)
    grad = np.zeros_like(inputs)
    run, run_labels = [], []
    for b in range(batch):
        label = _checked_label(b, labels[b], int(seq_len[b]), n_t, n_c,
                               preprocess_collapse_repeated, ignore_longer_outputs_than_inputs)
        if label is not None:
            run.append(b)
            run_labels.append(label)
    if run:
        lengths = np.asarray(seq_len, np.int64)[run]
        span = int(lengths.max())
        logp = _log_softmax(inputs[:span, run].astype(np.float64))
        loss[run], grad[:span, run] = _ctc_batch(logp, run_labels, lengths, blank,
                                                 ctc_merge_repeated)
    return loss, grad


def _checked_label(b, label, n, n_t, n_c, collapse, ignore_longer):
    """Sequence ``b``'s label after TF's checks (its errors), or ``None`` when it has no
    loss to compute (no steps, or a label too long that ``ignore_longer`` lets pass)."""
    if n > n_t:
        raise errors.InvalidArgumentError(None, None, f"sequence_length({b}) <= {n_t}")
    if collapse:
        label = [c for i, c in enumerate(label) if i == 0 or c != label[i - 1]]
    _check_label_order(b, label, n_c)
    blank = n_c - 1
    if any(not 0 <= c < blank for c in label):
        raise errors.InvalidArgumentError(
            None, None, f"Saw a label out of range in batch {b}: labels "
            f"{','.join(map(str, label))} (valid: [0, {blank}), the last class is blank)")
    if len(label) > n:   # TF's check: one step per label (repeats not counted)
        if ignore_longer:
            return None
        raise errors.InvalidArgumentError(
            None, None, f"Not enough time for target transition sequence (required: "
            f"{len(label)}, available: {n})0You can turn this error into a warning by using "
            "the flag ignore_longer_outputs_than_inputs")
    return label if n else None


ctc_loss_op = OpDef("CTCLoss", shape=_ctc_loss_shape, dtype=_ctc_loss_dtype,
                    kernel=_ctc_loss_kernel, num_outputs=2,
                    attrs={"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                           "ignore_longer_outputs_than_inputs": False},
                    input_names=("inputs", "labels_indices", "labels_values",
                                 "sequence_length"))


@ctc_loss_op.def_grad
def _ctc_loss_grad(op, grad_loss, _unused):
    """TF's: the fused gradient output, scaled by the loss's gradient per batch entry,
    behind a PreventGradient (no second derivative)."""
    backprop = prevent_gradient_op.bind(
        op.outputs[1], message="Currently there is no way to take the second  derivative of "
        "ctc_loss due to the fused implementation's interaction  with tf.gradients()")
    return [array_ops.expand_dims(grad_loss, -1) * backprop, None, None, None]


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False, time_major=True,
             logits=None):
    """TF1's CTC loss: ``-log p(labels | inputs)`` per batch entry (a ``CTCLoss``), with
    ``labels`` a SparseTensor of int32 class ids and the blank the last class.

    >>> l = ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([2, 1, 3]), [2])
    >>> l.op.type
    'CTCLoss'
    """
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected argument `labels` to be a SparseTensor. Received "
                        f"labels={labels} of type: {type(labels).__name__}")
    if logits is not None:
        if inputs is not None:
            raise ValueError("Cannot specify both 'logits' and 'inputs'")
        inputs = logits
    inputs = convert_to_tensor(inputs, name="logits")
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])
    orig_dtype = inputs.dtype.base_dtype
    if orig_dtype == dtypes.float16:  # (scopeflow has no bfloat16)
        inputs = math_ops.cast(inputs, dtypes.float32)
    loss, _ = ctc_loss_op.bind(
        inputs, labels.indices, labels.values, sequence_length,
        preprocess_collapse_repeated=bool(preprocess_collapse_repeated),
        ctc_merge_repeated=bool(ctc_merge_repeated),
        ignore_longer_outputs_than_inputs=bool(ignore_longer_outputs_than_inputs))
    if orig_dtype == dtypes.float16:  # (scopeflow has no bfloat16)
        loss = math_ops.cast(loss, orig_dtype)
    return loss


# ── CTCGreedyDecoder ─────────────────────────────────────────────────────────────────
def _greedy_shape(inputs, seq_len, **attrs):
    inputs = inputs.with_rank(3) if inputs.ndims is not None else TensorShape([None] * 3)
    batch = inputs.as_tuple()[1]
    if seq_len.ndims is not None:
        seq_len.with_rank(1)
        n = seq_len.as_tuple()[0]
        if batch is not None and n is not None and batch != n:
            raise ValueError(f"Dimensions must be equal, but are {batch} and {n}")
        batch = batch if batch is not None else n
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2]),
            TensorShape([batch, 1])]


def _greedy_dtype(inputs, seq_len, **attrs):
    check_dtype(inputs, _CTC_FLOATS, "inputs")
    check_dtype(seq_len, (dtypes.int32,), "sequence_length")
    return [dtypes.int64, dtypes.int64, dtypes.int64, inputs]


def _greedy_kernel(inputs, seq_len, *, merge_repeated, blank_index):
    n_t, batch, n_c = inputs.shape
    if np.shape(seq_len) != (batch,):
        raise errors.InvalidArgumentError(None, None, "len(sequence_length) != batch_size.  "
                                          f"len(sequence_length):  {np.size(seq_len)} "
                                          f"batch_size: {batch}")
    if np.any(seq_len > n_t):
        b = int(np.argmax(seq_len > n_t))
        raise errors.InvalidArgumentError(None, None, f"sequence_length({b}) <= {n_t}")
    blank = blank_index + n_c if blank_index < 0 else blank_index
    best = inputs.argmax(axis=2)                       # [T, B], the first maximum
    top = np.take_along_axis(inputs, best[..., None], 2)[..., 0]
    live = np.arange(n_t)[:, None] < np.asarray(seq_len)[None, :]
    log_prob = -(np.where(live, top, 0).sum(axis=0, dtype=inputs.dtype))[:, None]
    prev = np.vstack([np.full((1, batch), -1), best[:-1]])
    keep = live & (best != blank)
    if merge_repeated:
        keep &= best != prev
    b_idx, t_idx = np.nonzero(keep.T)                  # batch-major, time order
    vals = best.T[b_idx, t_idx].astype(np.int64)
    counts = np.bincount(b_idx, minlength=batch)
    pos = np.arange(len(b_idx)) - np.repeat(np.cumsum(counts) - counts, counts)
    indices = np.stack([b_idx, pos], 1).astype(np.int64).reshape(-1, 2)
    shape = np.array([batch, counts.max() if batch else 0], np.int64)
    return indices, vals, shape, log_prob.astype(inputs.dtype)


ctc_greedy_decoder_op = OpDef("CTCGreedyDecoder", shape=_greedy_shape, dtype=_greedy_dtype,
                              kernel=_greedy_kernel, num_outputs=4, grad=None,
                              attrs={"merge_repeated": False, "blank_index": -1},
                              input_names=("inputs", "sequence_length"))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: the most likely class per step, repeats merged (optionally),
    blanks removed; ``([decoded SparseTensor], -sum of the best logits [batch, 1])``.

    >>> d, lp = ctc_greedy_decoder(tf.zeros([2, 1, 3]), [2])
    >>> d[0].indices.op.type, lp.shape.as_list()
    ('CTCGreedyDecoder', [1, 1])
    """
    outputs = ctc_greedy_decoder_op.bind(
        inputs, sequence_length, merge_repeated=bool(merge_repeated),
        blank_index=-1 if blank_index is None else int(blank_index))
    ix, vals, shape, log_probabilities = outputs
    return [SparseTensor(ix, vals, shape)], log_probabilities


# ── collapse_repeated (built from ops, as TF's) ──────────────────────────────────────
def _get_dim(tensor, i):
    """The static size of dim ``i``, else ``shape(tensor)[i]`` (TF's ``_get_dim``)."""
    dims = tensor.shape.as_tuple() if tensor.shape.ndims is not None else None
    value = dims[i] if dims is not None else None
    return value or array_ops.shape(tensor)[i]


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of repeated labels in each (padded) row: ``(collapsed labels padded to
    the new max length, new lengths)``, TF's op sequence (masks, ``scatter_nd``).

    >>> collapse_repeated([[1, 1, 2]], [3])[0].op.type
    'Reshape'
    """
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        label_mask = array_ops.concat(
            [array_ops.ones_like(labels[:, :1], dtypes.bool),
             math_ops.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        maxlen = _get_dim(labels, 1)
        seq_mask = array_ops.sequence_mask(seq_length, maxlen=maxlen)
        label_mask = math_ops.logical_and(label_mask, seq_mask)
        new_seq_len = math_ops.reduce_sum(math_ops.cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = math_ops.reduce_max(new_seq_len)
        idx_mask = array_ops.sequence_mask(new_seq_len, maxlen=new_maxlen)
        flat_labels = array_ops.reshape(labels, [-1])
        flat_label_mask = array_ops.reshape(label_mask, [-1])
        flat_idx_mask = array_ops.reshape(idx_mask, [-1])
        idx = math_ops.range(_get_dim(flat_idx_mask, 0))
        flat = array_ops.scatter_nd(
            indices=array_ops.expand_dims(array_ops.boolean_mask(idx, flat_idx_mask), axis=1),
            updates=array_ops.boolean_mask(flat_labels, flat_label_mask),
            shape=array_ops.shape(flat_idx_mask))
        batch_size = _get_dim(labels, 0)
        return (array_ops.reshape(flat, [batch_size, new_maxlen]),
                math_ops.cast(new_seq_len, seq_length.dtype))

