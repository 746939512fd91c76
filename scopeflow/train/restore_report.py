"""What a restore would do, checked before anything is assigned, and how to report it.

``tf.train.Saver.restore`` compares every variable with the checkpoint's index (keys,
dtypes, shapes) first. Problems become one error with TensorFlow's class and first message
(``Key w not found in checkpoint``, ``Assign requires shapes of both tensors to match``),
followed by the complete list and likely fixes: a scope prefix added or dropped, optimizer
state absent, names uniquified by building the model twice, a TF2 object-based checkpoint.
A variable missing from the checkpoint is listed with the checkpoint keys that no variable
of this Saver uses and that have its shape and dtype, closest name first: often the same
parameter under another name.
A successful restore can return the same :class:`RestoreReport` (restored, unused keys).
"""

from __future__ import annotations

import os
import re

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.dtypes import type_string
from scopeflow.train import checkpoint_management as cm

__all__ = ["RestoreReport", "check_against", "restore_error", "invalid_path_error",
           "WRAP_MESSAGE"]

_SLOT_RE = re.compile(r"(/(Adam|Adam_1|Momentum|RMSProp|RMSProp_1|Adagrad|Adadelta|Adadelta_1|"
                      r"Ftrl|Ftrl_1|AdagradDA|ProximalAdagrad|ExponentialMovingAverage)"
                      r"(_\d+)?$)|(^|/)(beta1_power|beta2_power)(_\d+)?$")
_SUFFIX_RE = re.compile(r"_\d+(?=/|$)")
_ALIASES = {"weights": "kernel", "kernel": "weights", "biases": "bias", "bias": "biases"}
_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ATTRIBUTE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


class RestoreReport:
    """What a restore did (or would do): restored, missing, mismatched and unused keys.

    ``str(report)`` is a readable table. Attributes: ``checkpoint`` (the prefix),
    ``restored`` (checkpoint keys), ``missing`` (keys the checkpoint lacks),
    ``dtype_mismatches`` / ``shape_mismatches`` (``(key, variable value, checkpoint
    value)``), ``unused`` (checkpoint keys this Saver does not restore), ``fixes``
    (likely fixes, as sentences), ``ok`` (nothing missing or mismatched),
    ``same_shape_unused`` (a missing key -> the unused checkpoint keys with its shape and
    dtype, closest name first).
    """

    def __init__(self, checkpoint, saveables, ckpt_keys):
        self.checkpoint = checkpoint
        self._saveables = {s.name: s for s in saveables}
        self.restored: list[str] = []
        self.missing: list[str] = []
        self.dtype_mismatches: list[tuple] = []
        self.shape_mismatches: list[tuple] = []
        self.unused = sorted(set(ckpt_keys) - set(self._saveables))
        self.checkpoint_keys = list(ckpt_keys)
        self.same_shape_unused: dict[str, list[str]] = {}
        self.fixes: list[str] = []

    @property
    def ok(self) -> bool:
        return not (self.missing or self.dtype_mismatches or self.shape_mismatches)

    def _variable_of(self, key):
        s = self._saveables[key]
        return s.tensor.op

    def problems_text(self) -> str:
        lines = []
        if self.missing:
            lines.append(f"  missing from the checkpoint ({len(self.missing)}):")
            for k in self.missing[:_MAX_LISTED]:
                op = self._variable_of(k)
                what = "" if op.name == k else f" (variable {op.name})"
                lines.append(f"    {k}{what}: {_describe_var(self._saveables[k])}, created "
                             f"at {op.creation_site}")
                near = self.same_shape_unused.get(k)
                if near:
                    more = f" (and {len(near) - 3} more)" if len(near) > 3 else ""
                    lines.append(f"      unused checkpoint key{'s' if len(near) > 1 else ''} "
                                 f"of the same shape and dtype: "
                                 f"{', '.join(repr(c) for c in near[:3])}{more}")
            lines.extend(_more(self.missing))
        if self.dtype_mismatches:
            lines.append(f"  dtype mismatch ({len(self.dtype_mismatches)}):")
            for k, want, got in self.dtype_mismatches[:_MAX_LISTED]:
                lines.append(f"    {k}: the variable is {want}, the checkpoint has {got}")
            lines.extend(_more(self.dtype_mismatches))
        if self.shape_mismatches:
            lines.append(f"  shape mismatch ({len(self.shape_mismatches)}):")
            for k, want, got in self.shape_mismatches[:_MAX_LISTED]:
                lines.append(f"    {k}: the variable has shape {want}, the checkpoint {got}")
            lines.extend(_more(self.shape_mismatches))
        if self.fixes:
            lines.append("Likely fixes:")
            lines.extend(f"  - {f}" for f in self.fixes)
        return "\n".join(lines)

    def __str__(self):
        n = len(self._saveables)
        head = (f"Restore from '{self.checkpoint}': {len(self.restored)} of {n} variables "
                f"restored; the checkpoint has {_plural(len(self.checkpoint_keys), 'key')}, "
                f"{len(self.unused)} unused by this Saver.")
        lines = [head]
        if self.restored:
            lines.append(f"  restored ({len(self.restored)}):")
            lines.extend(f"    {k}" for k in self.restored)
        problems = self.problems_text()
        if problems:
            lines.append(problems)
        if self.unused:
            lines.append(f"  unused checkpoint keys ({len(self.unused)}):")
            lines.extend(f"    {k}" for k in self.unused)
        return "\n".join(lines)

    __repr__ = __str__


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_MAX_LISTED = 50  # per section of an error; the report object holds them all


