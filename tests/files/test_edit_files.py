"""edit_content and the file it changes: line endings and encodings kept, mode, owner,
links and extended attributes kept, files it refuses, failures and concurrent rewrites
that leave the file as it was, and a revert after the file is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from editkit import edit_file, write_utf8
from test_data import ROOT

from diffchunk.errors import FileToolError, InvalidArgument, PathError
from diffchunk.files.edit import edit_content, list_backups

# Each test's backups go to a directory of its own (DIFFCHUNK_BACKUP_DIR).
pytestmark = pytest.mark.usefixtures("backup_dir")


def test_crlf_file_edited_with_lf_search_keeps_crlf(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = edit_file(
        f, [{"search": "second\nthird\n", "replace": "2nd\nthree\nfour\n"}], preview=False
    )
    assert result["success"] is True
    assert f.read_bytes() == b"first\r\n2nd\r\nthree\r\nfour\r\n"
    # A one-line search inside a CRLF line: inserted lines take that line's ending.
    edit_file(f, [{"search": "2nd", "replace": "two\nlines"}], preview=False)
    assert f.read_bytes() == b"first\r\ntwo\r\nlines\r\nthree\r\nfour\r\n"


def test_crlf_fuzzy_match_keeps_crlf(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"a = 1\r\n  b = 2\r\nc = 3\r\n")
    result = edit_file(
        f, [{"search": "b = 2\nc  = 3\n", "replace": "b = 20\nc = 30\n"}], preview=False
    )
    assert result["results"][0]["match_type"] == "fuzzy"
    assert f.read_bytes() == b"a = 1\r\n  b = 20\r\n  c = 30\r\n"


def test_utf8_bom_kept(tmp_path: Path) -> None:
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbfhello\nworld\n")
    edit_file(f, [{"search": "hello", "replace": "h\u00e9llo"}], preview=False)
    assert f.read_bytes() == b"\xef\xbb\xbfh\xc3\xa9llo\nworld\n"
    # Fuzzy match on the first line must not swallow the BOM.
    edit_file(f, [{"search": "  h\u00e9llo", "replace": "bye"}], preview=False)
    assert f.read_bytes() == b"\xef\xbb\xbfbye\nworld\n"


def test_cp1252_round_trip_and_unrepresentable_refused(tmp_path: Path) -> None:
    text = (
        "Caf\u00e9 cr\u00e8me \u2014 \u20ac 5\n" * 40 + "na\u00efve r\u00e9sum\u00e9 fa\u00e7ade\n"
    )
    f = tmp_path / "legacy.txt"
    f.write_bytes(text.encode("cp1252"))
    result = edit_file(
        f,
        [{"search": "na\u00efve r\u00e9sum\u00e9", "replace": "\u00fcber r\u00e9sum\u00e9 \u20ac"}],
        preview=False,
    )
    assert result["success"] is True, result
    assert f.read_bytes() == text.replace(
        "na\u00efve r\u00e9sum\u00e9", "\u00fcber r\u00e9sum\u00e9 \u20ac"
    ).encode("cp1252")
    before = f.read_bytes()
    result = edit_file(f, [{"search": "fa\u00e7ade", "replace": "\u6f22\u5b57"}], preview=False)
    assert result["success"] is False
    assert "cannot represent" in result["results"][0]["error"]
    assert f.read_bytes() == before


def test_utf16_file_edited_and_kept_utf16(tmp_path: Path) -> None:
    text = "first line\nsecond line\nthird line\n"
    f = tmp_path / "wide.txt"
    f.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    result = edit_file(f, [{"search": "second line", "replace": "2nd line"}], preview=False)
    assert result["success"] is True, result
    assert f.read_bytes() == b"\xff\xfe" + text.replace("second", "2nd").encode("utf-16-le")


@pytest.mark.parametrize("mode", [0o640, 0o755])
def test_mode_kept(tmp_path: Path, mode: int) -> None:
    f = write_utf8(tmp_path / "script.sh", "#!/bin/sh\necho hi\n")
    f.chmod(mode)
    edit_file(f, [{"search": "echo hi", "replace": "echo bye"}], preview=False)
    assert f.stat().st_mode & 0o7777 == mode
    assert f.read_text() == "#!/bin/sh\necho bye\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_owner_kept(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "owned.txt", "owner = 1\n")
    os.chown(f, 1234, 2345)
    edit_file(f, [{"search": "owner = 1", "replace": "owner = 2"}], preview=False)
    st = f.stat()
    assert (st.st_uid, st.st_gid) == (1234, 2345)
    assert f.read_text() == "owner = 2\n"


def test_symlink_edits_target_and_keeps_link(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = write_utf8(real_dir / "config.ini", "[main]\nkey = 1\n")
    link = tmp_path / "link.ini"
    link.symlink_to(target)
    result = edit_file(link, [{"search": "key = 1", "replace": "key = 2"}], preview=False)
    assert result["success"] is True
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_text() == "[main]\nkey = 2\n"
    assert list_backups(str(link)) == list_backups(str(target))
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]


def test_binary_file_refused(tmp_path: Path) -> None:
    f = tmp_path / "blob.bin"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    with pytest.raises(FileToolError, match="binary"):
        edit_file(f, [{"search": "PNG", "replace": "GIF"}], preview=False)


def test_invalid_arguments(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.txt", "x\n")
    with pytest.raises(InvalidArgument):
        edit_file(f, [])
    with pytest.raises(InvalidArgument, match="unknown keys"):
        edit_file(f, [{"search": "x", "replacement": "y"}])
    with pytest.raises(InvalidArgument):
        edit_file(f, [{"search": "", "replace": "y"}])
    with pytest.raises(PathError):
        edit_content("relative.txt", [{"search": "x", "replace": "y"}])


def test_write_failure_leaves_original_untouched(tmp_path: Path, backup_dir: Path) -> None:
    f = write_utf8(tmp_path / "grow.txt", "seed\n" + "x" * 4000 + "\n")
    before = f.read_bytes()
    script = textwrap.dedent(
        f"""
        import json, resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))
        from diffchunk.errors import FileToolError
        from diffchunk.files.edit import edit_content
        try:
            edit_content({str(f)!r}, [{{"search": "seed", "replace": "y" * 5000}}], preview=False)
        except FileToolError as exc:
            print("ERROR:", exc)
            sys.exit(0)
        print("NO ERROR")
        """
    )
    env = dict(os.environ, DIFFCHUNK_BACKUP_DIR=str(backup_dir))
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert "ERROR:" in proc.stdout, proc.stdout + proc.stderr
    assert "file size limit" in proc.stdout and "not changed" in proc.stdout
    assert f.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]
    assert list_backups(str(f)) == []


def test_unwritable_backup_dir_refuses_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(blocker / "backups"))
    f = write_utf8(tmp_path / "a.txt", "x = 1\n")
    with pytest.raises(FileToolError, match="DIFFCHUNK_BACKUP_DIR"):
        edit_file(f, [{"search": "x = 1", "replace": "x = 2"}], preview=False)
    assert f.read_text() == "x = 1\n"


def test_read_only_file_refused(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "locked.txt", "keep = 1\n")
    f.chmod(0o444)
    with pytest.raises(FileToolError, match="read-only"):
        edit_file(f, [{"search": "keep = 1", "replace": "keep = 2"}], preview=False)
    assert f.read_text() == "keep = 1\n"
    # A preview is still possible.
    assert edit_file(f, [{"search": "keep = 1", "replace": "keep = 2"}])["success"] is True


def test_crlf_search_starting_with_newline_is_one_place(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"a\r\nb\r\nc\r\n")
    result = edit_file(f, [{"search": "\nb", "replace": "\nB"}], preview=False)
    assert result["success"] is True, result
    assert f.read_bytes() == b"a\r\nB\r\nc\r\n"


@pytest.mark.parametrize("keep_mtime", [False, True])
@pytest.mark.parametrize(
    "when", ["before the backup", "during a copied backup", "while the new version is written"]
)
@pytest.mark.parametrize("rewrites", ["once", "at every attempt"])
def test_a_rewrite_in_place_during_the_edit_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_mtime: bool, when: str, rewrites: str
) -> None:
    # Another program writes the same number of bytes in place; with
    # keep_mtime it restores the mtime too (cp -p, rsync -t --inplace).  Once:
    # the edit is made again on its text; at every attempt: the edit gives up.
    from diffchunk.errors import EditConflict
    from diffchunk.files import edit

    path = tmp_path / "conf.txt"
    path.write_bytes(b"alpha\nbeta\ngamma\n")
    done: list[bool] = []

    def other_program() -> None:
        if done and rewrites == "once":
            return
        done.append(True)
        st = os.stat(path)
        with open(path, "r+b") as fh:
            fh.write(b"ALPHA\nbeta\nGAMMA\n")
        if keep_mtime:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    if when == "before the backup":  # after the edit was planned on the old text
        from diffchunk.files import transaction

        real_check = transaction.check_writable

        def check_after_rewrite(*args: Any) -> None:
            other_program()
            real_check(*args)

        monkeypatch.setattr(transaction, "check_writable", check_after_rewrite)
    elif when == "during a copied backup":  # no hard link: the backup is a copy
        from diffchunk.files import backups

        monkeypatch.setenv("DIFFCHUNK_BACKUP_LINK", "0")
        real_copy = backups.copy_range

        def copy_while_rewritten(*args: Any) -> None:
            other_program()
            real_copy(*args)

        monkeypatch.setattr(backups, "copy_range", copy_while_rewritten)
    else:
        real_fill = edit._fill

        def fill_after_rewrite(*args: Any) -> None:
            other_program()
            real_fill(*args)

        monkeypatch.setattr(edit, "_fill", fill_after_rewrite)
    change = [{"search": "beta", "replace": "BETA2"}]
    if rewrites == "once":
        result = edit_content(str(path), change, preview=False).to_dict()
        assert result["success"] and result["written"], result
        assert path.read_bytes() == b"ALPHA\nBETA2\nGAMMA\n"  # both programs' changes
        assert len(done) == 1
        return
    with pytest.raises(EditConflict, match="changed by another program"):
        edit_content(str(path), change, preview=False)
    assert path.read_bytes() == b"ALPHA\nbeta\nGAMMA\n"  # the other program's text stands
    assert len(done) == 3  # EDIT_ATTEMPTS, each from a fresh read
    assert not edit.list_backups(str(path))  # no backup of a write that did not happen


def test_an_edit_never_changes_bytes_its_encoding_cannot_write_back(tmp_path: Path) -> None:
    # cp932 decodes 0x879A and 0x81E6 to the same character, and encodes it
    # as 0x81E6: re-encoding the whole file would change a line far away.
    text = ("これは日本語のテキストファイルです。設定を変更してください。\n" * 40).encode("cp932")
    data = text + b"note \x87\x9a end\n" + "最後の行です。値 = 1\n".encode("cp932")
    path = tmp_path / "sjis.txt"
    path.write_bytes(data)
    with pytest.raises(FileToolError, match="written back as other bytes"):
        edit_content(str(path), [{"search": "値 = 1", "replace": "値 = 2"}], preview=False)
    assert path.read_bytes() == data
    clean = tmp_path / "clean.txt"  # without such a character the edit goes through
    clean.write_bytes(text + "最後の行です。値 = 1\n".encode("cp932"))
    done = edit_content(
        str(clean), [{"search": "値 = 1", "replace": "値 = 2"}], preview=False
    ).to_dict()
    assert done["success"] and clean.read_bytes() == text + "最後の行です。値 = 2\n".encode("cp932")


def test_an_edit_keeps_extended_attributes_and_says_what_it_cannot_keep(tmp_path: Path) -> None:
    path = tmp_path / "tagged.txt"
    path.write_text("x\ny\n")
    try:
        os.setxattr(path, "user.origin", b"review")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    (tmp_path / "other-name.txt").hardlink_to(path)
    done = edit_content(str(path), [{"search": "y", "replace": "Y"}], preview=False).to_dict()
    assert done["success"] and path.read_text() == "x\nY\n"
    assert os.getxattr(path, "user.origin") == b"review"
    (warning,) = done["warnings"]
    assert warning.startswith("The file had 2 hard links")
    assert (tmp_path / "other-name.txt").read_text() == "x\ny\n"
    plain = tmp_path / "plain.txt"
    plain.write_text("a\n")
    assert (
        "warnings"
        not in edit_content(str(plain), [{"search": "a", "replace": "b"}], preview=False).to_dict()
    )


def test_revert_of_a_deleted_file_says_where_its_backups_are(tmp_path: Path) -> None:
    from diffchunk.files.edit import revert_edit

    path = tmp_path / "gone.txt"
    path.write_text("one\n")
    edit_content(str(path), [{"search": "one", "replace": "two"}], preview=False)
    path.unlink()
    with pytest.raises(FileToolError, match=r"does not exist .*but 1 backup") as raised:
        revert_edit(str(path))
    assert "cp " in (raised.value.suggestion or "")
    with pytest.raises(PathError):
        revert_edit(str(tmp_path / "never-there.txt"))
