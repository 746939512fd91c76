"""``scopeflow ckpt``: look inside TensorFlow checkpoints from the shell.

    scopeflow ckpt ls PATH             names, shapes, dtypes and sizes, with totals
    scopeflow ckpt show PATH NAME      one tensor's values and summary statistics
    scopeflow ckpt diff A B            added, removed, reshaped and changed tensors
    scopeflow ckpt to-npz PATH OUT     every tensor into a NumPy .npz archive

PATH is a checkpoint prefix (``train/model.ckpt-1000``) or a directory, meaning its newest
checkpoint (from the ``checkpoint`` state file). Works on checkpoints written by
TensorFlow or scopeflow; every tensor read is checksum-verified.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

import numpy as np

from scopeflow.framework import errors
from scopeflow.io.atomic import atomic_file
from scopeflow.io.protos import DATA_TYPE
from scopeflow.platform.cli_conventions import EXIT_FAILURE, epilog, fail, guarded, print_json, run
from scopeflow.train.checkpoint_utils import load_checkpoint

__all__ = ["add_parser", "main"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Registers ``ckpt`` and its subcommands on ``subparsers`` (the ``scopeflow`` command)."""
    path_help = "a checkpoint prefix (model.ckpt-1000) or a directory: its newest checkpoint"
    json_help = "print one JSON document instead of text"
    parser = subparsers.add_parser(
        "ckpt", help="inspect TensorFlow checkpoints (ls, show, diff, to-npz)",
        description=__doc__.split("\n\n")[0] + " PATH is a checkpoint prefix or a directory "
        "(its newest checkpoint).", epilog=epilog("differences found by diff"))
    commands = parser.add_subparsers(dest="ckpt_command", metavar="SUBCOMMAND",
                                     help="what to do with the checkpoint")
    commands.required = True

    ls = commands.add_parser("ls", help="list tensors: name, shape, dtype, size",
                             description="Every tensor's name, shape, dtype, element count "
                             "and size, with totals.", epilog=epilog())
    ls.add_argument("path", metavar="PATH", help=path_help)
    ls.add_argument("--json", action="store_true", help=json_help)
    ls.set_defaults(func=_ls)

    show = commands.add_parser("show", help="print one tensor's values and statistics",
                               description="One tensor's dtype, shape, values and summary "
                               "statistics.", epilog=epilog())
    show.add_argument("path", metavar="PATH", help=path_help)
    show.add_argument("name", metavar="NAME", help="the tensor's name (see `ckpt ls`)")
    show.add_argument("--all", action="store_true", help="print every value, not a summary")
    show.add_argument("--json", action="store_true",
                      help=json_help + " (with every value, as --all)")
    show.set_defaults(func=_show)

    diff = commands.add_parser("diff", help="compare two checkpoints tensor by tensor",
                               description="Tensors only in A, only in B, with another "
                               "shape or dtype, or with other values.",
                               epilog=epilog("the checkpoints differ"))
    diff.add_argument("a", metavar="A", help="the first checkpoint: " + path_help[2:])
    diff.add_argument("b", metavar="B", help="the second checkpoint, likewise")
    diff.add_argument("--atol", type=_non_negative, default=0.0,
                      help="report values as changed only above this absolute difference")
    diff.add_argument("--json", action="store_true", help=json_help)
    diff.set_defaults(func=_diff)

    to_npz = commands.add_parser("to-npz", help="write every tensor to a .npz archive",
                                 description="Every tensor into a NumPy .npz archive, keyed "
                                 "by name.", epilog=epilog())
    to_npz.add_argument("path", metavar="PATH", help=path_help)
    to_npz.add_argument("out", metavar="OUT", help="the archive to write (.npz is appended "
                        "if missing)")
    to_npz.add_argument("--compress", action="store_true", help="zip-compress the arrays")
    to_npz.set_defaults(func=_to_npz)
    return parser


