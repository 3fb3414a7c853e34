"""Hostile repositories for tests: their config names programs that leave marker files.

See ``tests/test_no_repository_programs.py``.  :func:`build_template` makes,
with a clean config, a work tree, a bare clone, a linked worktree (a ``.git``
file), a clone that borrows the work tree's objects (alternates) and a real
partial clone (``--filter=blob:none``); :func:`make_hostile` copies them and
writes the hostile config, programs and hooks (building the repositories
with that config would run them).  Each program leaves
``MARKER-<scope>-<key>`` in the copy's ``marks`` directory.

With ``matrix=True`` every config file also sets each key git's own manual
says names a program (:func:`git_manual.program_keys`), each to a script
leaving ``MARKER-<key>``, in the repository's config, in a file it includes,
in a file it includes conditionally (``includeIf "gitdir:/"``) and in its
worktree config (``extensions.worktreeConfig``); the partial clone's remote
becomes an ``ext::`` command with ``protocol.ext.allow=always``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from git_manual import program_keys
from gitrepo import git, run_git

# Every hook git may run (githooks(5)).
HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
)
# Aliases named after every subcommand diffchunk runs (git never lets an alias
# shadow a command, but a wrong name in our argv would reach one), and one more.
ALIASED = (
    "diff",
    "rev-parse",
    "cat-file",
    "check-attr",
    "read-tree",
    "config",
    "rev-list",
    "merge-base",
    "for-each-ref",
    "show",
    "log",
    "status",
)
ATTRIBUTES = "* filter=evil diff=evil\n*.txt filter=plain diff=plain\n*.md filter=inc diff=inc\n"

# Keys of the manual's list that diffchunk itself reads and validates (set to a
# program, they make the repository one git refuses too: tested on their own),
# or that are a redirect tested on its own (the includes are the matrix's files).
NOT_IN_MATRIX = {
    "core.bare": "where the work tree is: tests/git/test_sandbox.py",
    "core.worktree": "where the work tree is: tests/git/test_sandbox.py",
    "core.fileMode": "copied when a boolean (git refuses another value)",
    "core.bigFileThreshold": "copied when a size (git refuses another value)",
    "include.path": "the matrix's own included file",
    "includeIf.marker.path": "the matrix's own conditionally included file",
}


def unsafe_git_start(argv: list[str], env: dict[str, str] | None) -> bool:
    """Whether a git command line and environment are not the runner's sandbox: the
    runner's argv, no config file but the private one, no transport, a private HOME
    and GIT_DIR in diffchunk's cache."""
    from diffchunk.git.runner import base_command
    from diffchunk.paths import cache_dir

    base = base_command()
    if argv[: len(base)] != base or env is None:
        return True
    private = os.path.join(cache_dir(), "git") + os.sep
    return not (
        env.get("GIT_CONFIG_GLOBAL") == os.devnull
        and env.get("GIT_CONFIG_NOSYSTEM") == "1"
        and env.get("GIT_ALLOW_PROTOCOL") == ""
        and env.get("HOME", "").startswith(private)
        and env.get("GIT_DIR", "").startswith(private)
        and not any(k.startswith("GIT_CONFIG_") and k[-1].isdigit() for k in env)
    )


SITECUSTOMIZE = '''\
"""Test hook: a git started from Python outside the runner's sandbox leaves a marker."""
import os
import subprocess

_real_init = subprocess.Popen.__init__


def _checked_init(self, args, *rest, **kwargs):
    argv = [os.fsdecode(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    if argv and os.path.basename(argv[0].split(" ")[0]) == "git":
        from hostile_repo import unsafe_git_start

        if unsafe_git_start(argv, kwargs.get("env")):
            name = "MARKER-unsafe-git-argv-%d" % os.getpid()
            with open(os.path.join(os.environ["DIFFCHUNK_TEST_MARKS"], name), "a") as fh:
                fh.write(repr(argv) + "\\n")
    _real_init(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = _checked_init
'''


# --------------------------------------------------------------------------
# The hostile repositories


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _config_text(items: list[tuple[str, str]]) -> str:
    lines = []
    for key, value in items:
        parts = key.split(".")
        sub = ".".join(parts[1:-1])
        lines.append(f'[{parts[0]} "{sub}"]' if sub else f"[{parts[0]}]")
        lines.append(f"\t{parts[-1]} = {_quoted(value)}")
    return "\n".join(lines) + "\n"


