"""``tf.data.experimental.Optional`` and ``tf.OptionalSpec``: a value that may be absent, as
one ``variant`` scalar tensor (TF's ops ``OptionalFromValue``, ``OptionalNone``,
``OptionalHasValue``, ``OptionalGetValue``).

At run time the variant is an :class:`OptionalValue` (the component arrays, or none).
``get_value`` of an empty optional raises TF's ``InvalidArgumentError`` when it runs.
Optionals carry dense tensors, as scopeflow's datasets do: an element with a SparseTensor
or RaggedTensor (which TF encodes into one variant each) is refused when built.
``Iterator.get_next_as_optional`` (``IteratorGetNextAsOptional``) is in ``iterator_ops``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.type_spec import (
    NoneTensorSpec,
    TensorSpec,
    TypeSpec,
    register_type_spec_from_value_converter,
    type_spec_from_value,
)
from scopeflow.ops.math.reduction_ops import zeros_like

__all__ = ["Optional", "OptionalSpec", "OptionalValue", "get_next_as_optional",
           "flat_specs", "pack_as", "optional_from_components"]


@dataclass(frozen=True, slots=True)
class OptionalValue:
    """An optional's run-time value (its variant): the component arrays, or None."""

    values: tuple | None


# ── element structures: dicts (sorted keys) and tuples of specs, as tf.data nests them ─
def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _leaves(structure) -> list:
    if isinstance(structure, (dict, tuple)):
        return [leaf for c in _children(structure) for leaf in _leaves(c)]
    return [structure]


def flat_specs(element_spec) -> list:
    """The element's dense component specs, in TF's flattening order (a ``None`` has no
    component); a composite spec (sparse, ragged...) is refused: scopeflow's Optionals
    carry dense tensors."""
    leaves = [s for s in _leaves(element_spec) if not isinstance(s, NoneTensorSpec)]
    for spec in leaves:
        if not isinstance(spec, TensorSpec):
            raise NotImplementedError(
                f"tf.data.experimental.Optional of a {type(spec).__name__}: scopeflow's "
                "optionals carry dense tensors")
    return leaves


def pack_as(structure, flat):
    """``flat`` arranged as ``structure``'s leaves (a lone leaf stays a leaf; a
    ``NoneTensorSpec`` leaf is ``None``)."""
    items = iter(flat)
    return _pack(structure, items)


def _pack(structure, items):
    if isinstance(structure, dict):
        packed = dict(zip(sorted(structure), [_pack(c, items) for c in _children(structure)]))
        return type(structure)((k, packed[k]) for k in structure)
    if isinstance(structure, tuple):
        parts = [_pack(c, items) for c in structure]
        return type(structure)(*parts) if hasattr(structure, "_fields") else tuple(parts)
    return None if isinstance(structure, NoneTensorSpec) else next(items)


