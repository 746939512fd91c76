"""``tf.Module``: a named container of variables, other modules and the functions that use
them, as TF1 graph mode builds one.

A module opens its name scope once, when constructed (so two modules of one class get
``m/`` and ``m_1/``), and re-enters exactly that scope in ``with module.name_scope:`` and in
methods decorated ``@tf.Module.with_name_scope``. ``variables``, ``trainable_variables``,
``non_trainable_variables`` and ``submodules`` are found by reflection, in TF's order: the
module's own attributes by sorted name (each value flattened as ``tf.nest`` does: dict
entries by sorted key), then each submodule found that way, recursively, each value once.
"""

from __future__ import annotations

import re

from scopeflow.framework.graph import name_scope as _name_scope
from scopeflow.state.variables import Variable

__all__ = ["Module"]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """``MyModule`` -> ``my_module``, the default module name (TF's rule)."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return _is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj):
    return _is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj):
    return isinstance(obj, Module)


def _leaves_with_paths(value, path=()):
    """``(path, leaf)`` of a nested value, as ``tf.nest`` orders them (dicts by key)."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves_with_paths(value[key], path + (key,))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves_with_paths(item, path + (i,))
    else:
        yield path, value


class _ScopeOf:
    """A name scope to re-enter, with its ``name`` (TF's ``internal_name_scope_v1``)."""

    def __init__(self, name):
        self.name = name
        self._scope = None

    def __enter__(self):
        self._scope = _name_scope(self.name)
        return self._scope.__enter__()

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


class Module:
    """Base class of a named container of variables and submodules (TF's ``tf.Module``).

    >>> class Dense(tf.Module):
    ...     def __init__(self, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = tf.Variable(1.0, name="w")
    >>> d = Dense()
    >>> [v.name for v in d.variables]
    ['dense/w:0']
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset((
        "_self_unconditional_checkpoint_dependencies",
        "_self_unconditional_dependency_names",
    ))

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name).")
        self._name = name
        with _name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The name given (or derived from the class): not the full name scope."""
        return self._name

    @property
    def name_scope(self):
        """A ``tf.name_scope`` that re-enters this module's scope (``m/``) exactly; its
        ``name`` is that scope."""
        return _ScopeOf(self._scope_name)

    @property
    def variables(self) -> tuple:
        """This module's variables (by attribute name), then its submodules' (breadth
        first)."""
        return tuple(self._flatten(predicate=_is_variable, expand_composites=True))

    @property
    def trainable_variables(self) -> tuple:
        """``variables`` that are trainable, in the same order."""
        return tuple(self._flatten(predicate=_is_trainable_variable, expand_composites=True))

    @property
    def non_trainable_variables(self) -> tuple:
        """``variables`` that are not trainable, in the same order."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable,
                                   expand_composites=True))

    @property
    def submodules(self) -> tuple:
        """Every module reachable through attributes, breadth first."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """The attribute values (leaves of nested structures) that satisfy ``predicate``,
        attributes in sorted order, submodules' after (``with_path``: ``(path, leaf)``
        pairs, not de-duplicated)."""
        del expand_composites  # no composite tensors are module attributes here
        return _flatten_module(
            self, recursive=recursive, predicate=predicate or (lambda _: True),
            attribute_traversal_key=attribute_traversal_key, with_path=with_path,
            module_path=(), seen={id(self)}, recursion_stack=[])

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: the method runs in the module's name scope."""
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        method_with_name_scope.__name__ = method.__name__
        method_with_name_scope.__qualname__ = getattr(method, "__qualname__", method.__name__)
        method_with_name_scope.__doc__ = method.__doc__
        method_with_name_scope.__wrapped__ = method
        return method_with_name_scope


def _flatten_module(module, recursive, predicate, attribute_traversal_key, with_path,
                    module_path, seen, recursion_stack):
    """TF's walk: this module's leaves first, then each submodule's, recursively (a module
    already on the recursion stack is not entered again)."""
    module_id = id(module)
    if module_id in recursion_stack:
        recursive = False
    submodules = []
    attrs = vars(module)
    for key in sorted(attrs, key=attribute_traversal_key):
        if key in module._TF_MODULE_IGNORED_PROPERTIES:
            continue
        for leaf_path, leaf in _leaves_with_paths(attrs[key], (key,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(module_id)
    for path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, attribute_traversal_key,
                                   with_path, path, seen, recursion_stack)
    recursion_stack.pop()
