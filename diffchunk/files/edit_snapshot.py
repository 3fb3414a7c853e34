"""The version of a file an edit works on: one consistent snapshot of its bytes.

A :class:`EditSnapshot` opens the file once, through its
:class:`~.edit_target.EditTarget` (the directory's descriptor, never a link),
and checks that the descriptor is the version it detected (fingerprint; it
tries three times while the file keeps changing), so the changes are
located, previewed, backed up and written from the very same bytes, all
read from that descriptor.  Binary files and special files (size 0 with content,
such as ``/proc``) are refused.

How the bytes are read (:attr:`EditSnapshot.source`, a :class:`~.byte_reader.Reader`):

- UTF-8 and single-byte code pages are searched as bytes: files up to
  :data:`IN_MEMORY_LIMIT` are read into memory, bigger ones read with
  ``pread`` in bounded blocks, so a 1 GB edit never holds the file;
- other encodings (UTF-16/32, legacy multibyte) are transcoded to UTF-8 in
  memory, up to :data:`MAX_TRANSCODE` bytes, and only when the text encodes
  back to the very bytes it came from (otherwise an edit would change bytes
  far from the edit).

Replacements are encoded by :meth:`EditSnapshot.encode` (the file's line ending
for the place, its encoding; a character it cannot hold is refused).
"""

from __future__ import annotations

import codecs
import contextlib
import os
from collections.abc import Callable, Iterator

from .. import paths
from ..errors import EditConflict, FileToolError
from .access import FileVersion, open_version
from .byte_reader import Reader
from .edit_target import EditTarget

IN_MEMORY_LIMIT = 32 * 1024 * 1024
"""Files up to this size are read into memory for an edit; bigger ones stream."""

MAX_TRANSCODE = 256 * 1024 * 1024
"""Largest file in another encoding than UTF-8 or a single-byte code page that
is edited: it is transcoded in memory."""


def _byte_searchable(encoding: str) -> str | None:
    """Codec for snippets when ``encoding`` can be searched as bytes, else None."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return None
    if name in ("utf-8", "ascii", "utf-8-sig"):
        return "utf-8"
    try:
        single_byte = len(bytes(range(256)).decode(name, errors="replace")) == 256
        return name if single_byte and "\r\n".encode(name) == b"\r\n" else None
    except (LookupError, UnicodeError):
        return None


class EditSnapshot:
    """One consistent version of the file being edited, open at :attr:`fd`.

    :attr:`source` reads its bytes in :attr:`encoding` (see the module doc);
    :attr:`file_encoding` is the file's own codec, :attr:`bom` its
    byte-order mark, :attr:`newline` its dominant line ending.
    """

    def __init__(self, target: EditTarget) -> None:
        self.target = target
        self.realpath = target.realpath
        self.fd = -1
        self.version: FileVersion = self._open()
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        st = self.version.stat
        if st.st_size == 0 and self.version.size:
            raise FileToolError(
                f"{self.realpath} reports a size of 0 but has content: it is a special "
                "file (such as /proc or /sys) and cannot be edited.",
                suggestion="Edit a regular file.",
            )
        self.stat = st
        self.size = st.st_size
        self.bom = self.version.bom
        self.newline = self.version.newline
        encoding = self.version.encoding or "utf-8"
        self.file_encoding = encoding
        snippet = None if self.version.transcoded else _byte_searchable(encoding)
        self.transcoded = snippet is None
        if snippet is not None:
            self.encoding = snippet
            if self.size <= IN_MEMORY_LIMIT:
                self.source = Reader.of_bytes(self._read_all(), start=len(self.bom))
            else:
                self.source = Reader.of_fd(self.fd, self.size, start=len(self.bom))
        else:
            self.encoding = "utf-8"
            self.source = Reader.of_bytes(self._transcode(encoding))

    def _open(self) -> FileVersion:
        for _ in range(3):
            version = open_version(self.realpath)
            if version.is_binary:
                version.require_text()
            fd, st = self.target.open_file()
            if paths.fingerprint(st) == version.fingerprint:
                self.fd = fd
                return version
            os.close(fd)
        raise EditConflict(
            f"{self.realpath} keeps changing while it is being read.",
            suggestion="Retry when the program writing it has finished.",
        )

    def known_lines(self) -> Callable[[int], int] | None:
        """Offset -> line from the version's line index, when one is already built."""
        version = self.version
        if self.transcoded or not version.index_built:
            return None
        index = version.line_index()
        data = version.data
        return lambda offset: index.line_of_offset(data, offset)

    def _read_all(self) -> bytes:
        return Reader.of_fd(self.fd, self.size).read(0, self.size)

    def _transcode(self, encoding: str) -> bytes:
        if self.size > MAX_TRANSCODE:
            raise FileToolError(
                f"{self.realpath} is {encoding} and {self.size} bytes; files in encodings "
                f"other than UTF-8 and single-byte code pages are edited up to "
                f"{MAX_TRANSCODE // (1024 * 1024)} MB.",
                suggestion="Convert it to UTF-8 first (e.g. with iconv).",
            )
        raw = self._read_all()[len(self.bom) :]
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise FileToolError(
                f"{self.realpath} is not valid {encoding} (byte {exc.start + len(self.bom)}); "
                "editing it would alter the undecodable bytes.",
                suggestion="Fix or convert the file's encoding first.",
            ) from None
        # The whole file is written back from its text: only right when the
        # text encodes to the very bytes it came from (cp932 and Big5 have
        # characters with two byte forms; the second would come back changed).
        if text.encode(encoding, errors="replace") != raw:
            raise FileToolError(
                f"{self.realpath} is {encoding}, and some of its characters would be written "
                "back as other bytes than they are now; editing it would change the file "
                "beyond the edit.",
                suggestion="Convert it to UTF-8 first (e.g. with iconv), or edit it with a "
                "tool that keeps its bytes.",
            )
        return text.encode("utf-8", errors="surrogatepass")

    def encode(self, text: str, newline: bytes) -> bytes:
        """``text`` (``\\n`` line breaks) as bytes of :attr:`source`, with ``newline``.

        :class:`UnicodeEncodeError` when the file's encoding cannot hold it.
        """
        if self.transcoded:
            text.encode(self.file_encoding)
        return text.replace("\n", newline.decode("ascii")).encode(self.encoding)

    def encoding_error(self, exc: UnicodeEncodeError) -> str:
        """Why a replacement holding a character the encoding lacks cannot be written."""
        char = exc.object[exc.start : exc.start + 1]
        return (
            f"The replacement contains {char!r} (U+{ord(char):04X}), which the file's "
            f"encoding {self.file_encoding} cannot represent; nothing can be written."
        )

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@contextlib.contextmanager
def open_snapshot(target: EditTarget) -> Iterator[EditSnapshot]:
    """The snapshot of the target's file for a ``with`` block (its descriptor is closed after)."""
    snap = EditSnapshot(target)
    try:
        yield snap
    finally:
        snap.close()