def _more(items):
    extra = len(items) - _MAX_LISTED
    return [f"    ... and {extra} more (all of them: saver.preview(path))"] if extra > 0 else []


def _dims(shape):
    return shape.as_list() if shape.ndims is not None else None


def _describe_var(saveable) -> str:
    return f"{saveable.dtype.name} {_shape_text(_dims(saveable.shape))}"


def _shape_text(dims) -> str:
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _prefix_fixes(missing, ckpt_keys):
    """Scopes the checkpoint adds to (or lacks from) missing names, with how many each explains."""
    keys = set(ckpt_keys)
    by_suffix: dict[str, list[str]] = {}  # "w" -> ["model/"] for a checkpoint key "model/w"
    for c in keys:
        parts = c.split("/")
        for i in range(1, len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append("/".join(parts[:i]) + "/")
    added: dict[str, list[str]] = {}
    removed: dict[str, list[str]] = {}
    for k in missing:
        for p in by_suffix.get(k, ()):
            added.setdefault(p, []).append(k)
        parts = k.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[i:]) in keys:
                removed.setdefault("/".join(parts[:i]) + "/", []).append(k)
    fixes = []
    for p, ks in sorted(added.items(), key=lambda x: -len(x[1]))[:2]:
        fixes.append(
            f"{_count(ks, missing)} under '{p}' in the checkpoint (e.g. '{p}{ks[0]}'): map "
            f"them with a dict, tf.train.Saver({{'{p}' + v.op.name: v for v in var_list}}), "
            f"or use tf.train.init_from_checkpoint(path, {{'{p}': '/'}})")
    for p, ks in sorted(removed.items(), key=lambda x: -len(x[1]))[:2]:
        fixes.append(
            f"{_count(ks, missing)} without the '{p}' prefix in the checkpoint (e.g. "
            f"'{ks[0][len(p):]}'): map them with a dict, "
            f"tf.train.Saver({{v.op.name[{len(p)}:]: v for v in var_list}}), or use "
            f"tf.train.init_from_checkpoint(path, {{'/': '{p}'}})")
    return fixes


def _count(found, missing) -> str:
    if len(found) == len(missing):
        return "the missing names are" if len(found) > 1 else "the missing name is"
    return f"{len(found)} of the {len(missing)} missing names {'is' if len(found) == 1 else 'are'}"


def _suggest_fixes(report) -> list[str]:
    missing = report.missing
    if not missing:
        return []
    ckpt_keys = report.checkpoint_keys
    if _OBJECT_GRAPH_KEY in ckpt_keys:
        example = next((k for k in ckpt_keys if k.endswith(_ATTRIBUTE_SUFFIX)), None)
        return [f"this is a TF2 object-based checkpoint (tf.train.Checkpoint), keyed by object "
                f"paths such as {example!r}, not by variable names: map them with a dict, "
                f"tf.train.Saver({{'<path>{_ATTRIBUTE_SUFFIX}': v, ...}})"]
    fixes = _prefix_fixes(missing, ckpt_keys)
    for rule in (_slot_fix, _suffix_fix, _alias_fix):
        fix = rule(missing, ckpt_keys)
        if fix:
            fixes.append(fix)
    if not fixes:  # weaker hints, only when nothing above explains the missing names
        fix = _same_shape_fix(report) or _compare_names_fix(missing, ckpt_keys)
        if fix:
            fixes.append(fix)
    return fixes


