"""open_file_version reads nothing a diff file points at: a snapshot comes from the object
store by one whole blob id, or from a file of the work tree reached without a link and
holding the full id the diff names; and no snapshot, nor the store, outgrows its bound.

The hostile diffs here are what issue 23 reproduced: one-digit ids that matched any
file by its first digit, ``../``, absolute paths and links leading out of the work tree.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git
from mcpkit import Caller, Confined

from diffchunk import snapshots
from diffchunk.errors import FileToolError, PathError
from diffchunk.paths import ROOTS_ENV
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools.file_versions import open_file_version

SNAPSHOT_ENV = "DIFFCHUNK_SNAPSHOT_MAX_BYTES"
SECRET = b"TOP SECRET, outside the allowed root\n"
# Its blob id does not start with 0 (a zero id is read as no id): so one of the
# sixteen one-digit ids below is its first digit.
SECRET_ID = hashlib.sha1(b"blob %d\0" % len(SECRET) + SECRET).hexdigest()
assert not SECRET_ID.startswith("0")


@pytest.fixture(autouse=True)
def no_roots_nor_snapshot_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ROOTS_ENV, raising=False)
    monkeypatch.delenv(SNAPSHOT_ENV, raising=False)


def _section(path: str, old: str, new: str, mode: str = "100644") -> str:
    """A section of a diff made with --no-prefix: ``path`` as the diff spells it."""
    return (
        f"diff --git {path} {path}\nindex {old}..{new} {mode}\n--- {path}\n+++ {path}\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )


def _blob_id(repo: Path, data: bytes) -> str:
    return git_bytes(repo, "hash-object", "--stdin", stdin=data).decode().strip()


def _snapshot_files(cache: Path) -> Iterator[Path]:
    """Every file the snapshot store holds: snapshots and writes under way."""
    root = cache / "blobs"
    if root.is_dir():
        for path in root.rglob("*"):
            if path.is_file() and not path.parent.name.endswith(".src"):
                yield path


def _store_bytes(cache: Path) -> int:
    return sum(p.stat().st_size for p in _snapshot_files(cache))


# ---------------------------------------------------------------------------
# Nothing outside the work tree, through the installed server
# ---------------------------------------------------------------------------


def _variants(path: str, count: int) -> list[str]:
    """``count`` spellings of one absolute path (``/./`` inserted): one section each."""
    head, name = os.path.split(path)
    return [head + "/." * i + "/" + name for i in range(count)]


def test_open_file_version_path_traversal_through_the_server(
    confined: Confined, tmp_path: Path
) -> None:
    root, outside = confined.layout(tmp_path)  # the worker's server with an allowed root
    secret = outside / "secret.txt"
    secret.write_bytes(SECRET)
    repo = init_repo(root / "repo")
    commit(repo, {"a.py": "x = 1\n"})
    (repo / "linkdir").symlink_to(outside, target_is_directory=True)
    (repo / "leak.txt").symlink_to(secret)
    one_digit = list(zip(_variants(str(secret), 16), "0123456789abcdef", strict=True))
    whole = [
        str(secret),  # absolute
        os.path.relpath(secret, repo),  # ../../outside/secret.txt
        "linkdir/secret.txt",  # a symlinked directory of the work tree
        "leak.txt",  # a symlink as the file, where the diff shows a regular file
    ]
    sections = [(path, digit) for path, digit in one_digit] + [(p, SECRET_ID) for p in whole]
    diff = root / "evil.diff"
    diff.write_text("".join(_section(path, "1111111", new) for path, new in sections))

    async def script(call: Caller) -> None:
        await call.json("load_diff", absolute_file_path=str(diff))
        for path, _ in sections:
            error = await call.error(
                "open_file_version",
                absolute_file_path=str(diff),
                file_path=path,
                absolute_repo_path=str(repo),
            )
            assert "TOP SECRET" not in error
            assert "suggestion" in error, error

    confined.server.run(script)
    stored = [p.read_bytes() for p in _snapshot_files(confined.server.directory / "cache")]
    assert not any(SECRET in data for data in stored)


# ---------------------------------------------------------------------------
# The same diffs in process: what each refusal says
# ---------------------------------------------------------------------------


@pytest.fixture()
def work(tmp_path: Path) -> dict[str, Path]:
    """A repository, a secret beside it and links from its work tree to the secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"a.py": "x = 1\n", "docs/readme.md": "hello\n"})
    (repo / "linkdir").symlink_to(outside, target_is_directory=True)
    (repo / "leak.txt").symlink_to(outside / "secret.txt")
    return {"repo": repo, "outside": outside, "diffs": tmp_path}


