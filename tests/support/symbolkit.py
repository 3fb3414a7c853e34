"""The changed symbols of a listing as one line each, to compare with what a reader
expects: ``Parser.run (method, modified, 12-40)``, a removed one's lines ``old 12-40``,
a function-context line (no kind, no lines) its text alone."""

from __future__ import annotations

from typing import Any


def symbol_text(entry: dict[str, Any]) -> str:
    """One ``symbols`` entry (``{"name", "kind", "change", "lines"}``) as a line."""
    assert set(entry) <= {"name", "kind", "change", "lines"}, entry
    if "kind" not in entry and "lines" not in entry:
        return str(entry["name"])
    parts = [entry["kind"]] if "kind" in entry else []
    parts.append(entry["change"])
    if "lines" in entry:
        first, last = entry["lines"]
        span = str(first) if first == last else f"{first}-{last}"
        parts.append(f"old {span}" if entry["change"] == "removed" else span)
    return f"{entry['name']} ({', '.join(parts)})"


def symbol_texts(entries: list[dict[str, Any]]) -> list[str]:
    return [symbol_text(e) for e in entries]
