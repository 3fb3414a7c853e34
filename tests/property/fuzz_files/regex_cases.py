"""Random Python regexes over a file's alphabet (sometimes invalid ones, or ones RE2 refuses)."""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass

from .textfile import TextFile, model_lines, random_file


@dataclass(frozen=True)
class RegexCase:
    file: TextFile
    pattern: str


REGEX_LITERALS = ("a", "b", "o", "f", "r", "z", "x", "y", "9", "A", "B", "é", "É", "€", "à", " ")
REGEX_ESCAPES = (r"\t", r"\.", r"\x20", r"\(", r"\u00e9", r"\xe9", r"\xc9", r"\N{EURO SIGN}")
REGEX_CLASSES: tuple[str, ...] = (".", r"\w", r"\d", r"\S", "[ab]", "[a-z]", "[A-Z]", "[éÉ]")
REGEX_CLASSES += (r"[\w€]", "[0-9]", "[ (]", r"[\t ]", "[à-é]")
REGEX_ASSERTIONS = ("^", "$", r"\b", r"\B")
# What a line-by-line search and a search over several lines at once can see
# differently: line breaks, the "\r" of CRLF, the ends of the text.
REGEX_ACROSS = (r"\s", r"\W", r"\D", "[^ab]", r"[^\w]", "[^a-zé ]", r"[\s\S]", r"\n", r"\r")
REGEX_ACROSS_ASSERTIONS = (r"\A", r"\Z", r"(?-m:^)", r"(?-m:$)")
# Lookarounds: refused (RE2 cannot run them), so drawn rarely.
REGEX_LOOKAROUNDS = ("(?=a)", "(?!a)", "(?<=a)", "(?<!a)", r"(?!\s)", r"(?<=\s)", r"(?<=o\n)")
REGEX_FLAGS = ("(?i)", "(?a)", "(?m)", "(?ia)")
REGEX_INVALID = ("(", "[a", "a{2,1}", "*a", "a\\", "(?<=a+)b", r"\p{L}", "a)", r"\8", "(?P<1>a)")
REGEX_BOUNDED = ("?", "??", "{1,2}", "{2}", "{0,2}", "{1,2}?")
REGEX_UNBOUNDED = ("*", "+", "*?", "+?", "{1,}")


def random_regex_case(rng: random.Random) -> RegexCase:
    return regex_case_for(rng, random_file(rng))


def regex_case_for(rng: random.Random, tf: TextFile) -> RegexCase:
    """A pattern for ``tf``."""
    return RegexCase(tf, random_regex(rng, tf))


class _RegexBuilder:
    """Builds one random pattern (a fresh builder per pattern).

    Most patterns start from a piece of a line with some characters written
    another way (a class, ``.``, an escape) so that they match somewhere;
    the rest are random units.
    """

    def __init__(self, rng: random.Random, tf: TextFile) -> None:
        self.rng = rng
        self.lines = [line for line in model_lines(tf) if line]
        self.unbounded = 1  # at most one unbounded quantifier: no catastrophic backtracking
        self.groups = 0
        self.closed = 0

    def pattern(self) -> str:
        rng = self.rng
        body = self.branch()
        if rng.random() < 0.15:
            body = f"{body}|{self.branch()}"
        if rng.random() < 0.12:
            body = rng.choice(REGEX_FLAGS) + body
        elif rng.random() < 0.05:
            body = "(?s)" + body
        return body

    def branch(self) -> str:
        if self.lines and self.rng.random() < 0.65:
            return self.from_line()
        return self.sequence(self.rng.randint(1, 3))

    def from_line(self) -> str:
        rng = self.rng
        line = rng.choice(self.lines)
        start = rng.randrange(len(line))
        end = min(len(line), start + rng.randint(1, 10))
        parts = []
        if start == 0 and rng.random() < 0.4:
            parts.append(r"\A" if rng.random() < 0.3 else "^")
        for char in line[start:end]:
            roll = rng.random()
            if roll < 0.55:
                atom = re.escape(char.swapcase() if rng.random() < 0.1 else char)
            elif roll < 0.72:
                atom = self.class_of(char)
            elif roll < 0.8:
                atom = "."
            elif roll < 0.9:
                atom = _escape_of(rng, char)
            else:
                parts.append(self.unit())
                continue
            parts.append(self.quantified(atom))
        if end == len(line) and rng.random() < 0.4:
            parts.append(r"\Z" if rng.random() < 0.3 else "$")
        return "".join(parts)

    def class_of(self, char: str) -> str:
        """A class (or category) holding ``char``."""
        if char.isdigit():
            pool: tuple[str, ...] = (r"\d", r"\w", "[0-9]", r"\S")
        elif char.isalpha():
            pool = (r"\w", r"\S", "[^\\W\\d]", "[a-zA-Zéà-ÿ]")
        elif char in " \t":
            pool = (r"\s", r"\W", r"[^\w]", "[\t ]")
        else:
            pool = (r"\W", r"\S", r"[^\w\s]")
        return self.rng.choice(pool)

    def sequence(self, count: int) -> str:
        return "".join(self.unit() for _ in range(count))

    def quantified(self, atom: str) -> str:
        rng = self.rng
        if rng.random() >= 0.3:
            return atom
        if self.unbounded and rng.random() < 0.5:
            self.unbounded -= 1
            return atom + rng.choice(REGEX_UNBOUNDED)
        return atom + rng.choice(REGEX_BOUNDED)

    def unit(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return self.quantified(rng.choice(REGEX_LITERALS))
        if roll < 0.33:
            return self.quantified(rng.choice(REGEX_ESCAPES))
        if roll < 0.6:
            return self.quantified(rng.choice(REGEX_CLASSES + REGEX_ACROSS))
        if roll < 0.74:
            return rng.choice(REGEX_ASSERTIONS + REGEX_ACROSS_ASSERTIONS)
        if roll < 0.75:
            return rng.choice(REGEX_LOOKAROUNDS)
        if roll < 0.92 and self.groups < 3:
            capturing = rng.random() < 0.6
            self.groups += capturing
            inner = self.sequence(rng.randint(1, 2))
            if rng.random() < 0.3:
                inner = f"{inner}|{self.sequence(1)}"
            if capturing:
                self.closed = self.groups
            group = f"({inner})" if capturing else f"(?:{inner})"
            return group + (rng.choice(REGEX_BOUNDED) if rng.random() < 0.3 else "")
        if self.closed and rng.random() < 0.2:  # a backreference: refused
            return f"\\{rng.randint(1, self.closed)}"
        return self.quantified(rng.choice(REGEX_LITERALS))


def _escape_of(rng: random.Random, char: str) -> str:
    """``char`` written as a ``\\x``, ``\\u`` or ``\\N{...}`` escape."""
    code = ord(char)
    forms = [f"\\u{code:04x}"]
    if code < 256:
        forms.append(f"\\x{code:02x}")
    if not char.isascii():
        forms.append("\\N{" + unicodedata.name(char) + "}")
    return rng.choice(forms)


def random_regex(rng: random.Random, tf: TextFile) -> str:
    """A random Python regex over ``tf``'s alphabet (sometimes an invalid one)."""
    if rng.random() < 0.04:
        return rng.choice(REGEX_INVALID)
    return _RegexBuilder(rng, tf).pattern()
