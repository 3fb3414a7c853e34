"""The git processes diffchunk owns: started by :class:`~diffchunk.git.runner.GitCommand`.

:class:`GitProcess` is git with pipes of its owner's choosing (short
commands, ``check-attr`` batches, ``read-tree``); :class:`GitStream` is git
writing into a file that its owner reads as it grows (``git diff`` into a
cache entry).  Whatever happens, the owner ends the process: a failure
stops git, and git's own failure becomes a :class:`~diffchunk.errors.GitError`
quoting its message (:func:`command_failed`).

Each git runs in a process group of its own, and is stopped with the whole
group (:class:`_Stopper`: whatever git started dies with it) in three cases:
its owner stops it; its time limit passes (one watchdog thread,
:data:`WATCHDOG`, keeps every deadline, so a wait on git, a read of its pipe
included, always ends); or the call that started it is cancelled (the stop
is registered with the call's :class:`~diffchunk.cancellation.CallToken`).
At the interpreter's exit every git still running is stopped (its own
session would otherwise outlive diffchunk).  A process stopped for its time
limit raises :class:`~diffchunk.errors.GitTimeout` to its owner, one stopped
for a cancelled call :class:`~diffchunk.errors.CallCancelled`, instead of
git's own failure.
"""

from __future__ import annotations

import atexit
import heapq
import itertools
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import IO

from ..cancellation import current_call
from ..errors import CallCancelled, DiffchunkError, GitError, GitTimeout

GIT_TAIL_WAIT = 0.002
"""Seconds GitStream.blocks first waits when it has read all git wrote so far
(2 ms), twice as long each time git still has written nothing more..."""

GIT_TAIL_WAIT_MAX = 0.05
"""...up to 50 ms: git may think for seconds before it writes (on renames, for
instance), and a reader polling faster would only burn a core."""

GIT_ERROR_LINES = 6
"""Lines of git's error output kept in an error message: git says what is
wrong first; its hints follow."""


