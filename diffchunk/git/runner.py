"""Run ``git`` as a subprocess, in a sandbox no repository can leave.

This module is the only place in diffchunk that starts a process running
git (``tests/git/test_one_runner.py`` scans the package for any other).
Everything diffchunk asks git goes through a :class:`GitCommand`:
``run``, ``text`` and ``run_all`` for short commands, ``start`` for a
:class:`~diffchunk.git.process.GitProcess` with pipes of the caller's
choosing, and ``start_into`` for output streamed into a file
(:class:`~diffchunk.git.process.GitStream`).

Git reads no config that diffchunk did not write, and no transport is
possible, by construction rather than by a list of settings to neutralise:

* a repository's git runs with ``GIT_DIR`` set to a private git directory of
  diffchunk's (:mod:`~diffchunk.git.sandbox`): its ``config`` is written by
  diffchunk from an allow-list of data-only keys, its objects come through
  ``objects/info/alternates``; the real work tree and index are named by
  ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE``.  So neither the repository's
  config nor its includes, ``config.worktree``, ``core.worktree``, hooks,
  filter and diff drivers, fsmonitor, pager, promisor remote or
  ``protocol.*.allow`` reach git;
* the environment is built, not filtered (:func:`git_environment`): ``PATH``,
  ``TMPDIR`` and ``TZ`` are kept, ``HOME`` is an empty directory of diffchunk's
  (no dotfile of the user's is read), ``GIT_CONFIG_NOSYSTEM=1`` and
  ``GIT_CONFIG_GLOBAL=/dev/null`` (no other config file), ``LC_ALL=C``
  (messages are parsed), ``GIT_TERMINAL_PROMPT=0``, ``GIT_OPTIONAL_LOCKS=0``
  (the user's index is never written), and a second, independent wall:
  ``GIT_ALLOW_PROTOCOL`` empty (no transport at all, whatever a config says)
  and ``GIT_NO_LAZY_FETCH=1`` (git 2.44 and later: no lazy fetch);
* before each start, every directory of the repository git reads (work
  tree, git directory, common directory, objects, alternates) is checked
  against the allowed roots in force (:func:`~diffchunk.paths.check_in_roots`:
  a repository discovered under one policy is not run under a stricter one);
* each git runs in a process group of its own, with a time limit, and is
  stopped with its children past it or when the call that started it is
  cancelled (:mod:`~diffchunk.git.process`).

The ``-c`` options every command carries (:data:`OUTPUT_CONFIG`) only shape
git's output (``core.quotePath=false``, no colour, blank context lines as
diffchunk parses them).  Settings that make git run a program
(``core.fsmonitor``, ``core.pager``, ``core.hooksPath``, ``diff.external``,
filter drivers, ``protocol.*.allow``...) need no override: no config that
could name them is read.  Diff options still turn textconv and external drivers off
(``--no-textconv --no-ext-diff``), and work-tree diffs never look inside a
submodule's work tree (``--ignore-submodules=dirty``: git then only reads the
commit its ``HEAD`` names, without running git there).

The constructors: :meth:`GitCommand.sandboxed` (what
:func:`~diffchunk.git.repo.discover` builds for a repository) and
:meth:`GitCommand.in_own_repository` (a repository diffchunk made itself:
the demo's).  Neither can reach a transport.  A command that needs the user's
own transport (pushing diffchunk's refs to a remote from the command line)
would be a separate constructor with its own environment, in a module of its
own that no read path imports; none exists.
"""

from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ..cancellation import current_call
from ..errors import GitError
from ..limits import GIT_STREAM_BLOCK, GIT_STREAM_TIME_LIMIT
from ..log import LazyLogger
from ..paths import check_in_roots
from ..termination import Held
from .process import GitProcess, GitStream, decoded
from .sandbox import git_home

GIT_RUN_TIME_LIMIT = 300.0
"""Seconds a git command that answers (``rev-parse``, ``cat-file``, ``check-attr``,
``log``...) may run before it is stopped with its children: far more than any
of them takes on a large repository (seconds), so that a git waiting on
something that never comes (a named pipe where git expects a file) cannot
hold a worker thread for good."""


logger = LazyLogger(__name__)  # see diffchunk.log

GIT = "git"

# ``-c`` options on every command: how git writes its output, nothing else.
OUTPUT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.quotePath", "false"),
    ("color.ui", "false"),
    # Changes the text of blank context lines; no command-line option exists.
    ("diff.suppressBlankEmpty", "false"),
)

PARTIAL_CLONE_ADVICE = (
    "The repository is a partial clone and lacks objects this needs; diffchunk never "
    "fetches them (that would run the repository's transport). Fetch them yourself in "
    "{path} (`git fetch`, or `git backfill` with git 2.49 or later), or export the diff "
    "with plain git (`git diff A B > x.diff`) and load that file."
)

