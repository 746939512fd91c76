"""``tf.flags`` and ``tf.app.flags``: TF1's command-line flags (absl's), built on argparse.

``DEFINE_string("data_dir", "/tmp", "help")`` declares ``--data_dir``; ``FLAGS.data_dir``
reads it. As in TF1, the first read of a flag parses ``sys.argv`` (the flags it knows; the
rest is left alone), and ``tf.app.run()`` parses before calling ``main``. The command line
follows absl: ``--name=value`` or ``--name value``, booleans as ``--name``, ``--noname`` or
``--name=false``, lists comma-separated, ``--`` ending the flags.

>>> fv = FlagValues()
>>> DEFINE_integer("steps", 10, "How many steps.", flag_values=fv)
>>> DEFINE_boolean("fast", False, "Go fast.", flag_values=fv)
>>> fv(["prog", "--steps=5", "--fast", "rest"])
['prog', 'rest']
>>> fv.steps, fv.fast
(5, True)
"""

from __future__ import annotations

import argparse
import sys

from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["FLAGS", "FlagValues", "Flag", "Error", "FlagsError", "DuplicateFlagError",
           "IllegalFlagValueError", "UnrecognizedFlagError", "UnparsedFlagAccessError",
           "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool",
           "DEFINE_list", "DEFINE_enum", "DEFINE_multi_string", "DEFINE_multi_integer",
           "DEFINE_multi_float"]


class Error(Exception):
    """The base of the flag errors (absl's ``flags.Error``)."""


FlagsError = Error


class DuplicateFlagError(Error):
    """A flag name defined twice."""


class IllegalFlagValueError(Error):
    """A value the flag's parser rejects."""


class UnrecognizedFlagError(Error):
    """A command-line flag nobody defined (when not parsing ``known_only``)."""


class UnparsedFlagAccessError(Error):
    """Never raised here: as TF1's wrapper, a read before parsing parses ``sys.argv``."""


_TRUE = ("true", "t", "1", "yes", "y")
_FALSE = ("false", "f", "0", "no", "n")


def _parse_bool(text):
    if isinstance(text, bool):
        return text
    low = str(text).lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError("Non-boolean argument to boolean flag")


def _parse_list(text):
    if isinstance(text, (list, tuple)):
        return list(text)
    text = str(text).strip()
    return [s.strip() for s in text.split(",")] if text else []


class Flag:
    """One flag: its name, parser, default, value and help (absl's ``Flag``, reduced)."""

    def __init__(self, name, default, help, parse, flag_type, *, multi=False, bounds=None,
                 enum_values=None):
        self.name, self.help, self.flag_type = name, help, flag_type
        self._parse, self.multi, self.bounds = parse, multi, bounds
        self.enum_values = enum_values
        self.default = None if default is None else self.convert(default)
        self.value = self.default
        self.present = 0
        self.using_default_value = True

    def convert(self, text):
        """The value of ``text`` (``IllegalFlagValueError`` when it is not one)."""
        if self.multi:
            items = text if isinstance(text, (list, tuple)) else [text]
            return [self._convert_one(t) for t in items]
        return self._convert_one(text)

    def _convert_one(self, text):
        try:
            value = self._parse(text)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={text}: {e}") from None
        if self.bounds is not None:
            low, high = self.bounds
            if (low is not None and value < low) or (high is not None and value > high):
                raise IllegalFlagValueError(
                    f"flag --{self.name}={text}: {_bound_text(low, high)}")
        if self.enum_values is not None and value not in self.enum_values:
            raise IllegalFlagValueError(
                f"flag --{self.name}={text}: value should be one of <{'|'.join(self.enum_values)}>")
        return value


def _bound_text(low, high):
    if low is not None and high is not None:
        return f"not in range [{low}, {high}]"
    return f"not >= {low}" if low is not None else f"not <= {high}"


