"""``scopeflow savedmodel``: TF's ``saved_model_cli`` for TF1 SavedModels, with its output.

    scopeflow savedmodel show --dir DIR                       the tag-sets
    scopeflow savedmodel show --dir DIR --tag_set serve       that graph's SignatureDefs
    scopeflow savedmodel show --dir DIR --tag_set serve --signature_def serving_default
    scopeflow savedmodel show --dir DIR --all                 everything, with each graph's ops
    scopeflow savedmodel run --dir DIR --tag_set serve --signature_def serving_default \\
        --inputs 'x=batch.npz[images]' --input_exprs 'k=2' [--outdir OUT [--overwrite]]

The text is ``saved_model_cli``'s, line for line (TF prints a graph's ops as a Python set,
in hash order; here they are sorted). Unlike TF, input files never unpickle
(``np.load(allow_pickle=False)``: a ``.npy``/``.npz`` from a stranger cannot run code), and
``--input_exprs`` takes Python literals only (TF's default, ``ast.literal_eval``).
Mistakes (an unknown tag-set, signature or input key, a malformed flag, a damaged
``saved_model.pb``) end in one line on stderr and exit status 1.
"""

from __future__ import annotations

import ast
import os
import re

import numpy as np

from scopeflow.framework.errors import OpError
from scopeflow.framework.graph import Graph
from scopeflow.io import protos
from scopeflow.platform.cli_conventions import EXIT_OK, epilog, fail
from scopeflow.runtime.session import Session
from scopeflow.saved_model import loader_impl

_DTYPE_NAMES = {v.number: v.name for v in protos.DATA_TYPE.values}


# ── reading the SavedModel ─────────────────────────────────────────────────────────
def _tags(tag_set: str) -> list[str]:
    tags = [t.strip() for t in tag_set.split(",") if t.strip()]
    if not tags:
        raise ValueError("tag_set must contain at least one non-empty item.")
    return tags


def meta_graph_for(saved_model, tag_set: str):
    """The MetaGraphDef whose tags are exactly ``tag_set`` (comma-separated)."""
    wanted = set(_tags(tag_set))
    for meta in saved_model.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    found = [",".join(m.meta_info_def.tags) for m in saved_model.meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tag-set {tag_set} could not be found "
                       f"in the SavedModel. Please use one of the following tag-sets: {found}")


def _signature(meta, key: str):
    if key not in meta.signature_def:
        raise ValueError(f'Could not find signature "{key}". Please choose from: '
                         f"{', '.join(meta.signature_def)}")
    return meta.signature_def[key]


# ── show ───────────────────────────────────────────────────────────────────────────
def _tensor_info_lines(info, indent: int) -> list[str]:
    pad = "  " * indent
    if info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    else:
        shape = "(" + ", ".join(str(d.size) for d in info.tensor_shape.dim) + ")"
    return [f"{pad}    dtype: {_DTYPE_NAMES.get(info.dtype, info.dtype)}",
            f"{pad}    shape: {shape}",
            f"{pad}    name: {info.name}"]


def signature_lines(meta, key: str, indent: int = 0) -> list[str]:
    """``saved_model_cli show --signature_def``'s inputs, outputs and method name."""
    sig = _signature(meta, key)
    pad = "  " * indent
    lines = [f"{pad}The given SavedModel SignatureDef contains the following input(s):"]
    for name, info in sorted(sig.inputs.items()):
        lines.append(f"{pad}  inputs['{name}'] tensor_info:")
        lines += _tensor_info_lines(info, indent + 1)
    lines.append(f"{pad}The given SavedModel SignatureDef contains the following output(s):")
    for name, info in sorted(sig.outputs.items()):
        lines.append(f"{pad}  outputs['{name}'] tensor_info:")
        lines += _tensor_info_lines(info, indent + 1)
    lines.append(f"{pad}Method name is: {sig.method_name}")
    return lines


def _ops_line(meta) -> str:
    ops = sorted({node.op for node in meta.graph_def.node})
    return (f"The MetaGraph with tag set {list(meta.meta_info_def.tags)} contains the "
            f"following ops: {{{', '.join(repr(op) for op in ops)}}}")


