"""The real diffs the harness mutates: fixtures, earlier failures, small corpus files."""

from __future__ import annotations

from pathlib import Path

from .draws import Source, chance

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
CRASH_DIR = FIXTURES / "fuzz"
CORPUS = ROOT.parent / "shared" / "corpus"
SMALL_CORPUS_BYTES = 1_000_000  # the corpus files used as seeds (not the 7 MB one)

SEED_SUFFIXES = (".diff", ".patch", ".mbox", ".txt")


def load_seeds(*, corpus: bool = True, crashes: bool = True) -> list[bytes]:
    """Real diffs to mutate: the fixtures, earlier crashers, small corpus files.

    ``crashes=False`` leaves out ``fixtures/fuzz/crash-*`` files (unnamed
    failures of a run still being looked at), for a fixed seed set.
    """
    paths: list[Path] = []
    for folder in (FIXTURES, CRASH_DIR):
        if folder.is_dir():
            paths += sorted(p for p in folder.iterdir() if p.suffix in SEED_SUFFIXES)
    if corpus and CORPUS.is_dir():
        paths += sorted(
            p
            for p in CORPUS.iterdir()
            if p.suffix in SEED_SUFFIXES and p.stat().st_size <= SMALL_CORPUS_BYTES
        )
    seeds = []
    for p in paths:
        if p.parent == CRASH_DIR and (
            p.name.endswith(".txt") or (not crashes and p.name.startswith("crash-"))
        ):
            continue  # tracebacks of crashers, not diffs
        seeds.append(p.read_bytes())
    return seeds


def excerpt(src: Source, data: bytes, max_lines: int = 400) -> bytes:
    """``data`` itself when small, else a window of whole lines of it."""
    if len(data) <= 20_000 and chance(src, 70):
        return data
    lines = data.splitlines(keepends=True)
    if len(lines) <= max_lines:
        return data
    size = src.integer(10, max_lines)
    # start more often at a section header, so windows hold whole files
    start = src.integer(0, len(lines) - size)
    if chance(src, 60):
        for k in range(start, min(len(lines), start + 300)):
            if lines[k].startswith((b"diff ", b"commit ", b"From ")):
                start = k
                break
    return b"".join(lines[start : start + size])
