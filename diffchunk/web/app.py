"""The review page's routes (Starlette): the page, its files, and a JSON API over the
application's functions.

Every route calls the application (:mod:`diffchunk.review`) and renders its
typed result as JSON; nothing here reads the diff or the record itself.
Writes are the record's own tools (``mark_reviewed``, ``add_finding``,
``update_finding``), so the page writes exactly what the MCP tools write.
Reads run in worker threads (the application is synchronous); an error the
application raises (:class:`~diffchunk.errors.DiffchunkError`) is answered
400 (503 for a record that cannot be used) with its message and suggestion.

``view`` names which diff a request is about: ``full`` (the diff the page was
started with) or ``since`` (what changed since the last review, loaded on
first use as ``load_git_diff(..., since_review=True)`` loads it: the same
review).

API (``/api/...``, token in the ``X-Diffchunk-Token`` header, see
:mod:`.guard`):

- ``GET review?view=``: the page's title, whether it is read-only, and the
  file tree with the review's standing (:func:`~diffchunk.review.page.files.review_files`);
- ``GET file?view=&path=&offset=``: rows of one file's diff
  (:func:`~diffchunk.review.page.file_view.file_rows`);
- ``GET context?view=&path=&new_first=&count=&old_first=``: lines of the file
  around a hunk (:func:`~diffchunk.review.page.context.context_lines`);
- ``GET findings?view=``: every finding of the review (``list_findings``,
  status ``all``), whole, with its ``author`` and its ``thread`` of replies;
- ``GET version``: the record's version (:mod:`diffchunk.review.record.version`);
- ``POST viewed`` ``{view, path, reviewed}``: ``mark_reviewed``;
- ``POST findings`` ``{view, path, line, end_line, side, severity, message,
  suggestion}``: ``add_finding``;
- ``POST findings/{id}`` ``{view, status, severity, message, comment}``:
  ``update_finding`` (``comment``: a reply kept on the finding's thread).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import DiffchunkError, InvalidArgument, RecordUnavailable

PAGE_REQUEST_BYTES = 1_048_576
"""Largest request body the page's server reads: a finding's message and
suggestion fit many times over."""


logger = logging.getLogger(__name__)

#: The page's own files: name -> content type.
STATIC = {
    "page.js": "text/javascript; charset=utf-8",
    "page.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}

SinceLoader = Callable[[], tuple[str | None, str | None]]


@dataclass
class PageConfig:
    """What the page serves: the diff (``diff_path``, loaded), how to name it, and how to
    load what changed since the last review (``load_since``: ``(since diff path or None,
    note)``; None when the review is not of a range)."""

    diff_path: str
    title: str
    token: str
    read_only: bool = False
    repo: str | None = None  # the repository of a diff file's blobs (context lines)
    load_since: SinceLoader | None = None


class _Views:
    """The diffs a request may name by ``view``; the since-review one loaded on first use."""

    def __init__(self, config: PageConfig) -> None:
        self.config = config
        self._since: tuple[str | None, str | None] | None = None
        self._lock = threading.Lock()

    def path(self, view: str) -> str:
        if view == "full":
            return self.config.diff_path
        if view != "since":
            raise InvalidArgument(f"view must be 'full' or 'since', got {view!r}.")
        path, note = self.since()
        if path is None:
            raise InvalidArgument(note or "There is no since-review view of this review.")
        return path

    def since(self) -> tuple[str | None, str | None]:
        loader = self.config.load_since
        if loader is None:
            return (
                None,
                "A diff file's review has no history: 'since my last review' needs a range.",
            )
        with self._lock:
            if self._since is None:
                self._since = loader()
            return self._since


def _json(data: Any, status: int = 200) -> Response:
    try:
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:  # a name that is not UTF-8 (surrogate escapes)
        body = json.dumps(data, separators=(",", ":")).encode("ascii")
    return Response(body, status, media_type="application/json")


def _error(exc: DiffchunkError) -> Response:
    status = 503 if isinstance(exc, RecordUnavailable) else 400
    return _json({"error": exc.message, "suggestion": exc.cli_suggestion or exc.suggestion}, status)


async def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Response:
    """``fn(*args, **kwargs)`` in a worker thread, its result (a dict or list) as JSON."""
    try:
        return _json(await run_in_threadpool(fn, *args, **kwargs))
    except DiffchunkError as exc:
        return _error(exc)
    except Exception:
        logger.exception("The review page's request failed")
        return _json({"error": "Unexpected error on the server (see its log)."}, 500)


def _int(request: Request, name: str, default: int | None = None) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise InvalidArgument(f"{name} must be a whole number, got {text!r}.") from None


async def _body(request: Request) -> dict[str, Any]:
    raw = b""
    async for piece in request.stream():
        raw += piece
        if len(raw) > PAGE_REQUEST_BYTES:
            raise InvalidArgument(f"The request is larger than {PAGE_REQUEST_BYTES} bytes.")
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        raise InvalidArgument("The request's body is not JSON.") from None
    if not isinstance(data, dict):
        raise InvalidArgument("The request's body is not a JSON object.")
    return data


def _static(name: str) -> bytes:
    return (resources.files(__package__) / "static" / name).read_bytes()


def build_app(config: PageConfig) -> Starlette:
    """The page's app (wrapped by :class:`~diffchunk.web.guard.Guard` in :mod:`.serve`)."""
    from ..review import record
    from ..review.export.highlight import style_css
    from ..review.page.context import context_lines
    from ..review.page.file_view import file_rows
    from ..review.page.files import review_files
    from ..review.record.version import RecordVersion

    views = _Views(config)
    version = RecordVersion()
    page = _static("index.html").decode("utf-8").replace("{{TOKEN}}", config.token)
    files = {name: _static(name) for name in STATIC}
    colours = style_css(".hl").encode("utf-8")

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "highlight.css":
            return Response(colours, media_type="text/css; charset=utf-8")
        if name not in STATIC:
            return _json({"error": "No such file."}, 404)
        return Response(files[name], media_type=STATIC[name])

    def review_answer(view: str) -> dict[str, Any]:
        tree = review_files(views.path(view)).to_dict()
        since_note = None
        if view == "full" and tree["since_review"] is None:
            since_note = (
                "No earlier revision of this review to compare with."
                if config.load_since is not None
                else "A diff file's review has no history."
            )
        return {
            "title": config.title,
            "read_only": config.read_only,
            "view": view,
            "since_available": config.load_since is not None
            and (view == "since" or tree["since_review"] is not None),
            "since_note": since_note,
            "version": version.current(),
            **tree,
        }

    async def api_review(request: Request) -> Response:
        return await _call(review_answer, request.query_params.get("view", "full"))

    def file_answer(view: str, path: str, offset: int) -> dict[str, Any]:
        # a read-only page writes nothing, not even the seen mark of a file it shows
        return file_rows(views.path(view), path, offset, note_seen=not config.read_only).to_dict()

    async def api_file(request: Request) -> Response:
        try:
            offset = _int(request, "offset", 0) or 0
        except DiffchunkError as exc:
            return _error(exc)
        q = request.query_params
        return await _call(file_answer, q.get("view", "full"), q.get("path", ""), offset)

    def context_answer(
        view: str, path: str, new_first: int, count: int, old_first: int | None
    ) -> dict[str, Any]:
        return context_lines(
            views.path(view), path, new_first, count, old_first, absolute_repo_path=config.repo
        ).to_dict()

    async def api_context(request: Request) -> Response:
        q = request.query_params
        try:
            new_first = _int(request, "new_first", 1) or 1
            count = _int(request, "count", 20) or 0
            old_first = _int(request, "old_first")
        except DiffchunkError as exc:
            return _error(exc)
        return await _call(
            context_answer, q.get("view", "full"), q.get("path", ""), new_first, count, old_first
        )

    def findings_answer(view: str) -> dict[str, Any]:
        found = record.list_findings(views.path(view), "all", max_chars=None)
        return {"findings": [f.record_dict() for f in found.findings], "total": found.total}

    async def api_findings(request: Request) -> Response:
        return await _call(findings_answer, request.query_params.get("view", "full"))

    async def api_version(request: Request) -> Response:
        return await _call(lambda: {"version": version.current()})

    def viewed(data: dict[str, Any]) -> dict[str, Any]:
        reviewed = data.get("reviewed", True)
        path = _text(data, "path")
        return record.mark_reviewed(
            views.path(str(data.get("view", "full"))), None, path, reviewed
        ).to_dict()

    async def api_viewed(request: Request) -> Response:
        try:
            data = await _body(request)
        except DiffchunkError as exc:
            return _error(exc)
        return await _call(viewed, data)

    def add(data: dict[str, Any]) -> dict[str, Any]:
        return record.add_finding(
            views.path(str(data.get("view", "full"))),
            _text(data, "path"),
            data.get("message", ""),  # checked by add_finding, as every value here
            data.get("line"),
            data.get("end_line"),
            data.get("side", "new"),
            data.get("severity", "major"),
            data.get("suggestion") or None,
        ).to_dict()

    async def api_add(request: Request) -> Response:
        try:
            data = await _body(request)
        except DiffchunkError as exc:
            return _error(exc)
        return await _call(add, data)

    def update(finding_id: int, data: dict[str, Any]) -> dict[str, Any]:
        return record.update_finding(
            views.path(str(data.get("view", "full"))),
            finding_id,
            data.get("status"),
            data.get("severity"),
            data.get("message"),
            data.get("comment"),
        ).record_dict()

    async def api_update(request: Request) -> Response:
        try:
            data = await _body(request)
            finding_id = int(request.path_params["finding_id"])
        except DiffchunkError as exc:
            return _error(exc)
        return await _call(update, finding_id, data)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
        Route("/api/review", api_review, methods=["GET"]),
        Route("/api/file", api_file, methods=["GET"]),
        Route("/api/context", api_context, methods=["GET"]),
        Route("/api/findings", api_findings, methods=["GET"]),
        Route("/api/version", api_version, methods=["GET"]),
        Route("/api/viewed", api_viewed, methods=["POST"]),
        Route("/api/findings", api_add, methods=["POST"]),
        Route("/api/findings/{finding_id:int}", api_update, methods=["POST"]),
    ]
    return Starlette(routes=routes)


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{name} must be a non-empty text.")
    return value
