from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from diffchunk.diff.gitattributes import GitattributesFile, load_gitattributes
from diffchunk.errors import InvalidArgument, PathError

ATTRS = ("linguist-generated", "linguist-vendored", "diff", "binary", "merge", "text", "foo")


def _git_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_ATTR_NOSYSTEM="1",
    )
    return env


def _git_check_attr(
    tmp_path: Path, gitattributes: bytes, paths: list[str]
) -> dict[str, dict[str, object]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = _git_env(tmp_path)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / ".gitattributes").write_bytes(gitattributes)
    proc = subprocess.run(
        ["git", "-c", "core.ignoreCase=false", "check-attr", "-z", "--stdin", *ATTRS],
        cwd=repo,
        input=b"".join(p.encode() + b"\0" for p in paths),
        capture_output=True,
        check=True,
        env=env,
    )
    fields = proc.stdout.decode().split("\0")
    out: dict[str, dict[str, object]] = {p: {} for p in paths}
    for i in range(0, len(fields) - 2, 3):
        path, attr, info = fields[i : i + 3]
        if info == "set":
            out[path][attr] = True
        elif info == "unset":
            out[path][attr] = False
        elif info != "unspecified":
            out[path][attr] = info
    return out


def _ours(text: bytes, paths: list[str]) -> dict[str, dict[str, object]]:
    ga = GitattributesFile(text)
    return {p: {k: v for k, v in ga.attributes(p).items() if k in ATTRS} for p in paths}


PATHS = [
    "a.txt",
    "dir/a.txt",
    "dir/sub/a.txt",
    "docs/index.md",
    "docs/sub/deep.md",
    "docs",
    "src/gen/x_pb2.py",
    "gen/x.py",
    "x/gen/y.py",
    "build/out.js",
    "doc/build/x.rst",
    "vendor/lib.go",
    "a/vendor/lib.go",
    "README.md",
    "Makefile",
    "with space.txt",
    "!bang",
    "#hash",
    "package-lock.json",
    "web/package-lock.json",
    "UPPER.TXT",
    "a.min.js",
    "assets/app.min.js",
    "data.bin",
    "img/logo.png",
    "x.lock",
    "deep/a/b/c/d.lock",
    "abc",
    "abc/def",
    "foo[",
    "f[a]o",
    "fao",
    "q?x",
    "a1.txt",
    "deep/a/b/c/x",
    "a/d.lock",
    "a/x/y/d.lock",
    "aXb",
    "a/b",
]

