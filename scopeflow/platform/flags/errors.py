"""The errors of ``tf.flags``, absl's classes and messages."""

from __future__ import annotations


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
