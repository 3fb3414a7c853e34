"""The file sections of a parsed diff, kept in columns: :class:`FileTable`.

A diff of a million small files is a million file sections.  Kept as a
million :class:`~diffchunk.diff.model.FileDiff` objects (each with its two
paths, its two path tokens and its lazy hunks) they took about a kilobyte a
file.  A :class:`FileTable` keeps each field in a typed array (offsets,
counts, flags), the paths in one pool of UTF-8 text, and the ``---``/``+++``
tokens as spans of the diff buffer (or of the pool, when the parser made
them up): about 140 bytes a file.

It is a ``Sequence[FileDiff]`` (a :class:`~diffchunk.diff.lazy.LazySequence`):
indexing or iterating builds the FileDiff of a section when it is asked for,
so a caller holds an object per file it looks at, never one per file of the
diff.  A pass over every file that needs
a field or two (a path, a span, a status) reads the columns without building
one (:meth:`FileTable.path`, :meth:`FileTable.span`...).

Rules:

- Round trip: ``table[i] == fd`` for the ``fd`` appended at ``i``.  Lazy
  hunks (:class:`~diffchunk.diff.hunk.LazyHunks`) that span the section's
  ``header_end..end`` of the table's buffer are kept as their count and
  marker count and built again over :attr:`FileTable.data` on each access;
  any other hunks (a tuple of :class:`~diffchunk.diff.hunk.Hunk`) are kept as
  they are.
- A token kept as a span of the buffer is read from :attr:`FileTable.data`:
  the buffer a table reads must hold the same bytes at the same offsets as
  the one its sections were read from (a streamed parse rebinds it to the
  whole diff at its end, :meth:`FileTable.rebind`).
- Paths are looked up by :meth:`FileTable.indices_of` through an index of
  their hashes (16 bytes a file), built on first use.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .buffer import DiffData
from .hunk import Hunk, LazyHunks
from .lazy import LazySequence
from .model import DiffKind, Excluded, ExcludeReason, FileDiff, FileStatus, new_file_diff

__all__ = ["ExcludedFiles", "FileTable", "FileView", "table_of"]

_KINDS = tuple(DiffKind)
_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
_STATUSES = tuple(FileStatus)
_STATUS_CODE = {s: i for i, s in enumerate(_STATUSES)}
_REASONS = tuple(ExcludeReason)
_REASON_CODE = {r: i for i, r in enumerate(_REASONS)}

# Flag bits of a section: its kind (2 bits), its status (3 bits), then booleans.
_STATUS_SHIFT = 2
_BINARY = 1 << 5
_BINARY_PATCH = 1 << 6
_SUBMODULE = 1 << 7
_NO_OLD_PATH = 1 << 8  # old_path is None (an added file)
_NO_NEW_PATH = 1 << 9  # new_path is None (a deleted file)
_TOKENS_IN_DATA = 1 << 10  # the tokens are spans of the buffer (see FileTable._tok)

_NONE = -1  # a length, a count or a number that stands for None
_OTHER_HUNKS = -1  # the hunks are kept as they are (see _other_hunks)
_PLUS_AFTER_MINUS = 5  # "\n+++ " between a "---" token and its "+++" token
_PATH_ERRORS = "surrogatepass"  # every str round-trips through UTF-8 with it


class FileTable(LazySequence[FileDiff]):
    """The file sections of one diff (see the module doc); ``data`` is its buffer.

    Columns, one entry per section: offsets (``start``, ``header_end``, ``end``), line
    counts (``added``, ``removed``, ``line_count``), ``flags`` (kind, status, the
    booleans, which paths are None, where the tokens are), the lazy hunks' count,
    the commit, the (old) mode, the path (where it starts in the pool, its length),
    and the ``---`` token (where, its length) with the ``+++`` token's length.  What
    few sections have is kept aside by position: an old path other than the path,
    a new mode other than the old, a similarity, marker lines of lazy hunks,
    hunks kept as they are, a malformed note.
    """

    ITEM = "file index"
    __slots__ = (
        "_added",
        "_at_index",
        "_commit",
        "_end",
        "_flags",
        "_hash_order",
        "_hashes",
        "_header_end",
        "_hunk_marks",
        "_hunks",
        "_line_count",
        "_malformed",
        "_mode",
        "_mode_ids",
        "_modes",
        "_new_mode",
        "_new_tok_len",
        "_old_path",
        "_other_hunks",
        "_path_at",
        "_path_len",
        "_pool",
        "_removed",
        "_repeated",
        "_similarity",
        "_start",
        "_tok",
        "_tok_len",
        "data",
    )

    def __init__(self, data: DiffData | bytearray = b"", files: Iterable[FileDiff] = ()) -> None:
        self.data = data
        self._start = array("q")
        self._header_end = array("q")
        self._end = array("q")
        self._added = array("q")
        self._removed = array("q")
        self._line_count = array("q")
        self._flags = array("H")
        self._hunks = array("i")  # lazy hunks' count; 0: none; _OTHER_HUNKS: kept aside
        self._commit = array("i")
        self._mode = array("I")  # the old mode (index into _modes)
        self._modes: list[str | None] = [None]
        self._mode_ids: dict[str | None, int] = {None: 0}
        self._pool = bytearray()  # paths and made-up tokens, UTF-8
        self._path_at = array("q")  # where the path (FileDiff.path) starts in the pool
        self._path_len = array("i")  # its length (_NONE: neither path is known)
        self._tok = array("q")  # the "---" token: in the pool, or a span of data
        self._tok_len = array("i")
        self._new_tok_len = array("i")  # the "+++" token follows it (see _tok)
        self._old_path: dict[int, tuple[int, int]] = {}  # an old path other than the path
        self._new_mode: dict[int, int] = {}  # a new mode other than the old
        self._similarity: dict[int, int] = {}
        self._hunk_marks: dict[int, int] = {}  # marker lines of lazy hunks, when any
        self._other_hunks: dict[int, Sequence[Hunk]] = {}
        self._malformed: dict[int, str] = {}
        self._at_index: dict[int, int] = {}  # position -> FileDiff.index, where they differ
        self._hashes: array[int] | None = None  # see indices_of
        self._hash_order: array[int] | None = None
        self._repeated: tuple[int, dict[str, list[int]]] | None = None  # (length, found)
        for fd in files:
            self.append(fd)

    # ---------------------------------------------------------------- writing

    def rebind(self, data: DiffData | bytearray) -> None:
        """Read hunks and tokens from ``data`` from now on (the same bytes at the same
        offsets, or ``b""`` while nothing may read them)."""
        self.data = data

    def _text(self, text: str) -> tuple[int, int]:
        raw = text.encode("utf-8", _PATH_ERRORS)
        at = len(self._pool)
        self._pool += raw
        return at, len(raw)

    def _mode_id(self, mode: str | None) -> int:
        found = self._mode_ids.get(mode)
        if found is None:
            found = self._mode_ids[mode] = len(self._modes)
            self._modes.append(mode)
        return found

    def append(self, fd: FileDiff) -> None:
        """Keep ``fd`` as the next section."""
        i = len(self._start)
        if fd.index != i:
            self._at_index[i] = fd.index
        self._start.append(fd.start)
        self._header_end.append(fd.header_end)
        self._end.append(fd.end)
        self._added.append(fd.added)
        self._removed.append(fd.removed)
        self._line_count.append(_NONE if fd.line_count is None else fd.line_count)
        flags = _KIND_CODE[fd.kind] | _STATUS_CODE[fd.status] << _STATUS_SHIFT
        if fd.is_binary:
            flags |= _BINARY
        if fd.binary_patch:
            flags |= _BINARY_PATCH
        if fd.is_submodule:
            flags |= _SUBMODULE
        if fd.old_path is None:
            flags |= _NO_OLD_PATH
        if fd.new_path is None:
            flags |= _NO_NEW_PATH
        self._flags.append(flags)
        self._keep_hunks(i, fd)
        self._commit.append(_NONE if fd.commit is None else fd.commit)
        self._mode.append(self._mode_id(fd.old_mode))
        if fd.new_mode != fd.old_mode:
            self._new_mode[i] = self._mode_id(fd.new_mode)
        if fd.similarity is not None:
            self._similarity[i] = fd.similarity
        path = fd.new_path if fd.new_path is not None else fd.old_path
        at, length = self._text(path) if path is not None else (0, _NONE)
        self._path_at.append(at)
        self._path_len.append(length)
        if fd.old_path is not None and fd.old_path != path:
            self._old_path[i] = self._text(fd.old_path)
        self._tok.append(len(self._pool))
        self._tok_len.append(len(fd.old_token))
        self._new_tok_len.append(len(fd.new_token))
        self._pool += fd.old_token
        self._pool += fd.new_token
        if fd.malformed is not None:
            self._malformed[i] = fd.malformed

    def _keep_hunks(self, i: int, fd: FileDiff) -> None:
        hunks = fd.hunks
        if (
            isinstance(hunks, LazyHunks)
            and hunks.data is self.data
            and hunks.start == fd.header_end
            and hunks.end == fd.end
        ):
            self._hunks.append(len(hunks))
            if hunks.marks:
                self._hunk_marks[i] = hunks.marks
        elif not hunks:
            self._hunks.append(0)
        else:
            self._hunks.append(_OTHER_HUNKS)
            self._other_hunks[i] = hunks

    def add_plain(
        self,
        start: int,
        header_end: int,
        end: int,
        path: str,
        hunks: LazyHunks,
        added: int,
        removed: int,
        mode: str | None,
        is_submodule: bool,
        commit: int | None,
        minus: int,
        token_length: int,
        line_count: int,
    ) -> None:
        """Keep the most common section, as the parser reads it in one go (see
        :func:`diffchunk.diff.parser.git.read_plain_git_section`): a modified file of
        one path, its ``---`` token ``token_length`` bytes at ``minus`` in the buffer
        and its ``+++`` token as long, on the next line; its lazy hunks spanning
        ``header_end..end``."""
        i = len(self._start)
        self._start.append(start)
        self._header_end.append(header_end)
        self._end.append(end)
        self._added.append(added)
        self._removed.append(removed)
        self._line_count.append(line_count)
        # git, modified; the tokens in the buffer
        self._flags.append(_TOKENS_IN_DATA | _SUBMODULE if is_submodule else _TOKENS_IN_DATA)
        self._hunks.append(len(hunks))
        if hunks.marks:
            self._hunk_marks[i] = hunks.marks
        self._commit.append(_NONE if commit is None else commit)
        mode_id = self._mode_ids.get(mode)
        self._mode.append(self._mode_id(mode) if mode_id is None else mode_id)
        raw = path.encode("utf-8", _PATH_ERRORS)
        self._path_at.append(len(self._pool))
        self._path_len.append(len(raw))
        self._pool += raw
        self._tok.append(minus)
        self._tok_len.append(token_length)
        self._new_tok_len.append(token_length)

    def truncate(self, n: int) -> None:
        """Forget the sections from position ``n`` on (a parse rolled back)."""
        for column in self._columns():
            del column[n:]
        for side in (
            self._old_path,
            self._new_mode,
            self._similarity,
            self._hunk_marks,
            self._other_hunks,
            self._malformed,
            self._at_index,
        ):
            for key in [k for k in side if k >= n]:
                del side[key]
        self._hashes = self._hash_order = None
        self._repeated = None

    def _columns(self) -> tuple[array[int], ...]:
        return (
            self._start,
            self._header_end,
            self._end,
            self._added,
            self._removed,
            self._line_count,
            self._flags,
            self._hunks,
            self._commit,
            self._mode,
            self._path_at,
            self._path_len,
            self._tok,
            self._tok_len,
            self._new_tok_len,
        )

    # ---------------------------------------------------------------- columns

    def _decode(self, at: int, length: int) -> str:
        return self._pool[at : at + length].decode("utf-8", _PATH_ERRORS)

    def path(self, i: int) -> str:
        """:attr:`FileDiff.path` of section ``i``: its new path, else its old one."""
        length = self._path_len[i]
        if length < 0:
            return ""
        at = self._path_at[i]
        return self._pool[at : at + length].decode("utf-8", _PATH_ERRORS)

    def _old_span(self, i: int) -> tuple[int, int] | None:
        if self._flags[i] & _NO_OLD_PATH:
            return None
        other = self._old_path.get(i)
        return other if other is not None else (self._path_at[i], self._path_len[i])

    def path_bytes(self, i: int) -> tuple[bytes | None, bytes | None]:
        """``(old_path, new_path)`` of section ``i`` as the pool keeps them (UTF-8, a lone
        surrogate as its three bytes)."""
        pool, old = self._pool, self._old_span(i)
        new = None
        if not self._flags[i] & _NO_NEW_PATH:
            at, length = self._path_at[i], self._path_len[i]
            new = bytes(pool[at : at + length])
        return None if old is None else bytes(pool[old[0] : old[0] + old[1]]), new

    def old_path(self, i: int) -> str | None:
        old = self._old_span(i)
        return None if old is None else self._decode(*old)

    def new_path(self, i: int) -> str | None:
        if self._flags[i] & _NO_NEW_PATH:
            return None
        return self._decode(self._path_at[i], self._path_len[i])

    def paths(self) -> Iterator[str]:
        """:meth:`path` of every section, in order."""
        return map(self.path, range(len(self._start)))

    def span(self, i: int) -> tuple[int, int]:
        """``(start, end)`` of section ``i`` in the buffer."""
        return self._start[i], self._end[i]

    def start(self, i: int) -> int:
        return self._start[i]

    def end(self, i: int) -> int:
        return self._end[i]

    def line_count(self, i: int) -> int | None:
        count = self._line_count[i]
        return None if count < 0 else count

    def counts(self, i: int) -> tuple[int, int]:
        """``(added, removed)`` lines of section ``i``."""
        return self._added[i], self._removed[i]

    def status(self, i: int) -> FileStatus:
        return _STATUSES[self._flags[i] >> _STATUS_SHIFT & 7]

    def kind(self, i: int) -> DiffKind:
        return _KINDS[self._flags[i] & 3]

    def commit(self, i: int) -> int | None:
        value = self._commit[i]
        return None if value < 0 else value

    def header_end(self, i: int) -> int:
        return self._header_end[i]

    def modes(self, i: int) -> tuple[str | None, str | None]:
        """``(old_mode, new_mode)`` of section ``i``."""
        old = self._mode[i]
        return self._modes[old], self._modes[self._new_mode.get(i, old)]

    def lazy_hunks(self, i: int) -> int:
        """How many hunks section ``i`` has when they are lazy (they span its
        ``header_end..end``, one ``@@`` line each), else 0."""
        return max(self._hunks[i], 0)

    def has_hunks(self, i: int) -> bool:
        count = self._hunks[i]
        return count > 0 or (count == _OTHER_HUNKS and bool(self._other_hunks[i]))

    def is_binary(self, i: int) -> bool:
        return bool(self._flags[i] & _BINARY)

    def malformed(self, i: int) -> str | None:
        return self._malformed.get(i)

    def malformed_count(self) -> int:
        """Sections flagged malformed (with a reason)."""
        return sum(1 for why in self._malformed.values() if why)

    @property
    def nbytes(self) -> int:
        """The memory the columns and the pool take (the side tables aside)."""
        return len(self._pool) + sum(c.itemsize * len(c) for c in self._columns())

    # ----------------------------------------------------------------- lookup

    def indices_of(self, path: str) -> list[int]:
        """The positions of the sections whose :meth:`path` is ``path``, in order."""
        hashes, order = self._hashes, self._hash_order
        if hashes is None or order is None or len(hashes) != len(self._start):
            hashes, order = self._hash_index()
        key = hash(path)
        found = []
        at = bisect_left(hashes, key)
        while at < len(hashes) and hashes[at] == key:
            i = order[at]
            if self.path(i) == path:
                found.append(i)
            at += 1
        found.sort()
        return found

    def repeated(self) -> dict[str, list[int]]:
        """The paths that several sections share (a ``git log -p`` stream), each with its
        sections in order; empty for most diffs (found through the hash index)."""
        if self._repeated is not None and self._repeated[0] == len(self._start):
            return self._repeated[1]
        hashes, order = self._hashes, self._hash_order
        if hashes is None or order is None or len(hashes) != len(self._start):
            hashes, order = self._hash_index()
        found: dict[str, list[int]] = {}
        k, n = 0, len(hashes)
        while k < n:
            j = k + 1
            while j < n and hashes[j] == hashes[k]:
                j += 1
            if j - k > 1:
                groups: dict[str, list[int]] = {}
                for m in range(k, j):
                    groups.setdefault(self.path(order[m]), []).append(order[m])
                found.update((p, sorted(ids)) for p, ids in groups.items() if len(ids) > 1)
            k = j
        self._repeated = (len(self._start), found)
        return found

    def _hash_index(self) -> tuple[array[int], array[int]]:
        """The paths' hashes sorted, and the section of each (two threads may both
        build them: either is kept)."""
        keys = array("q", map(hash, self.paths()))
        order = array("q", sorted(range(len(keys)), key=keys.__getitem__))
        hashes = array("q", map(keys.__getitem__, order))
        self._hashes, self._hash_order = hashes, order
        return hashes, order

    # --------------------------------------------------------------- Sequence

    def __len__(self) -> int:
        return len(self._start)

    def __delitem__(self, i: slice) -> None:
        start, stop, step = i.indices(len(self._start))
        if step != 1 or stop != len(self._start):
            raise ValueError("a FileTable only drops its last sections")
        self.truncate(start)

    def __repr__(self) -> str:
        return f"FileTable({len(self)} files)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (tuple(self),))

    def _tokens(self, i: int, flags: int) -> tuple[bytes, bytes]:
        """The ``---`` and ``+++`` tokens of section ``i``: in the pool one after the
        other, or (``_TOKENS_IN_DATA``) on two lines of the buffer."""
        at, length, new_length = self._tok[i], self._tok_len[i], self._new_tok_len[i]
        if flags & _TOKENS_IN_DATA:
            data = self.data
            plus = at + length + _PLUS_AFTER_MINUS
            old, new = data[at : at + length], data[plus : plus + new_length]
            if type(old) is bytes and type(new) is bytes:
                return old, new
            return bytes(old), bytes(new)  # slices of a bytearray, while a parse streams
        pool = self._pool
        return bytes(pool[at : at + length]), bytes(pool[at + length : at + length + new_length])

    def _build(self, i: int) -> FileDiff:
        flags = self._flags[i]
        count = self._hunks[i]
        hunks: Sequence[Hunk]
        if count > 0:
            hunks = LazyHunks(
                self.data, self._header_end[i], self._end[i], count, self._hunk_marks.get(i, 0)
            )
        elif count == 0:
            hunks = ()
        else:
            hunks = self._other_hunks[i]
        length = self._path_len[i]
        path = None
        if length >= 0:
            at = self._path_at[i]
            path = self._pool[at : at + length].decode("utf-8", _PATH_ERRORS)
        new_path = None if flags & _NO_NEW_PATH else path
        if flags & _NO_OLD_PATH:
            old_path = None
        else:
            other = self._old_path.get(i) if self._old_path else None
            old_path = path if other is None else self._decode(*other)
        commit = self._commit[i]
        line_count = self._line_count[i]
        old_mode = self._mode[i]
        old_token, new_token = self._tokens(i, flags)
        return new_file_diff(
            self._at_index.get(i, i) if self._at_index else i,
            self._start[i],
            self._header_end[i],
            self._end[i],
            _KINDS[flags & 3],
            _STATUSES[flags >> _STATUS_SHIFT & 7],
            old_path,
            new_path,
            hunks,
            self._added[i],
            self._removed[i],
            self._modes[old_mode],
            self._modes[self._new_mode.get(i, old_mode)]
            if self._new_mode
            else self._modes[old_mode],
            self._similarity.get(i) if self._similarity else None,
            bool(flags & _BINARY),
            bool(flags & _BINARY_PATCH),
            bool(flags & _SUBMODULE),
            None if commit < 0 else commit,
            old_token,
            new_token,
            self._malformed.get(i) if self._malformed else None,
            None if line_count < 0 else line_count,
        )


def table_of(files: Sequence[FileDiff], data: DiffData | bytearray) -> FileTable:
    """``files`` as a table reading ``data`` (itself when it is one already)."""
    if isinstance(files, FileTable):
        return files
    return FileTable(data, files)


class FileView(LazySequence[FileDiff]):
    """Some sections of a table, in a given order (a review's kept files): positions
    in an array, each FileDiff built when it is asked for."""

    ITEM = "kept file"
    __slots__ = ("indices", "table")

    def __init__(self, table: FileTable, indices: Iterable[int] = ()) -> None:
        self.table = table
        self.indices = array("q", indices)

    def __len__(self) -> int:
        return len(self.indices)

    def _build(self, i: int) -> FileDiff:
        return self.table[self.indices[i]]

    def __iter__(self) -> Iterator[FileDiff]:
        return map(self.table.__getitem__, self.indices)

    def __repr__(self) -> str:
        return f"FileView({len(self)} of {len(self.table)} files)"


class ExcludedFiles(LazySequence[Excluded]):
    """The files a filter left out, in diff order: each one's position, reason and detail
    in arrays (details interned), its :class:`~diffchunk.diff.model.Excluded` built when
    asked for."""

    ITEM = "excluded file"
    __slots__ = ("_detail_ids", "_details", "_index", "_known", "_reason", "table")

    def __init__(self, table: FileTable) -> None:
        self.table = table
        self._index = array("q")
        self._reason = array("B")
        self._detail_ids = array("I")
        self._details: list[str | None] = [None]
        self._known: dict[str | None, int] = {None: 0}

    def add(self, file_index: int, reason: ExcludeReason, detail: str | None) -> None:
        self._index.append(file_index)
        self._reason.append(_REASON_CODE[reason])
        found = self._known.get(detail)
        if found is None:
            found = self._known[detail] = len(self._details)
            self._details.append(detail)
        self._detail_ids.append(found)

    def sort(self) -> None:
        """Put the files in diff order (those excluded by pattern were added first)."""
        order = sorted(range(len(self._index)), key=self._index.__getitem__)
        self._index = array("q", map(self._index.__getitem__, order))
        self._reason = array("B", map(self._reason.__getitem__, order))
        self._detail_ids = array("I", map(self._detail_ids.__getitem__, order))

    def file_index(self, k: int) -> int:
        return self._index[k]

    def reason(self, k: int) -> ExcludeReason:
        return _REASONS[self._reason[k]]

    def __len__(self) -> int:
        return len(self._index)

    def _build(self, k: int) -> Excluded:
        index = self._index[k]
        return Excluded(
            self.table.path(index),
            _REASONS[self._reason[k]],
            index,
            self._details[self._detail_ids[k]],
        )

    def __iter__(self) -> Iterator[Excluded]:
        details = self._details
        path, reasons = self.table.path, _REASONS
        for index, reason, detail in zip(self._index, self._reason, self._detail_ids, strict=True):
            yield Excluded(path(index), reasons[reason], index, details[detail])

    def __repr__(self) -> str:
        return f"ExcludedFiles({len(self)})"