CASES = {
    "basics": b"""
# comment
*.txt foo=bar
   *.md   linguist-generated
docs/** -linguist-generated diff
/gen/** linguist-generated
vendor/** linguist-vendored
*.lock -diff
""",
    "directory_pattern_does_not_recurse": b"""
docs/ linguist-generated
vendor/ linguist-vendored
abc/ foo
""",
    "last_match_wins_per_attribute": b"""
*.js linguist-generated foo=1
*.min.js -linguist-generated
assets/** foo=2 !linguist-generated
*.md foo linguist-vendored
README.md !foo -linguist-vendored
""",
    "macros": b"""
[attr]gen linguist-generated -diff
[attr]both gen linguist-vendored
*.lock gen
*.png binary
*.bin binary diff
data.bin -binary
*.json both
package-lock.json -gen
img/** diff binary
""",
    "macro_redefined_and_builtin_override": b"""
[attr]binary foo=x
[attr]m foo=1
[attr]m foo=2
*.png binary
*.txt m
""",
    "negation_and_escapes": b"""
!*.txt foo
\\!bang foo=bang
\\#hash foo=hash
f[a]o linguist-generated
foo[ linguist-vendored
q\\?x foo=q
"with space.txt" foo=space
""",
    "invalid_attribute_name_drops_line": b"""
*.txt foo=1 bad/name linguist-generated
*.md foo=2
""",
    "anchoring": b"""
a.txt foo=1
dir/a.txt foo=2
/abc foo=3
**/sub/* foo=4
dir/**/a.txt linguist-generated
*/a.txt linguist-vendored
""",
    "case_and_values": b"""
*.TXT foo=UP
*.txt diff=python linguist-generated=true linguist-vendored=false
""",
    "globstars_and_classes": b"""
**/c/** foo=1
a/**/d.lock foo=2
deep/** linguist-vendored
**/*.lock linguist-generated
*[[:digit:]]* diff=num
[!a-m]*.md foo=3
d***.lock foo=4
a**b foo=5
**/ foo=6
doc/**/x.rst -diff
""",
    "values_and_repeats": b"""
  # indented comment
*.txt foo=a=b diff=
*.md foo -foo linguist-generated !linguist-generated
*.lock
[attr]inner -diff
[attr]outer inner foo=outer
*.json outer
package-lock.json !binary
*.png binary=yes
img/** !binary
data.bin foo= binary -text
"quoted \\ back" foo
\t
""",
    "byte_order_mark": b"\xef\xbb\xbf*.txt foo\n*.md\tfoo\t\tlinguist-generated\n",
    "crlf_lines": b"*.txt foo=crlf\r\n*.md linguist-generated\r\n",
    "long_line_ignored": b"*.txt foo=" + b"x" * 2100 + b"\n*.md foo=short\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gitattributes_agrees_with_git_check_attr(tmp_path: Path, name: str) -> None:
    text = CASES[name]
    expected = _git_check_attr(tmp_path, text, PATHS)
    assert _ours(text, PATHS) == expected


def test_lookup_returns_only_wanted_attributes() -> None:
    ga = GitattributesFile("*.lock linguist-generated foo -diff\n*.png binary\n")
    got = ga.lookup(["a/b.lock", "x.png", "x.py"])
    assert got["a/b.lock"] == {"linguist-generated": True, "diff": False}
    assert got["x.png"] == {"binary": True, "diff": False}
    assert got["x.py"] == {}


def test_negative_pattern_is_ignored_with_warning() -> None:
    ga = GitattributesFile("!*.txt foo\n*.md foo\n")
    assert ga.attributes("a.txt") == {}
    assert any("negative patterns" in w for w in ga.warnings)


def test_load_gitattributes_reads_file(tmp_path: Path) -> None:
    f = tmp_path / ".gitattributes"
    f.write_text("*.pb.go linguist-generated\n")
    ga = load_gitattributes(str(f))
    assert ga.lookup(["api/x.pb.go"])["api/x.pb.go"] == {"linguist-generated": True}
    from_path = GitattributesFile(f)
    assert from_path.lookup(["x.pb.go"])["x.pb.go"] == {"linguist-generated": True}
    assert from_path.source == str(f.resolve())


def test_load_gitattributes_errors_are_actionable(tmp_path: Path) -> None:
    with pytest.raises(PathError, match="relative"):
        load_gitattributes(".gitattributes")
    with pytest.raises(PathError, match="does not exist"):
        load_gitattributes(str(tmp_path / "missing"))
    with pytest.raises(PathError, match="directory"):
        load_gitattributes(str(tmp_path))
    binary = tmp_path / "bin"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(InvalidArgument, match="binary"):
        load_gitattributes(str(binary))


def test_random_globs_match_like_git_check_attr(tmp_path: Path) -> None:
    """Each line sets its own attribute; `check-attr --all` shows which lines match."""
    rng = random.Random(20240521)
    seg_choices = ["a", "b", "ab", "*", "?", "**", "[ab]", "a*", "*b", "*a*", "[!a]*", "x", "*.c"]
    patterns: set[str] = set()
    while len(patterns) < 150:
        segs = [rng.choice(seg_choices) for _ in range(rng.randint(1, 4))]
        pattern = "/".join(segs)
        if rng.random() < 0.2:
            pattern = "/" + pattern
        if rng.random() < 0.1:
            pattern += "/"
        patterns.add(pattern)
    ordered = sorted(patterns)
    text = "".join(f"{p} p{i}\n" for i, p in enumerate(ordered)).encode()
    names = ["a", "b", "ab", "ba", "x", "aab", "x.c", "b.c"]
    paths = sorted(
        {"/".join(rng.choice(names) for _ in range(rng.randint(1, 4))) for _ in range(120)}
    )

    repo = tmp_path / "repo"
    env = _git_env(tmp_path)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / ".gitattributes").write_bytes(text)
    proc = subprocess.run(
        ["git", "check-attr", "-z", "--stdin", "--all"],
        cwd=repo,
        input=b"".join(p.encode() + b"\0" for p in paths),
        capture_output=True,
        check=True,
        env=env,
    )
    fields = proc.stdout.decode().split("\0")
    expected: dict[str, set[str]] = {p: set() for p in paths}
    for i in range(0, len(fields) - 2, 3):
        expected[fields[i]].add(fields[i + 1])
    ga = GitattributesFile(text)
    ours = {p: set(ga.attributes(p)) for p in paths}
    assert sum(len(v) for v in expected.values()) > 100  # the sample exercises matches
    assert ours == expected
