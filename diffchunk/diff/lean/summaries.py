"""What a fold line says: a file's one-line head, what a removed run defined, a binary
payload's sizes and blob ids, a commit's head.

The names of removed definitions are read from the removed lines with a few
patterns of common languages (Python, JavaScript/TypeScript, Go, Rust,
Java/C#/PHP classes, Ruby, shell functions, Markdown headings): cheap, and
the line range and count are given either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from diffchunk.diff import syntax as sx
from diffchunk.diff.model import FileDiff, FileStatus, mode_change
from diffchunk.diff.paths import encode_path, quote_git_path

from ...limits import SHORT_ID

MAX_NAMES = 6
"""Names of removed definitions a fold line lists at most."""

MAX_SECTION_CHARS = 50
"""A hunk's function context is cut to this many characters in its head."""

HEADING_TITLE_CHARS = 40
"""A Markdown heading named in a summary is cut to this many characters."""


__all__ = [
    "binary_summary",
    "blob_ids",
    "code_names",
    "commit_head",
    "definition_name",
    "definitions",
    "file_head",
    "place",
    "places",
    "removed_names",
    "short_names",
    "spans",
]


_DEFINITION = re.compile(
    r"^\s*(?:"
    r"(?:async\s+)?def\s+(?P<py>\w+)\s*[(\[]"
    r"|(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:final\s+)?"
    r"(?:public\s+|private\s+|protected\s+|internal\s+)?(?:static\s+)?"
    r"(?P<kw>class|interface|struct|enum|trait|module)\s+(?P<cls>\w+)\s*(?:[(:{<\[]|extends\b|implements\b|$)"
    r"|(?:export\s+)?(?:async\s+)?function\*?\s+(?P<js>\w+)\s*[(<]"
    r"|func\s+(?:\([^)]*\)\s*)?(?P<go>\w+)\s*[(\[]"
    r"|(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(?P<rs>\w+)\s*[(<]"
    r"|def\s+(?:self\.)?(?P<rb>\w+[?!]?)\s*(?:\(|$)"
    r"|(?P<sh>[A-Za-z_][\w-]*)\s*\(\)\s*\{"
    r")"
)
_HEADING = re.compile(r"^(?P<md>#{1,6})\s+(?P<title>\S.*)")
_MARKDOWN = (".md", ".markdown", ".mdx")


def definitions(contents: Iterable[str], path: str = "") -> list[str]:
    """``def name``, ``class Name``, ``# Heading`` (in Markdown files)... of the lines
    ``contents`` (in order)."""
    found: list[str] = []
    markdown = path.lower().endswith(_MARKDOWN)
    for text in contents:
        if markdown:
            h = _HEADING.match(text)
            if h is not None:
                title = h.group("title").strip()
                found.append(
                    f"{h.group('md')} {title[:HEADING_TITLE_CHARS]}{'…' if len(title) > HEADING_TITLE_CHARS else ''}"
                )
            continue
        m = _DEFINITION.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        if groups["py"] or groups["rb"]:
            found.append(f"def {groups['py'] or groups['rb']}")
        elif groups["cls"]:
            found.append(f"{groups['kw']} {groups['cls']}")
        elif groups["js"]:
            found.append(f"function {groups['js']}")
        elif groups["go"] or groups["rs"]:
            found.append(f"{'func' if groups['go'] else 'fn'} {groups['go'] or groups['rs']}")
        elif groups["sh"]:
            found.append(f"{groups['sh']}()")
    return found


def definition_name(text: str) -> str | None:
    """The name a line defines (``def name(``, ``class Name:``...), else None."""
    m = _DEFINITION.match(text)
    if m is None:
        return None
    return next((v for k, v in m.groupdict().items() if k != "kw" and v), None)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def removed_names(run: list[str], before: list[str], section: str, path: str) -> str:
    """What a removed run held, for its fold line: the definition it lies in (the
    nearest less indented definition among the old-side lines ``before`` it in its
    hunk, else the hunk's ``section``) when it does not start with one, then the
    definitions it starts, each name quoted (```a`, `b```); a Markdown file's
    headings as :func:`names_text` gives them."""
    if path.lower().endswith(_MARKDOWN):
        return names_text(definitions(run, path))
    names: list[str] = []
    shown = [t for t in run if t.strip()]
    if shown and definition_name(shown[0]) is None:
        outer = _enclosing(before, _indent(shown[0]), section)
        names += [outer] if outer is not None else []
    names += [n for n in (definition_name(t) for t in run) if n is not None and n not in names]
    return code_names(names)


