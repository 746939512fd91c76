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
"""

from __future__ import annotations

import csv
import enum
import inspect
import io
import logging
import os
import re
import shutil
import sys
import textwrap
import warnings

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.platform import tf_decorator

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


# -- errors ---------------------------------------------------------------------------------
class Error(Exception):
    """The base of the flag errors (absl's ``flags.Error``)."""


FlagsError = Error


class CantOpenFlagFileError(Error):
    """A ``--flagfile`` that cannot be read."""


class DuplicateFlagError(Error):
    """A flag name defined twice."""


class IllegalFlagValueError(Error):
    """A value the flag's parser or one of its validators rejects."""


class UnrecognizedFlagError(Error):
    """A command-line flag nobody defined (when not parsing ``known_only``)."""

    def __init__(self, flagname, flagvalue="", suggestions=()):
        self.flagname, self.flagvalue = flagname, flagvalue
        tip = f". Did you mean: {', '.join(suggestions)} ?" if suggestions else ""
        super().__init__(f"Unknown command line flag '{flagname}'{tip}")


class UnparsedFlagAccessError(Error):
    """absl's error for reading an unparsed flag; scopeflow parses instead, as TF's
    ``FLAGS`` wrapper does."""


class ValidationError(Error):
    """A validator's constraint is not met."""


class FlagNameConflictsWithMethodError(Error):
    """A flag named like a ``FlagValues`` method."""


# -- parsers --------------------------------------------------------------------------------
class ArgumentParser:
    """Turns a command-line string into a flag's value; this base keeps strings as is."""

    syntactic_help = ""

    def parse(self, argument):
        if not isinstance(argument, str):
            raise TypeError(f'flag value must be a string, found "{type(argument)}"')
        return argument

    def flag_type(self):
        return "string"

    def _custom_xml_dom_elements(self, doc):
        return []


class ArgumentSerializer:
    """Turns a flag's value back into its command-line string."""

    def serialize(self, value):
        return str(value)


class _NumericParser(ArgumentParser):
    """Numbers with optional bounds; the bound's wording is absl's."""

    number_article = number_name = ""

    def __init__(self, lower_bound=None, upper_bound=None):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        sh = f"{self.number_article} {self.number_name}"
        name = self.number_name
        if lower_bound is not None and upper_bound is not None:
            sh = f"{sh} in the range [{lower_bound}, {upper_bound}]"
        elif lower_bound == 1:
            sh = f"a positive {name}"
        elif upper_bound == -1:
            sh = f"a negative {name}"
        elif lower_bound == 0:
            sh = f"a non-negative {name}"
        elif upper_bound == 0:
            sh = f"a non-positive {name}"
        elif upper_bound is not None:
            sh = f"{name} <= {upper_bound}"
        elif lower_bound is not None:
            sh = f"{name} >= {lower_bound}"
        self.syntactic_help = sh

    def is_outside_bounds(self, val):
        return ((self.lower_bound is not None and val < self.lower_bound)
                or (self.upper_bound is not None and val > self.upper_bound))

    def parse(self, argument):
        val = self.convert(argument)
        if self.is_outside_bounds(val):
            raise ValueError(f"{val} is not {self.syntactic_help}")
        return val


class IntegerParser(_NumericParser):
    """Integers: decimal, ``0x`` hexadecimal or ``0o`` octal strings, or ints."""

    number_article, number_name = "an", "integer"

    def convert(self, argument):
        if type(argument) is not bool and isinstance(argument, int):
            return argument
        if isinstance(argument, str):
            base = 10
            if len(argument) > 2 and argument[0] == "0":
                base = {"o": 8, "x": 16}.get(argument[1], 10)
            return int(argument, base)
        raise TypeError(f"Expect argument to be a string or int, found {type(argument)}")

    def flag_type(self):
        return "int"


class FloatParser(_NumericParser):
    """Floats, from strings or real numbers."""

    number_article, number_name = "a", "number"

    def convert(self, argument):
        if ((type(argument) is not bool and isinstance(argument, (int, float)))
                or isinstance(argument, str)):
            return float(argument)
        raise TypeError(f"Expect argument to be a string, int, or float, found {type(argument)}")

    def flag_type(self):
        return "float"


class BooleanParser(ArgumentParser):
    """``true``/``t``/``1`` and ``false``/``f``/``0`` (any case), bools, 0 and 1."""

    def parse(self, argument):
        if isinstance(argument, str):
            low = argument.lower()
            if low in ("true", "t", "1"):
                return True
            if low in ("false", "f", "0"):
                return False
            raise ValueError("Non-boolean argument to boolean flag", argument)
        if isinstance(argument, int):
            value = bool(argument)
            if argument == value:
                return value
            raise ValueError("Non-boolean argument to boolean flag", argument)
        raise TypeError("Non-boolean argument to boolean flag", argument)

    def flag_type(self):
        return "bool"


class EnumParser(ArgumentParser):
    """One of a list of strings (optionally matched without regard to case)."""

    def __init__(self, enum_values, case_sensitive=True):
        if not enum_values:
            raise ValueError(f'enum_values cannot be empty, found "{enum_values}"')
        if isinstance(enum_values, str):
            raise ValueError(f'enum_values cannot be a str, found "{enum_values}"')
        self.enum_values = list(enum_values)
        self.case_sensitive = case_sensitive

    def parse(self, argument):
        expected = "|".join(self.enum_values)
        if self.case_sensitive:
            if argument not in self.enum_values:
                raise ValueError(f"value should be one of <{expected}>")
            return argument
        for value in self.enum_values:
            if value.upper() == str(argument).upper():
                return value
        raise ValueError(f"value should be one of <{expected}>")

    def flag_type(self):
        return "string enum"


class EnumClassParser(ArgumentParser):
    """A member of an ``enum.Enum`` class, given as the member or its name."""

    def __init__(self, enum_class, case_sensitive=True):
        if not issubclass(enum_class, enum.Enum):
            raise TypeError(f"{enum_class} is not a subclass of Enum.")
        if not enum_class.__members__:
            raise ValueError(f"enum_class cannot be empty, but {enum_class!r} is empty.")
        if not case_sensitive:
            lowered = [name.lower() for name in enum_class.__members__]
            if len(set(lowered)) != len(lowered):
                dupes = {n for n in lowered if lowered.count(n) > 1}
                raise ValueError(f"Duplicate enum values for {dupes} using "
                                 "case_sensitive=False")
        self.enum_class, self._case_sensitive = enum_class, case_sensitive
        names = list(enum_class.__members__)
        self._member_names = names if case_sensitive else [n.lower() for n in names]

    @property
    def member_names(self):
        return list(self._member_names)

    def parse(self, argument):
        if isinstance(argument, self.enum_class):
            return argument
        if not isinstance(argument, str):
            raise ValueError(f"{argument} is not an enum member or a name of a member in "
                             f"{self.enum_class}")
        key = EnumParser(self._member_names, case_sensitive=self._case_sensitive).parse(argument)
        if self._case_sensitive:
            return self.enum_class[key]
        return next(m for n, m in self.enum_class.__members__.items() if n.lower() == key)

    def flag_type(self):
        return "enum class"


class BaseListParser(ArgumentParser):
    """Lists split at ``token`` (``None``: any whitespace)."""

    def __init__(self, token=None, name=None):
        self._token, self._name = token, name
        self.syntactic_help = f"a {name} separated list"

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        return [s.strip() for s in argument.split(self._token)]

    def flag_type(self):
        return f"{self._name} separated list of strings"


class ListParser(BaseListParser):
    """Comma-separated lists, read as CSV (so quoted items may hold commas)."""

    def __init__(self):
        super().__init__(",", "comma")

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        try:
            return [s.strip() for s in list(csv.reader([argument], strict=True))[0]]
        except csv.Error as e:
            raise ValueError(f"Unable to parse the value {argument!r} as a "
                             f"{self.flag_type()}: {e}") from None


class WhitespaceSeparatedListParser(BaseListParser):
    """Whitespace-separated lists (and comma-separated too with ``comma_compat``)."""

    def __init__(self, comma_compat=False):
        self._comma_compat = comma_compat
        name = "whitespace or comma" if comma_compat else "whitespace"
        super().__init__(None, name)

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        if self._comma_compat:
            argument = argument.replace(",", " ")
        return argument.split()


class ListSerializer(ArgumentSerializer):
    """A list as its items joined by ``list_sep``."""

    def __init__(self, list_sep):
        self.list_sep = list_sep

    def serialize(self, value):
        return self.list_sep.join(str(x) for x in value)


class CsvListSerializer(ListSerializer):
    """A list as one CSV row (items holding the separator are quoted)."""

    def serialize(self, value):
        out = io.StringIO()
        csv.writer(out, delimiter=self.list_sep).writerow([str(x) for x in value])
        return str(out.getvalue().strip())


class EnumClassSerializer(ArgumentSerializer):
    """An enum member as its name (lowercased for case-insensitive flags)."""

    def __init__(self, lowercase):
        self._lowercase = lowercase

    def serialize(self, value):
        text = str(value.name)
        return text.lower() if self._lowercase else text


class EnumClassListSerializer(ListSerializer):
    """A list of enum members as their names joined by ``list_sep``."""

    def __init__(self, list_sep, **kwargs):
        super().__init__(list_sep)
        self._element_serializer = EnumClassSerializer(**kwargs)

    def serialize(self, value):
        if isinstance(value, list):
            return self.list_sep.join(self._element_serializer.serialize(x) for x in value)
        return self._element_serializer.serialize(value)


# -- flags ----------------------------------------------------------------------------------
class Flag:
    """One flag: its parser, serializer, name, default, value, help and validators."""

    def __init__(self, parser, serializer, name, default, help_string, short_name=None,
                 boolean=False, allow_override=False, allow_override_cpp=False,
                 allow_hide_cpp=False, allow_overwrite=True, allow_using_method_names=False):
        self.name, self.short_name = name, short_name
        self.help = help_string if help_string else "(no help available)"
        self.parser, self.serializer, self.boolean = parser, serializer, boolean
        self.present = 0
        self.allow_override, self.allow_override_cpp = allow_override, allow_override_cpp
        self.allow_hide_cpp, self.allow_overwrite = allow_hide_cpp, allow_overwrite
        self.allow_using_method_names = allow_using_method_names
        self.using_default_value = True
        self._value = None
        self.validators = []
        if allow_hide_cpp and allow_override_cpp:
            raise Error("Can't have both allow_hide_cpp (means use Python flag) and "
                        "allow_override_cpp (means use C++ flag after InitGoogle)")
        self._set_default(default)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, value):
        self._value = value

    def __hash__(self):
        return hash(id(self))

    def __eq__(self, other):
        return self is other

    def __lt__(self, other):
        if isinstance(other, Flag):
            return id(self) < id(other)
        return NotImplemented

    def __bool__(self):
        raise TypeError("A Flag instance would always be True. Did you mean to test the "
                        "`.value` attribute?")

    def _get_parsed_value_as_string(self, value):
        if self.boolean:
            return repr("true" if value else "false")
        if value is None:
            return None
        return repr(str(self.serializer.serialize(value) if self.serializer else value))

    def parse(self, argument):
        """Sets the value from ``argument`` (a string or a value of the flag's type)."""
        if self.present and not self.allow_overwrite:
            raise IllegalFlagValueError(
                f"flag --{self.name}={argument}: already defined as {self.value}")
        self.value = self._parse(argument)
        self.present += 1

    def _parse(self, argument):
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError, OverflowError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {e}") from None

    def unparse(self):
        self.value = self.default
        self.using_default_value = True
        self.present = 0

    def serialize(self):
        """The flag as a command-line argument (``''`` when its value is None)."""
        return self._serialize(self.value)

    def _serialize(self, value):
        if value is None:
            return ""
        if self.boolean:
            return f"--{self.name}" if value else f"--no{self.name}"
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        return f"--{self.name}={self.serializer.serialize(value)}"

    def _set_default(self, value):
        self.default_unparsed = value
        self.default = None if value is None else self._parse_from_default(value)
        self.default_as_str = self._get_parsed_value_as_string(self.default)
        if self.using_default_value:
            self.value = self.default

    def _parse_from_default(self, value):
        return self._parse(value)

    def flag_type(self):
        return self.parser.flag_type()