def _executable(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


class _Programs:
    """Writes the programs the config names; each leaves ``MARKER-<what>`` in ``marks``."""

    def __init__(self, marks: Path, bin_dir: Path) -> None:
        self.marks = marks
        self.bin_dir = bin_dir

    def sh(self, what: str, then: str = "cat >/dev/null") -> str:
        """A command git runs through the shell."""
        return f"sh -c 'touch \"{self.marks}/MARKER-{what}\"; {then}'"

    def script(self, what: str, then: str = "cat >/dev/null", path: Path | None = None) -> str:
        """An executable file (for what git runs without a shell); its path."""
        return _executable(
            path or self.bin_dir / what,
            f'#!/bin/sh\ntouch "{self.marks}/MARKER-{what}"\n{then}\n',
        )

    def config(
        self, scope: str, filters: tuple[str, ...], hooks_path: Path | None
    ) -> list[tuple[str, str]]:
        """The items of one hostile config file (``scope`` names its markers)."""
        items: list[tuple[str, str]] = []
        for name in filters:
            for key in ("clean", "smudge", "process"):
                if key == "process" and name == "plain":
                    continue  # a process filter would take over from clean/smudge
                items.append(
                    (f"filter.{name}.{key}", self.sh(f"{scope}-filter.{name}.{key}", "cat"))
                )
            items.append((f"filter.{name}.required", "true"))
            items.append((f"diff.{name}.textconv", self.sh(f"{scope}-diff.{name}.textconv", "cat")))
        through_the_shell = {
            "diff.external": "true",
            "core.fsmonitor": "true",
            "core.pager": "cat",
            "core.editor": "true",
            "sequence.editor": "true",
            "core.sshCommand": "exit 1",
            "uploadpack.packObjectsHook": "exit 1",
        }
        for key, then in through_the_shell.items():
            items.append((key, self.sh(f"{scope}-{key}", then)))
        items.append(("credential.helper", "!" + self.sh(f"{scope}-credential.helper")))
        for key in ("core.askPass", "gpg.program", "core.gitProxy"):
            items.append((key, self.script(f"{scope}-{key}", "exit 1")))
        items.append(("log.showSignature", "true"))
        for name in (*ALIASED, f"{scope}-alias"):
            items.append((f"alias.{name}", "!" + self.sh(f"{scope}-alias.{name}")))
        if hooks_path is not None:
            items.append(("core.hooksPath", str(hooks_path)))
        return items

    def hooks(self, directory: Path, scope: str) -> None:
        """Every hook in ``directory``: links to one script that marks the name it runs as."""
        directory.mkdir(parents=True, exist_ok=True)
        _executable(
            directory / "marker",
            f'#!/bin/sh\ntouch "{self.marks}/MARKER-{scope}-$(basename "$0")"\n',
        )
        for name in HOOKS:
            os.symlink("marker", directory / name)


@dataclass
class Hostile:
    root: Path  # the test's directory: no marker may appear anywhere under it
    work: Path
    bare: Path
    marks: Path
    env: dict[str, str]
    base: str  # main~1
    head: str  # main
    linked: Path  # a linked worktree of work (its .git is a file), on branch "linked"
    shared: Path  # a clone of work borrowing its objects (objects/info/alternates)
    partial: Path  # a --filter=blob:none clone: main~1's blobs are missing

    def markers(self) -> list[str]:
        """The markers left so far (with what an unsafe git argv marker recorded)."""
        found = []
        for path in sorted(self.root.rglob("MARKER-*")):
            shown = str(path.relative_to(self.root))
            if "unsafe-git-argv" in path.name:
                shown += ": " + path.read_text().strip()
            found.append(shown)
        return found

    def assert_clean(self, after: str) -> None:
        found = self.markers()
        assert not found, f"{after} ran programs of the repository: {found}"


def _source(version: int) -> str:
    return "".join(
        f"def function_{i}(value):\n    return value + {i * version}\n\n\n" for i in range(6)
    )


def _sign(repo: Path) -> None:
    """Give main's tip a (fake) PGP signature: a log showing signatures runs gpg.program."""
    raw = git(repo, "cat-file", "commit", "HEAD")
    head, _, message = raw.partition("\n\n")
    signature = (
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    )
    signed = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=f"{head}\n{signature}\n\n{message}\n".encode(),
        capture_output=True,
        check=True,
    ).stdout.decode()
    git(repo, "update-ref", "refs/heads/main", signed.strip())


@dataclass(frozen=True)
class Template:
    root: Path
    base: str
    head: str
    matrix: list[str]  # the keys of the matrix (see matrix_keys)
    refused: dict[str, str]  # the manual's keys whose program git refuses, and why


