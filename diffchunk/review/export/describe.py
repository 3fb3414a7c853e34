"""Plain-text descriptions shared by the export formats.

What a review is of, where a finding points, which language a file is in:
every format says these the same way.  Nothing here escapes anything: each
renderer escapes for its own format.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...diff.paths import encode_path
from ...limits import SHORT_ID
from .document import SEVERITIES, ExportFile, ExportFinding, ReviewExport, Source

#: Fence info strings by file extension (the names GitHub's highlighter knows).
_LANGUAGES = {
    **dict.fromkeys(("py", "pyi", "pyw"), "python"),
    **dict.fromkeys(("js", "mjs", "cjs", "jsx"), "javascript"),
    **dict.fromkeys(("ts", "tsx", "mts", "cts"), "typescript"),
    "go": "go",
    "rs": "rust",
    "java": "java",
    "kt": "kotlin",
    "swift": "swift",
    **dict.fromkeys(("c", "h"), "c"),
    **dict.fromkeys(("cc", "cpp", "cxx", "hpp", "hh", "hxx"), "cpp"),
    "cs": "csharp",
    "rb": "ruby",
    "php": "php",
    **dict.fromkeys(("md", "markdown"), "markdown"),
    "json": "json",
    **dict.fromkeys(("yml", "yaml"), "yaml"),
    "toml": "toml",
    **dict.fromkeys(("sh", "bash", "zsh"), "sh"),
    **dict.fromkeys(("html", "htm"), "html"),
    "css": "css",
    "scss": "scss",
    "sql": "sql",
    "xml": "xml",
    **dict.fromkeys(("diff", "patch"), "diff"),
    "lua": "lua",
    "pl": "perl",
    "r": "r",
    "scala": "scala",
    "dart": "dart",
    "ex": "elixir",
    "hs": "haskell",
    "vue": "vue",
    "svelte": "svelte",
}
_NAMES = {"Makefile": "makefile", "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake"}


def real_name(path: str) -> bytes:
    """The file's name as it is in the repository: a path of the document is shown as
    the diff tools show it (a backslash doubled, a byte that is not UTF-8 as ``\\ooo``,
    see :func:`diffchunk.diff.paths.decode_path`)."""
    return encode_path(path)


def text_name(path: str) -> str | None:
    """The file's real name as text, for the formats other tools match against their
    files (``a\\b.txt`` is the name ``a\b.txt``); None when the name is not UTF-8: such a
    name cannot be written in JSON, and a tool given its escaped form would look for
    another file."""
    try:
        return real_name(path).decode("utf-8")
    except UnicodeDecodeError:
        return None


def language(path: str) -> str:
    """The fence info string for a file's code (``""`` when unknown)."""
    name = posixpath.basename(path)
    if name in _NAMES:
        return _NAMES[name]
    stem, dot, ext = name.rpartition(".")
    return _LANGUAGES.get(ext.lower(), "") if dot and stem else ""


def short_sha(sha: str | None) -> str:
    return sha[:SHORT_ID] if sha else "none"


def range_text(text: str) -> str:
    """A review range as a reader says it: ``worktree:HEAD`` is the working tree against HEAD."""
    kind, colon, rest = text.partition(":")
    if colon and kind == "worktree":
        return f"working tree against {rest or 'HEAD'}"
    if colon and kind == "index":
        return f"staged changes against {rest or 'HEAD'}"
    if colon and kind == "commits":
        return rest
    return text


def subject(export: ReviewExport) -> str:
    """What the review is of, in a few words: ``main..feature``, ``changes.diff``."""
    source = export.source
    if source.kind == "git":
        return range_text(source.range or "")
    return posixpath.basename(source.diff_file or "") or "a diff file"


def title(export: ReviewExport) -> str:
    """``Review of main..feature`` / ``Review of changes.diff``."""
    return f"Review of {subject(export)}"


