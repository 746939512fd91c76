"""Key flags (a module's flags shown in its help) and changing a defined flag's value
or default."""

from __future__ import annotations

import inspect

from scopeflow.platform.flags.errors import Error
from scopeflow.platform.flags.flag_values import (
    _DISCLAIMED_MODULES,
    _SPECIAL_FLAGS,
    FLAGS,
    _calling_module,
)
from scopeflow.platform.flags.validators import _resolve_flag_ref


def declare_key_flag(flag_name, flag_values=FLAGS):
    """Makes ``flag_name`` a key flag of the calling module (shown in its help)."""
    name, fv = _resolve_flag_ref(flag_name, flag_values)
    if name in _SPECIAL_FLAGS:
        return
    try:
        flag = fv[name]
    except KeyError:
        raise ValueError(f"Flag --{name} is undefined. To set a flag as a key flag first "
                         "define it in Python.") from None
    fv.register_key_flag_for_module(_calling_module(), flag)


def adopt_module_key_flags(module, flag_values=FLAGS):
    """Makes ``module``'s key flags key flags of the calling module too."""
    if not inspect.ismodule(module):
        raise Error(f"Expected a module object, not {module!r}.")
    caller = _calling_module()
    for flag in flag_values.get_key_flags_for_module(module.__name__):
        flag_values.register_key_flag_for_module(caller, flag)


def disclaim_key_flags():
    """Declares the calling module a wrapper whose flags belong to its callers."""
    _DISCLAIMED_MODULES.add(_calling_module())


def override_value(flag_holder, value):
    """Sets ``flag_holder``'s value, checked by its validators (kept on failure: absl's)."""
    fv = flag_holder._flagvalues
    flag = fv[flag_holder.name]
    old, old_default = flag.value, flag.using_default_value
    flag.value = value
    try:
        fv._assert_validators(flag.validators)
    except Exception:
        flag.value, flag.using_default_value = old, old_default
        raise
    flag.using_default_value = False


def set_default(flag_holder, value):
    """Changes ``flag_holder``'s default."""
    flag_holder._flagvalues.set_default(flag_holder.name, value)
