"""Whether another program holds a file open for writing, and which.

An edit replaces a file by renaming a new version over it.  A program that
holds the file open for writing (an appender, a log) goes on writing to the
version replaced, not to the file: those bytes would be lost to the file.
The write transaction (:mod:`.transaction`) asks :func:`wait_for_writers`
before the rename (a file held open for writing is not replaced) and after
it (a program that opened the file just before the rename is waited for,
then what it wrote is kept and reported).

How it is known, on Linux:

- **A lease probe** (:func:`_busy`): the kernel grants a read lease
  (``F_SETLEASE``) on a file only when no process has it open for writing.
  The probe takes one on a descriptor of its own and gives it back at once
  (tens of microseconds, whatever runs on the machine).  A program opening
  the file for writing meanwhile waits those microseconds; the kernel
  then signals the holder, with ``SIGURG`` here (``F_SETSIG``; its default
  action is to do nothing), never ``SIGIO``, which would end the process.
  Only the file's owner may take a lease (or a process with
  ``CAP_LEASE``), and some file systems (network ones) have none.
- **Otherwise, and to name them**, ``/proc`` (:func:`writers`): a process
  counts when one of its descriptors is the file (same device and inode) and
  is open for writing (the access mode in ``fdinfo``).  Only the processes
  this one may read are seen (its user's; all for root), and the scan reads
  every descriptor of them (about 12 microseconds each).

A writable shared memory mapping without a descriptor is seen by neither.
Where there is no ``/proc``, nobody can be told (None).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import time
from dataclasses import dataclass

WRITERS_POLL_FIRST = 0.002
"""Seconds between the looks for such writers (2 ms): a lease probe costs tens of
microseconds, so an appender that closes the file between two lines is seen at its
first pause (a 50 ms pause let an edit wait 0.15 s for a writer that closes every 6 ms)..."""

WRITERS_POLL_MAX = 0.05
"""...doubling up to 50 ms where the lease probe cannot tell: each look then reads
every descriptor of the user's processes in ``/proc`` (about 12 us each: 0.25 s for
20,000 descriptors), so a long wait looks about 40 times, not 1,000."""


_PROC = "/proc"


@dataclass(frozen=True, slots=True)
class Writer:
    """A process that has the file open for writing (``pid`` 0: one not seen)."""

    pid: int
    command: str

    def __str__(self) -> str:
        if not self.pid:
            return "a program this user cannot see"
        return f"pid {self.pid} ({self.command})" if self.command else f"pid {self.pid}"


def _busy(fd: int) -> bool | None:
    """Whether a process has the file open at ``fd`` open for writing (a lease probe on
    a description of its own); None when the kernel cannot tell."""
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        probe = os.open(f"{_PROC}/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.fcntl(probe, fcntl.F_SETSIG, signal.SIGURG)
        try:
            fcntl.fcntl(probe, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except OSError as exc:
            return True if exc.errno == errno.EAGAIN else None
        fcntl.fcntl(probe, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return False
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(probe)


def _writable(pid: str, fd: str) -> bool:
    try:
        with open(f"{_PROC}/{pid}/fdinfo/{fd}", encoding="ascii") as info:
            for line in info:
                if line.startswith("flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, ValueError, IndexError):
        return False
    return False


def _command(pid: str) -> str:
    try:
        with open(f"{_PROC}/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def writers(identity: tuple[int, int]) -> list[Writer] | None:
    """The processes seen in ``/proc`` that have the file ``(st_dev, st_ino)`` open for
    writing (see the module doc for which are seen); None without ``/proc``."""
    try:
        pids = [name for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return None
    found: list[Writer] = []
    for pid in pids:
        directory = f"{_PROC}/{pid}/fd/"
        try:
            fds = os.listdir(directory)
        except OSError:
            continue  # gone, or another user's
        for fd in fds:
            try:
                st = os.stat(directory + fd)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == identity and _writable(pid, fd):
                found.append(Writer(int(pid), _command(pid)))
                break
    return found


def wait_for_writers(fd: int, seconds: float) -> list[Writer] | None:
    """Who has the file open at ``fd`` open for writing, asked again until nobody has or
    ``seconds`` pass: ``[]`` (nobody), those still writing then (named from ``/proc``
    where it can; one it cannot see otherwise), or None: nobody can tell."""
    st = os.fstat(fd)
    identity = (st.st_dev, st.st_ino)
    deadline = time.monotonic() + seconds
    pause = WRITERS_POLL_FIRST
    while True:
        busy = _busy(fd)
        if busy is False:
            return []
        seen = writers(identity) if busy is None else None  # /proc where the probe cannot tell
        if busy is None and not seen:
            return seen
        if time.monotonic() >= deadline:
            return seen if busy is None else (writers(identity) or [Writer(0, "")])
        time.sleep(pause)
        if busy is None:
            pause = min(pause * 2, WRITERS_POLL_MAX)
