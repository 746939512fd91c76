"""Datasets as elements of datasets: ``window`` makes them, a ``map`` function may return
them, and ``flat_map``/``interleave``/``map`` functions take them as arguments.

At graph-building time a dataset-valued component is described by a ``DatasetSpec`` (a
``variant`` scalar, as TF's ``DatasetSpec``, holding the structure of the inner dataset's
elements). At run time the component is a ``DatasetValue``: how to make an iterator over the
inner dataset (TF passes a variant tensor holding the dataset). A function traced on such a
component gets an ``ElementDataset`` for it: a Dataset whose iterator is made from the
``DatasetValue`` its call was given (the value of the function's ``variant`` argument).
"""

from __future__ import annotations

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.dataset_spec import DatasetSpec as PublicDatasetSpec
from scopeflow.data.iterator_state import SavedDataset
from scopeflow.data.pipeline import End, PyIterator
from scopeflow.framework import dtypes

__all__ = ["DatasetSpec", "DatasetBatch", "DatasetValue", "ElementDataset", "ListIterator",
           "element_value"]


class DatasetSpec(st.Spec):
    """A component that is a dataset whose elements have the nested ``Spec``s ``element``."""

    __slots__ = ("element",)
    LEGACY_IS_SPEC = True  # TF1's output_types/shapes/classes are this DatasetSpec too

    def __init__(self, element, shape=()):
        super().__init__(dtypes.variant, shape)
        self.element = element

    def type_spec(self):
        """The public spec TF gives such a component: ``tf.data.DatasetSpec``."""
        return PublicDatasetSpec(st.type_specs(self.element), self.shape)

    def graph_value(self, tensor):
        """What a graph reads from this component's variant ``tensor`` (what ``get_next()``
        returns for it): a dataset, or for datasets batched, a ``DatasetBatch``."""
        if self.shape.ndims != 0:
            return DatasetBatch(self, tensor)
        return ElementDataset(self, tensor)

    def __repr__(self):
        # as TF prints it: DatasetSpec(<element's TensorSpecs>, TensorShape([]))
        return repr(self.type_spec())


class DatasetBatch:
    """A component that is datasets batched (a ``DatasetSpec`` of nonscalar shape), as a
    graph has it: TF's ``_NestedVariant``, which a function can only pass on (to be
    unbatched into datasets again)."""

    __slots__ = ("_data_spec", "_data_tensor")

    def __init__(self, spec: DatasetSpec, tensor):
        self._data_spec, self._data_tensor = spec, tensor

    shape = property(lambda self: self._data_spec.shape)
    _type_spec = property(lambda self: self._data_spec.type_spec())

    def __repr__(self):
        return f"<DatasetBatch shape={self.shape} element_spec={self._data_spec.element}>"


class DatasetValue:
    """A dataset-valued component at run time: ``make()`` gives a fresh iterator over it (each
    consumer of the component reads it from its start, as TF re-iterates a variant).
    ``elements``: its values, when it is just a list of them (a window's component), which
    is what a saved iterator position keeps of it."""

    __slots__ = ("make", "elements")

    def __init__(self, make, elements=None):
        self.make = make
        self.elements = elements

    @classmethod
    def of_elements(cls, elements):
        """The dataset of the values ``elements`` (one component each)."""
        elements = list(elements)
        return cls(lambda: ListIterator([[e] for e in elements]), elements)

    def __repr__(self):
        return "<DatasetValue>"


class ListIterator(PyIterator):
    """The elements of a list, one after another (a window's component, a saved position
    being just the index)."""

    def __init__(self, elements):
        self.elements, self.i = elements, 0

    def next(self):
        if self.i >= len(self.elements):
            raise End
        self.i += 1
        return self.elements[self.i - 1]

    def get_state(self):
        return {"i": self.i}

    def set_state(self, state):
        self.i = int(state["i"])


class ElementDataset(Dataset):
    """The dataset a traced function sees for a dataset-valued argument ``tensor`` (its
    ``variant`` placeholder): its iterator comes from the ``DatasetValue`` fed there."""

    def __init__(self, spec: DatasetSpec, tensor):
        self._structure = spec.element
        self._tensor = tensor

    def _captures(self):
        return [self._tensor]

    def _iterator(self, state, env):
        return element_value(env[self._tensor]).make()


def element_value(value) -> DatasetValue:
    """``value`` (an element's component, perhaps wrapped in a 0-d object array by a
    function's plan) as the ``DatasetValue`` it is."""
    while not isinstance(value, DatasetValue):
        if isinstance(value, SavedDataset):
            return DatasetValue.of_elements(value.elements)
        if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind == "O":
            value = value.item()
            continue
        raise TypeError(f"expected a dataset-valued element, got {type(value).__name__}")
    return value