# Variables of this process's environment git is given as they are.
_KEPT_ENV = ("PATH", "TMPDIR", "TZ", "GIT_EXEC_PATH")


def git_environment(env_vars: Mapping[str, str] = MappingProxyType({})) -> dict[str, str]:
    """The environment git runs with, built from nothing (see the module docstring);
    ``env_vars``: where the repository is (``GIT_DIR``, ``GIT_WORK_TREE``...)."""
    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(
        HOME=git_home(),
        LC_ALL="C",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_ALLOW_PROTOCOL="",
        GIT_NO_LAZY_FETCH="1",
    )
    env.update(env_vars)
    return env


def base_command() -> list[str]:
    """``git --no-pager -c ...``: what every git command line starts with."""
    cmd = [GIT, "--no-pager"]
    for key, value in OUTPUT_CONFIG:
        cmd += ["-c", f"{key}={value}"]
    return cmd


def _git_missing() -> GitError:
    return GitError(
        "The git executable was not found.",
        suggestion="Install git and make sure it is on PATH.",
    )


# Where a child's standard stream goes: subprocess.PIPE, subprocess.DEVNULL or
# an open file descriptor.
Redirect = int


def _file_size_limit(limit: int) -> Callable[[], None]:
    """What a child runs before git starts: no file it (or a process it starts) writes
    may pass ``limit`` bytes (``RLIMIT_FSIZE``: a write past it fails and the writer
    gets SIGXFSZ), and that signal leaves no core file.  Set in the child before
    git runs, so no process of git's escapes it (a limit set after the start would
    race with git's own children)."""
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    bound = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    _, core_hard = resource.getrlimit(resource.RLIMIT_CORE)

    def apply() -> None:  # in the child: system calls only
        resource.setrlimit(resource.RLIMIT_FSIZE, (bound, bound))
        resource.setrlimit(resource.RLIMIT_CORE, (0, core_hard))

    return apply


def _spawn(
    argv: list[str],
    env: dict[str, str],
    *,
    stdin: Redirect,
    stdout: Redirect,
    stderr: Redirect,
    bufsize: int = -1,
    file_size_limit: int | None = None,
) -> subprocess.Popen[bytes]:
    """Start git: the one call in diffchunk that does (argv from :meth:`GitCommand.argv`),
    in a new session, so that its process group is its own to stop; with
    ``file_size_limit``, no file git writes may pass that many bytes
    (:func:`_file_size_limit`)."""
    limit = None if file_size_limit is None else _file_size_limit(file_size_limit)
    try:
        return subprocess.Popen(
            argv,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=env,
            bufsize=bufsize,
            start_new_session=True,
            preexec_fn=limit,  # two setrlimit calls: no lock a thread could hold
        )
    except FileNotFoundError:
        raise _git_missing() from None