def _enclosing(before: list[str], depth: int, section: str) -> str | None:
    """The definition a line indented ``depth`` lies in: walking back through
    ``before``, the first less indented line when it is a definition (a less indented
    statement narrows the search; one at the margin ends it), else ``section``'s."""
    for text in reversed(before):
        if not text.strip() or _indent(text) >= depth or text.lstrip()[0] in ")]}":
            continue  # deeper, or the close of a bracket (a signature's last line)
        name = definition_name(text)
        if name is not None:
            return name
        depth = _indent(text)
        if depth == 0:
            return None
    return definition_name(section) if depth > 0 else None


def code_names(names: list[str]) -> str:
    """```a`, `b``` (at most :data:`MAX_NAMES`, then ``+N more``)."""
    shown = ", ".join(f"`{n}`" for n in names[:MAX_NAMES])
    return shown + (f" +{len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def names_text(names: list[str]) -> str:
    """``"def a, class B"`` (at most :data:`MAX_NAMES`, then ``+N more``)."""
    if not names:
        return ""
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" +{len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def blob_ids(header: bytes) -> tuple[str, str] | None:
    """The (old, new) blob ids of a git header's ``index`` line, abbreviated."""
    for line in header.split(b"\n"):
        if line.startswith(sx.INDEX):
            m = sx.INDEX_LINE.match(line)
            if m is not None:
                old, new = m.group(1).decode("ascii"), m.group(2).decode("ascii")
                return old.split(",")[0][:10], new[:10]
    return None


def binary_summary(payload: bytes, header: bytes) -> str:
    """What a ``GIT binary patch`` payload holds: its blocks' kinds and sizes, blob ids."""
    blocks = re.findall(rb"^(literal|delta) (\d+)\r?$", payload, re.M)
    parts = []
    for i, (kind, size) in enumerate(blocks[:2]):
        side = "new" if i == 0 else "old"
        parts.append(f"{side} {int(size):,} bytes ({kind.decode()})")
    ids = blob_ids(header)
    if ids is not None:
        parts.append(f"blob {ids[0]} -> {ids[1]}")
    return ", ".join(parts)


def _status_notes(fd: FileDiff) -> list[str]:
    notes: list[str] = []
    if fd.status is FileStatus.ADDED:
        notes.append("new" + (f" {fd.new_mode}" if fd.new_mode and fd.new_mode != "100644" else ""))
    elif fd.status is FileStatus.DELETED:
        notes.append("deleted")
    elif fd.status in (FileStatus.RENAMED, FileStatus.COPIED):
        verb = "renamed" if fd.status is FileStatus.RENAMED else "copied"
        note = f"{verb} from {shown_path(fd.old_path or '')}"
        if fd.similarity is not None and fd.similarity != 100:
            note += f", {fd.similarity}%"
        notes.append(note)
    modes = mode_change(fd)
    if modes is not None:
        notes.append(f"mode {modes[0]} -> {modes[1]}")
    if fd.is_submodule:
        notes.append("submodule")
    return notes


def shown_path(path: str) -> str:
    """``path`` as a lean line names it: as it is, or quoted as git quotes it when it
    holds a control character (a line break in a name would split the line, and the
    view would no longer expand back)."""
    if all(ord(c) >= 0x20 for c in path):
        return path
    return quote_git_path(encode_path(path)).decode("ascii")


def file_head(fd: FileDiff, added: int, removed: int, extra: str = "") -> str:
    """``path (notes, +A -R)``: what happened to the file, and its line counts in the view."""
    notes = _status_notes(fd)
    if fd.is_binary:
        notes.append("binary")
    counts = " ".join(
        c for c in (f"+{added}" if added else "", f"-{removed}" if removed else "") if c
    )
    if counts:
        notes.append(counts + (f": {extra}" if extra else ""))
    elif extra:
        notes.append(extra)
    name = shown_path(fd.path)
    return f"{name} ({', '.join(notes)})" if notes else name


# git's own diff drivers' function context for these files (userdiff.c, ``diff=python``
# and ``diff=markdown``): a definition, a heading.  Without the attribute git names the
# last line that starts with a letter (an import, a sentence), which locates nothing.
_PYTHON = (".py", ".pyi", ".pyx")
_PYTHON_SECTION = re.compile(r"^[ \t]*(?:class|(?:async[ \t]+)?def)[ \t]")
_MARKDOWN_SECTION = re.compile(r"^ {0,3}#{1,6}[ \t]")


def section_text(section: str, path: str = "") -> str:
    """A hunk's function context, cut to :data:`MAX_SECTION_CHARS` characters; for a
    Python or Markdown file (by ``path``), only what git's diff driver of that language
    would name (a definition, a heading), else nothing."""
    lowered = path.lower()
    if lowered.endswith(_PYTHON) and not _PYTHON_SECTION.match(section):
        return ""
    if lowered.endswith(_MARKDOWN) and not _MARKDOWN_SECTION.match(section):
        return ""
    section = section.strip()
    if len(section) > MAX_SECTION_CHARS:
        return section[: MAX_SECTION_CHARS - 1] + "…"
    return section


def section_within(lines: list[str], path: str) -> str | None:
    """For a Python or Markdown file (by ``path``), the last of ``lines`` that git's diff
    driver of its language would name as a section (a definition, a heading), else None:
    unchanged lines a hunk's head leaves out may hold a nearer section than git's, which
    is the last one before the hunk's first line."""
    lowered = path.lower()
    pattern = (
        _PYTHON_SECTION
        if lowered.endswith(_PYTHON)
        else _MARKDOWN_SECTION
        if lowered.endswith(_MARKDOWN)
        else None
    )
    if pattern is None:
        return None
    return next((line for line in reversed(lines) if pattern.match(line)), None)


_MAIL_FROM = re.compile(rb"^From: *(.+?) *(?:<[^>]*>)?\r?$", re.M)
_LOG_AUTHOR = re.compile(rb"^Author: *(.+?) *(?:<[^>]*>)?\r?$", re.M)
_DATE = re.compile(rb"^(?:Date|AuthorDate): *(.+?)\r?$", re.M)


def commit_head(header: bytes, sha: str, subject: str | None) -> str:
    """``commit <sha> (author, date): subject`` of a commit's header lines."""
    author = _MAIL_FROM.search(header) or _LOG_AUTHOR.search(header)
    date = _DATE.search(header)
    about = ", ".join(
        m.group(1).decode("utf-8", "replace").strip('"') for m in (author, date) if m is not None
    )
    text = f"commit {sha[:SHORT_ID]}" if sha else "commit"
    if about:
        text += f" ({about})"
    if subject:
        text += f": {subject}"
    return text


def short_names(paths: Iterable[str]) -> dict[str, str]:
    """Each path's shortest ending (whole segments) that no other of ``paths`` shares:
    ``lib/sqlalchemy/dialects/mysql/asyncmy.py`` is ``asyncmy.py`` when no other file
    of the view is."""
    unique = set(paths)
    tails: dict[str, int] = {}  # an ending -> how many of the paths end so
    for path in unique:
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            tail = "/".join(parts[-n:])
            tails[tail] = tails.get(tail, 0) + 1
    names: dict[str, str] = {}
    for path in unique:
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            tail = "/".join(parts[-n:])
            if tails[tail] == 1:
                break
        names[path] = tail
    return names


def place(spot: tuple[str, int], here: str, names: dict[str, str] | None = None) -> str:
    """``line 12`` in the file ``here``, else ``b.py:12`` (the file by its short name)."""
    path, line = spot
    if path == here:
        return f"line {line}"
    return f"{shown_path((names or {}).get(path, path))}:{line}"


def spans(spot: tuple[str, int, int], here: str, names: dict[str, str] | None = None) -> str:
    """``lines 12-40`` in the file ``here``, else ``b.py:12-40``: ``spot`` is (path,
    first line, count)."""
    path, first, count = spot
    last = f"{first}-{first + count - 1}" if count > 1 else str(first)
    if path == here:
        return f"line{'s' if count > 1 else ''} {last}"
    return f"{shown_path((names or {}).get(path, path))}:{last}"


def places(spots: list[tuple[str, int]], here: str, names: dict[str, str] | None = None) -> str:
    """``lines 12, 40; b.py:7``: places grouped by file (``here`` first named by lines)."""
    by_file: dict[str, list[str]] = {}
    for path, line in spots:
        by_file.setdefault(path, []).append(str(line))
    out = []
    for path, lines in by_file.items():
        if path == here:
            out.append(f"line{'s' if len(lines) > 1 else ''} {', '.join(lines)}")
        else:
            out.append(f"{shown_path((names or {}).get(path, path))}:{','.join(lines)}")
    return "; ".join(out)
