"""Run ``git`` as a subprocess, safely.

This module is the only place in diffchunk that starts a process running
git (``tests/test_one_git_runner.py`` scans the package for any other).
Everything diffchunk asks git goes through a :class:`GitCommand`:
``run``, ``text`` and ``run_all`` for short commands, ``start`` for a
:class:`~diffchunk.git.process.GitProcess` with pipes of the caller's
choosing, and ``start_into`` for output streamed into a file
(:class:`~diffchunk.git.process.GitStream`).  Each builds git's command line
with ``argv`` and its environment with ``env``, made to:

* call real subcommands only (never aliases), with ``--no-pager``;
* start from a scrubbed environment: every inherited ``GIT_*`` variable is
  dropped (inside a hook git exports ``GIT_DIR``, ``GIT_INDEX_FILE``... which
  would silently redirect us), except the few that only choose which config
  files are read; the repository is always passed explicitly (``-C`` or
  ``--git-dir``);
* neutralise configuration that makes git *execute* programs: ``core.fsmonitor``,
  ``core.pager``, ``diff.external``, ``core.hooksPath``, every transport
  (``protocol.allow=never``, so neither a lazy fetch in a partial clone nor
  ``core.sshCommand`` can run), and the ``clean``/``smudge``/``process``
  commands of every ``filter.<name>`` defined in any config file (a diff
  against the working tree runs clean filters); textconv and external diff
  drivers are switched off by the diff options themselves
  (``--no-textconv --no-ext-diff``).  The user's system/global config is
  otherwise still read, so settings such as ``core.autocrlf`` keep working;
* set ``LC_ALL=C`` (messages are parsed), ``GIT_TERMINAL_PROMPT=0`` and
  ``GIT_OPTIONAL_LOCKS=0`` (a review never takes the index lock).

The filter drivers to neutralise are found by
:func:`diffchunk.git.repo.discover` (``with_filters_neutralised``): a
``GitCommand`` made otherwise may only run commands that read no file of the
working tree (``rev-parse``, ``config``), or work in a repository made by
diffchunk itself.  Other programs a config can name cannot run in the
commands diffchunk uses (``diff``, ``rev-parse``, ``rev-list``,
``merge-base``, ``cat-file``, ``check-attr``, ``read-tree``, ``config``,
``symbolic-ref``, ``hash-object``, and ``log``, which
:mod:`~diffchunk.git.log` runs with ``--no-show-signature``), so they are
left alone: ``core.editor``/``sequence.editor`` (no message is edited),
``gpg.program`` (nothing is signed or verified; ``log.showSignature``
concerns ``log``, which is told not to, and ``show``), ``credential.helper``, ``core.askPass``, ``core.gitProxy`` and
``ext::`` remotes (no transport), ``uploadpack.packObjectsHook``
(``upload-pack`` only) and aliases (git never lets one shadow a command).
``tests/test_no_repository_programs.py`` runs every entry point against
repositories whose config names a program for each of these.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ..errors import GitError
from ..limits import GIT_STREAM_BLOCK as STREAM_BLOCK
from ..log import LazyLogger
from ..termination import Held
from .process import GitProcess, GitStream, decoded

logger = LazyLogger(__name__)  # see diffchunk.log

GIT = "git"

# Inherited variables kept: they only choose which config files git reads.
_KEPT_GIT_ENV = frozenset(
    {
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    }
)

# ``-c`` overrides on every call (command-line scope beats every config file).
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.quotePath", "false"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.hooksPath", os.devnull),
    ("diff.external", ""),
    ("protocol.allow", "never"),
    ("color.ui", "false"),
    # Changes the text of blank context lines; no command-line option exists.
    ("diff.suppressBlankEmpty", "false"),
)

# Per filter driver found in the config: what a working-tree diff could run.
_FILTER_KEYS = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))


def git_environment(extra_config: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment git runs with (see the module docstring).

    ``extra_config`` pairs are passed through ``GIT_CONFIG_COUNT``/``KEY_n``/
    ``VALUE_n``, which, unlike ``-c``, accept any key (a filter driver may be
    called ``a=b``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT_GIT_ENV}
    env["LC_ALL"] = "C"
    env.pop("LANGUAGE", None)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    pairs = list(extra_config)
    if pairs:
        env["GIT_CONFIG_COUNT"] = str(len(pairs))
        for i, (key, value) in enumerate(pairs):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def base_command(location: Sequence[str] = ()) -> list[str]:
    """``git --no-pager -c ... <location>`` (``location``: ``-C dir`` or ``--git-dir=...``)."""
    cmd = [GIT, "--no-pager"]
    for key, value in SAFE_CONFIG:
        cmd += ["-c", f"{key}={value}"]
    cmd += location
    return cmd


def _git_missing() -> GitError:
    return GitError(
        "The git executable was not found.",
        suggestion="Install git and make sure it is on PATH.",
    )


# Where a child's standard stream goes: subprocess.PIPE, subprocess.DEVNULL or
# an open file descriptor.
Redirect = int


def _spawn(
    argv: list[str],
    env: dict[str, str],
    *,
    stdin: Redirect,
    stdout: Redirect,
    stderr: Redirect,
    bufsize: int = -1,
) -> subprocess.Popen[bytes]:
    """Start git: the one call in diffchunk that does (argv from :meth:`GitCommand.argv`)."""
    try:
        return subprocess.Popen(
            argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, bufsize=bufsize
        )
    except FileNotFoundError:
        raise _git_missing() from None


class GitCommand(NamedTuple):
    """Where and how to run git for one repository."""

    location: tuple[str, ...] = ()  # ("-C", root) or ("--git-dir=...",)
    extra_config: tuple[tuple[str, str], ...] = ()
    env_extra: Mapping[str, str] = MappingProxyType({})

    def argv(self, args: Sequence[str]) -> list[str]:
        return [*base_command(self.location), *args]

    def env(self, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = git_environment(self.extra_config)
        env.update(self.env_extra)
        if env_extra:
            env.update(env_extra)
        return env

    def with_filters_neutralised(self, filter_names: Iterable[str]) -> GitCommand:
        pairs = [
            (f"filter.{name}.{key}", value) for name in filter_names for key, value in _FILTER_KEYS
        ]
        return GitCommand(self.location, (*self.extra_config, *pairs), self.env_extra)

    def with_options(self, *options: str) -> GitCommand:
        """The same, with git options put before every subcommand (``--literal-pathspecs``)."""
        return self._replace(location=(*self.location, *options))

    def start(
        self,
        args: Sequence[str],
        *,
        stdin: Redirect = subprocess.DEVNULL,
        stdout: Redirect = subprocess.PIPE,
        stderr: Redirect = subprocess.PIPE,
        env_extra: Mapping[str, str] | None = None,
        what: str | None = None,
    ) -> GitProcess:
        """Start git with its streams where asked; the caller owns the :class:`GitProcess`.

        A termination signal while git starts waits until the process object
        owns git (see :class:`~diffchunk.termination.Held`): git is then
        stopped here, not left running unowned.
        """
        argv = self.argv(args)
        logger.debug("running %s", argv)
        with Held() as held:
            proc = _spawn(argv, self.env(env_extra), stdin=stdin, stdout=stdout, stderr=stderr)
            process = GitProcess(proc, what or f"git {args[0]}")
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

        Past ``timeout`` seconds git is stopped and :class:`GitTimeout` raised.
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
        block_size: int = STREAM_BLOCK,
        what: str | None = None,
    ) -> GitStream:
        """Start git writing its stdout into the file open at ``fd``.

        :meth:`GitStream.blocks` then reads the file as it grows (``fd`` open
        for reading too, empty).  A pipe would
        cost git itself more: on a 16 MB diff, ``git diff`` took about 35 ms
        longer writing into a pipe than into /dev/null, and 10 ms into a file.
        The caller must end the stream (``blocks`` to the end, or ``kill``).
        """
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
            stream = GitStream(proc, fd, block_size, what or f"git {args[0]}")
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