class BooleanFlag(Flag):
    """A flag set by ``--name``, cleared by ``--noname``."""

    def __init__(self, name, default, help, short_name=None, **args):  # noqa: A002
        super().__init__(BooleanParser(), None, name, default, help, short_name, True, **args)


class EnumFlag(Flag):
    """A string flag whose value is one of ``enum_values``."""

    def __init__(self, name, default, help, enum_values, short_name=None,  # noqa: A002
                 case_sensitive=True, **args):
        parser = EnumParser(enum_values, case_sensitive)
        super().__init__(parser, ArgumentSerializer(), name, default, help, short_name, **args)
        self.help = f"<{'|'.join(parser.enum_values)}>: {self.help}"

    def _custom_xml_dom_elements(self, doc):
        return []


class EnumClassFlag(Flag):
    """A flag whose value is a member of ``enum_class``."""

    def __init__(self, name, default, help, enum_class, short_name=None,  # noqa: A002
                 case_sensitive=False, **args):
        parser = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        serializer = EnumClassSerializer(lowercase=not case_sensitive)
        super().__init__(parser, serializer, name, default, help, short_name, **args)
        self.help = f"<{'|'.join(parser.member_names)}>: {self.help}"


class MultiFlag(Flag):
    """A flag given any number of times; its value is the list of the values."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help += ";\n    repeat this option to specify a list of values"

    def parse(self, arguments):
        new_values = self._parse(arguments)
        if self.present:
            self.value.extend(new_values)
        else:
            self.value = new_values
        self.present += len(new_values)

    def _parse(self, arguments):
        if isinstance(arguments, (list, tuple, set, frozenset)) or (
                not isinstance(arguments, (str, bytes)) and hasattr(arguments, "__iter__")):
            arguments = list(arguments)
        if not isinstance(arguments, list):
            arguments = [arguments]
        return [super(MultiFlag, self)._parse(item) for item in arguments]

    def _serialize(self, value):
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        if value is None:
            return ""
        return "\n".join(super(MultiFlag, self)._serialize(item) for item in value)

    def flag_type(self):
        return "multi " + self.parser.flag_type()


class MultiEnumClassFlag(MultiFlag):
    """A multi flag of ``enum_class`` members."""

    def __init__(self, name, default, help_string, enum_class,  # noqa: A002
                 case_sensitive=False, **args):
        parser = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        serializer = EnumClassListSerializer(",", lowercase=not case_sensitive)
        super().__init__(parser, serializer, name, default, help_string, **args)
        self.help = (f"<{'|'.join(parser.member_names)}>: {help_string}" if help_string else
                     f"<{'|'.join(parser.member_names)}>: (no help available)")
        self.help += ";\n    repeat this option to specify a list of values"

    def _serialize(self, value):
        if value is None:
            return ""
        return "\n".join(f"--{self.name}={self.serializer.serialize(v)}" for v in value)


class _FlagAlias(Flag):
    """``DEFINE_alias``'s flag: reads and writes go to the original flag."""

    def __init__(self, original, name):
        object.__setattr__(self, "_original", original)
        super().__init__(original.parser, original.serializer, name, original.default,
                         f"Alias for --{original.name}.", boolean=original.boolean)

    def parse(self, argument):
        self._original.parse(argument)
        self._original.using_default_value = False
        self.present += 1

    def _parse_from_default(self, value):
        return value

    @property
    def value(self):
        return self._original.value

    @value.setter
    def value(self, value):
        self._original.value = value