def build_template(root: Path) -> Template:
    """In ``root``: a work tree (two commits, a staged and unstaged changes) and its
    bare clone, built with a clean config, and the ``sitecustomize`` module."""
    work = root / "work"
    work.mkdir()
    no_samples = root / "git-template"  # no sample hooks to copy for every test
    no_samples.mkdir()
    git(work, "init", "-q", "-b", "main", f"--template={no_samples}")
    (work / ".gitattributes").write_text(ATTRIBUTES)
    (work / "a.py").write_text(_source(1))
    (work / "s.py").write_text(_source(1))
    (work / "notes.txt").write_text("one\n")
    (work / "readme.md").write_text("# one\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "one")
    (work / "a.py").write_text(_source(2))
    (work / "notes.txt").write_text("two\n")
    git(work, "commit", "-q", "-am", "two")
    _sign(work)
    git(work, "update-ref", "refs/remotes/origin/main", "main~1")
    run_git(
        root, "clone", "-q", "--bare", f"--template={no_samples}", str(work), str(root / "bare.git")
    )
    _more_repositories(root, work, no_samples)
    (work / "s.py").write_text(_source(3))
    git(work, "add", "s.py")
    (work / "a.py").write_text(_source(4))
    (work / "notes.txt").write_text("three\n")
    (work / "readme.md").write_text("# three\n")
    site = root / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    probes = root / "probe-programs"
    probes.mkdir()
    keys, refused = matrix_keys(work, probes)
    base, head = git(work, "rev-parse", "main~1"), git(work, "rev-parse", "main")
    return Template(root, base, head, keys, refused)


def _more_repositories(root: Path, work: Path, no_samples: Path) -> None:
    """The linked worktree, the clone on alternates and the partial clone (all with
    relative links to work, so that a copy of ``root`` stands on its own)."""
    git(work, "worktree", "add", "-q", "-b", "linked", str(root / "linked"), "main")
    (root / "linked" / ".git").write_text("gitdir: ../work/.git/worktrees/linked\n")
    (work / ".git" / "worktrees" / "linked" / "gitdir").write_text("../../../linked/.git\n")
    (root / "linked" / "a.py").write_text(_source(5))
    shared = root / "shared"
    run_git(root, "clone", "-q", "--shared", f"--template={no_samples}", str(work), str(shared))
    alternates = shared / ".git" / "objects" / "info" / "alternates"
    alternates.write_text("../../../work/.git/objects\n")
    (shared / "a.py").write_text(_source(6))
    origin = root / "origin.git"
    run_git(root, "clone", "-q", "--bare", f"--template={no_samples}", str(work), str(origin))
    git(origin, "config", "uploadpack.allowFilter", "true")
    partial = root / "partial"
    run_git(
        root,
        "clone",
        "-q",
        "--filter=blob:none",
        f"--template={no_samples}",
        f"file://{origin}",
        str(partial),
    )
    (partial / "s.py").write_text(_source(7))


def _probes(work: Path) -> list[list[str]]:
    """The commands diffchunk runs in a work tree, as plain git runs them, and the fetch
    a partial clone starts for an object it lacks."""
    from diffchunk.git.diffwrite import DIFF_OPTIONS

    index = work.parent / "probe-index"
    return [
        ["rev-parse", "--verify", "HEAD"],
        ["read-tree", f"--index-output={index}", "HEAD"],
        ["update-index", "--refresh"],
        ["fetch", "--dry-run", "-q", str(work), "main"],
        ["diff", *DIFF_OPTIONS, "HEAD~1", "HEAD"],
        ["diff", *DIFF_OPTIONS],
        ["diff", *DIFF_OPTIONS, "--cached"],
        ["log", "-2", "--no-show-signature"],
        ["cat-file", "-p", "HEAD"],
        ["check-attr", "-a", "a.py"],
        ["hash-object", "a.py"],
        ["for-each-ref"],
    ]


def matrix_keys(work: Path, bin_dir: Path) -> tuple[list[str], dict[str, str]]:
    """``(keys, refused)``: the manual's keys that name a program (but
    :data:`NOT_IN_MATRIX`), and of them those whose value plain git refuses to be
    a program in the commands diffchunk runs, with git's message (a boolean, a
    number, a choice: such a key names no program, and would only make git fail
    instead of running one).  All are set at once, as in the hostile
    repositories, and a key git stops at (its value, a program of ``bin_dir``
    named after it, is in git's message) is taken out, until git runs them all."""
    keys = [k for k in program_keys() if k not in NOT_IN_MATRIX]
    programs = {key: str(bin_dir / key) for key in keys}
    for path in programs.values():
        _executable(Path(path), "#!/bin/sh\ncat >/dev/null\n")
    refused: dict[str, str] = {}
    config = bin_dir / "matrix.config"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=str(config))
    for probe in _probes(work):
        while True:
            config.write_text(_config_text([(k, programs[k]) for k in keys if k not in refused]))
            done = subprocess.run(
                ["git", "-C", str(work), *probe],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=env,
                timeout=60,
            )
            fatal = [
                ln for ln in done.stderr.decode(errors="replace").splitlines() if "fatal" in ln
            ]
            if not fatal:
                break
            culprit = [
                k
                for k in keys
                if k not in refused
                and (
                    f"'{k.lower()}'" in fatal[0].lower()
                    or re.search(re.escape(programs[k]) + r"(?![\w.-])", fatal[0])
                )
            ]
            assert culprit, f"git {probe[0]} failed on no key of the matrix: {fatal}"
            refused[culprit[0]] = fatal[0].replace(programs[culprit[0]], "PROGRAM")
    return [k for k in keys if k not in refused], refused


