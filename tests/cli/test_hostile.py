"""Hostile input to the ``diffchunk`` command line (click's CliRunner, in process).

Every bad input must end with exit code 1 (an error the user can fix) or 2
(usage) and a message on stderr that names the problem: never a traceback,
never exit 3 (an unexpected failure), never a hang.  A guard alarm turns a
blocked call (a FIFO opened for reading) into a failure instead of a hung run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from timing import Elapsed, Stopwatch

from diffchunk.cli import main

TIME_LIMIT = 2.0
GUARD_SECONDS = 10
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]

DIFF_TEXT = (
    "diff --git a/src/app.py b/src/app.py\n"
    "--- a/src/app.py\n"
    "+++ b/src/app.py\n"
    "@@ -1,2 +1,2 @@\n"
    " def main():\n"
    "-    return 1\n"
    "+    return 2\n"
    "diff --git a/docs/readme.md b/docs/readme.md\n"
    "--- a/docs/readme.md\n"
    "+++ b/docs/readme.md\n"
    "@@ -1 +1 @@\n"
    "-old\n"
    "+new\n"
)
SOURCE_TEXT = "def alpha():\n    return 1\n" + "a" * 5000 + "b\n"
BIG_GLOB = "**/" + "a*" * 50_000
MANY_GLOBS = ",".join(f"dir{i}/*.py" for i in range(10_000))


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("hostile_cli")
    old = os.environ.get("DIFFCHUNK_BACKUP_DIR")
    os.environ["DIFFCHUNK_BACKUP_DIR"] = str(root / "backups")
    p: dict[str, str] = {"root": str(root)}
    (root / "change.diff").write_text(DIFF_TEXT)
    p["diff"] = str(root / "change.diff")
    (root / "source.py").write_text(SOURCE_TEXT)
    p["source"] = str(root / "source.py")
    (root / "adir").mkdir()
    p["dir"] = str(root / "adir")
    os.mkfifo(root / "fifo")
    p["fifo"] = str(root / "fifo")
    (root / "loop").symlink_to(root / "loop")
    p["loop"] = str(root / "loop")
    (root / "dangling").symlink_to(root / "nowhere")
    p["dangling"] = str(root / "dangling")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 64)
    p["binary"] = str(root / "blob.bin")
    with open(root / "sparse.img", "wb") as fh:
        fh.truncate(2 * 1024**3)
    p["sparse"] = str(root / "sparse.img")
    unreadable = root / "unreadable.diff"
    unreadable.write_text(DIFF_TEXT)
    unreadable.chmod(0)
    p["unreadable"] = str(unreadable)
    p["missing"] = str(root / "no-such-file.diff")
    (root / "changes-notlist.json").write_text('{"search": "a", "replace": "b"}')
    p["changes_notlist"] = str(root / "changes-notlist.json")
    (root / "changes-bad.json").write_text("[{")
    p["changes_bad"] = str(root / "changes-bad.json")
    (root / "changes-many.json").write_text(
        json.dumps([{"search": "alpha", "replace": "beta"}] * 10_000)
    )
    p["changes_many"] = str(root / "changes-many.json")
    (root / "changes-items.json").write_text(json.dumps([1, "x", None]))
    p["changes_items"] = str(root / "changes-items.json")
    repo = root / "repo"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "one"], cwd=repo, check=True)
    p["repo"] = str(repo)
    try:
        yield p
    finally:
        unreadable.chmod(0o644)
        if old is None:
            os.environ.pop("DIFFCHUNK_BACKUP_DIR", None)
        else:
            os.environ["DIFFCHUNK_BACKUP_DIR"] = old


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    needle: str  # regex the combined output must match (case-insensitive); "" = any
    ok: bool = False  # the input is legitimately valid: exit 0
    nonroot: bool = False


PATH_CASES: list[tuple[str, str, str]] = [
    ("empty", "", "empty|not an existing|range|does not exist"),
    ("blank", "   ", "empty|not an existing|range|does not exist"),
    ("tilde_nouser", "~nouser_zz9q/x.diff", "no user|not an existing|range|does not exist"),
    ("nul", "a\x00b", "NUL|null|not an existing|range"),
    ("missing", "{missing}", "does not exist|not an existing"),
    ("directory", "{dir}", "directory"),
    ("fifo", "{fifo}", "FIFO|pipe"),
    ("dev_zero", "/dev/zero", "device"),
    ("symlink_loop", "{loop}", "loop"),
    ("dangling_symlink", "{dangling}", "does not exist"),
    ("unreadable", "{unreadable}", "permission"),
    ("binary", "{binary}", "not look like a diff|binary"),
    ("sparse_2gb", "{sparse}", "not look like a diff|too large|binary"),
    ("proc_mem", "/proc/self/mem", "cannot be read|input/output"),
]


def _cases() -> list[Case]:
    """A table of cases, one ``Case`` each: long because every command and option of
    the CLI gets its hostile values (the paths, for each subcommand that takes one)."""
    cases: list[Case] = []
    extra: tuple[str, ...]
    for label, path, needle in PATH_CASES:
        nonroot = label == "unreadable"
        cases.append(Case(f"review-{label}", ("review", path), needle, nonroot=nonroot))
        file_needle = "binary" if label in ("binary", "sparse_2gb") else needle
        if label == "proc_mem":
            file_needle = "cannot be read|input/output|special"
        if label == "unreadable":  # click's own check of a PATH argument says so first
            file_needle = "permission|is not readable"
        for sub, extra in (
            ("overview", ()),
            ("search", ("alpha",)),
            ("read", ()),
            ("edit", ("--search", "a", "--replace", "b")),
        ):
            ok = sub == "overview" and label in ("binary", "sparse_2gb")
            if sub == "overview" and label == "proc_mem":
                file_needle = "cannot be read|input/output|special"
            cases.append(
                Case(
                    f"file-{sub}-{label}",
                    ("file", sub, path, *extra),
                    file_needle,
                    ok=ok,
                    nonroot=nonroot,
                )
            )
        cases.append(
            Case(
                f"review-gitattributes-{label}",
                ("review", "{diff}", "--gitattributes", path),
                needle + "|attributes|too large|binary|does not exist|directory",
                nonroot=nonroot,
                ok=False,
            )
        )
        cases.append(
            Case(
                f"file-edit-changes_json-{label}",
                ("file", "edit", "{source}", "--changes-json", path),
                needle + "|JSON|UTF-8|text|at most|does not exist|directory",
                nonroot=nonroot,
            )
        )
    d = "{diff}"
    s = "{source}"
    for n in ("-1", "0", "10", str(10**18), "abc", "1.5", ""):
        cases.append(Case(f"review-chunk-{n}", ("review", d, "--chunk", n), "chunk"))
    for n in ("0", "-5", str(10**12), "x"):
        cases.append(
            Case(f"review-max-chunk-lines-{n}", ("review", d, "--max-chunk-lines", n), "chunk")
        )
    for n in ("-1", "x"):
        cases.append(Case(f"review-context-{n}", ("review", d, "--context-lines", n), "context"))
    cases.append(
        Case("review-context-1e9", ("review", d, "--context-lines", str(10**9)), "context")
    )
    cases.append(
        Case("review-format-xml", ("review", d, "--chunk", "1", "--format", "xml"), "format")
    )
    for opt in ("--include", "--exclude"):
        for label, value in (("big", BIG_GLOB), ("many", MANY_GLOBS)):
            cases.append(Case(f"review{opt}-{label}", ("review", d, opt, value), "pattern|long"))
    for label, value in (
        ("empty", ""),
        ("star_several", "*"),
        ("path_traversal", "../../../../etc/passwd"),
        ("big", BIG_GLOB),
    ):
        cases.append(
            Case(f"review-file-{label}", ("review", d, "--file", value), "file|match|empty|long")
        )
    cases.append(Case("review-out-is-a-file", ("review", d, "--out", "{source}"), "file|exist"))
    cases.append(Case("review-two-modes", ("review", d, "--chunk", "1", "--json"), "only one"))
    for label, rng in (
        ("option_output", "--output=/tmp/pwned"),
        ("dash_O", "-O/tmp/pwned"),
        ("newline", "HEAD\n--output=/tmp/x"),
        ("unknown", "no-such-branch"),
        ("triple", "a..b..c"),
    ):
        cases.append(
            Case(
                f"review-range-{label}",
                ("review", "--repo", "{repo}", rng),  # after `--`, it would be a path
                "refused|option|unknown|revision|range",
            )
        )
    for label, repo in (("fifo", "{fifo}"), ("missing", "{missing}"), ("not_git", "{dir}")):
        cases.append(
            Case(
                f"review-repo-{label}",
                ("review", "--repo", repo, "HEAD"),
                "repository|directory|does not exist|not a git|range",
            )
        )
    # file search
    for label, extra, needle in (
        ("empty", ("",), "empty"),
        ("newline", ("a\nb",), "line break"),
        ("regex_invalid", ("(", "--regex"), "regex|regular expression"),
        ("max_results_0", ("alpha", "-m", "0"), "max_results|max-results"),
        ("max_results_neg", ("alpha", "-m", "-1"), "max_results|max-results"),
        ("max_results_str", ("alpha", "-m", "abc"), "max-results|integer"),
        ("context_neg", ("alpha", "-C", "-1"), "context"),
        ("context_str", ("alpha", "-C", "x"), "context|integer"),
    ):
        cases.append(Case(f"file-search-{label}", ("file", "search", s, *extra), needle))
    # Patterns that backtrack in Python's re: answered (RE2 runs in linear time).
    for label, extra in (
        ("catastrophic", ("(a+)+$", "--regex")),
        ("catastrophic_count", ("(a+)+$", "--regex", "--count")),
    ):
        cases.append(Case(f"file-search-{label}", ("file", "search", s, *extra), "", ok=True))
    for label, extra in (
        ("max_results_1e9", ("alpha", "--exact", "-m", str(10**9))),
        ("context_1e9", ("alpha", "--exact", "-C", str(10**9))),
        ("huge_pattern", ("x" * 100_000,)),
    ):
        cases.append(Case(f"file-search-{label}", ("file", "search", s, *extra), "", ok=True))
    # file read
    for label, extra, needle in (
        ("offset_neg", ("--offset", "-1"), "offset"),
        ("offset_0", ("--offset", "0"), "offset"),
        ("offset_huge", ("--offset", str(10**18)), "past the end|offset"),
        ("limit_0", ("-n", "0"), "limit"),
        ("limit_neg", ("-n", "-1"), "limit"),
        ("limit_str", ("-n", "x"), "limit|integer"),
        ("mode_bogus", ("--mode", "bogus"), "mode"),
        ("pattern_newline", ("--pattern", "a\nb"), "line break"),
    ):
        cases.append(Case(f"file-read-{label}", ("file", "read", s, *extra), needle))
    for label, extra in (
        ("limit_1e9", ("-n", str(10**9))),
        ("tail_1e9", ("--tail", "-n", str(10**9))),
    ):
        cases.append(Case(f"file-read-{label}", ("file", "read", s, *extra), "", ok=True))
    # file edit
    for label, extra, needle in (
        ("no_changes", (), "search"),
        ("unpaired", ("--search", "a"), "pairs"),
        ("changes_notlist", ("--changes-json", "{changes_notlist}"), "list"),
        ("changes_bad_json", ("--changes-json", "{changes_bad}"), "JSON"),
        ("changes_many", ("--changes-json", "{changes_many}"), "at most"),
        ("changes_items", ("--changes-json", "{changes_items}"), "not an object"),
        (
            "changes_and_search",
            ("--changes-json", "{changes_many}", "-s", "a", "-r", "b"),
            "cannot be combined",
        ),
        ("not_found", ("--search", "zzz_nope", "--replace", "b"), "not found"),
    ):
        cases.append(Case(f"file-edit-{label}", ("file", "edit", s, *extra), needle))
    # file revert
    for label, value in (
        ("path_traversal", "../../../../etc/passwd"),
        ("empty", ""),
        ("nul", "x\x00y"),
    ):
        cases.append(
            Case(
                f"file-revert-backup_id-{label}",
                ("file", "revert", s, "--backup-id", value),
                "backup",
            )
        )
    cases.append(Case("unknown-command", ("nope",), "no such command"))
    cases.append(Case("file-unknown-option", ("file", "read", s, "--bogus"), "no such option"))
    return cases


CASES = _cases()


def _fill(arg: str, paths: dict[str, str]) -> str:
    if "{" in arg and len(arg) < 300:
        try:
            return arg.format(**paths)
        except (KeyError, IndexError, ValueError):
            return arg
    return arg


def _invoke(args: list[str], cwd: str) -> tuple[Result, Elapsed]:
    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"diffchunk {' '.join(a[:40] for a in args)} blocked")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(GUARD_SECONDS)
    runner = CliRunner()
    here = os.getcwd()
    watch = Stopwatch()
    try:
        os.chdir(cwd)
        result = runner.invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(here)
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return result, watch.elapsed()


def _check(case: Case, result: Result, elapsed: Elapsed) -> None:
    out = result.output
    err = result.stderr
    assert not isinstance(result.exception, TimeoutError), f"{case.id}: blocked"
    assert elapsed.within(TIME_LIMIT), f"{case.id}: took {elapsed}"
    assert "Traceback" not in out + err, f"{case.id}: traceback\n{err[-2000:]}"
    assert result.exit_code != 3, f"{case.id}: unexpected failure: {err[-1000:]}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{case.id}: raised {result.exception!r}")
    if case.ok:
        assert result.exit_code == 0, f"{case.id}: exit {result.exit_code}: {err[-600:]}"
        return
    assert result.exit_code in (1, 2), f"{case.id}: exit {result.exit_code}; {out[-300:]!r}"
    assert err.strip(), f"{case.id}: no message on stderr"
    if case.needle:
        assert re.search(case.needle, err, re.IGNORECASE), (
            f"{case.id}: stderr does not name the problem ({case.needle}): {err[-600:]!r}"
        )


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.id, marks=[pytest.mark.permissions] if c.nonroot else []) for c in CASES],
)
def test_hostile_cli(case: Case, env: dict[str, str]) -> None:
    args = [_fill(a, env) for a in case.args]
    result, elapsed = _invoke(args, env["root"])
    _check(case, result, elapsed)


def test_review_out_symlink_escape(env: dict[str, str], tmp_path: Path) -> None:
    """--out never writes through a symlink planted in the output directory."""
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (out / "chunk-0001.diff").symlink_to(outside / "stolen.diff")  # dangling
    (out / "index.json").symlink_to(outside / "index-stolen.json")
    result, _ = _invoke(["review", env["diff"], "--out", str(out)], env["root"])
    assert result.exit_code == 0, result.stderr
    assert list(outside.iterdir()) == []
    assert not (out / "chunk-0001.diff").is_symlink()
    assert (out / "chunk-0001.diff").read_text() == DIFF_TEXT
    assert json.loads((out / "index.json").read_text())["total_chunks"] == 1


def test_review_out_symlink_escape_directory(env: dict[str, str], tmp_path: Path) -> None:
    """A chunk name that is a symlink to a directory is replaced, not written into."""
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (out / "chunk-0001.diff").symlink_to(outside)
    result, _ = _invoke(["review", env["diff"], "--out", str(out)], env["root"])
    assert result.exit_code == 0, result.stderr
    assert list(outside.iterdir()) == []
    assert (out / "chunk-0001.diff").read_text() == DIFF_TEXT


def test_changes_json_fifo_is_refused_without_blocking(env: dict[str, str]) -> None:
    result, elapsed = _invoke(
        ["file", "edit", env["source"], "--changes-json", env["fifo"]], env["root"]
    )
    assert not isinstance(result.exception, TimeoutError)
    assert result.exit_code in (1, 2) and elapsed.within(TIME_LIMIT)
    assert re.search("FIFO|pipe", result.stderr)


def test_non_utf8_file_name_prints_in_a_strict_utf8_locale(tmp_path: Path) -> None:
    """A real path that is not UTF-8 is printed as its bytes, not a crash (exit 3)."""
    script = Path(sys.executable).with_name("diffchunk")
    if not script.exists():
        pytest.skip("diffchunk is not installed (pip install -e .)")
    raw = os.fsencode(str(tmp_path)) + b"/odd-\xff.diff"
    with open(raw, "wb") as fh:
        fh.write(DIFF_TEXT.encode())
    link = tmp_path / "plain.diff"
    os.symlink(raw, os.fsencode(str(link)))
    env = {
        **os.environ,
        "PYTHONIOENCODING": "utf-8:strict",
        "DIFFCHUNK_BACKUP_DIR": str(tmp_path / "backups"),
    }
    for args in (["review", str(link), "--json"], ["file", "revert", str(link)]):
        done = subprocess.run(
            [str(script), *args], capture_output=True, env=env, timeout=30, check=False
        )
        assert done.returncode in (0, 1), (args, done.stderr[-500:])
        shown = done.stdout + done.stderr
        assert b"odd-\xff.diff" in shown or b"odd-\\udcff.diff" in shown, shown[-300:]
