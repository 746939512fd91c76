"""``tf.describe``: where a TF name lives, from the name alone.

``tf.describe("Conv2D")`` (an op type) prints where each piece of the op is defined: its
shape and dtype rules, kernel, gradient and the plan passes that may rewrite it
(``framework/opdef.py``). ``tf.describe("tf.nn.conv2d")`` (a public name, with or without
``tf.``) prints the namespace module that exports it, where the object is defined, and the
op types its function binds directly, each described as above:

    tf.nn.conv2d
      exported by  scopeflow/api/nn.py (tf.nn)
      defined at   scopeflow/ops/nn/conv_ops.py:528 (conv2d)
      binds        Conv2D
    Conv2D: attrs=...
"""

from __future__ import annotations

import inspect
import sys
import types

from scopeflow.framework.api_fallback import member
from scopeflow.framework.opdef import REGISTRY, OpDef
from scopeflow.framework.opdef import describe as describe_op

__all__ = ["describe"]


def describe(name: str) -> str:
    """Where an op type's pieces, or a public TF name's export and implementation, live."""
    if name in REGISTRY:
        return describe_op(name)
    path = name.removeprefix("tf.").removeprefix("compat.v1.")
    namespace, _, leaf = path.rpartition(".")
    module = _resolve(namespace)
    if not isinstance(module, types.ModuleType) or (
            member(module, leaf) is None and leaf not in vars(module)):
        raise ValueError(f"{name!r} is neither a registered op type nor a name scopeflow "
                         f"exports (see docs/API.md for every TF1 name and its status)")
    obj = vars(module)[leaf]
    lines = [f"tf.{path}",
             f"  exported by  {_file(module)} (tf{'.' + namespace if namespace else ''})"]
    target = inspect.unwrap(obj) if callable(obj) else obj
    where = _where(target)
    if where:
        lines.append(f"  defined at   {where} ({getattr(target, '__qualname__', leaf)})")
    op_defs = _bound_op_defs(target)
    if op_defs:
        lines.append(f"  binds        {', '.join(op.type for op in op_defs)}")
    return "\n".join(lines + [describe_op(op.type) for op in op_defs])


def _resolve(namespace: str):
    obj = sys.modules["scopeflow"]
    for part in filter(None, namespace.split(".")):
        obj = member(obj, part)
    return obj


def _file(obj) -> str:
    path = inspect.getsourcefile(obj) or "?"
    root = sys.modules["scopeflow"].__file__.rsplit("scopeflow", 1)[0]
    return path.removeprefix(root)


def _where(obj) -> str | None:
    try:
        return f"{_file(obj)}:{inspect.getsourcelines(obj)[1]}"
    except (TypeError, OSError):
        return None


def _bound_op_defs(obj) -> list[OpDef]:
    """The OpDefs a function names directly (``conv2d_op.bind(...)``), in order."""
    code = getattr(obj, "__code__", None)
    if code is None:
        return []
    found = []
    for name in code.co_names:
        value = obj.__globals__.get(name)
        if isinstance(value, OpDef) and value not in found:
            found.append(value)
    return found
