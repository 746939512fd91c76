"""Nested structures of values, as TF's ``nest``: tuples, lists, namedtuples and dicts
(dict leaves in sorted-key order) are structure; everything else (tensors, ``None``,
``TensorArray``s) is a leaf."""

from __future__ import annotations

__all__ = ["is_sequence", "flatten", "pack_sequence_as", "map_structure",
           "assert_same_structure"]


def is_sequence(value) -> bool:
    return isinstance(value, (tuple, list, dict))


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def _rebuild(like, items):
    if isinstance(like, dict):
        # items come in sorted-key order; the result keeps ``like``'s own key order (TF's
        # ``_sequence_like``: an OrderedDict of columns stays in column order)
        by_key = dict(zip(sorted(like), items))
        return type(like)((k, by_key[k]) for k in like)
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*items)
    return type(like)(items)


def flatten(structure) -> list:
    """The leaves of ``structure``, depth first."""
    if is_sequence(structure):
        return [leaf for item in _children(structure) for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence``'s items arranged as ``structure``'s leaves."""
    flat = list(flat_sequence)
    n = len(flatten(structure))
    if len(flat) != n:
        raise ValueError(f"Structure had {n} elements, but flat_sequence had {len(flat)} "
                         "elements.")
    items = iter(flat)
    return map_structure(lambda _: next(items), structure)


def map_structure(fn, *structures):
    """``fn`` applied leafwise to structures of the same shape, in that shape."""
    first = structures[0]
    for other in structures[1:]:
        assert_same_structure(first, other)
    return _map(fn, structures)


def _map(fn, structures):
    first = structures[0]
    if is_sequence(first):
        parts = zip(*[_children(s) for s in structures])
        return _rebuild(first, [_map(fn, p) for p in parts])
    return fn(*structures)


def assert_same_structure(a, b, check_types=False):
    """Raises ``ValueError`` (TF's words) unless ``a`` and ``b`` nest the same way."""
    if is_sequence(a) != is_sequence(b) or (
            is_sequence(a) and (len(a) != len(b) or isinstance(a, dict) != isinstance(b, dict)
                                or (check_types and type(a) is not type(b)))):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {a!r}\n\nSecond structure: {b!r}")
    if is_sequence(a):
        if isinstance(a, dict) and sorted(a) != sorted(b):
            raise ValueError("The two dictionaries don't have the same set of keys. First "
                             f"structure has keys {sorted(a)}, while second structure has "
                             f"keys {sorted(b)}.")
        for x, y in zip(_children(a), _children(b)):
            assert_same_structure(x, y, check_types)
