"""diffchunk reads git's config files as git does, and writes them so git reads them back.

git itself is the oracle: each text is read by ``git config --file F
--no-includes -z --list`` and by :func:`diffchunk.git.config.parse`, and both
must give the same items, or both refuse the file.  A rendered config reads
back, through git, as the items it was made from.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitrepo import git_environment

from diffchunk.errors import GitError, PathError
from diffchunk.git.config import as_bool, as_size, parse, read_files, render
from diffchunk.paths import PathPolicy, roots_in_force

TEXTS = [
    b"[core]\n\tbare = false\n",
    b"[Core]Bare\n",
    b'[branch "Ma\\"in"]\n remote = "or ig" # c\n merge = a\\\n b\n',
    b"[a.B]\nx = 1;2\n",
    b'[a]\nx = "q;q"   \t \n',
    b"[a]\nx = a \t b\n",
    b"\xef\xbb\xbf[a]\r\nx = y\r\n",
    b'[a]\nx = "unterminated\n',
    b"[a]\nx = bad\\q\n",
    b"[a]x=1\n",
    b"[a] x = 1 [b] y=2\n",
    b"x = 1\n",
    b'[ "sub"]\nx=1\n',
    b'[a "b"c]\nx=1\n',
    b"[a]\n1x=1\n",
    b"[a]\nx = tab\\there\\nline\\b\n",
    b"[a]\nx = end\\",
    b"[a]\nx",
    b'[a "x\\y"]\nk=v\n',
    b"[a]\n\tx-y = 1\n",
    b'[a]\nx = "a""b"c\n',
    b"[]\n",
    b"[a\n",
    b"[a]\nx y\n",
    b"# only a comment",
    b"[a]\nx = \\\n\n",
    b"[a]\nx = v\r\ny = \rz\n",
    b'[a]\nx = a \\\n\tb  # c\ny = "in \t quotes"\tand\tout \t\n',
    b'[remote "o.r/g"]\n\tfetch = +refs/heads/*:refs/remotes/o/*\n',
    "[a]\n\tx = caf\u00e9 \u2713\n".encode(),
]


def _git_items(path: Path) -> list[tuple[str, str | None]] | None:
    proc = subprocess.run(
        ["git", "config", "--file", str(path), "--no-includes", "-z", "--list"],
        capture_output=True,
        env=git_environment(),
    )
    if proc.returncode != 0:
        return None
    items: list[tuple[str, str | None]] = []
    for item in proc.stdout.split(b"\0")[:-1]:
        key, newline, value = item.partition(b"\n")
        items.append((key.decode(), value.decode() if newline else None))
    return items


def _git_version() -> tuple[int, ...]:
    out = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    return tuple(int(p) for p in out.split()[2].split(".")[:2])


# Git before 2.45 made each whitespace character inside a value a space; diffchunk
# reads values as git 2.45 and later (and git's documentation) do.
INNER_WHITESPACE = {
    b"[a]\nx = a \t b\n": [("a.x", "a \t b")],
    b'[a]\nx = a \\\n\tb  # c\ny = "in \t quotes"\tand\tout \t\n': [
        ("a.x", "a \tb"),
        ("a.y", "in \t quotes\tand\tout"),
    ],
}


@pytest.mark.parametrize("text", TEXTS)
def test_a_config_text_reads_as_git_reads_it(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "config"
    path.write_bytes(text)
    expected = _git_items(path)
    if text in INNER_WHITESPACE and _git_version() < (2, 45):
        expected = INNER_WHITESPACE[text]
    if expected is None:
        with pytest.raises(ValueError, match="bad config line"):
            parse(text)
    else:
        assert parse(text) == expected


def _as_git_names(key: str) -> str:
    """``key`` as git lists it: section and name lowercased, the subsection kept."""
    section, _, rest = key.partition(".")
    middle, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{middle}{dot}{name.lower()}"


def test_a_rendered_config_reads_back_through_git(tmp_path: Path) -> None:
    items = [  # grouped by section, as render writes them
        ("core.autocrlf", "input"),
        ("core.attributesFile", "/a path/with\ttab#and;semicolon"),
        ('branch.we"ird\\name.remote', 'or"ig\\in'),
        ('branch.we"ird\\name.merge', "refs/heads/a b"),
        ("remote.o.r/g.fetch", "+refs/heads/*:refs/remotes/o/*"),
    ]
    path = tmp_path / "config"
    path.write_bytes(render(items))
    expected = [(_as_git_names(key), value) for key, value in items]
    assert _git_items(path) == expected
    assert parse(path.read_bytes()) == expected


def test_values_read_as_git_reads_them() -> None:
    assert [as_bool(v) for v in (None, "", "yes", "Off", "0", "2", "1k", "maybe")] == [
        True,
        False,
        True,
        False,
        False,
        True,
        True,
        None,
    ]
    assert [as_size(v) for v in ("512m", "0x10", "010", "08", "1g", "-1", "1 ", "k")] == [
        512 << 20,
        16,
        8,
        None,
        1 << 30,
        None,
        None,
        None,
    ]


def test_includes_are_followed_as_git_follows_them(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "main").write_text("[include]\n\tpath = sub/one\n[a]\n\tx = 3\n")
    (tmp_path / "sub" / "one").write_text("[a]\n\tx = 1\n[include]\n\tpath = two\n")
    (tmp_path / "sub" / "two").write_text("[a]\n\tx = 2\n[include]\n\tpath = missing\n")
    items = read_files([("local", str(tmp_path / "main"))])
    assert [(i.key, i.value) for i in items if i.key == "a.x"] == [
        ("a.x", "1"),
        ("a.x", "2"),
        ("a.x", "3"),
    ]
    loop = tmp_path / "loop"
    loop.write_text("[include]\n\tpath = loop\n")
    with pytest.raises(GitError, match="deeper than 10"):
        read_files([("local", str(loop))])


def test_a_repository_include_outside_the_roots_path_traversal(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").write_text("[core]\n\tautocrlf = true\n")
    (root / "config").write_text("[include]\n\tpath = ../outside\n")
    with roots_in_force(PathPolicy.from_paths([str(root)], "test")):
        with pytest.raises(PathError, match="outside the allowed roots"):
            read_files([("local", str(root / "config"))])
        # The user's own config (global) is not the repository's: it is read.
        assert read_files([("global", str(root / "config"))])[-1].value == "true"
