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


def _describe(value):
    return f"type={type(value).__name__} str={value!r}"


class _Dot:
    """A leaf shown as ``.`` in TF's "Entire first structure" outline."""

    def __repr__(self):
        return "."


def _outline(structure):
    return repr(map_structure(lambda _: _Dot(), structure))


def _mismatch(a, b, cls, detail):
    return cls("The two structures don't have the same nested structure.\n\n"
               f"First structure: {_describe(a)}\n\nSecond structure: {_describe(b)}\n\n"
               f"More specifically: {detail}\nEntire first structure:\n{_outline(a)}\n"
               f"Entire second structure:\n{_outline(b)}")


def _check(a, b, check_types, top_a, top_b):
    if is_sequence(a) != is_sequence(b):
        seq, leaf = (a, b) if is_sequence(a) else (b, a)
        raise _mismatch(top_a, top_b, ValueError,
                        f"Substructure \"{_describe(seq)}\" is a sequence, while substructure "
                        f"\"{_describe(leaf)}\" is not")
    if not is_sequence(a):
        return
    if check_types and type(a) is not type(b):
        raise _mismatch(top_a, top_b, TypeError,
                        "The two namedtuples don't have the same sequence type. First "
                        f"structure {_describe(a)} has type {type(a).__name__}, while second "
                        f"structure {_describe(b)} has type {type(b).__name__}")
    if isinstance(a, dict) and isinstance(b, dict) and sorted(a) != sorted(b):
        raise _mismatch(top_a, top_b, ValueError,
                        "The two dictionaries don't have the same set of keys. First "
                        f"structure has keys {_describe(sorted(a))}, while second structure has "
                        f"keys {_describe(sorted(b))}")
    if len(a) != len(b):
        raise _mismatch(top_a, top_b, ValueError,
                        "The two structures don't have the same number of elements. First "
                        f"structure: {_describe(a)}. Second structure: {_describe(b)}")
    for x, y in zip(_children(a), _children(b)):
        _check(x, y, check_types, top_a, top_b)


def assert_same_structure(a, b, check_types=False):
    """Raises TF's ``ValueError`` (``TypeError`` for differing sequence types, with
    ``check_types``), with its message, unless ``a`` and ``b`` nest the same way."""
    _check(a, b, check_types, a, b)
