"""Every pattern a caller searches with, compiled for RE2: matched in time linear in the text.

One engine for every search (``search_content``, ``search_diff``, and any
search added later): :func:`compile_regex` for a regular expression,
:func:`compile_literal` for text matched as it is (with Unicode case
folding).  Nothing else compiles a pattern a caller supplied.

- **Syntax.**  Patterns are written in Python's ``re`` syntax and parsed by
  Python's own parser (its errors are the caller's), then written out for
  RE2, which runs in time linear in the text and releases the interpreter
  lock while it matches.  What RE2 cannot run without backtracking is
  refused with :class:`~diffchunk.errors.InvalidArgument` naming it:
  backreferences, lookahead and lookbehind, atomic groups and possessive
  quantifiers, conditional groups; so are repeat counts above
  :data:`MAX_REPEAT` and patterns whose program exceeds RE2's memory.
- **Meaning kept.**  ``\\d``, ``\\w``, ``\\s`` and their negations are
  Python's Unicode classes (ASCII ones under ``(?a)``); case folding is
  Unicode (ASCII letters only under ``(?a)``); ``.``, ``^``, ``$`` and
  inline flags mean what they mean in Python.  Patterns are compiled in
  line mode (``re.MULTILINE``): ``^`` and ``$`` match at line breaks.
  The one difference: ``\\b`` and ``\\B`` see ASCII words only (RE2 has no
  Unicode word boundary).
- **Invariant.**  A text searched without line mode (``\\A``, ``\\Z``, or
  ``^``/``$`` under ``(?-m)``) holds no final line break: ``$`` there is the
  end of the text.  :attr:`Pattern.ends_of_text` says when a pattern has
  such an assertion, so that a search over many lines at once tries it on
  each line alone.
- **Offsets.**  :meth:`Pattern.search` works on UTF-8 bytes and gives byte
  offsets; :meth:`Pattern.search_text` and :meth:`Pattern.spans` take a
  ``str`` and give character offsets.
- **Speed.**  A search calls the binding's ``RE2.Match`` itself (``re2._re2``,
  the extension under google-re2's ``re``-like wrapper): the wrapper's
  generator and match object cost more than the match of a diff line (6 µs
  against 14 µs a line, measured under load; Python's ``re`` takes 0.4 µs
  when it does not backtrack).  A case-sensitive literal is found with
  ``bytes.find`` instead (:attr:`Pattern.needle`): RE2 runs a literal in time
  proportional to the text times the literal, ``find`` in time linear in the text.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import re2
from re2 import _re2

from .errors import InvalidArgument

MAX_REPEAT = 1000
"""The largest repeat count (``x{n}``, ``x{m,n}``) a caller's regex may hold:
RE2's own bound (a larger one is refused with that message, not RE2's)."""

MAX_TRANSLATED_CHARS = 1 << 20
"""Characters of RE2 syntax one caller's regex may be written out as: a class
holding ``\\W`` becomes about 700 ranges (15 KB), and a pattern of thousands
of them would be parsed by RE2 only to be refused as too large."""


__all__ = ["MAX_REPEAT", "Pattern", "compile_literal", "compile_regex"]

Buffer = bytes | bytearray | memoryview


def _sre() -> tuple[Any, Any]:
    """Python's own regex parser and its constants (``re._parser`` from 3.11 on)."""
    try:
        return importlib.import_module("re._parser"), importlib.import_module("re._constants")
    except ImportError:  # Python 3.10
        return importlib.import_module("sre_parse"), importlib.import_module("sre_constants")


_PARSER, _C = _sre()
_IGNORECASE = _C.SRE_FLAG_IGNORECASE
_MULTILINE = _C.SRE_FLAG_MULTILINE
_DOTALL = _C.SRE_FLAG_DOTALL
_ASCII = _C.SRE_FLAG_ASCII

# What RE2 refuses, by Python's parse operation: the name a message gives it, and
# what to do instead.
_UNSUPPORTED: dict[str, tuple[str, str]] = {
    "GROUPREF": (
        "a backreference (\\1, (?P=name))",
        "match the repeated text itself, or search for one part and read around it",
    ),
    "GROUPREF_EXISTS": ("a conditional group (?(1)...)", "search for each case separately"),
    "ASSERT": (
        "a lookahead or lookbehind ((?=...), (?<=...))",
        "match the text around as part of the pattern (foo(?=bar) -> foobar)",
    ),
    "ASSERT_NOT": (
        "a negative lookahead or lookbehind ((?!...), (?<!...))",
        "narrow the pattern with a class instead ([^x]), or search without that condition",
    ),
    "ATOMIC_GROUP": ("an atomic group (?>...)", "use a plain group (?:...)"),
    "POSSESSIVE_REPEAT": ("a possessive quantifier (*+, ++, ?+)", "use a plain quantifier"),
}

