"""search_content: exact/regex/fuzzy/inverted search agrees with grep; guards and errors."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from growing import appending_first

from diffchunk.errors import FileToolError, InvalidArgument
from diffchunk.files import grep
from diffchunk.files.access import clear_cache, open_text_version
from diffchunk.files.content_search import search_content

needs_grep = pytest.mark.skipif(shutil.which("grep") is None, reason="grep not installed")


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


@pytest.fixture(scope="module")
def log_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(42)
    levels = ["DEBUG", "INFO", "INFO", "WARN", "ERROR"]
    lines = []
    for i in range(40_000):
        level = rng.choice(levels)
        extra = " ERROR again" if level == "ERROR" and rng.random() < 0.3 else ""
        status = rng.choice([200, 200, 404, 500, 503])
        lines.append(f"{i:06d} [{level}] worker-{rng.randrange(9)} status={status} msg=job{extra}")
    path = tmp_path_factory.mktemp("logs") / "app.log"
    path.write_text("\n".join(lines) + "\nError: final line without newline", encoding="utf-8")
    return path


def _grep(*args: str) -> int:
    done = subprocess.run(["grep", *args], capture_output=True, text=True, env={"LC_ALL": "C"})
    return int(done.stdout.strip())


@needs_grep
@pytest.mark.parametrize(
    ("kwargs", "grep_args"),
    [
        ({"pattern": "ERROR"}, ["-c", "-F", "ERROR"]),
        ({"pattern": "error", "case_sensitive": False}, ["-c", "-i", "-F", "error"]),
        ({"pattern": "ERROR", "invert": True}, ["-c", "-v", "-F", "ERROR"]),
        ({"pattern": r"status=50[0-9]", "regex": True}, ["-c", "-E", "status=50[0-9]"]),
        ({"pattern": r"^0000[0-9]{2} ", "regex": True}, ["-c", "-E", "^0000[0-9]{2} "]),
        ({"pattern": "not present anywhere"}, ["-c", "-F", "not present anywhere"]),
    ],
)
def test_count_only_equals_grep_c(
    log_file: Path, kwargs: dict[str, object], grep_args: list[str]
) -> None:
    result = search_content(str(log_file), fuzzy=False, count_only=True, **kwargs).to_dict()  # type: ignore[arg-type]
    assert result["count"] == _grep(*grep_args, str(log_file))


@needs_grep
def test_results_line_numbers_and_total_match_grep_n(log_file: Path) -> None:
    result = search_content(
        str(log_file), "ERROR again", fuzzy=False, max_results=15, context_lines=1
    ).to_dict()
    done = subprocess.run(
        ["grep", "-n", "-F", "ERROR again", str(log_file)], capture_output=True, text=True
    )
    expected = [line.split(":", 1) for line in done.stdout.splitlines()]
    assert result["total_matches"] == len(expected)
    assert [r["line_number"] for r in result["results"]] == [int(n) for n, _ in expected[:15]]
    first = result["results"][0]
    assert first["match"] == expected[0][1]
    assert first["match_type"] == "exact" and first["similarity_score"] == 1.0
    start = first["match"].index("ERROR again")
    assert first["submatches"][0] == {"start": start, "end": start + len("ERROR again")}
    assert len(first["context_before"]) == 1 and len(first["context_after"]) == 1


def test_inverted_search_lists_non_matching_lines(tmp_path: Path) -> None:
    path = tmp_path / "mix.txt"
    path.write_text("keep 1\nDEBUG x\nkeep 2\nDEBUG y\nDEBUG z\nkeep 3", encoding="utf-8")
    result = search_content(str(path), "DEBUG", invert=True, fuzzy=False, context_lines=0).to_dict()
    assert [(r["line_number"], r["match"]) for r in result["results"]] == [
        (1, "keep 1"),
        (3, "keep 2"),
        (6, "keep 3"),
    ]
    assert result["total_matches"] == 3
    assert result["inverted"] is True


def test_fuzzy_finds_misspelt_word_inside_a_long_line(tmp_path: Path) -> None:
    filler = "lorem ipsum dolor sit amet " * 40
    long_line = filler[:1000] + " we never receive the payload " + filler[:970]
    assert len(long_line) >= 2000
    path = tmp_path / "long.txt"
    path.write_text("short line\n" + long_line + "\nanother short line\n", encoding="utf-8")
    result = search_content(str(path), "recieve", fuzzy=True).to_dict()
    assert result["total_matches"] == 1
    hit = result["results"][0]
    assert hit["line_number"] == 2
    assert hit["match_type"] == "fuzzy" and 0.8 <= hit["similarity_score"] < 1.0
    assert hit["truncated"] is True and len(hit["match"]) <= 500
    span = hit["submatches"][0]
    assert "receive" in long_line[span["start"] - 2 : span["end"] + 2]
    # The shown excerpt contains the matched word.
    assert "receive" in hit["match"]


def test_fuzzy_ranks_exact_first_and_is_case_insensitive(tmp_path: Path) -> None:
    path = tmp_path / "code.py"
    path.write_text(
        "def process_data(items):\n    pass\n\ndef proces_dta(x):\n    pass\nPROCESS_DATA = 1\n",
        encoding="utf-8",
    )
    result = search_content(str(path), "process_data", max_results=5).to_dict()
    scores = [r["similarity_score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)
    assert {r["line_number"] for r in result["results"] if r["match_type"] == "exact"} == {1, 6}
    assert any(r["line_number"] == 4 and r["match_type"] == "fuzzy" for r in result["results"])


def test_case_insensitive_non_ascii_exact_and_regex(tmp_path: Path) -> None:
    path = tmp_path / "menu.txt"
    path.write_text("CAFÉ au lait\nthé vert\ncafé noir\n", encoding="utf-8")
    exact = search_content(str(path), "café", fuzzy=False, case_sensitive=False).to_dict()
    assert [r["line_number"] for r in exact["results"]] == [1, 3]
    regex = search_content(
        str(path), "th[éè]", fuzzy=False, regex=True, case_sensitive=False
    ).to_dict()
    assert [r["line_number"] for r in regex["results"]] == [2]
    sensitive = search_content(str(path), "café", fuzzy=False).to_dict()
    assert [r["line_number"] for r in sensitive["results"]] == [3]


def test_search_in_cp1252_and_utf16_files(tmp_path: Path) -> None:
    cp = tmp_path / "cp.txt"
    cp.write_bytes("prix: 5€\nLe café\n".encode("cp1252"))
    assert [
        r["line_number"] for r in search_content(str(cp), "café", fuzzy=False).to_dict()["results"]
    ] == [2]
    u16 = tmp_path / "u16.txt"
    u16.write_bytes(b"\xff\xfe" + "alpha\nbeta needle\ngamma\n".encode("utf-16-le"))
    result = search_content(str(u16), "needle", fuzzy=False).to_dict()
    assert [(r["line_number"], r["match"]) for r in result["results"]] == [(2, "beta needle")]


def test_parameter_errors(log_file: Path) -> None:
    with pytest.raises(InvalidArgument, match="fuzzy=False"):
        search_content(str(log_file), "x", regex=True, fuzzy=True)
    with pytest.raises(InvalidArgument, match="Invalid regular expression"):
        search_content(str(log_file), "([", regex=True, fuzzy=False)
    with pytest.raises(InvalidArgument, match="empty"):
        search_content(str(log_file), "")
    with pytest.raises(InvalidArgument, match="max_results"):
        search_content(str(log_file), "x", max_results=0)


def test_count_only_warns_about_ignored_parameters(log_file: Path) -> None:
    result = search_content(
        str(log_file), "WARN", fuzzy=False, count_only=True, max_results=5
    ).to_dict()
    assert any("max_results ignored" in w for w in result["warnings"])
    assert "results" not in result


def test_binary_file_refused(tmp_path: Path) -> None:
    path = tmp_path / "img.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    with pytest.raises(FileToolError, match="binary"):
        search_content(str(path), "x")


@needs_grep
@pytest.mark.parametrize(
    "kwargs",
    [
        {"pattern": "ERROR"},
        {"pattern": "error", "case_sensitive": False},
        {"pattern": "ERROR", "invert": True},
        {"pattern": "-v"},
        {"pattern": "status=500 msg"},
    ],
)
def test_grep_delegation_and_python_scan_agree(
    tmp_path: Path, log_file: Path, monkeypatch: pytest.MonkeyPatch, kwargs: dict[str, object]
) -> None:
    # A BOM, CRLF endings and an unterminated last line on top of the log.
    path = tmp_path / "bom.log"
    path.write_bytes(
        b"\xef\xbb\xbf" + log_file.read_bytes().replace(b"\n", b"\r\n") + b"\r\n-v ERROR"
    )
    monkeypatch.setattr(grep, "GREP_MIN_BYTES", 0)
    with_grep = search_content(str(path), fuzzy=False, count_only=True, **kwargs).to_dict()  # type: ignore[arg-type]
    listed_grep = search_content(str(path), fuzzy=False, max_results=3, **kwargs).to_dict()  # type: ignore[arg-type]
    clear_cache()
    monkeypatch.setenv("DIFFCHUNK_NO_GREP", "1")
    python = search_content(str(path), fuzzy=False, count_only=True, **kwargs).to_dict()  # type: ignore[arg-type]
    listed_python = search_content(str(path), fuzzy=False, max_results=3, **kwargs).to_dict()  # type: ignore[arg-type]
    assert with_grep["count"] == python["count"]
    assert listed_grep["total_matches"] == listed_python["total_matches"] == python["count"]
    assert listed_grep["results"] == listed_python["results"]


def _fuzzy_lines(path: Path, pattern: str) -> list[tuple[int, float]]:
    found = search_content(
        str(path), pattern, fuzzy=True, max_results=50, context_lines=0
    ).to_dict()
    return sorted((r["line_number"], r["similarity_score"]) for r in found["results"])


def test_fuzzy_search_ignores_case_beyond_ascii(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    lines = [
        "first line",
        "CAFÉ au lait",
        "ПРИВЕТ мир",
        "nothing here",
        "café crème",
        "Привет, как дела",
        "ΟΔΥΣΣΕΥΣ",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for pattern in ("café", "CAFÉ", "Café"):
        assert _fuzzy_lines(path, pattern) == [(2, 1.0), (5, 1.0)], pattern
    for pattern in ("привет", "ПРИВЕТ"):
        assert _fuzzy_lines(path, pattern) == [(3, 1.0), (6, 1.0)], pattern
    assert _fuzzy_lines(path, "οδυσσευς") == [(7, 1.0)]
    # A typo still scores as a fuzzy match across cases.
    assert [line for line, score in _fuzzy_lines(path, "приват") if score < 1.0] == [3, 6]


def test_fuzzy_search_folds_characters_that_grow_when_lowered(tmp_path: Path) -> None:
    # "İ".lower() is two characters: the byte offsets of the lines after it
    # must still be right.  So must those of a cp1252 file.
    path = tmp_path / "grow.txt"
    lines = ["İİİİ istanbul", "plain", "ÉCOLE İzmir", "école", "last ÉCOLE"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = search_content(
        str(path), "école", fuzzy=True, max_results=10, context_lines=0
    ).to_dict()
    assert sorted((r["line_number"], r["match"]) for r in found["results"]) == [
        (3, "ÉCOLE İzmir"),
        (4, "école"),
        (5, "last ÉCOLE"),
    ]
    legacy = tmp_path / "legacy.txt"
    legacy.write_bytes("# sample\nLE CAFÉ\nprix 5€\nle café\n".encode("cp1252"))
    assert _fuzzy_lines(legacy, "café") == [(2, 1.0), (4, 1.0)]


def test_lines_appended_while_grep_runs_are_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.log"
    path.write_bytes(b"".join(b"INFO line %05d\n" % i for i in range(1, 3001)))
    monkeypatch.setattr(grep, "GREP_MIN_BYTES", 0)
    version = open_text_version(str(path))
    late = b"ERROR appended while grep ran\n"
    monkeypatch.setattr(grep.subprocess, "Popen", appending_first(path, late, subprocess.Popen))
    # The grown file is not this version: grep's answer is dropped (the
    # caller then scans the version's own bytes).
    assert grep.grep_count(version, "ERROR", case_sensitive=True, invert=False) is None
    assert grep.grep_search(version, "ERROR", case_sensitive=True, invert=False, limit=5) is None


def _search_results(path: Path, pattern: str, **kw: object) -> list[dict[str, object]]:
    clear_cache()
    found = search_content(str(path), pattern, **kw).to_dict()  # type: ignore[arg-type]
    return [
        {k: v for k, v in r.items() if k not in ("context_before", "context_after")}
        for r in found["results"]
    ]


@pytest.mark.parametrize(
    ("pattern", "options"),
    [
        ("NEEDLE", {"fuzzy": False}),
        ("needle", {"fuzzy": False, "case_sensitive": False}),
        ("^ab", {"regex": True, "fuzzy": False}),
        ("yz$", {"regex": True, "fuzzy": False}),
        ("q+", {"regex": True, "fuzzy": False}),
        ("é+x", {"regex": True, "fuzzy": False}),
        ("TAILMARK", {"fuzzy": False}),
        ("NEEDLE", {"fuzzy": False, "invert": True}),
        ("needle", {"fuzzy": True}),
    ],
)
def test_a_long_matched_line_read_in_pieces_gives_what_the_whole_line_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str, options: dict[str, object]
) -> None:
    """Lines over PIECEWISE_LINE_BYTES are decoded piece by piece (tiny pieces here, so
    matches, runs of q, multi-byte characters and CRLF ends straddle them)."""
    from diffchunk.files import content_search, longline

    rng = random.Random(7)
    parts = ["ab"]
    for i in range(400):
        # runs of q end at an x: no match is longer than 40 characters
        parts.append(
            rng.choice(["xyz", "é" * rng.randint(1, 9) + "x", "q" * rng.randint(1, 40) + "x"])
        )
        if i % 37 == 5:
            parts.append("NEEDLE")
    long = "".join(parts) + "TAILMARKyz"
    text = f"first line\r\n{long}\r\nNEEDLE short\nab{long}\n{long}yz"
    path = tmp_path / "long-lines.txt"
    path.write_bytes(text.encode("utf-8"))

    whole = _search_results(path, pattern, **options)
    assert whole, "the pattern must match something for the comparison to mean anything"
    monkeypatch.setattr(content_search, "PIECEWISE_LINE_BYTES", 64)
    for piece, overlap in ((61, 45), (97, 41), (120, 50), (256, 64), (1000, 300)):
        monkeypatch.setattr(longline, "LONG_LINE_PIECE_BYTES", piece)
        monkeypatch.setattr(longline, "_OVERLAP_CHARS", overlap)
        assert _search_results(path, pattern, **options) == whole, (piece, overlap)


def test_a_long_matched_line_is_never_decoded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.files import content_search, longline

    path = tmp_path / "one-line.log"
    path.write_bytes(b"a" * 300_000 + b"NEEDLE" + b"b" * 300_000 + b"\n")
    monkeypatch.setattr(content_search, "PIECEWISE_LINE_BYTES", 1 << 16)
    monkeypatch.setattr(longline, "LONG_LINE_PIECE_BYTES", 1 << 16)
    decoded: list[int] = []
    real = longline.codecs.getincrementaldecoder

    def spy(encoding: str) -> object:
        cls = real(encoding)

        class Counting(cls):  # type: ignore[valid-type,misc]
            def decode(self, data: bytes, final: bool = False) -> str:
                decoded.append(len(data))
                return str(super().decode(data, final))

        return Counting

    monkeypatch.setattr(longline.codecs, "getincrementaldecoder", spy)
    monkeypatch.setattr(
        type(open_text_version(str(path))),
        "decode",
        lambda self, raw: pytest.fail(f"decoded {len(raw)} bytes at once"),
    )
    (hit,) = search_content(str(path), "NEEDLE", fuzzy=False).to_dict()["results"]
    assert hit["truncated"] and hit["line_length"] == 600_006
    assert hit["submatches"] == [{"start": 300_000, "end": 300_006}]
    assert hit["match_offset"] == 300_000 - 125 and "NEEDLE" in hit["match"]
    assert decoded and max(decoded) <= 1 << 16


@needs_grep
@pytest.mark.parametrize("invert", [False, True])
def test_grep_listing_steps_over_long_lines_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, invert: bool
) -> None:
    """grep prints every listed line whole: it is read in blocks and stepped over,
    and the hits are those of the Python scan (long lines, CRLF, a BOM, an
    unterminated matching last line)."""
    rng = random.Random(3)
    lines = []
    for i in range(40):
        body = "".join(rng.choice("abc ") for _ in range(rng.choice([10, 3000, 200_000])))
        lines.append(f"{i} {body} {'KEY' if i % 3 == 0 else ''} {body[:50]}end")
    path = tmp_path / "long.log"
    path.write_bytes(
        b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\nlast KEY " + b"z" * 70_000
    )
    monkeypatch.setattr(grep, "GREP_MIN_BYTES", 0)
    monkeypatch.setattr(grep, "_LISTING_BLOCK", 512)
    reads: list[int] = []
    real = grep._read_listing

    def spy(version: object, kind: str, stream: object) -> object:
        hits = real(version, kind, stream)  # type: ignore[arg-type]
        reads.append(len(hits))  # parsed to the end (a parse error falls back to Python)
        return hits

    monkeypatch.setattr(grep, "_read_listing", spy)
    options = {"fuzzy": False, "invert": invert, "max_results": 8, "context_lines": 1}
    with_grep = search_content(str(path), "KEY", **options).to_dict()  # type: ignore[arg-type]
    assert reads == [8], "the grep listing was not used, or not parsed to its end"
    clear_cache()
    monkeypatch.setenv("DIFFCHUNK_NO_GREP", "1")
    python = search_content(str(path), "KEY", **options).to_dict()  # type: ignore[arg-type]
    assert with_grep["total_matches"] == python["total_matches"] == (26 if invert else 15)
    assert with_grep["results"] == python["results"]
    assert len(with_grep["results"]) == 8


@pytest.mark.parametrize("pattern", ["NEDLEE", "TAILMRK"])
def test_a_long_line_without_the_literal_shows_its_best_fuzzy_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    """Read in pieces, a fuzzy match with no literal one is placed at an alignment as
    good as the best of the whole line (rapidfuzz may pick another of equal score)."""
    from rapidfuzz import fuzz

    from diffchunk.files import content_search, longline

    rng = random.Random(11)
    line = (
        "".join(
            rng.choice(["xyz", "qqq", "éx", "NEEDLE" if rng.random() < 0.01 else "ab"])
            for _ in range(3000)
        )
        + "TAILMARK"
        + "z" * 300
    )
    path = tmp_path / "fuzzy-long.txt"
    path.write_text(f"short\n{line}\n")
    best = fuzz.partial_ratio_alignment(pattern.lower(), line.lower())
    assert best is not None
    monkeypatch.setattr(content_search, "PIECEWISE_LINE_BYTES", 64)
    monkeypatch.setattr(longline, "LONG_LINE_PIECE_BYTES", 700)
    monkeypatch.setattr(longline, "_OVERLAP_CHARS", 50)
    (hit,) = [r for r in _search_results(path, pattern, fuzzy=True) if r["line_number"] == 2]
    [span] = hit["submatches"]
    placed = line[span["start"] : span["end"]]
    assert fuzz.ratio(pattern.lower(), placed.lower()) == pytest.approx(best.score)
    shift = hit["match_offset"]
    assert hit["match"] == line[shift : shift + content_search.MATCH_CHARS]
    assert shift <= span["start"] and span["end"] <= shift + content_search.MATCH_CHARS
    assert hit["line_length"] == len(line)
