"""Re-indenting the replacement of a fuzzy edit to the indentation of the matched lines.

A fuzzy match may find the search text's lines at another indentation (the
text was typed with four spaces, the file uses tabs, or the block sits one
level deeper).  The replacement is then moved by the difference between the
first indentation of the search text and that of the matched lines (first
non-blank line of each): lines starting with the text's indentation get the
file's instead; less indented lines move by the width difference.  Blank
lines are left alone.

A re-indentation that would make a line's indentation hold both tabs and
spaces where it did not before (Python refuses such a file) is refused
(:class:`MixedIndentation`), unless the matched lines mix them themselves.
"""

from __future__ import annotations


class MixedIndentation(Exception):
    """Re-indenting would mix tabs and spaces: ``file_kind`` vs ``text_kind``."""

    def __init__(self, file_kind: str, text_kind: str) -> None:
        super().__init__(f"{file_kind} vs {text_kind}")
        self.file_kind = file_kind
        self.text_kind = text_kind


def leading_ws(line: str) -> str:
    """The blanks a line starts with."""
    return line[: len(line) - len(line.lstrip())]


def first_indent(lines: list[str]) -> str | None:
    """The indentation of the first non-blank line, or None when all are blank."""
    for line in lines:
        if line.strip():
            return leading_ws(line)
    return None


def indent_kind(indent: str) -> str:
    """``tabs`` or ``spaces``: what an indentation is made of."""
    return "tabs" if "\t" in indent else "spaces"


def reindent(lines: list[str], source_indent: str, target_indent: str) -> list[str]:
    """Shift replacement lines from the search text's indentation to the file's.

    Lines starting with ``source_indent`` get it swapped for
    ``target_indent``; less indented lines move by the width difference
    (adding the target's leading characters, or removing leading
    whitespace).  Blank lines are left alone.
    """
    if source_indent == target_indent:
        return lines
    delta = len(target_indent) - len(source_indent)
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif line.startswith(source_indent):
            out.append(target_indent + line[len(source_indent) :])
        elif delta > 0:
            out.append(target_indent[:delta] + line)
        else:
            lead = len(leading_ws(line))
            out.append(line[min(-delta, lead) :])
    return out


def _newly_mixed(given: list[str], reindented: list[str]) -> bool:
    """Whether re-indenting made a line's indentation hold both tabs and spaces
    (Python refuses such a file); alignment the text had itself does not count."""

    def mixed(line: str) -> bool:
        indent = leading_ws(line)
        return bool(line.strip()) and "\t" in indent and " " in indent

    return any(mixed(new) and not mixed(old) for old, new in zip(given, reindented, strict=True))


def reindent_replacement(text: str, search_lines: list[str], matched_lines: list[str]) -> str:
    """``text`` (the replacement) moved from the indentation of ``search_lines``
    to that of ``matched_lines``; :class:`MixedIndentation` when that would mix
    tabs and spaces (see the module doc)."""
    src_indent = first_indent(search_lines)
    dst_indent = first_indent(matched_lines)
    if src_indent is None or dst_indent is None or src_indent == dst_indent:
        return text
    given = text.split("\n")
    lines = reindent(given, src_indent, dst_indent)
    if (
        indent_kind(src_indent) != indent_kind(dst_indent)
        and not ("\t" in dst_indent and " " in dst_indent)  # the file mixes them itself
        and _newly_mixed(given, lines)
    ):
        raise MixedIndentation(indent_kind(dst_indent), indent_kind(src_indent))
    return "\n".join(lines)
