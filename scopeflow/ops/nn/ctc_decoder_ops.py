"""``tf.nn.ctc_beam_search_decoder`` (the ``CTCBeamSearchDecoder`` op, no gradient) and
``tf.nn.ctc_unique_labels``: each batch row's distinct labels (zero-padded) and the
index of every label in them, as TF builds it (``map_fn`` over the rows of ``Unique`` +
``Pad``), for ``ctc_loss``'s ``unique`` argument.

The beam search follows TF's ``CTCBeamSearch`` with the default scorer: beams are label
prefixes with (blank, label, total) log probabilities; each step extends the surviving
beams, then grows every beam's children (all non-blank classes; blank is the last class)
into a top-``beam_width`` set, evicting the worst; a child evicted this step restarts
from its parent. The step's logits are log-softmax normalised. Ties between equal
probabilities may be broken differently from TF's heap. The search is sequential
over time and beams (a heap algorithm, as TF's kernel), one batch entry at a time.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.functional_ops import map_fn
from scopeflow.ops.math.segment_ops import unique

__all__ = ["ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "ctc_unique_labels"]

_NEG = -np.inf


def _log_softmax(row):
    """The step's logits as log probabilities (max-shifted, as TF's kernel)."""
    row = row - row.max()
    return row - np.log(np.exp(row).sum())


def _extend_beams(old, row, blank):
    """Each surviving beam one step on: its blank and last-label log probabilities."""
    new = {}
    for pre, (_ob, ol, ot) in old.items():
        lab = ol
        if pre:
            par = old.get(pre[:-1])
            if par is not None:
                prev = par[0] if len(pre) > 1 and pre[-1] == pre[-2] else par[2]
                lab = np.logaddexp(lab, prev)
            lab = lab + row[pre[-1]]
        bl = ot + row[blank]
        new[pre] = [bl, lab, np.logaddexp(bl, lab)]
    return new


def _grow_children(old, new, row, n_c, beam_width):
    """Adds the children of ``old``'s beams (best first) to ``new``, keeping at most
    ``beam_width`` beams: a child better than the worst evicts it."""
    for pre in sorted(old, key=lambda k: -old[k][2]):
        ob, ol, ot = old[pre]
        if ot == _NEG:
            continue
        for c in range(n_c - 1):
            child = pre + (c,)
            if child in new:
                continue
            prev = ob if pre and pre[-1] == c else ot
            tot = row[c] + prev
            if tot == _NEG:
                continue
            if len(new) >= beam_width:
                worst = min(new, key=lambda k: new[k][2])
                if not tot > new[worst][2]:
                    continue
                del new[worst]
            new[child] = [_NEG, tot, tot]


def _beam_search(x, beam_width, top_paths, merge_repeated):
    """(label sequences, log probabilities) of the ``top_paths`` best beams over the
    ``[time, classes]`` logits ``x``."""
    n_c = x.shape[1]
    blank = n_c - 1
    # prefix -> [blank, label, total]; the root () starts with total log 1.
    beams = {(): [0.0, _NEG, 0.0]}
    for t in range(x.shape[0]):
        row = _log_softmax(x[t])
        old = {k: list(v) for k, v in beams.items()}
        beams = _extend_beams(old, row, blank)
        _grow_children(old, beams, row, n_c, beam_width)
    if len(beams) < top_paths:
        raise errors.InvalidArgumentError(None, None,
                                          "Less leaves in the beam search than requested.")
    best = sorted(beams, key=lambda k: -beams[k][2])[:top_paths]
    paths = []
    for pre in best:
        seq = [c for i, c in enumerate(pre) if not (merge_repeated and i and pre[i - 1] == c)]
        paths.append(seq)
    return paths, [beams[k][2] for k in best]


def _beam_shape(inputs, seq_len, *, beam_width, top_paths, merge_repeated):
    inputs = inputs.with_rank(3) if inputs.ndims is not None else TensorShape([None] * 3)
    batch = inputs.as_tuple()[1]
    if seq_len.ndims is not None:
        seq_len.with_rank(1)
        n = seq_len.as_tuple()[0]
        if batch is not None and n is not None and batch != n:
            raise ValueError(f"Dimensions must be equal, but are {batch} and {n}")
        batch = batch if batch is not None else n
    return ([TensorShape([None, 2])] * top_paths + [TensorShape([None])] * top_paths +
            [TensorShape([2])] * top_paths + [TensorShape([batch, top_paths])])


def _beam_dtype(inputs, seq_len, *, top_paths, **attrs):
    check_dtype(inputs, (dtypes.float32, dtypes.float64), "inputs")
    check_dtype(seq_len, (dtypes.int32,), "sequence_length")
    return [dtypes.int64] * (3 * top_paths) + [inputs]


def _beam_kernel(inputs, seq_len, *, beam_width, top_paths, merge_repeated):
    n_t, batch, _ = inputs.shape
    if np.shape(seq_len) != (batch,):
        raise errors.InvalidArgumentError(None, None, "len(sequence_length) != batch_size.  "
                                          f"len(sequence_length):  {np.size(seq_len)} "
                                          f"batch_size: {batch}")
    if np.any(seq_len > n_t):
        b = int(np.argmax(seq_len > n_t))
        raise errors.InvalidArgumentError(None, None, f"sequence_length({b}) <= {n_t}")
    x = np.asarray(inputs, np.float64)
    per_batch = [_beam_search(x[:int(seq_len[b]), b], beam_width, top_paths, merge_repeated)
                 for b in range(batch)]
    log_probs = np.array([lp for _, lp in per_batch], inputs.dtype).reshape(batch, top_paths)
    ixs, vals, shapes = [], [], []
    for p in range(top_paths):
        seqs = [paths[p] for paths, _ in per_batch]
        lens = np.array([len(s) for s in seqs], np.int64)
        rows = np.repeat(np.arange(batch, dtype=np.int64), lens)
        cols = np.concatenate([np.arange(n, dtype=np.int64) for n in lens]) if batch else \
            np.zeros(0, np.int64)
        ixs.append(np.stack([rows, cols], 1).reshape(-1, 2))
        vals.append(np.array([c for s in seqs for c in s], np.int64))
        shapes.append(np.array([batch, lens.max() if batch else 0], np.int64))
    return (*ixs, *vals, *shapes, log_probs)


ctc_beam_search_decoder_op = OpDef(
    "CTCBeamSearchDecoder", shape=_beam_shape, dtype=_beam_dtype, kernel=_beam_kernel,
    num_outputs=lambda attrs, n: 3 * attrs["top_paths"] + 1, grad=None,
    attrs={"beam_width": None, "top_paths": None, "merge_repeated": True},
    input_names=("inputs", "sequence_length"))


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """``([top_paths decoded SparseTensors], log probabilities [batch, top_paths])`` of
    a CTC beam search over time-major logits (blank: the last class)."""
    op = ctc_beam_search_decoder_op.create(
        [inputs, sequence_length], {"beam_width": int(beam_width), "top_paths": int(top_paths),
                                    "merge_repeated": bool(merge_repeated)})
    outs, k = op._outputs, int(top_paths)
    return ([SparseTensor(outs[i], outs[k + i], outs[2 * k + i]) for i in range(k)],
            outs[3 * k])


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """``ctc_beam_search_decoder`` without merging repeated labels (TF2's decoder)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width=beam_width,
                                   top_paths=top_paths, merge_repeated=False)


def _dim(t, i):
    """``t``'s dimension ``i``: static when known, else read at run time (TF's
    ``_get_dim``)."""
    return dimension_value(t.shape[i]) or array_ops.shape(t)[i]


def ctc_unique_labels(labels, name=None):
    """``(unique labels padded with 0 as int64, indices int32)`` per row of the
    ``[batch, max_label_length]`` ``labels``.

    >>> [t.dtype.name for t in tf.nn.ctc_unique_labels([[3, 4, 4, 3]])]
    ['int64', 'int32']
    """
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x):
            y, idx = unique(x)
            y = array_ops.pad(y, [[0, _dim(idx, 0) - _dim(y, 0)]])
            return [math_ops.cast(y, dtypes.int64), idx]

        return map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])
