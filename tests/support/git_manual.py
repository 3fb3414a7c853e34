"""The config keys git's own manual says name a program: the hostile matrix, from git itself.

:func:`program_keys` reads the installed git's ``git help config`` page (the
roff source of ``git-config.1``, gzipped or not, in the man directories) and
returns every key of its "Variables" section whose description names a
command, a program, a helper, a hook, an editor, a pager, a shell, a script,
a transport or a file to include.  Placeholders (``<name>``, ``<driver>``,
``*``) become ``marker``.  No page: the test fails, saying how to install it
(``make git-man``, Debian's ``git-man``), rather than test fewer keys.
"""

from __future__ import annotations

import gzip
import re
import subprocess
from pathlib import Path

# What a description says when its key makes git run something, or read a file.
NAMES_A_PROGRAM = re.compile(
    r"\b(commands?|programs?|helpers?|hooks?|editors?|pagers?|shell|scripts?|executables?"
    r"|transports?|protocols?|includ(?:e|ed|es|ing))\b",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"<[^>]*>|\*")
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*(\.[^\s.]+)+")
_ESCAPES = (
    ("\\&", ""),
    ("\\-", "-"),
    ("\\(cq", "'"),
    ("\\(aq", "'"),
    ("\\(dq", '"'),
    ("\\e", "\\"),
    ("\\fB", ""),
    ("\\fI", ""),
    ("\\fR", ""),
    ("\\fP", ""),
)


def _man_page() -> Path | None:
    """The installed git-config(1) page (roff, maybe gzipped): the one beside the git on
    PATH (``<prefix>/share/man``) first, then the system's."""
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout
    prefix = Path(exec_path.strip()).parent.parent  # <prefix>/libexec/git-core
    system = ("/usr/share/man/man1", "/usr/local/share/man/man1")
    for directory in (prefix / "share" / "man" / "man1", *system):
        for name in ("git-config.1.gz", "git-config.1"):
            path = Path(directory, name)
            if path.exists():
                return path
    return None


def _text(line: str) -> str:
    for escape, plain in _ESCAPES:
        line = line.replace(escape, plain)
    return line.strip()


def documented_keys() -> list[tuple[list[str], str]]:
    """``(keys, description)`` of each entry of the manual's "Variables" section."""
    page = _man_page()
    if page is None:  # `make test` may be installing it beside the suite
        from system_packages import wait_for_system_packages

        wait_for_system_packages()
        page = _man_page()
    if page is None:
        # Imported here: the hostile suite's processes import this module (through
        # hostile_repo, on their first git) and pytest's import took 0.3 s of each.
        import pytest

        pytest.fail(
            "git's config manual (git-config.1) is not installed, so the keys that name a "
            "program cannot be read from it: install it (`make git-man`, or `apt-get "
            "install git-man`) and run the tests again."
        )
    raw = gzip.decompress(page.read_bytes()) if page.suffix == ".gz" else page.read_bytes()
    lines = raw.decode("utf-8", "replace").splitlines()
    start = lines.index('.SS "Variables"')
    entries: list[tuple[list[str], str]] = []
    depth = 0
    keys: list[str] = []
    description: list[str] = []
    heading = False
    for line in lines[start + 1 :]:
        if line.startswith(".SH") or line.startswith(".SS"):
            break
        if line.startswith(".RS"):
            depth += 1
            heading = False
            continue
        if line.startswith(".RE"):
            depth -= 1
            if depth == 0 and keys:
                entries.append((keys, " ".join(description)))
                keys, description = [], []
            continue
        if depth == 0 and line.startswith(".PP"):
            heading = True
            continue
        if line.startswith("."):
            continue
        text = _text(line)
        if heading:
            keys += [k for k in (p.strip() for p in text.split(",")) if _KEY.fullmatch(k)]
        elif depth > 0:
            description.append(text)
    return entries


def concrete(key: str) -> str:
    """A documented key with its placeholders filled (``diff.<driver>.command`` ->
    ``diff.marker.command``)."""
    return _PLACEHOLDER.sub("marker", key)


def program_keys() -> list[str]:
    """Every documented key whose description names a program (see the module doc),
    placeholders filled, without duplicates."""
    found: dict[str, None] = {}
    for keys, description in documented_keys():
        if NAMES_A_PROGRAM.search(description):
            for key in keys:
                found[concrete(key)] = None
    return list(found)
