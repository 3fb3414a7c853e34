"""How the CLI prints: JSON indented on a terminal, one compact line otherwise,
and lists of names cut to fit a table column.

The compact form is what a program reading a pipe wants, and Python writes
it several times faster than the indented one (which a person reads).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import click


def stdout_is_terminal() -> bool:
    return sys.stdout is not None and sys.stdout.isatty()


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON (UTF-8 text, not ``\\u`` escapes)."""
    if stdout_is_terminal():
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


# The width of a table column of file names.
FILES_COLUMN = 64


def names_cell(names: list[str], width: int = FILES_COLUMN) -> str:
    """As many of ``names`` as fit in ``width`` characters, and how many more there are."""
    shown: list[str] = []
    used = 0
    for name in names:
        if shown and used + len(name) + 2 > width:
            break
        shown.append(name)
        used += len(name) + 2
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f", +{rest} more" if rest else "")


# The words shlex.quote leaves as they are.
_PLAIN_WORD = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


def shell_word(text: str) -> str:
    """``text`` as one word of a shell command (:func:`shlex.quote`; shlex loads only for
    a word that needs quotes, so a warm review of a range does not load it)."""
    if _PLAIN_WORD.fullmatch(text):
        return text
    import shlex

    return shlex.quote(text)
