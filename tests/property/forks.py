"""Children forked from one process that imported their code once: the fault runs' killed children.

A fault run starts a child, kills it with SIGKILL at a random moment, and checks
what it left.  Started as a fresh interpreter each, a child spent a large share
of its CPU importing diffchunk before it wrote anything (0.1 s a child).
:class:`Forks` starts one server process (``python -m tests.property.forks
MODULE...``) that imports the modules once, then forks a child per
:meth:`Forks.start`: the child runs ``function(*args)`` with its standard output
on a pipe whose reading end the server hands back through a Unix socket.  The
server itself only imports: no child inherits an open file, a record's
connection or a thread.  A child that has ended stays a zombie until the next
start (its pid is not reused while the caller may still signal it).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import IO, Any


class Forks:
    """The fork server: ``modules`` imported once, in ``env`` and ``cwd``."""

    def __init__(self, modules: list[str], env: dict[str, str], cwd: Path) -> None:
        self._socket, theirs = socket.socketpair()
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.property.forks", *modules],
            stdin=theirs.fileno(),
            env=env,
            cwd=str(cwd),
        )
        theirs.close()

    def start(self, function: str, *args: Any) -> tuple[int, IO[bytes]]:
        """Fork a child running ``function`` (``module.name``) with ``args`` (JSON
        values): its pid, and its standard output to read (at its end once it ends)."""
        self._socket.sendall(json.dumps([function, *args]).encode() + b"\n")
        message, fds, _flags, _address = socket.recv_fds(self._socket, 64, 1)
        if not fds:
            raise RuntimeError(f"the fork server answered no pipe: {message!r}")
        return int(message), os.fdopen(fds[0], "rb")

    def close(self) -> None:
        self._socket.close()  # the server reads its end and stops
        self._server.wait(timeout=60)

    def __enter__(self) -> Forks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(modules: list[str]) -> None:
    """The server: import ``modules``, then fork a child for each request on the socket
    that is this process's standard input."""
    for module in modules:
        importlib.import_module(module)
    channel = socket.socket(fileno=0)
    requests = channel.makefile("rb")
    for line in requests:
        while _reap():
            pass
        function, *args = json.loads(line)
        module, _, name = function.rpartition(".")
        target = getattr(importlib.import_module(module), name)
        read_end, write_end = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                requests.close()
                channel.close()
                os.close(read_end)
                os.dup2(write_end, 1)
                os.close(write_end)
                target(*args)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                code = 1
                import traceback

                traceback.print_exc()
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                os._exit(code)
        os.close(write_end)
        socket.send_fds(channel, [str(pid).encode()], [read_end])
        os.close(read_end)
    while True:  # the caller is done: collect the children left
        try:
            os.wait()
        except ChildProcessError:
            break


def _reap() -> bool:
    """Collect one child that has ended; False when none has."""
    try:
        pid, _status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return pid != 0


if __name__ == "__main__":
    serve(sys.argv[1:])
