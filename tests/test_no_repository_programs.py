"""No tool or command of diffchunk runs a program that a repository's config names.

A hostile work tree, a bare clone of it, a linked worktree (a ``.git`` file), a
clone on alternates and a real partial clone (made by
``tests/support/hostile_repo.py``, one template per module, copied for each
test): their config names a program for every hook git has, for
clean/smudge/process filters, textconv, diff.external, core.fsmonitor, core.pager, core.editor, core.sshCommand,
core.askPass, credential.helper, gpg.program, uploadpack.packObjectsHook,
core.gitProxy, an ext:: remote and aliases of every subcommand diffchunk uses,
and an ``[include]`` of another file that names its own; the partial clone
fetches its missing objects from an ``ext::`` remote that would leave a marker.
Each program leaves a ``MARKER-<scope>-<key>`` file.  The repositories are
built with a clean config first; the hostile one is written afterwards
(building with it would run them).  ``HOME`` and ``XDG_CONFIG_HOME`` point
into the test's directory (its global config sets
``uploadpack.packObjectsHook``, honoured only there).

The matrix is derived from git's own documentation: every key the installed
git's ``git help config`` describes as naming a command, program, helper,
hook, transport or file to include (``tests/support/git_manual.py``) is set to a
marker script in the repository's config, in an included file, in a
conditionally included one and in the worktree config.

Every entry point that touches a repository runs against them: the CLI and
the MCP server (through the SDK's stdio client) as installed, in their own
processes, and the same functions in this process.  After each, no marker may
exist anywhere under the test's directory.  Each git process started from
Python must also run in the runner's sandbox (its ``argv``, a private
``GIT_DIR`` and ``HOME`` in diffchunk's cache, no config file but that,
no transport): ``subprocess.Popen.__init__`` is wrapped here, and in the
child processes by a ``sitecustomize`` module, which leaves a
``MARKER-unsafe-git-argv-<pid>`` file naming any other.

``test_the_hostile_setup_runs_programs_through_plain_git`` checks that the
setup is effective: plain git runs the programs, and the partial clone's lazy
fetch runs its remote (this is what makes the other tests able to fail).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from git_manual import program_keys
from hostile_repo import (
    NOT_IN_MATRIX,
    Hostile,
    Template,
    build_template,
    make_hostile,
    plain_git,
    unsafe_git_start,
)

from diffchunk.errors import GitError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return build_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
def hostile(tmp_path: Path, template: Template) -> Hostile:
    return make_hostile(tmp_path, template, matrix=True)


def _installed(name: str) -> str:
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return str(script)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e .)")
    return found


def _cli(
    h: Hostile, *args: str, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_installed("diffchunk"), *args],
        cwd=cwd or h.root,
        env=h.env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --------------------------------------------------------------------------
# The setup is effective


# Past a failing process filter (the marker programs do not speak its protocol).
RELAXED = ("-c", "filter.evil.required=false", "-c", "filter.inc.required=false")


def test_the_matrix_is_every_key_the_manual_says_names_a_program(template: Template) -> None:
    keys = program_keys()
    # What any reading of the manual must find, each a key git runs a program from
    # (the derivation is not vacuous)...
    for known in (
        "core.fsmonitor",
        "core.sshCommand",
        "core.pager",
        "core.editor",
        "core.askPass",
        "core.gitProxy",
        "core.hooksPath",
        "core.alternateRefsCommand",
        "diff.external",
        "diff.marker.textconv",
        "diff.marker.command",
        "filter.marker.clean",
        "filter.marker.smudge",
        "credential.helper",
        "gpg.program",
        "gpg.ssh.defaultKeyCommand",
        "sequence.editor",
        "uploadpack.packObjectsHook",
        "remote.marker.uploadpack",
        "remote.marker.receivepack",
        "alias.marker",
        "pager.marker",
    ):
        assert known in keys and known in template.matrix, known
    assert "include.path" in keys
    # ...and far more than those: every one set, but the few diffchunk reads and
    # checks itself and those whose value git refuses to be a program.
    assert len(template.matrix) > 100
    assert set(NOT_IN_MATRIX) <= set(keys)
    assert set(template.matrix) | set(template.refused) | set(NOT_IN_MATRIX) == set(keys)
    for key, why in template.refused.items():  # booleans, numbers, choices
        assert "fatal" in why, (key, why)


def test_the_hostile_setup_runs_programs_through_plain_git(
    tmp_path: Path, template: Template
) -> None:
    h = make_hostile(tmp_path, template)
    credential = "protocol=https\nhost=example.invalid\n\n"
    for repo, args, stdin in [
        (h.work, ["diff", "--", "notes.txt"], ""),
        (h.work, ["diff", "--", "a.py"], ""),
        (h.work, ["diff", "--", "readme.md"], ""),
        (h.work, ["show", "--no-ext-diff", "HEAD", "--", "notes.txt"], ""),
        (h.work, [*RELAXED, "show", "--no-ext-diff", "HEAD~1", "--", "readme.md"], ""),
        (h.work, ["local-include-alias"], ""),
        (h.work, ["credential", "fill"], credential),
        (h.work, ["ls-remote", "ssh://example.invalid/r"], ""),
        (h.work, ["ls-remote", "origin"], ""),
        (h.work, [*RELAXED, "commit", "--allow-empty"], ""),
        (h.work, [*RELAXED, "checkout", "--", "notes.txt"], ""),
        (h.work, ["clone", "-q", "--no-local", str(h.bare), str(h.root / "clone")], ""),
        (h.bare, [*RELAXED, "show", "--no-ext-diff", "main", "--", "a.py"], ""),
        (h.bare, [*RELAXED, "diff", "main~1", "main", "--", "a.py"], ""),
        (h.bare, ["bare-alias"], ""),
        (h.bare, ["credential", "fill"], credential),
        (h.bare, ["ls-remote", "ssh://example.invalid/r"], ""),
        (h.bare, ["tag", "-a", "t", "main"], ""),
        (h.bare, ["update-ref", "refs/heads/ctl", "main"], ""),
        # A blob of main~1 is missing: git fetches it from the remote, which runs.
        (h.partial, ["diff", "main~1", "main"], ""),
    ]:
        plain_git(h, repo, *args, stdin=stdin)
    plain_git(h, h.work, "-p", "log", "-1", tty=True)
    plain_git(h, h.bare, "-p", "log", "-1", tty=True)
    ran = {p.name.removeprefix("MARKER-") for p in h.marks.iterdir()}
    expected = {
        # The work tree: its local filters and diff drivers, the included
        # file's drivers and single-valued keys (it comes last, so they win),
        # the hooks of core.hooksPath, and the global upload-pack hook.  (git
        # never runs the clean/smudge commands of a driver with a process.)
        "local-filter.plain.clean",
        "local-filter.plain.smudge",
        "local-filter.evil.process",
        "local-diff.plain.textconv",
        "local-include-filter.inc.process",
        "local-include-diff.inc.textconv",
        "local-include-core.fsmonitor",
        "local-include-diff.external",
        "local-include-core.pager",
        "local-include-gpg.program",
        "local-include-alias.local-include-alias",
        "local-credential.helper",
        "local-include-credential.helper",
        "local-include-core.askPass",
        "local-include-core.sshCommand",
        "local-remote.url",
        "local-include-core.editor",
        "hookspath-pre-commit",
        "hookspath-prepare-commit-msg",
        "hookspath-post-index-change",
        "hookspath-post-checkout",
        "global-packObjectsHook",
        # The bare repository: its local keys come last and win.
        "bare-filter.evil.process",
        "bare-core.pager",
        "bare-gpg.program",
        "bare-diff.evil.textconv",
        "bare-diff.external",
        "bare-alias.bare-alias",
        "bare-credential.helper",
        "bare-core.askPass",
        "bare-core.sshCommand",
        "bare-core.editor",
        "hookspath-reference-transaction",
        # The partial clone's lazy fetch.
        "partial-remote.url",
    }
    assert expected - ran == set(), f"not run by plain git: {sorted(expected - ran)}"


# --------------------------------------------------------------------------
# The command line, as installed


@dataclass(frozen=True)
class Command:
    args: Callable[[Hostile], list[str]]
    shows: str  # what its output holds when it worked
    in_work_tree: bool = False  # run from the work tree (else from the test's directory)
    exit_code: int = 0


def _range(h: Hostile, *more: str, repo: str = "work") -> list[str]:
    return ["review", "main~1..main", "--repo", str(getattr(h, repo)), *more]


COMMANDS = {
    "review-range": Command(lambda h: _range(h), "a.py"),
    "review-staged": Command(lambda h: ["review", "--staged", "--repo", str(h.work)], "s.py"),
    "review-working-tree": Command(lambda h: ["review"], "readme.md", in_work_tree=True),
    "review-against-a-commit": Command(
        lambda h: ["review", "HEAD~1", "--repo", str(h.work)], "s.py"
    ),
    "review-chunk": Command(lambda h: _range(h, "--chunk", "1"), "diff --git"),
    "review-file": Command(lambda h: _range(h, "--file", "a.py"), "+++ b/a.py"),
    "review-bare-range": Command(lambda h: _range(h, repo="bare"), "a.py"),
    "review-linked-worktree": Command(lambda h: ["review", "--repo", str(h.linked)], "a.py"),
    "review-linked-range": Command(lambda h: _range(h, repo="linked"), "a.py"),
    "review-shared-worktree": Command(lambda h: ["review", "--repo", str(h.shared)], "a.py"),
    "review-shared-range": Command(lambda h: _range(h, repo="shared"), "a.py"),
    "review-partial-worktree": Command(lambda h: ["review", "--repo", str(h.partial)], "s.py"),
    # main~1's blobs are missing: an error that says what to do, never a fetch.
    "review-partial-range": Command(
        lambda h: _range(h, repo="partial"), "partial clone", exit_code=1
    ),
    "review-bare-chunk": Command(lambda h: _range(h, "--chunk", "1", repo="bare"), "diff --git"),
    "file-overview": Command(
        lambda h: ["file", "overview", str(h.work / "a.py"), "--json"], '"modified"'
    ),
    "file-search": Command(
        lambda h: ["file", "search", str(h.work / "a.py"), "function_3", "--exact"], "function_3"
    ),
    "file-read": Command(lambda h: ["file", "read", str(h.work / "a.py")], "def function_0"),
    "cache-path": Command(lambda h: ["cache", "path"], "cache", in_work_tree=True),
    "cache-clear": Command(lambda h: ["cache", "clear"], "Removed", in_work_tree=True),
    "hook-install-refused": Command(
        lambda h: ["hook", "install", "--repo", str(h.work)], "core.hooksPath", exit_code=1
    ),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_cli_command_runs_no_repository_program(hostile: Hostile, name: str) -> None:
    h = hostile
    command = COMMANDS[name]
    args = command.args(h)
    done = _cli(h, *args, cwd=h.work if command.in_work_tree else None)
    h.assert_clean(f"diffchunk {' '.join(args)}")
    assert done.returncode == command.exit_code, done.stderr
    assert command.shows in done.stdout + done.stderr


@pytest.mark.parametrize("hooks_path", [True, False], ids=["core.hooksPath", "hooks-in-git-dir"])
def test_pre_push_hook_runs_no_repository_program(
    tmp_path: Path, template: Template, hooks_path: bool
) -> None:
    h = make_hostile(tmp_path, template, hooks_path=hooks_path)
    zero = "0" * 40
    # As git feeds the hook: a branch the remote has (at main~1), and a new one.
    pushed = (
        f"refs/heads/main {h.head} refs/heads/main {h.base}\n"
        f"refs/heads/topic {h.head} refs/heads/topic {zero}\n"
    )
    done = _cli(h, "hook", "run-pre-push", "origin", str(h.bare), cwd=h.work, stdin=pushed)
    assert done.returncode == 0, done.stderr
    assert "diffchunk: refs/heads/main -> refs/heads/main" in done.stdout
    assert "diffchunk: refs/heads/topic -> refs/heads/topic" in done.stdout
    h.assert_clean("diffchunk hook run-pre-push")
    if not hooks_path:
        for action in ("install", "uninstall"):
            done = _cli(h, "hook", action, "--repo", str(h.work))
            assert done.returncode == 0, done.stderr
            h.assert_clean(f"diffchunk hook {action}")


# --------------------------------------------------------------------------
# The MCP server, as installed, through the SDK's stdio client


def _text(result: Any) -> str:
    from mcp import types

    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return str(block.text)


async def _mcp_calls(h: Hostile) -> list[tuple[str, bool, str, list[str]]]:
    """Each call: (what, is_error, text, markers left so far)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=_installed("diffchunk-mcp"), args=[], env=h.env)
    changed = str(h.work / "a.py")
    done: list[tuple[str, bool, str, list[str]]] = []
    with open(h.root / "server.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()

            async def call(what: str, tool: str, arguments: dict[str, Any]) -> str:
                result = await session.call_tool(tool, arguments)
                text = _text(result)
                done.append((what, bool(result.is_error), text, h.markers()))
                return text

            work = {"absolute_repo_path": str(h.work)}
            loaded = await call(
                "load_git_diff range", "load_git_diff", {**work, "revision_range": "main~1..main"}
            )
            diff = {"absolute_file_path": json.loads(loaded)["file_path"]}
            await call("load_git_diff staged", "load_git_diff", {**work, "staged": True})
            await call("load_git_diff working tree", "load_git_diff", work)
            await call(
                "load_git_diff bare range",
                "load_git_diff",
                {"absolute_repo_path": str(h.bare), "revision_range": "main~1..main"},
            )
            for name in ("linked", "shared", "partial"):
                where = {"absolute_repo_path": str(getattr(h, name))}
                await call(f"load_git_diff {name} working tree", "load_git_diff", where)
                await call(
                    f"load_git_diff {name} range",
                    "load_git_diff",
                    {**where, "revision_range": "main~1..main"},
                )
            await call("list_chunks", "list_chunks", diff)
            await call("get_chunk", "get_chunk", {**diff, "chunk_number": 1})
            await call("get_file_diff", "get_file_diff", {**diff, "file_path": "a.py"})
            await call("get_overview", "get_overview", {"absolute_file_path": changed})
            await call(
                "search_content",
                "search_content",
                {"absolute_file_path": changed, "pattern": "function_3", "fuzzy": False},
            )
            await call("read_content", "read_content", {"absolute_file_path": changed})
            # The code around the change: blobs, outlines, the log (log.showSignature
            # and a signed tip would run gpg.program in a plain git log).
            await call("list_commits", "list_commits", diff)
            await call(
                "open_file_version",
                "open_file_version",
                {**diff, "file_path": "a.py", "side": "old"},
            )
            await call(
                "get_file_diff symbol",
                "get_file_diff",
                {**diff, "file_path": "a.py", "context": "symbol"},
            )
            await call("search_diff", "search_diff", {**diff, "pattern": "function"})
            # The whole tree: git grep (a prefilter), ls-tree, cat-file, the outlines.
            await call("search_code", "search_code", {**diff, "pattern": "function"})
            await call(
                "search_code regex",
                "search_code",
                {**diff, "pattern": r"function_\d", "regex": True, "side": "old"},
            )
            await call("find_references", "find_references", {**diff, "symbol": "function_3"})
            await call("list_symbols", "list_symbols", {**diff, "file_path": "a.py"})
            await call("list_commits bodies", "list_commits", {**diff, "include_body": True})
    return done


def test_mcp_tools_runs_no_repository_program(hostile: Hostile) -> None:
    calls = anyio.run(_mcp_calls, hostile)
    assert len(calls) == 25
    for what, is_error, text, markers in calls:
        assert not markers, f"{what} ran programs of the repository: {markers}"
        if what == "load_git_diff partial range":  # a missing blob: never fetched
            assert is_error and "partial clone" in text and "git fetch" in text, text
        else:
            assert not is_error, f"{what}: {text}"
    texts = {what: text for what, _, text, _ in calls}
    assert json.loads(texts["get_overview"])["changed_symbols"] > 0
    assert json.loads(texts["list_commits"])["total"] == 1
    assert json.loads(texts["open_file_version"])["line_count"] > 0
    assert texts["search_code"].startswith("function: 12 in ")
    assert texts["search_code regex"].startswith("function_\\d: 12 in ")
    assert texts["find_references"].startswith("function_3: ")
    assert texts["list_commits bodies"].startswith("1 commit(s) of ")
    assert "function_3" in texts["search_content"]
    assert "+++ b/a.py" in texts["get_file_diff"]


# --------------------------------------------------------------------------
# The same functions in this process, every git argv checked


@pytest.fixture
def git_argvs(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[list[str]], list[list[str]]]]:
    """(every git argv started in this process, those not started in the runner's sandbox)."""
    started: list[list[str]] = []
    unsafe: list[list[str]] = []
    real_init = subprocess.Popen.__init__

    def checked_init(self: subprocess.Popen[bytes], args: Any, *rest: Any, **kwargs: Any) -> None:
        argv = [os.fsdecode(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
        if argv and os.path.basename(argv[0].split(" ")[0]) == "git":
            started.append(argv)
            if unsafe_git_start(argv, kwargs.get("env")):
                unsafe.append(argv)
        real_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", checked_init)
    yield started, unsafe


def test_the_tools_in_this_process_runs_no_repository_program(
    hostile: Hostile,
    monkeypatch: pytest.MonkeyPatch,
    git_argvs: tuple[list[list[str]], list[list[str]]],
) -> None:
    from diffchunk.files import content_read, content_search
    from diffchunk.files.overview import get_overview
    from diffchunk.git.repo import discover
    from diffchunk.review import push_hook
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore
    from diffchunk.review.tools import diff_tools
    from diffchunk.review.tools.code_search import (
        find_references,
        find_references_each,
        search_code,
    )
    from diffchunk.review.tools.commits import list_commits
    from diffchunk.review.tools.file_versions import open_file_version

    h = hostile
    for key in [k for k in os.environ if k.startswith(("GIT_", "DIFFCHUNK_", "XDG_"))]:
        monkeypatch.delenv(key)
    for key, value in h.env.items():
        monkeypatch.setenv(key, value)
    store = SessionStore()
    changed = str(h.work / "a.py")
    loaded: dict[str, Any] = {}

    def load(*args: Any, **kwargs: Any) -> None:
        loaded.update(load_git_diff(*args, store=store, **kwargs).to_dict())

    pushed = push_hook.parse_push_lines([f"refs/heads/main {h.head} refs/heads/main {h.base}"])
    calls: list[tuple[str, Callable[[], object]]] = [
        ("load_git_diff range", lambda: load(str(h.work), "main~1..main")),
        ("list_chunks", lambda: diff_tools.list_chunks(loaded["file_path"], store=store)),
        ("get_chunk", lambda: diff_tools.get_chunk(loaded["file_path"], 1, store=store)),
        ("load_git_diff staged", lambda: load(str(h.work), staged=True)),
        ("load_git_diff working tree", lambda: load(str(h.work))),
        ("load_git_diff bare range", lambda: load(str(h.bare), "main~1..main")),
        ("get_overview", lambda: get_overview(changed).to_dict()),
        (
            "search_content",
            lambda: content_search.search_content(changed, "function_3", fuzzy=False),
        ),
        ("read_content", lambda: content_read.read_content(changed)),
        ("review_push", lambda: push_hook.review_push(discover(str(h.work)), "origin", pushed)),
        ("load_git_diff bare range again", lambda: load(str(h.bare), "main~1..main")),
        ("list_commits", lambda: list_commits(loaded["file_path"], store=store)),
        (
            "open_file_version",
            lambda: open_file_version(loaded["file_path"], "a.py", "old", store=store),
        ),
        (
            "get_file_diff symbol",
            lambda: diff_tools.get_file_diff(
                loaded["file_path"], "a.py", store=store, context="symbol"
            ),
        ),
        ("list_chunks symbols", lambda: diff_tools.list_chunks(loaded["file_path"], store=store)),
        ("search_code", lambda: search_code(loaded["file_path"], "function", store=store)),
        (
            "search_code regex",
            lambda: search_code(loaded["file_path"], r"function_\d", regex=True, store=store),
        ),
        (
            "find_references",
            lambda: find_references(loaded["file_path"], "function_3", store=store),
        ),
        (
            "find_references several",
            lambda: find_references_each(
                loaded["file_path"], "function_3, s.function_4", store=store
            ),
        ),
        (
            "open_file_version outside the diff",
            lambda: open_file_version(loaded["file_path"], "readme.md", "new", store=store),
        ),
        (
            "get_file_diff several",
            lambda: diff_tools.get_file_diff(loaded["file_path"], "*", store=store),
        ),
        (
            "list_commits bodies",
            lambda: list_commits(loaded["file_path"], include_body=True, store=store),
        ),
        ("load_git_diff linked working tree", lambda: load(str(h.linked))),
        ("load_git_diff linked range", lambda: load(str(h.linked), "main~1..main")),
        ("load_git_diff shared range", lambda: load(str(h.shared), "main~1..main")),
        ("load_git_diff partial working tree", lambda: load(str(h.partial))),
    ]
    results = {}
    for what, call in calls:
        results[what] = call()
        h.assert_clean(what)
    with pytest.raises(GitError, match="partial clone") as missing:
        load(str(h.partial), "main~1..main")  # main~1's blobs are not in the clone
    assert "git fetch" in str(missing.value)
    h.assert_clean("load_git_diff partial range")
    started, unsafe = git_argvs
    assert started, "no git ran: the check saw nothing"
    assert unsafe == [], "git started outside the runner's sandbox"
    overview = results["get_overview"]
    assert isinstance(overview, dict) and overview["changed_symbols"] > 0
    assert [name for name, _ in results["find_references several"]] == ["function_3", "function_4"]
    assert results["open_file_version outside the diff"].to_dict()["in_diff"] is False
    several = results["get_file_diff several"]
    assert "+++ b/a.py" in several and "+++ b/notes.txt" in several
    # The check itself: a git started any other way is caught.
    subprocess.run(["git", "--version"], capture_output=True, check=True)
    assert unsafe == [["git", "--version"]]


def test_a_child_process_starting_git_otherwise_is_caught(hostile: Hostile) -> None:
    # The sitecustomize module of the child processes sees the same.
    code = "import subprocess; subprocess.run(['git', '--version'], capture_output=True)"
    subprocess.run([sys.executable, "-c", code], env=hostile.env, check=True, timeout=60)
    assert [m.split(":")[0] for m in hostile.markers()] == [
        f"marks/{p.name}" for p in hostile.marks.iterdir()
    ]
    assert any("unsafe-git-argv" in m and "'--version'" in m for m in hostile.markers())


def test_incremental_review_runs_no_repository_program(
    hostile: Hostile,
    monkeypatch: pytest.MonkeyPatch,
    git_argvs: tuple[list[list[str]], list[list[str]]],
) -> None:
    """A range reviewed, then moved (its ref rewritten by hand: git would run hooks):
    the comparison, the since-review diff (an interdiff) and re-anchoring run git only
    through the runner, and run nothing of the repository's."""
    from diffchunk.review import record
    from diffchunk.review.incremental.load import load_git_diff

    h = hostile
    for key in [k for k in os.environ if k.startswith(("GIT_", "DIFFCHUNK_", "XDG_"))]:
        monkeypatch.delenv(key)
    for key, value in h.env.items():
        monkeypatch.setenv(key, value)
    topic = h.work / ".git" / "refs" / "heads" / "topic"
    topic.write_text(h.head + "\n")
    first = load_git_diff(str(h.work), "topic^!")
    record.mark_reviewed(first.file_path, chunk_number=1)
    record.add_finding(first.file_path, "a.py", "Check", line=4)
    h.assert_clean("the first load")
    topic.write_text(h.base + "\n")  # "force-pushed" to the first commit
    again = load_git_diff(str(h.work), "topic^!").to_dict()
    assert again["since_review"]["history"] == "rewritten"
    since = load_git_diff(str(h.work), "topic^!", since_review=True).to_dict()
    assert "a.py" in since["since_review"]["interdiff"]
    h.assert_clean("the loads after the branch moved")
    started, unsafe = git_argvs
    assert any("merge-base" in argv for argv in started)
    assert any("cat-file" in argv for argv in started)
    assert unsafe == [], "git started outside the runner's sandbox"