# Class contents of Python's categories, for RE2 (Unicode ones, then ASCII ones).
_SPACE_UNICODE = (
    "\\x{9}-\\x{d}\\x{1c}-\\x{20}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"
)
_POSITIVE = {
    "CATEGORY_DIGIT": ("\\p{Nd}", "0-9"),
    "CATEGORY_WORD": ("\\p{L}\\p{N}_", "0-9A-Za-z_"),
    "CATEGORY_SPACE": (_SPACE_UNICODE, "\\x{9}-\\x{d} "),
}
_NEGATED = {
    "CATEGORY_NOT_DIGIT": "CATEGORY_DIGIT",
    "CATEGORY_NOT_WORD": "CATEGORY_WORD",
    "CATEGORY_NOT_SPACE": "CATEGORY_SPACE",
}
_PROBES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_WORD": r"\w", "CATEGORY_SPACE": r"\s"}
_ASCII_RANGES = {
    "CATEGORY_DIGIT": ((48, 57),),
    "CATEGORY_WORD": ((48, 57), (65, 90), (95, 95), (97, 122)),
    "CATEGORY_SPACE": ((9, 13), (32, 32)),
}
_LAST = sys.maxunicode
_NEVER = "[^\\x{0}-\\x{10ffff}]"
_UNANCHORED = _re2.RE2.Anchor.UNANCHORED


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled pattern (see the module docstring for its meaning)."""

    text: str
    """The pattern as the caller wrote it."""
    ends_of_text: bool
    """It asserts the start or end of the text (``\\A``, ``\\Z``, ``^``/``$`` under
    ``(?-m)``): a search over several lines must try it on each line alone."""
    compiled: Any
    """The binding's ``RE2`` object."""
    needle: bytes | None = None
    """A case-sensitive literal's UTF-8 bytes, found with ``bytes.find``: RE2 runs a long
    literal in time proportional to the text times the literal (a 30,000-character
    pattern took 2 s of CPU on one line of its own length), ``find`` in time linear in
    the text."""

    def search(self, data: Buffer, pos: int = 0, end: int | None = None) -> tuple[int, int] | None:
        """The byte span of the first match in UTF-8 ``data[pos:end]``, or None (the text
        around ``data[pos:end]`` is its context: ``^``, ``\\b`` see it)."""
        stop = len(data) if end is None else end
        if pos > stop:
            return None
        if self.needle is not None and not isinstance(data, memoryview):
            at = data.find(self.needle, pos, stop)
            return None if at < 0 else (at, at + len(self.needle))
        span = self.compiled.Match(_UNANCHORED, data, pos, stop)[0]
        return None if span[0] < 0 else span

    def search_text(self, text: str) -> tuple[int, int] | None:
        """The character span of the first match in ``text``, or None."""
        data = text.encode("utf-8", "surrogatepass")
        span = self.search(data)
        if span is None or len(data) == len(text):
            return span
        first = _char_count(data, 0, span[0])
        return first, first + _char_count(data, span[0], span[1])

    def iter_spans(self, data: bytes) -> Iterator[tuple[int, int]]:
        """The byte spans of the matches in UTF-8 ``data``, empty ones included, left to
        right as ``re.finditer`` gives them (after an empty match, the next character)."""
        pos = 0
        while pos <= len(data):
            span = self.search(data, pos)
            if span is None:
                return
            yield span
            pos = span[1] if span[1] > span[0] else _next_char(data, span[1])

    def spans(self, text: str, limit: int | None = None) -> list[tuple[int, int]]:
        """The character spans of the non-empty matches in ``text`` (the first ``limit``)."""
        data = text.encode("utf-8", "surrogatepass")
        ascii_only = len(data) == len(text)
        found: list[tuple[int, int]] = []
        chars = byte = 0  # a character offset and its byte offset, moving forward
        for start, stop in self.iter_spans(data):
            if limit is not None and len(found) >= limit:
                break
            if stop == start:
                continue
            if ascii_only:
                found.append((start, stop))
                continue
            chars += _char_count(data, byte, start)
            first = chars
            chars += _char_count(data, start, stop)
            byte = stop
            found.append((first, chars))
        return found


def _char_count(data: bytes, start: int, stop: int) -> int:
    """Characters in ``data[start:stop]`` (UTF-8, cut at character boundaries)."""
    return len(data[start:stop].decode("utf-8", "surrogatepass"))


def _next_char(data: bytes, pos: int) -> int:
    """The offset of the character after the one at ``pos``."""
    pos += 1
    while pos < len(data) and data[pos] & 0xC0 == 0x80:
        pos += 1
    return pos


