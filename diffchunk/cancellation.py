"""The cancellation of one call: what stops its git processes when the call is cancelled.

The MCP server makes a :class:`CallToken` for each tool call and puts it in
force (:func:`call_in_force`) while the call runs; the worker thread that runs
the tool sees it (anyio copies the context into the thread).  When the client
cancels the request, the server calls :meth:`CallToken.cancel` from its event
loop: every stop registered by the call (:meth:`CallToken.on_cancel`: the git
runner registers the kill of each process group it starts) runs at once, so
a wait on git in the worker thread returns and the thread is free again.
Nothing started under a cancelled token runs: :meth:`CallToken.check` raises
:class:`~diffchunk.errors.CallCancelled` first.

Rules: a stop runs at most once, never under the token's lock, and must not
block (it sends a signal; whoever waits on the process reaps it).  Outside a
call (the command line, a library caller) no token is in force, and nothing
here acts.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import CallCancelled

Stop = Callable[[], None]


class CallToken:
    """Whether one call was cancelled, and what to stop when it is."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._stops: dict[int, Stop] = {}
        self._ids = itertools.count()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Mark the call cancelled and run every registered stop (once)."""
        with self._lock:
            self._cancelled = True
            stops = list(self._stops.values())
            self._stops.clear()
        for stop in stops:
            stop()

    def on_cancel(self, stop: Stop) -> Callable[[], None]:
        """Run ``stop`` when the call is cancelled (now, if it already was); returns
        the function that forgets it (call it once the process has ended)."""
        with self._lock:
            if not self._cancelled:
                key = next(self._ids)
                self._stops[key] = stop
                return lambda: self._forget(key)
        stop()
        return lambda: None

    def _forget(self, key: int) -> None:
        with self._lock:
            self._stops.pop(key, None)

    def check(self, what: str = "The call") -> None:
        """Raise :class:`CallCancelled` if the call was cancelled."""
        if self._cancelled:
            raise CallCancelled(
                f"{what} was cancelled by the client; nothing more was started.",
                suggestion="Call the tool again if its answer is still wanted.",
            )


_IN_FORCE: ContextVar[CallToken | None] = ContextVar("diffchunk_call", default=None)


def current_call() -> CallToken | None:
    """The token of the call being served, if any."""
    return _IN_FORCE.get()


@contextmanager
def call_in_force(token: CallToken) -> Iterator[CallToken]:
    """Make ``token`` the one of the work done inside the block."""
    reset = _IN_FORCE.set(token)
    try:
        yield token
    finally:
        _IN_FORCE.reset(reset)
