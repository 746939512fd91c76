"""``FlagValues``, the registry of flags that parses a command line, and ``FLAGS``, the
process's one; which module defined a flag (absl's calling-module rule)."""

from __future__ import annotations

import os
import sys

from scopeflow.platform import tf_decorator
from scopeflow.platform.flags.errors import (
    CantOpenFlagFileError,
    DuplicateFlagError,
    Error,
    FlagNameConflictsWithMethodError,
    IllegalFlagValueError,
    UnrecognizedFlagError,
    ValidationError,
)
from scopeflow.platform.flags.flag_types import Flag
from scopeflow.platform.flags.help_text import get_help_width, text_wrap
from scopeflow.platform.flags.parsers import ArgumentParser, ArgumentSerializer

_SPECIAL_FLAGS = ("flagfile", "undefok")

# The modules that called ``disclaim_key_flags``: wrappers whose flags belong to their callers.
_DISCLAIMED_MODULES = set()

# The package's own modules, skipped when finding the module that defines a flag.
_FLAGS_PACKAGE = __name__.rpartition(".")[0]


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
        """Parses ``args`` into the flags; returns the unknown flags as ``(name, argument)``
        and the arguments left unparsed."""
        pending, unparsed, undefok = [], [], set()
        args = iter(args)
        for arg in args:
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
            if not name:
                unparsed.append(arg)
                continue
            flag, value = self._flag_and_value(arg, name, text if eq else None, args)
            if name == "undefok" and flag is None:  # unknown flags it names are dropped
                undefok.update((value if value is not None else _next_value(args, arg))
                               .split(","))
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
        return _without_undefok(pending, unparsed, undefok)

    def _flag_and_value(self, arg, name, value, args):
        """The flag that ``arg`` (``--name`` or ``--name=value``) sets, or None, and the text
        it sets: a boolean's bare ``--name`` is "true" and ``--noname`` "false"; another
        flag without ``=`` takes the next argument of ``args``."""
        fl = self._flags()
        flag = fl.get(name)
        if flag is not None:
            if flag.boolean and value is None:
                value = "true"
            elif value is None:
                value = _next_value(args, arg)
        elif name.startswith("no") and len(name) > 2:
            noflag = fl.get(name[2:])
            if noflag is not None and noflag.boolean:
                if value is not None:
                    raise ValueError(arg + " does not take an argument")
                flag, value = noflag, "false"
        return flag, value

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


def _next_value(args, arg):
    """The argument after ``arg``: the value of a flag written ``--name value``."""
    try:
        return next(args)
    except StopIteration:
        raise Error("Missing value for flag " + arg) from None


def _without_undefok(pending, unparsed, undefok):
    """The unknown flags (``pending``: name, argument, and its index in ``unparsed`` when
    parsing known flags only) less those ``--undefok`` names, with or without ``no``, as
    ``(name, argument)``; and ``unparsed`` less the ones it names."""

    def allowed(name):
        return name in undefok or (name.startswith("no") and name[2:] in undefok)
    dropped = {pos for name, _, pos in pending if pos is not None and allowed(name)}
    unparsed = [a for i, a in enumerate(unparsed) if i not in dropped]
    unknown = [(name, arg) for name, arg, pos in pending if pos is None and not allowed(name)]
    return unknown, unparsed


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


def _is_flags_module(name):
    """Whether ``name`` is this package or one of its modules."""
    return name == _FLAGS_PACKAGE or name.startswith(_FLAGS_PACKAGE + ".")


def _calling_module():
    """The name of the module whose code called into the flags (absl's rule: the first
    frame outside this package and the modules that disclaimed their flags, whose globals
    are a loaded module's; ``__main__`` is named by ``sys.argv[0]``)."""
    skipped = {"scopeflow.platform.app", tf_decorator.__name__} | _DISCLAIMED_MODULES
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        module = sys.modules.get(name) if name else None
        if (module is not None and getattr(module, "__dict__", None) is frame.f_globals
                and name not in skipped and not _is_flags_module(name)):
            return sys.argv[0] if name == "__main__" and sys.argv else name
        frame = frame.f_back
    return "<unknown>"


FLAGS = FlagValues()