def compile_literal(text: str, *, case_sensitive: bool) -> Pattern:
    """``text`` matched as it is (case folded the Unicode way unless ``case_sensitive``)."""
    options = _options()
    options.literal = True
    options.case_sensitive = case_sensitive
    data = text.encode("utf-8", "surrogatepass")
    return Pattern(text, False, _compiled(text, data, options), data if case_sensitive else None)


def compile_regex(pattern: str, *, case_sensitive: bool = True) -> Pattern:
    """A regular expression in Python's syntax (line mode on), for RE2.

    Raises :class:`InvalidArgument` for a pattern Python refuses, one using
    what RE2 does not support (named in the message), or one too large.
    """
    flags = _MULTILINE | (0 if case_sensitive else _IGNORECASE)
    try:
        parsed = _PARSER.parse(pattern, flags)
    except _C.error as exc:
        raise InvalidArgument(
            f"Invalid regular expression {pattern!r}: {exc}.",
            suggestion="Fix the pattern (Python re syntax), or search for the text as it is "
            "(regex=false).",
        ) from None
    except RecursionError:
        raise _too_large(pattern, "its groups are nested too deeply") from None
    writer = _Writer(pattern)
    try:
        translated = writer.pattern(parsed.data, parsed.state.flags)
    except RecursionError:
        raise _too_large(pattern, "its groups are nested too deeply") from None
    return Pattern(pattern, writer.ends_of_text, _compiled(pattern, translated, _options()))


def _options() -> Any:
    options = re2.Options()
    options.never_capture = True  # spans of the whole match only: RE2's fastest engines
    options.log_errors = False
    return options


def _compiled(pattern: str, translated: str | bytes, options: Any) -> Any:
    raw = translated.encode("utf-8", "surrogatepass") if isinstance(translated, str) else translated
    compiled = _re2.RE2(raw, options)
    if not compiled.ok():
        raise _too_large(pattern, _re2_message(compiled.error()))
    return compiled


def _re2_message(message: bytes | str) -> str:
    return message.decode("utf-8", "replace") if isinstance(message, bytes) else message


def _too_large(pattern: str, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"The regular expression {pattern!r} is too large for the search engine ({why}).",
        suggestion="Use a shorter pattern, fewer nested groups or smaller repeat counts.",
    )


def _unsupported(pattern: str, op: str) -> InvalidArgument:
    what, instead = _UNSUPPORTED[op]
    return InvalidArgument(
        f"The regular expression {pattern!r} uses {what}, which the search engine does not "
        "support: it runs every pattern in time linear in the text (RE2), without "
        "backtracking.",
        suggestion=f"Rewrite it without: {instead}.",
    )


class _Writer:
    """Writes one parsed Python pattern out in RE2 syntax (see the module docstring)."""

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self.ends_of_text = False
        self.size = 0

    def pattern(self, items: Iterable[tuple[Any, Any]], flags: int) -> str:
        head = "(?i)" if _folds(flags) else ""
        return head + self.sequence(items, flags)

    def sequence(self, items: Iterable[tuple[Any, Any]], flags: int) -> str:
        out = "".join(self.item(op, av, flags) for op, av in items)
        self.size += len(out)
        if self.size > MAX_TRANSLATED_CHARS:
            raise _too_large(self.source, "its classes and repeats are too many")
        return out

    def item(self, op: Any, av: Any, flags: int) -> str:
        name = str(op)
        if name in _UNSUPPORTED:
            raise _unsupported(self.source, name)
        if name == "LITERAL":
            return _literal(av, flags)
        if name == "NOT_LITERAL":
            return "[^" + _class_items([("LITERAL", av)], flags) + "]"
        if name == "ANY":
            return "(?s:.)" if flags & _DOTALL else "[^\\n]"
        if name == "IN":
            return _class(av, flags)
        if name == "CATEGORY":
            return _category(str(av), flags)
        if name == "AT":
            return self.at(str(av), flags)
        if name == "BRANCH":
            return "(?:" + "|".join(self.sequence(branch, flags) for branch in av[1]) + ")"
        if name == "SUBPATTERN":
            return self.group(av, flags)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            return self.repeat(av, flags, lazy=name == "MIN_REPEAT")
        raise InvalidArgument(
            f"The regular expression {self.source!r} uses {name}, which the search engine "
            "does not support.",
            suggestion="Rewrite the pattern without it.",
        )

    def at(self, code: str, flags: int) -> str:
        line_mode = bool(flags & _MULTILINE)
        if code == "AT_BEGINNING" and line_mode:
            return "(?m:^)"
        if code == "AT_END" and line_mode:
            return "(?m:$)"
        if code in ("AT_BOUNDARY", "AT_NON_BOUNDARY"):
            return "\\b" if code == "AT_BOUNDARY" else "\\B"
        self.ends_of_text = True
        return "\\A" if code in ("AT_BEGINNING", "AT_BEGINNING_STRING") else "\\z"

    def group(self, av: Any, flags: int) -> str:
        _group, add, remove, body = av
        inner = (flags | add) & ~remove
        text = self.sequence(body, inner)
        if _folds(inner) != _folds(flags):
            return ("(?i:" if _folds(inner) else "(?-i:") + text + ")"
        return "(?:" + text + ")"

    def repeat(self, av: Any, flags: int, *, lazy: bool) -> str:
        low, high, body = av
        for count in (low, high):
            if count != _C.MAXREPEAT and count > MAX_REPEAT:
                raise InvalidArgument(
                    f"The regular expression {self.source!r} repeats something {count} times; "
                    f"the search engine allows at most {MAX_REPEAT}.",
                    suggestion="Use a smaller count, or * or + for any number.",
                )
        if high == _C.MAXREPEAT:
            quantifier = "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
        elif low == high:
            quantifier = f"{{{low}}}"
        else:
            quantifier = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
        return "(?:" + self.sequence(body, flags) + ")" + quantifier + ("?" if lazy else "")