class FlagHolder:
    """What ``DEFINE_*`` returns: ``.value`` reads the flag from its ``FlagValues``."""

    def __init__(self, flag_values, flag, ensure_non_none_value=False):
        self._flagvalues, self._name = flag_values, flag.name
        self._ensure_non_none_value = ensure_non_none_value
        self._present = None

    def __eq__(self, other):
        raise TypeError(f"unsupported operand type(s) for ==: '{type(self).__name__}' and "
                        f"'{type(other).__name__}' (did you mean to use '{type(self).__name__}"
                        ".value' instead?)")

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(f"bool() not supported for instances of type '{type(self).__name__}' "
                        f"(did you mean to use '{type(self).__name__}.value' instead?)")

    __nonzero__ = __bool__

    @property
    def name(self):
        return self._name

    @property
    def value(self):
        val = getattr(self._flagvalues, self._name)
        if self._ensure_non_none_value and val is None:
            raise IllegalFlagValueError(f"Unexpected None value for flag {self._name}")
        return val

    @property
    def default(self):
        return self._flagvalues[self._name].default

    @property
    def present(self):
        return bool(self._flagvalues[self._name].present)

    def serialize(self):
        return self._flagvalues[self._name].serialize()


# -- the registry ---------------------------------------------------------------------------
_SPECIAL_FLAGS = ("flagfile", "undefok")


