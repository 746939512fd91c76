"""Flag validators: checkers run on parsing and on assignment, required and mutually
exclusive flags."""

from __future__ import annotations

import warnings

from scopeflow.platform.flags.errors import ValidationError
from scopeflow.platform.flags.flag_types import FlagHolder
from scopeflow.platform.flags.flag_values import FLAGS


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
