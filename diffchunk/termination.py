"""SIGTERM and SIGHUP during ``diffchunk review``: the command ends as Ctrl-C ends it.

:func:`install` (called by the console script for a review) makes either
signal raise ``SystemExit(128 + N)``, so that the code running unwinds: git
is stopped and its unfinished cache entry removed (git writes into the entry
itself and would otherwise write on after this process ended).

Between the start of a git process and the moment an owner holds it, an
exception would leave git running unowned; :class:`Held` keeps a signal
that arrives there for its owner to act on (see ``GitCommand.start_into``).
Without :func:`install` (the MCP server, the tests) nothing changes.
"""

from __future__ import annotations

from types import TracebackType

_holding = 0
_pending: list[int] = []


def install() -> None:
    """Make SIGTERM and SIGHUP end the command with exit status 128+N."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _stop)


def _stop(signum: int, frame: object) -> None:
    if _holding:
        _pending.append(signum)
        return
    raise SystemExit(128 + signum)


class Held:
    """``with Held() as held:`` a termination signal waits in ``held.signal``.

    If the block raises, a waiting signal ends the command at once (nothing
    was handed over); otherwise the block's owner stops what it started and
    raises ``SystemExit(128 + held.signal)`` itself.
    """

    signal: int | None = None

    def __enter__(self) -> Held:
        global _holding
        _holding += 1
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _holding
        _holding -= 1
        if _pending and not _holding:
            self.signal = _pending[0]
            _pending.clear()
            if kind is not None:
                raise SystemExit(128 + self.signal)
