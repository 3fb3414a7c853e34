"""Review export documents built from diff text, shaped as the review record exports them.

The export tests, ``make screenshot`` and ``make bench-export`` need export
documents (see ``diffchunk/review/export/document.py``) without a review
record.  :class:`DocumentBuilder` takes a diff, parses it with diffchunk's own
parser (so files, statuses and hunks are those of a load), and takes findings
on its lines; a finding's ``lines`` are read from the diff unless given.

:func:`sample_review` is the review of ``fixtures/review_sample.diff`` (a
``git diff`` of a small shop): findings of every severity, on both sides,
ranges and single lines, whole-file findings, suggestions, an outdated
finding, paths with spaces and non-ASCII names, a deleted, a renamed and a
binary file, and a message and lines holding Markdown and HTML
metacharacters.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diffchunk.diff.model import FileDiff, FileStatus
from diffchunk.diff.parser import parse_diff

SAMPLE_DIFF = Path(__file__).resolve().parents[2] / "fixtures" / "review_sample.diff"
SAMPLE_BASE = "f65ee60518f66efeffee1944777e4107748989f3"
SAMPLE_HEAD = "95e51ccdb6c5afd6512d6465ae6bc48a6360cf12"
SEVERITY_ORDER = ("blocker", "major", "minor", "nit", "question")
#: A message a reviewer could write, with every character that means something to
#: Markdown or HTML: the exports must show it, never run or render it as markup.
HOSTILE_MESSAGE = (
    "Escape this before it reaches the page: <script>window.pwned=1;document.title='pwned'"
    "</script> and <img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">.\n"
    "Markdown too: **bold** stays bold, `a|b` & `c` are code, | pipes | and *stars*,\n"
    "& an entity &amp; and a fence left open:\n"
    "```\n"
    "<script>alert(1)</script>"
)


def _status(fd: FileDiff) -> str:
    if fd.status is FileStatus.MODIFIED:
        if fd.is_binary:
            return "binary"
        if not fd.hunks and fd.old_mode != fd.new_mode:
            return "mode"
    return fd.status.value


@dataclass
class _File:
    entry: dict[str, Any]
    text: str
    _sides: tuple[dict[int, str], dict[int, str]] | None = None

    def side(self, side: str) -> dict[int, str]:
        """The numbered lines of one side inside the hunks (read on first use)."""
        if self._sides is None:
            self._sides = _side_lines(self.text)
        return self._sides[0] if side == "new" else self._sides[1]


def _side_lines(text: str) -> tuple[dict[int, str], dict[int, str]]:
    """Each side's numbered lines inside the hunks of one file's diff text."""
    new: dict[int, str] = {}
    old: dict[int, str] = {}
    o = n = o_left = n_left = 0
    for line in text.split("\n"):
        if o_left > 0 or n_left > 0:
            kind, body = line[:1], line[1:]
            if kind in (" ", ""):
                o, n, o_left, n_left = o + 1, n + 1, o_left - 1, n_left - 1
                old[o], new[n] = body, body
            elif kind == "+":
                n, n_left = n + 1, n_left - 1
                new[n] = body
            elif kind == "-":
                o, o_left = o + 1, o_left - 1
                old[o] = body
            continue
        if line.startswith("@@ -"):
            head = line.split("@@")[1].split()
            o_start, _, o_count = head[0][1:].partition(",")
            n_start, _, n_count = head[1][1:].partition(",")
            o_left, n_left = int(o_count or 1), int(n_count or 1)
            o, n = int(o_start) - (1 if o_left else 0), int(n_start) - (1 if n_left else 0)
    return new, old


class DocumentBuilder:
    """Builds one review's export document over a diff; see the module docstring."""

    def __init__(self, diff: bytes, *, source: dict[str, Any] | None = None) -> None:
        parsed = parse_diff(diff)
        self.sha256 = hashlib.sha256(diff).hexdigest()
        self.source = source or {
            "kind": "file",
            "diff_file": "/tmp/changes.diff",
            "sha256": self.sha256,
        }
        self.files: dict[str, _File] = {}
        for fd in parsed.files:
            text = bytes(parsed.raw(fd)).decode("utf-8", errors="replace")
            entry = {
                "path": fd.path,
                "old_path": fd.old_path
                if fd.status in (FileStatus.RENAMED, FileStatus.COPIED)
                else None,
                "status": _status(fd),
                "state": "unseen",
                "excluded_reason": None,
                "added": fd.added,
                "removed": fd.removed,
                "binary": fd.is_binary,
                "hunks": [
                    {
                        "old_start": h.old_start,
                        "old_count": h.old_count,
                        "new_start": h.new_start,
                        "new_count": h.new_count,
                    }
                    for h in fd.hunks
                ],
            }
            if fd.path in self.files:  # a path in several sections (log -p): one entry
                self.files[fd.path].text += text
                continue
            self.files[fd.path] = _File(entry, text)
        self.findings: list[dict[str, Any]] = []
        self.review_id = 3
        self.revision_id = 7
        self.exported_at = "2026-11-25T12:00:00Z"
        self.loaded_at = "2026-11-25T11:58:00Z"

    def state(self, path: str, state: str, reason: str | None = None) -> DocumentBuilder:
        entry = self.files[path].entry
        entry["state"] = state
        entry["excluded_reason"] = reason
        return self

    def finding(
        self,
        path: str,
        severity: str,
        message: str,
        *,
        side: str = "new",
        line: int | None = None,
        end_line: int | None = None,
        suggestion: str | None = None,
        status: str = "open",
        lines: str | None = None,
        chunk: int | None = 1,
    ) -> dict[str, Any]:
        """Add a finding (lines ``line``..``end_line`` of ``side``; none: the whole file)."""
        if line is not None and end_line is None:
            end_line = line
        if lines is None and line is not None and path in self.files:
            numbered = self.files[path].side(side)
            lines = "".join(numbered[n] + "\n" for n in range(line, (end_line or line) + 1))
        finding = {
            "id": len(self.findings) + 1,
            "file_path": path,
            "side": side,
            "line": line,
            "end_line": end_line,
            "severity": severity,
            "status": status,
            "message": message,
            "suggestion": suggestion,
            "lines": lines,
            "chunk": chunk if line is not None else None,
            "created_at": f"2026-11-25T11:{len(self.findings) % 60:02d}:00Z",
            "updated_at": f"2026-11-25T11:{len(self.findings) % 60:02d}:30Z",
        }
        self.findings.append(finding)
        return finding

    def diffs(self) -> dict[str, str]:
        """Each file's raw diff text, as ``get_file_diff`` serves it."""
        return {path: f.text for path, f in self.files.items()}

    def document(self, status: str = "open") -> dict[str, Any]:
        """The export document, listing the open findings (``status="all"``: every one)."""
        files = [f.entry for f in self.files.values()]
        order = {f["path"]: i for i, f in enumerate(files)}
        chosen = [f for f in self.findings if status == "all" or f["status"] == "open"]
        chosen.sort(
            key=lambda f: (
                order.get(f["file_path"], len(order)),
                f["file_path"],
                f["side"] != "new",
                -1 if f["line"] is None else f["line"],
                f["id"],
            )
        )
        states = [f["state"] for f in files]
        reasons: dict[str, int] = {}
        for f in files:
            if f["state"] == "excluded":
                reasons[f["excluded_reason"]] = reasons.get(f["excluded_reason"], 0) + 1
        open_counts = dict.fromkeys(SEVERITY_ORDER, 0)
        for f in self.findings:
            if f["status"] == "open":
                open_counts[f["severity"]] += 1
        git = self.source["kind"] == "git"
        return {
            "format": "diffchunk-review",
            "format_version": 1,
            "tool": {"name": "diffchunk", "version": "0.3.0.dev0"},
            "exported_at": self.exported_at,
            "review": {
                "id": self.review_id,
                "source": self.source,
                "revision": {
                    "id": self.revision_id,
                    "base": self.source.get("base") if git else None,
                    "head": self.source.get("head") if git else None,
                    "sha256": self.sha256,
                    "loaded_at": self.loaded_at,
                },
            },
            "coverage": {
                "files": len(files),
                **{
                    s: states.count(s)
                    for s in ("reviewed", "seen", "unseen", "changed", "excluded")
                },
                "excluded_by_reason": reasons,
            },
            "findings_summary": {
                "open": open_counts,
                **{
                    s: sum(f["status"] == s for f in self.findings)
                    for s in ("resolved", "dismissed", "outdated")
                },
            },
            "files": files,
            "findings": chosen,
        }


