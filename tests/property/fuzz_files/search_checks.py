"""Exact, regex and fuzzy ``search_content`` against their models, in every scanner mode."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from diffchunk.errors import InvalidArgument
from diffchunk.files import access, fuzzy, grep, longline
from diffchunk.files.content_search import search_content

from .cases import FuzzySearchCase, SearchCase
from .measures import at_least
from .models import FuzzyModel, expected_lines, fuzzy_search_model, regex_lines
from .regex_cases import RegexCase
from .textfile import check_detection, model_lines


@contextmanager
def search_mode(mode: str) -> Iterator[None]:
    """``python`` (in-process scan), ``smallwin`` (the same in 64-byte line-aligned
    windows: longer lines are long lines, read in pieces), ``tinypieces`` (and
    those pieces 8 bytes long, with 64 characters before each: every piece
    boundary is met), ``grep`` (hand-off forced) or ``nogrep`` (hand-off
    threshold passed but disabled by DIFFCHUNK_NO_GREP)."""
    saved_min = grep.GREP_MIN_BYTES
    saved_env = os.environ.get("DIFFCHUNK_NO_GREP")
    windows = access.FileVersion.windows
    saved_defaults = windows.__defaults__
    saved_pieces = (
        longline.LONG_LINE_PIECE_BYTES,
        longline._OVERLAP_CHARS,
        fuzzy.LONG_LINE_PIECE_BYTES,
    )
    try:
        if mode in ("smallwin", "tinypieces"):
            windows.__defaults__ = (None, None, 64)
        if mode == "tinypieces":
            longline.LONG_LINE_PIECE_BYTES, longline._OVERLAP_CHARS, fuzzy.LONG_LINE_PIECE_BYTES = (
                8,
                64,
                8,
            )
        if mode in ("grep", "nogrep"):
            grep.GREP_MIN_BYTES = 0
        if mode == "nogrep":
            os.environ["DIFFCHUNK_NO_GREP"] = "1"
        else:
            os.environ.pop("DIFFCHUNK_NO_GREP", None)
        yield
    finally:
        windows.__defaults__ = saved_defaults
        longline.LONG_LINE_PIECE_BYTES, longline._OVERLAP_CHARS, fuzzy.LONG_LINE_PIECE_BYTES = (
            saved_pieces
        )
        grep.GREP_MIN_BYTES = saved_min
        if saved_env is None:
            os.environ.pop("DIFFCHUNK_NO_GREP", None)
        else:
            os.environ["DIFFCHUNK_NO_GREP"] = saved_env


SEARCH_MODES = ("python", "smallwin", "tinypieces", "grep", "nogrep")


def check_search(case: SearchCase, directory: Path) -> None:
    """Raise AssertionError when exact ``search_content`` disagrees with the model."""
    path = directory / "search.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    for mode in SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                for invert in (False, True):
                    want = expected_lines(case, case_sensitive=case_sensitive, invert=invert)
                    where = f"mode={mode} case_sensitive={case_sensitive} invert={invert}"
                    _compare_lines(
                        path, case.pattern, lines, want, where,
                        regex=False, case_sensitive=case_sensitive, invert=invert,
                    )  # fmt: skip


def _compare_lines(
    path: Path,
    pattern: str,
    lines: list[str],
    want: list[int],
    where: str,
    **options: bool,
) -> None:
    """Exact or regex ``search_content`` (and its count) must list exactly ``want``."""
    access.clear_cache()
    try:
        found = search_content(
            str(path), pattern, max_results=500, context_lines=0, fuzzy=False, **options
        ).to_dict()
        counted = search_content(
            str(path), pattern, fuzzy=False, count_only=True, **options
        ).to_dict()
    except Exception as exc:
        raise AssertionError(f"{where}: raised {exc!r}") from None
    got = [item["line_number"] for item in found["results"]]
    assert got == want, f"{where}: lines {got}, model {want}"
    assert found["total_matches"] == len(want), (
        f"{where}: total {found['total_matches']}, model {len(want)}"
    )
    shown = [item["match"] for item in found["results"]]
    assert shown == [lines[n - 1] for n in want], f"{where}: texts {shown}"
    assert counted["count"] == len(want), f"{where}: count {counted['count']}, model {len(want)}"


def check_regex_search(case: RegexCase, directory: Path) -> str:
    """Raise AssertionError when regex ``search_content`` disagrees with ``re`` per line."""
    path = directory / "regex.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    tag = ""
    for mode in SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                hits = regex_lines(case.pattern, lines, case_sensitive=case_sensitive)
                if hits is None:
                    _expect_invalid(path, case.pattern, f"mode={mode}", case_sensitive)
                    tag = "invalid pattern"
                    break
                if case_sensitive:
                    tag = _share(len(hits), len(lines))
                for invert in (False, True):
                    want = [n for n in range(1, len(lines) + 1) if (n in hits) != invert]
                    where = f"mode={mode} case_sensitive={case_sensitive} invert={invert}"
                    _compare_lines(
                        path, case.pattern, lines, want, where,
                        regex=True, case_sensitive=case_sensitive, invert=invert,
                    )  # fmt: skip
    return tag


def _share(hits: int, lines: int) -> str:
    if not hits:
        return "no line matches"
    return "every line matches" if hits == lines else "some lines match"


def _expect_invalid(path: Path, pattern: str, where: str, case_sensitive: bool) -> None:
    for count_only in (False, True):
        access.clear_cache()
        try:
            search_content(
                str(path),
                pattern,
                fuzzy=False,
                regex=True,
                case_sensitive=case_sensitive,
                count_only=count_only,
            )
        except InvalidArgument:
            continue
        except Exception as exc:
            raise AssertionError(f"{where}: invalid pattern raised {exc!r}") from None
        raise AssertionError(f"{where}: invalid pattern {pattern!r} accepted")


FUZZY_SEARCH_MODES = ("python", "smallwin", "tinypieces")


def check_fuzzy_search(case: FuzzySearchCase, directory: Path) -> str:
    """Raise AssertionError when fuzzy ``search_content`` breaks the documented rule."""
    path = directory / "fuzzy.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    model = fuzzy_search_model(case.pattern, lines)
    tag = ""
    for mode in FUZZY_SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                where = f"mode={mode} case_sensitive={case_sensitive}"
                tag = _check_fuzzy_found(path, case.pattern, lines, model, where, case_sensitive)
            # fuzzy is ignored with invert: an exact inverted search.
            access.clear_cache()
            want = expected_lines(
                SearchCase(case.file, case.pattern), case_sensitive=True, invert=True
            )
            found = search_content(
                str(path), case.pattern, max_results=500, context_lines=0, invert=True
            ).to_dict()
            got = [item["line_number"] for item in found["results"]]
            assert got == want, f"mode={mode} invert: lines {got}, model {want}"
    return tag


def _check_fuzzy_found(
    path: Path,
    pattern: str,
    lines: list[str],
    model: FuzzyModel,
    where: str,
    case_sensitive: bool,
) -> str:
    access.clear_cache()
    try:
        found = search_content(
            str(path), pattern, max_results=500, context_lines=0, case_sensitive=case_sensitive
        ).to_dict()
        counted = search_content(str(path), pattern, count_only=True).to_dict()
    except Exception as exc:
        raise AssertionError(f"{where}: raised {exc!r}") from None
    results = found["results"]
    reported = []
    for item in results:
        number = item["line_number"]
        assert 1 <= number <= len(lines), f"{where}: line {number} of {len(lines)}"
        verdict = model.lines[number - 1]
        score = item["similarity_score"]
        assert at_least(verdict.score, model.cutoff) is not False, (
            f"{where}: line {number} {lines[number - 1]!r} reported with {score}, "
            f"model score {float(verdict.score):.4f} < cutoff {float(model.cutoff)}"
        )
        assert abs(score - float(verdict.score)) <= 0.00005 + 1e-9, (
            f"{where}: line {number} {lines[number - 1]!r} scored {score}, "
            f"model {float(verdict.score):.5f}"
        )
        assert (item["match_type"] == "exact") == (verdict.score == 1), (
            f"{where}: line {number} typed {item['match_type']} with model score "
            f"{float(verdict.score):.4f}"
        )
        assert item["match"] == lines[number - 1], f"{where}: line {number} shown {item['match']!r}"
        reported.append(number)
    order = [(-model.lines[n - 1].score, n) for n in reported]
    assert order == sorted(order), f"{where}: results not best first: {reported}"
    assert len(set(reported)) == len(reported), f"{where}: a line reported twice: {reported}"
    assert found["total_matches"] == len(reported), (
        f"{where}: total {found['total_matches']}, {len(reported)} results"
    )
    assert counted["count"] == len(reported), f"{where}: count {counted['count']}"
    missed = [n for n, v in enumerate(model.lines, 1) if v.must_find and n not in reported]
    assert not missed, (
        f"{where}: missed lines {missed} "
        + ", ".join(f"{lines[n - 1]!r} ({float(model.lines[n - 1].score):.3f})" for n in missed)
        + f"; reported {reported}"
    )
    if not reported:
        return "nothing found"
    types = {item["match_type"] for item in results}
    return "fuzzy lines found" if "fuzzy" in types else "only exact lines found"
