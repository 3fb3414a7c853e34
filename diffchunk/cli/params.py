"""Click parameter types shared by the subcommands, their context settings, and the
allowed roots of a path.

Every path the command line reads or writes passes :func:`check_roots`
against ``DIFFCHUNK_ALLOWED_ROOTS`` (put in force for the whole command by
:class:`~diffchunk.cli.DiffchunkGroup`), as the MCP server checks its tools'
paths: a :class:`SafePath` option or argument when click reads it, a diff
file named as the target when it is loaded.  diffchunk's own cache (the
diffs it wrote) is readable whatever the roots, as for the MCP tools.
"""

from __future__ import annotations

import os
from typing import Any

import click

from ..paths import cache_dir, policy_in_force, within

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
"""Every command's: ``-h`` as ``--help``, and help text wrapped at 100 columns (not 80)."""


def check_roots(path: str, *, writes: bool = False) -> None:
    """Refuse ``path`` (as given on the command line) outside the roots in force.

    ``writes``: a path the command writes (``--out``), which diffchunk's
    cache does not exempt.  Raises :class:`~diffchunk.errors.PathError`.
    """
    policy = policy_in_force()
    if policy is None:
        return
    absolute = os.path.abspath(os.path.expanduser(path))
    real = os.path.realpath(absolute)
    if not writes and within(real, os.path.realpath(cache_dir())):
        return
    policy.check(absolute)


class SafePath(click.Path):
    """``click.Path`` that refuses a NUL character with a usage error, and a path outside
    the allowed roots (``writes``: a path the command writes).

    (``click.Path`` passes such a value to ``os.stat``, which raises
    ``ValueError`` instead of an ``OSError`` click would report.)
    """

    def __init__(self, *args: Any, writes: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writes = writes

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = value if isinstance(value, str) else str(value)
        if "\x00" in text:
            self.fail(
                f"{text!r} contains a NUL character; pass the path as it is on disk.", param, ctx
            )
        if text.strip():
            check_roots(text, writes=self.writes)
        return super().convert(value, param, ctx)
