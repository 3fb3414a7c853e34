"""Run ``git`` as a subprocess, safely.

This module is the only place in diffchunk that starts a process running
git (``tests/test_one_git_runner.py`` scans the package for any other).
Everything diffchunk asks git goes through a :class:`GitCommand`:
``run``, ``text`` and ``run_all`` for short commands, ``start`` for a
:class:`GitProcess` with pipes of the caller's choosing, and ``start_into``
for output streamed into a file (:class:`GitStream`).  Each
builds git's command line with ``argv`` and its environment with ``env``,
made to:

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
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from types import MappingProxyType
from typing import IO, NamedTuple

from ..errors import GitError, GitTimeout
from ..log import LazyLogger
from ..termination import Held

logger = LazyLogger(__name__)  # see diffchunk.log

GIT = "git"
# Block size of GitStream.blocks.
STREAM_BLOCK = 1 << 18

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


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace").strip()


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
        return _decode(proc.stdout)

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


class GitProcess:
    """A git process started by :meth:`GitCommand.start`, owned by whoever started it.

    The owner ends it, whatever happens: :meth:`finish` (feed stdin, read
    stdout and stderr to the end, wait), or :meth:`kill`, which is also what
    leaving a ``with`` block does (nothing when git has ended and its pipes
    are closed).  ``stdin``, ``stdout`` and ``stderr`` are the pipes asked
    for (else None), for an owner that reads or writes them itself; it then
    ends git with :meth:`wait` or :meth:`stop`, and :meth:`close`.
    """

    def __init__(self, proc: subprocess.Popen[bytes], what: str) -> None:
        self._proc = proc
        self.what = what
        self.stdin: IO[bytes] | None = proc.stdin
        self.stdout: IO[bytes] | None = proc.stdout
        self.stderr: IO[bytes] | None = proc.stderr

    @property
    def returncode(self) -> int | None:
        """The exit status once git has ended and was waited for (negative: a signal)."""
        return self._proc.returncode

    def poll(self) -> int | None:
        """The exit status if git has ended, else None (never waits)."""
        return self._proc.poll()

    def wait(self) -> int:
        """Wait for git to exit; its exit status.  The pipes stay open."""
        return self._proc.wait()

    def finish(
        self, input: bytes | None = None, *, timeout: float | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        """Write ``input`` to git, read its output to the end and wait for it.

        Past ``timeout`` seconds git is stopped and :class:`GitTimeout`
        raised; with ``check`` a non-zero exit raises :class:`GitError`
        quoting git.  Any failure here stops git.
        """
        proc = self._proc
        try:
            out, err = proc.communicate(input, timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise GitTimeout(
                f"{self.what} did not finish within {timeout:g} s and was stopped.",
                suggestion="Try again; if it keeps happening, look for what holds the "
                "repository up (a slow or network file system, a huge working tree).",
            ) from None
        except BaseException:
            self.kill()
            raise
        if check and proc.returncode != 0:
            raise command_failed(self.what, proc.returncode, err or b"")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out or b"", err or b"")

    def stop(self) -> None:
        """Stop git if it still runs, and wait for it.  The pipes stay open (a
        thread of the owner may still be reading one: :meth:`close` after it)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()

    def close(self) -> None:
        """Close the pipes (once git has ended)."""
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with suppress(OSError):  # unflushed input for a git that is gone
                    stream.close()

    def kill(self) -> None:
        """Stop git if it still runs, wait for it and close its pipes."""
        self.stop()
        self.close()

    def __enter__(self) -> GitProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()


# How long GitStream.blocks waits when it has read all that git wrote so far:
# 2 ms at first, twice as long each time git still has written nothing more,
# up to 50 ms (git may think for seconds before it writes, e.g. on renames).
_TAIL_WAIT = 0.002
_TAIL_WAIT_MAX = 0.05


