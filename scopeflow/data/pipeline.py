"""The run-time side of ``tf.data`` that every transformation shares: what a run-time iterator
is (``PyIterator``: ``next() -> flat list of arrays``, raising ``End``), the environment one
initialization gives a pipeline (``Env``: the values it captured, the tables its position is
saved with, the iterators to stop with it), and TF's Philox sample stream shuffles draw from.

Each transformation's run-time iterator is defined next to its ``Dataset`` class
(``sources.py``, ``transformations.py``, ``buffers.py``). Every iterator can report and
restore its position (``get_state``/``set_state``: nested lists, dicts, numbers and arrays),
so an input pipeline can be saved with a model and resumed on the same next element.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from scopeflow.framework import errors
from scopeflow.ops.random import philox

__all__ = ["End", "PyIterator", "OneInput", "Counting", "Env", "SeedTable", "CacheStore",
           "PhiloxWords", "os_seeds"]

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1


class End(Exception):
    """The iterator has no more elements (``OutOfRangeError`` at ``get_next``)."""


class PyIterator:
    """Base: ``next() -> list of arrays``; raises ``End``."""

    def next(self):
        raise NotImplementedError

    def _what(self):
        return type(self).__name__[1:].removesuffix("Iterator")

    def get_state(self):
        raise errors.UnimplementedError(
            None, None, f"{self._what()} does not support saving its position")

    def set_state(self, state):
        raise errors.UnimplementedError(
            None, None, f"{self._what()} does not support restoring its position")

    def close(self):
        """Stops any background work (a prefetch thread)."""


class OneInput(PyIterator):
    """An iterator over one input whose position is its input's."""

    def __init__(self, inner):
        self.inner = inner

    def get_state(self):
        return {"inner": self.inner.get_state()}

    def set_state(self, state):
        self.inner.set_state(state["inner"])


class Counting(OneInput):
    """An iterator over one input whose position is its input's and a count of elements
    (``n``), saved under the name ``COUNT``; ``count`` is its transformation's (take's,
    skip's)."""

    COUNT: ClassVar[str] = "n"

    def __init__(self, inner, count: int = -1):
        super().__init__(inner)
        self.count = count
        self.n = 0

    def get_state(self):
        return {"inner": self.inner.get_state(), self.COUNT: self.n}

    def set_state(self, state):
        self.inner.set_state(state["inner"])
        self.n = int(state[self.COUNT])


# ── an initialization's environment ─────────────────────────────────────────────────
@dataclass
class SeedTable:
    """A shuffle's seed generator (TF's ``RandomSeedGenerator``): it lives as long as the
    pipeline an initialization made, and each pass takes the next pair of its Philox samples.
    ``drawn`` counts the samples taken."""

    KIND: ClassVar[str] = "shuffle_pass"
    seed: int = 0
    seed2: int = 0
    drawn: int = 0

    def saved(self) -> list:
        return [self.seed, self.seed2, self.drawn]

    def restore(self, value) -> None:
        self.seed, self.seed2, self.drawn = value


@dataclass
class CacheStore:
    """An in-memory cache's elements, kept once a pass completes; later passes read them."""

    KIND: ClassVar[str] = "cache"
    elements: list | None = None

    def saved(self) -> dict:
        return {} if self.elements is None else {"elements": self.elements}

    def restore(self, value) -> None:
        if not isinstance(value, dict):
            raise TypeError(f"a cache's table is a dict, not a {type(value).__name__}")
        self.elements = value.get("elements")


_TABLE_KINDS = {kind.KIND: kind for kind in (SeedTable, CacheStore)}


class Env:
    """What one initialization gives its pipeline's iterators.

    Attributes:
      captured: the values of the tensors the pipeline captured, taken at initialization.
      tables: by dataset node (``Dataset._id``), the run-time tables that outlive one pass
        and are saved with the position: shuffles' ``SeedTable``s, caches' ``CacheStore``s.
      prefetchers: prefetch iterators, stopped (first) when the iterator is re-initialized
        or its session closes; they pull from the rest of the pipeline.
      cache_writers: file-cache iterators writing a cache, whose locks go then too.
    """

    __slots__ = ("captured", "tables", "prefetchers", "cache_writers")

    def __init__(self, captured: Mapping | Iterable):
        self.captured = dict(captured)
        self.tables: dict = {}
        self.prefetchers: list = []
        self.cache_writers: list = []

    @classmethod
    def of(cls, env) -> Env:
        """``env``, or a new environment for a mapping of captured values."""
        return env if isinstance(env, Env) else cls(env)

    def for_element(self, values: Mapping) -> Env:
        """The environment of the dataset a ``flat_map``/``interleave`` function returns for
        one element: these captured values plus ``values``, tables of its own (TF runs the
        function's dataset ops per element, so its shuffles start their seeds afresh), and
        this initialization's prefetchers and cache writers, so its threads stop with it."""
        child = Env({**self.captured, **values})
        child.prefetchers, child.cache_writers = self.prefetchers, self.cache_writers
        return child

    # Traced functions read their captured values as from a mapping.
    def __getitem__(self, tensor):
        return self.captured[tensor]

    def table(self, node: int, kind, make):
        """The ``kind`` table of dataset node ``node``, made by ``make()`` if it has none."""
        table = self.tables.get(node)
        if not isinstance(table, kind):
            table = self.tables[node] = make()
        return table

    def saved_tables(self) -> list:
        return [[table.KIND, node, table.saved()] for node, table in self.tables.items()]

    def restore_tables(self, rows) -> None:
        """Puts saved tables back, in place: the iterators made since hold them."""
        for kind, node, value in rows:
            cls = _TABLE_KINDS.get(str(kind))
            if cls is None:
                raise ValueError(f"unknown table kind {kind!r}")
            table = self.table(int(node), cls, cls)
            table.restore(value)

    def close(self) -> None:
        """Stops the pipeline's background work: prefetch threads first (they may be pulling
        from a cache writer), then unfinished cache writers."""
        # The lists themselves, not copies: a prefetch thread still running while the ones
        # before it stop can start another pass, and so another prefetch, to stop too.
        for it in self.prefetchers:
            it.close()
        for it in self.cache_writers:
            it.close()


# ── TF's Philox sample stream ───────────────────────────────────────────────────────
class PhiloxWords:
    """TF's ``random::SingleSampleAdapter<random::PhiloxRandom>(seed, seed2)``: uint32
    samples in order (four per Philox block). ``drawn`` counts the samples taken (TF's
    ``num_random_samples_``) and is all a saved position needs."""

    _CHUNK = 64  # blocks computed at a time: one NumPy call per 256 samples

    def __init__(self, seed: int, seed2: int, drawn: int = 0):
        self.key = seed & _M64
        self.counter = (seed2 & _M64) << 64
        self.drawn = int(drawn)
        self._first = -(1 << 62)          # first block held in _words (none yet)
        self._words: list = []

    def next(self) -> int:
        block, k = divmod(self.drawn, 4)
        if not 0 <= block - self._first < self._CHUNK:
            self._first = block
            self._words = philox.philox4x32(self.key, (self.counter + block) & _M128,
                                            self._CHUNK).reshape(-1).tolist()
        self.drawn += 1
        return self._words[4 * (block - self._first) + k]


def os_seeds() -> tuple[int, int]:
    """``RandomSeeds`` with seed == seed2 == 0: two fresh 64-bit seeds from the OS."""
    return (int.from_bytes(os.urandom(8), "little"), int.from_bytes(os.urandom(8), "little"))
