"""Commit headers and messages of ``git log -p`` and ``git format-patch`` streams.

Grammar::

    log-commit  = "commit " sha [SP decorations] LF *header-line LF message
    mbox-commit = "From " mbox-sha " Mon Sep 17 00:00:00 2001" LF mail-headers LF
                  message "---" LF [diffstat]
    sha         = 7*64HEXDIG
    mbox-sha    = 40HEXDIG / 64HEXDIG       ; SHA-1, or SHA-256 object format

A commit runs to the next section start; in a format-patch mail, text
before the ``---`` line is message even when it looks like a diff.  The
subject is the first non-blank message line (``git log``) or the
``Subject:`` header without its ``[PATCH ...]`` tag, RFC 2047 words decoded
(format-patch).  Each commit becomes a ``COMMIT`` segment, and the file
sections after it belong to it.
"""

from __future__ import annotations

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffData
from diffchunk.diff.model import Commit, Segment, SegmentKind

from .cursor import Cursor

__all__ = ["read_commit"]


def read_commit(r: Cursor, s: int, kind: str) -> int:
    """Read the commit header and message at ``s`` (``kind``: ``commit`` for
    ``git log``, ``mbox`` for format-patch); returns its end."""
    data = r.data
    r.gap(s)
    m = (sx.LOG_COMMIT if kind == "commit" else sx.MBOX_FROM).match(data, s)
    sha = m.group(1).decode("ascii") if m else None
    end, _ = r.next_section(r.line_end(s))
    if kind == "mbox":
        # the message ends at the first "---" line: skip diff-like text before it
        limit = sx.MBOX_FROM_ANYWHERE.search(data, r.line_end(s))
        sep = sx.MAIL_SEPARATOR.search(data, s, limit.start() if limit else r.limit)
        if sep is not None and sep.start() + 1 > end:
            end, _ = r.next_section(sep.end())
        subject = _mail_subject(data, s, end)
    else:
        subject = _log_subject(data, s, end)
    index = len(r.commits)
    r.commits.append(Commit(index=index, sha=sha, subject=subject, segment=len(r.segments)))
    r.segments.append(Segment(start=s, end=end, kind=SegmentKind.COMMIT, commit=index))
    r.commit = index
    r.gap_start = end
    return end


def _log_subject(data: DiffData | bytearray, start: int, end: int) -> str:
    blank = sx.BLANK_LINE.search(data, start, end)
    pos = start if blank is None else blank.end()
    while pos < end:
        nl = data.find(b"\n", pos, end)
        line = data[pos : end if nl < 0 else nl]
        text = line.strip()
        if text:
            return text.decode("utf-8", errors="replace")
        if nl < 0:
            break
        pos = nl + 1
    return ""


def _mail_subject(data: DiffData | bytearray, start: int, end: int) -> str:
    m = sx.MAIL_SUBJECT.search(data, start, end)
    if m is None:
        return ""
    raw = b" ".join(part.strip() for part in m.group(1).split(b"\n"))
    text = raw.decode("utf-8", errors="replace")
    if "=?" in text:
        try:
            from email.errors import MessageError
            from email.header import decode_header, make_header  # rare: not at import

            text = str(make_header(decode_header(text)))
        except (ValueError, LookupError, UnicodeError, MessageError):  # e.g. CharsetError
            pass
    return sx.PATCH_TAG.sub("", text, count=1).strip()