def main(argv=None) -> int:
    """``python -m scopeflow.train.checkpoint_cli ls PATH``: the same as ``scopeflow ckpt``."""
    parser = argparse.ArgumentParser(prog="scopeflow")
    add_parser(parser.add_subparsers(dest="command"))
    return run(parser.parse_args(["ckpt", *(sys.argv[1:] if argv is None else argv)]))


def _non_negative(text: str) -> float:
    value = float(text)  # ValueError: argparse's "invalid float value"
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, not {text!r}")
    return value


_non_negative.__name__ = "float"


# ── helpers ──────────────────────────────────────────────────────────────────────────
def _open(path):
    return load_checkpoint(path)


def _fail(message: str) -> int:
    return fail("ckpt", message)


# The user's errors: a bad path, a corrupt file, an unknown tensor name.
_guarded = functools.partial(guarded, "ckpt", (errors.OpError, ValueError, OSError))


def _human(nbytes: int) -> str:
    size = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"  # pragma: no cover


def _dtype_name(reader, name) -> str:
    """``float32``...; types scopeflow has no DType for (bfloat16) by their enum name."""
    try:
        return reader.dtype(name).name
    except errors.UnimplementedError:
        return _type_enum_name(reader.entry(name).dtype)


def _type_enum_name(enum: int) -> str:
    value = DATA_TYPE.values_by_number.get(enum)
    return value.name[3:].lower() if value is not None else f"DataType({enum})"


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _table(rows, header):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    right = {i for i, h in enumerate(header) if h in ("size", "elements")}
    for row in [header, *rows]:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())


# ── ls ───────────────────────────────────────────────────────────────────────────────
@_guarded
def _ls(args):
    """Names, shapes, dtypes, sizes and totals of every tensor."""
    reader = _open(args.path)._reader
    tensors = []
    for name in reader.keys():
        shape = [int(d) for d in reader.shape(name)]
        tensors.append({"name": name, "shape": shape, "dtype": _dtype_name(reader, name),
                        "elements": int(np.prod(shape, dtype=np.int64)),
                        "bytes": int(reader.nbytes(name))})
    total_bytes = sum(t["bytes"] for t in tensors)
    total_elements = sum(t["elements"] for t in tensors)
    if args.json:
        print_json({"checkpoint": reader.prefix, "tensors": tensors,
                    "total": {"tensors": len(tensors), "elements": total_elements,
                              "bytes": total_bytes}})
        return 0
    print(f"checkpoint: {reader.prefix}")
    _table([(t["name"], _shape_str(t["shape"]), t["dtype"], f"{t['elements']:,}",
             _human(t["bytes"])) for t in tensors],
           ("name", "shape", "dtype", "elements", "size"))
    print(f"{len(tensors)} tensors, {total_elements:,} elements, {_human(total_bytes)} "
          f"({total_bytes:,} bytes)")
    return 0


# ── show ─────────────────────────────────────────────────────────────────────────────
def _is_float(value: np.ndarray) -> bool:
    return value.dtype.kind == "f" or value.dtype.name == "bfloat16"


def _stats(value: np.ndarray) -> dict:
    """Summary statistics; the keys present depend on the dtype (see ``_stats_text``)."""
    if value.dtype == object:
        if not value.size:
            return {}
        lengths = [len(v) for v in value.reshape(-1)]
        return {"length_min": min(lengths), "length_max": max(lengths),
                "length_total": sum(lengths)}
    if value.size == 0:
        return {}
    if value.dtype == np.bool_:
        return {"true": int(value.sum()), "elements": int(value.size)}
    if np.iscomplexobj(value):
        mags = np.abs(value)
        return {"abs_min": float(mags.min()), "abs_max": float(mags.max()),
                "abs_mean": float(mags.mean())}
    data = value.astype(np.float64) if _is_float(value) else value
    finite = np.isfinite(data) if data.dtype.kind == "f" else np.ones(data.shape, bool)
    stats = {}
    if finite.any():
        good = data[finite].astype(np.float64)
        stats.update(min=float(good.min()), max=float(good.max()), mean=float(good.mean()),
                     std=float(good.std()))
    stats["zeros"] = int((data == 0).sum())
    if data.dtype.kind == "f":
        stats.update(nan=int(np.isnan(data).sum()), inf=int(np.isinf(data).sum()))
    return stats