def _slot_fix(missing, ckpt_keys):
    """Optimizer slots missing from a checkpoint that has none: saved without them."""
    slots = [k for k in missing if _SLOT_RE.search(k)]
    if not slots or any(_SLOT_RE.search(k) for k in ckpt_keys):
        return None
    rest = [k for k in missing if k not in slots]
    example = next((k for k in slots if "/" in k), slots[0])
    return (f"the checkpoint was saved without optimizer state ({len(slots)} optimizer "
            f"variables such as '{example}' are absent): to restore the model only, use "
            "tf.train.Saver(var_list=tf.trainable_variables()) after running "
            "tf.global_variables_initializer()"
            + (f" (also missing: {', '.join(rest[:5])})" if rest else ""))


def _suffix_fix(missing, ckpt_keys):
    """Names that differ from keys only by a ``_N`` suffix: the model was built twice."""
    stripped = {_SUFFIX_RE.sub("", k): k for k in ckpt_keys}
    renamed = [(k, stripped[_SUFFIX_RE.sub("", k)]) for k in missing
               if _SUFFIX_RE.sub("", k) in stripped]
    if not renamed:
        return None
    k, c = renamed[0]
    return (f"{len(renamed)} missing names differ from checkpoint keys only by a '_N' suffix "
            f"(e.g. '{k}' vs '{c}'): the model-building code probably ran twice in this graph; "
            "call tf.reset_default_graph() before building it again")


def _alias_fix(missing, ckpt_keys):
    """Names whose parameter the checkpoint holds under its other name (kernel/weights)."""
    keys = set(ckpt_keys)
    aliased = []
    for k in missing:
        head, _, leaf = k.rpartition("/")
        other = _ALIASES.get(leaf)
        if other and f"{head}/{other}" in keys:
            aliased.append((k, f"{head}/{other}"))
    if not aliased:
        return None
    k, c = aliased[0]
    return (f"{len(aliased)} missing names exist in the checkpoint under the other name of the "
            f"same parameter (e.g. '{k}' is '{c}'; tf.layers say kernel/bias, older code "
            "weights/biases): map them with a dict var_list")


def _same_shape_fix(report):
    """Unused checkpoint keys of a missing name's shape and dtype: perhaps renamed."""
    near_pairs = [(k, report.same_shape_unused[k][0]) for k in report.missing
                  if report.same_shape_unused.get(k)]
    if not near_pairs:
        return None
    k, c = near_pairs[0]
    mapping = f"tf.train.Saver({{'{c}': <the variable {k}>, ...}})"
    if len(near_pairs) == 1:
        return (f"the checkpoint's unused key '{c}' has the shape and dtype of the "
                f"missing '{k}': if it is the same parameter under another name, map "
                f"it with a dict, {mapping}")
    return (f"{len(near_pairs)} missing names have unused checkpoint keys of the same "
            f"shape and dtype (e.g. '{k}' and '{c}'): if they are the same "
            f"parameters under other names, map them with a dict, {mapping}")


def _compare_names_fix(missing, ckpt_keys):
    """Missing names whose last component a checkpoint key shares."""
    leaves = {c.rsplit("/", 1)[-1] for c in ckpt_keys}
    if not any(k.rsplit("/", 1)[-1] in leaves for k in missing):
        return None
    return ("compare the names with `scopeflow ckpt ls <checkpoint>` (or "
            "tf.train.list_variables) and map them with a dict var_list")


def check_against(saveables, reader, checkpoint, reshape) -> RestoreReport:
    report = RestoreReport(checkpoint, saveables, list(reader.keys()))
    for s in saveables:
        if s.name not in reader:
            report.missing.append(s.name)
            continue
        saved_dtype = reader.dtype(s.name)
        if saved_dtype.base_dtype != s.dtype:
            report.dtype_mismatches.append((s.name, s.dtype.name, saved_dtype.base_dtype.name))
            continue
        saved_shape = tuple(reader.shape(s.name))
        if not _shape_ok(s.shape, saved_shape, reshape):
            report.shape_mismatches.append(
                (s.name, _shape_text(_dims(s.shape)), _shape_text(saved_shape)))
            continue
        report.restored.append(s.name)
    if report.missing and report.unused:
        report.same_shape_unused = _same_shape_unused(report, reader)
    report.fixes = _suggest_fixes(report)
    return report