class FlagValues:
    """The registry of flags and their values; ``FLAGS`` is the process's one.

    ``flag_values(argv, known_only=False)`` parses ``argv`` (``argv[0]`` is the program),
    runs every validator, and returns ``argv[0]`` with the arguments left over."""

    def __init__(self):
        d = self.__dict__
        d["_flag_dict"] = {}
        d["_parsed"] = False
        d["_key_flags_by_module"] = {}
        d["_flags_by_module"] = {}
        d["_validator_count"] = 0
        d["_gnu_getopt"] = True
        d["_banned_flag_names"] = frozenset(
            n for n in dir(FlagValues) if not n.startswith("_"))

    def _flags(self):
        return self.__dict__["_flag_dict"]

    # -- declaring ------------------------------------------------------------------------
    def __setitem__(self, name, flag):
        """Registers ``flag`` as ``name`` (and its short name)."""
        fl = self._flags()
        if not isinstance(flag, Flag):
            raise IllegalFlagValueError(
                f"Expect Flag instances, found type {type(flag)}. Maybe you didn't mean to "
                "use FlagValue.__setitem__?")
        if not isinstance(name, str):
            raise Error("Flag name must be a string")
        if not name:
            raise Error("Flag name cannot be empty")
        if " " in name:
            raise Error("Flag name cannot contain a space")
        self._check_method_name_conflicts(name, flag)
        if name in fl and not flag.allow_override and not fl[name].allow_override:
            module = _calling_module()
            raise DuplicateFlagError(
                f"The flag '{name}' is defined twice. First from {self._module_of(fl[name])}, "
                f"second from {module}. Description from first occurrence: {fl[name].help}")
        short_name = flag.short_name
        if short_name is not None:
            if (short_name in fl and not flag.allow_override
                    and not fl[short_name].allow_override):
                raise DuplicateFlagError(
                    f"The flag '{short_name}' is defined twice.  Description from first "
                    f"occurrence: {fl[short_name].help}")
            fl[short_name] = flag
        fl[name] = flag

    def _check_method_name_conflicts(self, name, flag):
        if flag.allow_using_method_names:
            return
        names = {name} if flag.short_name is None else {name, flag.short_name}
        for flag_name in sorted(names):
            if flag_name in self.__dict__["_banned_flag_names"]:
                raise FlagNameConflictsWithMethodError(
                    f'Cannot define a flag named "{flag_name}". It conflicts with a method on '
                    f'class "{type(self).__name__}". To allow defining it, use '
                    f"allow_using_method_names and access the flag value with "
                    f"FLAGS['{flag_name}'].value. FLAGS.{flag_name} returns the method, not "
                    "the flag value.")

    def register_flag_by_module(self, module_name, flag):
        self.__dict__["_flags_by_module"].setdefault(module_name, []).append(flag)

    def register_key_flag_for_module(self, module_name, flag):
        key_flags = self.__dict__["_key_flags_by_module"].setdefault(module_name, [])
        if flag not in key_flags:
            key_flags.append(flag)

    def flags_by_module_dict(self):
        return self.__dict__["_flags_by_module"]

    def key_flags_by_module_dict(self):
        return self.__dict__["_key_flags_by_module"]

    def get_key_flags_for_module(self, module):
        name = module if isinstance(module, str) else module.__name__
        key = list(self.__dict__["_flags_by_module"].get(name, []))
        for flag in self.__dict__["_key_flags_by_module"].get(name, []):
            if flag not in key:
                key.append(flag)
        return key

    def _module_of(self, flag):
        for module, flags in self.__dict__["_flags_by_module"].items():
            if flag in flags:
                return module
        return "<unknown>"

    # -- reading and writing --------------------------------------------------------------
    def __getattr__(self, name):
        fl = self._flags()
        if name not in fl:
            raise AttributeError(name)
        if not (self.__dict__["_parsed"] or fl[name].present):
            # TF1's FLAGS wrapper: parse on the first read (every FlagValues here, as
            # scopeflow always has; absl would raise UnparsedFlagAccessError for others)
            self(sys.argv, known_only=True)
        return fl[name].value

    def __setattr__(self, name, value):
        """Sets a flag's value, then runs its validators (absl's order)."""
        fl = self._flags()
        if name not in fl:
            raise AttributeError(name)
        flag, old = fl[name], fl[name].value
        flag.value = value
        try:
            self._assert_validators(flag.validators)
        except Exception:
            flag.value = old  # absl restores the value a validator rejects
            raise
        flag.using_default_value = False

    def __getitem__(self, name):
        return self._flags()[name]

    def __contains__(self, name):
        return name in self._flags()

    def __iter__(self):
        return iter(self._flags())

    def __len__(self):
        return len(self._flags())

    def __delattr__(self, flag_name):
        fl = self._flags()
        if flag_name not in fl:
            raise AttributeError(flag_name)
        flag = fl.pop(flag_name)
        if flag.short_name is not None and flag.short_name != flag_name:
            fl.pop(flag.short_name, None)
        if flag.name != flag_name:
            fl.pop(flag.name, None)
        for registry in (self.__dict__["_flags_by_module"],
                         self.__dict__["_key_flags_by_module"]):
            for flags in registry.values():
                while flag in flags:
                    flags.remove(flag)

    def __dir__(self):
        return sorted(self._flags())

    def is_parsed(self):
        return self.__dict__["_parsed"]

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        """Back to the defaults, unparsed."""
        for flag in self._flags().values():
            flag.unparse()
        self.__dict__["_parsed"] = False

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags().items()}

    def get_flag_value(self, name, default):
        value = self.__getattr__(name) if name in self._flags() else default
        return value if value is not None else default

    def set_default(self, name, value):
        """Changes ``name``'s default (and its value while it holds the default)."""
        fl = self._flags()
        if name not in fl:
            raise UnrecognizedFlagError(name, value)
        fl[name]._set_default(value)
        self._assert_validators(fl[name].validators)

    # -- validation -----------------------------------------------------------------------
    def _add_validator(self, v):
        v.insertion_index = self.__dict__["_validator_count"]
        self.__dict__["_validator_count"] += 1
        for name in v.get_flags_names():
            self[name].validators.append(v)

    def validate_all_flags(self):
        all_validators = set()
        for flag in self._flags().values():
            all_validators.update(flag.validators)
        self._assert_validators(all_validators)

    def _assert_validators(self, validators):
        messages, bad_flags = [], set()
        for v in sorted(validators, key=lambda v: v.insertion_index):
            names = set(v.get_flags_names())
            if not names.isdisjoint(bad_flags):
                continue
            try:
                v.verify(self)
            except ValidationError as e:
                bad_flags.update(names)
                messages.append(f"{v.print_flags_with_values(self)}: {e}")
        if messages:
            raise IllegalFlagValueError("\n".join(messages))

    # -- parsing --------------------------------------------------------------------------
    def __call__(self, argv, known_only=False):
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        argv = list(argv)
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element.")
        program, args = argv[0], self.read_flags_from_files(argv[1:], force_gnu=False)
        unknown, unparsed = self._parse_args(args, known_only)
        for name, value in unknown:
            suggestions = _suggestions(name, list(self._flags()))
            raise UnrecognizedFlagError(name, value, suggestions=suggestions)
        self.mark_as_parsed()
        self.validate_all_flags()
        return [program] + unparsed

    def _parse_args(self, args, known_only):
        pending, unparsed, undefok = [], [], set()
        fl = self._flags()
        args = iter(args)
        for arg in args:
            value = None

            def next_value(arg=arg):
                try:
                    return next(args)
                except StopIteration:
                    raise Error("Missing value for flag " + arg) from None

            if not arg.startswith("-"):
                unparsed.append(arg)
                if self.__dict__["_gnu_getopt"]:
                    continue
                break  # without GNU getopt, the first positional ends the flags
            if arg == "--":
                if known_only:
                    unparsed.append(arg)
                break
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, eq, text = body.partition("=")
            if eq:
                value = text
            if not name:
                unparsed.append(arg)
                continue
            flag = fl.get(name)
            if flag is not None:
                if flag.boolean and value is None:
                    value = "true"
                elif value is None:
                    value = next_value()
            elif name.startswith("no") and len(name) > 2:
                noflag = fl.get(name[2:])
                if noflag is not None and noflag.boolean:
                    if value is not None:
                        raise ValueError(arg + " does not take an argument")
                    flag, value = noflag, "false"
            if name == "undefok" and flag is None:  # unknown flags it names are dropped
                undefok.update((value if value is not None else next_value()).split(","))
                continue
            if name == "flagfile" and flag is None:
                continue  # already expanded by read_flags_from_files
            if flag is not None:
                flag.parse(value)
                flag.using_default_value = False
            else:
                pending.append((name, arg, len(unparsed) if known_only else None))
                if known_only:
                    unparsed.append(arg)
        unparsed.extend(args)

        def allowed(name):
            return name in undefok or (name.startswith("no") and name[2:] in undefok)
        dropped = {pos for name, _, pos in pending if pos is not None and allowed(name)}
        unparsed = [a for i, a in enumerate(unparsed) if i not in dropped]
        unknown = [(name, arg) for name, arg, pos in pending if pos is None and not allowed(name)]
        return unknown, unparsed

    def read_flags_from_files(self, argv, force_gnu=True):
        """``argv`` with each ``--flagfile=path`` replaced by that file's flags."""
        return self._expand_flagfiles(list(argv), [])

    def _expand_flagfiles(self, argv, seen):
        out, it = [], iter(argv)
        for arg in it:
            if arg == "--":
                out.append(arg)
                out.extend(it)
                break
            path = None
            if arg.startswith(("--flagfile=", "-flagfile=")):
                path = os.path.expanduser(arg.split("=", 1)[1].strip())
            elif arg in ("--flagfile", "-flagfile"):
                try:
                    path = os.path.expanduser(next(it).strip())
                except StopIteration:
                    raise IllegalFlagValueError(
                        "--flagfile with no argument") from None
            if path is None:
                out.append(arg)
                continue
            if path in seen:
                continue  # absl skips a file already being read (a loop)
            out.extend(self._expand_flagfiles(self._get_flagfile_lines(path), seen + [path]))
        return out

    def _get_flagfile_lines(self, filename):
        try:
            with open(filename) as f:
                lines = f.readlines()
        except OSError as e:
            raise CantOpenFlagFileError(f"ERROR:: Unable to open flagfile: {e}") from None
        result = []
        for line in lines:
            line = line.strip()
            if not line or line.startswith(("#", "//")):
                continue
            result.append(line)
        return result

    def flags_into_string(self):
        """Every flag as ``--name=value`` lines, as a flagfile would hold them."""
        seen, lines = set(), []
        for name in sorted(self._flags()):
            flag = self._flags()[name]
            if id(flag) in seen or flag.value is None:
                continue
            seen.add(id(flag))
            text = flag.serialize()
            if text:
                lines.append(text + "\n")
        return "".join(lines)

    def append_flags_into_file(self, filename):
        with open(filename, "a") as f:
            f.write(self.flags_into_string())

    def set_gnu_getopt(self, gnu_getopt=True):
        """Whether flags may follow positional arguments (absl's default: yes)."""
        self.__dict__["_gnu_getopt"] = gnu_getopt

    def is_gnu_getopt(self):
        return self.__dict__["_gnu_getopt"]

    def append_flag_values(self, flag_values):
        """Registers every flag of another ``FlagValues`` here too."""
        for name, flag in flag_values._flags().items():
            if name == flag.name:
                self[name] = flag

    def remove_flag_values(self, flag_values):
        """Removes the flags another ``FlagValues`` defines."""
        for name in list(flag_values):
            if name in self._flags():
                self.__delattr__(name)

    def find_module_defining_flag(self, flagname, default=None):
        """The name of the module that defined ``flagname`` (``default`` if unknown)."""
        flag = self._flags().get(flagname)
        if flag is None:
            return default
        for module, flags in self.__dict__["_flags_by_module"].items():
            if any(f.name == flag.name for f in flags):
                return module
        return default

    def get_flags_for_module(self, module):
        name = module if isinstance(module, str) else module.__name__
        return list(self.__dict__["_flags_by_module"].get(name, []))

    # -- help ---------------------------------------------------------------------------
    def _render_flags(self, flags, lines, prefix="  "):
        """absl's layout: sorted by name, ``-short,--[no]name: help`` then the default and
        the parser's syntax, wrapped to the help width."""
        width = get_help_width()
        for flag in sorted(set(flags), key=lambda f: f.name):
            text = f"-{flag.short_name}," if flag.short_name else ""
            text += f"--[no]{flag.name}:" if flag.boolean else f"--{flag.name}:"
            text += f" {flag.help}"
            if flag.default_as_str:
                text += f"\n(default: {flag.default_as_str})"
            if flag.parser.syntactic_help:
                text += f"\n({flag.parser.syntactic_help})"
            lines.append(text_wrap(text, width, prefix + "  ", prefix))

    def _render_module(self, module, flags, lines, prefix=""):
        if flags:
            lines.append(f"\n{prefix}{module}:")
            self._render_flags(flags, lines, prefix + "  ")

    def get_help(self, prefix="", include_special_flags=True):
        """Help on every flag, grouped by defining module (the main program's first)."""
        lines = []
        by_module = self.__dict__["_flags_by_module"]
        if by_module:
            modules = sorted(by_module)
            main = sys.argv[0] if sys.argv else None
            if main in modules:
                modules.remove(main)
                modules.insert(0, main)
            for module in modules:
                self._render_module(module, self.get_key_flags_for_module(module), lines,
                                    prefix)
            if include_special_flags:
                self._render_module("absl.flags", _special_flags(), lines, prefix)
        else:
            flags = list(self._flags().values())
            if include_special_flags:
                flags += _special_flags()
            self._render_flags(flags, lines, prefix)
        return "\n".join(lines)

    def module_help(self, module):
        """Help on ``module``'s key flags (``''`` when it has none)."""
        name = module if isinstance(module, str) else module.__name__
        lines = []
        self._render_module(name, self.get_key_flags_for_module(name), lines)
        return "\n".join(lines)

    def main_module_help(self):
        """Help on the main program's (``sys.argv[0]``'s) key flags."""
        return self.module_help(sys.argv[0] if sys.argv else "__main__")

    def __str__(self):
        return self.get_help()


