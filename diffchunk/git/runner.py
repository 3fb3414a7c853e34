"""Run ``git`` as a subprocess, safely.

Everything diffchunk asks git goes through a :class:`GitCommand` (its
``argv`` and ``env``, which ``run``, ``run_all`` and ``start_into`` use),
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
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import MappingProxyType
from typing import NamedTuple

from ..errors import GitError
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

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        check: bool = True,
        env_extra: Mapping[str, str] | None = None,
        what: str | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git and capture its output; a failure raises :class:`GitError` with git's message."""
        argv = self.argv(args)
        logger.debug("running %s", argv)
        try:
            proc = subprocess.run(
                argv,
                input=input,
                stdin=None if input is not None else subprocess.DEVNULL,
                capture_output=True,
                env=self.env(env_extra),
                check=False,
            )
        except FileNotFoundError:
            raise _git_missing() from None
        if check and proc.returncode != 0:
            raise command_failed(what or f"git {args[0]}", proc.returncode, proc.stderr)
        return proc

    def run_all(
        self, commands: Sequence[Sequence[str]]
    ) -> list[subprocess.CompletedProcess[bytes]]:
        """Run short git commands side by side; their results in order.

        Like :meth:`run` with ``check=False``: a non-zero exit is the
        caller's to read.  For commands with little output (probes):
        each is read to the end in turn while the others run.
        """
        started: list[tuple[list[str], subprocess.Popen[bytes]]] = []
        try:
            for args in commands:
                argv = self.argv(args)
                logger.debug("running %s", argv)
                try:
                    proc = subprocess.Popen(
                        argv,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        env=self.env(),
                    )
                except FileNotFoundError:
                    raise _git_missing() from None
                started.append((argv, proc))
            results = []
            for argv, proc in started:
                out, err = proc.communicate()
                results.append(subprocess.CompletedProcess(argv, proc.returncode, out, err))
            return results
        finally:
            for _, proc in started:
                if proc.returncode is None:
                    proc.kill()
                    proc.communicate()

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
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=fd,
                    stderr=subprocess.PIPE,
                    env=self.env(),
                    bufsize=0,
                )
            except FileNotFoundError:
                raise _git_missing() from None
            stream = GitStream(proc, fd, block_size, what or f"git {args[0]}")
        if held.signal is not None:
            stream.kill()
            raise SystemExit(128 + held.signal)
        return stream


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
