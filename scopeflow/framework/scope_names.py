"""Moving a node name into or out of a name scope (TF's ``ops.prepend_name_scope`` and
``ops.strip_name_scope``), as exported and imported protos (``VariableDef``, ``TensorInfo``,
``SaveSliceInfoDef``) name nodes relative to an export or import scope. A control input's
``^`` and a colocation's ``loc:@`` stay in front."""

from __future__ import annotations

__all__ = ["prepend_name_scope", "strip_name_scope"]

_LEADS = ("^", "loc:@")


def _split_lead(name):
    for lead in _LEADS:
        if name.startswith(lead):
            return lead, name[len(lead):]
    return "", name


def prepend_name_scope(name, import_scope):
    """``name`` under ``import_scope``.

    >>> prepend_name_scope("^b", "a"), prepend_name_scope("b:0", "a/")
    ('^a/b', 'a/b:0')
    """
    if not import_scope:
        return name
    scope = import_scope[:-1] if import_scope.endswith("/") else import_scope
    lead, rest = _split_lead(name)
    return f"{lead}{scope}/{rest}"


def strip_name_scope(name, export_scope):
    """``name`` with a leading ``export_scope/`` removed (unchanged outside that scope).

    >>> strip_name_scope("loc:@a/b", "a"), strip_name_scope("ab/c", "a")
    ('loc:@b', 'ab/c')
    """
    if not export_scope:
        return name
    scope = export_scope[:-1] if export_scope.endswith("/") else export_scope
    lead, rest = _split_lead(name)
    if rest.startswith(scope + "/"):
        rest = rest[len(scope) + 1:]
    return lead + rest