_SPECIAL = []


def _special_flags():
    """absl's ``--flagfile`` and ``--undefok``, as help shows them."""
    if not _SPECIAL:
        _SPECIAL.extend([
            Flag(ArgumentParser(), ArgumentSerializer(), "flagfile", "",
                 "Insert flag definitions from the given file into the command line."),
            Flag(ArgumentParser(), ArgumentSerializer(), "undefok", "",
                 "comma-separated list of flag names that it is okay to specify on the "
                 "command line even if the program does not define a flag with that name.  "
                 "IMPORTANT: flags in this list that have arguments MUST use the "
                 "--flag=value format."),
        ])
    return _SPECIAL


def _damerau_levenshtein(a, b):
    """Edit distance counting adjacent transpositions (absl's suggestion metric)."""
    d = {}
    for i in range(-1, len(a) + 1):
        d[i, -1] = i + 1
    for j in range(-1, len(b) + 1):
        d[-1, j] = j + 1
    for i, ca in enumerate(a):
        for j, cb in enumerate(b):
            cost = 0 if ca == cb else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
            if i and j and ca == b[j - 1] and a[i - 1] == cb:
                d[i, j] = min(d[i, j], d[i - 2, j - 2] + cost)
    return d[len(a) - 1, len(b) - 1]


def _suggestions(attempt, names):
    """The defined names nearest ``attempt`` (absl: within half its length)."""
    if len(attempt) <= 2 or not names:
        return []
    distances = sorted((_damerau_levenshtein(attempt, n[:len(attempt)]), n) for n in names)
    least = distances[0][0]
    if least >= 0.5 * len(attempt):
        return []
    return [n for d, n in distances if d == least]


