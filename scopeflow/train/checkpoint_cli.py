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
import os
import sys

import numpy as np

from scopeflow.framework import errors
from scopeflow.io.atomic import atomic_file

__all__ = ["add_parser", "main"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Registers ``ckpt`` and its subcommands on ``subparsers`` (the ``scopeflow`` command)."""
    parser = subparsers.add_parser(
        "ckpt", help="inspect TensorFlow checkpoints (ls, show, diff, to-npz)",
        description=__doc__.split("\n\n")[0] + " PATH is a checkpoint prefix or a directory "
        "(its newest checkpoint).")
    commands = parser.add_subparsers(dest="ckpt_command", metavar="SUBCOMMAND")
    commands.required = True

    ls = commands.add_parser("ls", help="list tensors: name, shape, dtype, size")
    ls.add_argument("path", metavar="PATH")
    ls.set_defaults(func=_ls)

    show = commands.add_parser("show", help="print one tensor's values and statistics")
    show.add_argument("path", metavar="PATH")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--all", action="store_true", help="print every value, not a summary")
    show.set_defaults(func=_show)

    diff = commands.add_parser("diff", help="compare two checkpoints tensor by tensor")
    diff.add_argument("a", metavar="A")
    diff.add_argument("b", metavar="B")
    diff.add_argument("--atol", type=float, default=0.0,
                      help="report values as changed only above this absolute difference")
    diff.set_defaults(func=_diff)

    to_npz = commands.add_parser("to-npz", help="write every tensor to a .npz archive")
    to_npz.add_argument("path", metavar="PATH")
    to_npz.add_argument("out", metavar="OUT")
    to_npz.add_argument("--compress", action="store_true", help="zip-compress the arrays")
    to_npz.set_defaults(func=_to_npz)
    return parser


def main(argv=None) -> int:
    """``python -m scopeflow.train.checkpoint_cli ls PATH``: the same as ``scopeflow ckpt``."""
    parser = argparse.ArgumentParser(prog="scopeflow")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["ckpt", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args) or 0


# ── helpers ──────────────────────────────────────────────────────────────────────────
def _open(path):
    from scopeflow.train.checkpoint_utils import load_checkpoint
    return load_checkpoint(path)


def _fail(message: str) -> int:
    print(f"scopeflow ckpt: error: {message}", file=sys.stderr)
    return 1


def _guarded(command):
    """Reports user errors (bad path, corrupt file, unknown name) as one line, exit 1."""
    def run(args):
        try:
            return command(args)
        except BrokenPipeError:  # `scopeflow ckpt ls x | head`: stop quietly, as `ls` does
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except (errors.OpError, ValueError, OSError) as e:
            return _fail(str(e))
    run.__doc__ = command.__doc__
    return run


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
    from scopeflow.io.protos import DATA_TYPE
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
    rows = []
    total_bytes = total_elements = 0
    for name in reader.keys():
        shape = reader.shape(name)
        elements = int(np.prod(shape, dtype=np.int64))
        nbytes = reader.nbytes(name)
        total_bytes += nbytes
        total_elements += elements
        rows.append((name, _shape_str(shape), _dtype_name(reader, name), f"{elements:,}",
                     _human(nbytes)))
    print(f"checkpoint: {reader.prefix}")
    _table(rows, ("name", "shape", "dtype", "elements", "size"))
    print(f"{len(rows)} tensors, {total_elements:,} elements, {_human(total_bytes)} "
          f"({total_bytes:,} bytes)")
    return 0


# ── show ─────────────────────────────────────────────────────────────────────────────
def _stats(value: np.ndarray) -> str:
    if value.dtype == object or value.size == 0:
        if value.dtype == object and value.size:
            lengths = [len(v) for v in value.reshape(-1)]
            return f"lengths: min {min(lengths)}, max {max(lengths)}, total {sum(lengths)}"
        return "empty"
    if value.dtype == np.bool_:
        return f"true: {int(value.sum()):,} of {value.size:,}"
    if np.iscomplexobj(value):
        mags = np.abs(value)
        return f"|x|: min {mags.min():.6g}, max {mags.max():.6g}, mean {mags.mean():.6g}"
    data = value.astype(np.float64) if value.dtype.kind == "f" else value
    finite = np.isfinite(data) if data.dtype.kind == "f" else np.ones(data.shape, bool)
    parts = []
    if finite.any():
        good = data[finite].astype(np.float64)
        parts.append(f"min {good.min():.6g}, max {good.max():.6g}, mean {good.mean():.6g}, "
                     f"std {good.std():.6g}")
    parts.append(f"zeros {int((data == 0).sum()):,}")
    if data.dtype.kind == "f":
        nans, infs = int(np.isnan(data).sum()), int(np.isinf(data).sum())
        if nans or infs:
            parts.append(f"NaN {nans:,}, Inf {infs:,}")
    return ", ".join(parts)


@_guarded
def _show(args):
    """One tensor: dtype, shape, values (NumPy's printing) and summary statistics."""
    reader = _open(args.path)
    value = reader.get_tensor(args.name)
    value = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    dtype = _dtype_name(reader._reader, args.name)
    print(f"{args.name}: {dtype} {_shape_str(value.shape)} ({value.size:,} elements) "
          f"in {reader.prefix}")
    options = {"threshold": sys.maxsize} if args.all else {}
    shown = value
    if value.dtype == object and not args.all:   # long strings: the first bytes only
        shown = np.array([v if len(v) <= 80 else v[:80] + b"..." for v in value.reshape(-1)],
                         dtype=object).reshape(value.shape)
    with np.printoptions(**options):
        print(repr(shown[()]) if shown.ndim == 0 else np.array2string(shown, separator=", "))
    print(_stats(value))
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


@_guarded
def _diff(args):
    """Tensors only in A, only in B, with another shape/dtype, or with other values."""
    ra, rb = _open(args.a)._reader, _open(args.b)._reader
    keys_a, keys_b = set(ra.keys()), set(rb.keys())
    print(f"A: {ra.prefix}\nB: {rb.prefix}")
    removed, added = sorted(keys_a - keys_b), sorted(keys_b - keys_a)
    reshaped, changed = [], []
    same = 0
    for name in sorted(keys_a & keys_b):
        sa, da = ra.shape(name), _dtype_name(ra, name)
        sb, db = rb.shape(name), _dtype_name(rb, name)
        if sa != sb or da != db:
            reshaped.append((name, f"{da}{_shape_str(sa)}", f"{db}{_shape_str(sb)}"))
            continue
        a, b = ra.read(name), rb.read(name)
        if a.dtype == object:
            equal = a.reshape(-1).tolist() == b.reshape(-1).tolist()
            diff = None
        else:
            diff = _max_abs_diff(a, b)
            equal = diff <= args.atol
        if equal:
            same += 1
        else:
            changed.append((name, "strings differ" if diff is None else f"max |a-b| {diff:.6g}"))
    for name in removed:
        print(f"- {name}  {_dtype_name(ra, name)}{_shape_str(ra.shape(name))}  (only in A)")
    for name in added:
        print(f"+ {name}  {_dtype_name(rb, name)}{_shape_str(rb.shape(name))}  (only in B)")
    for name, was, now in reshaped:
        print(f"! {name}  {was} -> {now}")
    for name, what in changed:
        print(f"~ {name}  {what}")
    print(f"{len(removed)} removed, {len(added)} added, {len(reshaped)} shape/dtype changed, "
          f"{len(changed)} values changed, {same} identical")
    return 0 if not (removed or added or reshaped or changed) else 1


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
    if pickled:
        print(f"note: {', '.join(pickled)} hold strings ending in NUL bytes, stored as object "
              "arrays: load with np.load(..., allow_pickle=True)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