def _open(work: dict[str, Path], path: str, new: str, mode: str = "100644") -> str:
    """open_file_version of the new side of ``path`` in a one-section diff file."""
    diff = work["diffs"] / f"d{len(list(work['diffs'].glob('d*.diff')))}.diff"
    diff.write_text(_section(path, "1111111", new, mode))
    return open_file_version(str(diff), path, absolute_repo_path=str(work["repo"])).path


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("{outside}/secret.txt", "no path git stores"),
        ("../outside/secret.txt", "no path git stores"),
        ("docs/../../outside/secret.txt", "no path git stores"),
        ("./../outside/secret.txt", "no path git stores"),
        (".git/config", "no path git stores"),
        ("linkdir/secret.txt", "is a symbolic link or not a directory"),
        ("leak.txt", "is a symbolic link in the work tree, where the diff shows a file"),
    ],
)
def test_a_work_tree_file_outside_the_tree_is_never_read(
    work: dict[str, Path], path: str, says: str
) -> None:
    path = path.format(outside=work["outside"])
    content = SECRET if path != ".git/config" else (work["repo"] / ".git/config").read_bytes()
    with pytest.raises(FileToolError, match=says) as err:
        _open(work, path, _blob_id(work["repo"], content))
    assert err.value.suggestion
    assert not any(SECRET in p.read_bytes() for p in _snapshot_files(work["diffs"] / "cache"))


def test_one_digit_ids_name_nothing(work: dict[str, Path]) -> None:
    spellings = _variants(str(work["outside"] / "secret.txt"), 15)
    refused: list[FileToolError] = []
    for spelling, digit in zip(spellings, "123456789abcdef", strict=True):
        try:
            snap = _open(work, spelling, digit)
        except FileToolError as err:
            refused.append(err)
        else:
            pytest.fail(f"{spelling} read by the id {digit!r}: {Path(snap).read_bytes()!r}")
    for err in refused:
        assert "fewer than the 4 hex digits" in err.message
        assert "--full-index" in (err.suggestion or "")
    for digits in ("a", "ab", "abc"):  # the old side too, in the object store
        diff = work["diffs"] / f"old-{digits}.diff"
        diff.write_text(_section("a.py", digits, "1111111"))
        with pytest.raises(FileToolError, match="fewer than the 4 hex digits"):
            open_file_version(str(diff), "a.py", "old", str(work["repo"]))


def test_a_link_is_read_as_a_link_only_where_the_diff_gives_mode_120000(
    work: dict[str, Path],
) -> None:
    link_text = os.fsencode(os.readlink(work["repo"] / "leak.txt"))
    snap = _open(work, "leak.txt", _blob_id(work["repo"], link_text), mode="120000")
    assert Path(snap).read_bytes() == link_text  # the link's target, as git stores it