def _calling_module():
    """The name of the module whose code called into the flags (absl's rule: the first
    frame outside this module and the modules that disclaimed their flags, whose globals
    are a loaded module's; ``__main__`` is named by ``sys.argv[0]``)."""
    skipped = {__name__, "scopeflow.platform.app", tf_decorator.__name__} | _DISCLAIMED_MODULES
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        module = sys.modules.get(name) if name else None
        if (module is not None and getattr(module, "__dict__", None) is frame.f_globals
                and name not in skipped):
            return sys.argv[0] if name == "__main__" and sys.argv else name
        frame = frame.f_back
    return "<unknown>"


FLAGS = FlagValues()


# -- validators -----------------------------------------------------------------------------
class _SingleFlagValidator:
    """``checker(value)`` of one flag; falsy or ``ValidationError`` fails."""

    def __init__(self, flag_name, checker, message):
        self.flag_name, self.checker, self.message = flag_name, checker, message
        self.insertion_index = 0

    def verify(self, flag_values):
        if not self.checker(flag_values[self.flag_name].value):
            raise ValidationError(self.message)

    def get_flags_names(self):
        return [self.flag_name]

    def print_flags_with_values(self, flag_values):
        return f"flag --{self.flag_name}={flag_values[self.flag_name].value}"


class _MultiFlagsValidator(_SingleFlagValidator):
    """``checker({name: value})`` of several flags."""

    def __init__(self, flag_names, checker, message):
        super().__init__(None, checker, message)
        self.flag_names = list(flag_names)

    def verify(self, flag_values):
        if not self.checker({k: flag_values[k].value for k in self.flag_names}):
            raise ValidationError(self.message)

    def get_flags_names(self):
        return self.flag_names

    def print_flags_with_values(self, flag_values):
        return "flags " + ", ".join(f"{k}={flag_values[k].value}" for k in self.flag_names)


