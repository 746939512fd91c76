"""``slim.arg_scope``: default keyword arguments for a set of layer functions, by context.

TF 1.x's slim programs write ``with slim.arg_scope([slim.conv2d, slim.fully_connected],
activation_fn=tf.nn.relu, weights_regularizer=...):`` once instead of repeating those
arguments at every layer. This is TF 1.15's ``tf.contrib.framework`` arg_scope with its
semantics:

- only functions decorated with :func:`add_arg_scope` take part (``arg_scope`` refuses any
  other, naming it), and each is looked up by :func:`arg_scope_func_key`, so aliases of one
  function (``conv2d = convolution2d``) share their defaults while ``convolution`` and
  ``convolution2d``, two functions, do not;
- a scope maps each function's key to its keyword arguments; a nested ``arg_scope`` copies
  the outer scope and updates the kwargs of the functions it names, so an inner value wins
  and the outer scope is untouched once the inner one ends;
- the caller's explicit keyword arguments win over the scope's;
- ``arg_scope`` yields its scope (a dict); ``with arg_scope(that_dict):`` enters it again
  later (with no kwargs), which is how slim's model files hand their defaults around.

The scopes live on one module-level stack, as TF's: scopes are a graph-building device and
TF1 programs build graphs on one thread.
"""

from __future__ import annotations

import contextlib
import functools
import inspect

__all__ = ["add_arg_scope", "arg_scope", "arg_scope_func_key", "arg_scoped_arguments",
           "current_arg_scope", "has_arg_scope"]

# The stack of scopes, the innermost last; the bottom one is empty and never popped.
_ARG_STACK: list[dict] = [{}]
# Key of each decorated function -> the names of its keyword arguments with defaults.
_DECORATED: dict[str, tuple[str, ...]] = {}


def arg_scope_func_key(op) -> str:
    """The key that ``op``'s defaults have in a scope dict: the decorated function carries
    its undecorated function's key, so both (and every alias of either) find the same
    entry."""
    return getattr(op, "_key_op", str(op))


def current_arg_scope() -> dict:
    """The innermost scope: ``{arg_scope_func_key(f): {kwarg: value}}`` (empty outside any
    ``arg_scope``)."""
    return _ARG_STACK[-1]


def _defaulted_kwargs(func) -> tuple[str, ...]:
    """The names of ``func``'s parameters that have a default, in order."""
    return tuple(name for name, p in inspect.signature(func).parameters.items()
                 if p.default is not inspect.Parameter.empty
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def add_arg_scope(func):
    """Makes ``func`` take its keyword arguments' defaults from the enclosing ``arg_scope``
    (the caller's explicit keyword arguments win); returns the wrapped function."""
    key = arg_scope_func_key(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scoped = current_arg_scope().get(key)
        if scoped:
            kwargs = {**scoped, **kwargs}
        return func(*args, **kwargs)

    _DECORATED[key] = _defaulted_kwargs(func)
    func_with_args._key_op = key
    return func_with_args


def has_arg_scope(func) -> bool:
    """Whether ``func`` was decorated with :func:`add_arg_scope`."""
    return arg_scope_func_key(func) in _DECORATED


def arg_scoped_arguments(func) -> tuple[str, ...]:
    """The keyword arguments (those with defaults) that an ``arg_scope`` can set for
    ``func``, a function decorated with :func:`add_arg_scope`."""
    if not has_arg_scope(func):
        raise ValueError(f"arg_scoped_arguments: {_op_name(func)} is not decorated with "
                         "@add_arg_scope")
    return _DECORATED[arg_scope_func_key(func)]


def _op_name(op) -> str:
    return f"{getattr(op, '__module__', '?')}.{getattr(op, '__name__', repr(op))}"


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Sets ``kwargs`` as the defaults of each function of ``list_ops_or_scope`` (a list or
    tuple of functions decorated with :func:`add_arg_scope`) until the block ends, on top of
    the enclosing scope; or, given a scope dict that an earlier ``arg_scope`` yielded (and
    no kwargs), enters that scope again. Yields the new scope.

    >>> slim = tf.contrib.slim
    >>> with slim.arg_scope([slim.fully_connected], activation_fn=None):
    ...     y = slim.fully_connected(tf.ones([2, 3]), 4)
    >>> y.op.type
    'BiasAdd'
    """
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("arg_scope: when re-using a scope by supplying a dictionary, "
                             f"kwargs must be empty (got {sorted(kwargs)})")
        scope = dict(list_ops_or_scope)
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("arg_scope: list_ops_or_scope must either be a list/tuple or a "
                            f"reused scope (i.e. dict), got {type(list_ops_or_scope).__name__}")
        scope = dict(current_arg_scope())
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError(f"arg_scope: {_op_name(op)} is not decorated with "
                                 "@add_arg_scope")
            key = arg_scope_func_key(op)
            scope[key] = {**scope.get(key, {}), **kwargs}
    _ARG_STACK.append(scope)
    try:
        yield scope
    finally:
        _ARG_STACK.pop()
