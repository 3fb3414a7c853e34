from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from diffchunk.files import changed_symbols
from diffchunk.files.changed_symbols import mark_changes
from diffchunk.files.outline import OutlineItem, build_outline, iter_items, outline_for_file

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ORIGINAL = """\
class Service:
    def start(self):
        return 1

    def stop(self):
        return 2

    def obsolete(self):
        return 3


def keep():
    return 4


def gone():
    return 5
"""

CHANGED = """\
class Service:
    def start(self):
        return 100

    def stop(self):
        return 2


def keep():
    return 4


def fresh():
    return 6
"""


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t",
    )
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "svc.py").write_text(ORIGINAL)
    git(root, "add", "svc.py")
    git(root, "commit", "-qm", "initial")
    return root


def marks(outline: list[OutlineItem]) -> dict[str, str | None]:
    return {item.name: item.changes for item in iter_items(outline)}


def outline_of(path: Path) -> list[OutlineItem]:
    return build_outline(path.read_bytes(), "python")


def test_modified_added_and_removed_symbols_against_head(repo: Path) -> None:
    path = repo / "svc.py"
    path.write_text(CHANGED)
    outline = outline_of(path)
    count = mark_changes(str(path), outline)
    assert marks(outline) == {
        "Service": "modified",
        "start": "modified",
        "stop": None,
        "obsolete": "removed",
        "keep": None,
        "fresh": "added",
        "gone": "removed",
    }
    assert count == 5
    # Removed symbols keep HEAD's line numbers and sit under their old parent.
    service = outline[0]
    assert [(c.name, c.changes) for c in service.children][-1] == ("obsolete", "removed")
    obsolete = service.children[-1]
    assert (obsolete.line_number, obsolete.end_line, obsolete.type) == (8, 9, "method")
    top_level = [(i.name, i.changes, i.line_number) for i in outline]
    assert top_level[-1] == ("gone", "removed", 16)


def test_unchanged_file_marks_nothing(repo: Path) -> None:
    path = repo / "svc.py"
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert set(marks(outline).values()) == {None}


def test_untracked_file_is_all_added(repo: Path) -> None:
    path = repo / "new_module.py"
    path.write_text("class A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n")
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 3
    assert set(marks(outline).values()) == {"added"}


def test_a_file_git_ignores_marks_nothing(repo: Path) -> None:
    """An ignored file (a build output, a vendored bundle) is no change of the
    repository's: none of its symbols is "added" (9,793 were, in an ignored
    typescript.js)."""
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    path = repo / "build" / "bundle.py"
    path.write_text("class A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n")
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert set(marks(outline).values()) == {None}


def test_repository_without_commits_marks_everything_added(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    path = tmp_path / "a.py"
    path.write_text("def f():\n    pass\n")
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 1
    assert outline[0].changes == "added"


def test_deleted_lines_inside_a_function_mark_it_modified(repo: Path) -> None:
    path = repo / "svc.py"
    path.write_text(
        ORIGINAL.replace("def keep():\n    return 4\n", "def keep():\n    x = 0\n    return 4\n")
    )
    git(repo, "commit", "-qam", "longer keep")
    path.write_text(ORIGINAL)  # "x = 0" deleted: a pure deletion hunk
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 1
    assert marks(outline)["keep"] == "modified"
    assert marks(outline)["gone"] is None


def test_marking_twice_does_not_duplicate_removed_items(repo: Path) -> None:
    path = repo / "svc.py"
    path.write_text(CHANGED)
    outline = outline_of(path)
    first = mark_changes(str(path), outline)
    second = mark_changes(str(path), outline)
    assert first == second == 5
    assert [i.name for i in outline].count("gone") == 1


def test_outside_a_git_repository_nothing_is_marked(tmp_path: Path) -> None:
    probe = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "--is-inside-work-tree"], capture_output=True
    )
    if probe.returncode == 0:
        pytest.skip("the temporary directory lies inside a git work tree")
    path = tmp_path / "x.py"
    path.write_text("def f():\n    pass\n")
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert outline[0].changes is None


def test_a_file_in_the_git_directory_is_not_marked(repo: Path) -> None:
    path = repo / ".git" / "helper.py"
    path.write_text("def f():\n    pass\n")
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert outline[0].changes is None