class FlagValues:
    """The registry of flags and their values; ``FLAGS`` is the process's one.

    ``flag_values(argv, known_only=False)`` parses ``argv`` (``argv[0]`` is the program)
    and returns ``argv[0]`` with the arguments left over."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)

    # -- declaring ------------------------------------------------------------------------
    def _define(self, flag):
        if flag.name in self._flags:
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. First from {_module_of()}, Second "
                f"from {_module_of()}.  Description from first occurrence: "
                f"{self._flags[flag.name].help}")
        self._flags[flag.name] = flag

    # -- reading and writing --------------------------------------------------------------
    def __getattr__(self, name):
        flags = self._flags
        if name not in flags:
            raise AttributeError(name)
        if not self._parsed:  # TF1's wrapper: parse sys.argv's known flags on first read
            self(sys.argv, known_only=True)
        return flags[name].value

    def __setattr__(self, name, value):
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(name)
        flag.value = value
        flag.using_default_value = False

    def __getitem__(self, name):
        return self._flags[name]

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def __len__(self):
        return len(self._flags)

    def __delattr__(self, name):
        if name not in self._flags:
            raise AttributeError(name)
        del self._flags[name]

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self):
        """Back to the defaults, unparsed."""
        for flag in self._flags.values():
            flag.value, flag.present, flag.using_default_value = flag.default, 0, True
        object.__setattr__(self, "_parsed", False)

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name, default):
        return self._flags[name].value if name in self._flags else default

    def set_default(self, name, value):
        flag = self._flags[name]
        flag.default = flag.convert(value)
        if flag.using_default_value:
            flag.value = flag.default

    # -- parsing --------------------------------------------------------------------------
    def _parser(self):
        parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False,
                                         prog=None, exit_on_error=False)
        for name, flag in self._flags.items():
            if flag.flag_type == "bool":  # never takes the next argument as its value
                parser.add_argument(f"--{name}", dest=name, action="store_const",
                                    const="true", default=argparse.SUPPRESS)
                parser.add_argument(f"--no{name}", dest=name, action="store_const",
                                    const="false", default=argparse.SUPPRESS)
            else:
                parser.add_argument(f"--{name}", dest=name, default=argparse.SUPPRESS,
                                    action="append" if flag.multi else "store")
        parser.add_argument("--help", "--helpfull", "-h", "-?", dest="_help",
                            action="store_true", default=False)
        return parser

    def __call__(self, argv, known_only=False):
        argv = list(argv)
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element.")
        program, args = argv[0], argv[1:]
        tail = []
        if "--" in args:  # everything after "--" is an argument, never a flag
            i = args.index("--")
            args, tail = args[:i], args[i + 1:]
        args = [self._bool_spelling(a) for a in args]
        try:
            ns, rest = self._parser().parse_known_args(args)
        except argparse.ArgumentError as e:
            raise IllegalFlagValueError(str(e)) from None
        if getattr(ns, "_help", False) and not known_only:
            sys.stdout.write(self.main_module_help() + "\n")
            sys.exit(0)
        for name, text in vars(ns).items():
            if name == "_help":
                continue
            flag = self._flags[name]
            flag.value = flag.convert(_parse_bool(text) if flag.flag_type == "bool" else text)
            flag.present += 1
            flag.using_default_value = False
        unknown = [a for a in rest if a.startswith("-") and a != "-"]
        if unknown and not known_only:
            name = unknown[0].lstrip("-").split("=", 1)[0]
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        self.mark_as_parsed()
        return [program] + rest + tail

    def _bool_spelling(self, arg):
        """``--name=false`` of a boolean flag as ``--noname`` (argparse's spelling)."""
        name, eq, text = arg[2:].partition("=")
        flag = self._flags.get(name) if arg.startswith("--") and eq else None
        if flag is None or flag.flag_type != "bool":
            return arg
        try:
            return f"--{name}" if _parse_bool(text) else f"--no{name}"
        except ValueError:
            raise IllegalFlagValueError(
                f"flag --{name}={text}: Non-boolean argument to boolean flag") from None

    def main_module_help(self):
        lines = ["", "flags:", ""]
        for name in sorted(self._flags):
            flag = self._flags[name]
            lines.append(f"  --{name}: {flag.help}")
            shown = "'" + str(flag.default) + "'" if flag.flag_type == "string" else flag.default
            lines.append(f"    (default: {shown})")
        return "\n".join(lines)

    def __str__(self):
        return self.main_module_help()


def _module_of():
    frame = sys._getframe(3)
    return frame.f_globals.get("__name__", "__main__")


FLAGS = FlagValues()


def _define(flag, flag_values):
    (flag_values if flag_values is not None else FLAGS)._define(flag)


def DEFINE_string(name, default, help, flag_values=None, **kwargs):  # noqa: N802, A002
    """Declares a string flag."""
    _define(Flag(name, default, help, str, "string"), flag_values)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802
                   flag_values=None, **kwargs):  # noqa: A002
    """Declares an integer flag (optionally bounded)."""
    bounds = None if lower_bound is None and upper_bound is None else (lower_bound, upper_bound)
    _define(Flag(name, default, help, _parse_int, "int", bounds=bounds), flag_values)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802
                 flag_values=None, **kwargs):  # noqa: A002
    """Declares a float flag (optionally bounded)."""
    bounds = None if lower_bound is None and upper_bound is None else (lower_bound, upper_bound)
    _define(Flag(name, default, help, float, "float", bounds=bounds), flag_values)


def DEFINE_boolean(name, default, help, flag_values=None, **kwargs):  # noqa: N802, A002
    """Declares a boolean flag: ``--name``, ``--noname``, ``--name=false``."""
    _define(Flag(name, default, help, _parse_bool, "bool"), flag_values)


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, flag_values=None, **kwargs):  # noqa: N802, A002
    """Declares a comma-separated list of strings."""
    _define(Flag(name, default, help, _parse_list, "list"), flag_values)


def DEFINE_enum(name, default, enum_values, help, flag_values=None, **kwargs):  # noqa: N802
    """Declares a string flag whose value is one of ``enum_values``."""
    _define(Flag(name, default, help, str, "string", enum_values=list(enum_values)),
            flag_values)


def DEFINE_multi_string(name, default, help, flag_values=None, **kwargs):  # noqa: N802
    """Declares a flag given any number of times; its value is the list."""
    _define(Flag(name, default, help, str, "multi", multi=True), flag_values)


def DEFINE_multi_integer(name, default, help, flag_values=None, **kwargs):  # noqa: N802
    _define(Flag(name, default, help, _parse_int, "multi", multi=True), flag_values)


def DEFINE_multi_float(name, default, help, flag_values=None, **kwargs):  # noqa: N802
    _define(Flag(name, default, help, float, "multi", multi=True), flag_values)


def _parse_int(text):
    if isinstance(text, bool):
        raise TypeError(f"Expect argument to be a string or int, found {type(text)}")
    if isinstance(text, int):
        return text
    if isinstance(text, float):
        raise TypeError(f"Expect argument to be a string or int, found {type(text)}")
    text = str(text).strip()
    base = 16 if text.lower().startswith(("0x", "-0x")) else 10
    return int(text, base)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
