"""``make demo``: build a small repository, diff two commits, and review the diff.

Shows what a reviewer sees: the chunk overview (with a lockfile, a minified
bundle and a whitespace-only change left out, a rename listed, a big file
split), the start of chunk 1 in the annotated format, and the MCP client
configuration.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from .cli import main as cli_main
from .git.runner import GitCommand
from .review.tools import diff_tools

SHOWN_LINES = 30  # lines of a chunk the demo prints: enough to see what it holds
WIDTH = 100  # the width of the demo's rules: the CLI's help width


# The demo's commits: a fixed identity (git runs with none of the machine's config).
_DEMO_ENV = {
    "GIT_AUTHOR_NAME": "Demo",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
}


def _git(repo: Path, *args: str) -> str:
    git = GitCommand.in_own_repository(str(repo), _DEMO_ENV)
    return git.run(args).stdout.decode("utf-8")


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _lockfile(version: str) -> str:
    deps = {
        f"pkg-{i}": {"version": f"{version}.{i}", "integrity": f"sha512-{i:04d}{version}"}
        for i in range(40)
    }
    return json.dumps({"name": "shop", "lockfileVersion": 3, "packages": deps}, indent=2) + "\n"


def _bundle(flag: str) -> str:
    body = ";".join(f"function f{i}(a){{return a*{i}+{flag}}}" for i in range(120))
    return f"!function(){{{body}}}();\n"


def _tables(rows: int, factor: int) -> str:
    lines = ['"""Shipping rates per zone (kept in code for speed)."""', "", "RATES = {"]
    lines += [f"    {i}: {i * factor / 100:.2f}," for i in range(rows)]
    lines.append("}")
    return "\n".join(lines) + "\n"


APP_V1 = '''\
"""The shop's checkout."""

from .helpers import money


def total(items):
    return sum(item.price for item in items)


def receipt(items):
    return "\\n".join(f"{item.name}: {money(item.price)}" for item in items)
'''

APP_V2 = '''\
"""The shop's checkout."""

from .helpers import money
from .tables import RATES


def total(items, zone=0):
    subtotal = sum(item.price * item.quantity for item in items)
    return subtotal + shipping(zone)


def shipping(zone):
    """Flat rate for the zone; unknown zones ship free."""
    return RATES.get(zone, 0.0)


def receipt(items, zone=0):
    lines = [f"{item.name} x{item.quantity}: {money(item.price)}" for item in items]
    lines.append(f"shipping: {money(shipping(zone))}")
    return "\\n".join(lines)
'''

CONFIG_V1 = "DEBUG = False\nCURRENCY = 'EUR'\n\nTIMEOUT = 30\n"
CONFIG_V2 = "DEBUG = False\nCURRENCY = 'EUR'\n\n\nTIMEOUT = 30   \n"
UTIL = '"""Formatting helpers."""\n\n\ndef money(value):\n    return f"{value:.2f} EUR"\n'


def build_demo_diff(workdir: Path) -> Path:
    """Create the example repository in ``workdir/shop`` and return the diff file."""
    repo = workdir / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, "src/app.py", APP_V1)
    _write(repo, "src/config.py", CONFIG_V1)
    _write(repo, "src/util.py", UTIL)
    _write(repo, "src/tables.py", _tables(700, 7))
    _write(repo, "package-lock.json", _lockfile("1"))
    _write(repo, "dist/app.min.js", _bundle("1"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Initial shop")

    _write(repo, "src/app.py", APP_V2)
    _write(repo, "src/config.py", CONFIG_V2)
    _git(repo, "mv", "src/util.py", "src/helpers.py")
    _write(repo, "src/tables.py", _tables(700, 9))
    _write(repo, "package-lock.json", _lockfile("2"))
    _write(repo, "dist/app.min.js", _bundle("2"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Quantities and shipping rates")

    diff = _git(repo, "diff", "--no-color", "--no-ext-diff", "-M", "HEAD~1", "HEAD")
    path = workdir / "shop.diff"
    path.write_text(diff, encoding="utf-8")
    return path


def _mcp_command() -> str:
    script = Path(sys.executable).with_name("diffchunk-mcp")
    return str(script) if script.exists() else "diffchunk-mcp"


def main() -> int:
    if shutil.which("git") is None:
        print("The demo needs git on PATH.", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="diffchunk-demo-") as tmp:
        diff_path = build_demo_diff(Path(tmp))
        print(f"A repository with two commits; `git diff HEAD~1 HEAD` saved as {diff_path}\n")
        print(f"$ diffchunk review {diff_path}")
        sys.stdout.flush()
        cli_main.main(args=["review", str(diff_path)], prog_name="diffchunk", standalone_mode=False)
        sys.stdout.flush()

        print(f"\n$ diffchunk review {diff_path} --chunk 1 --format annotated")
        text = diff_tools.get_chunk(str(diff_path), 1, include_context=False, format="annotated")
        lines = text.splitlines()
        for line in lines[:SHOWN_LINES]:
            print(line if len(line) <= WIDTH else line[: WIDTH - 1] + "…")
        if len(lines) > SHOWN_LINES:
            print(f"... ({len(lines) - SHOWN_LINES} more lines)")

    config = {"mcpServers": {"diffchunk": {"command": _mcp_command()}}}
    print("\nMCP client configuration (Claude Desktop, Cursor, ...):")
    print(json.dumps(config, indent=2))
    print("Then ask your assistant: review /absolute/path/to/changes.diff chunk by chunk.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