class GitCommand(NamedTuple):
    """Where and how to run git for one repository (see the constructors)."""

    cwd: str  # the directory git starts in (-C)
    env_vars: Mapping[str, str] = MappingProxyType({})  # GIT_DIR, GIT_WORK_TREE...
    readable: tuple[str, ...] = ()  # real directories of the repository git reads
    options: tuple[str, ...] = ()  # git options before the subcommand
    missing_objects: str | None = None  # advice when an object is missing (partial clone)

    @classmethod
    def sandboxed(
        cls,
        git_dir: str,
        work_tree: str | None,
        index: str | None,
        readable: Sequence[str],
        *,
        partial_clone: bool = False,
    ) -> GitCommand:
        """git for a repository through its private git directory ``git_dir``
        (:mod:`~diffchunk.git.sandbox`), with the real ``work_tree`` and ``index``
        (None for a bare repository); ``readable``: the repository's real
        directories, checked against the roots before each start.
        ``partial_clone``: a missing object is explained as one git does not fetch."""
        env = {"GIT_DIR": git_dir}
        if work_tree is not None:
            env["GIT_WORK_TREE"] = work_tree
        if index is not None:
            env["GIT_INDEX_FILE"] = index
        advice = (
            PARTIAL_CLONE_ADVICE.format(path=work_tree or readable[0]) if partial_clone else None
        )
        return cls(work_tree or git_dir, MappingProxyType(env), tuple(readable), (), advice)

    @classmethod
    def in_own_repository(cls, directory: str, env_vars: Mapping[str, str]) -> GitCommand:
        """git in a repository diffchunk made itself in ``directory`` (the demo's): git
        finds it there and reads its config, which diffchunk wrote; the environment
        is built as for any other (no user config, no transport)."""
        return cls(directory, MappingProxyType(dict(env_vars)))

    def argv(self, args: Sequence[str]) -> list[str]:
        return [*base_command(), "-C", self.cwd, *self.options, *args]

    def env(self, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = git_environment(self.env_vars)
        if env_extra:
            env.update(env_extra)
        return env

    def with_options(self, *options: str) -> GitCommand:
        """The same, with git options put before every subcommand (``--literal-pathspecs``)."""
        return self._replace(options=(*self.options, *options))

    def _before_start(self, what: str) -> None:
        """Refuse to start git for a cancelled call, or in a repository outside the roots."""
        token = current_call()
        if token is not None:
            token.check(what)
        for directory in self.readable:
            check_in_roots(directory, what=f"a directory {what} would read")

    def start(
        self,
        args: Sequence[str],
        *,
        stdin: Redirect = subprocess.DEVNULL,
        stdout: Redirect = subprocess.PIPE,
        stderr: Redirect = subprocess.PIPE,
        env_extra: Mapping[str, str] | None = None,
        what: str | None = None,
        time_limit: float = GIT_RUN_TIME_LIMIT,
        file_size_limit: int | None = None,
    ) -> GitProcess:
        """Start git with its streams where asked; the caller owns the :class:`GitProcess`.

        Past ``time_limit`` seconds git is stopped (its owner's wait then raises
        :class:`~diffchunk.errors.GitTimeout`); with ``file_size_limit``, no file
        git writes may pass that many bytes (a process of git's writing past it
        is killed, and git fails).  A termination signal while git
        starts waits until the process object owns git (see
        :class:`~diffchunk.termination.Held`): git is then stopped here, not
        left running unowned.
        """
        what = what or f"git {args[0]}"
        self._before_start(what)
        argv = self.argv(args)
        logger.debug("running %s", argv)
        with Held() as held:
            proc = _spawn(
                argv,
                self.env(env_extra),
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                file_size_limit=file_size_limit,
            )
            process = GitProcess(proc, what, time_limit, self.missing_objects)
        if held.signal is not None:
            process.kill()
            raise SystemExit(128 + held.signal)
        return process

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        check: bool = True,
        env_extra: Mapping[str, str] | None = None,
        what: str | None = None,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git and capture its output; a failure raises :class:`GitError` with git's message.

        Past ``timeout`` seconds (at most its time limit) git is stopped and
        :class:`GitTimeout` raised.
        """
        stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
        with self.start(args, stdin=stdin, env_extra=env_extra, what=what) as proc:
            return proc.finish(input, timeout=timeout, check=check)

    def run_all(
        self, commands: Sequence[Sequence[str]], *, timeout: float | None = None
    ) -> list[subprocess.CompletedProcess[bytes]]:
        """Run short git commands side by side; their results in order.

        Like :meth:`run` with ``check=False``: a non-zero exit is the
        caller's to read.  For commands with little output (probes):
        each is read to the end in turn while the others run.  Past
        ``timeout`` seconds (all of them together) every one is stopped and
        :class:`GitTimeout` raised.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        started: list[GitProcess] = []
        try:
            for args in commands:
                started.append(self.start(args))
            results = []
            for proc in started:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                results.append(proc.finish(timeout=left, check=False))
            return results
        finally:
            for proc in started:
                proc.kill()

    def text(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        env_extra: Mapping[str, str] | None = None,
        what: str | None = None,
    ) -> str:
        """Run git (failure raises) and return stdout as text, stripped."""
        proc = self.run(args, input=input, env_extra=env_extra, what=what)
        return decoded(proc.stdout)

    def start_into(
        self,
        args: Sequence[str],
        fd: int,
        *,
        block_size: int = GIT_STREAM_BLOCK,
        what: str | None = None,
    ) -> GitStream:
        """Start git writing its stdout into the file open at ``fd``.

        :meth:`GitStream.blocks` then reads the file as it grows (``fd`` open
        for reading too, empty).  A pipe would
        cost git itself more: on a 16 MB diff, ``git diff`` took about 35 ms
        longer writing into a pipe than into /dev/null, and 10 ms into a file.
        The caller must end the stream (``blocks`` to the end, or ``kill``).
        Past :data:`~diffchunk.limits.GIT_STREAM_TIME_LIMIT` seconds git is stopped.
        """
        what = what or f"git {args[0]}"
        self._before_start(what)
        argv = self.argv(args)
        logger.debug("running %s > fd %d", argv, fd)
        # A termination signal while git starts waits until the stream owns
        # git: git is then stopped here, not left writing on unowned.
        with Held() as held:
            proc = _spawn(
                argv,
                self.env(),
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
            stream = GitStream(
                proc, fd, block_size, what, GIT_STREAM_TIME_LIMIT, self.missing_objects
            )
        if held.signal is not None:
            stream.kill()
            raise SystemExit(128 + held.signal)
        return stream


def split_z(data: bytes) -> list[bytes]:
    """Split NUL-terminated ``-z`` output (the trailing empty field dropped)."""
    parts = data.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts
