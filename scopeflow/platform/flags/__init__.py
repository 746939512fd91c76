"""``tf.flags`` and ``tf.app.flags``: TF1's command-line flags, which are absl's.

TF re-exports ``absl.flags``; scopeflow has no absl dependency, so this module is an
absl-compatible implementation: the same parsers and serializers, ``Flag`` classes,
``FlagValues`` registry, ``DEFINE_*`` functions returning ``FlagHolder``s, validators,
required and mutually exclusive flags, and the same command-line syntax
(``--name=value``, ``--name value``, ``--name``/``--noname`` for booleans,
``--flagfile=path``, ``--`` ending the flags) and error messages. As TF's wrapper does,
reading ``FLAGS.x`` before parsing parses ``sys.argv`` (its known flags here, so a
test runner's own arguments do no harm); scopeflow does so for every ``FlagValues``,
where absl would raise ``UnparsedFlagAccessError`` for one other than ``FLAGS``.

>>> fv = FlagValues()
>>> steps = DEFINE_integer("steps", 10, "How many steps.", flag_values=fv)
>>> _ = DEFINE_boolean("fast", False, "Go fast.", flag_values=fv)
>>> fv(["prog", "--steps=5", "--fast", "rest"])
['prog', 'rest']
>>> steps.value, fv.fast
(5, True)

The package's modules, each importing only those before it: ``errors``, ``parsers``,
``flag_types`` (``Flag`` and ``FlagHolder``), ``help_text``, ``flag_values``
(``FlagValues`` and ``FLAGS``), ``validators``, ``defines`` (``DEFINE_*``), ``key_flags``.
"""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.platform import tf_decorator
from scopeflow.platform.flags.defines import (
    DEFINE,
    DEFINE_alias,
    DEFINE_bool,
    DEFINE_boolean,
    DEFINE_enum,
    DEFINE_enum_class,
    DEFINE_flag,
    DEFINE_float,
    DEFINE_integer,
    DEFINE_list,
    DEFINE_multi,
    DEFINE_multi_enum,
    DEFINE_multi_enum_class,
    DEFINE_multi_float,
    DEFINE_multi_integer,
    DEFINE_multi_string,
    DEFINE_spaceseplist,
    DEFINE_string,
)
from scopeflow.platform.flags.errors import (
    CantOpenFlagFileError,
    DuplicateFlagError,
    Error,
    FlagNameConflictsWithMethodError,
    FlagsError,
    IllegalFlagValueError,
    UnparsedFlagAccessError,
    UnrecognizedFlagError,
    ValidationError,
)
from scopeflow.platform.flags.flag_types import (
    BooleanFlag,
    EnumClassFlag,
    EnumFlag,
    Flag,
    FlagHolder,
    MultiEnumClassFlag,
    MultiFlag,
)
from scopeflow.platform.flags.flag_values import FLAGS, FlagValues
from scopeflow.platform.flags.help_text import (
    doc_to_help,
    flag_dict_to_args,
    get_help_width,
    text_wrap,
)
from scopeflow.platform.flags.key_flags import (
    adopt_module_key_flags,
    declare_key_flag,
    disclaim_key_flags,
    override_value,
    set_default,
)
from scopeflow.platform.flags.parsers import (
    ArgumentParser,
    ArgumentSerializer,
    BaseListParser,
    BooleanParser,
    CsvListSerializer,
    EnumClassListSerializer,
    EnumClassParser,
    EnumClassSerializer,
    EnumParser,
    FloatParser,
    IntegerParser,
    ListParser,
    ListSerializer,
    WhitespaceSeparatedListParser,
)
from scopeflow.platform.flags.validators import (
    mark_bool_flags_as_mutual_exclusive,
    mark_flag_as_required,
    mark_flags_as_mutual_exclusive,
    mark_flags_as_required,
    multi_flags_validator,
    register_multi_flags_validator,
    register_validator,
    validator,
)

__all__ = [
    "FLAGS", "FlagValues", "Flag", "BooleanFlag", "EnumFlag", "EnumClassFlag", "MultiFlag",
    "MultiEnumClassFlag", "FlagHolder",
    "Error", "FlagsError", "CantOpenFlagFileError", "DuplicateFlagError",
    "IllegalFlagValueError", "UnrecognizedFlagError", "UnparsedFlagAccessError",
    "ValidationError", "FlagNameConflictsWithMethodError",
    "ArgumentParser", "BooleanParser", "FloatParser", "IntegerParser", "EnumParser",
    "EnumClassParser", "BaseListParser", "ListParser", "WhitespaceSeparatedListParser",
    "ArgumentSerializer", "ListSerializer", "CsvListSerializer", "EnumClassSerializer",
    "EnumClassListSerializer",
    "DEFINE", "DEFINE_flag", "DEFINE_alias", "DEFINE_multi", "DEFINE_string",
    "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool", "DEFINE_list",
    "DEFINE_spaceseplist", "DEFINE_enum", "DEFINE_enum_class", "DEFINE_multi_string",
    "DEFINE_multi_integer", "DEFINE_multi_float", "DEFINE_multi_enum",
    "DEFINE_multi_enum_class",
    "register_validator", "validator", "register_multi_flags_validator",
    "multi_flags_validator", "mark_flag_as_required", "mark_flags_as_required",
    "mark_flags_as_mutual_exclusive", "mark_bool_flags_as_mutual_exclusive",
    "declare_key_flag", "adopt_module_key_flags", "disclaim_key_flags",
    "override_value", "set_default", "flag_dict_to_args", "doc_to_help", "get_help_width",
    "text_wrap", "tf_decorator",
]



def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