def test_a_file_outside_the_allowed_roots_is_not_read_though_in_the_work_tree(
    work: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allowed root is a directory of the work tree; the diff names a file above it."""
    repo = work["repo"]
    (repo / "top.txt").write_bytes(SECRET)
    monkeypatch.setenv(ROOTS_ENV, str(repo / "docs"))
    diff = repo / "docs" / "change.diff"
    diff.write_text(_section("top.txt", "1111111", SECRET_ID))
    with pytest.raises(PathError, match="outside the allowed roots"):
        open_file_version(str(diff), "top.txt", absolute_repo_path=str(repo / "docs"))
    # A file inside the root is not read either: its repository's git directory and
    # work tree lie above the root, and git reads nothing outside the roots.
    diff.write_text(_section("docs/readme.md", "1111111", _blob_id(repo, b"hello\n")))
    with pytest.raises(PathError, match="outside the allowed roots"):
        open_file_version(str(diff), "docs/readme.md", absolute_repo_path=str(repo / "docs"))
    monkeypatch.setenv(ROOTS_ENV, str(repo))  # the repository in the roots: read
    got = open_file_version(str(diff), "docs/readme.md", absolute_repo_path=str(repo / "docs"))
    assert Path(got.path).read_bytes() == b"hello\n"


# ---------------------------------------------------------------------------
# Ids: one whole blob, or nothing
# ---------------------------------------------------------------------------


def _two_blobs_with_one_prefix() -> tuple[str, bytes, bytes]:
    """Two contents whose blob ids share their first four digits."""
    seen: dict[str, bytes] = {}
    i = 0
    while True:
        data = b"version %d\n" % i
        prefix = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:4]
        if prefix in seen:
            return prefix, seen[prefix], data
        seen[prefix] = data
        i += 1


@pytest.mark.parametrize("bare", [False, True], ids=["work tree", "bare"])
def test_an_ambiguous_id_is_refused_with_a_message(work: dict[str, Path], bare: bool) -> None:
    prefix, first, second = _two_blobs_with_one_prefix()
    repo = work["repo"]
    (repo / "f.txt").write_bytes(first)  # in the work tree too: no prefix match with it
    commit(repo, {"g.txt": second.decode()})
    git_bytes(repo, "hash-object", "-w", "--stdin", stdin=first)
    if bare:
        run_git(work["diffs"], "clone", "-q", "--bare", str(repo), "bare.git")
        repo = work["diffs"] / "bare.git"
        git_bytes(repo, "hash-object", "-w", "--stdin", stdin=first)
    diff = work["diffs"] / "ambiguous.diff"
    diff.write_text(_section("f.txt", prefix, prefix))
    for side in ("new", "old"):  # not the work tree's f.txt, though its id has the prefix
        with pytest.raises(FileToolError, match=f"The id {prefix} of f.txt .* is ambiguous"):
            open_file_version(str(diff), "f.txt", side, str(repo))
    head = git(repo, "rev-parse", "HEAD")
    diff.write_text(_section("f.txt", head[:7], "1111111"))
    with pytest.raises(FileToolError, match=r"names a commit .*, not a file's blob"):
        open_file_version(str(diff), "f.txt", "old", str(repo))
    # Four digits or more that name one blob: that blob, whole.
    one = git(repo, "rev-parse", "HEAD:a.py")
    diff.write_text(_section("a.py", one[:4], "1111111"))
    got = open_file_version(str(diff), "a.py", "old", str(repo))
    assert got.blob == one and Path(got.path).read_bytes() == b"x = 1\n"


def test_a_work_tree_file_is_never_matched_by_the_first_digits_of_an_id(
    work: dict[str, Path],
) -> None:
    repo = work["repo"]
    data = b"not what the diff shows\n"
    (repo / "notes.txt").write_bytes(data)  # untracked: in no object store
    full = _blob_id(repo, data)
    assert run_git(repo, "cat-file", "-e", full[:4], check=False).returncode != 0
    with pytest.raises(FileToolError, match="abbreviated id cannot vouch"):
        _open(work, "notes.txt", full[:4])
    with pytest.raises(FileToolError, match="abbreviated id cannot vouch"):
        _open(work, "notes.txt", full[:39])
    other = _blob_id(repo, b"what the diff shows\n")
    with pytest.raises(FileToolError, match="work tree's file does not have that content"):
        _open(work, "notes.txt", other)
    assert Path(_open(work, "notes.txt", full)).read_bytes() == data  # the full id: read


# ---------------------------------------------------------------------------
# Caps: one snapshot, and the store
# ---------------------------------------------------------------------------

BIG = (300 << 20) + 1  # past the 256 MiB a snapshot may hold


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose last commit adds a sparse 300 MiB file (a few MB of objects)."""
    repo = init_repo(tmp_path_factory.mktemp("big") / "repo")
    commit(repo, {"a.py": "x = 1\n"})
    with open(repo / "zeros.bin", "wb") as fh:
        fh.truncate(BIG)
    # Streamed straight into a pack (past bigFileThreshold), compressed fast.
    git(repo, "-c", "core.bigFileThreshold=1m", "-c", "core.compression=1", "add", "zeros.bin")
    git(repo, "commit", "-q", "-m", "big")
    git(repo, "config", "core.bigFileThreshold", "1m")  # git diff: binary, not read
    return repo


@pytest.mark.parametrize("bare", [False, True], ids=["work tree", "bare"])
def test_a_blob_over_the_limit_is_refused_before_a_byte_is_written(
    big_repo: Path, tmp_path: Path, bare: bool
) -> None:
    repo = big_repo
    if bare:
        repo = tmp_path / "bare.git"
        run_git(tmp_path, "clone", "-q", "--bare", str(big_repo), str(repo))
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    with pytest.raises(FileToolError, match=r"is 314,572,801 bytes, more than a snapshot") as err:
        open_file_version(diff, "zeros.bin")
    suggestion = err.value.suggestion or ""
    assert "cat-file blob" in suggestion and SNAPSHOT_ENV in suggestion
    assert list(_snapshot_files(tmp_path / "cache")) == []


def test_the_limit_holds_for_the_work_tree_and_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"a.txt": "a\n" * 100})
    (repo / "a.txt").write_text("b\n" * 100)  # 200 bytes on both sides
    diff = load_git_diff(str(repo), store=SessionStore()).file_path
    monkeypatch.setenv(SNAPSHOT_ENV, "199")
    for side in ("new", "old"):  # the work tree's file, and a blob
        with pytest.raises(FileToolError, match="is 200 bytes, more than a snapshot may hold"):
            open_file_version(diff, "a.txt", side)
    assert list(_snapshot_files(tmp_path / "cache")) == []
    monkeypatch.setenv(SNAPSHOT_ENV, "200")
    assert open_file_version(diff, "a.txt").size == 200
    monkeypatch.setenv(SNAPSHOT_ENV, "lots")  # not a number: said once, and the default holds
    with caplog.at_level(logging.WARNING, logger="diffchunk.settings"):
        assert open_file_version(diff, "a.txt", "old").size == 200
    assert f"Ignoring {SNAPSHOT_ENV}='lots' (not a whole number)" in caplog.text