def _stats_text(s: dict) -> str:
    if "length_total" in s:
        return f"lengths: min {s['length_min']}, max {s['length_max']}, " \
            f"total {s['length_total']}"
    if "true" in s:
        return f"true: {s['true']:,} of {s['elements']:,}"
    if "abs_min" in s:
        return f"|x|: min {s['abs_min']:.6g}, max {s['abs_max']:.6g}, mean {s['abs_mean']:.6g}"
    if not s:
        return "empty"
    parts = []
    if "min" in s:
        parts.append(f"min {s['min']:.6g}, max {s['max']:.6g}, mean {s['mean']:.6g}, "
                     f"std {s['std']:.6g}")
    parts.append(f"zeros {s['zeros']:,}")
    if s.get("nan") or s.get("inf"):
        parts.append(f"NaN {s['nan']:,}, Inf {s['inf']:,}")
    return ", ".join(parts)


def _shortest(value: np.ndarray) -> np.ndarray:
    """Floats narrower than 64 bits as the float64 of their shortest decimal (0.1 for
    float32's 0.1, not 0.10000000149011612): JSON shows what NumPy prints."""
    if value.dtype.itemsize >= 8:
        return value.astype(np.float64)
    try:
        text = value.astype(str)
    except TypeError:   # bfloat16: no conversion to str; float32 holds it exactly
        text = value.astype(np.float32).astype(str)
    return text.astype(np.float64)


def _values(value: np.ndarray):
    """The values as (nested) Python lists; complex numbers as [real, imag]."""
    if np.iscomplexobj(value):
        return np.stack([_shortest(value.real), _shortest(value.imag)], axis=-1).tolist()
    if _is_float(value):
        return _shortest(value).tolist()
    return value.tolist()   # bytes stay bytes: print_json decodes them


@_guarded
def _show(args):
    """One tensor: dtype, shape, values (NumPy's printing) and summary statistics."""
    reader = _open(args.path)
    value = reader.get_tensor(args.name)
    value = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    dtype = _dtype_name(reader._reader, args.name)
    if args.json:
        print_json({"checkpoint": reader.prefix, "name": args.name, "dtype": dtype,
                    "shape": list(value.shape), "elements": int(value.size),
                    "value": _values(value), "stats": _stats(value)})
        return 0
    print(f"{args.name}: {dtype} {_shape_str(value.shape)} ({value.size:,} elements) "
          f"in {reader.prefix}")
    options = {"threshold": sys.maxsize} if args.all else {}
    shown = value
    if value.dtype == object and not args.all:   # long strings: the first bytes only
        shown = np.array([v if len(v) <= 80 else v[:80] + b"..." for v in value.reshape(-1)],
                         dtype=object).reshape(value.shape)
    with np.printoptions(**options):
        # array2string for 0-d too: repr() of a NumPy 2 scalar is "np.float32(3.0)"
        print(np.array2string(shown, separator=", "))
    print(_stats_text(_stats(value)))
    return 0


# ── diff ─────────────────────────────────────────────────────────────────────────────
def _max_abs_diff(a: np.ndarray, b: np.ndarray) -> float | None:
    """The largest |a - b| (None for strings); NaN == NaN counts as equal."""
    if a.dtype == object or b.dtype == object:
        return None
    if a.size == 0:
        return 0.0
    if a.dtype == np.bool_:
        return float(np.count_nonzero(a != b))
    x = np.atleast_1d(a).astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    y = np.atleast_1d(b).astype(x.dtype)
    both_nan = np.isnan(x) & np.isnan(y)
    with np.errstate(invalid="ignore"):
        d = np.abs(x - y)
    d[both_nan | (x == y)] = 0.0   # equal infinities differ by NaN otherwise
    return float(np.nanmax(np.where(np.isnan(d), np.inf, d)))


def _spec(reader, name) -> dict:
    return {"dtype": _dtype_name(reader, name), "shape": [int(d) for d in reader.shape(name)]}


