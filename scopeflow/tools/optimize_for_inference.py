"""TF's ``optimize_for_inference`` command (``tensorflow.python.tools``): a frozen GraphDef
file through ``optimize_for_inference_lib.optimize_for_inference``, with TF's flags.

    python -m scopeflow.tools.optimize_for_inference --input=frozen.pb \\
        --output=optimized.pb --input_names=input --output_names=softmax

``--frozen_graph`` (default true) reads and writes binary GraphDefs, false text ones;
``--placeholder_type_enum`` is the inputs' DataType enum (1, float32, by default), or a
comma-separated list of one per input; ``--placeholder_to_const_names=name=False,...``
turns bool placeholders into constants; ``--toco_compatible`` skips the resize/pad fusion.
"""

from __future__ import annotations

import argparse
import os
import sys

from google.protobuf import text_format

from scopeflow.framework import dtypes
from scopeflow.io import protos
from scopeflow.platform import gfile
from scopeflow.tools import optimize_for_inference_lib

__all__ = ["main", "parse_args"]


def _parse_placeholder_types(values):
    values = [int(v) for v in values.split(",")]
    return values if len(values) > 1 else values[0]


def main(flags):
    """Runs the tool with parsed ``flags``; 0 on success, -1 (with TF's message) when the
    input file is missing."""
    if not gfile.Exists(flags.input):
        print("Input graph file '" + flags.input + "' does not exist!")
        return -1
    graph_def = protos.GraphDef()
    with gfile.GFile(flags.input, "rb") as f:
        data = f.read()
    if flags.frozen_graph:
        graph_def.ParseFromString(data)
    else:
        text_format.Merge(data.decode("utf-8"), graph_def)
    out = optimize_for_inference_lib.optimize_for_inference(
        graph_def, flags.input_names.split(","), flags.output_names.split(","),
        _parse_placeholder_types(flags.placeholder_type_enum), flags.toco_compatible,
        flags.placeholder_to_const_names.split(","))
    if flags.frozen_graph:
        with gfile.GFile(flags.output, "wb") as f:
            f.write(out.SerializeToString())
    else:
        directory = os.path.dirname(flags.output)
        if directory:
            gfile.MakeDirs(directory)
        with gfile.GFile(flags.output, "w") as f:
            f.write(text_format.MessageToString(out))
    return 0


def parse_args(argv=None):
    """TF's flags: ``(flags, unparsed)``."""
    parser = argparse.ArgumentParser(prog="optimize_for_inference")
    parser.register("type", "bool", lambda v: v.lower() == "true")
    parser.add_argument("--input", type=str, default="",
                        help="TensorFlow 'GraphDef' file to load.")
    parser.add_argument("--output", type=str, default="",
                        help="File to save the output graph to.")
    parser.add_argument("--input_names", type=str, default="",
                        help="Input node names, comma separated.")
    parser.add_argument("--output_names", type=str, default="",
                        help="Output node names, comma separated.")
    parser.add_argument("--frozen_graph", nargs="?", const=True, type="bool", default=True,
                        help="If true, the input graph is a binary frozen GraphDef file; if "
                             "false, it is a text GraphDef proto file.")
    parser.add_argument("--placeholder_type_enum", type=str,
                        default=str(dtypes.float32.as_datatype_enum),
                        help="The AttrValue enum to use for placeholders, or a comma "
                             "separated list, one value for each placeholder.")
    parser.add_argument("--toco_compatible", type=bool, default=False,   # TF's: any text
                        help="If true, only use ops compatible with Tensorflow Lite "
                             "Optimizing Converter.")
    parser.add_argument("--placeholder_to_const_names", type=str, default="",
                        help="PlaceholderWithDefault or Placeholder node names and their "
                             "new values, comma separated: phase_train=False")
    return parser.parse_known_args(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main(parse_args()[0]))