def _spec_of(value):
    """TF's ``structure.type_spec_from_value``: dicts and tuples are structure, anything
    else one spec (a Python value is converted, a ``Const`` op, as TF does)."""
    if isinstance(value, dict):
        return type(value)((k, _spec_of(v)) for k, v in value.items())
    if isinstance(value, tuple):
        parts = [_spec_of(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    return type_spec_from_value(value)


# ── OptionalFromValue ──────────────────────────────────────────────────────────────────
def _variant_scalar(*args, **attrs):
    return TensorShape([])


def _variant(*args, **attrs):
    return dtypes.variant


def _from_value_kernel(*components, Toutput_types):
    return OptionalValue(tuple(components))


# The optional holds its components' arrays and OptionalGetValue returns them: both declare
# aliases, so a run never writes into an array that a constant, feed or variable owns.
from_value_op = OpDef("OptionalFromValue", shape=_variant_scalar, dtype=_variant,
                      kernel=_from_value_kernel, attrs={"Toutput_types": None},
                      aliases=True, input_names=("components",))


@from_value_op.def_grad
def _from_value_grad(op, grad):
    """TF's rule: the components' gradients are the values of the gradient optional."""
    return list(get_value_op.create(
        [grad], {"output_types": [t.dtype for t in op.inputs],
                 "output_shapes": [t.shape for t in op.inputs]}).outputs)


# ── OptionalNone ───────────────────────────────────────────────────────────────────────
def _none_kernel():
    return OptionalValue(None)


none_op = OpDef("OptionalNone", shape=_variant_scalar, dtype=_variant, kernel=_none_kernel,
                grad=NO_GRADIENT)


# ── OptionalHasValue ───────────────────────────────────────────────────────────────────
def _bool(*args, **attrs):
    return dtypes.bool_


def _has_value_kernel(optional):
    return np.asarray(optional.values is not None)


has_value_op = OpDef("OptionalHasValue", shape=_variant_scalar, dtype=_bool,
                     kernel=_has_value_kernel, grad=NO_GRADIENT, input_names=("optional",))


# ── OptionalGetValue ───────────────────────────────────────────────────────────────────
def _get_value_shape(optional, *, output_types, output_shapes):
    return list(output_shapes)


def _get_value_dtype(optional, *, output_types, output_shapes):
    return list(output_types)


def _get_value_kernel(optional, *, output_types, output_shapes):
    if optional.values is None:
        raise errors.InvalidArgumentError(None, None,
                                          "The given optional does not have a value.")
    values = optional.values
    return values[0] if len(values) == 1 else tuple(values)


get_value_op = OpDef("OptionalGetValue", shape=_get_value_shape, dtype=_get_value_dtype,
                     kernel=_get_value_kernel,
                     attrs={"output_types": None, "output_shapes": None},
                     num_outputs=lambda attrs, n: len(attrs["output_types"]),
                     aliases=True, input_names=("optional",))


@get_value_op.def_grad
def _get_value_grad(op, *grads):
    """TF's rule: the gradient optional holds the values' gradients (zeros where none)."""
    parts = [g if g is not None else zeros_like(t) for g, t in zip(grads, op.outputs)]
    return [from_value_op.create(parts, {"Toutput_types": [p.dtype for p in parts]}
                                 ).outputs[0]]


# ── Optional ───────────────────────────────────────────────────────────────────────────
class Optional(abc.ABC):
    """``tf.data.experimental.Optional``: a value that may be absent. Build one with
    ``Optional.from_value``, ``Optional.empty`` or ``Iterator.get_next_as_optional``."""

    @abc.abstractmethod
    def has_value(self, name=None):
        """A scalar bool tensor: whether this optional holds a value."""

    @abc.abstractmethod
    def get_value(self, name=None):
        """The value (a structure of tensors); ``InvalidArgumentError`` at run time when
        the optional is empty."""

    @property
    @abc.abstractmethod
    def element_spec(self):
        """The (nested) specs of the value this optional holds or would hold."""

    @staticmethod
    def empty(element_spec):
        """An optional without a value, typed ``element_spec``."""
        return _OptionalImpl(none_op.bind(), element_spec)

    @staticmethod
    def from_value(value):
        """An optional holding ``value`` (a structure of tensors or convertible values)."""
        with name_scope("optional") as scope:
            with name_scope("value"):
                element_spec = _spec_of(value)
                flat_specs(element_spec)
                flat = [v if isinstance(v, Tensor) else convert_to_tensor(v)
                        for v, s in zip(_leaves(value), _leaves(element_spec))
                        if not isinstance(s, NoneTensorSpec)]
            if not flat:
                raise ValueError("Attr 'Toutput_types' of 'OptionalFromValue' Op passed list "
                                 "of length 0 less than minimum 1.")
            variant = from_value_op.create(flat, {"Toutput_types": [t.dtype for t in flat]},
                                           name=scope).outputs[0]
        return _OptionalImpl(variant, element_spec)


class _OptionalImpl(Optional):
    """The Optional every constructor returns: a variant tensor and the element's specs."""

    def __init__(self, variant_tensor, element_spec):
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec

    def has_value(self, name=None):
        return has_value_op.bind(self._variant_tensor, name=name)

    def get_value(self, name=None):
        specs = flat_specs(self._element_spec)
        with name_scope(name, "OptionalGetValue", [self._variant_tensor]) as scope:
            op = get_value_op.create([self._variant_tensor],
                                     {"output_types": [s.dtype for s in specs],
                                      "output_shapes": [s.shape for s in specs]}, name=scope)
        return pack_as(self._element_spec, list(op.outputs))

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def _type_spec(self):
        return OptionalSpec.from_value(self)


def optional_from_components(variant_tensor, element_spec) -> Optional:
    """The Optional a variant tensor of an optional op holds (``IteratorGetNextAsOptional``)."""
    return _OptionalImpl(variant_tensor, element_spec)


def get_next_as_optional(iterator):
    """``iterator.get_next_as_optional()``: the next element as an Optional, empty at the
    end of the data (``tf.data.experimental.get_next_as_optional``)."""
    return iterator.get_next_as_optional()


# ── OptionalSpec ───────────────────────────────────────────────────────────────────────
class OptionalSpec(TypeSpec):
    """``tf.OptionalSpec(element_spec)`` (``tf.data.experimental.OptionalStructure``).

    >>> tf.OptionalSpec(tf.TensorSpec([3]))
    OptionalSpec(TensorSpec(shape=(3,), dtype=tf.float32, name=None),)
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    value_type = property(lambda self: _OptionalImpl)
    _component_specs = property(lambda self: [TensorSpec((), dtypes.variant)])

    def _serialize(self):
        return (self._element_spec,)

    def _to_components(self, value):
        return [value._variant_tensor]

    def _from_components(self, components):
        return _OptionalImpl(components[0], self._element_spec)

    @staticmethod
    def from_value(value):
        return OptionalSpec(value.element_spec)

    def _to_legacy_output_types(self):
        return self

    def _to_legacy_output_shapes(self):
        return self

    def _to_legacy_output_classes(self):
        return self


register_type_spec_from_value_converter(Optional, OptionalSpec.from_value,
                                        allow_subclass=True)