def source_facts(export: ReviewExport, public: bool = False) -> list[tuple[str, str, bool]]:
    """What was reviewed, as (label, value, value is code) triples, in reading order.

    Values that are code (paths, ranges, commit ids, hashes) are shown as such
    by the renderers; the others are prose.  ``public``: for readers on other
    machines (the GitHub body): the repository by its name (its remote, or its
    directory's name), a diff file by its file name, never a local path.
    """
    source: Source = export.source
    rev = export.revision
    facts: list[tuple[str, str, bool]]
    if source.kind == "git":
        base = rev.base if rev.id is not None else source.base
        head = rev.head if rev.id is not None else source.head
        facts = [
            ("Repository", repository_shown(source, public), True),
            ("Range", range_text(source.range or ""), True),
            *([("Limited to paths", " ".join(rev.paths), True)] if rev.paths else []),
            ("Base commit", base or "none (the empty tree)", bool(base)),
            ("Head commit", head or "none (uncommitted changes)", bool(head)),
        ]
    else:
        shown = posixpath.basename(source.diff_file or "") if public else source.diff_file
        facts = [
            ("Diff file", shown or "", True),
            ("Diff file SHA-256", source.sha256 or "", True),
        ]
    if rev.sha256 and rev.sha256 != source.sha256:
        facts.append(("Diff SHA-256", rev.sha256, True))
    review = f"#{export.review_id}" if export.review_id is not None else "not recorded"
    if rev.id is not None:
        loaded = f", loaded {rev.loaded_at}" if rev.loaded_at else ""
        review += f", revision #{rev.id}{loaded}"
    facts.append(("Review", review, False))
    facts.append(
        ("Exported", f"{export.exported_at} by {export.tool_name} {export.tool_version}", False)
    )
    return facts


def repository_shown(source: Source, public: bool) -> str:
    """The repository as a reader sees it: its path here, or (``public``) its name."""
    if not public:
        return source.repository or ""
    if source.name:
        return source.name
    return posixpath.basename((source.repository or "").rstrip("/")) or "a repository"


def public_source(export: ReviewExport) -> dict[str, Any]:
    """What was reviewed, without a local path (for SARIF and reviewdog): the
    repository by its public name, a diff file by its file name."""
    source = export.source
    if source.kind == "git":
        return {
            "kind": "git",
            "repository": repository_shown(source, public=True),
            "range": source.range,
            "base": source.base,
            "head": source.head,
        }
    return {"kind": "file", "diff_file": subject(export), "sha256": source.sha256}


def size_text(file: ExportFile) -> str:
    """``+3 −1``, ``binary`` for a binary file (``""`` when its status says so already)."""
    if not file.binary:
        return f"+{file.added} −{file.removed}"
    return "" if file.status == "binary" else "binary"


def lines_text(finding: ExportFinding) -> str:
    """``new line 12``, ``new lines 12–14``, ``old line 5`` or ``whole file``."""
    if finding.line is None or finding.end_line is None:
        return "whole file"
    if finding.line == finding.end_line:
        return f"{finding.side} line {finding.line}"
    return f"{finding.side} lines {finding.line}–{finding.end_line}"


def status_note(finding: ExportFinding) -> str:
    """What a reader must know about a finding that is not open, or whose lines are not
    those of the exported revision (``""`` for an open finding on its lines)."""
    if finding.status == "outdated":
        note = "outdated: its lines changed after it was written; the lines shown are as they were"
        if finding.anchor_head:
            note += f" at commit {finding.anchor_head[:SHORT_ID]}"
        return note
    notes = [finding.status] if finding.status in ("resolved", "dismissed") else []
    if not finding.current and finding.line is not None:
        notes.append(f"another revision: {elsewhere_text(finding)}")
    return "; ".join(notes)


def elsewhere_text(finding: ExportFinding) -> str:
    """Where the lines of a finding anchored in another revision than the exported one
    are: ``new line 30 at commit 1a2b3c4d5e6f, not as numbered in this export``."""
    at = f"at commit {finding.anchor_head[:SHORT_ID]}" if finding.anchor_head else "of another diff"
    return f"{lines_text(finding)} {at}, not as numbered in this export"


def replacement(suggestion: str) -> str:
    """A suggestion as the lines replacing the finding's lines, without the last line end."""
    return suggestion[:-1] if suggestion.endswith("\n") else suggestion


def severity_counts(counts: dict[str, int]) -> str:
    """``2 major, 1 minor`` (counts by severity, in severity order), or ``none``."""
    parts = [f"{counts[s]} {s}" for s in SEVERITIES if counts.get(s)]
    return ", ".join(parts) or "none"


def source_identity(export: ReviewExport) -> str:
    """What stays the same across exports of one review: ``git:REPO:RANGE`` or ``file:PATH``
    (REPO: the repository's public name when the document has it)."""
    source = export.source
    if source.kind == "git":
        return f"git:{source.name or source.repository}:{source.range}"
    return f"file:{source.diff_file}"
