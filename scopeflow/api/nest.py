"""``tf.nest``: nested structures (tuples, lists, dicts, namedtuples) as TF's ``nest``.

Dict leaves come in sorted-key order; strings and ``None`` are leaves. With
``expand_composites=True`` a ``SparseTensor`` is its three component tensors and an
``IndexedSlices`` its ``values``, ``indices`` (and ``dense_shape`` when known), as in TF.
Mismatches raise TF's errors and messages.
"""

from __future__ import annotations

from scopeflow.framework import nest as _nest
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.sparse_tensor import SparseTensor

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure",
           "pack_sequence_as"]


def _is_composite(value) -> bool:
    return isinstance(value, SparseTensor | IndexedSlices)


def _components(value) -> list:
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    parts = [value.values, value.indices]
    return parts + ([value.dense_shape] if value.dense_shape is not None else [])


def _from_components(like, parts):
    if isinstance(like, SparseTensor):
        return SparseTensor(*parts)
    return IndexedSlices(parts[0], parts[1], parts[2] if len(parts) > 2 else None)


def _expanded(structure, expand):
    """``structure`` with each composite replaced by the list of its components."""
    if expand and _is_composite(structure):
        return _components(structure)
    if not _nest.is_sequence(structure):
        return structure
    return _nest._rebuild(structure, [_expanded(c, expand) for c in _nest._children(structure)])


def is_nested(seq) -> bool:
    """Whether ``seq`` is a structure (tuple, list, dict, namedtuple), not a leaf."""
    return _nest.is_sequence(seq)


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first (dict values by sorted key).

    >>> flatten({"b": 1, "a": [2, (3, None)]})
    [2, 3, None, 1]
    """
    return _nest.flatten(_expanded(structure, expand_composites))


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ``ValueError`` (``TypeError`` for differing sequence types, with
    ``check_types``) unless ``nest1`` and ``nest2`` nest the same way."""
    a, b = _expanded(nest1, expand_composites), _expanded(nest2, expand_composites)
    _nest.assert_same_structure(a, b, check_types)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence``'s items arranged as ``structure``'s leaves.

    >>> pack_sequence_as((1, [2, 3]), [4, 5, 6])
    (4, [5, 6])
    """
    flat = list(flat_sequence)
    n = len(flatten(structure, expand_composites))
    if len(flat) != n:
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but "
                         f"flat_sequence had {len(flat)} items.  Structure: {structure}, "
                         f"flat_sequence: {flat}.")
    items = iter(flat)
    return _pack(structure, items, expand_composites)


def _pack(structure, items, expand):
    if expand and _is_composite(structure):
        return _from_components(structure, [next(items) for _ in _components(structure)])
    if not _nest.is_sequence(structure):
        return next(items)
    return _nest._rebuild(structure, [_pack(c, items, expand)
                                      for c in _nest._children(structure)])


def map_structure(func, *structure, **kwargs):
    """``func`` applied leafwise to structures of the same shape, in the first's shape.

    >>> map_structure(lambda x, y: x + y, (1, [2]), (3, [4]))
    (4, [6])
    """
    extra = sorted(set(kwargs) - {"check_types", "expand_composites"})
    if extra:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(extra)}`")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.get("check_types", True)
    expand = kwargs.get("expand_composites", False)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand)
    flats = [flatten(s, expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)], expand)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
