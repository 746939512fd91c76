""""Did you mean ...?" for error messages: the names closest to a mistyped one.

Computed only on the error path (difflib is slow next to a dict lookup).
"""

from __future__ import annotations

import difflib

__all__ = ["close_names", "did_you_mean", "or_list"]


def close_names(name: str, names, n: int = 3) -> list[str]:
    """Up to ``n`` of ``names`` closest to ``name``, closest first: difflib's close matches,
    and names that differ only in their scope (``layer1/w`` for ``w``).

    >>> close_names("dense/kernal", ["dense/kernel", "conv/kernel", "dense/bias", "x"])
    ['dense/kernel', 'dense/bias', 'conv/kernel']
    """
    names = list(names)
    leaf = name.rsplit("/", 1)[-1].rsplit(":", 1)[0]
    pool = set(difflib.get_close_matches(name, names, n=n, cutoff=0.6))
    pool.update(c for c in names if c != name and c.rsplit("/", 1)[-1] == leaf)

    def score(c):
        return -difflib.SequenceMatcher(None, name, c).ratio(), c

    return sorted(pool, key=score)[:n]


def or_list(names) -> str:
    """``'a', 'b' or 'c'``."""
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def did_you_mean(candidates) -> str:
    """``" Did you mean 'a', 'b' or 'c'?"``, or ``""`` for no candidates."""
    return f" Did you mean {or_list(candidates)}?" if candidates else ""
