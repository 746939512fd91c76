"""TF1's ``inspect_checkpoint`` tool (``tensorflow.python.tools.inspect_checkpoint``):
print a checkpoint's tensor names, shapes and values, as TF prints them.

    from scopeflow.tools import inspect_checkpoint as chkp
    chkp.print_tensors_in_checkpoint_file("/tmp/model.ckpt", tensor_name="",
                                          all_tensors=True)

    python -m scopeflow.tools.inspect_checkpoint --file_name=/tmp/model.ckpt --all_tensors

From the shell, ``scopeflow ckpt ls|show|diff PATH`` does more (sizes, statistics, a
directory's newest checkpoint, differences between two).
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from scopeflow.train.checkpoint_utils import NewCheckpointReader

__all__ = ["print_tensors_in_checkpoint_file", "main"]

def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors,
                                     all_tensor_names=False, count_exclude_pattern=""):
    """Prints the tensors of the checkpoint ``file_name`` (a prefix), as TF's does.

    With ``all_tensors`` (or ``all_tensor_names``), each tensor's name, dtype and shape (and
    its value); with ``tensor_name``, that tensor; with neither, one line per tensor. Then
    the number of parameters, leaving out the tensors ``count_exclude_pattern`` matches.
    Errors are printed, not raised, as TF's tool prints them (a path to one of a V2
    checkpoint's files, ``model.ckpt.index``, is told the prefix to give instead).
    """
    try:
        reader = NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
            for key, shape in sorted(shapes.items()):
                print(f"tensor: {key} ({dtypes[key].name}) {shape}")
                if all_tensors:
                    print(reader.get_tensor(key))
        elif not tensor_name:
            print(reader.debug_string().decode("utf-8", errors="ignore"))
        else:
            if not reader.has_tensor(tensor_name):
                print(f"Tensor {tensor_name} not found in checkpoint")
                return
            shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
            print(f"tensor: {tensor_name} ({dtypes[tensor_name].name}) {shapes[tensor_name]}")
            print(reader.get_tensor(tensor_name))
        print(f"# Total number of params: {_count_total_params(reader, count_exclude_pattern)}")
    except Exception as e:  # noqa: BLE001 - TF's tool prints every error and returns
        print(getattr(e, "message", None) or str(e))


def _count_total_params(reader, count_exclude_pattern="") -> int:
    """The number of values in the checkpoint (a scalar counts 1), as TF counts them."""
    shapes = reader.get_variable_to_shape_map()
    if count_exclude_pattern:
        pattern = re.compile(count_exclude_pattern)
        excluded = {name for name in shapes if pattern.search(name)}
        print(f"# Excluding {len(excluded)} tensors "
              f"({sum(int(np.prod(shapes[n])) for n in excluded)} params) that match "
              f"{count_exclude_pattern} when counting.")
        shapes = {name: shape for name, shape in shapes.items() if name not in excluded}
    return sum(int(np.prod(shape)) for shape in shapes.values())


def main(argv=None) -> int:
    """TF's command line: ``--file_name``, ``--tensor_name``, ``--all_tensors``,
    ``--all_tensor_names``, ``--count_exclude_pattern``."""
    parser = argparse.ArgumentParser(
        prog="python -m scopeflow.tools.inspect_checkpoint",
        description=__doc__.split("\n\n")[0],
        epilog="`scopeflow ckpt ls|show|diff PATH` does more from the shell.")
    parser.add_argument("--file_name", default="",
                        help="checkpoint filename; a V2 checkpoint's prefix")
    parser.add_argument("--tensor_name", default="", help="name of the tensor to inspect")
    parser.add_argument("--count_exclude_pattern", default="",
                        help="regex of tensors to leave out of the count")
    for flag, what in (("all_tensors", "print the names and values of all tensors"),
                       ("all_tensor_names", "print the names of all tensors")):
        parser.add_argument(f"--{flag}", nargs="?", const=True, default=False,
                            type=lambda v: v.lower() in ("true", "1", "yes"), help=what)
    args = parser.parse_args(argv)
    if not args.file_name:
        print("Usage: inspect_checkpoint --file_name=checkpoint_file_name "
              "[--tensor_name=tensor_to_print] [--all_tensors] [--all_tensor_names]")
        return 1
    print_tensors_in_checkpoint_file(args.file_name, args.tensor_name, args.all_tensors,
                                     args.all_tensor_names, args.count_exclude_pattern)
    return 0


if __name__ == "__main__":
    sys.exit(main())
