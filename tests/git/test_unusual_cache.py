"""The cache of a git range in unusual repositories and on failure paths: what its key
follows (attribute files, nested ``.gitattributes``, diff config), and entries that are
stale, unrecorded or cannot be written.

Each case was once wrong, like those of ``tests/git/test_unusual_repos.py``.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git, history_repo, settle_file_times

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import CacheWriteError, NotARange
from diffchunk.review.ranges.load import load_git_range


def test_a_cached_range_follows_attribute_files_and_diff_config(
    tmp_path: Path, cache_dir: Path
) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "one\n"}, {"a.txt": "one\ntwo\n"}])
    first = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    again = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert again.cached and again.diff_path == first.diff_path
    # git diff reads the work tree's .gitattributes: a cached text diff must
    # not stand for what git now shows as binary.
    (repo / ".gitattributes").write_text("a.txt binary\n")
    binary = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert not binary.cached and binary.diff_path != first.diff_path
    assert "Binary files a/a.txt and b/a.txt differ" in Path(binary.diff_path).read_text()
    (repo / ".gitattributes").unlink()
    info = Path(git(repo, "rev-parse", "--git-common-dir"))
    info = (repo / info if not info.is_absolute() else info) / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("a.txt -diff\n")
    assert not load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir).cached
    (info / "attributes").unlink()
    git(repo, "config", "core.bigFileThreshold", "1")
    assert not load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir).cached
    git(repo, "config", "--unset", "core.bigFileThreshold")
    back = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert back.cached and back.diff_path == first.diff_path


def test_a_cached_range_follows_a_nested_gitattributes_change(
    tmp_path: Path, cache_dir: Path
) -> None:
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = history_repo(
        tmp_path / "repo",
        [{"sub/deep/a.txt": "one\n", "b.txt": "x\n"}, {"sub/deep/a.txt": "one\ntwo\n"}],
    )
    settle_file_times()
    first = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    again = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert again["cached"] and again["file_path"] == first["file_path"]
    # Not committed, in a subdirectory: git diff now shows the file as binary.
    (repo / "sub" / ".gitattributes").write_text("deep/a.txt binary\n")
    settle_file_times()
    fresh = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not fresh["cached"]
    assert "Binary files a/sub/deep/a.txt" in Path(fresh["file_path"]).read_text()
    settled = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert settled["cached"]
    # Deleted again: the text diff is back; a date in the future does not
    # make every load write it anew.
    (repo / "sub" / ".gitattributes").unlink()
    settle_file_times()
    back = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not back["cached"] and "+two" in Path(back["file_path"]).read_text()
    (repo / "sub" / "deep" / ".gitattributes").write_text("")
    os.utime(repo / "sub" / "deep" / ".gitattributes", (2**33, 2**33))
    settle_file_times()
    assert not load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()["cached"]
    assert load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()["cached"]


def test_a_nested_gitattributes_in_a_directory_named_not_in_utf8_is_followed(
    tmp_path: Path, cache_dir: Path
) -> None:
    """A directory name that is not UTF-8 is shown with escapes; its .gitattributes
    is still recorded by its name on disk (it was once left out)."""
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    name = os.fsdecode(b"lat\xe9n")
    try:
        (tmp_path / name).mkdir()
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    repo = history_repo(
        tmp_path / "repo", [{f"{name}/a.txt": "one\n"}, {f"{name}/a.txt": "one\ntwo\n"}]
    )
    settle_file_times()

    def review() -> dict[str, Any]:
        return load_git_diff(
            str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
        ).to_dict()

    first = review()
    assert first["files"] == 1 and review()["cached"]
    (repo / name / ".gitattributes").write_text("a.txt binary\n")
    settle_file_times()
    fresh = review()
    assert not fresh["cached"]
    assert b"Binary files a/lat\xe9n/a.txt" in Path(fresh["file_path"]).read_bytes()


def test_a_first_load_with_patterns_still_records_every_directory(
    tmp_path: Path, cache_dir: Path
) -> None:
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = history_repo(
        tmp_path / "repo",
        [{"src/a.txt": "1\n", "docs/d.txt": "1\n"}, {"src/a.txt": "2\n", "docs/d.txt": "2\n"}],
    )
    load_git_diff(
        str(repo),
        "HEAD~1..HEAD",
        options=LoadOptions(include_patterns="src/*"),
        cache_dir=cache_dir,
        store=SessionStore(),
    ).to_dict()
    (repo / "docs" / ".gitattributes").write_text("d.txt binary\n")
    again = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not again["cached"]
    assert "Binary files a/docs/d.txt" in Path(again["file_path"]).read_text()


def test_which_errors_say_the_target_may_be_a_file(tmp_path: Path) -> None:
    # Only NotARange gets the CLI's "not an existing diff file, nor a range" prefix.
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    with pytest.raises(NotARange, match="Unknown revision 'nope'"):
        load_git_range(str(repo), "nope..HEAD", cache_dir=tmp_path / "cache")
    with pytest.raises(NotARange, match="is not inside a git repository"):
        load_git_range(str(tmp_path), "HEAD~1..HEAD", cache_dir=tmp_path / "cache")
    blocker = tmp_path / "afile"
    blocker.write_text("")
    with pytest.raises(CacheWriteError, match="Cannot create the diff cache directory"):
        load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=blocker / "sub")


def test_a_stale_cached_range_is_not_served_after_its_rewrite_fails(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached range made stale by a nested .gitattributes is removed before it is
    written anew: when that fails (here the build; Ctrl-C does the same), the next
    review writes it again instead of taking the stale one for current."""
    from diffchunk.review.ranges import load
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = history_repo(
        tmp_path / "repo",
        [{"sub/deep/a.txt": "one\n", "b.txt": "x\n"}, {"sub/deep/a.txt": "one\ntwo\n"}],
    )
    settle_file_times()
    first = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    (repo / "sub" / ".gitattributes").write_text("deep/a.txt binary\n")
    settle_file_times()

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(load, "build_review", interrupted)
        with pytest.raises(KeyboardInterrupt):
            load_git_diff(
                str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
            ).to_dict()
    assert not Path(first["file_path"]).exists()  # the stale entry went first
    again = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not again["cached"]
    assert "Binary files a/sub/deep/a.txt" in Path(again["file_path"]).read_text()


