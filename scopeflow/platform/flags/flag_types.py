"""absl's ``Flag`` classes (one flag: its parser, value and default) and
``FlagHolder`` (what a ``DEFINE_*`` returns)."""

from __future__ import annotations

from scopeflow.platform.flags.errors import Error, IllegalFlagValueError
from scopeflow.platform.flags.parsers import (
    ArgumentSerializer,
    BooleanParser,
    EnumClassListSerializer,
    EnumClassParser,
    EnumClassSerializer,
    EnumParser,
)


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