class _Watchdog:
    """One daemon thread that runs each registered stop when its deadline passes."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._stops: dict[int, Callable[[], None]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float, stop: Callable[[], None]) -> int:
        """Run ``stop`` at ``deadline`` (``time.monotonic``) unless :meth:`forget` comes first."""
        with self._cond:
            key = next(self._ids)
            self._stops[key] = stop
            heapq.heappush(self._heap, (deadline, key))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="diffchunk-git-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        return key

    def forget(self, key: int) -> None:
        with self._cond:
            self._stops.pop(key, None)

    def stop_all(self) -> None:
        """Stop every git still watched (at exit: none is left running unowned)."""
        with self._cond:
            stops = list(self._stops.values())
            self._stops.clear()
        for stop in stops:
            stop()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][1] not in self._stops:
                    heapq.heappop(self._heap)  # forgotten
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, key = self._heap[0]
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                heapq.heappop(self._heap)
                stop = self._stops.pop(key)
            stop()


WATCHDOG = _Watchdog()
atexit.register(WATCHDOG.stop_all)


class _Stopper:
    """Stops one git process group: for its time limit, its call's cancellation or its
    owner, and remembers why (the owner's error says it)."""

    def __init__(self, proc: subprocess.Popen[bytes], what: str, time_limit: float) -> None:
        self.proc = proc
        self.what = what
        self.time_limit = time_limit
        self.reason: str | None = None
        self._watch = WATCHDOG.watch(time.monotonic() + time_limit, self._on_deadline)
        token = current_call()
        self._forget_call = token.on_cancel(self._on_cancel) if token is not None else None

    def shorten(self, seconds: float) -> None:
        """Stop git ``seconds`` from now if that comes before its time limit."""
        if seconds < self.time_limit:
            WATCHDOG.forget(self._watch)
            self.time_limit = seconds
            self._watch = WATCHDOG.watch(time.monotonic() + seconds, self._on_deadline)

    def _on_deadline(self) -> None:
        self.stop("deadline")

    def _on_cancel(self) -> None:
        self.stop("cancelled")

    def stop(self, reason: str | None = None) -> None:
        """Kill git's process group if git was not waited for yet (never blocks)."""
        if self.proc.returncode is not None:
            return
        if reason is not None and self.reason is None:
            self.reason = reason
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def release(self) -> None:
        """git has ended: forget its deadline and its call."""
        WATCHDOG.forget(self._watch)
        if self._forget_call is not None:
            self._forget_call()
            self._forget_call = None

    def error(self) -> DiffchunkError | None:
        """Why git was stopped, as its owner raises it (None: not stopped by us)."""
        if self.reason == "deadline":
            return GitTimeout(
                f"{self.what} did not finish within {self.time_limit:g} s and was stopped.",
                suggestion="Try again; if it keeps happening, look for what holds the "
                "repository up (a slow or network file system, a huge working tree, a "
                "named pipe where git expects a file).",
            )
        if self.reason == "cancelled":
            return CallCancelled(
                f"{self.what} was stopped: the call was cancelled.",
                suggestion="Call the tool again if its answer is still wanted.",
            )
        return None


def decoded(data: bytes) -> str:
    """git's output as text for a message (bytes that are not UTF-8 replaced)."""
    return data.decode("utf-8", "replace").strip()


class GitProcess:
    """A git process started by :meth:`GitCommand.start`, owned by whoever started it.

    The owner ends it, whatever happens: :meth:`finish` (feed stdin, read
    stdout and stderr to the end, wait), or :meth:`kill`, which is also what
    leaving a ``with`` block does (nothing when git has ended and its pipes
    are closed).  ``stdin``, ``stdout`` and ``stderr`` are the pipes asked
    for (else None), for an owner that reads or writes them itself; it then
    ends git with :meth:`wait` or :meth:`stop`, and :meth:`close`.
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        what: str,
        time_limit: float,
        missing_objects: str | None = None,
    ) -> None:
        self._proc = proc
        self.what = what
        self._missing_objects = missing_objects
        self._stopper = _Stopper(proc, what, time_limit)
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
        """Wait for git to exit; its exit status.  The pipes stay open.

        Git stopped for its time limit or a cancelled call raises that instead.
        """
        code = self._proc.wait()
        self._stopper.release()
        error = self._stopper.error()
        if error is not None:
            raise error
        return code

    def finish(
        self, input: bytes | None = None, *, timeout: float | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        """Write ``input`` to git, read its output to the end and wait for it.

        Past ``timeout`` seconds git is stopped and :class:`GitTimeout`
        raised; with ``check`` a non-zero exit raises :class:`GitError`
        quoting git.  Any failure here stops git.
        """
        proc = self._proc
        if timeout is not None:
            self._stopper.shorten(timeout)
        try:
            out, err = proc.communicate(input)
        except BaseException:
            self.kill()
            raise
        self._stopper.release()
        error = self._stopper.error()
        if error is not None:
            self.close()
            raise error
        if check and proc.returncode != 0:
            raise command_failed(
                self.what, proc.returncode, err or b"", missing_objects=self._missing_objects
            )
        return subprocess.CompletedProcess(proc.args, proc.returncode, out or b"", err or b"")

    def stop(self) -> None:
        """Stop git (its process group) if it still runs, and wait for it.  The pipes
        stay open (a thread of the owner may still be reading one: :meth:`close` after it)."""
        if self._proc.poll() is None:
            self._stopper.stop()
        self._proc.wait()
        self._stopper.release()

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


class GitStream:
    """A running git writing into a file, read in blocks as it grows.

    See :meth:`GitCommand.start_into`.
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        fd: int,
        block_size: int,
        what: str,
        time_limit: float,
        missing_objects: str | None = None,
    ) -> None:
        assert proc.stderr is not None
        self._proc = proc
        self._missing_objects = missing_objects
        self._stopper = _Stopper(proc, what, time_limit)
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
            self._stopper.stop()
            proc.wait()
            self._stopper.release()
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
        wait = GIT_TAIL_WAIT
        reader = self._reader
        with self._owned():
            pending: list[bytes] = []
            size = 0
            exited = False
            while True:
                piece = pread(fd, block_size - size, offset)
                if piece:
                    wait = GIT_TAIL_WAIT
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
                    wait = min(2 * wait, GIT_TAIL_WAIT_MAX)
            if pending:
                yield b"".join(pending)
            proc.wait()
            self._stopper.release()
        self._check()

    @contextmanager
    def _owned(self) -> Iterator[None]:
        """Git is stopped if the body fails; its stderr is released either way."""
        try:
            yield
        except BaseException:
            self._stopper.stop()
            self._proc.wait()
            self._stopper.release()
            raise
        finally:
            self._close()

    def _check(self) -> None:
        """A non-zero exit of git raises :class:`GitError` with its message (or why
        diffchunk stopped it)."""
        error = self._stopper.error()
        if error is not None:
            raise error
        if self._proc.returncode != 0:
            raise command_failed(
                self._what,
                self._proc.returncode,
                b"".join(self._errors),
                missing_objects=self._missing_objects,
            )

    def kill(self) -> None:
        """Stop git (if it still runs) and release its stderr pipe."""
        self._stopper.stop()
        self._proc.wait()
        self._stopper.release()
        self._close()

    def _close(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        self._reader.join()
        stderr.close()


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


# What git says when an object it needs is not in the object store.
_MISSING_OBJECT = (
    "unable to read",
    "bad object",
    "bad file",
    "missing blob",
    "missing tree",
    "could not read",
    "did not receive expected object",
    "is a promisor",
)


def command_failed(
    what: str, returncode: int, stderr: bytes, *, missing_objects: str | None = None
) -> GitError:
    """A :class:`GitError` quoting git's own message, with advice for common cases.

    ``missing_objects``: the advice when git says an object is missing (a
    partial clone's, whose missing objects git never fetches here).
    """
    message = decoded(stderr) or _exit_status(returncode)
    lines = message.splitlines()
    if len(lines) > GIT_ERROR_LINES:
        message = "\n".join([*lines[:GIT_ERROR_LINES], "..."])
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
    elif missing_objects is not None and any(m in lowered for m in _MISSING_OBJECT):
        suggestion = missing_objects
    return GitError(f"{what} failed: {message}", suggestion=suggestion)
