"""What the CLI does for a terminal: colour and a pager, as git does, decided once per command.

Rules:

- **Colour** (``diffchunk --color auto|always|never``): ``always`` and ``never``
  are obeyed; ``auto`` (the default) colours when standard output is a
  terminal and ``NO_COLOR`` is unset or empty (https://no-color.org: the
  option on the command line wins over it).  Standard output is looked at
  before a pager takes it over, so what goes through the pager is coloured
  as the terminal would be.  Piped output without ``--color always`` carries
  no escape codes: a chunk's raw bytes stay exact.
- **Pager** (:func:`paged`): a command that may print more than a screen
  runs its output through a pager when standard output is a terminal and
  ``--no-pager`` is not given.  The pager is the program the *user* names:
  ``DIFFCHUNK_PAGER``, else ``PAGER``, else ``less -FRX`` when ``less`` is
  installed (one screen or less is printed as it is; colours pass through);
  an empty value or ``cat`` means none.  It is started by diffchunk, through ``sh -c`` as git
  starts its pager, never by git, and nothing a repository says (its
  ``core.pager``, ``pager.*``) is read: a repository cannot name a program
  that runs.  ``LESS`` and ``LV`` get git's defaults when unset.  The pager's
  end (the user quit it early) ends the output quietly.
- **Styles** (:func:`paint`): a few named styles, one escape sequence each;
  with colour off a text is returned as it is.  Every command colours
  through these names, so the palette lives here.

One command, one setting: :func:`configure` is called by the ``diffchunk``
group before any subcommand runs.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .. import settings

COLOR_MODES = ("auto", "always", "never")
PAGER_ENV = "DIFFCHUNK_PAGER"
DEFAULT_PAGER = "less -FRX"

#: Style name -> SGR parameters.  ``word_*``: the words that differ inside a changed line.
STYLES = {
    "bold": "1",
    "dim": "2",
    "meta": "1",  # diff --git, ---/+++ and the other file header lines
    "hunk": "36",
    "removed": "31",
    "added": "32",
    "word_removed": "1;7;31",
    "word_added": "1;7;32",
    "reviewed": "32",
    "changed": "33",
    "seen": "34",
    "unseen": "31",
    "excluded": "2",
    "blocker": "1;31",
    "major": "31",
    "minor": "33",
    "nit": "36",
    "question": "35",
    "hint": "2",
}
RESET = "\033[m"


@dataclass
class _Settings:
    color: str = "auto"
    pager: bool = True
    terminal: bool | None = None  # standard output was a terminal when the command began


_settings = _Settings()


def _stdout_is_terminal() -> bool:
    stream = sys.stdout
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False


def configure(color: str = "auto", pager: bool = True) -> None:
    """The command line's choice (``diffchunk --color MODE [--no-pager]``)."""
    _settings.color = color
    _settings.pager = pager
    _settings.terminal = _stdout_is_terminal()


def to_terminal() -> bool:
    """Whether standard output was a terminal when the command began (a pager aside)."""
    if _settings.terminal is None:
        _settings.terminal = _stdout_is_terminal()
    return _settings.terminal


def colour_on() -> bool:
    """Whether this command writes colour (see the module doc)."""
    if _settings.color != "auto":
        return _settings.color == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return to_terminal()


def paint(text: str, style: str) -> str:
    """``text`` in ``style`` (a name of :data:`STYLES`) when colour is on."""
    if not text or not colour_on():
        return text
    return f"\033[{STYLES[style]}m{text}{RESET}"


def pager_command() -> str | None:
    """The pager the user names (see the module doc); None: no pager (also when none is
    named and ``less`` is not installed)."""
    named = settings.given(PAGER_ENV)
    if named is None:
        named = os.environ.get("PAGER")
    if named is not None:
        named = named.strip()
        return None if named in ("", "cat") else named
    import shutil

    return DEFAULT_PAGER if shutil.which("less") else None


@contextmanager
def paged() -> Iterator[None]:
    """Standard output goes through the pager inside the block, when it should (see the
    module doc); the block's end waits for the pager to exit."""
    command = pager_command() if _settings.pager and to_terminal() else None
    if command is None:
        yield
        return
    environment = dict(os.environ)
    environment.setdefault("LESS", "FRX")
    environment.setdefault("LV", "-c")
    try:
        process = subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, env=environment)
    except OSError:
        yield  # no shell to start it: print as it is
        return
    original = sys.stdout
    assert process.stdin is not None
    encoding = getattr(original, "encoding", None) or "utf-8"
    sys.stdout = io.TextIOWrapper(process.stdin, encoding=encoding, errors="surrogateescape")
    try:
        yield
    except BrokenPipeError:
        pass  # the pager was quit before the end
    finally:
        try:
            sys.stdout.close()
        except (BrokenPipeError, OSError, ValueError):
            pass
        sys.stdout = original
        _wait(process)


def _wait(process: subprocess.Popen[bytes]) -> None:
    """Wait for the pager (Ctrl-C goes to it as well: the user quits it there)."""
    while True:
        try:
            process.wait()
            return
        except KeyboardInterrupt:
            continue