def _resolve_flag_ref(flag_ref, flag_values):
    if isinstance(flag_ref, FlagHolder):
        if flag_values is not FLAGS and flag_values is not flag_ref._flagvalues:
            raise ValueError("flag_values must not be customized when operating on a "
                             "FlagHolder")
        return flag_ref.name, flag_ref._flagvalues
    return flag_ref, flag_values


def _resolve_flag_refs(flag_refs, flag_values):
    names, fv = [], None
    for ref in flag_refs:
        name, this_fv = _resolve_flag_ref(ref, flag_values)
        if fv is not None and this_fv is not fv:
            raise ValueError("multiple FlagValues instances used in invocation. FlagHolders "
                             "must be registered to the same FlagValues instance as do "
                             "flag_values, if provided.")
        fv = this_fv
        names.append(name)
    if fv is None:
        raise ValueError("flag_refs argument must not be empty")
    return names, fv


def register_validator(flag_name, checker, message="Flag validation failed",
                       flag_values=FLAGS):
    """Adds ``checker(value)`` to ``flag_name``'s checks (run at parse and on assignment)."""
    name, fv = _resolve_flag_ref(flag_name, flag_values)
    fv._add_validator(_SingleFlagValidator(name, checker, message))


def validator(flag_name, message="Flag validation failed", flag_values=FLAGS):
    """``register_validator`` as a decorator."""
    def decorate(function):
        register_validator(flag_name, function, message=message, flag_values=flag_values)
        return function
    return decorate


def register_multi_flags_validator(flag_names, multi_flags_checker,
                                   message="Flags validation failed", flag_values=FLAGS):
    """Adds ``checker({name: value})`` over several flags."""
    names, fv = _resolve_flag_refs(flag_names, flag_values)
    fv._add_validator(_MultiFlagsValidator(names, multi_flags_checker, message))