def test_missing_git_degrades_to_no_marks(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-such-bin"))
    path = repo / "svc.py"
    path.write_text(CHANGED)
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert set(marks(outline).values()) == {None}


def test_a_git_that_takes_too_long_is_stopped_and_nothing_is_marked(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    slow = bin_dir / "git"
    pid_file = tmp_path / "diff.pid"
    # A git whose diff hangs; everything else is the real git.
    slow.write_text(
        "#!/bin/sh\n"
        f'for a; do [ "$a" = diff ] && echo $$ > {pid_file} && exec sleep 60; done\n'
        f'exec {real_git} "$@"\n'
    )
    slow.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(changed_symbols, "GIT_TIMEOUT", 0.5)
    path = repo / "svc.py"
    path.write_text(CHANGED)
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 0
    assert set(marks(outline).values()) == {None}
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # stopped and waited for
        os.kill(pid, 0)


def test_path_that_looks_like_an_option_or_glob_is_taken_literally(repo: Path) -> None:
    odd = repo / "-rf [x].py"
    odd.write_text("def a():\n    pass\n")
    git(repo, "add", "--", odd.name)
    git(repo, "commit", "-qm", "odd")
    odd.write_text("def a():\n    return 1\n\ndef b():\n    pass\n")
    outline = outline_of(odd)
    assert mark_changes(str(odd), outline) == 2
    assert marks(outline) == {"a": "modified", "b": "added"}


def test_inherited_git_environment_is_ignored(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = repo.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    path = repo / "svc.py"
    path.write_text(CHANGED)
    outline = outline_of(path)
    assert mark_changes(str(path), outline) == 5


def test_cached_outline_copies_are_marked_independently(repo: Path) -> None:
    path = repo / "svc.py"
    path.write_text(CHANGED)
    data = path.read_bytes()
    first = outline_for_file(str(path), ("v1",), data)
    mark_changes(str(path), first, source=data)
    second = outline_for_file(str(path), ("v1",), data)
    assert set(marks(second).values()) == {None}
    assert "gone" not in marks(second)


def test_overview_of_a_modified_file_runs_no_clean_filter_of_the_repository(
    repo: Path, tmp_path: Path
) -> None:
    # git compares a modified file with HEAD through its clean filter: the
    # repository's config must not make the (read-only) outline run a program.
    from diffchunk.files.overview import get_overview

    marker = tmp_path / "MARKER-clean"
    git(repo, "config", "filter.evil.clean", f"sh -c 'touch {marker}; cat'")
    git(repo, "config", "filter.evil.required", "true")
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    path = repo / "svc.py"
    path.write_text(CHANGED)

    overview = get_overview(str(path)).to_dict()

    assert not marker.exists(), "get_overview ran the repository's clean filter"
    assert overview["changed_symbols"] == 5
    assert "warnings" not in overview
    # The setup is effective: git itself runs the filter for the same comparison.
    git(repo, "diff", "--stat", "HEAD")
    assert marker.exists()


def test_hunk_header_parsing() -> None:
    diff = (
        b"diff --git a/x b/x\n--- a/x\n+++ b/x\n"
        b"@@ -3 +3 @@\n-a\n+b\n"
        b"@@ -10,2 +9,0 @@\n-c\n-d\n"
        b"@@ -20,0 +19,3 @@\n+e\n+f\n+g\n"
    )
    changed, deletions, hunks = changed_symbols._changed_lines(diff)
    assert changed == [(3, 3), (19, 21)]
    assert deletions == [9]
    assert hunks == [(3, 1, 3, 1), (10, 2, 9, 0), (20, 0, 19, 3)]


def test_line_map_moves_lines_outside_the_hunks_and_spans_those_inside() -> None:
    # Line 3 replaced by two, lines 10-11 removed, three lines added after 20.
    moved = changed_symbols.LineMap([(3, 1, 3, 2), (10, 2, 10, 0), (20, 0, 19, 3)])
    assert [moved.lines(n) for n in (1, 2, 4, 9, 12, 20, 21)] == [
        (1, 1),
        (2, 2),
        (5, 5),
        (10, 10),
        (11, 11),
        (19, 19),
        (23, 23),
    ]
    assert moved.lines(3) == (3, 4)  # inside a hunk: its new lines
    assert moved.lines(11) == (10, 11)  # removed: the lines around the point
    assert changed_symbols.LineMap([]).lines(7) == (7, 7)
