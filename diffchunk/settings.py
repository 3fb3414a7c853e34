"""Every setting diffchunk reads from its environment: declared, parsed and checked here.

A setting is a ``DIFFCHUNK_*`` variable, or one of the XDG base directories
diffchunk's own directories default under.  Each is declared once in
:data:`SETTINGS` (its kind, its default and what it means); the README's
configuration table is generated from that table (``tests/test_settings.py``
fails when the README is stale, and when any other module reads one of them).

Rules:

- A value is read when it is asked for, never at import: a test, or a server
  whose environment changed, sees the value in force, and no import fails.
- One parser per kind: a whole number of at least a least value (``count``),
  seconds of at least 0 (``seconds``), a fraction in (0, 1] (``ratio``), a
  switch (``flag``: set and not empty; ``switch_off``: on unless ``0``), a
  directory (``dir``: ``~`` expanded, relative to the current directory; an
  XDG directory that is not absolute is ignored, as the XDG rules say), text.
- One policy for a bad value: a warning that names the variable, says what is
  wrong with it and which default is used, logged once per variable and value;
  then the default is used.  Nothing raises.

Not settings, so read where they are used: git's own variables (``GIT_*``,
``XDG_CONFIG_HOME`` where git's global config is looked for), the pre-push
hook's ``PRE_COMMIT_*`` (pre-commit hands them over), and ``PATH``, ``HOME``
and the locale passed on to the programs diffchunk starts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .log import LazyLogger

DEFAULT_MAX_SESSIONS = 16
"""Diff sessions kept in memory (``DIFFCHUNK_MAX_SESSIONS``); the least
recently used is evicted.  Fifty 5-10 MB diffs loaded one after another: RSS
levels off at 222-250 MiB with 16 (116-139 MiB with 4)."""

DEFAULT_MAX_SESSION_BYTES = 1 << 30
"""Total bytes of the loaded diffs, mapped ones included
(``DIFFCHUNK_MAX_SESSION_BYTES``, 1 GiB): a few release-range diffs, far below
the memory of a machine that runs an assistant."""

DEFAULT_MAP_BYTES = 8 << 20
"""A diff file at least this large is mapped from a copy (``DIFFCHUNK_MAP_BYTES``,
8 MiB); a smaller one is read into memory, where it costs little and is read
faster than it is copied, mapped and hashed.  A 1M-line diff: peak RSS
59 -> 33 MB mapped, load time unchanged."""

SNAPSHOT_MAX_BYTES = 256 << 20
"""The largest file a snapshot holds (256 MiB; ``DIFFCHUNK_SNAPSHOT_MAX_BYTES``
changes it), checked before a byte is written: larger than any source file a
reviewer reads a page at a time (the largest hand-written or amalgamated
sources are a few MB), far below a blob that fills a disk (a 3 GB blob of an
8.6 MB repository was written whole)."""

DEFAULT_LONG_LINE_CHARS = 1000
"""Lines longer than this are truncated in read results and counted as long
(``DIFFCHUNK_LONG_LINE_CHARS`` changes it, to at least MIN_LONG_LINE_CHARS): the
seeds' "lines over 1000 characters are truncated"."""

MIN_LONG_LINE_CHARS = 100
"""The least ``DIFFCHUNK_LONG_LINE_CHARS`` taken: a shorter cut would hide
ordinary code."""

DEFAULT_FUZZY_THRESHOLD = 0.85
"""Minimum similarity (0-1) for a fuzzy edit match (``DIFFCHUNK_FUZZY_THRESHOLD``):
high, because a fuzzy match rewrites the file: only the same block slightly
changed (whitespace, a typo) should pass."""

DEFAULT_LOCK_TIMEOUT = 30.0
"""Seconds to wait for another edit of the same file (``DIFFCHUNK_LOCK_TIMEOUT``):
long enough for an edit of a large file to copy and flush it, short enough
that a stuck one is reported."""

DEFAULT_BACKUP_KEEP = 50
"""Backups kept per edited file (``DIFFCHUNK_BACKUP_KEEP``), oldest pruned
first: enough to step back through a session's edits, and a bound on the
backup directory."""

DEFAULT_BACKUP_MAX_BYTES = 2 * 1024**3
"""Backup bytes kept per edited file (``DIFFCHUNK_BACKUP_MAX_BYTES``, 2 GiB):
backups of a large log must not fill the disk."""


logger = LazyLogger(__name__)  # see diffchunk.log


