"""How every MCP tool reports a failure: one shape, whatever failed.

A failed call is an ``isError`` result whose text is the JSON object
``{"error": "<what went wrong>", "suggestion": "<what to do next>" | null}``:
a :class:`~diffchunk.errors.DiffchunkError` of a tool, a path outside the
allowed roots, an unknown parameter, an argument of the wrong type, or a
crash (named by its exception type; the traceback goes to the server log).
A plain exception's message never reaches the client (the SDK hides it), so
every message a model must read is raised here as a ``ToolError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from ..errors import DiffchunkError

SHOWN_INPUT_CHARS = 60
"""Characters of a rejected argument's value repeated in an error: enough to
recognise it, not a pasted file echoed back."""

ERROR_TEXT_CHARS = 2_000
"""Characters of an error's message or suggestion in a tool's answer: the
longest real message is a few hundred; one that repeats a user's text of
100,000 characters (a pattern, a range) is cut in the middle, not sent whole."""

SHOWN_SCHEMA_ERRORS = 5
"""Problems of a call that fails the input schema named at most, one line
each."""


def printable(text: str) -> str:
    """``text`` with unpaired surrogates written as ``\\udcff`` escapes.

    File names with bytes that are not UTF-8 come back from the OS as such
    surrogates; the JSON-RPC layer cannot encode them and would drop the reply.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def encodable(text: str) -> bool:
    """Whether ``text`` can be sent as UTF-8 (no unpaired surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bounded(text: str) -> str:
    """``text``, cut in the middle when it is longer than ERROR_TEXT_CHARS (a message
    that repeats a long argument)."""
    if len(text) <= ERROR_TEXT_CHARS:
        return text
    head, tail = ERROR_TEXT_CHARS * 3 // 4, ERROR_TEXT_CHARS // 4
    cut = len(text) - head - tail
    return f"{text[:head]} … ({cut:,} characters cut) … {text[-tail:]}"


def error_text(message: str, suggestion: str | None = None) -> str:
    """The text of a failed call (see the module docstring): message and suggestion
    bounded, so that an error never outgrows an answer."""
    payload = {
        "error": printable(_bounded(message)),
        "suggestion": suggestion and printable(_bounded(suggestion)),
    }
    return json.dumps(payload, ensure_ascii=False)


def tool_error(message: str, suggestion: str | None = None) -> ToolError:
    """A ``ToolError`` in the one shape."""
    return ToolError(error_text(message, suggestion))


def is_error_text(text: str) -> bool:
    """Whether ``text`` is already in the one shape."""
    if not text.startswith('{"error": '):
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and set(value) == {"error", "suggestion"}


def as_tool_error(exc: ToolError) -> ToolError:
    """``exc`` in the one shape.

    The SDK re-raises a tool's ``ToolError`` as ``Error executing tool <name>:
    <text>`` with the original as its cause: the original is taken back.  An
    error the SDK made itself (an unknown tool...) is wrapped.
    """
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ToolError) and is_error_text(str(cause)):
            return cause
        cause = cause.__cause__
    return tool_error(str(exc))


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a DiffchunkError into a ToolError so its message reaches the model."""
    try:
        yield
    except DiffchunkError as exc:
        raise tool_error(exc.message, exc.suggestion) from exc


def _kind(prop: dict[str, Any]) -> str:
    """A parameter's JSON type as a word ("integer", "string or null"...)."""
    if "type" in prop:
        return str(prop["type"])
    kinds = [str(p.get("type")) for p in prop.get("anyOf", []) if p.get("type")]
    return " or ".join(kinds) if kinds else "value"


def _shown(value: Any) -> str:
    text = repr(value)
    if len(text) > SHOWN_INPUT_CHARS:
        text = text[:SHOWN_INPUT_CHARS] + f"... ({len(text)} characters)"
    return f"{text} ({type(value).__name__})"


def parameters_help(schema: dict[str, Any]) -> str:
    """``name (type, required), ...`` for every parameter of a tool."""
    required = set(schema.get("required", []))
    return ", ".join(
        f"{name} ({_kind(prop)}{', required' if name in required else ''})"
        for name, prop in schema.get("properties", {}).items()
    )


def check_arguments(name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Refuse what schema validation lets through: unknown names, booleans for integers.

    (A boolean is an integer to the validator, so ``chunk_number=true`` would
    silently mean chunk 1.)
    """
    props: dict[str, Any] = schema.get("properties", {})
    takes = f"{name} takes: {parameters_help(schema) or 'no parameters'}."
    unknown = sorted(k for k in arguments if k not in props)
    if unknown:
        raise tool_error(
            f"Error executing tool {name}: unknown parameter(s) {', '.join(unknown)}.", takes
        )
    for key, value in arguments.items():
        kinds = _kind(props[key]).split(" or ")
        if isinstance(value, bool) and "integer" in kinds and "boolean" not in kinds:
            raise tool_error(
                f"Error executing tool {name}: invalid argument {key}: expected an integer, "
                f"got {_shown(value)}.",
                takes,
            )


def validation_error(name: str, schema: dict[str, Any], error: ValidationError) -> ToolError:
    """A short, readable account of arguments that failed the input schema."""
    props: dict[str, Any] = schema.get("properties", {})
    problems = []
    for item in error.errors()[:SHOWN_SCHEMA_ERRORS]:
        loc = ".".join(str(part) for part in item["loc"]) or "arguments"
        top = str(item["loc"][0]) if item["loc"] else ""
        if item["type"] == "missing":
            kind = f" ({_kind(props[top])})" if top in props and len(item["loc"]) == 1 else ""
            problems.append(f"{loc} is required{kind}")
        else:
            problems.append(f"{loc}: {item['msg']}, got {_shown(item['input'])}")
    more = error.error_count() - len(problems)
    tail = f" (and {more} more)" if more > 0 else ""
    return tool_error(
        f"Error executing tool {name}: invalid argument(s): {'; '.join(problems)}{tail}.",
        f"{name} takes: {parameters_help(schema)}.",
    )