def git_source(base: str = SAMPLE_BASE, head: str = SAMPLE_HEAD) -> dict[str, Any]:
    return {
        "kind": "git",
        "repository": "/home/dana/src/shop",
        "range": "main..feature",
        "base": base,
        "head": head,
        "name": "https://github.com/dana/shop.git",
    }


def sample_review(source: dict[str, Any] | None = None) -> DocumentBuilder:
    """The review of ``fixtures/review_sample.diff`` described in the module docstring:
    a table of its files' states and findings, one call each."""
    b = DocumentBuilder(SAMPLE_DIFF.read_bytes(), source=source or git_source())
    b.state("README.md", "reviewed").state("src/app.py", "seen").state("lib/util.py", "changed")
    b.state("package-lock.json", "excluded", "generated").state("old/legacy.py", "reviewed")
    app, guide = "src/app.py", "docs/guide with spaces.md"
    b.finding(
        app,
        "blocker",
        "A password default in the code ends up in every deployment: read it from the "
        "environment and fail when it is missing.",
        line=33,
        end_line=34,
        suggestion='    password = os.environ["SHOP_PASSWORD"]\n'
        '    return {"id": order["id"], "total": total(order["items"])}\n',
        chunk=2,
    )
    b.finding(
        app,
        "major",
        "The file is never closed: keep the `with` block.",
        line=22,
        end_line=23,
        suggestion="    with open(path) as f:\n        return json.load(f)\n",
        chunk=2,
    )
    b.finding(
        app,
        "minor",
        "Why drop the running total? It was easier to step through.",
        side="old",
        line=12,
        end_line=16,
    )
    b.finding(app, "nit", "Say *how* quantities are counted in the docstring.", line=13)
    b.finding(app, "question", "Is `os` used anywhere but `report`?", line=5)
    b.finding(app, "minor", "This module mixes I/O and pricing; split it in a follow-up.")
    b.finding(
        app,
        "major",
        "`with_tax` rounds nothing: cents drift.",
        line=20,
        end_line=21,
        status="outdated",
        lines="def with_tax(amount):\n    return amount * (1 + TAX_RATE)\n",
    )
    b.finding(guide, "major", HOSTILE_MESSAGE, line=5, end_line=9)
    b.finding(guide, "nit", "Trailing blank line & `|` in a table cell: fine.", line=10)
    b.finding(
        "lib/util.py",
        "minor",
        "Keep raising on an empty list; callers rely on it.",
        side="old",
        line=13,
        end_line=14,
    )
    b.finding(
        "lib/util.py",
        "nit",
        "`default` could be keyword-only.",
        line=13,
        suggestion="def first(items, *, default=None):\n",
    )
    b.finding(
        "old/legacy.py",
        "question",
        "Nothing imports this any more?",
        side="old",
        line=4,
        end_line=5,
    )
    b.finding(
        "src/café/naïve.py",
        "nit",
        "Use an f-string.",
        line=2,
        suggestion='    return f"Bonjour, {name} !"\n',
    )
    b.finding("src/café/naïve.py", "minor", "Add tests for this module.")
    b.finding("assets/logo.png", "question", "Was the new logo approved by design?")
    b.finding(app, "nit", "Resolved: the import order is fine now.", line=4, status="resolved")
    dismissed = b.finding(
        guide, "question", "Dismissed: the wording is intended.", line=5, status="dismissed"
    )
    dismissed["author"] = "assistant"
    dismissed["thread"] = [
        {"author": "Dana <dana@example.org>", "body": "Is it?", "at": "2026-11-25T11:50:00Z"},
        {
            "author": "Sam",
            "body": "Yes: the guide says *must*\non purpose.",
            "at": "2026-11-25T11:55:00Z",
            "status": "dismissed",
        },
    ]
    return b


def uncoloured(page: str) -> str:
    """An html export's text without its spans (the colours of its diff lines, and its
    badges): the rows as a reader reads them."""
    return re.sub(r"<span class=(?:'[^']*'|[\w-]+)>|</span>", "", page)
