"""The ``DEFINE_*`` functions: each makes a ``Flag``, registers it in a ``FlagValues``
and returns its ``FlagHolder``."""

from __future__ import annotations

import logging

from scopeflow.platform import tf_decorator
from scopeflow.platform.flags.errors import UnrecognizedFlagError
from scopeflow.platform.flags.flag_types import (
    BooleanFlag,
    EnumClassFlag,
    EnumFlag,
    Flag,
    FlagHolder,
    MultiEnumClassFlag,
    MultiFlag,
    _FlagAlias,
)
from scopeflow.platform.flags.flag_values import FLAGS, _calling_module
from scopeflow.platform.flags.parsers import (
    ArgumentParser,
    ArgumentSerializer,
    CsvListSerializer,
    EnumParser,
    FloatParser,
    IntegerParser,
    ListParser,
    ListSerializer,
    WhitespaceSeparatedListParser,
)
from scopeflow.platform.flags.validators import (
    _register_bounds_validator_if_needed,
    mark_flag_as_required,
)

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _tf_define(function):
    """TF's wrapper: ``flag_name``/``default_value``/``docstring`` keyword spellings."""
    def wrapper(*args, **kwargs):
        renamed = False
        for old, new in _RENAMED_ARGUMENTS.items():
            if old in kwargs:
                renamed = True
                kwargs[new] = kwargs.pop(old)
        if renamed:
            logging.warning("Use of the keyword argument names (flag_name, default_value, "
                            "docstring) is deprecated, please use (name, default, help) "
                            "instead.")
        return function(*args, **kwargs)
    return tf_decorator.make_decorator(function, wrapper)


def DEFINE_flag(flag, flag_values=FLAGS, module_name=None, required=False):  # noqa: N802
    """Registers ``flag`` in ``flag_values``; returns its ``FlagHolder``."""
    if required and flag.default is not None:
        raise ValueError(f"Required flag --{flag.name} needs to have None as default")
    fv = flag_values
    fv[flag.name] = flag
    module = module_name or _calling_module()
    fv.register_flag_by_module(module, flag)
    if required:
        mark_flag_as_required(flag.name, fv)
    return FlagHolder(fv, flag, ensure_non_none_value=required)


def DEFINE(parser, name, default, help, flag_values=FLAGS, serializer=None,  # noqa: N802, A002
           module_name=None, required=False, **args):
    """Defines a flag of any parser (and serializer)."""
    return DEFINE_flag(Flag(parser, serializer, name, default, help, **args), flag_values,
                       module_name, required=required)


def DEFINE_string(name, default, help, flag_values=FLAGS, required=False,  # noqa: N802, A002
                  **args):
    """Declares a string flag."""
    return DEFINE(ArgumentParser(), name, default, help, flag_values, ArgumentSerializer(),
                  required=required, **args)


def DEFINE_boolean(name, default, help, flag_values=FLAGS, module_name=None,  # noqa: N802
                   required=False, **args):  # noqa: A002
    """Declares a boolean flag: ``--name``, ``--noname``, ``--name=false``."""
    return DEFINE_flag(BooleanFlag(name, default, help, **args), flag_values, module_name,
                       required=required)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802, A002
                 flag_values=FLAGS, required=False, **args):
    """Declares a float flag (optionally bounded)."""
    parser = FloatParser(lower_bound, upper_bound)
    result = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(),
                    required=required, **args)
    _register_bounds_validator_if_needed(parser, name, flag_values)
    return result


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802, A002
                   flag_values=FLAGS, required=False, **args):
    """Declares an integer flag (optionally bounded)."""
    parser = IntegerParser(lower_bound, upper_bound)
    result = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(),
                    required=required, **args)
    _register_bounds_validator_if_needed(parser, name, flag_values)
    return result


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS,  # noqa: N802, A002
                module_name=None, required=False, **args):
    """Declares a string flag whose value is one of ``enum_values``."""
    return DEFINE_flag(EnumFlag(name, default, help, enum_values, **args), flag_values,
                       module_name, required=required)


def DEFINE_enum_class(name, default, enum_class, help, flag_values=FLAGS,  # noqa: N802, A002
                      module_name=None, case_sensitive=False, required=False, **args):
    """Declares a flag whose value is a member of ``enum_class``."""
    return DEFINE_flag(EnumClassFlag(name, default, help, enum_class,
                                     case_sensitive=case_sensitive, **args),
                       flag_values, module_name, required=required)


def DEFINE_list(name, default, help, flag_values=FLAGS, required=False,  # noqa: N802, A002
                **args):
    """Declares a comma-separated list of strings."""
    return DEFINE(ListParser(), name, default, help, flag_values, CsvListSerializer(","),
                  required=required, **args)


def DEFINE_spaceseplist(name, default, help, comma_compat=False,  # noqa: N802, A002
                        flag_values=FLAGS, required=False, **args):
    """Declares a whitespace-separated list of strings."""
    return DEFINE(WhitespaceSeparatedListParser(comma_compat=comma_compat), name, default,
                  help, flag_values, ListSerializer(" "), required=required, **args)


def DEFINE_multi(parser, serializer, name, default, help,  # noqa: N802, A002
                 flag_values=FLAGS, module_name=None, required=False, **args):
    """Declares a flag given any number of times; its value is the list."""
    return DEFINE_flag(MultiFlag(parser, serializer, name, default, help, **args),
                       flag_values, module_name, required=required)


def DEFINE_multi_string(name, default, help, flag_values=FLAGS,  # noqa: N802, A002
                        required=False, **args):
    """A multi flag of strings."""
    return DEFINE_multi(ArgumentParser(), ArgumentSerializer(), name, default, help,
                        flag_values, required=required, **args)


def DEFINE_multi_integer(name, default, help, lower_bound=None,  # noqa: N802, A002
                         upper_bound=None, flag_values=FLAGS, required=False, **args):
    """A multi flag of integers."""
    return DEFINE_multi(IntegerParser(lower_bound, upper_bound), ArgumentSerializer(), name,
                        default, help, flag_values, required=required, **args)


def DEFINE_multi_float(name, default, help, lower_bound=None,  # noqa: N802, A002
                       upper_bound=None, flag_values=FLAGS, required=False, **args):
    """A multi flag of floats."""
    return DEFINE_multi(FloatParser(lower_bound, upper_bound), ArgumentSerializer(), name,
                        default, help, flag_values, required=required, **args)


def DEFINE_multi_enum(name, default, enum_values, help, flag_values=FLAGS,  # noqa: N802, A002
                      case_sensitive=True, required=False, **args):
    """A multi flag of strings from ``enum_values``."""
    parser = EnumParser(enum_values, case_sensitive=case_sensitive)
    return DEFINE_multi(parser, ArgumentSerializer(), name, default,
                        f"<{'|'.join(enum_values)}>: {help}", flag_values, required=required,
                        **args)


def DEFINE_multi_enum_class(name, default, enum_class, help,  # noqa: N802, A002
                            flag_values=FLAGS, module_name=None, case_sensitive=False,
                            required=False, **args):
    """A multi flag of ``enum_class`` members."""
    return DEFINE_flag(MultiEnumClassFlag(name, default, help, enum_class,
                                          case_sensitive=case_sensitive, **args),
                       flag_values, module_name, required=required)


def DEFINE_alias(name, original_name, flag_values=FLAGS, module_name=None):  # noqa: N802
    """Defines ``--name`` as another spelling of ``--original_name``."""
    if original_name not in flag_values:
        raise UnrecognizedFlagError(original_name)
    return DEFINE_flag(_FlagAlias(flag_values[original_name], name), flag_values,
                       module_name)


DEFINE_bool = DEFINE_boolean

# TF wraps these four (only) to accept the old keyword names.
DEFINE_string = _tf_define(DEFINE_string)
DEFINE_boolean = _tf_define(DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _tf_define(DEFINE_float)
DEFINE_integer = _tf_define(DEFINE_integer)