def _matrix_text(programs: _Programs, keys: list[str]) -> str:
    """Each key of the matrix, set to a marker script."""
    return _config_text([(key, programs.script(key)) for key in keys])


def make_hostile(
    tmp_path: Path, template: Template, *, hooks_path: bool = True, matrix: bool = False
) -> Hostile:
    """A copy of the template in ``tmp_path`` with the hostile config, programs and hooks
    (and, with ``matrix``, every key the manual says names a program: see the module doc)."""
    repos = tmp_path / "repos"
    shutil.copytree(template.root, repos, symlinks=True)
    marks = tmp_path / "marks"
    bin_dir = tmp_path / "bin"
    for directory in (marks, bin_dir):
        directory.mkdir()
    programs = _Programs(marks, bin_dir)
    hooks_dir = tmp_path / "hooks-path"
    programs.hooks(hooks_dir, "hookspath")
    chosen = hooks_dir if hooks_path else None
    work, bare = repos / "work", repos / "bare.git"
    include = "[include]\n\tpath = other.config\n"
    if matrix:
        include += (
            '[include]\n\tpath = matrix.config\n[includeIf "gitdir:/"]\n\tpath = matrix.config\n'
        )
        include += "[extensions]\n\tworktreeConfig = true\n"
    partial = repos / "partial" / ".git"
    remote = f"ext::sh -c touch% {marks}/MARKER-partial-remote.url"
    run_git(tmp_path, "config", "--file", str(partial / "config"), "remote.origin.url", remote)
    with open(partial / "config", "a") as fh:
        fh.write(_config_text([("protocol.ext.allow", "always")]) + (include if matrix else ""))
    if matrix:
        text = _matrix_text(programs, template.matrix)
        for git_dir in (work / ".git", bare, partial):
            for name in ("matrix.config", "config.worktree"):
                (git_dir / name).write_text(text)
        (work / ".git" / "worktrees" / "linked" / "config.worktree").write_text(text)
    for git_dir, scope in ((work / ".git", "local"), (bare, "bare")):
        local = _config_text(programs.config(scope, ("evil", "plain"), chosen))
        local += _config_text(
            [
                ("protocol.ext.allow", "always"),
                ("remote.origin.url", f"ext::sh -c touch% {marks}/MARKER-{scope}-remote.url"),
            ]
        )
        included = _config_text(programs.config(f"{scope}-include", ("inc",), chosen))
        (git_dir / "other.config").write_text(included)
        # In the work tree the included file comes last (its single-valued keys
        # win), in the bare repository first (the local ones win).
        with open(git_dir / "config", "a") as fh:
            fh.write(local + include if scope == "local" else include + local)
        programs.hooks(git_dir / "hooks", f"{scope}-githooks")
        # A bare repository has no checked-out .gitattributes.
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "attributes").write_text(ATTRIBUTES)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        _config_text([("uploadpack.packObjectsHook", programs.sh("global-packObjectsHook"))])
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "DIFFCHUNK_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        DIFFCHUNK_CACHE_DIR=str(tmp_path / "cache"),
        GIT_CONFIG_NOSYSTEM="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(repos / "site"), env.get("PYTHONPATH")])),
        DIFFCHUNK_TEST_MARKS=str(marks),
    )
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env["PYTHONPATH"]])
    for stale in marks.iterdir():  # none: no git ran since the config was written
        stale.unlink()
    return Hostile(
        tmp_path,
        work,
        bare,
        marks,
        env,
        template.base,
        template.head,
        repos / "linked",
        repos / "shared",
        repos / "partial",
    )


def plain_git(h: Hostile, repo: Path, *args: str, stdin: str = "", tty: bool = False) -> None:
    """Run plain git (no overrides) in ``repo``, stdout on a terminal if ``tty``."""
    env = {k: v for k, v in h.env.items() if k != "PYTHONPATH"}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t")
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    master, terminal = os.openpty() if tty else (-1, -1)
    try:
        subprocess.run(
            ["git", "-C", str(repo), *args],
            env=env,
            input=stdin.encode(),
            stdout=terminal if tty else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
    finally:
        if tty:
            os.close(terminal)
            os.close(master)
