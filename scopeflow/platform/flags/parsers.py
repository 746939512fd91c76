"""absl's argument parsers (text to a flag's value) and serializers (value to text)."""

from __future__ import annotations

import csv
import enum
import io


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
