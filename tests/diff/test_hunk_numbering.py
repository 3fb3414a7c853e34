"""The one numbering of a hunk's body lines (diff.hunk.number_lines), against git: each
numbered line is that line of the file on its side, as str and as bytes (the
review record reads findings' lines, and the HTML export numbers rows, with it)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import commit, git, git_bytes, init_repo
from recordkit import numbered

from diffchunk.diff.hunk import number_lines
from diffchunk.diff.parser import parse_diff


def test_numbered_lines_are_the_lines_of_each_side(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"m.txt": numbered("m", 200), "gone.txt": "x\ny\n", "end.txt": "a\nb"})
    lines = numbered("m", 200, {5: "five!", 90: "ninety!", 91: "ninety-one!"}).splitlines()
    del lines[150:153]
    lines[40:40] = ["new a", "new b"]
    git(repo, "rm", "-q", "gone.txt")
    commit(repo, {"m.txt": "\n".join(lines) + "\n", "end.txt": "a\nB"})
    data = git_bytes(repo, "diff", "HEAD~1", "HEAD")
    parsed = parse_diff(data)
    checked = 0
    for fd in parsed.files:
        sides = {
            "old": git(repo, "show", f"HEAD~1:{fd.path}").splitlines(),
            "new": []
            if fd.path == "gone.txt"
            else git(repo, "show", f"HEAD:{fd.path}").splitlines(),
        }
        for hunk in fd.hunks:
            body = bytes(data[hunk.body_start : hunk.end])
            for kind, lines_of in ((bytes, body.splitlines()), (str, body.decode().splitlines())):
                numbered_lines = list(
                    number_lines(
                        lines_of,
                        hunk.old_start,
                        hunk.new_start,
                        old_count=hunk.old_count,
                        new_count=hunk.new_count,
                    )
                )
                # Every line of the body, once; a note after the last line (its counts
                # used up) is the caller's.
                trailing_note = lines_of[-1][:1] in (b"\\", "\\")
                assert len(numbered_lines) == len(lines_of) - trailing_note
                for line, old, new in numbered_lines:
                    text = line[1:].decode() if kind is bytes else line[1:]  # type: ignore[union-attr]
                    if old:
                        assert sides["old"][old - 1] == text, (fd.path, old, line)
                    if new:
                        assert sides["new"][new - 1] == text, (fd.path, new, line)
                    assert old or new or line[:1] in (b"\\", "\\")
                    checked += 1
    assert checked > 20