def show_lines(saved_model, tag_set=None, signature_def=None, show_all=False,
               list_ops=False) -> list[str]:
    """What ``saved_model_cli show`` prints for these flags."""
    if show_all:
        lines = []
        for meta in sorted(saved_model.meta_graphs, key=lambda m: list(m.meta_info_def.tags)):
            lines += ["", f"MetaGraphDef with tag-set: '{', '.join(meta.meta_info_def.tags)}' "
                          "contains the following SignatureDefs:"]
            for key in sorted(meta.signature_def):
                lines += ["", f"signature_def['{key}']:"]
                lines += signature_lines(meta, key, indent=1)
            lines.append(_ops_line(meta))
        return lines
    if tag_set is None:
        if list_ops:
            raise ValueError("--list_ops needs --tag_set")
        tag_sets = sorted({", ".join(sorted(m.meta_info_def.tags))
                           for m in saved_model.meta_graphs})
        return ["The given SavedModel contains the following tag-sets:"] + \
            [repr(t) for t in tag_sets]
    meta = meta_graph_for(saved_model, tag_set)
    if signature_def is not None:
        lines = signature_lines(meta, signature_def)
    else:
        lines = ["The given SavedModel MetaGraphDef contains SignatureDefs with the "
                 "following keys:"]
        lines += [f'SignatureDef key: "{key}"' for key in sorted(meta.signature_def)]
    if list_ops:
        lines.append(_ops_line(meta))
    return lines


# ── run ────────────────────────────────────────────────────────────────────────────
def parse_inputs(inputs: str) -> dict:
    """``--inputs 'key=file;key=file[name]'`` as ``{key: (file, name or None)}``."""
    parsed = {}
    for item in filter(None, inputs.split(";")):
        m = re.match(r"([^=]+)=([^\[\]]+)\[([^\[\]]+)\]$", item) or \
            re.match(r"([^=]+)=([^\[\]]+)$", item)
        if m is None:
            raise ValueError(f'--inputs "{item}" format is incorrect. Please follow'
                             '"<input_key>=<filename>", or'
                             '"<input_key>=<filename>[<variable_name>]"')
        parsed[m.group(1)] = (m.group(2), m.group(3) if m.lastindex == 3 else None)
    return parsed


def parse_input_exprs(exprs: str) -> dict:
    """``--input_exprs 'key=<Python literal>;...'``."""
    parsed = {}
    for item in filter(None, exprs.split(";")):
        if "=" not in item:
            raise ValueError(f'--input_exprs "{exprs}" format is incorrect. Please follow'
                             '"<input_key>=<python expression>"')
        key, expr = item.split("=", 1)
        try:
            parsed[key] = ast.literal_eval(expr)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise ValueError(f'Expression "{expr}" is not a valid python literal.') from None
    return parsed


def _example_bytes(features: dict) -> bytes:
    example = protos.Example()
    for name, values in features.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f'feature value must be a list, but {name}: "{values}" is '
                             f"{type(values)}")
        feature = example.features.feature[name]
        first = values[0]
        if isinstance(first, float):
            feature.float_list.value.extend(values)
        elif isinstance(first, str):
            feature.bytes_list.value.extend(v.encode("utf8") for v in values)
        elif isinstance(first, bytes):
            feature.bytes_list.value.extend(values)
        elif isinstance(first, int):
            feature.int64_list.value.extend(values)
        else:
            raise ValueError(f"Type {type(first)} for value {first} is not supported for "
                             "tf.train.Feature.")
    return example.SerializeToString()


def parse_input_examples(examples: str) -> dict:
    """``--input_examples 'key=[{feature: [values]}, ...]'`` as serialized tf.Examples."""
    parsed = parse_input_exprs(examples)
    for key, value in parsed.items():
        if not isinstance(value, list):
            raise ValueError(f'tf.Example input must be a list of dictionaries, but '
                             f'"{value}" is {type(value)}')
        parsed[key] = [_example_bytes(d) for d in value]
    return parsed


def _load_array(filename, name):
    data = np.load(filename, allow_pickle=False)
    if isinstance(data, np.ndarray):
        return data  # a .npy: TF ignores a [name] here too
    with data:
        if name is None:
            if len(data.files) != 1:
                raise ValueError(f"Input file {filename} contains more than one ndarrays. "
                                 "Please specify the name of ndarray to use.")
            name = data.files[0]
        if name not in data.files:
            raise ValueError(f'Input file {filename} does not contain variable with name '
                             f'"{name}".')
        return data[name]


def feeds_from_flags(inputs="", input_exprs="", input_examples="") -> dict:
    """The input key -> value map, later flags overriding earlier ones as in TF."""
    feeds = {key: _load_array(f, name) for key, (f, name) in parse_inputs(inputs).items()}
    feeds.update(parse_input_exprs(input_exprs))
    feeds.update(parse_input_examples(input_examples))
    return feeds