class Setting:
    """One variable: its kind (see the module doc), its default and what it means.

    ``shown_default`` is the default as the README shows it; ``least`` the
    least value a ``count`` takes (a smaller one is refused as bad).  A plain
    class: this module is read before ``diffchunk review`` starts git, which
    dataclasses and logging must not delay (see :mod:`diffchunk.console`)."""

    __slots__ = ("default", "kind", "least", "meaning", "name", "shown_default")

    def __init__(
        self,
        name: str,
        kind: str,
        default: int | float | bool | str | None,
        shown_default: str,
        meaning: str,
        least: int = 1,
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.shown_default = shown_default
        self.meaning = meaning
        self.least = least


_SETTINGS = (
    Setting(
        "DIFFCHUNK_CACHE_DIR",
        "dir",
        None,
        "`$XDG_CACHE_HOME/diffchunk` or `~/.cache/diffchunk`",
        "cache of diffs generated from git ranges; the unnamed copies of large diffs; view "
        "handles (`views/`), file snapshots (`blobs/`) and the private git directory of each "
        "repository (`git/`, see Security)",
    ),
    Setting(
        "DIFFCHUNK_SNAPSHOT_MAX_BYTES",
        "count",
        SNAPSHOT_MAX_BYTES,
        "256 MiB",
        "the largest file `open_file_version` snapshots (a larger one is refused before "
        "anything is written; the snapshot store keeps 1 GiB, or one snapshot of this size "
        "if larger)",
    ),
    Setting(
        "DIFFCHUNK_MAX_SESSIONS",
        "count",
        DEFAULT_MAX_SESSIONS,
        "16",
        "diff sessions kept in memory",
    ),
    Setting(
        "DIFFCHUNK_MAX_SESSION_BYTES",
        "count",
        DEFAULT_MAX_SESSION_BYTES,
        "1 GiB",
        "total bytes of the loaded diffs (mapped ones included)",
    ),
    Setting(
        "DIFFCHUNK_MAP_BYTES",
        "count",
        DEFAULT_MAP_BYTES,
        "8 MiB",
        "diff files this large or larger are mapped from a private copy in the cache "
        "directory instead of read into memory",
    ),
    Setting(
        "DIFFCHUNK_STATE_DIR",
        "dir",
        None,
        "`$XDG_STATE_HOME/diffchunk` or `~/.local/state/diffchunk`",
        "diffchunk's state: the review record (`reviews.sqlite3`) and, by default, the backups",
    ),
    Setting(
        "DIFFCHUNK_BACKUP_DIR",
        "dir",
        None,
        "`backups` in the state directory",
        "backups made before edits",
    ),
    Setting("DIFFCHUNK_BACKUP_KEEP", "count", DEFAULT_BACKUP_KEEP, "50", "backups kept per file"),
    Setting(
        "DIFFCHUNK_BACKUP_MAX_BYTES",
        "count",
        DEFAULT_BACKUP_MAX_BYTES,
        "2 GiB",
        "backup bytes kept per file",
    ),
    Setting(
        "DIFFCHUNK_BACKUP_LINK",
        "switch_off",
        True,
        "1",
        "back up by hard link when possible (no copy); 0 always copies",
    ),
    Setting(
        "DIFFCHUNK_FUZZY_THRESHOLD",
        "ratio",
        DEFAULT_FUZZY_THRESHOLD,
        "0.85",
        "minimum similarity for a fuzzy edit match",
    ),
    Setting(
        "DIFFCHUNK_LOCK_TIMEOUT",
        "seconds",
        DEFAULT_LOCK_TIMEOUT,
        "30",
        "seconds to wait for another edit of the same file",
    ),
    Setting(
        "DIFFCHUNK_LONG_LINE_CHARS",
        "count",
        DEFAULT_LONG_LINE_CHARS,
        str(DEFAULT_LONG_LINE_CHARS),
        f"lines longer than this are cut in read results and counted as long (at least "
        f"{MIN_LONG_LINE_CHARS})",
        least=MIN_LONG_LINE_CHARS,
    ),
    Setting(
        "DIFFCHUNK_ALLOWED_ROOTS",
        "text",
        "",
        "unset",
        "directories (separated by `:`) outside which the MCP tools and every `diffchunk` "
        "command refuse paths, and git reads nothing (see Allowed roots)",
    ),
    Setting(
        "DIFFCHUNK_NO_GREP",
        "flag",
        False,
        "unset",
        "`1`: never hand exact counts/searches of large files to `grep`/`wc`",
    ),
    Setting(
        "DIFFCHUNK_REVIEWER",
        "text",
        "",
        "git's `user.name <user.email>`, else the system user",
        "the author written on marks, findings and replies",
    ),
    Setting("DIFFCHUNK_DEBUG", "flag", False, "unset", "`1`: tracebacks for unexpected errors"),
    Setting(
        "DIFFCHUNK_PAGER",
        "text",
        "",
        "unset (then `PAGER`, then `less -FRX`)",
        "the pager of the CLI's long output on a terminal; empty or `cat`: none",
    ),
    Setting(
        "XDG_CACHE_HOME",
        "dir",
        None,
        "`~/.cache`",
        "where the cache directory is when `DIFFCHUNK_CACHE_DIR` is unset (ignored unless absolute)",
    ),
    Setting(
        "XDG_STATE_HOME",
        "dir",
        None,
        "`~/.local/state`",
        "where the state directory is when `DIFFCHUNK_STATE_DIR` is unset (ignored unless "
        "absolute)",
    ),
)

SETTINGS: Mapping[str, Setting] = {s.name: s for s in _SETTINGS}
"""Every setting by name, in the order the README lists them."""

_warned: set[tuple[str, str]] = set()


def _raw(name: str, environ: Mapping[str, str] | None) -> str:
    return (os.environ if environ is None else environ).get(name, "").strip()


def _bad(setting: Setting, raw: str, why: str) -> None:
    """Say once per variable and value that ``raw`` is not used, and what is."""
    if (setting.name, raw) in _warned:
        return
    _warned.add((setting.name, raw))
    logger.warning(
        "Ignoring %s=%r (%s); using the default, %s.", setting.name, raw, why, setting.default
    )


def count(name: str, environ: Mapping[str, str] | None = None) -> int:
    """A whole number of at least the setting's least value, else its default."""
    setting = SETTINGS[name]
    assert setting.kind == "count" and isinstance(setting.default, int)
    raw = _raw(name, environ)
    if not raw:
        return setting.default
    try:
        value = int(raw)
    except ValueError:
        _bad(setting, raw, "not a whole number")
        return setting.default
    if value < setting.least:
        _bad(setting, raw, f"less than {setting.least}")
        return setting.default
    return value


def number(name: str, environ: Mapping[str, str] | None = None) -> float:
    """Seconds of at least 0 (``seconds``), or a fraction in (0, 1] (``ratio``)."""
    setting = SETTINGS[name]
    assert setting.kind in ("seconds", "ratio") and isinstance(setting.default, float)
    raw = _raw(name, environ)
    if not raw:
        return setting.default
    try:
        value = float(raw)
    except ValueError:
        _bad(setting, raw, "not a number")
        return setting.default
    if setting.kind == "seconds" and not value >= 0:
        _bad(setting, raw, "less than 0 seconds")
        return setting.default
    if setting.kind == "ratio" and not 0.0 < value <= 1.0:
        _bad(setting, raw, "not between 0 and 1")
        return setting.default
    return value


def flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """``flag``: set and not empty; ``switch_off``: on unless set to ``0``."""
    setting = SETTINGS[name]
    raw = _raw(name, environ)
    if setting.kind == "switch_off":
        return raw != "0"
    assert setting.kind == "flag"
    return bool(raw)


def directory(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The directory a ``dir`` setting names (absolute; None when unset).

    A ``DIFFCHUNK_*`` directory is taken from the current directory when it is
    relative (as a shell user means it); an XDG one that is not absolute is
    ignored, as the XDG base directory rules say."""
    setting = SETTINGS[name]
    assert setting.kind == "dir"
    raw = _raw(name, environ)
    if not raw:
        return None
    if name.startswith("XDG_"):
        if os.path.isabs(raw):
            return raw
        _bad(setting, raw, "not an absolute path")
        return None
    return os.path.abspath(os.path.expanduser(raw))


def text(name: str, environ: Mapping[str, str] | None = None) -> str:
    """A ``text`` setting as given (surrounding blanks removed; empty when unset)."""
    assert SETTINGS[name].kind == "text"
    return _raw(name, environ)


def given(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """A ``text`` setting as given (surrounding blanks removed), None when unset: an empty
    value is a value (``DIFFCHUNK_PAGER=`` names no pager, where unset falls back)."""
    assert SETTINGS[name].kind == "text"
    raw = (os.environ if environ is None else environ).get(name)
    return None if raw is None else raw.strip()


def readme_table() -> str:
    """The README's configuration table (``tests/test_settings.py`` keeps it current)."""
    rows = ["| variable | default | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{s.name}` | {s.shown_default} | {s.meaning} |" for s in _SETTINGS]
    return "\n".join(rows) + "\n"
