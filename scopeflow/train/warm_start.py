"""``tf.train.warm_start``: initialise variables from another model's checkpoint.

Which variables: a regex over ``TRAINABLE_VARIABLES`` (default ``'.*'``), a list of regexes
over ``GLOBAL_VARIABLES``, or a list of variables. Each is loaded from the tensor of the same
name, or of the name ``var_name_to_prev_var_name`` gives it, through
:func:`scopeflow.train.init_from_checkpoint` (so the variables' initializers read the
checkpoint; partitioned variables load their slices). Unused keys of
``var_name_to_prev_var_name`` raise ``ValueError`` as in TF, so a misspelt name cannot
silently skip a variable.

``var_name_to_vocab_info`` (``{name: tf.train.VocabInfo}``) remaps a variable's rows or
columns from an old vocabulary to a new one (:mod:`scopeflow.train.vocab_remap`), as TF.
Not supported: TF2 object-based checkpoints (the renaming of variables to object-graph
keys); name-based TF1 checkpoints, as ``Saver`` writes them, are what this reads.
"""

from __future__ import annotations

import logging

from scopeflow.framework.graph import GraphKeys, get_collection
from scopeflow.state.partitioning import PartitionedVariable
from scopeflow.state.variables import Variable
from scopeflow.train.checkpoint_utils import init_from_checkpoint
from scopeflow.train.vocab_remap import warm_start_var_with_vocab

__all__ = ["warm_start"]

_log = logging.getLogger("scopeflow.train")


def _var_name(var):
    """The checkpoint name of a variable: its full name for a partition (slice)."""
    info = getattr(var, "_save_slice_info", None)
    if info is not None:
        return info.full_name
    if isinstance(var, PartitionedVariable):
        return var.name
    return var.op.name


def _grouped_variables(vars_to_warm_start):
    """``{variable name: [variables or partitions]}`` of the variables to warm-start."""
    if vars_to_warm_start is None or isinstance(vars_to_warm_start, str):
        _log.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        found = get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for scope in vars_to_warm_start:
                found += get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)
        elif all(isinstance(v, Variable) for v in vars_to_warm_start):
            found = vars_to_warm_start
        else:
            raise ValueError(f"If `vars_to_warm_start` is a list, it must be all `Variable` or "
                             f"all `str`.  Given types are "
                             f"{[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is "
                         f"{type(vars_to_warm_start)}")
    grouped = {}
    for v in found:
        grouped.setdefault(_var_name(v), []).append(v)
    return grouped


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Makes the chosen variables' initializers load them from ``ckpt_to_initialize_from``
    (a checkpoint prefix or a directory, meaning its newest checkpoint); run
    ``tf.global_variables_initializer()`` (or a Scaffold/Supervisor init) afterwards.

    Raises ``ValueError`` when ``var_name_to_prev_var_name`` or ``var_name_to_vocab_info``
    names a variable that is not warm-started, or on a bad ``vars_to_warm_start``.
    """
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped = _grouped_variables(vars_to_warm_start)
    prev_names = dict(var_name_to_prev_var_name or {})
    vocab_infos = dict(var_name_to_vocab_info or {})
    used = set()
    vocab_used = set()
    pending = {}  # checkpoint name -> variable(s), one init_from_checkpoint call per batch
    count = 0
    for var_name, parts in grouped.items():
        prev = prev_names.get(var_name)
        if prev:
            used.add(var_name)
        vocab_info = vocab_infos.get(var_name)
        if vocab_info:
            vocab_used.add(var_name)
            count += 1
            parts = list(parts[0]) if isinstance(parts[0], PartitionedVariable) else parts
            warm_start_var_with_vocab(parts, ckpt_to_initialize_from, prev or var_name,
                                      vocab_info)
            continue
        if not vars_to_warm_start:
            continue  # None: only variables with a vocabulary are warm-started
        count += 1
        variable = parts[0] if len(parts) == 1 else parts
        if isinstance(variable, PartitionedVariable):
            variable = list(variable)
        tensor_name = prev or var_name
        _log.debug("Warm-starting variable: %s; prev_var_name: %s", var_name,
                   prev or "Unchanged")
        if tensor_name in pending:
            # One checkpoint tensor for two variables: the map has one key per tensor.
            init_from_checkpoint(ckpt_to_initialize_from, pending)
            pending.clear()
        pending[tensor_name] = variable
    if pending:
        init_from_checkpoint(ckpt_to_initialize_from, pending)
    _log.info("Warm-started %d variables.", count)
    _check_all_used("var_name_to_prev_var_name", set(prev_names) - used, grouped)
    _check_all_used("var_name_to_vocab_info", set(vocab_infos) - vocab_used, grouped)


def _check_all_used(argument, unused, grouped):
    """TF's ValueError for names in ``argument`` that match no warm-started variable."""
    if unused:
        raise ValueError(f"You provided the following variables in {argument} "
                         f"that were not used: {unused}.  Perhaps you misspelled them?  Here "
                         f"is the list of viable variable names: {grouped.keys()}")