def run_signature(export_dir, tag_set, signature_def, feeds, outdir=None, overwrite=False):
    """Runs a signature on ``feeds`` (input key -> value); returns ``[(output key, value)]``
    sorted by key, saving each as ``OUTDIR/<key>.npy`` when ``outdir`` is given."""
    meta = meta_graph_for(loader_impl.parse_saved_model(export_dir), tag_set)
    sig = _signature(meta, signature_def)
    for key in feeds:
        if key not in sig.inputs:
            choices = '", "'.join(sig.inputs)
            raise ValueError(f'"{key}" is not a valid input key. Please choose from '
                             f'"{choices}", or use --show option.')
    out_keys = sorted(sig.outputs)
    with Session(graph=Graph()) as sess:
        loader_impl.load(sess, _tags(tag_set), export_dir)
        values = sess.run([sig.outputs[k].name for k in out_keys],
                          {sig.inputs[k].name: v for k, v in feeds.items()})
    results = list(zip(out_keys, values))
    if outdir:
        os.makedirs(outdir, exist_ok=True)
        for key, _ in results:
            path = os.path.join(outdir, key + ".npy")
            if not overwrite and os.path.exists(path):
                raise ValueError(f"Output file {path} already exists. Add \"--overwrite\" to "
                                 "overwrite the existing output files.")
    return results


# ── the command line ───────────────────────────────────────────────────────────────
def _show(args) -> int:
    try:
        saved_model = loader_impl.parse_saved_model(args.dir)
        lines = show_lines(saved_model, args.tag_set, args.signature_def, args.all,
                           args.list_ops)
    except (OSError, ValueError, RuntimeError) as e:
        return fail("savedmodel show", e)
    for line in lines:
        print(line)
    return EXIT_OK


def _run(args) -> int:
    try:
        feeds = feeds_from_flags(args.inputs, args.input_exprs, args.input_examples)
        results = run_signature(args.dir, args.tag_set, args.signature_def, feeds,
                                args.outdir, args.overwrite)
    except (OSError, ValueError, RuntimeError, OpError) as e:
        return fail("savedmodel run", e)
    for key, value in results:
        print(f"Result for output key {key}:\n{value}")
        if args.outdir:
            path = os.path.join(args.outdir, key + ".npy")
            np.save(path, value)
            print(f"Output {key} is saved to {path}")
    return EXIT_OK


def add_parser(subparsers):
    """Adds ``savedmodel show|run`` to the ``scopeflow`` command line."""
    p = subparsers.add_parser("savedmodel", help="inspect and run a SavedModel "
                              "(TF's saved_model_cli)", description=__doc__.split("\n\n")[0],
                              epilog=epilog("the SavedModel could not be read or run"))
    sub = p.add_subparsers(dest="savedmodel_command", required=True, metavar="show|run",
                           help="show: inspect; run: run a signature")
    show = sub.add_parser("show", help="tag-sets, SignatureDefs, inputs and outputs",
                          epilog=epilog("the SavedModel could not be read"))
    show.add_argument("--dir", required=True, help="the SavedModel's directory")
    show.add_argument("--all", action="store_true", help="everything the SavedModel holds")
    show.add_argument("--tag_set", help="the MetaGraphDef's tags, comma-separated")
    show.add_argument("--signature_def", help="a SignatureDef key (with --tag_set)")
    show.add_argument("--list_ops", action="store_true", help="the ops the graph uses")
    show.set_defaults(func=_show)
    run = sub.add_parser("run", help="run a SignatureDef on inputs from files or literals",
                         epilog=epilog("the run failed"))
    run.add_argument("--dir", required=True, help="the SavedModel's directory")
    run.add_argument("--tag_set", required=True, help="the MetaGraphDef's tags")
    run.add_argument("--signature_def", required=True, help="the SignatureDef key to run")
    run.add_argument("--inputs", default="",
                     help="'key=file.npy;key=file.npz[name]' (never unpickled)")
    run.add_argument("--input_exprs", default="", help="'key=<Python literal>;...'")
    run.add_argument("--input_examples", default="",
                     help="'key=[{feature: [values]}, ...]': serialized tf.Examples")
    run.add_argument("--outdir", help="also save each output as OUTDIR/<key>.npy")
    run.add_argument("--overwrite", action="store_true", help="replace existing outputs")
    run.set_defaults(func=_run)