def _folds(flags: int) -> bool:
    """Whether RE2 folds case here: Unicode folding (ASCII folding is written out)."""
    return bool(flags & _IGNORECASE) and not flags & _ASCII


def _ascii_folds(flags: int) -> bool:
    return bool(flags & _IGNORECASE) and bool(flags & _ASCII)


def _char(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:x}}}"


def _literal(code: int, flags: int) -> str:
    if _ascii_folds(flags) and chr(code).isascii() and chr(code).isalpha():
        return "[" + _char(code) + _char(ord(chr(code).swapcase())) + "]"
    return _char(code)


def _category(code: str, flags: int) -> str:
    if code in _NEGATED:
        return "[^" + _category_items(_NEGATED[code], flags) + "]"
    return "[" + _category_items(code, flags) + "]"


def _category_items(code: str, flags: int) -> str:
    unicode_items, ascii_items = _POSITIVE[code]
    return ascii_items if flags & _ASCII else unicode_items


def _class(items: list[tuple[Any, Any]], flags: int) -> str:
    negate = bool(items) and str(items[0][0]) == "NEGATE"
    body = _class_items([(str(op), av) for op, av in items[negate:]], flags)
    if not body:
        return _NEVER if not negate else "(?s:.)"
    return ("[^" if negate else "[") + body + "]"


def _class_items(items: list[tuple[str, Any]], flags: int) -> str:
    """The contents of an RE2 class holding the union of Python's class ``items``."""
    ranges: list[tuple[int, int]] = []
    parts: list[str] = []
    for op, av in items:
        if op == "LITERAL":
            ranges.append((av, av))
        elif op == "RANGE":
            ranges.append(av)
        elif op == "CATEGORY" and str(av) in _NEGATED:
            ranges.extend(_complement(_category_ranges(_NEGATED[str(av)], flags)))
        elif op == "CATEGORY":
            parts.append(_category_items(str(av), flags))
    if _ascii_folds(flags):
        ranges += [swapped for low, high in ranges for swapped in _ascii_swapped(low, high)]
    parts.extend(
        _char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges
    )
    return "".join(parts)


def _ascii_swapped(low: int, high: int) -> list[tuple[int, int]]:
    """The other case of the ASCII letters in ``low..high``."""
    out = []
    for first, last, shift in ((65, 90, 32), (97, 122, -32)):
        a, b = max(low, first), min(high, last)
        if a <= b:
            out.append((a + shift, b + shift))
    return out


def _category_ranges(code: str, flags: int) -> tuple[tuple[int, int], ...]:
    return _ASCII_RANGES[code] if flags & _ASCII else _unicode_ranges(code)


@functools.cache
def _unicode_ranges(code: str) -> tuple[tuple[int, int], ...]:
    """The code points of a Python category, as ranges (from Python's own ``re``).

    Only a class that holds a negated category (``[^\\W\\d]``) needs them:
    built once, on first use.
    """
    import re

    everything = "".join(map(chr, range(_LAST + 1)))
    probe = re.compile(_PROBES[code] + "+")
    return tuple((m.start(), m.end() - 1) for m in probe.finditer(everything))


def _complement(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    next_free = 0
    for low, high in sorted(ranges):
        if low > next_free:
            out.append((next_free, low - 1))
        next_free = max(next_free, high + 1)
    if next_free <= _LAST:
        out.append((next_free, _LAST))
    return out