def test_the_store_is_pruned_past_its_bound_before_a_snapshot_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight snapshots of 1,000 bytes in a store of 3,000: at no time, a write under way
    included, does it hold more; the latest ones stay."""
    bound = 3000
    monkeypatch.setattr(snapshots, "STORE_MAX_BYTES", bound, raising=False)
    monkeypatch.setenv(SNAPSHOT_ENV, str(bound))  # one snapshot fits (the store's own, before)
    repo = init_repo(tmp_path / "repo")
    commit(repo, {f"f{i}.txt": f"{i}\n".ljust(1000, "x") for i in range(8)})
    commit(repo, {f"f{i}.txt": f"{i}\n".ljust(1000, "y") for i in range(8)})
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    cache = tmp_path / "cache"
    peaks: list[int] = []
    feed = snapshots.SnapshotWriter.feed

    def watched(writer: snapshots.SnapshotWriter, block: bytes) -> None:
        feed(writer, block)
        peaks.append(_store_bytes(cache))

    monkeypatch.setattr(snapshots.SnapshotWriter, "feed", watched)
    opened = []
    for i in range(8):
        opened.append(open_file_version(diff, f"f{i}.txt").path)
        peaks.append(_store_bytes(cache))
    assert len(peaks) >= 16 and max(peaks) <= bound
    assert [os.path.exists(p) for p in opened] == [False] * 5 + [True] * 3
