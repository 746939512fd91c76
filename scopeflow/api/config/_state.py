"""The process-wide settings ``tf.config`` reads and writes, and when they freeze.

TF fixes its thread pools and virtual devices when its runtime first initializes (listing
logical devices does that) and refuses later changes with ``RuntimeError``; scopeflow keeps
the same rule, so a program that runs here also runs under TF.
"""

from __future__ import annotations

SETTINGS = {
    "inter_op_parallelism_threads": 0,
    "intra_op_parallelism_threads": 0,
    "jit": "",
    "optimizer_options": {},
    "soft_device_placement": False,
    "functions_run_eagerly": False,
    "log_device_placement": False,
}
# Physical device name -> its LogicalDeviceConfiguration list (None: not configured).
LOGICAL_CONFIGURATIONS: dict[str, list | None] = {}
VISIBLE: dict[str, list] = {}
initialized = [False]


def initialize():
    initialized[0] = True


def check_not_initialized(what: str):
    if initialized[0]:
        raise RuntimeError(f"{what} cannot be modified after initialization.")
