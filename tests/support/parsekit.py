"""Helpers of the parser tests (``tests/test_parser_*.py``): where the fixtures and the
shared corpus are, and the invariants every parse must hold."""

from __future__ import annotations

from pathlib import Path

from diffchunk.diff.model import ParsedDiff, SegmentKind
from diffchunk.diff.parser import parse_diff

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"


def check_invariants(parsed: ParsedDiff, data: bytes) -> None:
    """Sections tile the input in order; hunks tile each file's body; totals add up."""
    assert b"".join(parsed.raw(s) for s in parsed.sections()) == data
    pos = 0
    for section in parsed.sections():
        assert section.start == pos
        assert section.end >= section.start
        pos = section.end
    assert pos == len(data)
    for f in parsed.files:
        assert f.start <= f.header_end <= f.end
        at = f.header_end
        for h in f.hunks:
            assert h.start == at and h.start < h.body_start <= h.end
            at = h.end
        assert at == f.end or not f.hunks
        assert f.added == sum(h.added for h in f.hunks)
        assert f.removed == sum(h.removed for h in f.hunks)
        assert f.commit is None or 0 <= f.commit < len(parsed.commits)
    for c in parsed.commits:
        assert parsed.segments[c.segment].kind is SegmentKind.COMMIT


def parse_checked(data: bytes) -> ParsedDiff:
    parsed = parse_diff(data)
    check_invariants(parsed, data)
    return parsed
