"""One error hierarchy for the whole package.

Every error a user (or a model) can cause is a :class:`DiffchunkError` whose
message says what went wrong *and what to do next*.  The CLI maps these to exit
code 1, the MCP server to ``ToolError`` results; anything else is a bug.
"""

from __future__ import annotations


class DiffchunkError(Exception):
    """Base class: an anticipated failure with an actionable message.

    ``suggestion`` says what to do in the MCP tools' terms (``list_chunks``,
    ``side='old'``); ``cli_suggestion``, when the command line does it another
    way, says it in the command line's (``diffchunk review``, ``--side old``):
    the CLI shows :meth:`cli_text`.
    """

    def __init__(
        self, message: str, *, suggestion: str | None = None, cli_suggestion: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion
        self.cli_suggestion = cli_suggestion

    def __str__(self) -> str:
        if self.suggestion:
            return f"{self.message} {self.suggestion}"
        return self.message

    def cli_text(self) -> str:
        """The message as the command line shows it, with its own suggestion if any."""
        suggestion = self.cli_suggestion or self.suggestion
        return f"{self.message} {suggestion}" if suggestion else self.message


class InvalidArgument(DiffchunkError):
    """A parameter has a value the tool cannot use (bad format, negative count...)."""


class PathError(DiffchunkError):
    """A path is relative, missing, unreadable, or not a regular file."""


class NotADiffError(DiffchunkError):
    """The input file contains no diff at all."""


class ChunkNotFound(DiffchunkError):
    """A chunk number outside the loaded diff's range."""


class FileNotInDiff(DiffchunkError):
    """A file path or pattern that matches zero or several files of the diff."""


class GitError(DiffchunkError):
    """git failed, or a repository/range cannot be reviewed."""


class RefusedRange(GitError):
    """A revision range was refused because it could be read as an option."""


class NotARange(GitError):
    """The text names no revision of the repository, or the path is in no repository:
    for ``diffchunk review TARGET``, TARGET may have been meant as a file."""


class GitTimeout(GitError):
    """git did not finish in the time allowed and was stopped."""


class CallCancelled(DiffchunkError):
    """The call was cancelled (the MCP client sent ``notifications/cancelled``): its git
    processes were stopped and its answer is dropped."""


class UnsafeRepository(GitError):
    """A repository that git would read outside the allowed roots, or whose files cannot
    be read safely (a named pipe or a device where git expects a file)."""


class ReviewedRevisionGone(GitError):
    """The commits of a review's reviewed revision are no longer in the repository (pruned
    after a force-push): what changed since cannot be shown."""


class CacheWriteError(GitError):
    """A generated diff could not be written to the cache (disk full, read-only...)."""


class ExportDocumentError(DiffchunkError):
    """A review export document that cannot be rendered (not one, another version, a bad key)."""


class FileToolError(DiffchunkError):
    """A large-file tool failure (binary file, no match, ambiguous edit...)."""


class EditConflict(FileToolError):
    """The file changed under an edit, or an edit could not be applied safely."""


class RecordUnavailable(DiffchunkError):
    """The review record (its SQLite file) cannot be opened, read or written: the diff
    tools keep working; the message says how to make the record usable again."""


class RecordLogRefused(DiffchunkError):
    """A review log (from a remote, or a file to import) that is not one diffchunk
    wrote: too large, not JSON lines of its format, or an operation out of bounds."""