def test_a_nested_gitattributes_changed_while_git_runs_is_not_trusted(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git may have read the old or the new version of a .gitattributes changed
    while it ran: the record says so, and the next review writes the diff anew."""
    from diffchunk.diff.parser import StreamParser
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = history_repo(
        tmp_path / "repo",
        [{"sub/deep/a.txt": "one\n", "b.txt": "x\n"}, {"sub/deep/a.txt": "one\ntwo\n"}],
    )
    settle_file_times()
    real_feed = StreamParser.feed

    def feed(self: StreamParser, block: bytes) -> None:
        (repo / "sub" / ".gitattributes").write_text("deep/a.txt binary\n")  # git has started
        real_feed(self, block)

    with monkeypatch.context() as m:
        m.setattr(StreamParser, "feed", feed)
        load_git_diff(
            str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
        ).to_dict()
    settle_file_times()
    again = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not again["cached"]
    assert "Binary files a/sub/deep/a.txt" in Path(again["file_path"]).read_text()
    settle_file_times()
    assert load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()["cached"]


def _nested_repo(tmp_path: Path) -> Path:
    repo = history_repo(
        tmp_path / "repo",
        [{"sub/deep/a.txt": "one\n", "b.txt": "x\n"}, {"sub/deep/a.txt": "one\ntwo\n"}],
    )
    settle_file_times()
    return repo


def _make_binary(repo: Path) -> None:
    (repo / "sub" / ".gitattributes").write_text("deep/a.txt binary\n")
    settle_file_times()


@pytest.mark.parametrize("written_by", ["load_git_range", "a review that looked nothing up"])
def test_every_writer_records_the_nested_gitattributes(
    written_by: str, tmp_path: Path, cache_dir: Path
) -> None:
    """An entry written without a review (the pre-push hook's way) or by a review
    whose patterns left no file to look up still records the nested attribute
    files: reused, it is current; after a nested change, it is written anew."""
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = _nested_repo(tmp_path)
    if written_by == "load_git_range":
        assert not load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir).cached
    else:
        first = load_git_diff(
            str(repo),
            "HEAD~1..HEAD",
            options=LoadOptions(include_patterns="nothing-matches-*"),
            cache_dir=cache_dir,
            store=SessionStore(),
        ).to_dict()
        assert not first["cached"] and first["chunks"] == 0
    again = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert again["cached"]
    _make_binary(repo)
    fresh = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not fresh["cached"]
    assert "Binary files a/sub/deep/a.txt" in Path(fresh["file_path"]).read_text()


def test_an_entry_without_the_record_is_written_anew_once(tmp_path: Path, cache_dir: Path) -> None:
    """An entry whose sidecar does not record the nested attribute files (an older
    version wrote it) cannot be known current: it is written anew, once."""
    import json

    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    repo = _nested_repo(tmp_path)
    first = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    sidecar = Path(first["file_path"] + ".gitattrs.json")
    payload = json.loads(sidecar.read_text())
    del payload["attribute_files"]
    sidecar.write_text(json.dumps(payload))
    _make_binary(repo)  # what the unrecorded entry cannot show
    anew = load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()
    assert not anew["cached"] and "Binary files" in Path(anew["file_path"]).read_text()
    assert load_git_diff(
        str(repo), "HEAD~1..HEAD", cache_dir=cache_dir, store=SessionStore()
    ).to_dict()["cached"]


def test_the_record_needs_no_second_read_of_the_diff(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record of the nested attribute files is made while git writes the diff
    (from the streamed parse): the entry is never read back or parsed again."""
    import diffchunk.diff.parser as parser_module

    repo = _nested_repo(tmp_path)
    seen: list[type] = []
    real = parser_module.parse_diff

    def spy(data: Any, **kwargs: Any) -> Any:
        seen.append(type(data))
        return real(data, **kwargs)

    monkeypatch.setattr(parser_module, "parse_diff", spy)
    written = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert not written.cached
    assert seen == []
    assert json.loads(Path(written.diff_path + ".gitattrs.json").read_text())["attribute_files"]
    assert load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir).cached


def test_a_record_that_cannot_be_written_does_not_drop_the_entry(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record is written while the entry is flushed: a full disk there costs a
    rewrite at the next reuse, not the entry just written."""
    repo = _nested_repo(tmp_path)
    from diffchunk.review.sessions import sidecar

    real = sidecar.write_sidecar
    records: list[str] = []

    def full(diff_path: str, **kwargs: Any) -> None:
        if kwargs.get("attribute_files") is not None:  # the record, not the first sidecar
            records.append(diff_path)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(diff_path, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(sidecar, "write_sidecar", full)
        written = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
        assert not written.cached and Path(written.diff_path).is_file()
        streamed = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir / "s")
        assert not streamed.cached and Path(streamed.diff_path).is_file()
        assert streamed.review is not None
    assert set(records) == {written.diff_path, streamed.diff_path}  # both records failed
    again = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert not again.cached  # no record: written anew, once
    assert load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir).cached
