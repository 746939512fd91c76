"""The fuzz targets: every reader of untrusted bytes, and the harness's self-tests.

``READERS`` maps each reader's name to its ``Target`` class (the order of the reports);
``ALL_TARGETS`` adds the self-test targets that misbehave on purpose.
"""

from __future__ import annotations

from . import checkpoint, graphs, images, mnist, records
from .selftest import SELFTEST_TARGETS

READERS: dict = {}
for _module in (checkpoint, records, graphs, images, mnist):
    READERS.update(_module.TARGETS)

ALL_TARGETS = dict(READERS, **SELFTEST_TARGETS)