@_guarded
def _diff(args):
    """Tensors only in A, only in B, with another shape/dtype, or with other values.

    Exit status 1 when anything differs, 0 when the checkpoints hold the same tensors.
    """
    ra, rb = _open(args.a)._reader, _open(args.b)._reader
    keys_a, keys_b = set(ra.keys()), set(rb.keys())
    removed, added = sorted(keys_a - keys_b), sorted(keys_b - keys_a)
    reshaped, changed, same = _compare_common(ra, rb, sorted(keys_a & keys_b), args.atol)
    differ = bool(removed or added or reshaped or changed)
    if args.json:
        print_json({"a": ra.prefix, "b": rb.prefix, "atol": args.atol,
                    "removed": [{"name": n, **_spec(ra, n)} for n in removed],
                    "added": [{"name": n, **_spec(rb, n)} for n in added],
                    "reshaped": reshaped, "changed": changed, "identical": same,
                    "differ": differ})
        return EXIT_FAILURE if differ else 0
    print(f"A: {ra.prefix}\nB: {rb.prefix}")
    for name in removed:
        print(f"- {name}  {_spec_str(_spec(ra, name))}  (only in A)")
    for name in added:
        print(f"+ {name}  {_spec_str(_spec(rb, name))}  (only in B)")
    for r in reshaped:
        print(f"! {r['name']}  {_spec_str(r['a'])} -> {_spec_str(r['b'])}")
    for c in changed:
        diff = c["max_abs_diff"]
        print(f"~ {c['name']}  " + ("strings differ" if diff is None else
                                    f"max |a-b| {diff:.6g}"))
    print(f"{len(removed)} removed, {len(added)} added, {len(reshaped)} shape/dtype changed, "
          f"{len(changed)} values changed, {same} identical")
    return EXIT_FAILURE if differ else 0


def _compare_common(ra, rb, names, atol):
    """The tensors both checkpoints hold: ``(reshaped, changed, number identical)``; values
    equal within ``atol`` (strings exactly) are identical."""
    reshaped, changed = [], []
    same = 0
    for name in names:
        spec_a, spec_b = _spec(ra, name), _spec(rb, name)
        if spec_a != spec_b:
            reshaped.append({"name": name, "a": spec_a, "b": spec_b})
            continue
        a, b = ra.read(name), rb.read(name)
        if a.dtype == object:
            equal = a.reshape(-1).tolist() == b.reshape(-1).tolist()
            diff = None
        else:
            diff = _max_abs_diff(a, b)
            equal = diff <= atol
        if equal:
            same += 1
        else:
            changed.append({"name": name, "max_abs_diff": diff})
    return reshaped, changed, same


def _spec_str(s):
    return f"{s['dtype']}{_shape_str(s['shape'])}"


# ── to-npz ───────────────────────────────────────────────────────────────────────────
@_guarded
def _to_npz(args):
    """Every tensor into OUT (strings as fixed-width bytes, so no pickle is needed).

    The archive's keys are the checkpoint's names (``np.load(out)["dense/kernel"]``).
    """
    reader = _open(args.path)._reader
    arrays = {}
    pickled = []
    for name in reader.keys():
        value = reader.read(name)
        if value.dtype == object:
            if any(item.endswith(b"\x00") for item in value.reshape(-1)):
                pickled.append(name)   # NumPy's bytes_ would drop the trailing NULs
            else:
                value = value.astype(np.bytes_) if value.size else np.zeros(value.shape, "S1")
        arrays[name] = value
    out = args.out if args.out.endswith(".npz") else args.out + ".npz"
    with atomic_file(out) as f:
        (np.savez_compressed if args.compress else np.savez)(f, **arrays)
    print(f"wrote {len(arrays)} tensors from {reader.prefix} to {out} "
          f"({_human(os.path.getsize(out))})")
    if pickled:  # a warning: stderr
        print(f"scopeflow ckpt: warning: {', '.join(pickled)} hold strings ending in NUL "
              "bytes, stored as object arrays: load with np.load(..., allow_pickle=True)",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
