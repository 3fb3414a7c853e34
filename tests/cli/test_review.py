from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from diffchunk.cli import main
from diffchunk.review.tools import diff_tools

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True).stdout


def _lines(n: int, tag: str) -> bytes:
    return b"".join(f"{tag} {i}\n".encode() for i in range(n))


@pytest.fixture(scope="module")
def repo_diff(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """A repository at its first commit plus the diff to its second commit.

    The content has CRLF lines, invalid UTF-8, a lockfile, a rename and a file
    big enough to be split.
    """
    root = tmp_path_factory.mktemp("cli")
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    files = {
        "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
        "latin1.txt": b"caf\xe9\nna\xefve\n",
        "big.py": _lines(250, "old"),
        "move_me.py": _lines(12, "same"),
        "src/app.py": _lines(30, "app"),
    }
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    (repo / "crlf.txt").write_bytes(b"one\r\nTWO\r\nthree\r\n")
    (repo / "latin1.txt").write_bytes(b"caf\xe9!\nna\xefve\n")
    (repo / "big.py").write_bytes(_lines(250, "new"))
    _git(repo, "mv", "move_me.py", "moved.py")
    (repo / "src/app.py").write_bytes(_lines(30, "app").replace(b"app 7\n", b"app seven\n"))
    (repo / "package-lock.json").write_bytes(b'{"lockfileVersion": 3}\n')
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    diff = root / "change.diff"
    diff.write_bytes(_git(repo, "diff", "-M", "HEAD~1", "HEAD"))
    tree = _git(repo, "rev-parse", "HEAD^{tree}").strip()
    _git(repo, "checkout", "-q", "HEAD~1")
    return repo, diff, tree


def test_overview_lists_chunks_and_exclusions(repo_diff: tuple[Path, Path, bytes]) -> None:
    _, diff, _ = repo_diff
    result = CliRunner().invoke(main, ["review", str(diff), "--max-chunk-lines", "100"])
    assert result.exit_code == 0, result.output
    assert "chunk   lines   tokens  files" in result.stdout
    assert "big.py (part 2)" in result.stdout
    assert "package-lock.json" in result.stdout and "generated" in result.stdout


def test_json_overview_has_stable_keys(repo_diff: tuple[Path, Path, bytes]) -> None:
    _, diff, _ = repo_diff
    result = CliRunner().invoke(main, ["review", str(diff), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["summary", "chunks", "total_chunks", "total_token_count", "excluded"]
    assert set(data["summary"]) == {
        "chunks",
        "files",
        "total_lines",
        "file_path",
        "files_excluded",
        "warnings",
    }
    assert data["summary"]["chunks"] == data["total_chunks"] == len(data["chunks"])
    assert [(e["path"], e["reason"]) for e in data["excluded"]] == [
        ("package-lock.json", "generated")
    ]
    # not a terminal: one compact line for the program reading it
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert result.stdout == compact + "\n"


def test_json_is_indented_on_a_terminal(
    repo_diff: tuple[Path, Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, diff, _ = repo_diff
    monkeypatch.setattr("diffchunk.cli.output.stdout_is_terminal", lambda: True)
    result = CliRunner().invoke(main, ["review", str(diff), "--json"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith('{\n  "summary": {')
    assert json.loads(result.stdout)["total_chunks"] >= 1


def test_chunk_output_is_byte_exact(repo_diff: tuple[Path, Path, bytes]) -> None:
    _, diff, _ = repo_diff
    runner = CliRunner()
    result = runner.invoke(main, ["review", str(diff), "--no-skip-generated", "--chunk", "1"])
    assert result.exit_code == 0, result.output
    # One chunk holds everything at the default size: it is the diff itself.
    assert result.stdout_bytes == diff.read_bytes()
    assert b"\r\n" in result.stdout_bytes and b"caf\xe9" in result.stdout_bytes
    result = runner.invoke(main, ["review", str(diff), "--file", "crlf.txt"])
    assert result.exit_code == 0
    assert b"-two\r\n+TWO\r\n" in result.stdout_bytes
    result = runner.invoke(main, ["review", str(diff), "--chunk", "1", "--format", "compact"])
    assert result.exit_code == 0 and result.stdout


def test_lean_chunks_and_review_order_on_the_command_line(
    repo_diff: tuple[Path, Path, bytes],
) -> None:
    _, diff, _ = repo_diff
    runner = CliRunner()
    result = runner.invoke(main, ["review", str(diff), "--chunk", "1", "--format", "lean"])
    assert result.exit_code == 0, result.output
    assert "## src/app.py (+1 -1)" in result.stdout
    # A pair would not be shorter; git's section, the line 'app 3', names no definition.
    assert "@@ 8\n-app 7\n+app seven\n" in result.stdout
    assert "## moved.py (renamed from move_me.py)" in result.stdout
    result = runner.invoke(main, ["review", str(diff), "--file", "crlf.txt", "--format", "lean"])
    assert result.exit_code == 0 and b"-two\r\n+TWO\r\n" in result.stdout_bytes
    listed = runner.invoke(main, ["review", str(diff), "--order", "review", "--json"])
    assert listed.exit_code == 0, listed.output
    files = [f for c in json.loads(listed.stdout)["chunks"] for f in c["files"]]
    assert files.index("src/app.py") < files.index("crlf.txt")  # code before text files
    assert runner.invoke(main, ["review", str(diff), "--order", "size"]).exit_code == 2


def test_out_dir_chunks_apply_in_order(repo_diff: tuple[Path, Path, bytes], tmp_path: Path) -> None:
    repo, diff, wanted = repo_diff
    out = tmp_path / "out"
    args = ["review", str(diff), "--out", str(out), "--max-chunk-lines", "60"]
    result = CliRunner().invoke(main, [*args, "--no-skip-generated", "--no-skip-trivial"])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.glob("chunk-*.diff"))
    index = json.loads((out / "index.json").read_text())
    assert names == [c["file"] for c in index["chunks"]]
    assert len(names) > 2
    work = tmp_path / "work"
    _git(repo, "worktree", "add", "-q", "--detach", str(work), "HEAD")
    for name in names:
        _git(work, "apply", str(out / name))
    _git(work, "add", "-A")
    assert _git(work, "write-tree").strip() == wanted


def test_relative_diff_path_is_resolved(
    repo_diff: tuple[Path, Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, diff, _ = repo_diff
    monkeypatch.chdir(diff.parent / "repo")
    result = CliRunner().invoke(main, ["review", f"../{diff.name}", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["file_path"] == str(diff.resolve())


def test_exit_codes(
    repo_diff: tuple[Path, Path, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, diff, _ = repo_diff
    runner = CliRunner()
    notes = tmp_path / "notes.txt"
    notes.write_text("just notes\nno diff here\n")
    not_a_diff = runner.invoke(main, ["review", str(notes)])
    assert not_a_diff.exit_code == 1
    assert not_a_diff.stderr.startswith("Error: ") and "diff" in not_a_diff.stderr
    bad_chunk = runner.invoke(main, ["review", str(diff), "--chunk", "99"])
    assert bad_chunk.exit_code == 1 and "numbered 1..1" in bad_chunk.stderr
    assert runner.invoke(main, ["review", str(diff), "--chunk", "1", "--json"]).exit_code == 2
    assert runner.invoke(main, ["review", str(diff), "--max-chunk-lines", "1"]).exit_code == 2
    assert runner.invoke(main, ["review", str(diff), "--format", "compact"]).exit_code == 2

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(diff_tools, "load_diff", boom)
    crashed = runner.invoke(main, ["review", str(diff)])
    assert crashed.exit_code == 3 and "kaput" in crashed.stderr

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(diff_tools, "load_diff", interrupted)
    assert runner.invoke(main, ["review", str(diff)]).exit_code == 130


def test_help_and_version() -> None:
    runner = CliRunner()
    for args in (["-h"], ["review", "-h"], ["mcp", "--help"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0 and "Usage:" in result.stdout
    assert "diffchunk review changes.diff --chunk 3" in runner.invoke(main, ["review", "-h"]).stdout
    assert runner.invoke(main, ["--version"]).exit_code == 0


def _console(*args: str, prelude: str = "") -> subprocess.CompletedProcess[bytes]:
    """The ``diffchunk`` console script (:mod:`diffchunk.console`)."""
    code = f"{prelude}from diffchunk.console import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120)


def test_console_script_exits_fast_without_losing_output_or_exit_handlers(
    repo_diff: tuple[Path, Path, bytes],
) -> None:
    _, diff_path, _ = repo_diff
    # A handler registered by anyone (coverage, logging) still runs.
    prelude = "import atexit, sys; atexit.register(lambda: sys.stderr.write('handler ran'));"
    done = _console("review", str(diff_path), "--json", prelude=prelude)
    assert done.returncode == 0, done.stderr
    assert b"handler ran" in done.stderr
    overview = json.loads(done.stdout)  # every byte of stdout arrived
    assert overview["chunks"] and overview["total_chunks"] == len(overview["chunks"])
    # Raw chunk bytes written straight to the stdout buffer arrive too.
    whole = _console("review", str(diff_path), "--chunk", "1")
    expected = CliRunner().invoke(main, ["review", str(diff_path), "--chunk", "1"]).stdout_bytes
    assert whole.returncode == 0 and whole.stdout.startswith(b"diff --git ")
    assert whole.stdout == expected
    # Exit codes are kept: 1 for an error (message on stderr), 2 for usage.
    missing = _console("review", str(diff_path.parent / "missing.diff"))
    assert missing.returncode == 1 and b"Error" in missing.stderr
    assert _console("review", "--chunk", "x").returncode == 2


@pytest.mark.parametrize("fd", [1, 2])
def test_console_script_with_a_closed_standard_stream(
    repo_diff: tuple[Path, Path, bytes], tmp_path: Path, fd: int
) -> None:
    # Started with stdout (or stderr) closed, Python has no such stream; the
    # command still works and the exit still succeeds.
    _, diff_path, _ = repo_diff
    out = tmp_path / "out"
    code = "from diffchunk.console import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "review", str(diff_path), "--out", str(out)],
        preexec_fn=lambda: os.close(fd),
        stdout=subprocess.PIPE if fd == 2 else None,
        stderr=subprocess.PIPE if fd == 1 else None,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "index.json").is_file()


def test_overview_labels_say_what_list_chunks_flags() -> None:
    from diffchunk.cli.render import file_label
    from diffchunk.review.results import FileDetail

    assert file_label(FileDetail("a.py", 3)) == "a.py"
    added = FileDetail("b.png", 1, status="added", binary=True)
    assert file_label(added) == "b.png (added, binary)"
    assert file_label(FileDetail("c.sh", 0, metadata_only=True)) == "c.sh (metadata only)"
    assert file_label(FileDetail("d.min.js", 1, binary_by_attributes=True)) == "d.min.js (-diff)"
