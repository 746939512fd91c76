"""Help text: the terminal's width, wrapping, docstrings as help, and a
``{name: value}`` as command-line arguments."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import sys
import textwrap


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