class GitStream:
    """A running git writing into a file, read in blocks as it grows.

    See :meth:`GitCommand.start_into`.
    """

    def __init__(self, proc: subprocess.Popen[bytes], fd: int, block_size: int, what: str) -> None:
        assert proc.stderr is not None
        self._proc = proc
        self._fd = fd
        self._block_size = block_size
        self._what = what
        stderr = proc.stderr
        self._errors: list[bytes] = []
        self._reader = threading.Thread(
            target=lambda: self._errors.append(stderr.read()), daemon=True
        )
        try:
            self._reader.start()
        except BaseException:  # no thread to drain stderr: git must not run unowned
            proc.kill()
            proc.wait()
            stderr.close()
            raise

    def blocks(self) -> Iterator[bytes]:
        """Git's output in blocks as it arrives, then wait for git.

        Blocks are at most ``block_size`` bytes: a full block, or what git has
        written so far.  A non-zero exit raises :class:`GitError` after the
        last block was yielded, so the reader must not treat what it got as
        final before the iteration ends.  Closing the iteration early (or an
        exception in the reader) kills git.
        """
        proc = self._proc
        fd = self._fd
        block_size = self._block_size
        pread = os.pread
        offset = 0
        wait = _TAIL_WAIT
        reader = self._reader
        with self._owned():
            pending: list[bytes] = []
            size = 0
            exited = False
            while True:
                piece = pread(fd, block_size - size, offset)
                if piece:
                    wait = _TAIL_WAIT
                    offset += len(piece)
                    pending.append(piece)
                    size += len(piece)
                    if size < block_size:
                        continue
                elif exited:
                    break
                elif proc.poll() is not None:
                    # git has exited: what it wrote is all there; read to the end.
                    exited = True
                    continue
                if pending:  # a full block, or all there is for now
                    yield pending[0] if len(pending) == 1 else b"".join(pending)
                    pending = []
                    size = 0
                if not piece:
                    if reader.is_alive():
                        reader.join(wait)  # ends early when git exits (its stderr closes)
                    else:
                        time.sleep(wait)
                    wait = min(2 * wait, _TAIL_WAIT_MAX)
            if pending:
                yield b"".join(pending)
            proc.wait()
        self._check()

    @contextmanager
    def _owned(self) -> Iterator[None]:
        """Git is stopped if the body fails; its stderr is released either way."""
        try:
            yield
        except BaseException:
            self._proc.kill()
            self._proc.wait()
            raise
        finally:
            self._close()

    def _check(self) -> None:
        """A non-zero exit of git raises :class:`GitError` with its message."""
        if self._proc.returncode != 0:
            raise command_failed(self._what, self._proc.returncode, b"".join(self._errors))

    def kill(self) -> None:
        """Stop git (if it still runs) and release its stderr pipe."""
        self._proc.kill()
        self._proc.wait()
        self._close()

    def _close(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        self._reader.join()
        stderr.close()


_MAX_MESSAGE_LINES = 6


def _exit_status(returncode: int) -> str:
    """``exit status N``, or the signal that killed git (a negative returncode)."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    if name == "SIGXFSZ":
        return "killed by SIGXFSZ: the output exceeded the file size limit (ulimit -f)"
    return f"killed by {name}"


def command_failed(what: str, returncode: int, stderr: bytes) -> GitError:
    """A :class:`GitError` quoting git's own message, with advice for common cases."""
    message = _decode(stderr) or _exit_status(returncode)
    lines = message.splitlines()
    if len(lines) > _MAX_MESSAGE_LINES:
        message = "\n".join([*lines[:_MAX_MESSAGE_LINES], "..."])
    lowered = message.lower()
    suggestion = None
    if "dubious ownership" in lowered:
        suggestion = (
            "The repository belongs to another user; if you trust it, run the "
            "`git config --global --add safe.directory ...` command git printed."
        )
    elif "not a git repository" in lowered:
        suggestion = "Pass the path of a git working tree or repository."
    elif "must be run in a work tree" in lowered:
        suggestion = "This repository is bare: review a commit range such as `main~3..main`."
    return GitError(f"{what} failed: {message}", suggestion=suggestion)


def split_z(data: bytes) -> list[bytes]:
    """Split NUL-terminated ``-z`` output (the trailing empty field dropped)."""
    parts = data.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts
