"""Display formats of chunk text, checked against real files in real repositories."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from test_data import CORPUS

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.formatter import FORMATS, format_chunk
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument


def numbered(count: int, tag: str) -> bytes:
    return b"".join(f"{tag} line {i}\n".encode() for i in range(1, count + 1))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """base -> target: an edit, a rename with an edit, a new, a deleted and a binary file,
    a file losing its final newline, and a commit message."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    files = {
        "edit.py": numbered(60, "e"),
        "old_name.txt": numbered(40, "r"),
        "gone.txt": numbered(5, "g"),
        "noeol.txt": numbered(6, "n"),
        "pic.bin": bytes(range(256)) * 4,
    }
    for name, content in files.items():
        (root / name).write_bytes(content)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    rows = files["edit.py"].splitlines(keepends=True)
    rows[9] = b"e changed 10\n"
    del rows[30:33]
    rows[50:50] = [b"e inserted A\n", b"e inserted B\n"]
    (root / "edit.py").write_bytes(b"".join(rows))
    (root / "old_name.txt").unlink()
    (root / "new_name.txt").write_bytes(numbered(40, "r").replace(b"r line 20\n", b"r twenty\n"))
    (root / "gone.txt").unlink()
    (root / "added.txt").write_bytes(numbered(3, "a"))
    (root / "noeol.txt").write_bytes(numbered(6, "n").rstrip(b"\n"))
    (root / "pic.bin").write_bytes(bytes(range(255, -1, -1)) * 4)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Target commit subject\n\nBody of the message.")
    git(root, "tag", "target")
    return root


def new_file(repo: Path, path: str) -> list[str]:
    return git(repo, "show", f"target:{path}").decode().split("\n")


def old_file(repo: Path, path: str) -> list[str]:
    return git(repo, "show", f"base:{path}").decode().split("\n")


_NUMBERED = re.compile(r"^(\d+) ([ +])(.*)$")


def sections(text: str, title: str) -> str:
    """The block of ``text`` that belongs to the file titled ``title``."""
    start = text.index(title)
    end = text.find("\n## File:", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_raw_is_the_text_unchanged(repo: Path) -> None:
    data = git(repo, "diff", "--binary", "base", "target")
    assert format_chunk(data, "raw") == data.decode()
    assert format_chunk(b"caf\xe9\n", "raw") == "caf\ufffd\n"


def test_annotated_numbers_new_lines_as_in_the_new_file(repo: Path) -> None:
    data = git(repo, "diff", "--binary", "base", "target")
    text = format_chunk(data, "annotated")
    block = sections(text, "## File: 'edit.py'")
    target = new_file(repo, "edit.py")
    numbered_lines = [_NUMBERED.match(line) for line in block.splitlines()]
    hits = [m for m in numbered_lines if m]
    assert len(hits) > 10
    for m in hits:
        assert target[int(m.group(1)) - 1] == m.group(3)
    added = {m.group(3) for m in hits if m.group(2) == "+"}
    assert added == {"e changed 10", "e inserted A", "e inserted B"}
    # Old sections hold context and removed lines, in old-file order, unnumbered.
    old = old_file(repo, "edit.py")
    olds = block.split("__old hunk__")[1:]
    assert len(olds) == 2  # the pure insertion has no old section
    for part in olds:
        body = part.split("\n@@")[0].split("\n\n")[0].strip("\n").splitlines()
        assert all(line[:1] in " -" for line in body)
        contents = [line[1:] for line in body]
        first = old.index(contents[0])
        assert old[first : first + len(contents)] == contents
    assert "\n-e line 31\n" in block and "\n-e line 10\n" in block


def test_annotated_headers_name_what_happened(repo: Path) -> None:
    data = git(repo, "diff", "--binary", "-M", "base", "target")
    text = format_chunk(data, "annotated")
    assert re.search(
        r"^## File: 'new_name\.txt' \(renamed from 'old_name\.txt', \d+% similar\)$", text, re.M
    )
    assert "## File: 'gone.txt' (deleted)" in text
    assert "## File: 'added.txt' (new file, mode 100644)" in text
    assert "## File: 'pic.bin' (binary)" in text
    # The binary payload is not shown; the commit message of a stream is.
    assert "GIT binary patch" not in text and "literal " not in text
    renamed = sections(text, "## File: 'new_name.txt'")
    assert "20 +r twenty" in renamed and "-r line 20" in renamed
    deleted = sections(text, "## File: 'gone.txt'")
    assert "__old hunk__" in deleted and "-g line 5" in deleted


def test_no_newline_marker_stays_with_its_side(repo: Path) -> None:
    data = git(repo, "diff", "base", "target", "--", "noeol.txt")
    annotated = format_chunk(data, "annotated")
    new_part, old_part = annotated.split("__old hunk__")
    assert "6 +n line 6\n\\ No newline at end of file" in new_part
    assert "-n line 6\n" in old_part and "No newline" not in old_part
    compact = format_chunk(data, "compact")
    assert "6 +n line 6\n\\ No newline at end of file" in compact


def test_compact_keeps_only_the_new_side(repo: Path) -> None:
    data = git(repo, "diff", "--binary", "-M", "base", "target")
    compact = format_chunk(data, "compact")
    annotated = format_chunk(data, "annotated")
    assert "__old hunk__" not in compact
    assert not any(line.startswith("-") for line in compact.splitlines())
    assert "(3 removed lines)" in compact
    # Same numbered lines as the annotated new sections, and shorter.
    assert [m for m in compact.splitlines() if _NUMBERED.match(m)] == [
        m for m in annotated.splitlines() if _NUMBERED.match(m)
    ]
    assert len(compact) < len(annotated)
    assert "## File: 'gone.txt' (deleted)" in compact


def test_commit_message_is_shown_once_before_its_files(repo: Path) -> None:
    data = git(repo, "log", "-p", "-M", "base..target")
    for mode in ("annotated", "compact"):
        text = format_chunk(data, mode)
        assert text.count("Target commit subject") == 1
        assert text.index("Target commit subject") < text.index("## File:")


def test_split_chunk_parts_number_lines_of_the_final_file(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    git(root, "init", "-q")
    base = numbered(400, "b")
    (root / "big.txt").write_bytes(base)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    rng = random.Random(3)
    rows = base.splitlines(keepends=True)
    for k in sorted(rng.sample(range(400), 60), reverse=True):
        rows[k : k + 1] = [] if k % 2 else [b"new\n", b"b line %d\n" % k]
    (root / "big.txt").write_bytes(b"".join(rows))
    git(root, "commit", "-q", "-am", "target")
    git(root, "tag", "target")
    target = git(root, "show", "target:big.txt").decode().split("\n")
    parsed = parse_diff(git(root, "diff", "base", "target"))
    chunks = chunk_files(parsed, parsed.files, max_lines=40)
    assert len(chunks) > 3
    checked = 0
    for chunk in chunks:
        for mode in ("annotated", "compact"):
            for line in format_chunk(render_chunk(parsed, chunk), mode).splitlines():
                m = _NUMBERED.match(line)
                if m:
                    assert target[int(m.group(1)) - 1] == m.group(3)
                    checked += 1
    assert checked > 200


@pytest.mark.parametrize("mode", ["RAW", " annotated ", "Compact\n"])
def test_format_names_are_case_and_space_insensitive(mode: str) -> None:
    data = b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    expected = format_chunk(data, mode.strip().lower())
    assert format_chunk(data, mode) == expected


@pytest.mark.parametrize("mode", ["", "json", "annotate", "full"])
def test_unknown_format_lists_the_valid_ones(mode: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        format_chunk(b"", mode)
    for name in FORMATS:
        assert name in str(err.value)


def test_text_that_is_not_a_diff_is_shown_as_is() -> None:
    assert format_chunk(b"just words\n", "annotated") == "just words\n"
    assert format_chunk(b"", "compact") == ""


def test_combined_diff_numbers_lines_without_removed_columns() -> None:
    path = CORPUS / "flask_merge_cc.diff"
    if not path.is_file():
        pytest.skip("corpus file flask_merge_cc.diff is not available")
    data = path.read_bytes()
    parsed = parse_diff(data)
    hunk = parsed.files[0].hunks[0]
    assert len(hunk.parents) == 2
    body = parsed.raw(hunk).decode().split("\n")[1:-1]
    new_side = [line for line in body if line[:1] != "\\" and "-" not in line[:2]]
    text = format_chunk(data, "annotated")
    first_hunk = text.split("__new hunk__\n", 1)[1].split("__old hunk__")[0]
    shown = [line for line in first_hunk.splitlines() if re.match(r"^\d+ ", line)]
    assert shown == [f"{hunk.new_start + k} {line}" for k, line in enumerate(new_side)]