def _same_shape_unused(report, reader) -> dict[str, list[str]]:
    """For each missing key, the unused checkpoint keys with the variable's dtype and shape
    (a ``None`` dimension matches any size), closest name first."""
    import difflib

    by_dtype: dict = {}
    for c in report.unused:
        try:
            dtype, shape = reader.dtype(c).base_dtype, tuple(reader.shape(c))
        except errors.OpError:  # a dtype scopeflow lacks, a bad entry: not a candidate
            continue
        by_dtype.setdefault(dtype, []).append((c, shape))
    result = {}
    for k in report.missing:
        s = report._saveables[k]
        near = [c for c, shape in by_dtype.get(s.dtype, ())
                if _shape_ok(s.shape, shape, reshape=False)]
        if near:
            ratio = {c: difflib.SequenceMatcher(None, k, c, autojunk=False).ratio()
                     for c in near}
            result[k] = sorted(near, key=lambda c, r=ratio: (-r[c], c))
    return result


def _shape_ok(var_shape, saved, reshape) -> bool:
    if var_shape.ndims is None:
        return True
    dims = var_shape.as_list()
    if reshape:
        if None in dims:
            return True
        return int(np.prod(dims, dtype=np.int64)) == int(np.prod(saved, dtype=np.int64))
    return len(dims) == len(saved) and all(d is None or d == s for d, s in zip(dims, saved))


WRAP_MESSAGE = (
    "Restoring from checkpoint failed. This is most likely due to {} from the checkpoint. "
    "Please ensure that you have not altered the graph expected based on the checkpoint. "
    "Original error:\n\n")


def restore_error(report, restore_ops) -> errors.OpError:
    """One error for every problem: TF's class and first message, then the full list."""
    restore_v2, assign_of = restore_ops
    if report.missing:
        cls, op = errors.NotFoundError, restore_v2
        first = f"Key {report.missing[0]} not found in checkpoint"
        why = "a Variable name or other graph key that is missing"
    elif report.dtype_mismatches:
        cls, op = errors.InvalidArgumentError, restore_v2
        first = "\n".join(f"tensor_name = {k}; expected dtype {type_string(w)} does not equal "
                          f"original dtype {type_string(g)}" for k, w, g in report.dtype_mismatches)
        why = "a mismatch between the current graph and the graph"
    else:
        k, want, got = report.shape_mismatches[0]
        cls, op = errors.InvalidArgumentError, assign_of.get(k, restore_v2)
        first = (f"Assign requires shapes of both tensors to match. lhs shape= {want} "
                 f"rhs shape= {got}")
        why = "a mismatch between the current graph and the graph"
    where = f"\n\t [[{op.describe_site()}]]" if op is not None else ""
    n = len(report._saveables)
    message = (WRAP_MESSAGE.format(why) + first + where + "\n\n"
               f"scopeflow checked all {n} variables of this Saver against the checkpoint "
               f"'{report.checkpoint}' ({len(report.checkpoint_keys)} keys) before assigning "
               "anything; nothing was restored. Problems:\n" + report.problems_text())
    return cls(None, op, message)




def invalid_path_error(save_path) -> ValueError:
    """TF's "not a valid checkpoint" ValueError, saying what the path is instead."""
    head = f"The passed save_path is not a valid checkpoint: {save_path}"
    if os.path.isdir(save_path):
        latest = cm.latest_checkpoint(save_path)
        hint = (f"it is a directory. Pass a checkpoint prefix, e.g. "
                f"tf.train.latest_checkpoint({save_path!r})"
                + (f" (= {latest!r})" if latest else " (which finds none there)"))
    else:
        m = re.match(r"^(.*)\.(index|meta|data-\d{5}-of-\d{5})$", save_path)
        if m and cm.checkpoint_exists_internal(m.group(1)):
            hint = (f"it is the checkpoint's .{m.group(2)} file; pass the prefix without the "
                    f"extension: {m.group(1)!r}")
        elif os.path.isfile(save_path):
            hint = "it is a file but not a V2 checkpoint prefix (no '<path>.index' next to it)"
        else:
            directory = os.path.dirname(save_path) or "."
            latest = cm.latest_checkpoint(directory) if os.path.isdir(directory) else None
            hint = ("no file '<path>.index' exists" +
                    (f"; the newest checkpoint in {directory!r} is {latest!r}" if latest else ""))
    return ValueError(f"{head} ({hint})")
