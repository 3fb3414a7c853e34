"""How the command line spells ``diffchunk review``'s options, without click: one table.

The commands that take ``[RANGE|DIFF_FILE]`` declare their load options under
these names (:func:`diffchunk.cli.targets.target_options`), ``diffchunk review``
its own (:mod:`diffchunk.cli.review`), the hints spell a load option with them
(:func:`diffchunk.cli.targets.suggested_command`), and the console script reads
a review's command line with them ahead of click
(:func:`diffchunk.console.review_range`) to start ``git diff`` early
(:mod:`.early_start`): the two readings of one command line cannot drift apart.
It lives here, below the shells, because the console script must not load click
and the shells may not import one another.

Rules: every option is long (``--name``: a short one would escape the early
reading, which refuses what it does not know); a flag takes no value, any
other option exactly one.
"""

from __future__ import annotations

from typing import NamedTuple


class Spelled(NamedTuple):
    """An option as typed: ``--max-chunk-lines``, and whether it takes a value."""

    option: str
    valued: bool


#: The load options of every command taking a target, by parameter name (click
#: derives each name from its option: ``--max-chunk-lines`` is ``max_chunk_lines``).
TARGET_OPTIONS: dict[str, Spelled] = {
    "repo": Spelled("--repo", True),
    "staged": Spelled("--staged", False),
    "max_chunk_lines": Spelled("--max-chunk-lines", True),
    "include": Spelled("--include", True),
    "exclude": Spelled("--exclude", True),
    "no_skip_trivial": Spelled("--no-skip-trivial", False),
    "no_skip_generated": Spelled("--no-skip-generated", False),
    "context_lines": Spelled("--context-lines", True),
    "gitattributes": Spelled("--gitattributes", True),
    "order": Spelled("--order", True),
}

#: ``diffchunk review``'s own options, by parameter name.
REVIEW_OPTIONS: dict[str, Spelled] = {
    "chunk_number": Spelled("--chunk", True),
    "file_path": Spelled("--file", True),
    "fmt": Spelled("--format", True),
    "as_json": Spelled("--json", False),
    "out_dir": Spelled("--out", True),
    "since_review": Spelled("--since-review", False),
    "review_id": Spelled("--review", True),
    "next_chunk": Spelled("--next", False),
}

_ALL = (*TARGET_OPTIONS.values(), *REVIEW_OPTIONS.values())
REVIEW_FLAGS = frozenset(s.option for s in _ALL if not s.valued)
REVIEW_VALUED = frozenset(s.option for s in _ALL if s.valued)


def option(name: str) -> str:
    """The option of parameter ``name`` (a load option, or one of ``review``'s)."""
    found = TARGET_OPTIONS.get(name) or REVIEW_OPTIONS[name]
    return found.option
