"""The ``scopeflow`` command: inspect checkpoints and runs, train the seed's MNIST CNN.

Each subcommand lives beside the code it drives and registers itself through
``add_parser(subparsers)``, which sets ``func`` on its parser; this module only
dispatches.
"""

import argparse
import importlib
import sys

# subcommand -> module providing add_parser(subparsers)
_COMMANDS = {
    "ckpt": "scopeflow.train.checkpoint_cli",
    "runs": "scopeflow.summary.runs_cli",
    "train-mnist": "scopeflow.examples.mnist_cnn",
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="scopeflow",
        description="TensorFlow 1's graph-and-session API on NumPy: tools.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in _COMMANDS.values():
        importlib.import_module(module).add_parser(subparsers)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