def multi_flags_validator(flag_names, message="Flag validation failed", flag_values=FLAGS):
    """``register_multi_flags_validator`` as a decorator."""
    def decorate(function):
        register_multi_flags_validator(flag_names, function, message=message,
                                       flag_values=flag_values)
        return function
    return decorate


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing fails unless ``flag_name`` ends up with a value other than None."""
    name, fv = _resolve_flag_ref(flag_name, flag_values)
    if fv[name].default is not None:
        warnings.warn(f"Flag --{name} has a non-None default value; therefore, "
                      "mark_flag_as_required will pass even if flag is not specified in the "
                      "command line!", stacklevel=2)
    register_validator(name, lambda value: value is not None,
                       message=f"Flag --{name} must have a value other than None.",
                       flag_values=fv)


def mark_flags_as_required(flag_names, flag_values=FLAGS):
    """``mark_flag_as_required`` for each name."""
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


def mark_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most (``required``: exactly) one of the flags may be other than None."""
    names, fv = _resolve_flag_refs(flag_names, flag_values)
    for name in names:
        if fv[name].default is not None:
            warnings.warn(f"Flag --{name} has a non-None default value. That does not make "
                          "sense with mark_flags_as_mutual_exclusive, which checks whether "
                          "the listed flags have a value other than None.", stacklevel=2)

    def check(flags_dict):
        count = sum(1 for v in flags_dict.values() if v is not None)
        if count == 1 or (not required and count == 0):
            return True
        raise ValidationError(f"{'Exactly' if required else 'At most'} one of "
                              f"({', '.join(names)}) must have a value other than None.")
    register_multi_flags_validator(names, check, flag_values=fv)


def mark_bool_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most (``required``: exactly) one of the boolean flags may be True."""
    names, fv = _resolve_flag_refs(flag_names, flag_values)
    for name in names:
        if not fv[name].boolean:
            raise ValidationError(f"Flag --{name} is not Boolean, which is required for flags "
                                  "used in mark_bool_flags_as_mutual_exclusive.")

    def check(flags_dict):
        count = sum(bool(v) for v in flags_dict.values())
        if count == 1 or (not required and count == 0):
            return True
        raise ValidationError(f"{'Exactly' if required else 'At most'} one of "
                              f"({', '.join(names)}) must be True.")
    register_multi_flags_validator(names, check, flag_values=fv)


def _register_bounds_validator_if_needed(parser, name, flag_values):
    if parser.lower_bound is None and parser.upper_bound is None:
        return

    def checker(value):
        if value is not None and parser.is_outside_bounds(value):
            raise ValidationError(f"{value} is not {parser.syntactic_help}")
        return True
    register_validator(name, checker, flag_values=flag_values)


# -- defining flags -------------------------------------------------------------------------
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


# -- key flags ------------------------------------------------------------------------------
_DISCLAIMED_MODULES = set()


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


# -- help helpers ---------------------------------------------------------------------------
def get_help_width():
    """The terminal's width for help text (80 when not a terminal)."""
    if not sys.stdout.isatty():
        return 80
    columns = shutil.get_terminal_size((0, 0)).columns
    if columns >= 40:
        return columns
    try:
        return int(os.getenv("COLUMNS", "80"))
    except ValueError:
        return 80


def text_wrap(text, length=None, indent="", firstline_indent=None):
    """Wraps each paragraph of ``text`` to ``length`` with the given indents."""
    if length is None:
        length = get_help_width()
    if indent is None:
        indent = ""
    if firstline_indent is None:
        firstline_indent = indent
    if len(indent) >= length:
        raise ValueError("Length of indent exceeds length")
    if len(firstline_indent) >= length:
        raise ValueError("Length of first line indent exceeds length")
    text = text.expandtabs(4)
    result = []
    wrapper = textwrap.TextWrapper(width=length, initial_indent=firstline_indent,
                                   subsequent_indent=indent)
    rest = textwrap.TextWrapper(width=length, initial_indent=indent, subsequent_indent=indent)
    for paragraph in (p.strip() for p in text.splitlines()):
        if paragraph:
            result.extend(wrapper.wrap(paragraph))
        else:
            result.append("")
        wrapper = rest
    return "\n".join(result)


def doc_to_help(doc):
    """A docstring as help text: trimmed, dedented, paragraphs joined into lines."""
    doc = doc.strip()
    doc = re.sub(r"^[ \t]+$", "", doc, flags=re.M)
    doc = inspect.cleandoc(doc)
    return re.sub(r"(?<=\S)\n(?=\S)", " ", doc, flags=re.M)


def flag_dict_to_args(flag_map, multi_flags=None):
    """Yields command-line arguments for ``{name: value}`` (absl's spelling rules)."""
    for key, value in flag_map.items():
        if value is None:
            yield f"--{key}"
        elif isinstance(value, bool):
            yield f"--{key}" if value else f"--no{key}"
        elif isinstance(value, (bytes, str)):
            yield f"--{key}={value}"
        else:
            try:
                if multi_flags and key in multi_flags:
                    for item in value:
                        yield f"--{key}={item}"
                else:
                    yield f"--{key}={','.join(str(item) for item in value)}"
            except TypeError:
                yield f"--{key}={value}"


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
