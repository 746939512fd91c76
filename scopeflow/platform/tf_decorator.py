"""TF's ``tf_decorator`` (visible as ``tf.flags.tf_decorator``): decorators that keep the
wrapped callable's name, docstring and signature and let tools see through them.

``make_decorator(target, wrapper)`` marks ``wrapper`` as wrapping ``target`` (a
``TFDecorator`` on ``wrapper._tf_decorator``); ``unwrap`` walks such chains back to the
undecorated callable; ``rewrap`` swaps the innermost target of a chain.

>>> def f(x, y=2):
...     "Adds."
...     return x + y
>>> g = make_decorator(f, lambda *a, **k: f(*a, **k), "twice")
>>> g.__name__, g.__doc__, str(inspect.signature(g)), unwrap(g)[1] is f
('f', 'Adds.', '(x, y=2)', True)
"""

from __future__ import annotations

import inspect
from typing import Any, Dict  # noqa: UP035 (TF exposes typing.Dict here)

__all__ = ["TFDecorator", "make_decorator", "rewrap", "unwrap", "fullargspec_to_signature",
           "Any", "Dict", "inspect"]


def _make_default_values(fullargspec: inspect.FullArgSpec) -> dict[str, Any]:
    """``{parameter: default}`` from a ``FullArgSpec``'s positional and keyword-only
    defaults."""
    defaults = {}
    if fullargspec.defaults is not None:
        tail = fullargspec.args[len(fullargspec.args) - len(fullargspec.defaults):]
        defaults.update(zip(tail, fullargspec.defaults))
    if fullargspec.kwonlydefaults is not None:
        defaults.update(fullargspec.kwonlydefaults)
    return defaults


def fullargspec_to_signature(fullargspec: inspect.FullArgSpec) -> inspect.Signature:
    """The ``inspect.Signature`` a ``FullArgSpec`` describes (annotations dropped, as TF)."""
    defaults = _make_default_values(fullargspec)
    empty, kind = inspect.Parameter.empty, inspect.Parameter
    params = [kind(a, kind.POSITIONAL_OR_KEYWORD, default=defaults.get(a, empty))
              for a in fullargspec.args]
    if fullargspec.varargs is not None:
        params.append(kind(fullargspec.varargs, kind.VAR_POSITIONAL))
    params += [kind(a, kind.KEYWORD_ONLY, default=defaults.get(a, empty))
               for a in fullargspec.kwonlyargs]
    if fullargspec.varkw is not None:
        params.append(kind(fullargspec.varkw, kind.VAR_KEYWORD))
    return inspect.Signature(params)


class TFDecorator:
    """Records one decoration: the wrapped target, the decorator's name, doc and argspec.

    Calling it calls the target; subclasses override ``__call__`` to add behaviour."""

    def __init__(self, decorator_name, target, decorator_doc="", decorator_argspec=None):
        self._decorated_target = target
        self._decorator_name = decorator_name
        self._decorator_doc = decorator_doc
        self._decorator_argspec = decorator_argspec
        if hasattr(target, "__name__"):
            self.__name__ = target.__name__
        if hasattr(target, "__qualname__"):
            self.__qualname__ = target.__qualname__
        if decorator_doc:
            self.__doc__ = decorator_doc
        else:
            self.__doc__ = getattr(target, "__doc__", None) or ""
        if decorator_argspec:
            self.__signature__ = fullargspec_to_signature(decorator_argspec)
        elif callable(target):
            try:
                self.__signature__ = inspect.signature(target)
            except (TypeError, ValueError):
                pass

    def __get__(self, instance, owner):
        return self._decorated_target.__get__(instance, owner)

    def __call__(self, *args, **kwargs):
        return self._decorated_target(*args, **kwargs)

    @property
    def decorated_target(self):
        return self._decorated_target

    @decorated_target.setter
    def decorated_target(self, decorated_target):
        self._decorated_target = decorated_target

    @property
    def decorator_name(self):
        return self._decorator_name

    @property
    def decorator_doc(self):
        return self._decorator_doc

    @property
    def decorator_argspec(self):
        return self._decorator_argspec


def _has_tf_decorator_attr(obj):
    return isinstance(getattr(obj, "_tf_decorator", None), TFDecorator)


def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="",
                   decorator_argspec=None):
    """Returns ``decorator_func`` dressed as ``target`` (name, qualname, module, dict,
    doc, signature, ``__wrapped__``), with a ``TFDecorator`` on ``_tf_decorator``.

    ``decorator_name`` defaults to the name of the function calling ``make_decorator``."""
    if decorator_name is None:
        decorator_name = inspect.currentframe().f_back.f_code.co_name
    decorator = TFDecorator(decorator_name, target, decorator_doc, decorator_argspec)
    decorator_func._tf_decorator = decorator
    for attr in ("__name__", "__qualname__", "__module__"):
        if hasattr(target, attr):
            setattr(decorator_func, attr, getattr(target, attr))
    if hasattr(target, "__dict__"):
        for name, value in target.__dict__.items():
            decorator_func.__dict__.setdefault(name, value)
    if hasattr(target, "__doc__"):
        decorator_func.__doc__ = decorator.__doc__
    decorator_func.__wrapped__ = target
    decorator_func.__original_wrapped__ = target
    if decorator_argspec:
        decorator_func.__signature__ = fullargspec_to_signature(decorator_argspec)
    elif callable(target):
        try:
            signature = inspect.signature(target)
        except (TypeError, ValueError):
            pass
        else:
            bound = _get_bound_instance(target)
            if bound and "self" in signature.parameters:
                signature = inspect.Signature(list(signature.parameters.values())[1:])
                decorator_func.__self__ = bound
            decorator_func.__signature__ = signature
    return decorator_func


def _get_bound_instance(target):
    """The instance a method somewhere in ``target``'s decorator chain is bound to."""
    decorators, _ = unwrap(target)
    for decorator in decorators:
        if inspect.ismethod(decorator.decorated_target):
            return decorator.decorated_target.__self__
    return None


def rewrap(decorator_func, previous_target, new_target):
    """Replaces ``previous_target`` with ``new_target`` inside ``decorator_func``'s chain
    (the wrappers must call ``__wrapped__``); returns ``decorator_func``, or
    ``new_target`` when ``decorator_func`` is no TF decorator."""
    cur, innermost, target = decorator_func, None, None
    while _has_tf_decorator_attr(cur):
        innermost = cur
        target = cur._tf_decorator
        if target.decorated_target is previous_target:
            break
        cur = target.decorated_target
    if innermost is None:
        if decorator_func is not previous_target:
            raise AssertionError("decorator_func is neither a TF decorator nor the "
                                 "previous target")
        return new_target
    target.decorated_target = new_target
    if inspect.ismethod(innermost):
        innermost.__func__.__wrapped__ = new_target
    else:
        innermost.__wrapped__ = new_target
    return decorator_func


def unwrap(maybe_tf_decorator):
    """``(decorators outermost first, the undecorated target)``."""
    decorators, cur = [], maybe_tf_decorator
    while True:
        if isinstance(cur, TFDecorator):
            decorators.append(cur)
        elif _has_tf_decorator_attr(cur):
            decorators.append(cur._tf_decorator)
        else:
            break
        if not hasattr(decorators[-1], "decorated_target"):
            break
        cur = decorators[-1].decorated_target
    return decorators, cur
